//! Answers in Azure Storage's shape: every response carries `x-ms-request-id` (the same id as
//! local Fabric's `RequestId`) and `x-ms-version`; an error is `<Error><Code>…</Code>
//! <Message>…</Message></Error>` with the code repeated in `x-ms-error-code`, which is what
//! Azure SDKs and object_store read (the codes are those of the Blob service's error tables).

use super::xml;
use axum::body::Body;
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// The Blob API version these answers follow (the one object_store 0.12 sends).
pub(crate) const VERSION: &str = "2023-11-03";

/// An error of the Blob service.
#[derive(Debug)]
pub(crate) struct StorageError {
    status: StatusCode,
    code: &'static str,
    message: String,
    headers: Vec<(HeaderName, String)>,
}

impl StorageError {
    /// An error with its status, Azure error code and message.
    pub(crate) fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        StorageError {
            status,
            code,
            message: message.into(),
            headers: Vec::new(),
        }
    }

    /// Adds a header to the answer.
    pub(crate) fn header(mut self, name: HeaderName, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    /// The Azure error code.
    #[cfg(test)]
    pub(crate) fn code(&self) -> &'static str {
        self.code
    }

    /// 400 `InvalidResourceName`: a name no file system path may be made of.
    pub(crate) fn invalid_name() -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "InvalidResourceName",
            "The specified resource name contains invalid characters.",
        )
    }

    /// 400 `InvalidUri`: a path outside an item's `Files` and `Tables`, where OneLake keeps
    /// no data of its callers.
    pub(crate) fn outside_areas() -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "InvalidUri",
            "The requested URI does not represent any resource on the server: OneLake paths are {workspace}/{item}/Files/... or {workspace}/{item}/Tables/...",
        )
    }

    /// 404 `BlobNotFound`.
    pub(crate) fn blob_not_found() -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "BlobNotFound",
            "The specified blob does not exist.",
        )
    }

    /// 404 `ContainerNotFound`: no workspace of that id or name.
    pub(crate) fn container_not_found() -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "ContainerNotFound",
            "The specified container does not exist.",
        )
    }

    /// 404 `ResourceNotFound`: no item of that id or `Name.Type` in the workspace.
    pub(crate) fn item_not_found(segment: &str) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "ResourceNotFound",
            format!("The specified resource does not exist: no item '{segment}' in the workspace."),
        )
    }

    /// 409 `PathConflict`: a file where a folder is needed, or the reverse.
    pub(crate) fn path_conflict() -> Self {
        Self::new(
            StatusCode::CONFLICT,
            "PathConflict",
            "The specified path, or an element of the path, exists and its resource type is invalid for this operation.",
        )
    }

    /// 400 `InvalidQueryParameterValue`.
    pub(crate) fn invalid_query(name: &str, value: &str) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "InvalidQueryParameterValue",
            format!(
                "Value for one of the query parameters specified in the request URI is invalid: {name}={value}"
            ),
        )
    }

    /// 400 `InvalidHeaderValue`.
    pub(crate) fn invalid_header(name: &str) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "InvalidHeaderValue",
            format!("The value for one of the HTTP headers is not in the correct format: {name}"),
        )
    }

    /// 500 `InternalError`, for a failure of the server's own disk or store.
    pub(crate) fn internal(why: impl std::fmt::Display) -> Self {
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "InternalError",
            format!("The server encountered an internal error: {why}"),
        )
    }

    /// The answer to a `HEAD` request: the status and headers, no body (Azure sends none).
    pub(crate) fn without_body(self) -> Response {
        let mut response = self.status.into_response();
        add_common(&mut response);
        set(&mut response, "x-ms-error-code", self.code);
        for (name, value) in &self.headers {
            if let Ok(value) = HeaderValue::from_str(value) {
                response.headers_mut().insert(name.clone(), value);
            }
        }
        response
    }
}

impl From<std::io::Error> for StorageError {
    fn from(err: std::io::Error) -> Self {
        StorageError::internal(err)
    }
}

impl From<rusqlite::Error> for StorageError {
    fn from(err: rusqlite::Error) -> Self {
        StorageError::internal(err)
    }
}

impl IntoResponse for StorageError {
    fn into_response(self) -> Response {
        let body = xml::error(self.code, &self.message);
        let mut response = (self.status, Body::from(body)).into_response();
        add_common(&mut response);
        set(&mut response, "x-ms-error-code", self.code);
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/xml"),
        );
        for (name, value) in &self.headers {
            if let Ok(value) = HeaderValue::from_str(value) {
                response.headers_mut().insert(name.clone(), value);
            }
        }
        response
    }
}

/// Sets a header whose value is known to be valid text.
pub(crate) fn set(response: &mut Response, name: &'static str, value: &str) {
    if let Ok(value) = HeaderValue::from_str(value) {
        response
            .headers_mut()
            .insert(HeaderName::from_static(name), value);
    }
}

/// Sets a header whose name is made at run time (`x-ms-meta-<name>`); one that is not a
/// valid header is left out (names and values were checked when they were stored).
pub(crate) fn set_owned(response: &mut Response, name: &str, value: &str) {
    if let (Ok(name), Ok(value)) = (
        HeaderName::from_bytes(name.as_bytes()),
        HeaderValue::from_str(value),
    ) {
        response.headers_mut().insert(name, value);
    }
}

/// The headers every Blob service answer carries.
pub(crate) fn add_common(response: &mut Response) {
    let request_id = crate::api_error::current_request_id();
    set(response, "x-ms-request-id", &request_id);
    set(response, "x-ms-version", VERSION);
}

/// An answer without a body: `status` and the common headers.
pub(crate) fn empty(status: StatusCode) -> Response {
    let mut response = (status, [(header::CONTENT_LENGTH, "0")]).into_response();
    add_common(&mut response);
    response
}
