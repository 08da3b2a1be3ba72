//! Every example in every command's help runs against local Fabric, exactly as written and
//! as a user would paste it: `sh -c "fabsh <example>"`, with the test's fabsh first on PATH,
//! in a work directory holding the files the examples name, with FABSH_ENDPOINT and
//! FABSH_TOKEN of a running `local serve` and the shell variables the examples use. Each
//! example starts from its own copy of the same prepared world (see `world`), so none
//! depends on another or on their order.

mod files;
mod shell;
mod world;

use crate::judge_stub::Judge;
use crate::support::Server;
use fabsh::commands::REGISTRY;
use fabsh_client::commands::{CommandSpec, Example};
use shell::{Outcome, Shell};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use world::World;

/// Examples run at once: each has a server of its own, and the machine has few cores.
const WORKERS: usize = 4;

/// How an example is run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Way {
    /// To its end, as it is.
    Plain,
    /// `local serve` runs until Ctrl-C: stopped with one once it has printed its endpoint.
    Server,
    /// `local serve --detach` returns and leaves a server running: stopped afterwards with
    /// `fabsh local stop` on the same data dir, which must succeed too.
    Detached,
    /// `local stop` needs a server on its data dir: one is started first with
    /// `fabsh local serve --detach`.
    StopsServer,
    /// `auth login` by device code waits for the code to be entered: approved with
    /// `fabsh local approve`, as the sign-in's prompt says.
    DeviceCode,
    /// Invitations are the recipient's business, and local Fabric, like Fabric, refuses to
    /// accept a share in the provider's own tenant: these run with the token of the partner
    /// app the world's share was made for, instead of the admin's.
    AsRecipient,
    /// `mcp serve` over stdio: a client's opening (initialize, then tools/list) on stdin;
    /// the session ends, exit 0, when stdin does.
    McpSession,
    /// Not run, for the reason given.
    NotRun(&'static str),
}

fn way(spec: &CommandSpec, example: &Example) -> Way {
    let other_method = ["--service-principal", "--managed-identity", "--azure-cli"]
        .iter()
        .any(|flag| example.command.contains(flag));
    match spec.path().as_str() {
        // Never started here: the REPL is a session for a person at a terminal. Fed no
        // input it would end at once, which proves nothing; the REPL tests drive it.
        "repl" => Way::NotRun("the REPL is interactive; tests/it/script_repl.rs drives it"),
        "local serve" if example.command.contains("--detach") => Way::Detached,
        "local serve" => Way::Server,
        "mcp serve" if example.command.contains("--http") => Way::Server,
        "mcp serve" => Way::McpSession,
        "local stop" => Way::StopsServer,
        "auth login" if !other_method => Way::DeviceCode,
        "item get-invitation" | "item accept-invitation" => Way::AsRecipient,
        _ => Way::Plain,
    }
}

/// Runs one example on a fresh copy of the world; `Err` says how it failed.
fn run_example(world: &World, spec: &CommandSpec, example: &Example) -> Result<(), String> {
    let way = way(spec, example);
    if let Way::NotRun(why) = way {
        eprintln!("not run: fabsh {} ({why})", example.command);
        return Ok(());
    }
    let home = world.copy();
    let root = home.dir.path().to_path_buf();
    let server = Server::on_data_dir(home, world::data_dir(&root), &[]);
    let token = match way {
        Way::AsRecipient => world.partner_token.clone(),
        _ => server.token.clone(),
    };
    let mut env = vec![
        ("FABSH_ENDPOINT".to_string(), server.endpoint.clone()),
        ("FABSH_TOKEN".to_string(), token),
        (
            "FABSH_STORAGE_TOKEN".to_string(),
            server.storage_token.clone(),
        ),
    ];
    env.extend(world.vars.iter().cloned());
    let shell = Shell {
        root: root.clone(),
        work: world::work_dir(&root),
        env,
    };
    let outcome = match way {
        Way::Server => shell.run_server(example.command),
        Way::Detached => shell.run_then(example.command, &stop_line(example.command)),
        Way::StopsServer => shell.run_after(&detach_line(example.command), example.command),
        Way::DeviceCode => shell.run_device_code_login(example.command),
        Way::McpSession => {
            let outcome = shell.run_with_input(example.command, MCP_OPENING);
            if outcome.code == Some(0) && !outcome.stdout.contains("\"tools\":[") {
                let why = "no tools/list answer".to_string();
                return Err(report(
                    spec,
                    example,
                    &shell::Outcome::broken(why, outcome.stdout, outcome.stderr),
                ));
            }
            outcome
        }
        _ => shell.run(example.command),
    };
    if outcome.code == Some(0) {
        Ok(())
    } else {
        Err(report(spec, example, &outcome))
    }
}

/// What an MCP client sends first: initialize, initialized, and a tools/list.
const MCP_OPENING: &str = concat!(
    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"help-examples","version":"0"}}}"#,
    "\n",
    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    "\n",
    r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    "\n",
);

/// `local stop` of the data dir a `local serve` line names.
fn stop_line(serve: &str) -> String {
    format!("local stop --data-dir {}", data_dir_of(serve))
}

/// A detached `local serve` on the data dir a `local stop` line names.
fn detach_line(stop: &str) -> String {
    format!("local serve --detach --data-dir {}", data_dir_of(stop))
}

/// The `--data-dir` a line gives (the examples always give one, so the world is not used).
fn data_dir_of(line: &str) -> &str {
    let mut words = line.split_whitespace();
    words.find(|word| *word == "--data-dir");
    words.next().expect("the example names its --data-dir")
}

fn report(spec: &CommandSpec, example: &Example, outcome: &Outcome) -> String {
    let code = outcome
        .code
        .map_or_else(|| "a signal".to_string(), |code| code.to_string());
    format!(
        "example of `{}`: fabsh {}\nended with {code}\n--- stdout\n{}\n--- stderr\n{}",
        spec.path(),
        example.command,
        outcome.stdout.trim_end(),
        outcome.stderr.trim_end()
    )
}

#[test]
fn every_example_in_the_help_runs_against_local_fabric() {
    let judge = Judge::start();
    let world = World::build(&judge);
    let examples: Vec<(&CommandSpec, &Example)> = REGISTRY
        .all()
        .flat_map(|spec| spec.examples.iter().map(move |example| (spec, example)))
        .collect();
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..WORKERS {
            scope.spawn(|| {
                while let Some((spec, example)) = examples.get(next.fetch_add(1, Ordering::SeqCst))
                {
                    if let Err(failure) = run_example(&world, spec, example) {
                        failures.lock().expect("failures").push(failure);
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().expect("failures");
    assert!(
        failures.is_empty(),
        "{} of {} examples failed:\n\n{}",
        failures.len(),
        examples.len(),
        failures.join("\n\n")
    );
}

#[test]
fn only_the_repl_example_is_not_run() {
    // A skipped example must say why; this keeps the list of them from growing unnoticed.
    let not_run: Vec<String> = REGISTRY
        .all()
        .flat_map(|spec| spec.examples.iter().map(move |example| (spec, example)))
        .filter(|(spec, example)| matches!(way(spec, example), Way::NotRun(_)))
        .map(|(_, example)| example.command.to_string())
        .collect();
    assert_eq!(not_run, ["--local repl"]);
}
