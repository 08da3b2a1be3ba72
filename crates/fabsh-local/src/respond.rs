//! Small request/response helpers shared by the routes: JSON and empty responses, the 202
//! envelope, query and body parsing that fail with Fabric-shaped errors.

use super::api_error::ApiError;
use super::bodies;
use super::state::Shared;
use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::{Map, Value};

/// A JSON response: a `Value` or one of the model's wire types (`fabsh_model::wire`).
pub(crate) fn json(status: StatusCode, value: &(impl Serialize + ?Sized)) -> Response {
    let text = match serde_json::to_string(value) {
        Ok(text) => text,
        // The wire types are structs and maps with string keys, which always serialize; a
        // type that did not is a bug answered as one, never as a made-up body.
        Err(err) => {
            return ApiError::internal(format!("an answer did not serialize: {err}"))
                .into_response();
        }
    };
    let mut response = (status, text).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json; charset=utf-8"),
    );
    response
}

/// One of the model's wire types as JSON, for an answer stored or combined before it is sent.
pub(crate) fn to_value(value: &impl Serialize) -> Result<Value, ApiError> {
    serde_json::to_value(value)
        .map_err(|err| ApiError::internal(format!("an answer did not serialize: {err}")))
}

/// A 201 with the created resource and its address in `Location`.
pub(crate) fn created(value: &(impl Serialize + ?Sized), location: &str) -> Response {
    located(StatusCode::CREATED, value, location)
}

/// A JSON response with `status` and a `Location` header.
pub(crate) fn located(
    status: StatusCode,
    value: &(impl Serialize + ?Sized),
    location: &str,
) -> Response {
    let mut response = json(status, value);
    if let Ok(location) = HeaderValue::from_str(location) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    response
}

/// A JSON response carrying the `ETag: ""` the service sends with single items.
pub(crate) fn json_with_etag(status: StatusCode, value: &(impl Serialize + ?Sized)) -> Response {
    let mut response = json(status, value);
    response
        .headers_mut()
        .insert(header::ETAG, HeaderValue::from_static("\"\""));
    response
}

/// An answer with `status` and no body (`Content-Length: 0`).
pub(crate) fn empty(status: StatusCode) -> Response {
    let mut response = (status, Body::empty()).into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_LENGTH, HeaderValue::from_static("0"));
    response
}

/// An empty 200, as recorded for deletes: no body, `application/octet-stream`.
pub(crate) fn empty_ok() -> Response {
    let mut response = empty(StatusCode::OK);
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    response
}

/// The scheme and authority clients reached us on, for absolute `Location` and
/// `continuationUri` values (see [`crate::public_url`]).
#[derive(Debug, Clone)]
pub(crate) struct Origin(pub String);

impl FromRequestParts<Shared> for Origin {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Shared,
    ) -> Result<Self, Self::Rejection> {
        Ok(Origin(crate::public_url::origin_of(
            &parts.headers,
            state.public_url.as_deref(),
            &state.bound_origin,
        )))
    }
}

/// Decoded query parameters; never rejects (bad values are judged by the handler).
#[derive(Debug, Clone, Default)]
pub(crate) struct Query(pub Vec<(String, String)>);

impl Query {
    /// The first value of a parameter.
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The first value of a parameter named in any case, as the service binds some (the
    /// swagger names the Livy list's `submitter.Id`, its own example sends `submitter.id`).
    pub(crate) fn get_any_case(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// A boolean parameter (`true`/`false`, any case), or `default` when absent.
    pub(crate) fn flag(&self, name: &str, default: bool) -> Result<bool, ApiError> {
        match self.get(name) {
            None => Ok(default),
            Some(v) if v.eq_ignore_ascii_case("true") => Ok(true),
            Some(v) if v.eq_ignore_ascii_case("false") => Ok(false),
            Some(v) => Err(ApiError::invalid_parameter(name, v)),
        }
    }

    /// Refuses a beta route called without `beta=true` (the reference reports the code
    /// `BetaParameterRequired`; the status is not recorded, local Fabric answers 400).
    pub(crate) fn require_beta(&self) -> Result<(), ApiError> {
        if self.flag("beta", false)? {
            Ok(())
        } else {
            Err(ApiError::bad_request(
                "BetaParameterRequired",
                "This API is in beta; add the query parameter beta=true",
            ))
        }
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Query {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let pairs = match parts.uri.query() {
            Some(query) => form_urlencoded::parse(query.as_bytes())
                .into_owned()
                .collect(),
            // No query string: no parameters.
            None => Vec::new(),
        };
        Ok(Query(pairs))
    }
}

/// A JSON request body of at most `bodies::API_LIMIT` bytes; an empty body reads as `null`,
/// malformed JSON is a 400.
#[derive(Debug, Clone)]
pub(crate) struct JsonBody(pub Value);

impl JsonBody {
    fn parse(bytes: &[u8]) -> Result<JsonBody, ApiError> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(JsonBody(Value::Null));
        }
        serde_json::from_slice(bytes)
            .map(JsonBody)
            .map_err(|e| ApiError::invalid_body(format!("The request body is not valid JSON: {e}")))
    }
}

impl FromRequest<Shared> for JsonBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &Shared) -> Result<Self, Self::Rejection> {
        let bytes = bodies::read(state, request, bodies::API_LIMIT, false).await?;
        JsonBody::parse(&bytes)
    }
}

/// A JSON request body that may be large (item definitions, table data): up to
/// `bodies::LARGE_LIMIT` bytes, from an authenticated caller only, read a few at a time.
/// Derefs to the `JsonBody`.
#[derive(Debug)]
pub(crate) struct LargeJsonBody {
    body: JsonBody,
    // Held while the handler works on the body, which is when its memory is in use.
    _turn: bodies::Turn,
}

impl std::ops::Deref for LargeJsonBody {
    type Target = JsonBody;

    fn deref(&self) -> &JsonBody {
        &self.body
    }
}

impl FromRequest<Shared> for LargeJsonBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &Shared) -> Result<Self, Self::Rejection> {
        let (bytes, turn) = bodies::read_large(state, request).await?;
        Ok(LargeJsonBody {
            body: JsonBody::parse(&bytes)?,
            _turn: turn,
        })
    }
}

/// A raw request body of at most `bodies::API_LIMIT` bytes.
#[derive(Debug, Clone)]
pub(crate) struct RawBody(pub Bytes);

impl FromRequest<Shared> for RawBody {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &Shared) -> Result<Self, Self::Rejection> {
        bodies::read(state, request, bodies::API_LIMIT, false)
            .await
            .map(RawBody)
    }
}

impl JsonBody {
    /// The body as an object; `null` reads as an empty object.
    pub(crate) fn object(&self) -> Result<Map<String, Value>, ApiError> {
        match &self.0 {
            Value::Object(map) => Ok(map.clone()),
            Value::Null => Ok(Map::new()),
            _ => Err(ApiError::invalid_body(
                "The request body must be a JSON object",
            )),
        }
    }
}

/// An optional string field; `null` counts as absent, other types are a 400.
pub(crate) fn opt_str(obj: &Map<String, Value>, key: &str) -> Result<Option<String>, ApiError> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(ApiError::invalid_body(format!("'{key}' must be a string"))),
    }
}

/// A required, non-blank string field.
pub(crate) fn req_str(obj: &Map<String, Value>, key: &str) -> Result<String, ApiError> {
    opt_str(obj, key)?
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| ApiError::invalid_body(format!("The '{key}' field is required")))
}

/// An optional id field (lower-cased; `""` counts as absent, as some clients send it).
pub(crate) fn opt_id(obj: &Map<String, Value>, key: &str) -> Result<Option<String>, ApiError> {
    Ok(opt_str(obj, key)?
        .filter(|s| !s.is_empty())
        .map(|s| s.to_ascii_lowercase()))
}

/// Ids are GUIDs; compare them lower-case whatever case the client used.
pub(crate) fn norm(id: &str) -> String {
    id.to_ascii_lowercase()
}

/// Longest accepted description, in characters.
pub(crate) const MAX_DESCRIPTION: usize = 256;

/// Checks the 256-character description limit.
pub(crate) fn check_description(description: Option<&str>) -> Result<(), ApiError> {
    match description {
        Some(d) if d.chars().count() > MAX_DESCRIPTION => Err(ApiError::invalid_body(format!(
            "The description must be at most {MAX_DESCRIPTION} characters"
        ))),
        _ => Ok(()),
    }
}
