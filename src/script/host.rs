//! What script bindings run against: the service context (connected on first use, so scripts
//! that never call a command need no credentials and start no server), the printer behind
//! `print`, and where stdlib modules come from.

use fabsh_api::config::Settings;
use fabsh_client::bridge::Bridge;
use fabsh_client::commands::common::configured_default;
use fabsh_client::commands::{ArgSpec, CommandSpec, Needs};
use fabsh_client::context::Ctx;
use fabsh_client::error::Result;
use fabsh_client::output::Printer;
use std::cell::{Cell, OnceCell};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// The scripting host of one engine. Cheap to clone; clones share the connection.
#[derive(Clone)]
pub struct Host(Rc<Inner>);

struct Inner {
    bridge: Bridge,
    printer: Printer,
    stdlib_dir: Option<PathBuf>,
    ctx: OnceCell<Ctx>,
    /// The context of commands that need no service (`traits.offline`).
    offline: OnceCell<Ctx>,
    /// How to connect on first use; `None` when the context was given at the start.
    settings: Option<Settings>,
    /// The declared table columns of the last command a script ran (see `columns_for`).
    last_columns: Cell<&'static [&'static str]>,
}

impl Host {
    /// A host that connects to the configured backend the first time a command runs (with
    /// `--local`, local Fabric starts then, once for the whole session).
    pub fn lazy(settings: Settings, bridge: Bridge, printer: Printer) -> Host {
        Host(Rc::new(Inner {
            bridge,
            printer,
            stdlib_dir: settings.stdlib_dir(),
            ctx: OnceCell::new(),
            offline: OnceCell::new(),
            settings: Some(settings),
            last_columns: Cell::new(&[]),
        }))
    }

    /// A host on an already connected context (commands that run stdlib functions).
    pub fn connected(ctx: Ctx, printer: Printer) -> Host {
        let cell = OnceCell::new();
        let bridge = ctx.bridge().clone();
        let stdlib_dir = ctx.stdlib_dir();
        // A fresh cell is empty, so this set cannot fail.
        let _ = cell.set(ctx);
        Host(Rc::new(Inner {
            bridge,
            printer,
            stdlib_dir,
            ctx: cell,
            offline: OnceCell::new(),
            settings: None,
            last_columns: Cell::new(&[]),
        }))
    }

    /// The context, connecting now if this is the first command.
    pub fn ctx(&self) -> Result<Ctx> {
        if let Some(ctx) = self.0.ctx.get() {
            return Ok(ctx.clone());
        }
        // A host made without settings (a script outside any command line) uses the built-in ones.
        let settings = self.0.settings.clone().unwrap_or_default();
        let ctx =
            crate::connect::connect(&settings, self.0.bridge.clone(), self.0.printer.progress())?;
        Ok(self.0.ctx.get_or_init(|| ctx).clone())
    }

    /// The settings the script runs with: its context's, else the ones it was started with.
    pub fn settings(&self) -> Settings {
        match self.connected_ctx() {
            Some(ctx) => ctx.settings().clone(),
            // A host made without settings (a script outside any command line) uses the built-in
            // ones.
            None => self.0.settings.clone().unwrap_or_default(),
        }
    }

    /// The context, when one is connected already (never connects).
    pub fn connected_ctx(&self) -> Option<Ctx> {
        self.0.ctx.get().cloned()
    }

    /// The context `spec` runs on: the connected one when it needs the service, else one
    /// that sends nothing (made once).
    pub fn ctx_for(&self, spec: &CommandSpec) -> Result<Ctx> {
        if spec.traits.needs == Needs::Service {
            return self.ctx();
        }
        if let Some(ctx) = self.0.offline.get() {
            return Ok(ctx.clone());
        }
        // A host made without settings (a script outside any command line) uses the built-in ones.
        let settings = self.0.settings.clone().unwrap_or_default();
        let ctx = crate::connect::offline(&settings, self.0.bridge.clone())?;
        Ok(self.0.offline.get_or_init(|| ctx).clone())
    }

    /// The configured value of a flag a script left out (the default workspace).
    pub fn flag_default(&self, arg: &ArgSpec) -> Option<String> {
        configured_default(self.0.settings.as_ref()?, arg)
    }

    /// Remembers the table columns of the command a script just ran.
    pub fn ran(&self, spec: &'static CommandSpec) {
        self.0.last_columns.set(spec.columns);
    }

    /// The columns a script's value is shown with: those the last command declared, when
    /// the value is still a list of its rows (every declared key there, as after `filter`),
    /// so a table reads as the command's does rather than in alphabetical key order.
    pub fn columns_for(&self, value: &rhai::Dynamic) -> &'static [&'static str] {
        let columns = self.0.last_columns.get();
        let first_row = value.read_lock::<rhai::Array>().and_then(|rows| {
            rows.first().and_then(|row| {
                row.read_lock::<rhai::Map>().map(|m| {
                    m.keys()
                        .map(std::string::ToString::to_string)
                        .collect::<Vec<_>>()
                })
            })
        });
        match first_row {
            Some(keys)
                if !columns.is_empty()
                    && columns.iter().all(|column| {
                        let top = column.split('.').next().unwrap_or(column);
                        keys.iter().any(|key| key == top)
                    }) =>
            {
                columns
            }
            _ => &[],
        }
    }

    /// The bridge that commands and `sleep` wait through (Ctrl-C cancels it).
    pub fn bridge(&self) -> &Bridge {
        &self.0.bridge
    }

    /// Where long work run from a script reports progress: the connected context's reports
    /// (an MCP call's, when a tool runs a stdlib function), else the terminal's.
    pub fn progress(&self) -> fabsh_client::output::Progress {
        match self.connected_ctx() {
            Some(ctx) => ctx.progress().clone(),
            None => self.0.printer.progress(),
        }
    }

    /// The printer behind `print` and `debug`.
    pub fn printer(&self) -> &Printer {
        &self.0.printer
    }

    /// The directory whose `*.rhai` files replace or add to the built-in stdlib.
    pub fn stdlib_dir(&self) -> Option<&Path> {
        self.0.stdlib_dir.as_deref()
    }
}
