//! Destructive calls: the raw `api` tool is classified by the rules the named tools follow,
//! and a destructive call is confirmed by the person through the client (MCP elicitation)
//! when the client can ask; a client that cannot ask relies on `--allow-destructive` alone.

use super::tools::{Policy, arg_key, tool_name};
use fabsh_client::commands::common::{DRY_RUN, LRO_TIMEOUT, NO_WAIT, TraitFlags, YES};
use fabsh_client::commands::{ArgValue, Args, CommandSpec};
use fabsh_client::commands::{api, sql};
use fabsh_client::error::{Error, ErrorKind, Result};
use percent_encoding::percent_decode_str;
use rmcp::RoleServer;
use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema};
use rmcp::service::Peer;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// The last path segments of API actions that lose data or hand over access, as the named
/// tools that send them are destructive: a definition replaced whole, an item moved out of
/// its workspace, a share revoked, bulk deletes and moves, a capacity or identity removed.
const DESTRUCTIVE_ACTIONS: &[&str] = &[
    "updatedefinition",
    "move",
    "revoke",
    "bulkdelete",
    "bulkmove",
    "unassignfromcapacity",
    "deprovisionidentity",
];

/// True when the call loses data or grants access: a destructive command, a mutating
/// command given a flag that makes it delete (`deploy apply --delete-orphans`), or an `api`
/// call that a destructive command would send (any DELETE, any change to role assignments,
/// the actions above).
pub(super) fn is_destructive(spec: &CommandSpec, args: &Args) -> bool {
    if spec.group != "api" {
        return spec.loses_data(args);
    }
    let method = args
        .opt_str(api::METHOD.long)
        .unwrap_or("GET")
        .to_ascii_uppercase();
    if matches!(method.as_str(), "GET" | "HEAD") {
        return false;
    }
    if method == "DELETE" {
        return true;
    }
    // `api` without a path has no segments: not destructive by its path.
    let Some(path) = args.opt_str(api::PATH.long) else {
        return false;
    };
    // The path before any query or fragment.
    let path = path.split_once(['?', '#']).map_or(path, |(path, _)| path);
    let decoded = percent_decode_str(path).decode_utf8_lossy().to_lowercase();
    let segments: Vec<&str> = decoded.split('/').filter(|s| !s.is_empty()).collect();
    segments.contains(&"roleassignments")
        || segments
            .last()
            .is_some_and(|last| DESTRUCTIVE_ACTIONS.contains(last))
}

/// Refuses a destructive `api` call on a server without `--allow-destructive` (the named
/// destructive tools are not even listed there); a dry run shows the plan and sends nothing.
pub(super) fn refuse_unless_allowed(policy: Policy, spec: &CommandSpec, args: &Args) -> Result<()> {
    // A read-only tool with a flag that lets it write (`sql_query`'s `allow_writes`) writes
    // only on a server that allows writes.
    if args.flag(sql::ALLOW_WRITES.long) && !policy.writes {
        return Err(Error::usage(format!(
            "this `{}` call asks to write (allow_writes), and needs a server started with --allow-writes",
            tool_name(spec)
        ))
        .with_hint("nothing was sent; without allow_writes only queries (SELECT, WITH) run"));
    }
    if is_destructive(spec, args) && !policy.destructive && !TraitFlags::of(args).dry_run {
        return Err(Error::usage(format!(
            "this `{}` call loses data or grants access, and needs a server started with --allow-destructive",
            tool_name(spec)
        ))
        .with_hint("nothing was sent; dry_run: true shows the request"));
    }
    Ok(())
}

/// Asks the person through the client before a destructive call, when the client can ask;
/// a decline is an error and nothing is sent.
pub(super) async fn confirm(
    peer: &Peer<RoleServer>,
    spec: &CommandSpec,
    args: &Args,
) -> Result<()> {
    if !is_destructive(spec, args) || TraitFlags::of(args).dry_run {
        return Ok(());
    }
    let can_ask = peer
        .peer_info()
        .is_some_and(|info| info.capabilities.elicitation.is_some());
    if !can_ask {
        return Ok(());
    }
    let request = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: format!(
            "An assistant asks to run {} ({}), which cannot be undone: {}. Allow it?",
            tool_name(spec),
            spec.summary,
            Value::Object(target(spec, args))
        ),
        requested_schema: ElicitationSchema::new(BTreeMap::new()),
    };
    let answer = peer.create_elicitation(request).await.map_err(|err| {
        Error::runtime("the client did not answer the confirmation").with_cause(err)
    })?;
    match answer.action {
        ElicitationAction::Accept => Ok(()),
        _ => Err(Error::new(
            ErrorKind::Cancelled,
            format!(
                "the person declined `{}`; nothing was sent",
                tool_name(spec)
            ),
        )),
    }
}

/// What a destructive call acted on, for its result: its arguments that name things.
pub(super) fn target(spec: &CommandSpec, args: &Args) -> Map<String, Value> {
    args.values()
        .iter()
        .filter(|(long, _)| {
            ![&DRY_RUN, &NO_WAIT, &LRO_TIMEOUT, &YES]
                .iter()
                .any(|flag| flag.long == **long)
        })
        .filter_map(|(long, value)| {
            let key = spec
                .arg(long)
                .map_or_else(|| long.replace('-', "_"), arg_key);
            let value = match value {
                ArgValue::Str(text) => json!(text),
                ArgValue::List(items) => json!(items),
                ArgValue::Bool(flag) => json!(flag),
                ArgValue::Int(number) => json!(number),
                ArgValue::Json(_) | ArgValue::File(_) | ArgValue::Secret(_) => return None,
            };
            Some((key, value))
        })
        .collect()
}
