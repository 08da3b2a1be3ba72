//! The evaluation store against local Fabric: `data-agent evaluate` records each run (unless
//! `--no-save`), `data-agent evaluations list | show | compare | delete` read them back,
//! `--fail-on-regression` exits 7 when a question that passed in the baseline fails, and
//! `--junit` writes one testcase per question and repeat. The questions' expectations come
//! from the agent's own answers (`data_agent_evaluate::questions`): two right, one wrong, one
//! without an expectation, so a run's pass rate is known before it runs.

use crate::data_agent_evaluate::{questions, truth};
use crate::data_agent_query::{EXAMPLES, published};
use crate::data_agents::AgentFixture;
use crate::support::Run;
use serde_json::Value;
use std::path::{Path, PathBuf};

pub(crate) fn evaluate(fx: &AgentFixture, file: &Path, extra: &[&str]) -> Run {
    let mut rest = vec!["--questions", file.to_str().expect("path")];
    rest.extend_from_slice(extra);
    fx.run("evaluate", &rest)
}

pub(crate) fn evaluations(fx: &AgentFixture, args: &[&str]) -> Run {
    let mut all = vec!["data-agent", "evaluations"];
    all.extend_from_slice(args);
    fx.server.fabsh(&all)
}

pub(crate) fn list(fx: &AgentFixture) -> Vec<Value> {
    let out = evaluations(fx, &["list", "-w", &fx.workspace, "--id", &fx.agent]).ok_json();
    out.as_array().expect("list").clone()
}

/// The sha256 of a file as coreutils' `sha256sum` gives it.
fn sha256sum(path: &Path) -> String {
    let out = std::process::Command::new("sha256sum")
        .arg(path)
        .output()
        .expect("sha256sum");
    String::from_utf8(out.stdout).expect("text")[..64].to_string()
}

fn store(fx: &AgentFixture) -> PathBuf {
    fx.server
        .home
        .dir
        .path()
        .join("data/fabsh/evaluations.sqlite3")
}

/// The questions file with the orders question's expectation made wrong.
pub(crate) fn orders_made_wrong(fx: &AgentFixture, dir: &tempfile::TempDir) -> PathBuf {
    let right = truth(fx, "How many orders are there?");
    let path = questions(fx, dir);
    let text = std::fs::read_to_string(&path).expect("read");
    // Twice the truth: far outside any number tolerance.
    let wrong = format!("{}", right.parse::<u64>().expect("number") * 2);
    let changed = dir.path().join("changed.json");
    std::fs::write(
        &changed,
        text.replacen(&format!("\"{right}\""), &format!("\"{wrong}\""), 1),
    )
    .expect("write");
    changed
}

#[test]
fn runs_are_recorded_listed_newest_first_shown_and_deleted() {
    let fx = published(module_path!(), EXAMPLES);
    let dir = tempfile::tempdir().expect("dir");
    let file = questions(&fx, &dir);
    let first = evaluate(&fx, &file, &["--repeats", "2"]);
    let first_out = first.ok_json();
    let first_id = first_out["summary"]["runId"]
        .as_str()
        .expect("runId")
        .to_string();
    assert!(
        first
            .stderr
            .contains(&format!("recorded as evaluation run {first_id}")),
        "{}",
        first.stderr
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(store(&fx))
            .expect("store")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let second_out = evaluate(&fx, &file, &[]).ok_json();
    let second_id = second_out["summary"]["runId"]
        .as_str()
        .expect("runId")
        .to_string();

    // Newest first; two of the three expectations are right and one question has none, so
    // half the runs pass (the unclear ones do not).
    let runs = list(&fx);
    let ids: Vec<&str> = runs
        .iter()
        .map(|r| r["runId"].as_str().expect("id"))
        .collect();
    assert_eq!(ids, [second_id.as_str(), first_id.as_str()]);
    assert_eq!(runs[0]["runs"], 4);
    assert_eq!(runs[1]["runs"], 8);
    assert!(runs.iter().all(|r| r["passRate"] == 0.5), "{runs:?}");
    assert!(runs[0]["configurationFingerprint"].is_string(), "{runs:?}");
    assert_eq!(
        runs[0]["configurationFingerprint"], runs[1]["configurationFingerprint"],
        "the agent was not republished between the runs"
    );

    let shown = evaluations(&fx, &["show", &first_id[..8]]).ok_json();
    assert_eq!(shown["runId"], first_id.as_str());
    // As a table too narrow for whole ids shows it, `…` and all.
    let short = format!("{}…", &first_id[..8]);
    let again = evaluations(&fx, &["show", &short]).ok_json();
    assert_eq!(again["runId"], first_id.as_str());
    assert_eq!(shown["rows"], first_out["rows"]);
    assert_eq!(shown["repeats"], 2);
    assert_eq!(shown["agent"]["name"], "Sales agent");
    assert_eq!(shown["workspace"]["id"], fx.workspace.as_str());
    assert_eq!(shown["grading"], "rules");
    // The fingerprint is of the file's bytes, checked against an independent sha256.
    let expected = sha256sum(&file);
    assert_eq!(shown["questionsSha256"], expected.as_str());
    // By its name, never its local path (issue 27).
    assert_eq!(
        shown["questionsFile"],
        file.file_name().unwrap().to_str().unwrap()
    );

    // Every evaluations command takes the agent as list does: a path before the run, or
    // -w/--id; `latest` is then that agent's newest run, and another agent's run is not one.
    let path = format!("{}/Sales agent", fx.workspace);
    let latest = evaluations(&fx, &["show", &path, "latest"]).ok_json();
    assert_eq!(latest["runId"], second_id.as_str());
    let flagged = evaluations(
        &fx,
        &[
            "show",
            "-w",
            &fx.workspace,
            "--id",
            "sales AGENT",
            &first_id[..8],
        ],
    )
    .ok_json();
    assert_eq!(flagged["runId"], first_id.as_str());
    let compared = evaluations(&fx, &["compare", &path, &first_id, "latest"]).ok_json();
    assert!(compared["passRateDelta"].is_number(), "{compared}");
    assert!(
        !compared["questions"]
            .as_array()
            .expect("questions")
            .is_empty()
    );
    let elsewhere = evaluations(
        &fx,
        &["show", &format!("{}/Other agent", fx.workspace), "latest"],
    );
    assert_eq!(elsewhere.code, 4, "{}", elsewhere.stderr);
    assert!(
        elsewhere.stderr.contains("Other agent"),
        "{}",
        elsewhere.stderr
    );
    // As a table: one line per row, not the run as a cut JSON blob.
    let table = evaluations(&fx, &["show", &first_id, "-o", "table"]);
    assert_eq!(table.code, 0, "{}", table.stderr);
    let lines: Vec<&str> = table.stdout.lines().collect();
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(
        header,
        ["question", "verdict", "rule", "latencyMs"],
        "{}",
        table.stdout
    );
    let rows = first_out["rows"].as_array().expect("rows");
    assert_eq!(lines.len(), rows.len() + 1, "{}", table.stdout);
    for row in rows {
        let question = row["question"].as_str().expect("question");
        assert!(
            table.stdout.contains(question),
            "{question}: {}",
            table.stdout
        );
    }
    assert!(!table.stdout.contains('{'), "{}", table.stdout);
    let no_run = evaluations(&fx, &["show", "-w", &fx.workspace, "--id", "Sales agent"]);
    assert_eq!(no_run.code, 2, "{}", no_run.stderr);
    assert!(no_run.stderr.contains("needs RUN"), "{}", no_run.stderr);

    // The registry gives scripts the same commands.
    let script = format!(
        r#"print(`${{data_agent::evaluations_list("{ws}", "{agent}").len()}} ${{data_agent::evaluations_show("{first_id}").rows.len()}}`)"#,
        ws = fx.workspace,
        agent = fx.agent,
    );
    let scripted = fx.server.fabsh(&["-e", &script]);
    assert_eq!(scripted.stdout.trim(), "2 8", "{}", scripted.stderr);

    let refused = evaluations(&fx, &["delete", &first_id]);
    assert_eq!(
        refused.code, 2,
        "off a terminal, delete needs --yes: {}",
        refused.stderr
    );
    assert_eq!(list(&fx).len(), 2);
    evaluations(&fx, &["delete", &first_id, "--yes"]);
    let ids: Vec<Value> = list(&fx).iter().map(|r| r["runId"].clone()).collect();
    assert_eq!(ids, [Value::from(second_id)]);
    let gone = evaluations(&fx, &["show", &first_id]);
    assert_eq!(gone.code, 4, "{}", gone.stderr);
}

#[test]
fn a_question_made_to_fail_is_newly_failing_and_fails_the_regression_gate() {
    let fx = published(module_path!(), EXAMPLES);
    let dir = tempfile::tempdir().expect("dir");
    let file = questions(&fx, &dir);
    let changed = orders_made_wrong(&fx, &dir);
    // No recorded run yet: the gate has no baseline to regress from, says so, and records
    // this run as the next one's baseline.
    let first = evaluate(&fx, &file, &["--fail-on-regression"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(first.stderr.contains("no baseline"), "{}", first.stderr);
    let base = first.json()["summary"]["runId"].clone();
    assert_eq!(list(&fx).len(), 1);
    // Another agent's run is no baseline for this one: refused before anything is asked.
    let other = fx
        .server
        .fabsh(&[
            "data-agent",
            "create",
            "-w",
            fx.server.demo.as_str(),
            "--name",
            "Other agent",
            "-q",
            "id",
        ])
        .ok_json();
    let before = fx.server.request_count();
    let foreign = fx.server.fabsh(&[
        "data-agent",
        "evaluate",
        "-w",
        fx.server.demo.as_str(),
        "--id",
        other.as_str().expect("id"),
        "--questions",
        file.to_str().expect("path"),
        "--baseline",
        base.as_str().expect("run id"),
    ]);
    assert_eq!(foreign.code, 2, "{}", foreign.stderr);
    assert!(
        foreign.stderr.contains("not of this agent"),
        "{}",
        foreign.stderr
    );
    // Reads only: the agent's definition (its logical id) is read through a POST.
    let asked = fx.server.requests()["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .rev()
        .take((fx.server.request_count() - before) as usize)
        .any(|r| {
            r["method"] != "GET"
                && !r["path"]
                    .as_str()
                    .is_some_and(|path| path.ends_with("/getDefinition"))
        });
    assert!(!asked, "a question was asked");
    let gated = evaluate(&fx, &changed, &["--fail-on-regression"]);
    assert_eq!(gated.code, 7, "{}", gated.stderr);
    assert!(
        gated.stderr.contains("How many orders are there?"),
        "{}",
        gated.stderr
    );
    let head = list(&fx)[0]["runId"].clone();
    assert_ne!(head, base, "the failing run is recorded too");
    // The same file again passes the gate against that run.
    let again = evaluate(
        &fx,
        &changed,
        &["--fail-on-regression", "--baseline", head.as_str().unwrap()],
    );
    assert_eq!(again.code, 0, "{}", again.stderr);

    let out = evaluations(
        &fx,
        &["compare", base.as_str().unwrap(), head.as_str().unwrap()],
    )
    .ok_json();
    // (status, regressed) of a question.
    let verdict = |question: &str| {
        let found = out["questions"]
            .as_array()
            .expect("questions")
            .iter()
            .find(|q| q["question"] == question)
            .cloned()
            .unwrap_or_else(|| panic!("{question} not compared: {out}"));
        (found["status"].clone(), found["regressed"].clone())
    };
    assert_eq!(
        verdict("How many orders are there?"),
        ("newly_failing".into(), true.into())
    );
    for same in [
        "How many customers live in Germany?",
        "How many customers are there?",
    ] {
        assert_eq!(verdict(same), ("unchanged".into(), false.into()));
    }
    assert_eq!(out["newlyFailing"], 1);
    assert_eq!(out["newlyPassing"], 0);
    assert_eq!(out["configurationChanged"], false);
    // One of four questions lost its pass: a quarter of the pass rate.
    assert_eq!(out["passRateDelta"], -0.25);

    // Republished with other instructions and description, the agent's configuration
    // fingerprint changes, and the comparison names those two changes and nothing else.
    fx.ok(
        "update-config",
        &["--instructions", "Answer in EUR, revised"],
    );
    fx.ok("publish", &["--description", "Sales questions, revised"]);
    let republished = evaluate(&fx, &file, &[]).ok_json()["summary"]["runId"].clone();
    let out = evaluations(
        &fx,
        &[
            "compare",
            base.as_str().unwrap(),
            republished.as_str().unwrap(),
        ],
    )
    .ok_json();
    assert_eq!(out["configurationChanged"], true, "{out}");
    assert_eq!(out["newlyFailing"], 0);
    let changes: Vec<(&str, &str)> = out["configurationChanges"]
        .as_array()
        .unwrap_or_else(|| panic!("configurationChanges: {out}"))
        .iter()
        .map(|c| (c["what"].as_str().unwrap(), c["change"].as_str().unwrap()))
        .collect();
    assert!(
        changes.contains(&("instructions and settings", "changed")),
        "{out}"
    );
    assert!(
        changes.contains(&("published description", "changed")),
        "{out}"
    );
    assert!(
        changes
            .iter()
            .all(|(what, _)| !what.starts_with("datasource") && !what.starts_with("few-shots")),
        "datasources and few-shots did not change: {out}"
    );

    // A table at 80 columns shows the questions, and beside them (as notes) what changed,
    // one part a line: `compare` and `evaluate --baseline` alike.
    let changed_lines = [
        "note: configuration: instructions and settings changed (stage_config.json)",
        "note: configuration: published description changed (publishedDescription)",
    ];
    let at_80 = [("COLUMNS", "80")];
    let compared = fx.server.fabsh_env(
        &[
            "data-agent",
            "evaluations",
            "compare",
            base.as_str().unwrap(),
            republished.as_str().unwrap(),
            "-o",
            "table",
        ],
        &at_80,
    );
    let again = evaluate(
        &fx,
        &file,
        &[
            "--baseline",
            base.as_str().unwrap(),
            "-o",
            "table",
            "--no-save",
        ],
    );
    for table in [&compared, &again] {
        assert_eq!(table.code, 0, "{}", table.stderr);
        assert!(
            table.stdout.contains("How many orders are there?"),
            "{}",
            table.stdout
        );
        let notes: Vec<&str> = table.stderr.lines().collect();
        for line in changed_lines {
            assert!(notes.contains(&line), "{line:?} in {}", table.stderr);
            assert!(line.chars().count() <= 80, "{line}");
        }
        assert!(
            !table.stderr.contains("datasource") && !table.stderr.contains("few-shots"),
            "{}",
            table.stderr
        );
    }
    assert!(
        compared
            .stdout
            .lines()
            .all(|line| line.chars().count() <= 80),
        "{}",
        compared.stdout
    );
}

/// Counts the opening tags named `name` and checks the document is balanced.
fn tags(xml: &str, name: &str) -> usize {
    let mut stack: Vec<&str> = Vec::new();
    let mut count = 0;
    for tag in xml.split('<').skip(1) {
        let tag = &tag[..tag.find('>').expect("tag closed")];
        if tag.starts_with('?') {
            continue;
        }
        if let Some(closing) = tag.strip_prefix('/') {
            assert_eq!(stack.pop(), Some(closing), "unbalanced at </{closing}>");
            continue;
        }
        let tag_name = tag.split_whitespace().next().expect("name");
        count += usize::from(tag_name == name);
        if !tag.ends_with('/') {
            stack.push(tag_name);
        }
    }
    assert!(stack.is_empty(), "unclosed {stack:?}");
    count
}

#[test]
fn junit_has_a_testcase_per_question_and_repeat_and_no_save_records_nothing() {
    let fx = published(module_path!(), EXAMPLES);
    let dir = tempfile::tempdir().expect("dir");
    let file = questions(&fx, &dir);
    let junit = dir.path().join("results.xml");
    let out = evaluate(
        &fx,
        &file,
        &[
            "--repeats",
            "2",
            "--junit",
            junit.to_str().unwrap(),
            "--no-save",
        ],
    )
    .ok_json();
    assert_eq!(out["summary"]["runId"], Value::Null);
    assert!(!store(&fx).exists(), "--no-save opens no store");
    assert!(list(&fx).is_empty());
    let xml = std::fs::read_to_string(&junit).expect("junit");
    assert_eq!(tags(&xml, "testcase"), 8);
    // The wrong expectation fails twice, the question without one is unclear twice.
    assert_eq!(tags(&xml, "failure"), 4);
    assert!(
        xml.contains("<testsuite name=\"Sales agent\" tests=\"8\" failures=\"4\""),
        "{xml}"
    );
    // Each testcase is named by its question's place in the file and its run, as the file
    // gives them: two questions of one text are never taken for repeats.
    let asked: Value = serde_json::from_str(&std::fs::read_to_string(&file).expect("file"))
        .expect("questions JSON");
    for (at, question) in asked.as_array().expect("questions").iter().enumerate() {
        let text = question["question"]
            .as_str()
            .or(question.as_str())
            .expect("text");
        for run in 1..=2 {
            let name = format!("name=\"{}. {text} (run {run} of 2)\"", at + 1);
            assert!(xml.contains(&name), "{name} in {xml}");
        }
    }
    let bad = evaluate(&fx, &file, &["--junit", "/no/such/dir/x.xml"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("--junit"), "{}", bad.stderr);
}

/// The questions file with the orders question expecting `factor` times the true count.
fn orders_scaled(fx: &AgentFixture, dir: &tempfile::TempDir, factor: f64) -> PathBuf {
    let right: f64 = truth(fx, "How many orders are there?")
        .parse()
        .expect("number");
    let path = dir.path().join("scaled.json");
    let expected = format!("{}", (right * factor).round());
    let body =
        serde_json::json!([{"question": "How many orders are there?", "expected": expected}]);
    std::fs::write(&path, body.to_string()).expect("write");
    path
}

#[test]
fn numbers_match_within_the_tolerance_and_the_rule_is_recorded() {
    let fx = published(module_path!(), EXAMPLES);
    let dir = tempfile::tempdir().expect("dir");
    let right: f64 = truth(&fx, "How many orders are there?")
        .parse()
        .expect("number");
    // 0.4% off the truth (at least one unit): inside the default 0.5%, outside 0.1%.
    let factor = 1.0 + (0.004f64).max(1.0 / right);
    assert!(
        factor < 1.005,
        "the demo's order count is large enough for this test"
    );
    let file = orders_scaled(&fx, &dir, factor);
    let row = |run: Run| run.ok_json()["rows"][0].clone();
    let near = row(evaluate(&fx, &file, &["--no-save"]));
    assert_eq!(
        (near["verdict"].as_str(), near["rule"].as_str()),
        (Some("yes"), Some("numbers")),
        "{near}"
    );
    let strict = row(evaluate(&fx, &file, &["--no-save", "--tolerance", "0.1%"]));
    assert_eq!(
        (strict["verdict"].as_str(), strict["rule"].as_str()),
        (Some("no"), Some("numbers")),
        "{strict}"
    );
    let share = row(evaluate(&fx, &file, &["--no-save", "--tolerance", "0.001"]));
    assert_eq!(share["verdict"], "no");
    let before = fx.server.request_count();
    let bad = evaluate(&fx, &file, &["--tolerance", "2"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("--tolerance"), "{}", bad.stderr);
    assert_eq!(fx.server.request_count(), before, "nothing sent");
}

#[test]
fn a_script_gate_over_the_store_stops_on_a_regression() {
    let fx = published(module_path!(), EXAMPLES);
    let dir = tempfile::tempdir().expect("dir");
    let gate = dir.path().join("gate.rhai");
    std::fs::write(
        &gate,
        "let diff = evaluate::gate(ARGS[0], ARGS[1], 0.05);\nprint(`${evaluate::history(ARGS[0], ARGS[1]).len()} runs, delta ${diff.passRateDelta}`);\n",
    )
    .expect("write");
    let run_gate = || {
        fx.server.fabsh(&[
            "run",
            gate.to_str().expect("path"),
            "--",
            &fx.workspace,
            &fx.agent,
        ])
    };
    let too_few = run_gate();
    assert_ne!(too_few.code, 0);
    assert!(
        too_few.stderr.contains("a gate needs two"),
        "{}",
        too_few.stderr
    );

    let file = questions(&fx, &dir);
    evaluate(&fx, &file, &[]).ok_json();
    evaluate(&fx, &file, &[]).ok_json();
    let same = run_gate();
    assert_eq!(same.code, 0, "{}", same.stderr);
    assert_eq!(same.stdout, "2 runs, delta 0.0\n");

    evaluate(&fx, &orders_made_wrong(&fx, &dir), &[]).ok_json();
    let regressed = run_gate();
    assert_ne!(regressed.code, 0, "{}", regressed.stdout);
    assert!(
        regressed
            .stderr
            .contains("1 question(s) regressed, first: How many orders are there?"),
        "{}",
        regressed.stderr
    );
}
