//! `fabsh api METHOD PATH`: any request to the configured endpoint, with the same auth,
//! retries, throttling, long-running operations and paging as every other command.

use super::common::ALL;
use super::spec::{ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits};
use super::typed::{Command, handler, typed_args};
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::reply::Reply;
use fabsh_api::api::{Req, Safety};
use reqwest::{Method, Url};
use serde_json::Value;

const METHODS: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"];

pub const METHOD: ArgSpec = ArgSpec::positional("method", ArgKind::Enum(METHODS), "HTTP method");
pub const PATH: ArgSpec = ArgSpec::positional(
    "path",
    ArgKind::Str,
    "Path under the endpoint, e.g. /workspaces",
);
const BODY: ArgSpec = ArgSpec::opt("body", ArgKind::Json, "Request body, inline JSON or @file");

/// The `api` command.
pub static COMMANDS: &[CommandSpec] = &[CommandSpec {
    group: "api",
    name: "",
    summary: "Send any request to the Fabric API (auth, retries, LROs and paging included)",
    about: "PATH is relative to the endpoint (/workspaces/...) and may carry a query string. \
A 202 is followed to the operation's result (unless --no-wait); --all follows every page of a list \
and prints the items as one array. GET requests are retried on failure; others are sent once.",
    args: &[METHOD, PATH, BODY, ALL],
    traits: Traits::MUTATE.lro(),
    columns: &[],
    examples: &[
        Example {
            command: "api GET /workspaces -q \"value[].displayName\"",
            about: "the plain API response, queried",
        },
        Example {
            command: "api GET /workspaces/$WORKSPACE_ID/items --all",
            about: "every item over every page",
        },
        Example {
            command: "api POST /workspaces/$WORKSPACE_ID/items --body '{\"displayName\":\"n\",\"type\":\"Notebook\"}'",
            about: "create, waiting for the operation",
        },
    ],
    handler: Handler::Data(handler::<Api>),
}];

typed_args! {
    /// `api METHOD PATH`.
    struct Api {
        method: String = METHOD,
        path: String = PATH,
        body: Option<Value> = BODY,
        all: bool = ALL,
    }
}

impl Command for Api {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let method = Method::from_bytes(self.method.as_bytes())
                .map_err(|_| Error::usage("invalid HTTP method"))?;
            let (target, query) = split_path(&self.path)?;
            if target.starts_with("http://") || target.starts_with("https://") {
                // The HTTP layer would refuse to send the token there too, but only as a runtime
                // failure: a URL the user typed for another host is bad input.
                ctx.api().url_for(&target).map_err(|_| {
                Error::usage(format!(
                    "PATH {target} is not on the endpoint's host ({}); fabsh sends credentials only there",
                    ctx.api().base()
                ))
                .with_hint("give a path under the endpoint (/workspaces/...), or point --endpoint at that host")
            })?;
            }
            let mut req = Req::new(method.clone(), target);
            req.query = query;
            if let Some(body) = self.body {
                req = req.body(body);
            }
            if method == Method::PATCH {
                // A raw PATCH may not be idempotent; treat it like a create: sent once.
                req.safety = Safety::Create;
            }
            if self.all {
                if method != Method::GET {
                    return Err(Error::usage("--all only applies to GET requests"));
                }
                return Ok(Reply::stream(ctx.api().pages(req, None)));
            }
            let value = ctx.api().lro(req).await?.into_value();
            Ok(match value {
                Value::Null => Reply::empty(),
                value => Reply::json(value),
            })
        })
    }
}

/// Splits `PATH?query` into the path and decoded query pairs.
fn split_path(text: &str) -> Result<(String, Vec<(String, String)>)> {
    let text = text.trim();
    if text.is_empty() {
        return Err(Error::usage("PATH is empty; give e.g. /workspaces"));
    }
    let absolute = text.starts_with("http://") || text.starts_with("https://");
    let parse_base = if absolute {
        text.to_string()
    } else {
        format!("http://x/{}", text.trim_start_matches('/'))
    };
    let url = Url::parse(&parse_base)
        .map_err(|err| Error::usage(format!("invalid PATH {text:?}: {err}")))?;
    let query = url
        .query_pairs()
        .map(|(key, value)| (key.into_owned(), value.into_owned()))
        .collect();
    let target = if absolute {
        let mut without_query = url.clone();
        without_query.set_query(None);
        without_query.to_string()
    } else {
        url.path().to_string()
    };
    Ok((target, query))
}

#[cfg(test)]
mod tests {
    use super::split_path;

    #[test]
    fn paths_keep_their_query() {
        let (path, query) =
            split_path("workspaces/x/items?type=Notebook&recursive=false").expect("valid");
        assert_eq!(path, "/workspaces/x/items");
        assert_eq!(
            query,
            vec![
                ("type".into(), "Notebook".into()),
                ("recursive".into(), "false".into())
            ]
        );
        assert!(split_path("").is_err());
    }
}
