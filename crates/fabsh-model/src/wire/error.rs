//! `ErrorResponse`: the body of an error answer, and a failed operation's `error`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// An error as the service describes it. Every key is optional: reports show bodies with
/// `code` instead of `errorCode`, and without a request id.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorResponse {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub more_details: Option<Vec<ErrorDetail>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub related_resource: Option<RelatedResource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_retriable: Option<bool>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ErrorResponse {
    /// The error code, under either name the service has used (`errorCode`, `code`).
    pub fn code(&self) -> Option<&str> {
        self.error_code
            .as_deref()
            .or_else(|| self.extra.get("code").and_then(Value::as_str))
    }
}

/// `ErrorResponseDetails`: one of `moreDetails`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorDetail {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub related_resource: Option<RelatedResource>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ErrorRelatedResource`: what the error is about.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RelatedResource {
    pub resource_id: String,
    pub resource_type: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_error_bodies_round_trip() {
        // recordings/fabric-cli/rm__test_rm_non_empty_folder_failure.yaml
        let text = r#"{"requestId":"r1","errorCode":"FolderNotEmpty","message":"The requested folder was not empty.","relatedResource":{"resourceId":"f1","resourceType":"Folder"}}"#;
        let error: ErrorResponse = serde_json::from_str(text).unwrap();
        assert_eq!(error.code(), Some("FolderNotEmpty"));
        assert_eq!(
            error.related_resource.as_ref().unwrap().resource_type,
            "Folder"
        );
        assert_eq!(serde_json::to_string(&error).unwrap(), text);

        let detailed = r#"{"requestId":"r2","errorCode":"BadRequest","message":"m","moreDetails":[{"errorCode":"RequestBodyValidationFailed","message":"d"}],"isRetriable":false}"#;
        let error: ErrorResponse = serde_json::from_str(detailed).unwrap();
        assert_eq!(error.more_details.as_ref().unwrap().len(), 1);
        assert_eq!(serde_json::to_string(&error).unwrap(), detailed);
    }

    #[test]
    fn the_older_code_key_is_understood() {
        let error: ErrorResponse = serde_json::from_str(r#"{"code":"Old","message":"m"}"#).unwrap();
        assert_eq!(error.code(), Some("Old"));
        assert_eq!(error.request_id, None);
    }
}
