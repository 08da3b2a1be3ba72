//! `fabsh local reset`: start local Fabric over. Its whole state (workspaces, items, agents,
//! principals and signing keys) is one SQLite store in the data dir; removing it makes the
//! next start seed the demo data afresh.

use super::local::store_dir;
use super::serve::{SERVE_FILE, running_on};
use fabsh_client::commands::typed::{Command, handler, typed_args};
use fabsh_client::commands::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Needs, Traits,
};
use fabsh_client::context::Ctx;
use fabsh_client::error::Error;
use fabsh_client::reply::Reply;
use fabsh_local::DB_FILE;
use std::path::Path;

const DATA_DIR: ArgSpec = ArgSpec::opt(
    "data-dir",
    ArgKind::Str,
    "The data dir to reset (default: the user data dir, where `--local` keeps its state)",
);

pub(super) const RESET: CommandSpec = CommandSpec {
    group: "local",
    name: "reset",
    summary: "Delete local Fabric's state so the next start begins from the demo data",
    about: "Removes the store (workspaces, items, agents, principals, signing keys) from the data dir: by default the user data dir (on Linux ~/.local/share/fabsh/local), which `fabsh --local` uses. Refused while a server runs on it: stop that first with `local stop`. Asks first on a terminal; elsewhere it needs --yes.",
    args: &[DATA_DIR],
    traits: Traits::DESTRUCTIVE.needs(Needs::LocalFabric).void(),
    columns: &[],
    examples: &[Example {
        command: "local reset --yes",
        about: "start `fabsh --local` over from the demo data",
    }],
    handler: Handler::Data(handler::<Reset>),
};

/// The files of a store: the database and SQLite's journal files beside it.
fn store_files(dir: &Path) -> Vec<std::path::PathBuf> {
    ["", "-wal", "-shm", "-journal"]
        .iter()
        .map(|suffix| dir.join(format!("{DB_FILE}{suffix}")))
        .chain([dir.join(SERVE_FILE)])
        .collect()
}

typed_args! {
    /// `local reset`.
    struct Reset {
        data_dir: Option<String> = DATA_DIR,
    }
}

impl Command for Reset {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        reset(ctx, self)
    }
}

fn reset(_ctx: Ctx, args: Reset) -> HandlerFuture {
    Box::pin(async move {
        let dir = store_dir(args.data_dir.as_deref());
        if let Some(origin) = running_on(&dir).await {
            return Err(Error::usage(format!(
                "local Fabric at {origin} is running on {}",
                dir.display()
            ))
            .with_hint(format!(
                "stop it first: fabsh local stop --data-dir {}",
                dir.display()
            )));
        }
        let present: Vec<_> = store_files(&dir)
            .into_iter()
            .filter(|file| file.exists())
            .collect();
        if present.is_empty() {
            return Ok(
                Reply::empty().with_note(format!("no local Fabric state in {}", dir.display()))
            );
        }
        for file in &present {
            std::fs::remove_file(file).map_err(|err| {
                Error::runtime(format!("cannot remove {}", file.display())).with_cause(err)
            })?;
        }
        Ok(Reply::empty().with_note(format!(
            "local Fabric's state in {} is gone; the next start seeds the demo data",
            dir.display()
        )))
    })
}
