//! Which hosts the server answers for. A page in a browser can reach a loopback server by
//! DNS rebinding (its own name made to resolve to 127.0.0.1); its requests then still carry
//! that name in `Host`. So the server answers only requests naming a loopback host, the
//! address it was bound to, or the public host it was told about (`--public-host`), and
//! refuses the rest before any handler runs.

use super::api_error::ApiError;
use super::state::Shared;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::net::IpAddr;

/// The hosts a server answers for, besides `localhost` and loopback addresses.
#[derive(Debug, Clone, Default)]
pub(crate) struct Hosts {
    /// The public host names or addresses, lower-case, without a port: deployment tools call
    /// one server by several (`api.fabric.microsoft.com` and `api.powerbi.com` in one run).
    public: Vec<String>,
    /// The address bound, when it is a particular one (not 0.0.0.0 or ::): the endpoint the
    /// server prints names it.
    bound: Option<IpAddr>,
}

/// The host part of a `Host` value (`name`, `name:port`, `[v6]:port`), lower-case, without a
/// trailing dot.
fn host_part(value: &str) -> String {
    let value = value.trim();
    let host = match value.strip_prefix('[') {
        // The host inside the brackets (all the rest when they are not closed).
        Some(rest) => rest.split_once(']').map_or(rest, |(host, _)| host),
        None => match value.rsplit_once(':') {
            Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
            _ => value,
        },
    };
    host.trim_end_matches('.').to_ascii_lowercase()
}

impl Hosts {
    /// The hosts for a server bound to `bound` and known publicly as each of `public` (`HOST`
    /// or `HOST:PORT`; any port is answered).
    pub(crate) fn new(public: &[&str], bound: IpAddr) -> crate::Result<Hosts> {
        let mut names = Vec::new();
        for text in public.iter().map(|p| p.trim()).filter(|p| !p.is_empty()) {
            if text.contains(['/', '@', ' ', '?', '#']) {
                return Err(crate::Error::invalid(format!(
                    "the public host '{text}' is not a host name or address (give HOST or HOST:PORT, no scheme or path)"
                )));
            }
            names.push(host_part(text));
        }
        let public = names;
        Ok(Hosts {
            public,
            bound: Some(bound).filter(|ip| !ip.is_unspecified()),
        })
    }

    /// True when a request naming `value` in `Host` is for this server.
    pub(crate) fn permits(&self, value: &str) -> bool {
        let host = host_part(value);
        if host == "localhost" || self.public.contains(&host) {
            return true;
        }
        match host.parse::<IpAddr>() {
            Ok(ip) => ip.to_canonical().is_loopback() || self.bound == Some(ip),
            Err(_) => false,
        }
    }
}

/// Refuses, with 421 Misdirected Request, a request whose `Host` (or absolute URI) names a
/// host this server does not answer for. A request without one is let through: browsers
/// always send it, so it cannot be a rebinding page's.
pub(crate) async fn guard(State(state): State<Shared>, request: Request, next: Next) -> Response {
    let named = [
        request
            .headers()
            .get(header::HOST)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned()),
        request.uri().authority().map(|a| a.as_str().to_string()),
    ];
    if let Some(host) = named
        .into_iter()
        .flatten()
        .find(|host| !state.hosts.permits(host))
    {
        let answered = if state.hosts.public.is_empty() {
            "localhost and loopback addresses (`local serve --public-host` adds one)".to_string()
        } else {
            format!(
                "localhost, loopback addresses and {}",
                state.hosts.public.join(", ")
            )
        };
        return ApiError::new(
            StatusCode::MISDIRECTED_REQUEST,
            "MisdirectedRequest",
            format!("This server does not answer for the host '{host}': it answers for {answered}"),
        )
        .into_response();
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_the_bound_address_and_the_public_host_are_answered() {
        let hosts = Hosts::new(
            &["Fabric.Example:8443", "api.powerbi.com"],
            "10.0.0.5".parse().unwrap(),
        )
        .unwrap();
        for host in [
            "localhost",
            "LOCALHOST:80",
            "127.0.0.1:1",
            "127.1.2.3",
            "[::1]:8765",
            "[::ffff:127.0.0.1]",
            "10.0.0.5:8765",
            "fabric.example",
            "fabric.example.:443",
            "api.powerbi.com",
        ] {
            assert!(hosts.permits(host), "{host}");
        }
        for host in [
            "evil.example",
            "localhost.evil.example",
            "10.0.0.6",
            "[::2]:1",
            "",
        ] {
            assert!(!hosts.permits(host), "{host}");
        }
        let any = Hosts::new(&[], "0.0.0.0".parse().unwrap()).unwrap();
        assert!(!any.permits("0.0.0.0") && !any.permits("192.168.1.10"));
        assert!(Hosts::new(&["a.example", "http://x"], "127.0.0.1".parse().unwrap()).is_err());
    }
}
