//! `--dry-run` as a whole plan: every request that would change something is recorded and
//! answered here with a made-up success instead of being sent, so a command goes on to its
//! later steps (a move's delete after its copy) and the plan shows them all, in order.
//!
//! A create is answered with a planned id, [`PLANNED_ID_PREFIX`] and a counter
//! (`planned-id-1`): never a GUID, so it cannot be mistaken for a real id, and the record
//! entry of the request that made it carries it as `plannedId`. A later request whose URL
//! names a planned id is answered here too, reads included: the thing does not exist.

use super::ApiClient;
use super::request::{Req, Resp, Safety};
use bytes::Bytes;
use reqwest::header::HeaderMap;
use reqwest::{Method, Url};
use serde_json::{Map, Value, json};

/// How every id a dry run makes up begins.
pub const PLANNED_ID_PREFIX: &str = "planned-id-";

/// The plan of one dry run: the requests in the order they were made, and how many ids it
/// made up so far.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    requests: Vec<Value>,
    planned_ids: u64,
}

impl Plan {
    /// Takes the recorded requests, leaving the plan empty.
    pub(crate) fn take_requests(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.requests)
    }
}

/// True when `text` is (or contains, as in a path) an id a dry run made up.
pub fn is_planned(text: &str) -> bool {
    text.contains(PLANNED_ID_PREFIX)
}

/// True when the request is about something a dry run only planned: its path or a query
/// value names a planned id. Such a request cannot go to the service.
pub(crate) fn names_planned(req: &Req, url: &Url) -> bool {
    is_planned(url.path()) || req.query.iter().any(|(_, value)| is_planned(value))
}

impl ApiClient {
    /// Records `req` in the plan and answers it as the service would have on success.
    pub(crate) fn answer_dry_run(&self, req: &Req, url: &Url) -> Resp {
        let mut plan = self
            .dry_run_plan
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let planned_id = makes_something(req).then(|| {
            plan.planned_ids += 1;
            format!("{PLANNED_ID_PREFIX}{}", plan.planned_ids)
        });
        let mut entry = json!({
            "method": req.method.as_str(),
            "url": with_query(url, req).as_str(),
            "body": recorded_body(req),
        });
        if let Some(id) = &planned_id {
            entry["plannedId"] = json!(id);
        }
        plan.requests.push(entry);
        drop(plan);
        let (status, body) = synthetic_answer(req, url, planned_id.as_deref());
        Resp {
            status,
            headers: HeaderMap::new(),
            body: match body {
                Some(body) => Bytes::from(body.to_string()),
                None => Bytes::new(),
            },
        }
    }
}

/// A POST that creates something: it gets a planned id.
fn makes_something(req: &Req) -> bool {
    req.method == Method::POST && req.safety == Safety::Create
}

fn with_query(url: &Url, req: &Req) -> Url {
    let mut url = url.clone();
    if !req.query.is_empty() {
        url.query_pairs_mut().extend_pairs(&req.query);
    }
    url
}

fn recorded_body(req: &Req) -> Value {
    match &req.raw_body {
        Some(raw) => serde_json::from_slice(raw).unwrap_or(Value::Null),
        None => req.body.clone().unwrap_or(Value::Null),
    }
}

/// The status and body the service would answer on success, as far as later steps of a
/// command need them: a create answers 201 with what was sent (its definition left out) and
/// its planned id, an update echoes what was sent, a delete or an action answers with no
/// body, and a read of a planned thing finds it empty. Never a 202, so nothing is polled.
fn synthetic_answer(req: &Req, url: &Url, planned_id: Option<&str>) -> (u16, Option<Value>) {
    let last_segment = url
        .path_segments()
        .and_then(|mut segments| segments.rfind(|s| !s.is_empty()))
        // A URL without path segments names nothing to show in the plan.
        .unwrap_or_default();
    let sent = || match &req.body {
        Some(Value::Object(map)) => map.clone(),
        _ => Map::new(),
    };
    if let Some(id) = planned_id {
        let mut body = sent();
        body.remove("definition");
        body.insert("id".into(), json!(id));
        if let Some(workspace) = workspace_of(url) {
            body.entry("workspaceId").or_insert(json!(workspace));
        }
        return (201, Some(Value::Object(body)));
    }
    match req.method {
        Method::GET | Method::HEAD if is_planned(last_segment) => {
            (200, Some(json!({"id": last_segment})))
        }
        // A list under a planned thing: nothing is there yet.
        Method::GET => (200, Some(json!({"value": []}))),
        Method::PATCH | Method::PUT => {
            let mut body = sent();
            if is_planned(last_segment) || super::resolve::is_guid(last_segment) {
                body.entry("id").or_insert(json!(last_segment));
            }
            (200, Some(Value::Object(body)))
        }
        _ => (200, None),
    }
}

/// The workspace id of a `/workspaces/{id}/...` path.
fn workspace_of(url: &Url) -> Option<String> {
    let mut segments = url.path_segments()?.skip_while(|s| *s != "workspaces");
    segments.next()?;
    segments.next().map(String::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(path: &str) -> Url {
        Url::parse(&format!("http://127.0.0.1:1/v1{path}")).expect("url")
    }

    #[test]
    fn creates_get_a_planned_id_and_keep_what_was_sent_but_the_definition() {
        let req = Req::post(
            "/workspaces/w1/items",
            json!({"displayName": "n", "type": "Notebook", "definition": {"parts": []}}),
        );
        let (status, body) =
            synthetic_answer(&req, &url("/workspaces/w1/items"), Some("planned-id-1"));
        assert_eq!(status, 201);
        assert_eq!(
            body,
            Some(
                json!({"displayName": "n", "type": "Notebook", "id": "planned-id-1", "workspaceId": "w1"})
            )
        );
    }

    #[test]
    fn deletes_and_actions_answer_empty_and_reads_of_planned_things_find_nothing() {
        let delete = Req::delete("/workspaces/w1/items/i1");
        assert_eq!(
            synthetic_answer(&delete, &url("/workspaces/w1/items/i1"), None),
            (200, None)
        );
        let publish = Req::post("/x/staging/publish", json!({})).idempotent();
        assert_eq!(
            synthetic_answer(&publish, &url("/x/staging/publish"), None),
            (200, None)
        );
        let read = Req::get("/workspaces/w1/items/planned-id-2");
        let target = url("/workspaces/w1/items/planned-id-2");
        assert!(names_planned(&read, &target));
        assert_eq!(
            synthetic_answer(&read, &target, None),
            (200, Some(json!({"id": "planned-id-2"})))
        );
        let list = Req::get("/w/dataAgents/planned-id-2/staging/datasources");
        assert_eq!(
            synthetic_answer(
                &list,
                &url("/w/dataAgents/planned-id-2/staging/datasources"),
                None
            ),
            (200, Some(json!({"value": []})))
        );
        let real = Req::get("/workspaces/w1/items");
        assert!(!names_planned(&real, &url("/workspaces/w1/items")));
    }

    #[test]
    fn updates_echo_what_was_sent_with_the_id() {
        let id = "0c9d5e71-8a26-4f3b-b1d4-2e6f7a8b9c01";
        let path = format!("/workspaces/w1/items/{id}");
        let req = Req::patch(path.clone(), json!({"displayName": "new"}));
        assert_eq!(
            synthetic_answer(&req, &url(&path), None),
            (200, Some(json!({"displayName": "new", "id": id})))
        );
    }
}
