//! Item jobs and schedules (issue 32) against local Fabric's job scheduler (swagger platform
//! `JobScheduler_*`, vendored parts under tests/fixtures/fabric-rest-api-specs): every ending
//! of `job run --wait` with its exit code, parameters in the swagger's `Parameter` shape,
//! schedules round-tripped and refused offline, consent for cancel, job types per item type.
//! Runs that must end quickly get a private server with a short `--job-ms`.

use crate::data_agent_wire::swagger;
use crate::mcp::{connect, runtime};
use crate::support::{Server, shared};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// A server whose runs take `job_ms` and are polled without waiting a whole second.
fn quick_server(extra: &[(&str, &str)]) -> Server {
    let mut knobs = vec![("retry-after-seconds", "0")];
    knobs.extend_from_slice(extra);
    Server::session_with(module_path!(), &knobs)
}

/// The keys of the swagger's `GetItemJobInstance` example answer.
fn instance_keys() -> BTreeSet<String> {
    let example = swagger("platform/examples/platform/GetItemJobInstance.json");
    let body = example["responses"]["200"]["body"]
        .as_object()
        .expect("body");
    body.keys().cloned().collect()
}

/// The wire keys of a shown run (fabsh adds `duration`).
fn wire_keys(run: &Value) -> BTreeSet<String> {
    let mut keys: BTreeSet<String> = run.as_object().expect("run").keys().cloned().collect();
    assert!(
        keys.remove("duration"),
        "a run row carries its duration: {run}"
    );
    keys
}

#[test]
fn a_waited_run_that_completes_exits_0_and_lists_newest_first() {
    let server = quick_server(&[("job-ms", "300")]);
    let first = server.fabsh(&[
        "job",
        "run",
        format!("{}/Welcome", server.demo).as_str(),
        "--wait",
    ]);
    let first = first.ok_json();
    assert_eq!(first["status"], "Completed");
    assert_eq!(first["jobType"], "RunNotebook");
    assert_eq!(wire_keys(&first), instance_keys());
    assert!(first["failureReason"].is_null());
    let second = server
        .fabsh(&[
            "job",
            "run",
            format!("{}/Welcome", server.demo).as_str(),
            "--wait",
        ])
        .ok_json();
    let listed = server
        .fabsh(&["job", "list", format!("{}/Welcome", server.demo).as_str()])
        .ok_json();
    let ids: Vec<&Value> = listed
        .as_array()
        .expect("list")
        .iter()
        .map(|r| &r["id"])
        .collect();
    assert_eq!(ids, [&second["id"], &first["id"]], "newest first");
    assert!(listed[0]["duration"].as_f64().expect("duration") > 0.0);
}

#[test]
fn a_failed_run_exits_9_with_its_failure_reason() {
    let server = quick_server(&[
        ("job-ms", "200"),
        (
            "job-failure",
            "NotebookExecutionFailed: cell 2 raised ValueError",
        ),
    ]);
    let run = server.fabsh(&[
        "job",
        "run",
        format!("{}/Welcome", server.demo).as_str(),
        "--wait",
    ]);
    assert_eq!(run.code, 9, "{}", run.stderr);
    let instance = run.json();
    assert_eq!(instance["status"], "Failed");
    assert_eq!(
        instance["failureReason"]["errorCode"],
        "NotebookExecutionFailed"
    );
    assert!(
        run.stderr.contains("cell 2 raised ValueError"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("NotebookExecutionFailed"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_run_cancelled_while_waited_for_exits_9() {
    let server = quick_server(&[("job-ms", "60000")]);
    let waiting = server
        .command(&[
            "job",
            "run",
            format!("{}/Welcome", server.demo).as_str(),
            "--wait",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start job run --wait");
    let id = newest_run(&server);
    let cancelled = server
        .fabsh(&[
            "job",
            "cancel",
            format!("{}/Welcome", server.demo).as_str(),
            "--instance",
            &id,
            "--yes",
        ])
        .ok_json();
    assert_eq!(cancelled["status"], "Cancelled");
    let out = waiting.wait_with_output().expect("job run --wait ends");
    assert_eq!(out.status.code(), Some(9));
    let instance: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(instance["status"], "Cancelled");
    assert_eq!(instance["id"], id.as_str());
}

/// The id of the newest run of Demo/Welcome, once there is one.
fn newest_run(server: &Server) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let listed = server
            .fabsh(&["job", "list", format!("{}/Welcome", server.demo).as_str()])
            .ok_json();
        if let Some(id) = listed[0]["id"].as_str() {
            return id.to_string();
        }
        assert!(Instant::now() < deadline, "the run never appeared");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `job run Demo/Welcome --wait` on a run that takes a minute, started, with its run's id.
fn waiting_on_a_long_run(server: &Server) -> (std::process::Child, String) {
    let waiting = server
        .command(&[
            "job",
            "run",
            format!("{}/Welcome", server.demo).as_str(),
            "--wait",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start job run --wait");
    let id = newest_run(server);
    // The run exists once its 202 came back; give the wait a moment to begin.
    std::thread::sleep(Duration::from_millis(300));
    (waiting, id)
}

#[test]
fn ctrl_c_or_sigterm_off_a_terminal_stops_waiting_and_leaves_the_run_running() {
    // SIGTERM is what a cancelled CI job or a stopped container sends.
    for (signal, code) in [("-INT", 130), ("-TERM", 143)] {
        let server = quick_server(&[("job-ms", "60000")]);
        let (waiting, id) = waiting_on_a_long_run(&server);
        let status = std::process::Command::new("kill")
            .args([signal, &waiting.id().to_string()])
            .status()
            .expect("kill");
        assert!(status.success());
        let out = waiting.wait_with_output().expect("job run --wait ends");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{signal}: {stderr}");
        assert!(
            stderr.contains(&id) && stderr.contains("left running"),
            "{signal}: {stderr}"
        );
        let shown = server
            .fabsh(&[
                "job",
                "show",
                format!("{}/Welcome", server.demo).as_str(),
                "--instance",
                &id,
            ])
            .ok_json();
        let status = shown["status"].as_str().unwrap_or_default();
        assert!(["NotStarted", "InProgress"].contains(&status), "{shown}");
    }
}

#[test]
fn a_server_gone_mid_wait_names_the_run_that_was_started() {
    // A server of its own: the test stops it.
    let server = Server::with(&[("retry-after-seconds", "0"), ("job-ms", "60000")]);
    let (waiting, id) = waiting_on_a_long_run(&server);
    drop(server.stop());
    let out = waiting.wait_with_output().expect("job run --wait ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(&id) && stderr.contains("may still be running"),
        "{stderr}"
    );
}

#[test]
fn a_timeout_leaves_the_run_running_and_says_which() {
    let server = quick_server(&[("job-ms", "60000")]);
    let run = server.fabsh(&[
        "job",
        "run",
        format!("{}/Welcome", server.demo).as_str(),
        "--wait",
        "--timeout",
        "1",
    ]);
    assert_eq!(run.code, 10, "{}", run.stderr);
    let id = run.json()["id"].as_str().expect("id").to_string();
    assert!(
        run.stderr.contains(&id) && run.stderr.contains("left running"),
        "{}",
        run.stderr
    );
    let shown = server
        .fabsh(&[
            "job",
            "show",
            format!("{}/Welcome", server.demo).as_str(),
            "--instance",
            &id,
        ])
        .ok_json();
    assert!(
        ["NotStarted", "InProgress"].contains(&shown["status"].as_str().unwrap_or_default()),
        "{shown}"
    );
}

#[test]
fn a_timeout_with_cancel_on_timeout_cancels_the_run() {
    let server = quick_server(&[("job-ms", "60000")]);
    let welcome = format!("{}/Welcome", server.demo);
    let args = [
        "job",
        "run",
        &welcome,
        "--wait",
        "--timeout",
        "1",
        "--cancel-on-timeout",
    ];
    let run = server.fabsh(&args);
    assert_eq!(run.code, 10, "{}", run.stderr);
    let id = run.json()["id"].as_str().expect("id").to_string();
    let (_, shown) = server.get_json(&server.demo_path(&format!(
        "/items/{}/jobs/instances/{id}",
        run.json()["itemId"].as_str().expect("item")
    )));
    assert_eq!(shown["status"], "Cancelled");
}

/// What the server stored as the run's request body.
fn stored_request(server: &Server, id: &str) -> Value {
    let (status, body) = server.get_json(&format!("/_local/jobs/{id}/request"));
    assert_eq!(status, 200, "{body}");
    body
}

/// Checks `body` against the swagger's `RunOnDemandItemJobRequest` and `Parameter`.
fn assert_swagger_run_body(body: &Value) {
    let platform = swagger("platform/definitions/platform.json");
    let allowed = &platform["definitions"]["RunOnDemandItemJobRequest"]["properties"];
    for key in body.as_object().expect("object").keys() {
        assert!(
            allowed.get(key).is_some(),
            "{key} is not in the swagger's run body"
        );
    }
    let common = swagger("common/job_scheduling.json");
    let parameter = &common["definitions"]["Parameter"];
    let types = &common["definitions"]["ItemJobParameterType"]["enum"];
    for entry in body["parameters"].as_array().expect("parameters") {
        for required in parameter["required"].as_array().expect("required") {
            let key = required.as_str().expect("key");
            assert!(entry.get(key).is_some(), "{entry} lacks {key}");
        }
        for key in entry.as_object().expect("entry").keys() {
            assert!(
                parameter["properties"].get(key).is_some(),
                "{key} in {entry}"
            );
        }
        assert!(
            types.as_array().expect("enum").contains(&entry["type"]),
            "{entry}"
        );
    }
}

#[test]
fn parameters_reach_the_run_in_the_swaggers_shape() {
    let server = shared(module_path!());
    let given = json!({"region": "west", "limit": 10, "ratio": 0.5, "dry": true});
    let started = server
        .fabsh(&[
            "job",
            "run",
            "Demo/Welcome",
            "--parameters",
            &given.to_string(),
        ])
        .ok_json();
    let body = stored_request(server, started["id"].as_str().expect("id"));
    assert_swagger_run_body(&body);
    let by_name: Vec<(String, Value, Value)> = body["parameters"]
        .as_array()
        .expect("parameters")
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap_or_default().to_string(),
                p["type"].clone(),
                p["value"].clone(),
            )
        })
        .collect();
    for (name, kind, value) in [
        ("region", "Text", json!("west")),
        ("limit", "Integer", json!(10)),
        ("ratio", "Number", json!(0.5)),
        ("dry", "Boolean", json!(true)),
    ] {
        assert!(
            by_name.contains(&(name.to_string(), json!(kind), value.clone())),
            "{name}: {by_name:?}"
        );
    }
    // The swagger example's own list passes through unchanged.
    let example = swagger("platform/examples/platform/RunOnDemandItemJob3.json");
    let request = &example["parameters"]["runOnDemandItemJobRequest"];
    let started = server
        .fabsh(&[
            "job",
            "run",
            "Demo/Welcome",
            "--parameters",
            &request["parameters"].to_string(),
        ])
        .ok_json();
    let body = stored_request(server, started["id"].as_str().expect("id"));
    assert_eq!(&body, request);
}

#[test]
fn the_job_type_follows_the_item_type() {
    let server = shared(module_path!());
    // The reference's job types (shared/reference fabric-rest.md §2.21, case-sensitive).
    for (name, item_type, job_type) in [
        ("Job pipeline", "DataPipeline", "Pipeline"),
        ("Job spark", "SparkJobDefinition", "sparkjob"),
        ("Job_lakehouse", "Lakehouse", "TableMaintenance"),
    ] {
        let id = server.create_demo_item(name, item_type);
        let started = server
            .fabsh(&["job", "run", "-w", "Demo", "--id", &id, "--no-wait"])
            .ok_json();
        let (_, shown) = server.get_json(&server.demo_path(&format!(
            "/items/{id}/jobs/instances/{}",
            started["id"].as_str().expect("id")
        )));
        assert_eq!(shown["jobType"], job_type, "{item_type}");
    }
}

#[test]
fn a_job_type_the_item_cannot_run_is_refused() {
    let server = Server::session(module_path!());
    let before = server.request_count();
    let posted = |server: &Server| {
        server.requests()["requests"]
            .as_array()
            .expect("requests")
            .iter()
            .filter(|r| r["method"] == "POST")
            .count()
    };
    let posts = posted(&server);
    // A semantic model has no on-demand job: exit 2 saying so, no run sent.
    let run = server.fabsh(&[
        "job",
        "run",
        format!("{}/Sales Model", server.demo).as_str(),
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("a SemanticModel has no on-demand job")
            && run.stderr.contains("--job-type"),
        "{}",
        run.stderr
    );
    // Another item type's job, and a known job type in the wrong case.
    for job_type in ["Pipeline", "runnotebook"] {
        let run = server.fabsh(&[
            "job",
            "run",
            format!("{}/Welcome", server.demo).as_str(),
            "--job-type",
            job_type,
        ]);
        assert_eq!(run.code, 2, "{job_type}: {}", run.stderr);
        assert!(run.stderr.contains("--job-type"), "{}", run.stderr);
    }
    assert_eq!(posted(&server), posts, "a refused run was sent");
    assert!(server.request_count() > before, "the item's type was read");
    // A name fabsh does not know goes to the service, which refuses it (swagger InvalidJobType).
    let run = server.fabsh(&[
        "job",
        "run",
        format!("{}/Welcome", server.demo).as_str(),
        "--job-type",
        "Refresh",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("InvalidJobType"), "{}", run.stderr);
}

#[test]
fn schedules_round_trip_as_the_swagger_example() {
    let server = shared(module_path!());
    let example = swagger("platform/examples/platform/CreateItemSchedule.json");
    let config = &example["parameters"]["createScheduleRequest"]["configuration"];
    let text = |key: &str| config[key].as_str().expect(key).to_string();
    let interval = config["interval"].to_string();
    let created = server
        .fabsh(&[
            "schedule",
            "create",
            "Demo/Welcome",
            "--type",
            "Cron",
            "--interval",
            &interval,
            "--start",
            &text("startDateTime"),
            "--end",
            &text("endDateTime"),
            "--time-zone",
            &text("localTimeZoneId"),
        ])
        .ok_json();
    let expected = &example["responses"]["201"]["body"];
    let keys = |v: &Value| {
        v.as_object()
            .expect("object")
            .keys()
            .cloned()
            .collect::<BTreeSet<_>>()
    };
    assert_eq!(keys(&created), keys(expected));
    assert_eq!(&created["configuration"], &expected["configuration"]);
    assert_eq!(created["enabled"], true);
    let id = created["id"].as_str().expect("id").to_string();

    let listed = server
        .fabsh(&["schedule", "list", "Demo/Welcome"])
        .ok_json();
    assert!(
        listed
            .as_array()
            .expect("list")
            .iter()
            .any(|s| s["id"] == id.as_str())
    );
    // At 80 columns, one line per schedule under short headers: the last part of each path.
    let table = server.fabsh_env(
        &["schedule", "list", "Demo/Welcome", "-o", "table"],
        &[("COLUMNS", "80")],
    );
    assert_eq!(table.code, 0, "{}", table.stderr);
    let lines: Vec<&str> = table.stdout.lines().collect();
    assert_eq!(
        lines.len(),
        listed.as_array().expect("list").len() + 1,
        "{}",
        table.stdout
    );
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    for column in ["type", "interval"] {
        assert!(header.contains(&column), "{column} in {:?}", lines[0]);
    }
    assert!(!lines[0].contains("configuration."), "{:?}", lines[0]);
    for line in &lines {
        assert!(line.chars().count() <= 80, "{line:?} is wider than 80");
    }
    let updated = server
        .fabsh(&[
            "schedule",
            "update",
            "Demo/Welcome",
            "--schedule",
            &id,
            "--enabled",
            "false",
            "--type",
            "Weekly",
            "--times",
            "07:30",
            "--weekdays",
            "Mon,Thu",
        ])
        .ok_json();
    assert_eq!(updated["enabled"], false);
    assert_eq!(updated["configuration"]["type"], "Weekly");
    assert_eq!(
        updated["configuration"]["weekdays"],
        json!(["Monday", "Thursday"])
    );
    assert_eq!(
        updated["configuration"]["startDateTime"],
        config["startDateTime"]
    );
    let shown = server
        .fabsh(&["schedule", "show", "Demo/Welcome", "--schedule", &id])
        .ok_json();
    assert_eq!(shown, updated);
    // The id as a table too narrow for whole ids shows it names the schedule too.
    let short = format!("{}…", &id[..8]);
    let deleted = server.fabsh(&[
        "schedule",
        "delete",
        "Demo/Welcome",
        "--schedule",
        &short,
        "--yes",
    ]);
    assert_eq!(deleted.code, 0, "{}", deleted.stderr);
    assert!(
        deleted.stdout.contains(&id) || deleted.stderr.contains(&id),
        "the whole id is said: {} {}",
        deleted.stdout,
        deleted.stderr
    );
    let gone = server.fabsh(&["schedule", "show", "Demo/Welcome", "--schedule", &id]);
    assert_eq!(gone.code, 4, "{}", gone.stderr);
    let none = server.fabsh(&["schedule", "show", "Demo/Welcome", "--schedule", &id[..8]]);
    assert_eq!(none.code, 4, "{}", none.stderr);
    assert!(none.stderr.contains("schedule list"), "{}", none.stderr);
}

#[test]
fn invalid_schedules_are_refused_before_anything_is_sent() {
    let server = Server::session(module_path!());
    let dates = [
        "--start",
        "2025-01-01T00:00:00Z",
        "--end",
        "2025-12-31T00:00:00Z",
    ];
    let cases: &[(&[&str], &str)] = &[
        (&["--type", "Weekly", "--times", "07:00"], "--weekdays"),
        (&["--type", "Daily", "--times", "25:00"], "--times"),
        (&["--type", "Cron", "--interval", "0"], "--interval"),
        (
            &[
                "--type",
                "Weekly",
                "--times",
                "07:00",
                "--weekdays",
                "Funday",
            ],
            "--weekdays",
        ),
        (
            &[
                "--type",
                "Cron",
                "--interval",
                "5",
                "--time-zone",
                "Europe/Paris",
            ],
            "--time-zone",
        ),
        (&["--type", "Daily"], "--times"),
        (&["--interval", "5"], "--type"),
    ];
    let welcome = format!("{}/Welcome", server.demo);
    let before = server.request_count();
    for (flags, named) in cases {
        let mut args = vec!["schedule", "create", welcome.as_str()];
        args.extend_from_slice(flags);
        args.extend_from_slice(&dates);
        let run = server.fabsh(&args);
        assert_eq!(run.code, 2, "{flags:?}: {}", run.stderr);
        assert!(
            run.stderr.contains(named),
            "{flags:?} should name {named}: {}",
            run.stderr
        );
    }
    let reversed = [
        "schedule",
        "create",
        welcome.as_str(),
        "--type",
        "Cron",
        "--interval",
        "5",
        "--start",
        "2025-12-31T00:00:00Z",
        "--end",
        "2025-01-01T00:00:00Z",
    ];
    let run = server.fabsh(&reversed);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("--end"), "{}", run.stderr);
    assert_eq!(
        server.request_count(),
        before,
        "an invalid schedule sent a request"
    );
}

#[test]
fn cancelling_a_run_needs_consent() {
    let server = Server::session(module_path!());
    let before = server.request_count();
    let id = "00000000-0000-0000-0000-00000000000a";
    let run = server.fabsh(&[
        "job",
        "cancel",
        format!("{}/Welcome", server.demo).as_str(),
        "--instance",
        id,
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("--yes"), "{}", run.stderr);
    assert_eq!(
        server.request_count(),
        before,
        "nothing is sent without --yes"
    );
    runtime().block_on(async {
        // Over MCP a destructive tool exists only with --allow-destructive.
        let (writer, _) = connect(&server, &["--allow-writes"]).await;
        let tools = writer.list_all_tools().await.expect("tools/list");
        let names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
        assert!(names.contains(&"job_run".to_string()), "{names:?}");
        assert!(!names.contains(&"job_cancel".to_string()), "{names:?}");
        writer.cancel().await.expect("close");
        let (destroyer, _) = connect(&server, &["--allow-destructive"]).await;
        let tools = destroyer.list_all_tools().await.expect("tools/list");
        assert!(tools.iter().any(|t| t.name == "job_cancel"));
        destroyer.cancel().await.expect("close");
    });
}

#[test]
fn a_script_runs_jobs_and_gets_each_final_instance() {
    let server = quick_server(&[("job-ms", "200"), ("job-failure", "RunFailed: no data")]);
    let script = server.home.dir.path().join("jobs.rhai");
    std::fs::write(
        &script,
        // DEMO is the session's copy of Demo.
        format!("const DEMO = {:?};", server.demo)
            + r#"
let one = job::run(DEMO, "Welcome", #{wait: true});
print(`one: ${one.status} ${one.failureReason.errorCode}`);
jobs::run_all([#{workspace: DEMO, item: "Welcome"}, #{workspace: DEMO, item: "Sales Model"}]);
"#,
    )
    .expect("write script");
    let run = server.fabsh(&["run", script.to_str().expect("path")]);
    assert_eq!(run.code, 5, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("one: Failed RunFailed"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains(format!("{}/Welcome: Failed (no data)", server.demo).as_str()),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains(format!("{}/Sales Model: Error", server.demo).as_str()),
        "{}",
        run.stdout
    );
    // The local runs executed nothing, and local Fabric says so on every run.
    let local = server.fabsh(&[
        "job",
        "run",
        format!("{}/Welcome", server.demo).as_str(),
        "--no-wait",
    ]);
    assert!(
        local.stderr.contains("executed nothing"),
        "{}",
        local.stderr
    );
}

#[test]
fn job_run_waits_by_default_and_no_wait_prints_the_next_command_as_typed() {
    let server = quick_server(&[("job-ms", "300")]);
    // As fab's `job run` and az's long operations: followed to the end unless --no-wait.
    let waited = server
        .fabsh(&["job", "run", format!("{}/Welcome", server.demo).as_str()])
        .ok_json();
    assert_eq!(waited["status"], "Completed", "{waited}");
    let started = server.fabsh(&[
        "--profile",
        "default",
        "job",
        "run",
        format!("{}/Welcome", server.demo).as_str(),
        "--no-wait",
    ]);
    let id = started.ok_json()["id"].as_str().expect("id").to_string();
    let next = format!(
        "`fabsh --profile default job show {}/Welcome --instance {id}`",
        server.demo
    );
    assert!(started.stderr.contains(&next), "{}", started.stderr);
    // The command printed is the one to type: it shows the run.
    let shown = server
        .fabsh(&[
            "--profile",
            "default",
            "job",
            "show",
            format!("{}/Welcome", server.demo).as_str(),
            "--instance",
            &id,
        ])
        .ok_json();
    assert_eq!(shown["id"], id.as_str());
    let both = server.fabsh(&[
        "job",
        "run",
        format!("{}/Welcome", server.demo).as_str(),
        "--no-wait",
        "--timeout",
        "5",
    ]);
    assert_eq!(both.code, 2, "{}", both.stderr);
    // With --local, the next command keeps --local: without it, it would go elsewhere.
    let home = crate::support::Home::new();
    let local = home.run(&["--local", "job", "run", "Demo/Welcome", "--no-wait"]);
    let id = local.ok_json()["id"].as_str().expect("id").to_string();
    assert!(
        local.stderr.contains(&format!(
            "`fabsh --local job show Demo/Welcome --instance {id}`"
        )),
        "{}",
        local.stderr
    );
}
