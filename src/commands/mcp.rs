//! `fabsh mcp serve`: the registry as MCP tools for AI assistants, over stdio or HTTP.

use crate::mcp::{Confinement, FabshMcp, Policy, Shared, http};
use fabsh_client::commands::{
    ArgKind, ArgSpec, Args, CommandSpec, Example, Group, Handler, Terminal, Traits,
};
use fabsh_client::error::{Error, ErrorKind, Result};
use fabsh_client::output::Progress;
use rmcp::ServiceExt;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

/// `fabsh mcp ...`.
pub const MCP: Group = Group {
    name: "mcp",
    summary: "Serve fabsh's commands to AI assistants over the Model Context Protocol",
    commands: &[SERVE],
};

const SERVE: CommandSpec = CommandSpec {
    group: "mcp",
    name: "serve",
    summary: "Serve fabsh's commands as MCP tools (stdio, or HTTP with --http)",
    about: "One tool per command (`item_list`, `data_agent_query`, ...), with its flags as \
arguments (snake_case), read-only unless --allow-writes. Tools that change things take \
`dry_run: true` and return the plan. Results are the command's JSON as structuredContent \
(lists as {value: [...]}, a page with its continuationToken); errors are tool results \
carrying the error map. Sign-in, settings and local Fabric's administration are not tools, \
and neither is anything that returns a secret. With --local the tools act on local Fabric, \
started in this process. Over stdio, stdout carries the protocol and stderr the notes; with \
--http the URL and a bearer token are printed first, and the server stops on Ctrl-C.",
    args: &[
        ArgSpec::opt(
            "http",
            ArgKind::Str,
            "Serve streamable HTTP on this address (127.0.0.1:0 picks a free port) instead of stdio",
        )
        .value_name("ADDR"),
        ArgSpec::opt(
            "allow-remote",
            ArgKind::Bool,
            "Let --http listen on an address other machines can reach",
        ),
        ArgSpec::opt(
            "allow-writes",
            ArgKind::Bool,
            "Offer the tools that change things (create, update, publish, ...)",
        ),
        ArgSpec::opt(
            "allow-destructive",
            ArgKind::Bool,
            "Offer the tools that lose data too (delete, ...); implies --allow-writes",
        ),
        ArgSpec::opt(
            "workspace",
            ArgKind::List,
            "Act only in this workspace (id or name; repeat or comma-separate for several); with one, calls that leave out `workspace` act there",
        )
        .short('w')
        .value_name("WORKSPACE"),
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
    handler: Handler::Interactive(serve),
};

fn serve(terminal: &Terminal<'_>, args: Args) -> Result<ExitCode> {
    let policy = Policy {
        writes: args.flag("allow-writes") || args.flag("allow-destructive"),
        destructive: args.flag("allow-destructive"),
    };
    let http: Option<SocketAddr> = args
        .opt_str("http")
        .map(|addr| {
            addr.parse().map_err(|err| {
                Error::usage(format!("--http {addr:?}: {err}"))
                    .with_hint("give an address such as 127.0.0.1:0")
            })
        })
        .transpose()?;
    if args.flag("allow-remote") && http.is_none() {
        return Err(Error::usage("--allow-remote needs --http"));
    }
    let bridge = terminal.bridge;
    // No spinners: stdout may be the protocol, and progress goes to the client instead.
    let service = crate::connect::connect(terminal.settings, bridge.clone(), Progress::hidden())?;
    let offline = crate::connect::offline(terminal.settings, bridge.clone())?;
    let workspaces = args.list("workspace").to_vec();
    let confinement = bridge.block_on(Confinement::resolve(&service, &workspaces))?;
    let handler = FabshMcp(Arc::new(Shared::new(service, offline, policy, confinement)));
    bridge.cancel_on_ctrl_c();
    let served = match http {
        Some(addr) => {
            let listening =
                bridge.block_on(http::bind(handler, addr, args.flag("allow-remote")))?;
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
                .serve(rmcp::transport::stdio())
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
