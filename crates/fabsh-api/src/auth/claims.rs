//! What `auth status` shows about a token: its claims, read without checking the signature
//! (the service checks it; this only describes).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Map, Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// The payload of a JWT, or `None` for an opaque token.
pub fn payload(token: &str) -> Option<Map<String, Value>> {
    let encoded = token.split('.').nth(1)?;
    let bytes = URL_SAFE_NO_PAD.decode(encoded.trim_end_matches('=')).ok()?;
    match serde_json::from_slice(&bytes).ok()? {
        Value::Object(map) => Some(map),
        _ => None,
    }
}

/// Unix seconds as RFC 3339.
pub fn timestamp(unix: i64) -> Option<String> {
    OffsetDateTime::from_unix_timestamp(unix)
        .ok()
        .and_then(|t| t.format(&Rfc3339).ok())
}

/// Tenant, principal and expiry of a token, never the token itself.
pub fn describe(token: &str) -> Value {
    let Some(claims) = payload(token) else {
        return json!({"tenant": null, "principal": null, "expiresOn": null});
    };
    let text = |key: &str| claims.get(key).and_then(Value::as_str).map(str::to_string);
    let kind = match text("idtyp").as_deref() {
        Some("app") => "ServicePrincipal",
        Some("user") => "User",
        _ if claims.contains_key("upn") => "User",
        _ => "ServicePrincipal",
    };
    let mut principal = Map::new();
    principal.insert("type".into(), json!(kind));
    for (key, name) in [
        ("oid", "objectId"),
        ("upn", "userPrincipalName"),
        ("name", "displayName"),
        ("appid", "appId"),
    ] {
        if let Some(value) = text(key) {
            principal.insert(name.into(), json!(value));
        }
    }
    let expires = claims
        .get("exp")
        .and_then(Value::as_i64)
        .and_then(timestamp);
    json!({
        "tenant": text("tid"),
        "principal": Value::Object(principal),
        "expiresOn": expires,
    })
}
