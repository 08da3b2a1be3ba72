//! Where clients reach the server, for the absolute URLs it writes (`Location`,
//! `continuationUri`, invitation links). Behind a TLS terminator the request arrives as
//! plain HTTP, so an `http://{Host}` link would send clients around the terminator: the
//! origin is the configured public URL when there is one, else the scheme the proxy says the
//! client used (`X-Forwarded-Proto`, or `proto=` of `Forwarded`, RFC 7239) and the `Host`.

use axum::http::HeaderMap;
use axum::http::header::{FORWARDED, HOST};

/// A `--public-url`: `http(s)://HOST[:PORT]`, returned as the origin (no trailing slash)
/// and its `HOST[:PORT]`. Anything else (a path, a query, credentials, another scheme) is
/// refused with the reason.
pub fn parse(text: &str) -> Result<(String, String), String> {
    let text = text.trim().trim_end_matches('/');
    let (scheme, authority) = text
        .split_once("://")
        .ok_or("give a URL such as https://fabric.example.com")?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return Err(format!("the scheme must be http or https, not {scheme}"));
    }
    if authority.is_empty() || authority.contains(['/', '?', '#', '@', ' ']) {
        return Err("give only a scheme and a host (and port): no path, query or user".into());
    }
    Ok((
        format!("{scheme}://{authority}"),
        authority.to_ascii_lowercase(),
    ))
}

/// The origin a request was made to: `public` when configured, else the forwarded scheme
/// (http by default) and the `Host`, else `bound`.
pub fn origin_of(headers: &HeaderMap, public: Option<&str>, bound: &str) -> String {
    if let Some(public) = public {
        return public.to_string();
    }
    let host = headers
        .get(HOST)
        .and_then(|h| h.to_str().ok())
        .filter(|h| !h.is_empty() && !h.contains(['/', ' ']));
    match host {
        Some(host) => format!("{}://{host}", forwarded_scheme(headers)),
        None => bound.to_string(),
    }
}

/// `https` when the first proxy in front of us says the client used it, else `http`.
fn forwarded_scheme(headers: &HeaderMap) -> &'static str {
    let header = |name| headers.get(name).and_then(|v| v.to_str().ok());
    let from_x = header("x-forwarded-proto").and_then(|v| v.split(',').next());
    let from_rfc = || {
        header(FORWARDED.as_str())?
            .split(',')
            .next()?
            .split(';')
            .find_map(|pair| {
                let (key, value) = pair.split_once('=')?;
                key.trim()
                    .eq_ignore_ascii_case("proto")
                    .then(|| value.trim().trim_matches('"'))
            })
    };
    match from_x.or_else(from_rfc) {
        Some(proto) if proto.trim().eq_ignore_ascii_case("https") => "https",
        _ => "http",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn a_public_url_is_a_scheme_and_an_authority() {
        assert_eq!(
            parse("https://Fabric.Example.com:8443/").unwrap(),
            (
                "https://Fabric.Example.com:8443".to_string(),
                "fabric.example.com:8443".to_string()
            )
        );
        for bad in [
            "fabric.example.com",
            "ftp://h",
            "https://h/v1",
            "https://u@h",
            "https://",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_scheme_follows_the_proxy_and_the_public_url_wins() {
        let bound = "http://127.0.0.1:1";
        let plain = headers(&[("host", "h:1")]);
        assert_eq!(origin_of(&plain, None, bound), "http://h:1");
        let x = headers(&[("host", "h"), ("x-forwarded-proto", "https, http")]);
        assert_eq!(origin_of(&x, None, bound), "https://h");
        let rfc = headers(&[
            ("host", "h"),
            ("forwarded", "for=1.2.3.4;Proto=\"https\", proto=http"),
        ]);
        assert_eq!(origin_of(&rfc, None, bound), "https://h");
        assert_eq!(origin_of(&x, Some("https://p"), bound), "https://p");
        assert_eq!(origin_of(&HeaderMap::new(), None, bound), bound);
    }
}
