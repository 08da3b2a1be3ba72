//! `OperationState`: what `GET /operations/{id}` answers while a long-running operation runs
//! and after it ends.

use super::ErrorResponse;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The state of a long-running operation. `percentComplete` and `error` are sent as `null`
/// when they have no value (recorded), so they serialize as `null`, never left out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OperationState {
    pub status: OperationStatus,
    /// UTC without `Z`, 7 fractional digits, as the service prints it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_time_utc: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_updated_time_utc: Option<String>,
    /// `null` while running (recorded), 100 on success.
    #[serde(default)]
    pub percent_complete: Option<u32>,
    /// Why it failed; `null` otherwise.
    #[serde(default)]
    pub error: Option<ErrorResponse>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `OperationStatus`, an open enum: a status the swagger does not list keeps its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum OperationStatus {
    Undefined,
    NotStarted,
    Running,
    Succeeded,
    Failed,
    /// Any other text (`Completed`, `Cancelled`, ... which other Fabric APIs use).
    Other(String),
}

impl OperationStatus {
    /// The wire text.
    pub fn as_str(&self) -> &str {
        match self {
            OperationStatus::Undefined => "Undefined",
            OperationStatus::NotStarted => "NotStarted",
            OperationStatus::Running => "Running",
            OperationStatus::Succeeded => "Succeeded",
            OperationStatus::Failed => "Failed",
            OperationStatus::Other(text) => text,
        }
    }
}

impl From<String> for OperationStatus {
    fn from(text: String) -> OperationStatus {
        match text.as_str() {
            "Undefined" => OperationStatus::Undefined,
            "NotStarted" => OperationStatus::NotStarted,
            "Running" => OperationStatus::Running,
            "Succeeded" => OperationStatus::Succeeded,
            "Failed" => OperationStatus::Failed,
            _ => OperationStatus::Other(text),
        }
    }
}

impl From<OperationStatus> for String {
    fn from(status: OperationStatus) -> String {
        match status {
            OperationStatus::Other(text) => text,
            known => known.as_str().to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_states_round_trip_with_their_nulls() {
        // recordings/fabric-cli/export__test_export_item_success.yaml
        let running = r#"{"status":"Running","createdTimeUtc":"2025-09-02T19:38:15.1233511","lastUpdatedTimeUtc":"2025-09-02T19:38:15.1233511","percentComplete":null,"error":null}"#;
        let state: OperationState = serde_json::from_str(running).unwrap();
        assert_eq!(state.status, OperationStatus::Running);
        assert_eq!(state.percent_complete, None);
        assert_eq!(serde_json::to_string(&state).unwrap(), running);

        let failed = r#"{"status":"Failed","createdTimeUtc":"t","lastUpdatedTimeUtc":"t","percentComplete":null,"error":{"requestId":"r","errorCode":"ItemNotFound","message":"gone"}}"#;
        let state: OperationState = serde_json::from_str(failed).unwrap();
        assert_eq!(state.error.as_ref().unwrap().code(), Some("ItemNotFound"));
        assert_eq!(serde_json::to_string(&state).unwrap(), failed);
    }

    #[test]
    fn unknown_statuses_keep_their_text_and_absent_keys_read_as_none() {
        let state: OperationState =
            serde_json::from_str(r#"{"status":"Cancelled","percentComplete":40,"etag":"x"}"#)
                .unwrap();
        assert_eq!(state.status, OperationStatus::Other("Cancelled".into()));
        assert_eq!(state.status.as_str(), "Cancelled");
        assert_eq!(state.percent_complete, Some(40));
        assert_eq!(state.created_time_utc, None);
        assert_eq!(state.extra["etag"], "x");
        assert!(serde_json::from_str::<OperationState>(r#"{"error":null}"#).is_err());
    }
}
