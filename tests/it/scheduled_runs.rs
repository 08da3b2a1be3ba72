//! Enabled schedules start runs as the service's job scheduler does (swagger platform
//! `ItemJobInstance`: `invokeType` `Scheduled`; status `Deduped`, "a job instance of the same
//! job type is already running and this job instance is skipped"). A private server whose
//! schedule minute lasts 100 ms and whose runs take 250 ms: a Cron schedule of every minute
//! then fires every 100 ms, so each run that starts is followed by fires that find it going.

use crate::data_agent_wire::swagger;
use crate::support::Server;
use fabsh_model::jobs::utc_seconds;
use serde_json::Value;
use std::time::Duration;

/// The swagger's `ItemJobInstance` enum values of `field`.
fn swagger_enum(field: &str) -> Vec<Value> {
    let definitions = swagger("platform/definitions/platform.json")["definitions"].clone();
    definitions["ItemJobInstance"]["properties"][field]["enum"]
        .as_array()
        .unwrap_or_else(|| panic!("ItemJobInstance.{field} has an enum"))
        .clone()
}

fn seconds(run: &Value, key: &str) -> Option<f64> {
    run[key]
        .as_str()
        .map(|t| utc_seconds(t).expect("a service timestamp"))
}

fn runs(server: &Server) -> Vec<Value> {
    let listed = server
        .fabsh(&["job", "list", format!("{}/Welcome", server.demo).as_str()])
        .ok_json();
    listed.as_array().expect("a list").clone()
}

#[test]
fn an_enabled_schedule_starts_runs_and_dedupes_those_that_find_one_going() {
    let statuses = swagger_enum("status");
    assert!(statuses.contains(&Value::from("Deduped")), "{statuses:?}");
    assert!(swagger_enum("invokeType").contains(&Value::from("Scheduled")));

    let server = Server::with(&[
        ("retry-after-seconds", "0"),
        ("schedule-minute-ms", "100"),
        ("job-ms", "250"),
    ]);
    assert!(runs(&server).is_empty(), "no run before the schedule");
    let schedule = server
        .fabsh(&[
            "schedule",
            "create",
            "Demo/Welcome",
            "--type",
            "Cron",
            "--interval",
            "1",
            "--start",
            "2025-01-01T00:00:00Z",
            "--end",
            "2099-12-31T00:00:00Z",
        ])
        .ok_json();
    let id = schedule["id"].as_str().expect("schedule id").to_string();
    std::thread::sleep(Duration::from_millis(1500));

    let listed = runs(&server);
    for run in &listed {
        assert_eq!(run["invokeType"], "Scheduled", "{run}");
        assert_eq!(run["jobType"], "RunNotebook", "{run}");
        assert!(statuses.contains(&run["status"]), "{run}");
    }
    let (skipped, started): (Vec<&Value>, Vec<&Value>) =
        listed.iter().partition(|run| run["status"] == "Deduped");
    assert!(started.len() >= 2, "{listed:?}");
    assert!(!skipped.is_empty(), "{listed:?}");
    // Newest first; no two started runs overlap.
    let begun: Vec<f64> = started
        .iter()
        .filter_map(|run| seconds(run, "startTimeUtc"))
        .collect();
    assert!(begun.windows(2).all(|w| w[0] > w[1]), "{begun:?}");
    for pair in started.windows(2) {
        let (later, earlier) = (pair[0], pair[1]);
        if let (Some(end), Some(start)) = (
            seconds(earlier, "endTimeUtc"),
            seconds(later, "startTimeUtc"),
        ) {
            assert!(start > end, "{earlier} still ran when {later} started");
        }
    }
    // Each skipped run came while a started one was going.
    for run in &skipped {
        assert!(
            run["startTimeUtc"].is_null(),
            "a skipped run never starts: {run}"
        );
        let at = seconds(run, "endTimeUtc").expect("when it was skipped");
        assert!(
            started.iter().any(|going| {
                let start = seconds(going, "startTimeUtc").unwrap_or(f64::MAX);
                let end = seconds(going, "endTimeUtc").unwrap_or(f64::MAX);
                // A run is going from when it is begun, a tenth of its 250 ms before it starts.
                start - 0.03 <= at && at < end
            }),
            "{run} came while nothing was going: {listed:?}"
        );
    }
    // A cancel works on a scheduled run as on any other, and a skipped one has ended.
    let skipped_id = skipped[0]["id"].as_str().expect("id");
    let refused = server.fabsh(&[
        "job",
        "cancel",
        "Demo/Welcome",
        "--instance",
        skipped_id,
        "--yes",
    ]);
    assert_ne!(refused.code, 0, "{}", refused.stdout);

    // Disabled, it starts nothing more.
    server
        .fabsh(&[
            "schedule",
            "update",
            "Demo/Welcome",
            "--schedule",
            &id,
            "--enabled",
            "false",
        ])
        .ok_json();
    let after_disable = runs(&server).len();
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(runs(&server).len(), after_disable);
}

/// A scheduled run starts with its schedule's `executionData` (swagger platform
/// `CreateScheduleRequest` and `RunOnDemandItemJobRequest` both carry one), as a run on demand
/// starts with its own.
#[test]
fn a_scheduled_run_starts_with_its_schedules_execution_data() {
    use crate::service_bodies::call;
    let platform = swagger("platform/definitions/platform.json")["definitions"].clone();
    for request in ["CreateScheduleRequest", "RunOnDemandItemJobRequest"] {
        assert!(
            platform[request]["properties"]["executionData"].is_object(),
            "{request}"
        );
    }
    let server = Server::with(&[
        ("retry-after-seconds", "0"),
        ("schedule-minute-ms", "100"),
        ("job-ms", "50"),
    ]);
    let notebook = server.demo_item_id("Notebook");
    let data = serde_json::json!({"sessionTag": "nightly"});
    let body = serde_json::json!({
        "enabled": true,
        "configuration": {
            "type": "Cron", "interval": 1,
            "startDateTime": "2025-01-01T00:00:00", "endDateTime": "2099-01-01T00:00:00",
            "localTimeZoneId": "UTC",
        },
        "executionData": data,
    });
    let path = server.demo_path(&format!("/items/{notebook}/jobs/RunNotebook/schedules"));
    let (status, _, text) = call(&server, "POST", &path, Some(&body));
    assert_eq!(status, 201, "{text}");
    std::thread::sleep(Duration::from_millis(300));
    let listed = runs(&server);
    let run = listed
        .iter()
        .find(|run| run["invokeType"] == "Scheduled")
        .unwrap_or_else(|| panic!("a scheduled run: {listed:?}"));
    let id = run["id"].as_str().expect("id");
    let (status, stored) = server.get_json(&format!("/_local/jobs/{id}/request"));
    assert_eq!(status, 200, "{stored}");
    assert_eq!(stored, serde_json::json!({"executionData": data}));
}
