//! Baselines that follow the agent (issue 49): `--baseline latest` compares with this agent's
//! newest run in its workspace, else with the newest run of the same agent elsewhere (a copy
//! deployed from the same repository item: the same logical id), else runs without a
//! baseline, records the run and says so; without a baseline only `--min-pass-rate` gates.
//! A first promotion is never stopped by the agent having no history.
//!
//! The expected answers are the demo lakehouse's documented counts (240 customers, 3,000
//! orders: crates/fabsh-local/src/tables/demo.rs), so every pass rate is known beforehand.

use crate::data_agent_query::{EXAMPLES, published};
use crate::deploy::new_workspace;
use crate::evaluations::{evaluate, evaluations, list};
use crate::support::Run;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// Orders in the demo lakehouse.
const ORDERS: u64 = 3_000;
/// Customers in the demo lakehouse.
const CUSTOMERS: u64 = 240;

/// Three questions: the orders count expecting `orders`, the customers count expecting twice
/// the truth (always wrong), and one without an expectation (always unclear).
fn questions(dir: &Path, name: &str, orders: u64) -> PathBuf {
    let path = dir.join(name);
    let body = json!([
        {"question": "How many orders are there?", "expected": orders.to_string()},
        {"question": "How many customers are there?", "expected": (CUSTOMERS * 2).to_string()},
        "Top 3 customers by name",
    ]);
    std::fs::write(&path, body.to_string()).expect("write");
    path
}

/// `(passed, failed, unclear)` of a run's summary.
fn counts(out: &Value) -> (u64, u64, u64) {
    let of = |key: &str| out["summary"][key].as_u64().expect(key);
    (of("passed"), of("failed"), of("unclear"))
}

fn run_id(out: &Value) -> String {
    out["summary"]["runId"].as_str().expect("runId").to_string()
}

/// The `note:` lines of a run's stderr.
fn notes(run: &Run) -> Vec<&str> {
    run.stderr
        .lines()
        .filter(|line| line.starts_with("note: "))
        .collect()
}

const AT_80: &[(&str, &str)] = &[("COLUMNS", "80")];

#[test]
fn a_first_evaluation_has_no_baseline_and_the_next_one_here_compares_with_it() {
    let fx = published(module_path!(), EXAMPLES);
    let dir = tempfile::tempdir().expect("dir");
    let right = questions(dir.path(), "right.json", ORDERS);
    let gate = ["--baseline", "latest", "--fail-on-regression", "-o", "json"];

    // Never evaluated: nothing to compare with, which is no error; the run is recorded.
    let mut args = vec!["--questions", right.to_str().expect("path")];
    args.extend_from_slice(&gate);
    let first = fx.run_env("evaluate", &args, AT_80);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let out = first.json();
    assert_eq!(counts(&out), (1, 1, 1), "{out}");
    assert_eq!(
        out["baseline"],
        json!({"matchedBy": "none", "runId": null, "workspace": null, "agent": null})
    );
    assert!(out.get("comparison").is_none(), "{out}");
    let first_id = run_id(&out);
    let said = notes(&first);
    assert!(
        said.contains(&"note: no baseline: this agent has no recorded run, here or elsewhere"),
        "{}",
        first.stderr
    );
    assert!(
        said.contains(&format!("note: recorded as evaluation run {first_id}").as_str()),
        "{}",
        first.stderr
    );
    let ids: Vec<Value> = list(&fx).iter().map(|r| r["runId"].clone()).collect();
    assert_eq!(ids, [json!(first_id)]);

    // The orders expectation made wrong: the question that passed in the first run fails
    // now, against that run (this agent's latest here), so the gate stops it.
    let wrong = questions(dir.path(), "wrong.json", ORDERS * 2);
    let mut args = vec!["--questions", wrong.to_str().expect("path")];
    args.extend_from_slice(&gate);
    let second = fx.run_env("evaluate", &args, AT_80);
    assert_eq!(second.code, 7, "{}", second.stderr);
    let out = second.json();
    assert_eq!(counts(&out), (0, 2, 1), "{out}");
    assert_eq!(out["baseline"]["matchedBy"], "same_agent", "{out}");
    assert_eq!(out["baseline"]["runId"], first_id.as_str());
    assert_eq!(out["baseline"]["workspace"]["id"], fx.workspace.as_str());
    assert_eq!(out["baseline"]["agent"]["id"], fx.agent.as_str());
    assert_eq!(out["comparison"]["base"]["runId"], first_id.as_str());
    assert!(
        second.stderr.contains("How many orders are there?"),
        "{}",
        second.stderr
    );
    let line = format!("note: baseline: run {first_id} (this agent's latest)");
    assert!(notes(&second).contains(&line.as_str()), "{}", second.stderr);
    assert!(line.chars().count() <= 80, "{line}");
}

#[test]
fn an_unknown_baseline_run_is_refused_and_without_one_the_pass_rate_still_gates() {
    let fx = published(module_path!(), EXAMPLES);
    let dir = tempfile::tempdir().expect("dir");
    let file = questions(dir.path(), "questions.json", ORDERS);

    // A run named that is not recorded is an error, before anything is asked or recorded.
    let unknown = evaluate(
        &fx,
        &file,
        &["--baseline", "0badc0de-0000-4000-8000-000000000000"],
    );
    assert_eq!(unknown.code, 4, "{}", unknown.stderr);
    assert!(unknown.stderr.contains("0badc0de"), "{}", unknown.stderr);
    assert!(list(&fx).is_empty());

    // One question of three passes: below a bar of a half. With no baseline, the regression
    // gate has nothing to regress from (not 7); the pass rate gate still holds (6).
    let below = evaluate(
        &fx,
        &file,
        &[
            "--baseline",
            "latest",
            "--fail-on-regression",
            "--min-pass-rate",
            "0.5",
        ],
    );
    assert_eq!(below.code, 6, "{}", below.stderr);
    let out = below.json();
    assert_eq!(counts(&out), (1, 1, 1), "{out}");
    assert_eq!(out["baseline"]["matchedBy"], "none");
    assert!(below.stderr.contains("--min-pass-rate"), "{}", below.stderr);
    assert!(below.stderr.contains("no baseline"), "{}", below.stderr);
    // Recorded all the same: the next evaluation has a baseline.
    assert_eq!(list(&fx).len(), 1);
}

#[test]
fn a_copy_deployed_to_another_workspace_compares_with_its_source_s_run() {
    let fx = published(module_path!(), EXAMPLES);
    let server = &fx.server;
    let dir = tempfile::tempdir().expect("dir");
    let file = questions(dir.path(), "questions.json", ORDERS);
    let source_run = evaluate(&fx, &file, &["--baseline", "latest"]).ok_json();
    let source_id = run_id(&source_run);

    // The copy as a deployment carries it: the definition's parts (the published
    // configuration, over the demo lakehouse) and the `.platform` `deploy export` writes,
    // whose logical id is the source's id (the service gives the source none).
    let exported = dir.path().join("repo");
    let exported_text = exported.display().to_string();
    let run = server.fabsh(&["deploy", "export", "-w", &fx.workspace, &exported_text]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let platform = std::fs::read_to_string(exported.join("Sales agent.DataAgent/.platform"))
        .expect("exported .platform");
    let platform: Value = serde_json::from_str(&platform).expect("JSON");
    assert_eq!(platform["config"]["logicalId"], fx.agent.as_str());
    let parts = dir.path().join("parts");
    let parts_text = parts.display().to_string();
    let got = server.fabsh(&[
        "item",
        "get-definition",
        "-w",
        &fx.workspace,
        "--id",
        &fx.agent,
        "--dir",
        &parts_text,
    ]);
    assert_eq!(got.code, 0, "{}", got.stderr);
    std::fs::copy(
        exported.join("Sales agent.DataAgent/.platform"),
        parts.join(".platform"),
    )
    .expect("copy .platform");
    let target = new_workspace(server, "baselines-follow-copy");
    let copy = server
        .fabsh(&[
            "item",
            "create",
            "-w",
            &target,
            "--name",
            "Sales agent (test)",
            "--type",
            "DataAgent",
            "--dir",
            &parts_text,
        ])
        .ok_json()["id"]
        .as_str()
        .expect("copy id")
        .to_string();
    let on_copy = |command: &str, rest: &[&str], env: &[(&str, &str)]| {
        let mut args = vec!["data-agent", command, "-w", &target, "--id", &copy];
        args.extend_from_slice(rest);
        server.fabsh_env(&args, env)
    };
    let published = on_copy("publish", &["--description", "Sales questions"], &[]);
    assert_eq!(published.code, 0, "{}", published.stderr);

    // New here: its baseline is the source's run, found by the logical id they share.
    let mut args = vec!["--questions", file.to_str().expect("path")];
    args.extend_from_slice(&["--baseline", "latest", "--fail-on-regression", "-o", "json"]);
    let run = on_copy("evaluate", &args, AT_80);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out = run.json();
    assert_eq!(counts(&out), (1, 1, 1), "{out}");
    assert_eq!(out["baseline"]["matchedBy"], "logical_id", "{out}");
    assert_eq!(out["baseline"]["runId"], source_id.as_str());
    assert_eq!(out["baseline"]["workspace"]["id"], fx.workspace.as_str());
    assert_eq!(out["baseline"]["agent"]["name"], "Sales agent");
    assert_eq!(out["comparison"]["base"]["runId"], source_id.as_str());
    // Same data, same answers: nothing newly failing or passing.
    assert_eq!(out["comparison"]["newlyFailing"], 0, "{out}");
    assert_eq!(out["comparison"]["newlyPassing"], 0, "{out}");
    let said = notes(&run);
    let how = format!("note: baseline: run {source_id} (same logical id)");
    assert!(said.contains(&how.as_str()), "{}", run.stderr);
    let source_workspace = server
        .fabsh(&[
            "workspace",
            "show",
            "-w",
            &fx.workspace,
            "-q",
            "displayName",
        ])
        .ok_json();
    let whose = format!("note: baseline run of \"Sales agent\" in workspace {source_workspace}");
    assert!(said.contains(&whose.as_str()), "{}", run.stderr);
    for line in [&how, &whose] {
        assert!(line.chars().count() <= 80, "{line}");
    }
    // The copy's run records the logical id, so its own copies find it in turn.
    let head = run_id(&out);
    let shown = evaluations(&fx, &["show", &head]).ok_json();
    assert_eq!(shown["agentLogicalId"], fx.agent.as_str());
    let source = evaluations(&fx, &["show", &source_id]).ok_json();
    assert_eq!(source["agentLogicalId"], Value::Null, "the source has none");
}

#[test]
fn a_first_promotion_of_an_agent_new_to_the_test_workspace_is_not_stopped() {
    let fx = published(module_path!(), EXAMPLES);
    let server = &fx.server;
    let dir = tempfile::tempdir().expect("dir");
    let file = questions(dir.path(), "questions.json", ORDERS);
    let repo = dir.path().join("repo");
    let repo_text = repo.display().to_string();
    let run = server.fabsh(&["deploy", "export", "-w", &fx.workspace, &repo_text]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // The agent leaves the test workspace (its lakehouse, with the data, stays): the
    // promotion deploys it there anew, with no evaluation history anywhere.
    let deleted = server.fabsh(&[
        "item",
        "delete",
        "-w",
        &fx.workspace,
        "--id",
        &fx.agent,
        "--yes",
    ]);
    assert_eq!(deleted.code, 0, "{}", deleted.stderr);
    let prod = new_workspace(server, "baselines-first-promotion-prod");
    let script = dir.path().join("promote.rhai");
    let text = format!(
        "let out = promote::run({repo:?}, #{{test: {test:?}, prod: {prod:?}, questions: {file:?}, min_pass_rate: 0.3}});\nlet s = out.evaluations[0].result.summary;\nprint(`${{out.evaluations.len()}} ${{s.passed}} ${{s.failed}} ${{s.unclear}} ${{out.prod.summary.failed}}`);\n",
        repo = repo_text,
        test = fx.workspace,
        prod = prod,
        file = file.display().to_string(),
    );
    std::fs::write(&script, text).expect("write script");
    let promoted = server.fabsh(&["run", &script.display().to_string()]);
    assert_eq!(promoted.code, 0, "{}\n{}", promoted.stderr, promoted.stdout);
    assert_eq!(promoted.stdout.trim(), "1 1 1 1 0", "{}", promoted.stderr);

    // The run is recorded, of the new agent, with the logical id the repository gave it.
    let runs = evaluations(&fx, &["list", "-w", &fx.workspace, "--id", "Sales agent"]).ok_json();
    let runs = runs.as_array().expect("runs");
    assert_eq!(runs.len(), 1, "{runs:?}");
    let shown = evaluations(&fx, &["show", runs[0]["runId"].as_str().expect("id")]).ok_json();
    assert_ne!(shown["agent"]["id"], fx.agent.as_str(), "a new agent");
    assert_eq!(shown["agentLogicalId"], fx.agent.as_str());
}
