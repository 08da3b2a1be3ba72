//! Fault knobs: quota, injected errors, lost responses, and the request log.

use super::{Env, inline, start, start_in};
use fabsh_local::Faults;
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn requests_beyond_the_quota_get_429_with_retry_after() {
    let env = start(Faults {
        quota_rps: 2,
        ..inline()
    })
    .await;
    let mut throttled = None;
    for _ in 0..50 {
        let reply = env.get("/workspaces").await;
        if reply.status == StatusCode::TOO_MANY_REQUESTS {
            throttled = Some(reply);
            break;
        }
    }
    let reply = throttled.expect("a 429 within fifty quick requests at 2 rps");
    assert_eq!(reply.error_code(), "RequestBlocked");
    let retry: u64 = reply.header("retry-after").unwrap().parse().unwrap();
    assert!(retry >= 1);
    let message = reply.json()["message"].as_str().unwrap().to_string();
    assert!(message.starts_with("Request is blocked by the upstream service until: "));
    assert!(message.ends_with(" (UTC)"));
    // The request log is exempt from faults.
    assert!(env.request_count().await >= 3);
}

#[tokio::test]
async fn injected_errors_change_nothing() {
    let dir = super::store_dir();
    let failing = start_in(
        dir.path(),
        Faults {
            error_rate: 1.0,
            ..inline()
        },
    )
    .await;
    let env = Env {
        token: failing.admin_token(),
        server: failing,
        dir,
        http: reqwest::Client::new(),
    };
    for _ in 0..4 {
        let reply = env
            .post("/workspaces", json!({"displayName": "ghost"}))
            .await;
        assert!(
            reply.status == StatusCode::INTERNAL_SERVER_ERROR
                || reply.status == StatusCode::SERVICE_UNAVAILABLE,
            "{}",
            reply.status
        );
        assert!(
            ["InternalServerError", "ServiceUnavailable"].contains(&reply.error_code().as_str())
        );
    }
    let Env {
        server,
        dir,
        http,
        token,
    } = env;
    server.shutdown().await;
    let server = start_in(dir.path(), inline()).await;
    let env = Env {
        server,
        dir,
        http,
        token,
    };
    let names: Vec<String> = env.get("/workspaces").await.json()["value"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["displayName"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["Demo"]);
}

#[tokio::test]
async fn lost_responses_are_committed_before_the_500() {
    // async-ratio 1.0 on purpose: a lost create must still be applied at once.
    let env = start(Faults {
        lost_response_rate: 1.0,
        ..super::lro_always()
    })
    .await;
    let ws = env.demo().await;
    let reply = env
        .post(
            &format!("/workspaces/{ws}/items"),
            json!({"displayName": "committed", "type": "Notebook"}),
        )
        .await;
    assert_eq!(reply.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(reply.error_code(), "InternalServerError");
    // Reads are not mutating, so they are answered normally.
    let list = env
        .get(&format!("/workspaces/{ws}/items?type=Notebook"))
        .await
        .json();
    let names: Vec<&str> = list["value"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["displayName"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"committed"), "{names:?}");
    // A blind retry is refused as a duplicate: only successful answers are lost.
    let again = env
        .post(
            &format!("/workspaces/{ws}/items"),
            json!({"displayName": "committed", "type": "Notebook"}),
        )
        .await;
    assert_eq!(again.status, StatusCode::BAD_REQUEST);
    assert_eq!(again.error_code(), "ItemDisplayNameAlreadyInUse");
    let list = env
        .get(&format!("/workspaces/{ws}/items?type=Notebook"))
        .await
        .json();
    let count = list["value"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["displayName"] == "committed")
        .count();
    assert_eq!(count, 1);
}

#[tokio::test]
async fn the_request_log_counts_api_requests_only() {
    let env = start(inline()).await;
    assert_eq!(env.request_count().await, 0);
    env.get("/workspaces").await;
    env.get("/workspaces/nope").await;
    assert_eq!(env.request_count().await, 2);
    let log = env
        .get(&format!("{}/_local/requests", env.origin()))
        .await
        .json();
    assert_eq!(log["requests"][0]["method"], "GET");
    assert_eq!(log["requests"][0]["path"], "/v1/workspaces");
    assert_eq!(log["requests"][0]["status"], 200);
    assert_eq!(log["requests"][1]["status"], 404);
}
