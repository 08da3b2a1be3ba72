//! Turns a Fabric error response into an [`Error`] that shows the `errorCode`, the message
//! and the `requestId`, with a hint where we know what the user should do.

use crate::error::Error;
use reqwest::header::HeaderMap;
use serde_json::Value;

/// The header Fabric puts the error code in.
pub const ERROR_CODE_HEADER: &str = "x-ms-public-api-error-code";
/// The header Fabric puts the request id in.
pub const REQUEST_ID_HEADER: &str = "requestid";

/// Builds the error for a non-success response.
///
/// Recordings show the fields at the top level of the body; other reports describe them
/// nested under `error`. Both are read, and the header is the fallback for the code.
pub fn from_response(status: u16, headers: &HeaderMap, body: &[u8]) -> Error {
    let parsed: Option<Value> = serde_json::from_slice(body).ok();
    let fields = parsed
        .as_ref()
        .map(|value| match value.get("error") {
            Some(inner @ Value::Object(_)) => inner,
            _ => value,
        })
        .filter(|value| value.is_object());
    let text = |key: &str| {
        fields
            .and_then(|fields| fields.get(key))
            .and_then(Value::as_str)
            .map(String::from)
    };
    let code = text("errorCode")
        .or_else(|| text("code"))
        .or_else(|| header(headers, ERROR_CODE_HEADER));
    let message = text("message").unwrap_or_else(|| {
        let raw = String::from_utf8_lossy(body);
        let raw = raw.trim();
        if raw.is_empty() || raw == "null" {
            default_message(status).to_string()
        } else {
            raw.chars().take(500).collect()
        }
    });
    let request_id = text("requestId").or_else(|| header(headers, REQUEST_ID_HEADER));

    let mut err = Error::api(status, code, message).with_request_id(request_id);
    if let Some(details) = fields
        .and_then(|fields| fields.get("moreDetails"))
        .and_then(Value::as_array)
    {
        for detail in details {
            let code = detail
                .get("errorCode")
                .and_then(Value::as_str)
                .unwrap_or("");
            let message = detail.get("message").and_then(Value::as_str).unwrap_or("");
            err = err.with_cause(
                format!("{code}: {message}")
                    .trim_start_matches(": ")
                    .to_string(),
            );
        }
    }
    let extra: serde_json::Map<String, Value> = ["moreDetails", "relatedResource", "isRetriable"]
        .iter()
        .filter_map(|key| Some((key.to_string(), fields?.get(*key)?.clone())))
        .collect();
    if !extra.is_empty() {
        err.details = Some(Value::Object(extra));
    }
    if let Some(hint) = hint_for(status, err.code.as_deref()) {
        err = err.with_hint(hint);
    }
    err
}

fn header(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|value| value.to_str().ok())
        .map(String::from)
}

fn default_message(status: u16) -> &'static str {
    match status {
        400 => "the request was rejected as invalid",
        401 => "the request was not authenticated",
        403 => "the request is not allowed for this identity",
        404 => "not found",
        409 => "conflict with the current state",
        429 => "too many requests",
        500..=599 => "the service failed to handle the request",
        _ => "the request failed",
    }
}

fn hint_for(status: u16, code: Option<&str>) -> Option<&'static str> {
    Some(match (status, code) {
        (_, Some("ItemDisplayNameAlreadyInUse")) => {
            "choose another --name, or find the existing item with `fabsh item list -w <workspace>`"
        }
        (_, Some("ItemDisplayNameNotAvailableYet")) => {
            "the name belonged to an item deleted moments ago; Fabric frees it after a few minutes"
        }
        (_, Some("InsufficientWorkspaceRole" | "InsufficientPrivileges")) => {
            "ask a workspace Admin for a higher role (Contributor to change items, Admin to hard-delete)"
        }
        (_, Some("WorkspaceNotFound")) => {
            "check the id or name, or list your workspaces with `fabsh workspace list`"
        }
        (_, Some("ItemNotFound")) => "check the id or name with `fabsh item list -w <workspace>`",
        (_, Some("FolderNotEmpty")) => "move or delete the folder's items and subfolders first",
        (_, Some("OperationNotSupportedForItem")) => {
            "this item type does not support the operation"
        }
        (_, Some("TokenExpired")) => "get a fresh token and try again",
        (429, _) => "the service is throttling this identity; wait and try again",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    #[test]
    fn reads_top_level_fields_and_details() {
        let body = br#"{"requestId":"r1","errorCode":"BadRequest","moreDetails":[{"errorCode":"RequestBodyValidationFailed","message":"bad"}],"message":"The request could not be processed","isRetriable":false}"#;
        let err = from_response(400, &HeaderMap::new(), body);
        assert_eq!(err.code.as_deref(), Some("BadRequest"));
        assert_eq!(err.request_id.as_deref(), Some("r1"));
        assert_eq!(err.causes, vec!["RequestBodyValidationFailed: bad"]);
        assert_eq!(err.kind, ErrorKind::Api);
    }

    #[test]
    fn reads_nested_error_and_falls_back_to_headers() {
        let mut headers = HeaderMap::new();
        headers.insert(ERROR_CODE_HEADER, "ItemNotFound".parse().expect("header"));
        headers.insert("RequestId", "r2".parse().expect("header"));
        let err = from_response(404, &headers, br#"{"error":{"message":"gone"}}"#);
        assert_eq!(err.code.as_deref(), Some("ItemNotFound"));
        assert_eq!(err.request_id.as_deref(), Some("r2"));
        assert_eq!(err.message, "gone");
        assert_eq!(err.kind, ErrorKind::NotFound);
    }

    #[test]
    fn an_empty_body_still_gets_a_message() {
        let err = from_response(503, &HeaderMap::new(), b"");
        assert_eq!(err.message, "the service failed to handle the request");
    }
}
