//! Routes answer the same with and without a trailing slash, as the service does: fabric-cicd
//! lists `GET /v1/workspaces/{id}/environments/` and the service answers it 200 (issue 28). The
//! path is trimmed before routing, so every route, present and future, gets this at once.

use axum::extract::Request;
use axum::http::Uri;
use axum::http::uri::PathAndQuery;

/// The request with its path's trailing slashes removed (`/` itself stays).
pub(super) async fn trim(mut request: Request) -> Request {
    if let Some(uri) = trimmed(request.uri()) {
        *request.uri_mut() = uri;
    }
    request
}

/// The URI without trailing slashes on its path, or `None` when there is nothing to trim.
fn trimmed(uri: &Uri) -> Option<Uri> {
    let path = uri.path();
    let kept = path.trim_end_matches('/');
    if kept.len() == path.len() || kept.is_empty() {
        return None;
    }
    let path_and_query = match uri.query() {
        Some(query) => format!("{kept}?{query}"),
        None => kept.to_string(),
    };
    let mut parts = uri.clone().into_parts();
    parts.path_and_query = Some(PathAndQuery::try_from(path_and_query).ok()?);
    Uri::from_parts(parts).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_trailing_slashes_and_keeps_the_query() {
        let uri: Uri = "/v1/workspaces/a/environments/?continuationToken=x"
            .parse()
            .unwrap();
        assert_eq!(
            trimmed(&uri).unwrap(),
            "/v1/workspaces/a/environments?continuationToken=x"
        );
        assert!(trimmed(&"/v1/workspaces".parse().unwrap()).is_none());
        assert!(trimmed(&"/".parse().unwrap()).is_none());
    }
}
