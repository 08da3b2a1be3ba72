//! The registry this binary serves: the client's groups, then the commands of the front ends
//! themselves (local Fabric, the reference, completions, scripts, the REPL). The clap tree,
//! the REPL's command lines and completion, the Rhai bindings and `fabsh docs` are all
//! generated from [`REGISTRY`].

pub mod local;
mod mcp;
mod reset;
mod serve;
pub(crate) mod serve_record;

use crate::script::{Host, runner};
use fabsh_client::commands::typed::{Command, TerminalCommand, at_terminal, handler, typed_args};
use fabsh_client::commands::{
    self as client, ArgKind, ArgSpec, Args, CommandSpec, Example, Group, Handler, HandlerFuture,
    Needs, Registry, Terminal, Traits,
};
use fabsh_client::context::Ctx;
use fabsh_client::error::{Error, Result};
use fabsh_client::output::Printer;
use fabsh_client::reply::Reply;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

/// Every command of fabsh, in the order help lists the groups.
pub static REGISTRY: Registry = Registry { groups: GROUPS };

static GROUPS: &[Group] = &[
    client::WORKSPACE,
    client::ITEM,
    client::FOLDER,
    client::TAG,
    client::DATA_AGENT,
    client::SQL,
    client::ONELAKE,
    client::LAKEHOUSE,
    client::DEPLOY,
    client::JOB,
    client::SCHEDULE,
    client::API,
    client::AUTH,
    client::CONFIG,
    client::CACHE,
    local::LOCAL,
    mcp::MCP,
    DOCS,
    COMPLETIONS,
    RUN,
    REPL,
];

/// Shells `completions` writes for.
pub const SHELLS: &[&str] = &["bash", "zsh", "fish", "powershell", "elvish"];

const DOCS_COMMAND: ArgSpec = ArgSpec::trailing(
    "command",
    "A group, or a group and a command (`item create`)",
);
const SHELL: ArgSpec = ArgSpec::positional(
    "shell",
    ArgKind::Enum(SHELLS),
    "bash, zsh, fish, powershell or elvish",
);
const SCRIPT_FILE: ArgSpec = ArgSpec::positional("file", ArgKind::Str, "The script (.rhai)");
const SCRIPT_ARGS: ArgSpec = ArgSpec::trailing("args", "Arguments for the script, after `--`");

/// Made for a shell's command line: neither a script function nor anything a service sees.
const REFERENCE: Traits = Traits::READ.needs(Needs::Nothing).unscripted();

const DOCS: Group = Group {
    name: "docs",
    summary: "Print the command reference as markdown",
    commands: &[CommandSpec {
        group: "docs",
        name: "",
        summary: "Print the command reference as markdown",
        about: "Every command with its flags and examples, the global flags, the script \
functions and the stdlib, generated from what this binary registers. Given a group, or a \
group and a command, only their reference.",
        args: &[DOCS_COMMAND],
        traits: REFERENCE,
        columns: &[],
        examples: &[
            Example {
                command: "docs",
                about: "the whole reference",
            },
            Example {
                command: "docs item create",
                about: "one command's flags and examples",
            },
        ],
        handler: Handler::Data(handler::<Docs>),
    }],
};

const COMPLETIONS: Group = Group {
    name: "completions",
    summary: "Print shell completions",
    commands: &[CommandSpec {
        group: "completions",
        name: "",
        summary: "Print shell completions",
        about: "",
        args: &[SHELL],
        traits: REFERENCE,
        columns: &[],
        examples: &[Example {
            command: "completions bash",
            about: "save it as ~/.local/share/bash-completion/completions/fabsh",
        }],
        handler: Handler::Data(handler::<Completions>),
    }],
};

const RUN: Group = Group {
    name: "run",
    summary: "Run a Rhai script; the words after `--` are its ARGS array",
    commands: &[CommandSpec {
        group: "run",
        name: "",
        summary: "Run a Rhai script; the words after `--` are its ARGS array",
        about: "",
        args: &[SCRIPT_FILE, SCRIPT_ARGS],
        traits: Traits::READ,
        columns: &[],
        examples: &[Example {
            command: "--local run scripts/tour.rhai",
            about: "the tour, on local Fabric",
        }],
        handler: Handler::Interactive(at_terminal::<RunScript>),
    }],
};

const REPL: Group = Group {
    name: "repl",
    summary: "Start the REPL (the same as `fabsh` with no command)",
    commands: &[CommandSpec {
        group: "repl",
        name: "",
        summary: "Start the REPL (the same as `fabsh` with no command)",
        about: "",
        args: &[],
        traits: Traits::READ,
        columns: &[],
        examples: &[Example {
            command: "--local repl",
            about: "Rhai code and command lines against local Fabric; :help says more",
        }],
        handler: Handler::Interactive(repl),
    }],
};

typed_args! {
    /// `docs`.
    struct Docs {
        words: Vec<String> = DOCS_COMMAND,
    }
}

impl Command for Docs {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        if !self.words.is_empty() {
            return Box::pin(async move { Ok(Reply::text(crate::cli::docs::part(&self.words)?)) });
        }
        // The engine (not Send) is built and dropped before the future starts.
        let text = reference(&ctx);
        Box::pin(async move { Ok(Reply::text(text?)) })
    }
}

/// The reference for what this binary registers, natives read off a script engine.
fn reference(ctx: &Ctx) -> Result<String> {
    let host = Host::connected(ctx.clone(), Printer::plain());
    let engine = crate::script::engine(&host)?;
    crate::cli::docs::markdown(&engine, ctx.stdlib_dir().as_deref())
}

typed_args! {
    /// `completions`.
    struct Completions {
        shell: String = SHELL,
    }
}

impl Command for Completions {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        completions(ctx, self)
    }
}

fn completions(_ctx: Ctx, args: Completions) -> HandlerFuture {
    Box::pin(async move {
        let name = args.shell.as_str();
        let shell: clap_complete::Shell = name
            .parse()
            .map_err(|_| Error::usage(format!("unknown shell {name}")))?;
        // On a terminal the script would only scroll by: say where it goes instead.
        if std::io::stdout().is_terminal() {
            return Ok(Reply::text(install_hint(name)));
        }
        if let Some(script) = dynamic_script(name) {
            return Ok(Reply::text(script.to_string()));
        }
        let mut buffer = Vec::new();
        clap_complete::generate(shell, &mut crate::cli::tree::build(), "fabsh", &mut buffer);
        Ok(Reply::text(String::from_utf8_lossy(&buffer).into_owned()))
    })
}

/// The script for a shell whose completion asks `fabsh __complete` on each Tab, so it offers
/// workspace and item names as well as commands and flags; the other shells get clap's
/// static script (commands and flags only).
fn dynamic_script(shell: &str) -> Option<&'static str> {
    match shell {
        "bash" => Some(include_str!("shell_scripts/fabsh.bash")),
        "zsh" => Some(include_str!("shell_scripts/fabsh.zsh")),
        "fish" => Some(include_str!("shell_scripts/fabsh.fish")),
        _ => None,
    }
}

/// How to install the completions of `shell`, for a person at a terminal.
fn install_hint(shell: &str) -> String {
    let step = match shell {
        "bash" => {
            "mkdir -p ~/.local/share/bash-completion/completions\nfabsh completions bash > ~/.local/share/bash-completion/completions/fabsh"
        }
        "zsh" => {
            "mkdir -p ~/.zfunc && fabsh completions zsh > ~/.zfunc/_fabsh\n# and in ~/.zshrc, before compinit: fpath=(~/.zfunc $fpath)"
        }
        "fish" => "fabsh completions fish > ~/.config/fish/completions/fabsh.fish",
        "powershell" => "fabsh completions powershell >> $PROFILE",
        _ => "fabsh completions elvish >> ~/.config/elvish/rc.elv",
    };
    format!(
        "# The {shell} completions are a script; to install them, run:\n{step}\n# then open a new shell.\n"
    )
}

typed_args! {
    /// `run`.
    struct RunScript {
        file: String = SCRIPT_FILE,
        args: Vec<String> = SCRIPT_ARGS,
    }
}

impl TerminalCommand for RunScript {
    fn run(self, terminal: &Terminal<'_>) -> Result<ExitCode> {
        terminal.bridge.cancel_on_ctrl_c();
        let host = Host::lazy(
            terminal.settings.clone(),
            terminal.bridge.clone(),
            terminal.printer.clone(),
        );
        Ok(runner::run_file(
            &host,
            &PathBuf::from(self.file),
            self.args,
        ))
    }
}

fn repl(terminal: &Terminal<'_>, _args: Args) -> Result<ExitCode> {
    crate::repl::run(terminal.settings, terminal.bridge, terminal.printer)
}
