//! Finishing interrupted bulk work: `item bulk-create --skip-existing` counts items already in
//! the workspace as done; Ctrl-C reports every item (done, unknown, not started) and exits
//! 130; after a server crash the rows whose answer was lost say their outcome is unknown, and
//! a re-run with `--skip-existing` settles them. Every check is against the workspace listing.

use crate::support::Server;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::io::Read;
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A safety net, not a measurement: a broken build must fail, not hang the suite.
const GIVE_UP: Duration = Duration::from_secs(180);

/// The Demo workspace's items whose names start with `prefix`: name → id.
fn listed(server: &Server, prefix: &str) -> BTreeMap<String, String> {
    let query = format!("[?starts_with(displayName, '{prefix}')].[displayName, id]");
    let pairs: Vec<(String, String)> = serde_json::from_value(
        server
            .fabsh(&[
                "item",
                "list",
                "-w",
                server.demo.as_str(),
                "--all",
                "-q",
                &query,
            ])
            .ok_json(),
    )
    .expect("name and id pairs");
    let count = pairs.len();
    let map: BTreeMap<String, String> = pairs.into_iter().collect();
    assert_eq!(map.len(), count, "a name is listed twice: {map:?}");
    map
}

fn notebooks(names: &[&str]) -> String {
    let items: Vec<Value> = names
        .iter()
        .map(|name| json!({"displayName": name, "type": "Notebook"}))
        .collect();
    Value::Array(items).to_string()
}

/// `(displayName, outcome)` of every row.
/// Each result row's item name and outcome, collected as the caller wants them.
pub(crate) fn outcomes<C: FromIterator<(String, String)>>(out: &Value) -> C {
    out["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|row| {
            (
                row["displayName"].as_str().expect("name").to_string(),
                row["outcome"].as_str().expect("outcome").to_string(),
            )
        })
        .collect()
}

fn bulk_create(server: &Server, names: &[&str], extra: &[&str]) -> crate::support::Run {
    bulk_create_content(server, &notebooks(names), extra)
}

/// `item bulk-create` of `content` into Demo, one at a time.
pub(crate) fn bulk_create_content(
    server: &Server,
    content: &str,
    extra: &[&str],
) -> crate::support::Run {
    let mut args = vec![
        "item",
        "bulk-create",
        "-w",
        server.demo.as_str(),
        "--content",
        content,
        "--concurrency",
        "1",
    ];
    args.extend_from_slice(extra);
    server.fabsh(&args)
}

#[test]
fn a_rerun_with_skip_existing_counts_items_already_made_as_done() {
    let server = Server::session(module_path!());
    let first = bulk_create(&server, &["resume-a", "Welcome", "resume-b"], &[]);
    assert_eq!(first.code, 5, "{}", first.stderr);
    assert!(
        first.stderr.contains("--skip-existing"),
        "the hint leads to --skip-existing: {}",
        first.stderr
    );
    let made_by_hand = server
        .fabsh(&[
            "item",
            "create",
            "-w",
            server.demo.as_str(),
            "--name",
            "resume-c",
            "--type",
            "Notebook",
        ])
        .ok_json();

    let names = ["resume-a", "resume-b", "RESUME-C", "resume-d", "Welcome"];
    let again = bulk_create(&server, &names, &["--skip-existing"]);
    let out = again.ok_json();
    assert_eq!(
        outcomes::<Vec<_>>(&out),
        [
            ("resume-a", "existing"),
            ("resume-b", "existing"),
            ("RESUME-C", "existing"),
            ("resume-d", "created"),
            ("Welcome", "existing"),
        ]
        .map(|(name, outcome)| (name.to_string(), outcome.to_string()))
    );
    assert_eq!(out["summary"]["succeeded"], json!(5));
    assert_eq!(out["summary"]["existing"], json!(4));

    let held = listed(&server, "resume-");
    assert_eq!(
        held.keys().collect::<Vec<_>>(),
        ["resume-a", "resume-b", "resume-c", "resume-d"],
        "each item exactly once"
    );
    assert_eq!(out["results"][2]["id"], made_by_hand["id"]);
    for row in out["results"].as_array().expect("rows").iter().take(4) {
        let name = row["displayName"].as_str().expect("name").to_lowercase();
        assert_eq!(row["id"].as_str(), held.get(&name).map(String::as_str));
    }
}

/// Waits for the child, killing it if it outlives [`GIVE_UP`]: (exit code, stdout, stderr).
fn finish(mut child: Child) -> (Option<i32>, String, String) {
    let (done, timeout) = mpsc::channel();
    let id = child.id();
    std::thread::spawn(move || {
        if timeout.recv_timeout(GIVE_UP).is_err() {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &id.to_string()])
                .status();
        }
    });
    let mut stderr_pipe = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr_pipe.read_to_string(&mut text);
        text
    });
    let mut stdout = String::new();
    if let Some(mut pipe) = child.stdout.take() {
        let _ = pipe.read_to_string(&mut stdout);
    }
    let status = child.wait().expect("wait");
    let _ = done.send(());
    (status.code(), stdout, reader.join().unwrap_or_default())
}

#[test]
fn ctrl_c_reports_every_item_and_exits_130() {
    // Slow answers keep the run going long enough to interrupt it halfway.
    let server = Server::with(&[("latency-ms", "150")]);
    let names: Vec<String> = (0..40).map(|n| format!("stop-{n:02}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let content = notebooks(&names);
    let child = server
        .command(&[
            "item",
            "bulk-create",
            "-w",
            "Demo",
            "--content",
            &content,
            "--concurrency",
            "2",
            "-o",
            "json",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start bulk-create");
    // Interrupt once the server holds a few of the items.
    let mut rounds = 0;
    while listed(&server, "stop-").len() < 3 {
        rounds += 1;
        assert!(rounds < 600, "the run never made three items");
        std::thread::sleep(Duration::from_millis(100));
    }
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success());
    let (code, stdout, stderr) = finish(child);
    assert_eq!(code, Some(130), "stderr:\n{stderr}");
    let out: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|err| panic!("the report is JSON ({err}):\n{stdout}\nstderr:\n{stderr}"));
    assert!(stderr.contains("cancelled"), "{stderr}");
    assert!(stderr.contains("--skip-existing"), "{stderr}");

    let rows = outcomes::<Vec<_>>(&out);
    assert_eq!(rows.len(), 40, "every item has a row");
    let with = |wanted: &str| -> Vec<String> {
        rows.iter()
            .filter(|(_, outcome)| outcome == wanted)
            .map(|(name, _)| name.clone())
            .collect()
    };
    for (name, outcome) in &rows {
        assert!(
            ["created", "unknown", "not_started"].contains(&outcome.as_str()),
            "{name}: {outcome}"
        );
    }
    let created = with("created");
    let unknown = with("unknown");
    let not_started = with("not_started");
    // Three held at concurrency 2 means the client had started the third, so it had seen
    // one of the first two through.
    assert!(!created.is_empty(), "{rows:?}");
    assert!(!not_started.is_empty(), "{rows:?}");
    assert_eq!(out["summary"]["notStarted"], json!(not_started.len()));
    assert_eq!(out["summary"]["unknown"], json!(unknown.len()));

    // The server holds every created item, none of the not-started ones, and nothing else
    // (a stopped create may or may not have reached it).
    let held = listed(&server, "stop-");
    for name in &created {
        assert!(held.contains_key(name), "{name} reported created, not held");
    }
    for name in &not_started {
        assert!(
            !held.contains_key(name),
            "{name} reported not started, held"
        );
    }
    for name in held.keys() {
        assert!(
            created.contains(name) || unknown.contains(name),
            "{name} held but reported neither created nor unknown"
        );
    }
    for row in out["results"].as_array().expect("rows") {
        if row["outcome"] == json!("created") {
            let name = row["displayName"].as_str().expect("name");
            assert_eq!(row["id"].as_str(), held.get(name).map(String::as_str));
        }
    }
}

#[test]
fn after_a_crash_unknown_outcomes_are_reported_and_skip_existing_settles_them() {
    // The server dies right after committing its third write, before answering it.
    let server = Server::with(&[("crash-after-writes", "3")]);
    let names = ["crash-1", "crash-2", "crash-3", "crash-4", "crash-5"];
    let run = bulk_create(&server, &names, &[]);
    assert_eq!(run.code, 5, "{}", run.stderr);
    let out = run.json();
    assert_eq!(
        outcomes::<Vec<_>>(&out),
        [
            ("crash-1", "created"),
            ("crash-2", "created"),
            ("crash-3", "unknown"),
            ("crash-4", "failed"),
            ("crash-5", "failed"),
        ]
        .map(|(name, outcome)| (name.to_string(), outcome.to_string()))
    );
    assert_eq!(out["results"][2]["error"]["outcome_unknown"], json!(true));
    assert_eq!(out["summary"]["unknown"], json!(1));
    assert!(run.stderr.contains("unknown"), "{}", run.stderr);

    let (home, data_dir) = server.stop();
    let server = Server::on_data_dir(home, data_dir, &[]);
    let held = listed(&server, "crash-");
    assert!(
        held.contains_key("crash-3"),
        "the unknown one was in fact made: {held:?}"
    );

    let again = bulk_create(&server, &names, &["--skip-existing"]).ok_json();
    assert_eq!(
        outcomes::<Vec<_>>(&again),
        [
            ("crash-1", "existing"),
            ("crash-2", "existing"),
            ("crash-3", "existing"),
            ("crash-4", "created"),
            ("crash-5", "created"),
        ]
        .map(|(name, outcome)| (name.to_string(), outcome.to_string()))
    );
    let held = listed(&server, "crash-");
    assert_eq!(held.keys().collect::<Vec<_>>(), names, "each item once");
}
