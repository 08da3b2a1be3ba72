//! `mcp serve --workspace W`: the server acts in those workspaces only. A call is checked
//! before its command runs: every workspace it names must be one of them, a command that
//! names none is refused (it could reach any), and `workspace_list` shows only them.

use super::tools::arg_key;
use fabsh_client::commands::api;
use fabsh_client::commands::data_agent::PUBLISHED_URL;
use fabsh_client::commands::{ArgValue, Args, CommandSpec};
use fabsh_client::context::Ctx;
use fabsh_client::error::{Error, Result};
use fabsh_model::definition::paths::has_encoded_dot_or_slash;
use percent_encoding::percent_decode_str;
use serde_json::Value;

/// The workspaces a server is confined to (ids, lowercase), or none for no confinement.
#[derive(Debug, Clone, Default)]
pub struct Confinement {
    ids: Option<Vec<String>>,
    /// As the user named them, for errors.
    named: Vec<String>,
}

impl Confinement {
    /// Confined to the workspaces `named` (ids or names), resolved once at start; an empty
    /// list confines nothing.
    pub async fn resolve(ctx: &Ctx, named: Option<&[String]>) -> Result<Confinement> {
        // No --workspace: the server is not confined.
        let Some(named) = named.filter(|named| !named.is_empty()) else {
            return Ok(Confinement::default());
        };
        let mut ids = Vec::new();
        for name in named {
            let id = ctx.workspace_id(name).await.map_err(|err| {
                err.with_hint(format!(
                    "--workspace {name:?} names no workspace you can reach"
                ))
            })?;
            ids.push(id.to_lowercase());
        }
        Ok(Confinement {
            ids: Some(ids),
            named: named.to_vec(),
        })
    }

    /// The workspace id, when the server is confined to exactly one.
    pub fn only(&self) -> Option<&str> {
        match self.ids.as_deref() {
            Some([only]) => Some(only),
            _ => None,
        }
    }

    /// Each workspace's id and the name it was given by, in the order given.
    pub fn workspaces(&self) -> Vec<(String, String)> {
        // An unconfined server names no workspaces.
        self.ids
            .iter()
            .flatten()
            .cloned()
            .zip(self.named.iter().cloned())
            .collect()
    }

    pub fn is_confined(&self) -> bool {
        self.ids.is_some()
    }

    /// Refuses a call that would act outside the workspaces, before anything is sent for it
    /// (resolving a workspace name reads the workspace list).
    pub async fn check(&self, ctx: &Ctx, spec: &CommandSpec, args: &Args) -> Result<()> {
        let Some(ids) = &self.ids else {
            return Ok(());
        };
        if spec.group == "workspace" && spec.name == "list" {
            return Ok(());
        }
        if spec.group == "api" {
            // `api` without a path reaches no workspace: refused as outside the confinement.
            let path = args.opt_str(api::PATH.long);
            const REACHES: &str =
                "`api` may only reach paths under /workspaces/<id> of the confined workspaces";
            return match (path, path.and_then(api_workspace)) {
                (_, Some(id)) if ids.contains(&id) => Ok(()),
                (Some(path), _) => Err(self.refused(format!("{REACHES}, not {path:?}"))),
                (None, _) => Err(self.refused(format!("{REACHES}; it was given no path"))),
            };
        }
        // An agent's MCP URL names its workspace in its path, and is asked instead of the
        // agent the other arguments name.
        if let Some(url) = args.opt_str(PUBLISHED_URL.long) {
            // The path after the host; the host itself is checked against the endpoint.
            let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
            let path = after_scheme.find('/').map_or("", |at| &after_scheme[at..]);
            if !api_workspace(path).is_some_and(|id| ids.contains(&id)) {
                return Err(self.refused(format!(
                    "argument `published_url` is not under /workspaces/<id> of the confined workspaces: {url:?}"
                )));
            }
        }
        let named = workspace_values(spec, args);
        if named.is_empty() {
            return Err(self.refused(format!(
                "`{}` names no workspace, so it could act on any",
                spec.path()
            )));
        }
        for (key, value) in named {
            // Listed, not taken from the name cache: confirming a cached id would send a
            // request about a workspace that may be outside.
            let id = ctx.workspace_id_listed(&value).await?.to_lowercase();
            if !ids.contains(&id) {
                return Err(self.refused(format!("argument `{key}` names workspace {value:?}")));
            }
        }
        Ok(())
    }

    /// `workspace_list`'s result with only the confined workspaces.
    pub fn filter_list(&self, spec: &CommandSpec, value: &mut Value) {
        let (Some(ids), true) = (&self.ids, spec.group == "workspace" && spec.name == "list")
        else {
            return;
        };
        let keep = |workspace: &Value| {
            workspace["id"]
                .as_str()
                .is_some_and(|id| ids.contains(&id.to_lowercase()))
        };
        match value {
            Value::Array(list) => list.retain(keep),
            Value::Object(page) => {
                if let Some(Value::Array(list)) = page.get_mut("value") {
                    list.retain(keep);
                }
            }
            _ => {}
        }
    }

    fn refused(&self, why: String) -> Error {
        Error::usage(format!(
            "this MCP server is confined to {}: {why}",
            self.named.join(", ")
        ))
        .with_hint("nothing was sent; ask for one of those workspaces, or restart the server with another --workspace")
    }
}

/// Every workspace a call names, with the argument that names it: the flags whose name ends
/// in `workspace`, and a workspace command's `id`.
fn workspace_values(spec: &CommandSpec, args: &Args) -> Vec<(String, String)> {
    args.values()
        .iter()
        .filter(|(long, _)| {
            long.ends_with("workspace") || (spec.group == "workspace" && **long == "id")
        })
        .filter_map(|(long, value)| match value {
            ArgValue::Str(text) => {
                let key = spec
                    .arg(long)
                    .map_or_else(|| long.replace('-', "_"), arg_key);
                Some((key, text.clone()))
            }
            _ => None,
        })
        .collect()
}

/// The workspace id an API path is under (`/workspaces/<id>/items`, `/v1/workspaces/<id>`,
/// `/v1/mcp/workspaces/<id>/...`), lowercase, as the service will resolve the path: decoded
/// and normalised. A path with an encoded dot or slash, a `.` or `..` segment, or an escape
/// left after decoding is refused outright (none), as is one where `workspaces` comes later.
fn api_workspace(path: &str) -> Option<String> {
    let path = path.split(['?', '#']).next()?;
    if has_encoded_dot_or_slash(path) {
        return None;
    }
    let decoded = percent_decode_str(path).decode_utf8().ok()?;
    if decoded.contains(['%', '\\']) {
        return None;
    }
    let segments: Vec<&str> = decoded.split('/').filter(|part| !part.is_empty()).collect();
    if segments.iter().any(|part| *part == "." || *part == "..") {
        return None;
    }
    let mut rest = segments.as_slice();
    for prefix in ["v1", "mcp"] {
        if rest
            .first()
            .is_some_and(|part| part.eq_ignore_ascii_case(prefix))
        {
            rest = &rest[1..];
        }
    }
    match rest {
        [first, id, ..] if first.eq_ignore_ascii_case("workspaces") => Some(id.to_lowercase()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::api_workspace;

    #[test]
    fn paths_are_compared_as_the_service_resolves_them() {
        let id = "6f1c6a3e-0000-4000-8000-000000000001";
        for path in [
            format!("/workspaces/{id}/items"),
            format!("workspaces/{id}"),
            format!("/v1/workspaces/{id}/items?x=1"),
            format!("/v1/mcp/workspaces/{id}/dataagents/a/agent"),
            format!("/workspaces/%36{}/items", &id[1..]),
        ] {
            assert_eq!(api_workspace(&path).as_deref(), Some(id), "{path}");
        }
        for path in [
            format!("/workspaces/{id}/%2e%2e/other/items"),
            format!("/workspaces/{id}/%2E%2E/other"),
            format!("/workspaces/{id}/.%2e/other"),
            format!("/workspaces/{id}/%2e./other"),
            format!("/workspaces/{id}%2fother"),
            format!("/workspaces/{id}/../other"),
            format!("/workspaces/{id}/%252e%252e/other"),
            format!("/admin/workspaces/{id}"),
        ] {
            assert_eq!(api_workspace(&path), None, "{path}");
        }
    }
}
