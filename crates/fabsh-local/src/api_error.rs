//! Fabric-shaped error responses: `{requestId, errorCode, message, ...}` at the top level, the
//! code repeated in `x-ms-public-api-error-code`. The reference reports two shapes (top level in
//! the recordings, nested under `error` in fabio's notes); local Fabric produces only the
//! recorded one, since that is what the service was seen to send.

use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use fabsh_model::wire::{ErrorDetail, ErrorResponse, RelatedResource};
use serde_json::Map;

tokio::task_local! {
    /// The id of the request being served; set by the outer middleware so that every error body
    /// carries the same id as the `RequestId` header without threading it through handlers.
    pub static REQUEST_ID: String;
}

/// The current request's id, or a fresh one outside a request (background LRO completion).
pub(crate) fn current_request_id() -> String {
    REQUEST_ID
        .try_with(std::clone::Clone::clone)
        .unwrap_or_else(|_| uuid::Uuid::new_v4().to_string())
}

fn related_wire((id, kind): &Related) -> RelatedResource {
    RelatedResource {
        resource_id: id.clone(),
        resource_type: kind.clone(),
    }
}

/// An error answered in Fabric's shape.
#[derive(Debug, Clone)]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// Fabric `errorCode`.
    pub code: String,
    /// Human-readable message.
    pub message: String,
    // Rarely set, so boxed: keeps `Result<_, ApiError>` small on the hot path.
    extra: Option<Box<Extra>>,
}

/// A `relatedResource`: `{resourceId, resourceType}`.
type Related = (String, String);

/// One `moreDetails` entry (swagger `ErrorResponseDetails`).
#[derive(Debug, Clone)]
struct Detail {
    code: Option<String>,
    message: Option<String>,
    related: Option<Related>,
}

#[derive(Debug, Clone, Default)]
struct Extra {
    more_details: Vec<Detail>,
    related_resource: Option<Related>,
    is_retriable: Option<bool>,
    headers: Vec<(HeaderName, String)>,
}

impl ApiError {
    /// An error with a status, code and message.
    pub fn new(status: StatusCode, code: &str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code: code.to_string(),
            message: message.into(),
            extra: None,
        }
    }

    fn extra(&mut self) -> &mut Extra {
        self.extra.get_or_insert_with(Box::default)
    }

    /// Adds `relatedResource: {resourceId, resourceType}`.
    pub fn related(mut self, resource_id: &str, resource_type: &str) -> Self {
        self.extra().related_resource = Some((resource_id.to_string(), resource_type.to_string()));
        self
    }

    /// Adds one `moreDetails` entry.
    pub fn detail(mut self, code: &str, message: impl Into<String>) -> Self {
        self.extra().more_details.push(Detail {
            code: Some(code.to_string()),
            message: Some(message.into()),
            related: None,
        });
        self
    }

    /// Adds one `moreDetails` entry that only names a resource, as the service's role
    /// assignment errors do (`{"relatedResource": {...}}`, no code or message of its own).
    pub fn detail_naming(mut self, resource_id: &str, resource_type: &str) -> Self {
        self.extra().more_details.push(Detail {
            code: None,
            message: None,
            related: Some((resource_id.to_string(), resource_type.to_string())),
        });
        self
    }

    /// Sets `isRetriable`.
    pub fn retriable(mut self, retriable: bool) -> Self {
        self.extra().is_retriable = Some(retriable);
        self
    }

    /// Adds a response header (`Retry-After`, `WWW-Authenticate`).
    pub fn header(mut self, name: HeaderName, value: impl Into<String>) -> Self {
        self.extra().headers.push((name, value.into()));
        self
    }

    /// The body for this error with the given request id.
    pub fn body(&self, request_id: &str) -> ErrorResponse {
        let extra = self.extra.as_deref();
        let more_details = extra
            .map(|extra| &extra.more_details)
            .filter(|details| !details.is_empty())
            .map(|details| {
                details
                    .iter()
                    .map(|detail| ErrorDetail {
                        error_code: detail.code.clone(),
                        message: detail.message.clone(),
                        related_resource: detail.related.as_ref().map(related_wire),
                        extra: Map::new(),
                    })
                    .collect()
            });
        ErrorResponse {
            request_id: Some(request_id.to_string()),
            error_code: Some(self.code.clone()),
            message: Some(self.message.clone()),
            more_details,
            related_resource: extra
                .and_then(|extra| extra.related_resource.as_ref())
                .map(related_wire),
            is_retriable: extra.and_then(|extra| extra.is_retriable),
            extra: Map::new(),
        }
    }

    /// The body as JSON text, as it is sent and as a failed operation keeps it.
    pub fn body_text(&self, request_id: &str) -> String {
        // An ErrorResponse is strings, booleans and maps with string keys, which always
        // serialize.
        serde_json::to_string(&self.body(request_id)).expect("an ErrorResponse serializes")
    }

    /// 400 for a body that fails validation, shaped like the recorded `BadRequest`.
    pub fn invalid_body(detail: impl Into<String>) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "BadRequest",
            "The request could not be processed due to missing or invalid information",
        )
        .detail("RequestBodyValidationFailed", detail)
        .retriable(false)
    }

    /// A 400 about a role assignment's principal, shaped as the service answers it
    /// (recorded 2025-09, tests/recordings/acls): the top-level `relatedResource` is the
    /// workspace, the one `moreDetails` entry names the principal (type `Principal`) and carries
    /// nothing else.
    pub fn principal_refused(
        code: &str,
        message: &str,
        workspace_id: &str,
        principal_id: &str,
    ) -> Self {
        Self::bad_request(code, message)
            .detail_naming(principal_id, "Principal")
            .related(workspace_id, "Workspace")
    }

    /// 400 `PrincipalNotFound`: the tenant has no principal `principal_id` of the type named.
    pub fn principal_not_found(workspace_id: &str, principal_id: &str) -> Self {
        Self::principal_refused(
            "PrincipalNotFound",
            "The provided principal was not found",
            workspace_id,
            principal_id,
        )
    }

    /// 400 with a specific code.
    pub fn bad_request(code: &str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, code, message)
    }

    /// 400 `InvalidParameter` for a bad query parameter.
    pub fn invalid_parameter(name: &str, value: &str) -> Self {
        Self::bad_request(
            "InvalidParameter",
            format!("The value '{value}' of parameter '{name}' is invalid"),
        )
    }

    /// 401 for a missing or invalid bearer token.
    pub fn unauthorized() -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "Unauthorized",
            "The caller is not authenticated to access this resource",
        )
        .header(header::WWW_AUTHENTICATE, "Bearer")
    }

    /// 401 for an expired bearer token; clients refresh on this code.
    pub fn token_expired() -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "TokenExpired",
            "Access token has expired, resubmit with a new access token",
        )
        .header(
            header::WWW_AUTHENTICATE,
            "Bearer error=\"invalid_token\", error_description=\"The access token expired\"",
        )
    }

    /// 401 for a bearer token used before its `nbf`.
    pub fn token_not_yet_valid() -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "Unauthorized",
            "The access token is not valid yet: its not-before time (nbf) is in the future",
        )
        .header(
            header::WWW_AUTHENTICATE,
            "Bearer error=\"invalid_token\", error_description=\"The access token is not valid yet\"",
        )
    }

    /// 403 when the caller holds no role in the workspace.
    pub fn insufficient_privileges(workspace_id: &str) -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            "InsufficientPrivileges",
            "The caller does not have sufficient permissions to access the requested resource",
        )
        .related(workspace_id, "Workspace")
    }

    /// 403 when the caller's workspace role is too low for the operation.
    pub fn insufficient_role(needed: &str) -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            "InsufficientWorkspaceRole",
            format!("The operation requires the {needed} workspace role or higher"),
        )
    }

    /// 404 `WorkspaceNotFound`.
    pub fn workspace_not_found(workspace_id: &str) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "WorkspaceNotFound",
            "The requested workspace was not found",
        )
        .related(workspace_id, "Workspace")
    }

    /// 404 `ItemNotFound`.
    pub fn item_not_found(item_id: &str) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "ItemNotFound",
            "The requested item was not found",
        )
        .related(item_id, "Item")
    }

    /// 404 `FolderNotFound`.
    pub fn folder_not_found(folder_id: &str) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "FolderNotFound",
            "The requested folder was not found",
        )
        .related(folder_id, "Folder")
    }

    /// 404 for an unknown route or entity.
    pub fn entity_not_found() -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "EntityNotFound",
            "The requested resource could not be found",
        )
    }

    /// 500, used for store failures and injected faults.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "InternalServerError",
            message,
        )
        .retriable(true)
    }
}

impl From<rusqlite::Error> for ApiError {
    /// A store failure is the server's fault; a unique-index violation means a concurrent
    /// writer (possibly another process on the same file) won a race for a name.
    fn from(err: rusqlite::Error) -> Self {
        if let rusqlite::Error::SqliteFailure(e, _) = &err
            && e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
        {
            return ApiError::new(
                StatusCode::CONFLICT,
                "EntityConflict",
                "The request conflicts with a concurrent change",
            );
        }
        ApiError::internal(format!("An internal error occurred: {err}"))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = self.body_text(&current_request_id());
        let mut response = (self.status, body).into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json; charset=utf-8"),
        );
        if let Ok(code) = HeaderValue::from_str(&self.code) {
            headers.insert("x-ms-public-api-error-code", code);
        }
        // The extras' headers, when there are extras.
        for (name, value) in self.extra.into_iter().flat_map(|extra| extra.headers) {
            if let Ok(value) = HeaderValue::from_str(&value) {
                headers.insert(name, value);
            }
        }
        response
    }
}
