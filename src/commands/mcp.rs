//! `fabsh mcp serve`: the registry as MCP tools for AI assistants, over stdio or HTTP.

use crate::mcp::{Confinement, FabshMcp, FileRoots, Policy, Setup, Shared, http};
use fabsh_client::commands::args::FileArg;
use fabsh_client::commands::data_agent::{
    JudgeFlags, LLM_API_VERSION, LLM_ENDPOINT, LLM_KEY, LLM_MODEL,
};
use fabsh_client::commands::typed::{TerminalCommand, at_terminal, typed_args};
use fabsh_client::commands::{
    ArgKind, ArgSpec, ArgValue, CommandSpec, Example, Group, Handler, Terminal, Traits,
};
use fabsh_client::error::{Error, ErrorKind, Result};
use fabsh_client::output::Progress;
use rmcp::ServiceExt;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

/// `fabsh mcp ...`.
pub(super) const MCP: Group = Group {
    name: "mcp",
    summary: "Serve fabsh's commands to AI assistants over the Model Context Protocol",
    commands: &[SERVE],
};

const HTTP: ArgSpec = ArgSpec::opt(
    "http",
    ArgKind::Str,
    "Serve streamable HTTP on this address (127.0.0.1:0 picks a free port) instead of stdio",
)
.value_name("ADDR");
const ALLOW_REMOTE: ArgSpec = ArgSpec::opt(
    "allow-remote",
    ArgKind::Bool,
    "Let --http listen on an address other machines can reach",
);
const ALLOW_ORIGIN: ArgSpec = ArgSpec::opt(
    "allow-origin",
    ArgKind::List,
    "With --http, also accept requests from this web Origin (e.g. https://app.example); only loopback Origins are accepted otherwise",
)
.value_name("ORIGIN");
const ALLOW_WRITES: ArgSpec = ArgSpec::opt(
    "allow-writes",
    ArgKind::Bool,
    "Offer the tools that change things (create, update, publish, ...)",
);
const ALLOW_DESTRUCTIVE: ArgSpec = ArgSpec::opt(
    "allow-destructive",
    ArgKind::Bool,
    "Offer the tools that lose data too (delete, ...); implies --allow-writes",
);
const WORKSPACES: ArgSpec = ArgSpec::opt(
    "workspace",
    ArgKind::List,
    "Act only in this workspace (id or name; repeat or comma-separate for several); with one, calls that leave out `workspace` act there",
)
.short('w')
.value_name("WORKSPACE");
const AGENTS: ArgSpec = ArgSpec::opt(
    "agents",
    ArgKind::Bool,
    "Also offer one read-only tool per published data agent of the --workspace workspaces (ask_<agent>, taking a question); the agents are read when the server starts",
);
const TOOLS: ArgSpec = ArgSpec::opt(
    "tools",
    ArgKind::List,
    "Offer only these: groups (item, data-agent), commands with dots (data-agent.query) or tool names (data_agent_query), comma-separated",
)
.value_name("NAMES");
const FILES: ArgSpec = ArgSpec::opt(
    "files",
    ArgKind::List,
    "Let tools read and write local files under this folder (repeat for several; relative paths start at the first); without it no tool argument names a local file",
)
.value_name("DIR");
const DEPLOY_ENV_VARS: ArgSpec = ArgSpec::opt(
    "deploy-env-vars",
    ArgKind::List,
    "Let deploy_plan and deploy_apply read these environment variables for parameter.yml's $ENV:NAME (comma-separated names); without it they read none, whatever a config.yml says. Their values are redacted from every result",
)
.value_name("NAME");
const CRITIC_PROMPT_FILE: ArgSpec = ArgSpec::opt(
    "critic-prompt-file",
    ArgKind::File,
    "The judge's prompt, with {query}, {expected_answer}, {actual_answer}; needs a judge",
);

const SERVE: CommandSpec = CommandSpec {
    group: "mcp",
    name: "serve",
    summary: "Serve fabsh's commands as MCP tools (stdio, or HTTP with --http)",
    about: "One tool per command (`item_list`, `data_agent_query`, ...), with its flags as \
arguments (snake_case), read-only unless --allow-writes. Tools that change things take \
`dry_run: true` and return the plan. Results are the command's JSON as structuredContent \
(lists as {value: [...]}, a page with its continuationToken); errors are tool results \
carrying the error map. Sign-in, settings and local Fabric's administration are not tools, \
and neither is anything that returns a secret. No tool argument names a local file unless \
--files DIR names folders to work in (paths stay under them; nothing existing is replaced \
without `overwrite: true` and --allow-writes), and the judge that grades evaluations is the \
server's (--llm-endpoint, --llm-model, --llm-key or FABSH_LLM_*), never a tool's argument; deploy tools read an environment variable for $ENV:NAME only when \
--deploy-env-vars names it. With --local the tools act on local Fabric, \
started in this process. Over stdio, stdout carries the protocol and stderr the notes; with \
--http the URL and a bearer token are printed first, and the server stops on Ctrl-C.",
    args: &[
        HTTP,
        ALLOW_REMOTE,
        ALLOW_ORIGIN,
        ALLOW_WRITES,
        ALLOW_DESTRUCTIVE,
        WORKSPACES,
        AGENTS,
        TOOLS,
        FILES,
        DEPLOY_ENV_VARS,
        LLM_ENDPOINT,
        LLM_KEY,
        LLM_MODEL,
        LLM_API_VERSION,
        CRITIC_PROMPT_FILE,
    ],
    traits: Traits::READ.unscripted(),
    columns: &[],
    examples: &[
        Example {
            command: "mcp serve",
            about: "read-only tools over stdio, for an assistant that starts fabsh itself",
        },
        Example {
            command: "--local mcp serve --allow-writes",
            about: "try it on local Fabric, with tools that create and update",
        },
        Example {
            command: "mcp serve --http 127.0.0.1:0 --allow-writes -w Demo",
            about: "over HTTP on a free port, confined to the Demo workspace",
        },
    ],
    handler: Handler::Interactive(at_terminal::<Serve>),
};

typed_args! {
    /// `mcp serve`.
    struct Serve {
        http: Option<String> = HTTP,
        allow_remote: bool = ALLOW_REMOTE,
        allow_origins: Vec<String> = ALLOW_ORIGIN,
        allow_writes: bool = ALLOW_WRITES,
        allow_destructive: bool = ALLOW_DESTRUCTIVE,
        workspaces: Option<Vec<String>> = WORKSPACES,
        agents: bool = AGENTS,
        tools: Vec<String> = TOOLS,
        files: Vec<String> = FILES,
        deploy_env_vars: Vec<String> = DEPLOY_ENV_VARS,
        judge: JudgeFlags,
        critic_prompt_file: Option<FileArg> = CRITIC_PROMPT_FILE,
    }
}

impl TerminalCommand for Serve {
    fn run(self, terminal: &Terminal<'_>) -> Result<ExitCode> {
        serve(terminal, self)
    }
}

fn serve(terminal: &Terminal<'_>, args: Serve) -> Result<ExitCode> {
    let policy = Policy {
        writes: args.allow_writes || args.allow_destructive,
        destructive: args.allow_destructive,
    };
    let http: Option<SocketAddr> = args
        .http
        .as_deref()
        .map(|addr| {
            addr.parse().map_err(|err| {
                Error::usage(format!("--http {addr:?}: {err}"))
                    .with_hint("give an address such as 127.0.0.1:0")
            })
        })
        .transpose()?;
    if args.allow_remote && http.is_none() {
        return Err(Error::usage("--allow-remote needs --http"));
    }
    let bridge = terminal.bridge;
    // No spinners: stdout may be the protocol, and progress goes to the client instead.
    let service = crate::connect::connect(terminal.settings, bridge.clone(), Progress::hidden())?;
    let offline = crate::connect::offline(terminal.settings, bridge.clone())?;
    let selection = args.tools.clone();
    if let Some(unknown) = selection.iter().find(|name| {
        !crate::commands::REGISTRY
            .all()
            .any(|spec| crate::mcp::selected(std::slice::from_ref(*name), spec))
    }) {
        let groups = crate::mcp::tool_groups(crate::commands::REGISTRY);
        if let Some(near) = fabsh_model::edit_distance::closest(unknown, groups.iter().copied()) {
            return Err(Error::usage(format!(
                "--tools {unknown:?} names no group, command or tool"
            ))
            .with_hint(format!("did you mean {near}?")));
        }
        return Err(Error::usage(format!(
            "--tools {unknown:?} names no group, command or tool"
        ))
        .with_hint(format!(
            "give a group ({}), a command such as data-agent.query, or a tool name",
            crate::mcp::tool_groups(crate::commands::REGISTRY).join(", ")
        )));
    }
    if args.agents && args.workspaces.is_none() {
        return Err(Error::usage(
            "--agents needs --workspace: agent tools are offered only inside a confinement",
        )
        .with_hint("name the workspaces whose published agents to offer, e.g. --agents -w Demo"));
    }
    let files = FileRoots::new(&args.files)?;
    let deploy_env_vars = args.deploy_env_vars.clone();
    if let Some(bad) = deploy_env_vars
        .iter()
        .find(|name| !fabsh_deploy::env_vars::is_name(name))
    {
        return Err(Error::usage(format!(
            "--deploy-env-vars {bad:?} is not an environment variable's name"
        )));
    }
    let judge = judge(&args)?;
    let confinement =
        bridge.block_on(Confinement::resolve(&service, args.workspaces.as_deref()))?;
    let agents = if args.agents {
        bridge.block_on(crate::mcp::published_agents(&service, &confinement))?
    } else {
        Vec::new()
    };
    let setup = Setup {
        confinement,
        files,
        judge,
        deploy_env_vars,
        selection,
        agents,
    };
    let handler = FabshMcp(Arc::new(Shared::new(service, offline, policy, setup)));
    bridge.cancel_on_ctrl_c();
    let served = match http {
        Some(addr) => {
            let listening = bridge.block_on(http::bind(
                handler,
                addr,
                args.allow_remote,
                args.allow_origins.clone(),
            ))?;
            terminal.printer.text(&format!(
                "FABSH_MCP_URL={}\nFABSH_MCP_TOKEN={}\n",
                listening.url, listening.token
            ))?;
            terminal
                .printer
                .note("the MCP server is running; Ctrl-C stops it");
            bridge.block_on(listening.serve())
        }
        None => bridge.block_on(async move {
            let running = handler
                .serve(crate::mcp::OneCallPerId::new(
                    rmcp::transport::IntoTransport::into_transport(rmcp::transport::stdio()),
                ))
                .await
                .map_err(|err| Error::runtime("the MCP session did not start").with_cause(err))?;
            running
                .waiting()
                .await
                .map(|_| ())
                .map_err(|err| Error::runtime("the MCP session failed").with_cause(err))
        }),
    };
    match served {
        Err(err) if err.kind == ErrorKind::Cancelled => Ok(ExitCode::SUCCESS),
        other => other.map(|()| ExitCode::SUCCESS),
    }
}

/// The judge the server was started with (its flags, or `FABSH_LLM_*`), checked now so a
/// mistake shows at start and not in the first call; empty without one.
fn judge(args: &Serve) -> Result<Vec<(&'static str, ArgValue)>> {
    args.judge.config()?;
    let mut judge = args.judge.given();
    if let Some(file) = &args.critic_prompt_file {
        let prompt = String::from_utf8(file.bytes.to_vec()).map_err(|_| {
            Error::usage(format!(
                "--critic-prompt-file: {} is not UTF-8 text",
                file.path.display()
            ))
        })?;
        if !args.judge.has_endpoint() {
            return Err(Error::usage(
                "--critic-prompt-file needs a judge: give --llm-endpoint and --llm-model",
            ));
        }
        judge.push(("critic-prompt", ArgValue::Str(prompt)));
    }
    Ok(judge)
}
