//! The Livy session lists' filters and the whole `LivySession` (issue 48): every query
//! parameter the swagger's Livy list operations take, every property of a session, who
//! submitted it (on demand, or a schedule's owner), held against the vendored swaggers and
//! examples (tests/fixtures/fabric-rest-api-specs, commit 4a7d6e4, MIT).

use crate::data_agent_wire::swagger;
use crate::service_bodies::{assert_shaped, call, get_json, header, path_of};
use crate::spark_sessions::{error, keys};
use crate::support::{Server, http, http_with_head, principal_token, principal_with_token};
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// Every page of a list, following `continuationUri` as a client does (it carries only the
/// token): the values, and how many pages there were.
fn all_pages(server: &Server, path: &str) -> (Vec<Value>, usize) {
    let mut values = Vec::new();
    let mut next = Some(path.to_string());
    let mut pages = 0;
    while let Some(path) = next {
        let page = get_json(server, &path);
        pages += 1;
        values.extend(page["value"].as_array().expect("value").iter().cloned());
        next = page["continuationUri"]
            .as_str()
            .map(|uri| path_of(server, uri));
        if let Some(uri) = &next {
            assert!(
                !uri.contains("state="),
                "the filters ride in the token: {uri}"
            );
        }
    }
    (values, pages)
}

fn ids(sessions: &[Value]) -> BTreeSet<String> {
    sessions
        .iter()
        .map(|s| {
            s["jobInstanceId"]
                .as_str()
                .expect("jobInstanceId")
                .to_string()
        })
        .collect()
}

/// Starts a RunNotebook run with `token`; its id.
fn start_run(server: &Server, notebook: &str, token: &str) -> String {
    let auth = format!("Bearer {token}");
    let (status, head, text) = http_with_head(
        &server.origin(),
        "POST",
        &server.demo_path(&format!(
            "/items/{notebook}/jobs/instances?jobType=RunNotebook"
        )),
        None,
        &[("Authorization", auth.as_str())],
    );
    assert_eq!(status, 202, "{text}");
    let location = header(&head, "Location").expect("Location");
    location.rsplit('/').next().expect("an id").to_string()
}

/// The query parameters of the swagger's Livy session list operations (notebook/, lakehouse/,
/// sparkjobdefinition/, spark/ `LivySessions_ListLivySessions` and
/// `LivySessions_List_Livy_Sessions_(beta)`), by operation id: the set this test exercises.
fn swagger_list_parameters() -> Vec<(String, BTreeSet<String>)> {
    let mut operations = Vec::new();
    for file in [
        "notebook/swagger.json",
        "lakehouse/swagger.json",
        "sparkjobdefinition/swagger.json",
        "spark/swagger.json",
    ] {
        let spec = swagger(file);
        for (path, methods) in spec["paths"].as_object().expect("paths") {
            if !path.contains("/livySessions") || path.ends_with("{livyId}") {
                continue;
            }
            let op = &methods["get"];
            let query: BTreeSet<String> = op["parameters"]
                .as_array()
                .expect("parameters")
                .iter()
                .filter(|p| p["in"] == "query")
                .map(|p| p["name"].as_str().expect("name").to_string())
                .collect();
            operations.push((format!("{file} {}", op["operationId"]), query));
        }
    }
    operations
}

/// LivySessions_List_Livy_Sessions_(beta) and LivySession as the swagger defines them: every
/// query parameter of every Livy list (the beta list's `submittedDateTime`, `endDateTime`,
/// `submitter.Id` (also as its example spells it, `submitter.id`), `state`, and
/// `continuationToken`, which keeps the filters on later pages) filters the runs local
/// Fabric's job engine made; a filter's bad value is 400 `InvalidParameter`; the plain list
/// defines none and ignores them. Every property of `LivySession` is answered: `submitter`
/// the principal that started the run (`consumerId` the same), `capacityId` the workspace's,
/// `livySessionItemResourceUri` the item's session list, the Spark sizes the starter pool's.
/// A Viewer reads them; a principal without a role is refused as the item's job list refuses it.
#[test]
fn livy_session_lists_take_the_swaggers_filters_and_answer_every_property() {
    // Runs last 3 s (NotStarted for 0.3 s); pages hold one session, so every filter is also
    // followed across pages.
    let server = Server::session_with(module_path!(), &[("job-ms", "3000"), ("page-size", "1")]);

    // The swagger's list parameters are those exercised below.
    let plain: BTreeSet<String> = ["continuationToken".to_string()].into();
    let beta: BTreeSet<String> = [
        "beta",
        "submittedDateTime",
        "endDateTime",
        "submitter.Id",
        "state",
        "continuationToken",
    ]
    .iter()
    .map(ToString::to_string)
    .collect();
    let operations = swagger_list_parameters();
    assert_eq!(operations.len(), 8, "{operations:?}");
    for (operation, query) in &operations {
        let expected = if operation.contains("(beta)") {
            &beta
        } else {
            &plain
        };
        assert_eq!(query, expected, "{operation}");
    }
    // Each beta example filters by its submitter (spelt `submitter.id` or `submitter.Id`: the
    // name is taken in any case) and answers sessions that person submitted.
    let mut spellings = BTreeSet::new();
    for file in [
        "notebook/examples/ListSessionsInItemId_beta.json",
        "lakehouse/examples/ListSessionsInItemId_beta.json",
        "sparkjobdefinition/examples/ListSessionsInItemId_beta.json",
        "spark/examples/ListSessionsInItemId_beta.json",
    ] {
        let example = swagger(file);
        let (name, submitter) = example["parameters"]
            .as_object()
            .expect("parameters")
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case("submitter.Id"))
            .unwrap_or_else(|| panic!("{file} filters by submitter"));
        spellings.insert(name.clone());
        for session in example["responses"]["200"]["body"]["value"]
            .as_array()
            .expect("value")
        {
            assert_eq!(&session["submitter"]["id"], submitter, "{file}");
        }
    }
    assert_eq!(
        spellings,
        ["submitter.Id", "submitter.id"]
            .iter()
            .map(ToString::to_string)
            .collect()
    );

    // On a capacity, so that sessions have a `capacityId`.
    let capacities = get_json(&server, "/v1/capacities");
    let capacity = capacities["value"][0]["id"].as_str().expect("a capacity");
    let (status, _, text) = call(
        &server,
        "POST",
        &server.demo_path("/assignToCapacity"),
        Some(&json!({ "capacityId": capacity })),
    );
    assert!(status == 202 || status == 200, "{status}: {text}");

    let notebook = server.create_demo_item("Filtered notebook", "Notebook");
    let base = server.demo_path(&format!("/notebooks/{notebook}/livySessions"));
    let workspace_list = server.demo_path("/spark/livySessions");
    let (runner, runner_token) = principal_with_token(
        &server,
        "livy-runner",
        &["--workspace", &server.demo, "--role", "Contributor"],
    );
    let runner_id = runner["objectId"]
        .as_str()
        .expect("the runner's id")
        .to_string();

    // A: the admin's, cancelled once started. B: the runner's, left to succeed. C: the
    // admin's, still going.
    let first = start_run(&server, &notebook, &server.token);
    std::thread::sleep(std::time::Duration::from_millis(400));
    let (status, _, text) = call(
        &server,
        "POST",
        &server.demo_path(&format!("/items/{notebook}/jobs/instances/{first}/cancel")),
        None,
    );
    assert_eq!(status, 202, "{text}");
    let second = start_run(&server, &notebook, &runner_token);
    std::thread::sleep(std::time::Duration::from_millis(3500));
    let third = start_run(&server, &notebook, &server.token);
    std::thread::sleep(std::time::Duration::from_millis(400));

    let (sessions, pages) = all_pages(&server, &format!("{base}?beta=true"));
    assert_eq!(pages, 3);
    let by_run = |id: &str| -> Value {
        sessions
            .iter()
            .find(|s| s["jobInstanceId"] == id)
            .unwrap_or_else(|| panic!("{id} in {sessions:?}"))
            .clone()
    };
    let (a, b, c) = (by_run(&first), by_run(&second), by_run(&third));
    assert_eq!(a["state"], "Cancelled");
    assert_eq!(b["state"], "Succeeded");

    // Every property the swagger's LivySession defines (A, cancelled after it started, has
    // them all): those of a start or an end on the sessions that have them.
    let spark = swagger("common/spark_definitions.json")["definitions"].clone();
    let common = swagger("common/definitions.json")["definitions"].clone();
    let defined = keys(&spark["LivySession"]["properties"]);
    let workspace = get_json(&server, &server.demo_path(""));
    let capacity = workspace["capacityId"]
        .as_str()
        .expect("assigned a capacity");
    let pool = get_json(&server, &server.demo_path("/spark/pools"))["value"][0].clone();
    assert_eq!(keys(&a), defined, "{a}");
    let of_an_end: BTreeSet<String> = [
        "startDateTime",
        "queuedDuration",
        "runningDuration",
        "endDateTime",
        "cancellationReason",
    ]
    .iter()
    .map(ToString::to_string)
    .collect();
    for session in &sessions {
        assert_shaped(session, &spark["LivySession"], "LivySession");
        let missing: BTreeSet<String> = defined.difference(&keys(session)).cloned().collect();
        assert!(missing.is_subset(&of_an_end), "{missing:?}: {session}");
        assert_eq!(session["capacityId"], capacity);
        assert_shaped(&session["submitter"], &common["Principal"], "Principal");
        assert!(
            common["PrincipalType"]["enum"]
                .as_array()
                .expect("enum")
                .contains(&session["submitter"]["type"]),
            "{session}"
        );
        assert_eq!(session["consumerId"], session["submitter"]);
        assert_eq!(session["isHighConcurrency"], false);
        assert_eq!(session["creatorItem"], session["item"]);
        let sizes = &pool["dynamicExecutorAllocation"];
        assert_eq!(session["isDynamicAllocationEnabled"], sizes["enabled"]);
        assert_eq!(session["numExecutors"], sizes["minExecutors"]);
        assert_eq!(
            session["dynamicAllocationMaxExecutors"],
            sizes["maxExecutors"]
        );
        for size in [
            "driverMemory",
            "driverCores",
            "executorMemory",
            "executorCores",
        ] {
            assert!(
                session[size].as_u64().is_some_and(|n| n > 0),
                "{size}: {session}"
            );
        }
        // The item's session list, where this session is.
        let uri = session["livySessionItemResourceUri"].as_str().expect("uri");
        assert_eq!(path_of(&server, uri), base);
    }
    assert_eq!(
        b["submitter"],
        json!({"id": runner_id, "type": "ServicePrincipal"})
    );
    let admin_id = a["submitter"]["id"].as_str().expect("id").to_string();
    assert_eq!(c["submitter"]["id"], admin_id.as_str());

    let filtered = |query: &str| -> BTreeSet<String> {
        let (item, _) = all_pages(&server, &format!("{base}?beta=true&{query}"));
        let (all, _) = all_pages(&server, &format!("{workspace_list}?beta=true&{query}"));
        assert_eq!(ids(&item), ids(&all), "the workspace's list: {query}");
        ids(&item)
    };
    let set = |runs: &[&String]| -> BTreeSet<String> { runs.iter().copied().cloned().collect() };
    // submitter.Id, in either spelling and any case.
    assert_eq!(
        filtered(&format!("submitter.Id={runner_id}")),
        set(&[&second])
    );
    assert_eq!(
        filtered(&format!("submitter.id={}", admin_id.to_uppercase())),
        set(&[&first, &third])
    );
    // state: the stable ones exactly; the third is going (NotStarted or InProgress).
    assert_eq!(filtered("state=Cancelled"), set(&[&first]));
    assert_eq!(filtered("state=succeeded"), set(&[&second]));
    assert_eq!(filtered("state=Failed"), set(&[]));
    assert_eq!(filtered("state=Unknown"), set(&[]));
    let going: BTreeSet<String> = filtered("state=NotStarted")
        .union(&filtered("state=InProgress"))
        .cloned()
        .collect();
    assert_eq!(going, set(&[&third]));
    // endDateTime: ended at or before; a session still going has not ended.
    let ended = |session: &Value| session["endDateTime"].as_str().expect("ended").to_string();
    assert_eq!(
        filtered(&format!("endDateTime={}", ended(&a))),
        set(&[&first])
    );
    assert_eq!(
        filtered(&format!("endDateTime={}", ended(&b))),
        set(&[&first, &second])
    );
    // submittedDateTime: submitted at or after.
    let submitted = |s: &Value| {
        s["submittedDateTime"]
            .as_str()
            .expect("submitted")
            .to_string()
    };
    assert_eq!(
        filtered(&format!("submittedDateTime={}", submitted(&a))),
        set(&[&first, &second, &third])
    );
    assert_eq!(
        filtered(&format!("submittedDateTime={}", submitted(&c))),
        set(&[&third])
    );
    // Together, and across pages: two matches are two pages of one.
    let (both, pages) = all_pages(
        &server,
        &format!(
            "{base}?beta=true&submittedDateTime={}&endDateTime={}&submitter.Id={admin_id}",
            submitted(&a),
            ended(&b)
        ),
    );
    assert_eq!((ids(&both), pages), (set(&[&first]), 1));
    let (two, pages) = all_pages(
        &server,
        &format!("{base}?beta=true&submitter.Id={admin_id}"),
    );
    assert_eq!((ids(&two), pages), (set(&[&first, &third]), 2));

    // Bad values are refused; the plain list defines no filters and answers every session.
    for query in [
        "state=Bogus",
        "submittedDateTime=yesterday",
        "endDateTime=2025-13-01T00:00:00Z",
        "submitter.Id=nobody",
    ] {
        assert_eq!(
            error(&server, "GET", &format!("{base}?beta=true&{query}"), None),
            (400, json!("InvalidParameter")),
            "{query}"
        );
        let (plain, _) = all_pages(&server, &format!("{base}?{query}"));
        assert_eq!(ids(&plain), ids(&sessions), "{query}");
    }

    // A Viewer reads; a principal without a role is refused as the job list refuses it.
    let viewer = principal_token(&server, "livy-viewer", &server.demo, "Viewer");
    let stranger = principal_with_token(&server, "livy-stranger", &[]).1;
    let runs = server.demo_path(&format!("/items/{notebook}/jobs/instances"));
    for (token, who) in [(&viewer, "Viewer"), (&stranger, "no role")] {
        let auth = format!("Bearer {token}");
        let headers = [("Authorization", auth.as_str())];
        let (runs_status, _) = http(&server.origin(), "GET", &runs, None, &headers);
        for path in [
            format!("{base}?beta=true&state=Cancelled"),
            format!("{workspace_list}?beta=true"),
            format!("{base}/{}", a["livyId"].as_str().expect("livyId")),
        ] {
            let (status, body) = http(&server.origin(), "GET", &path, None, &headers);
            assert_eq!(status, runs_status, "{who}: {path}: {body}");
        }
        assert_eq!(runs_status == 200, who == "Viewer");
    }
}

/// A run a schedule starts is a session too (`invokeType` Scheduled: the swagger's "Notebook
/// Scheduled Run"), submitted by the schedule's `owner` (JobScheduler_CreateItemSchedule's
/// answer), not by whoever lists it. A schedule minute of 100 ms makes a Cron schedule of every
/// minute fire at once.
#[test]
fn a_scheduled_run_is_a_session_submitted_by_the_schedules_owner() {
    let server = Server::session_with(
        module_path!(),
        &[("schedule-minute-ms", "100"), ("job-ms", "250")],
    );
    let notebook = server.create_demo_item("Scheduled notebook", "Notebook");
    let (owner, owner_token) = principal_with_token(
        &server,
        "livy-scheduler",
        &["--workspace", &server.demo, "--role", "Contributor"],
    );
    let example = swagger("platform/examples/platform/CreateItemSchedule.json");
    let mut request = example["parameters"]["createScheduleRequest"].clone();
    request["configuration"] = json!({
        "startDateTime": "2025-01-01T00:00:00",
        "endDateTime": "2099-12-31T00:00:00",
        "localTimeZoneId": "UTC",
        "type": "Cron",
        "interval": 1
    });
    let auth = format!("Bearer {owner_token}");
    let headers = [
        ("Authorization", auth.as_str()),
        ("Content-Type", "application/json"),
    ];
    let schedules = server.demo_path(&format!("/items/{notebook}/jobs/RunNotebook/schedules"));
    let body = request.to_string();
    let (status, text) = http(&server.origin(), "POST", &schedules, Some(&body), &headers);
    assert_eq!(status, 201, "{text}");
    let schedule: Value = serde_json::from_str(&text).expect("JSON");
    let owner_id = owner["objectId"].as_str().expect("objectId");
    assert_eq!(
        schedule["owner"],
        json!({"id": owner_id, "type": "ServicePrincipal"})
    );
    std::thread::sleep(std::time::Duration::from_millis(600));

    // Listed by the admin, submitted by the owner.
    let list = get_json(
        &server,
        &server.demo_path(&format!(
            "/notebooks/{notebook}/livySessions?beta=true&submitter.Id={owner_id}"
        )),
    );
    let sessions = list["value"].as_array().expect("value");
    assert!(!sessions.is_empty(), "{list}");
    for session in sessions {
        assert_eq!(session["submitter"], schedule["owner"], "{session}");
        assert_eq!(session["operationName"], "Notebook Scheduled Run");
    }
}
