//! `deploy promote` end to end on local Fabric (issue 49): a workspace with a published data
//! agent is exported, then promoted to empty test and production workspaces, its lakehouse's
//! data loaded in test from a file the test writes (the repository carries the lakehouse's
//! definition, not its data). The answers the evaluation expects are the counts and sums of
//! the rows this test wrote, never figures asked of fabsh.

use crate::data_agent_query::published;
use crate::deploy::new_workspace;
use crate::support::{Run, Server};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The orders the test loads into the test workspace's lakehouse: `rows` of them, with a
/// quantity of 1 to 7 each; their count and the sum of their quantities.
fn orders_csv(rows: usize) -> (String, usize, usize) {
    let mut text = String::from("order_id,customer,quantity\n");
    let mut quantities = 0;
    for i in 0..rows {
        let quantity = i % 7 + 1;
        quantities += quantity;
        text.push_str(&format!("{},c{},{quantity}\n", 500 + i, i % 5));
    }
    (text, rows, quantities)
}

const COUNT_QUESTION: &str = "How many orders are there?";
const SUM_QUESTION: &str = "What is the total quantity ordered?";
const COUNT_SQL: &str = "SELECT COUNT(*) FROM dbo.orders";

/// A promotion's world: a session's Demo with a published agent over SalesLakehouse, exported
/// to `repo`, with a promotion file loading `orders` and a questions file, and empty test and
/// production workspaces.
struct World {
    server: Server,
    _dir: tempfile::TempDir,
    repo: PathBuf,
    questions: PathBuf,
    test: String,
    prod: String,
    orders: usize,
    quantities: usize,
}

fn world(name: &str) -> World {
    let fx = published(
        module_path!(),
        &[
            (COUNT_QUESTION, COUNT_SQL),
            (SUM_QUESTION, "SELECT SUM(quantity) FROM orders"),
        ],
    );
    let server = fx.server;
    let dir = tempfile::tempdir().expect("temp dir");
    let repo = dir.path().join("repo");
    let exported = server.fabsh(&["deploy", "export", "-w", &server.demo, &text(&repo)]);
    assert_eq!(exported.code, 0, "{}", exported.stderr);
    let (csv, orders, quantities) = orders_csv(41);
    std::fs::create_dir(repo.join("data")).expect("mkdir");
    std::fs::write(repo.join("data/orders.csv"), csv).expect("write");
    write_promotion_file(&repo, "SalesLakehouse");
    let questions = dir.path().join("questions.json");
    let asked = serde_json::json!([
        {"question": COUNT_QUESTION, "expected_sql": "SELECT COUNT(*) FROM orders"},
        {"question": SUM_QUESTION, "expected_sql": "SELECT SUM(quantity) FROM orders"},
    ]);
    std::fs::write(&questions, asked.to_string()).expect("write");
    let test = new_workspace(&server, &format!("{name}-Test"));
    let prod = new_workspace(&server, name);
    World {
        server,
        _dir: dir,
        repo,
        questions,
        test,
        prod,
        orders,
        quantities,
    }
}

fn text(path: &Path) -> String {
    path.display().to_string()
}

/// promote.yml in the repository: `data/orders.csv` into `lakehouse`'s `orders`, replacing it.
fn write_promotion_file(repo: &Path, lakehouse: &str) {
    let yaml = format!(
        "prepare:\n  - load_table: {{lakehouse: {lakehouse}, table: orders, from_local: data/orders.csv, mode: overwrite}}\n"
    );
    std::fs::write(repo.join("promote.yml"), yaml).expect("write");
}

impl World {
    fn promote(&self, extra: &[&str]) -> Run {
        let (repo, questions) = (text(&self.repo), text(&self.questions));
        let mut args = vec![
            "deploy",
            "promote",
            &repo,
            "--test",
            &self.test,
            "--prod",
            &self.prod,
            "--questions",
            &questions,
            "-o",
            "json",
        ];
        args.extend_from_slice(extra);
        self.server.fabsh(&args)
    }

    /// The id of the item `name` of `kind` in `workspace`, if there is one.
    fn item(&self, workspace: &str, name: &str, kind: &str) -> Option<String> {
        let listed = self
            .server
            .fabsh(&["item", "list", "-w", workspace, "--type", kind])
            .ok_json();
        listed
            .as_array()
            .expect("items")
            .iter()
            .find(|item| item["displayName"] == name)
            .and_then(|item| item["id"].as_str())
            .map(String::from)
    }

    /// The decoded parts of the production agent's definition.
    fn prod_agent_definition(&self) -> Value {
        let id = self
            .item(&self.prod, "Sales agent", "DataAgent")
            .expect("the agent in production");
        self.server
            .fabsh(&[
                "item",
                "get-definition",
                "-w",
                &self.prod,
                "--id",
                &id,
                "--decode",
            ])
            .ok_json()
    }
}

/// Each step's `(step, status)` of a promotion's reply, in order.
fn steps(out: &Value) -> Vec<(String, String)> {
    steps_of(&out["steps"])
}

/// Each `(step, status)` of an array of step rows, in order.
fn steps_of(rows: &Value) -> Vec<(String, String)> {
    rows.as_array()
        .expect("steps")
        .iter()
        .map(|step| {
            (
                step["step"].as_str().unwrap_or_default().to_string(),
                step["status"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(step, status)| (step.to_string(), status.to_string()))
        .collect()
}

/// The agent's evaluation rows: `(question, verdict, expected)`.
fn graded(out: &Value) -> Vec<(String, String, String)> {
    let evaluation = out["evaluations"]
        .as_array()
        .expect("evaluations")
        .iter()
        .find(|evaluation| evaluation["agent"] == "Sales agent")
        .expect("the agent was evaluated");
    evaluation["result"]["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|row| {
            (
                row["question"].as_str().unwrap_or_default().to_string(),
                row["verdict"].as_str().unwrap_or_default().to_string(),
                row["expected"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_first_promotion_loads_tests_data_evaluates_there_then_ships_and_a_second_compares() {
    let world = world("Promoted");
    let dir = tempfile::tempdir().expect("dir");
    let junit = dir.path().join("promotion.xml");
    let run = world.promote(&["--junit", &text(&junit)]);
    assert_eq!(run.code, 0, "{}\n{}", run.stderr, run.stdout);
    let out = run.json();
    assert_eq!(
        steps(&out),
        pairs(&[
            ("deploy test", "done"),
            ("prepare", "done"),
            ("evaluate", "done"),
            ("deploy prod", "done"),
            ("publish", "done"),
        ]),
        "{out:#}"
    );
    // The agent answered in test, from the rows loaded there: the expected answers are the
    // count and the sum of what this test wrote.
    assert_eq!(
        graded(&out),
        vec![
            (
                COUNT_QUESTION.to_string(),
                "yes".to_string(),
                world.orders.to_string()
            ),
            (
                SUM_QUESTION.to_string(),
                "yes".to_string(),
                world.quantities.to_string()
            ),
        ]
    );
    // Production has the agent, published.
    let agent = world
        .item(&world.prod, "Sales agent", "DataAgent")
        .expect("deployed to production");
    let published = world
        .server
        .fabsh(&[
            "data-agent",
            "list-fewshots",
            "-w",
            &world.prod,
            "--id",
            &agent,
            "--datasource",
            "SalesLakehouse",
            "--stage",
            "published",
        ])
        .ok_json();
    let questions: Vec<&str> = published
        .as_array()
        .expect("few-shots")
        .iter()
        .filter_map(|fewshot| fewshot["question"].as_str())
        .collect();
    assert_eq!(questions.len(), 2, "published in production: {published:#}");
    // The JUnit report: a testsuite for the agent, both questions passing.
    let xml = std::fs::read_to_string(&junit).expect("junit written");
    assert!(
        xml.contains("<testsuite name=\"Sales agent\" tests=\"2\" failures=\"0\" errors=\"0\""),
        "{xml}"
    );

    // The first promotion had nothing to compare with, and recorded its run for the next.
    assert_eq!(
        out["evaluations"][0]["result"]["baseline"]["matchedBy"],
        "none"
    );
    // A second promotion compares with the first run, recorded in the test workspace.
    let first_run = out["evaluations"][0]["result"]["summary"]["runId"].clone();
    assert!(first_run.is_string(), "the first run was recorded: {out:#}");
    let again = world.promote(&[]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let again = again.json();
    let baseline = &again["evaluations"][0]["result"]["baseline"];
    assert_eq!(baseline["runId"], first_run, "{again:#}");
    assert_eq!(baseline["matchedBy"], "same_agent");
}

#[test]
fn a_broken_fewshot_regresses_in_test_and_leaves_production_as_it_was() {
    let world = world("Regressed");
    let first = world.promote(&[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let before = world.prod_agent_definition();
    // The count few-shot now counts only some orders: the agent answers wrongly.
    let mut changed = 0;
    for entry in walkdir(&world.repo.join("Sales agent.DataAgent")) {
        let text = std::fs::read_to_string(&entry).unwrap_or_default();
        if text.contains(COUNT_SQL) {
            let broken = text.replace(
                COUNT_SQL,
                "SELECT COUNT(*) FROM dbo.orders WHERE quantity > 5",
            );
            std::fs::write(&entry, broken).expect("write");
            changed += 1;
        }
    }
    assert!(changed > 0, "the exported agent holds its few-shots");
    let run = world.promote(&[]);
    assert_eq!(run.code, 7, "a regression: {}\n{}", run.stderr, run.stdout);
    let out = run.json();
    assert_eq!(
        steps(&out),
        pairs(&[
            ("deploy test", "done"),
            ("prepare", "done"),
            ("evaluate", "failed"),
            ("deploy prod", "skipped"),
        ])
    );
    let verdicts: Vec<String> = graded(&out)
        .into_iter()
        .map(|(_, verdict, _)| verdict)
        .collect();
    assert_eq!(verdicts, vec!["no", "yes"]);
    assert_eq!(
        world.prod_agent_definition(),
        before,
        "production untouched"
    );
}

#[test]
fn a_failed_preparation_stops_before_production_and_a_dry_run_changes_nothing() {
    let world = world("Unprepared");
    // The promotion file loads into a lakehouse the repository does not have.
    write_promotion_file(&world.repo, "NoSuchLakehouse");
    let run = world.promote(&[]);
    assert_ne!(run.code, 0, "{}", run.stdout);
    let out = run.json();
    assert_eq!(
        steps(&out),
        pairs(&[
            ("deploy test", "done"),
            ("prepare", "failed"),
            ("deploy prod", "skipped")
        ]),
        "{out:#}"
    );
    assert_eq!(world.item(&world.prod, "Sales agent", "DataAgent"), None);

    // A dry run lists the steps and creates nothing anywhere.
    write_promotion_file(&world.repo, "SalesLakehouse");
    let empty = new_workspace(&world.server, "Unprepared-Dry");
    let repo = text(&world.repo);
    let questions = text(&world.questions);
    let dry = world.server.fabsh(&[
        "deploy",
        "promote",
        &repo,
        "--test",
        &empty,
        "--prod",
        &world.prod,
        "--questions",
        &questions,
        "--dry-run",
        "-o",
        "json",
    ]);
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    let planned = steps_of(&dry.json()["items"]);
    for expected in pairs(&[("prepare", "planned"), ("evaluate", "planned")]) {
        assert!(planned.contains(&expected), "{planned:?}");
    }
    assert_eq!(world.item(&empty, "Sales agent", "DataAgent"), None);
}

#[test]
fn bad_input_is_refused_before_anything_is_sent() {
    let server = Server::session(module_path!());
    let dir = tempfile::tempdir().expect("dir");
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join("Hello.Notebook")).expect("mkdir");
    std::fs::write(
        repo.join("Hello.Notebook/.platform"),
        r#"{"metadata": {"type": "Notebook", "displayName": "Hello"}, "config": {"logicalId": "00000000-0000-0000-0000-000000000001"}}"#,
    )
    .expect("write");
    std::fs::write(
        repo.join("Hello.Notebook/notebook-content.py"),
        "# Fabric notebook source\n",
    )
    .expect("write");
    let questions = dir.path().join("q.json");
    std::fs::write(&questions, r#"["How many orders?"]"#).expect("write");
    let outside = tempfile::tempdir().expect("outside");
    std::fs::write(outside.path().join("secret.csv"), "a\n1\n").expect("write");
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.path().join("secret.csv"), repo.join("data.csv"))
        .expect("link");
    let before = server.request_count();
    let promote = |extra: &[&str], file: &str| {
        std::fs::write(repo.join("promote.yml"), file).expect("write");
        let (repo, questions) = (text(&repo), text(&questions));
        let mut args = vec![
            "deploy",
            "promote",
            &repo,
            "--test",
            "T",
            "--prod",
            "P",
            "--questions",
            &questions,
        ];
        args.extend_from_slice(extra);
        server.fabsh(&args)
    };
    let link = "prepare:\n  - load_table: {lakehouse: L, table: t, from_local: data.csv}\n";
    for (extra, file, says) in [
        (&[][..], link, "--prepare"),
        (&[][..], "prepare:\n  - copy: {}\n", "--prepare"),
        (&["--min-pass-rate", "2"][..], "", "--min-pass-rate"),
    ] {
        let run = promote(extra, file);
        assert_eq!(run.code, 2, "{says}: {}", run.stderr);
        assert!(run.stderr.contains(says), "{says}: {}", run.stderr);
    }
    assert_eq!(server.request_count(), before, "nothing was sent");
}

/// Every file under `dir`.
fn walkdir(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("read dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files
}
