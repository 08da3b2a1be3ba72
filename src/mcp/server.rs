//! The MCP server: lists the tools its policy admits and runs a call as the command line runs
//! the command, in process, on one shared context (one sign-in, one rate limiter, one name
//! cache), each call on its own task so calls run concurrently.

use super::agents::AgentTool;
use super::arguments;
use super::confine::Confinement;
use super::consent;
use super::files::FileRoots;
use super::tools::{Defaults, Policy, in_argument_names, tools};
use crate::commands::REGISTRY;
use fabsh_client::bridge::Bridge;
use fabsh_client::commands::common::TraitFlags;
use fabsh_client::commands::data_agent::PUBLISHED_URL;
use fabsh_client::commands::{self, ArgValue, Args, CommandSpec, Needs};
use fabsh_client::context::Ctx;
use fabsh_client::error::{Error, ErrorKind, Result};
use fabsh_client::output::{Progress, ProgressSink};
use fabsh_client::reply::Body;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ProgressToken,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// What every session of one server shares.
pub struct Shared {
    /// The context of commands that use the service.
    service: Ctx,
    /// The context of commands that send nothing (offline checks, the evaluation store).
    offline: Ctx,
    policy: Policy,
    confinement: Confinement,
    defaults: Defaults,
    tools: Vec<Tool>,
    by_name: HashMap<String, &'static CommandSpec>,
    /// The published agents offered as tools (`--agents`), by tool name.
    agents: HashMap<String, AgentTool>,
    /// The command an agent tool's call runs: `data-agent query`.
    query: Option<&'static CommandSpec>,
    /// The judge's key: never in anything the server returns.
    secrets: Vec<String>,
    /// What `--tools` named, to say what would offer a tool that is not offered.
    selection: Vec<String>,
}

/// How the person starting the server set it up, beyond the policy.
pub struct Setup {
    pub confinement: Confinement,
    /// The folders of `--files`.
    pub files: FileRoots,
    /// The judge flags given at start, for the commands that grade answers.
    pub judge: Vec<(&'static str, ArgValue)>,
    /// The environment variables deploy's `$ENV:NAME` may read (`--deploy-env-vars`).
    pub deploy_env_vars: Vec<String>,
    /// The groups, commands or tools `--tools` names; empty: all.
    pub selection: Vec<String>,
    /// The published agents to offer as tools (`--agents`), read at start.
    pub agents: Vec<AgentTool>,
}

impl Shared {
    pub fn new(service: Ctx, offline: Ctx, policy: Policy, setup: Setup) -> Shared {
        let Setup {
            confinement,
            files,
            judge,
            deploy_env_vars,
            selection,
            agents,
        } = setup;
        let judge_key = judge.iter().filter_map(|(_, value)| match value {
            ArgValue::Secret(secret) => Some(secret.expose().to_string()),
            _ => None,
        });
        // What deploy may put in a definition from the environment is never shown either.
        let env_values = deploy_env_vars
            .iter()
            .filter_map(|name| std::env::var(name).ok());
        let secrets = judge_key
            .chain(env_values)
            .filter(|secret| !secret.is_empty())
            .collect();
        let mut server_flags = judge;
        // Given to deploy even when empty: a config's features cannot widen it.
        server_flags.push(("env-vars", ArgValue::List(deploy_env_vars)));
        let defaults = Defaults {
            settings: service.settings().clone(),
            workspace: confinement.only().map(String::from),
            files,
            server_flags,
        };
        let listed = tools(REGISTRY, policy, &selection, &defaults);
        let by_name = listed
            .iter()
            .map(|(tool, spec)| (tool.name.to_string(), *spec))
            .collect();
        let query = REGISTRY
            .all()
            .find(|spec| spec.group == "data-agent" && spec.name == "query");
        let mut tools: Vec<Tool> = listed.into_iter().map(|(tool, _)| tool).collect();
        tools.extend(agents.iter().map(AgentTool::tool));
        let agents = agents
            .into_iter()
            .map(|agent| (agent.name.clone(), agent))
            .collect();
        Shared {
            service,
            offline,
            policy,
            confinement,
            defaults,
            tools,
            by_name,
            agents,
            query,
            secrets,
            selection,
        }
    }
}

impl Shared {
    /// Why there is no tool `name`, and what the person starting the server would give to
    /// offer it.
    fn not_offered(&self, name: &str) -> String {
        let files = !self.defaults.files.is_empty();
        let reason = REGISTRY
            .all()
            .find(|spec| super::tools::tool_name(spec) == name)
            .map(|spec| {
                super::tools::offered(spec, self.policy, &self.selection, files)
                    .err()
                    .unwrap_or("a restart (it is offered now)")
            });
        match reason {
            Some(flags) => format!(
                "no tool named {name:?} on this server; it is offered by a server started with {flags}"
            ),
            None => format!(
                "no tool named {name:?}: no command of fabsh is called so; tools/list lists this server's tools"
            ),
        }
    }
}

/// One MCP session's handler; clones share everything.
#[derive(Clone)]
pub struct FabshMcp(pub Arc<Shared>);

impl ServerHandler for FabshMcp {
    fn get_info(&self) -> ServerConfig {
        let mut config = ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("fabsh", env!("CARGO_PKG_VERSION")))
            .with_instructions(instructions(&self.0));
        config.server_info.title = Some("fabsh: Microsoft Fabric items and data agents".into());
        config
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.0.tools.clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.0.tools.iter().find(|tool| tool.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, McpError> {
        // A call without arguments calls the tool with none (MCP allows leaving them out).
        let arguments = request.arguments.unwrap_or_default();
        // An agent's tool is a `data_agent_query` call on that agent.
        let (spec, arguments) = match (
            self.0.by_name.get(request.name.as_ref()).copied(),
            self.0.agents.get(request.name.as_ref()),
            self.0.query,
        ) {
            (Some(spec), _, _) => (spec, arguments),
            (None, Some(agent), Some(query)) => match agent.query_arguments(&arguments) {
                Ok(arguments) => (query, arguments),
                Err(err) => return Ok(tool_error(query, err).into()),
            },
            _ => {
                return Err(McpError::invalid_params(
                    self.0.not_offered(&request.name),
                    None,
                ));
            }
        };
        let (progress, forwarded) = match context.meta.get_progress_token() {
            Some(token) => {
                let (progress, forwarded) = reporter(context.peer.clone(), token);
                (Some(progress), Some(forwarded))
            }
            None => (None, None),
        };
        // Each call waits through a bridge of its own, so cancelling it stops a stdlib
        // function's script (bulk work, evaluate) as Ctrl-C would, and no other call.
        let bridge = Bridge::new(tokio::runtime::Handle::current());
        let call = run(
            &self.0,
            spec,
            &arguments,
            progress,
            bridge.clone(),
            &context.peer,
        );
        let outcome = tokio::select! {
            outcome = call => outcome,
            // The client gave up on the call (`notifications/cancelled`): dropping the call
            // stops its requests, and the bridge stops its script; nothing more is sent.
            () = context.ct.cancelled() => {
                bridge.cancel();
                Err(Error::new(ErrorKind::Cancelled, "the call was cancelled"))
            }
        };
        // The call's progress reports go out before its result. Work the call left behind
        // (a script thread finishing) may still hold the reporter, so the wait is bounded.
        if let Some(forwarded) = forwarded {
            let _ = tokio::time::timeout(PROGRESS_DRAIN, forwarded).await;
        }
        let result = match outcome {
            Ok(result) => result,
            Err(err) => tool_error(spec, err),
        };
        Ok(redacted(&self.0.secrets, result).into())
    }
}

/// What an assistant is told about this server when it connects.
fn instructions(shared: &Shared) -> String {
    let mut text = String::from(
        "fabsh manages Microsoft Fabric workspace items and data agents. Tools take workspaces \
         and items by id or display name. Errors come back as tool results whose \
         structuredContent is {kind, code, message, request_id, hints}.",
    );
    text.push_str(match (shared.policy.writes, shared.policy.destructive) {
        (false, _) => " This server is read-only.",
        (true, false) => " Tools that change things take dry_run: true to show the plan first; nothing destructive is offered.",
        (true, true) => " Tools that change things take dry_run: true to show the plan first; destructive tools are offered.",
    });
    if shared.confinement.is_confined() {
        text.push_str(" It acts only in the workspaces it was started with.");
    }
    text
}

/// Checks a call and runs its command; errors come back as the error they are.
async fn run(
    shared: &Shared,
    spec: &'static CommandSpec,
    arguments: &Map<String, Value>,
    progress: Option<Progress>,
    bridge: Bridge,
    peer: &Peer<RoleServer>,
) -> Result<CallToolResult> {
    let args = arguments::check(spec, arguments, &shared.defaults, shared.policy.writes)?;
    if spec.group == "deploy" {
        shared.defaults.files.check_config_paths(&args)?;
    }
    consent::refuse_unless_allowed(shared.policy, spec, &args)?;
    refuse_other_hosts(&shared.service, &args)?;
    let ctx = match spec.traits.needs {
        Needs::Service => &shared.service,
        Needs::Nothing | Needs::LocalFabric => &shared.offline,
    };
    // Workspace names are resolved through the service even for a command that sends
    // nothing itself (the evaluation store keeps ids).
    shared
        .confinement
        .check(&shared.service, spec, &args)
        .await?;
    consent::confirm(peer, spec, &args).await?;
    let destroyed = (consent::is_destructive(spec, &args) && !TraitFlags::of(&args).dry_run)
        .then(|| consent::target(spec, &args));
    let ctx = match progress {
        Some(progress) => ctx.with_progress(progress),
        None => ctx.clone(),
    }
    .with_bridge(bridge);
    let mut reply = commands::execute(spec, args, &ctx).await?;
    let failure = reply.failure.take();
    let notes = std::mem::take(&mut reply.notes);
    let mut value = match reply.body {
        Body::Page {
            items,
            continuation_token,
        } => json!({"value": items, "continuationToken": continuation_token}),
        body => {
            let reply = fabsh_client::reply::Reply::from_body(body);
            match reply.into_value().await? {
                Value::Array(items) => json!({"value": items}),
                Value::Null => json!({}),
                Value::String(text) => json!({"text": text}),
                object => object,
            }
        }
    };
    shared.confinement.filter_list(spec, &mut value);
    // A plan with changes pending, a run that ended Failed: the answer asked for, not a
    // failure.
    let failure = failure.filter(|f| !f.kind.carries_answer());
    // A destructive call's result says what it acted on, whatever the command returns.
    if let (Some(target), Value::Object(map)) = (destroyed, &mut value) {
        map.insert("deleted".into(), Value::Object(target));
    }
    if let Some(mut failure) = failure {
        // Some of a bulk command's items failed: the error, with every item's outcome.
        failure.details = Some(value);
        return Err(failure);
    }
    let mut text = value.to_string();
    for note in notes {
        text.push_str("\nnote: ");
        text.push_str(&note);
    }
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(value);
    Ok(result)
}

/// A URL argument (`published_url`) is asked with the Fabric sign-in: only the endpoint's
/// host and the hosts trusted with its token may be named, so no call sends a question or
/// a token elsewhere.
fn refuse_other_hosts(service: &Ctx, args: &Args) -> Result<()> {
    let Some(url) = args.opt_str(PUBLISHED_URL.long) else {
        return Ok(());
    };
    if service.api().reaches(url.trim()) {
        return Ok(());
    }
    Err(Error::usage(format!(
        "argument `published_url` is not on the Fabric endpoint ({}) or a host trusted with its sign-in: {url:?}",
        service.api().base()
    ))
    .with_hint("nothing was sent; give the URL `data_agent_mcp_url` returns, or leave it out to ask the agent by workspace and id"))
}

/// An error as a tool result: the error map as structured content and its message (with
/// hints) as text, so the assistant can read and act on it; flags are named as arguments.
fn tool_error(spec: &'static CommandSpec, mut err: Error) -> CallToolResult {
    err.message = in_argument_names(spec, &err.message);
    err.hints = err
        .hints
        .iter()
        .map(|hint| in_argument_names(spec, hint))
        .collect();
    let map = err.to_json();
    let mut text = format!("error: {}", err.message);
    for hint in &err.hints {
        text.push_str("\nhint: ");
        text.push_str(hint);
    }
    let mut result = CallToolResult::error(vec![ContentBlock::text(text)]);
    result.structured_content = Some(map);
    result
}

/// `result` with every secret the server holds (the judge's key) and any bearer token
/// replaced, whatever part of it quotes them.
fn redacted(secrets: &[String], result: CallToolResult) -> CallToolResult {
    let Ok(text) = serde_json::to_string(&result) else {
        return result;
    };
    let mut clean = secrets.iter().fold(text.clone(), |text, secret| {
        text.replace(secret.as_str(), "(redacted)")
    });
    clean = fabsh_http::chat::redact_bearer_tokens(&clean);
    if clean == text {
        return result;
    }
    serde_json::from_str(&clean).unwrap_or(result)
}

/// How long a finished call waits for its last progress reports to go out.
const PROGRESS_DRAIN: Duration = Duration::from_secs(1);

/// Progress of one call, sent to the client as `notifications/progress` in order, and the
/// task sending them, which ends once the progress is dropped and every report is sent.
fn reporter(peer: Peer<RoleServer>, token: ProgressToken) -> (Progress, JoinHandle<()>) {
    let (sender, mut receiver) = mpsc::unbounded_channel::<ProgressNotificationParam>();
    let forwarded = tokio::spawn(async move {
        while let Some(report) = receiver.recv().await {
            // A client that went away stops caring about progress; the call goes on.
            if peer.notify_progress(report).await.is_err() {
                break;
            }
        }
    });
    let progress = Progress::reporting_to(Arc::new(Reports { sender, token }));
    (progress, forwarded)
}

struct Reports {
    sender: mpsc::UnboundedSender<ProgressNotificationParam>,
    token: ProgressToken,
}

impl ProgressSink for Reports {
    fn report(&self, done: f64, total: Option<f64>, message: String) {
        let mut report = ProgressNotificationParam::new(self.token.clone(), done);
        report.total = total;
        report.message = Some(message);
        let _ = self.sender.send(report);
    }
}
