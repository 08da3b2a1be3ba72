//! Typed arguments: a command's flags as a struct whose every field is taken from checked
//! [`Args`] by the field's own [`ArgSpec`], so a handler never names a flag by a string and
//! the declaration the CLI, scripts, the REPL, MCP and the docs are generated from is the only
//! place a flag's name, kind, range and default are written.
//!
//! [`typed_args!`] declares the struct beside its specs:
//!
//! ```ignore
//! typed_args! {
//!     /// `schedule show`.
//!     pub(super) struct Show {
//!         target: ItemTarget,
//!         job_type: Option<String> = JOB_TYPE,
//!         schedule: String = SCHEDULE_ID,
//!     }
//! }
//! ```
//!
//! A field with `= SPEC` reads that flag through [`FromArg`], by the Rust type the field
//! declares: `String` for a required flag, `Option<_>` for an optional one, `bool` for a
//! switch, `Vec<String>` for a list. A field without one is a group of flags read together
//! ([`FromArgs`], e.g. [`ItemTarget`], [`Paging`]).

use super::args::{Args, FileArg};
use super::common::{ALL, CONTINUATION_TOKEN, ITEM, LIMIT, WORKSPACE};
use super::spec::{ArgSpec, HandlerFuture, Terminal};
use crate::context::Ctx;
use crate::error::{Error, ErrorKind, Result};
use fabsh_model::Secret;
use serde_json::Value;
use std::process::ExitCode;

/// A value read from checked flags by its declaration.
pub trait FromArg: Sized {
    /// The value of `spec`'s flag, once [`declared`] has said the command has that flag.
    fn read(args: &Args, spec: &ArgSpec) -> Result<Self>;

    fn from_arg(args: &Args, spec: &ArgSpec) -> Result<Self> {
        declared(args, spec)?;
        Self::read(args, spec)
    }
}

/// Refuses to read a flag the command does not declare: a struct field naming the wrong spec
/// would otherwise read as absent, and the flag the user gave would be ignored. It is the
/// registry's mistake, caught by any test that runs the command.
fn declared(args: &Args, spec: &ArgSpec) -> Result<()> {
    if args.declares(spec.long) {
        return Ok(());
    }
    Err(Error::new(
        ErrorKind::Runtime,
        format!(
            "this command reads --{} but does not declare it (a mistake in fabsh's registry)",
            spec.long
        ),
    ))
}

/// A group of flags read together into one value.
pub trait FromArgs: Sized {
    fn from_args(args: &Args) -> Result<Self>;
}

/// A required flag's text (the checks before made sure it is there).
impl FromArg for String {
    fn read(args: &Args, spec: &ArgSpec) -> Result<Self> {
        args.str(spec.long).map(String::from)
    }
}

impl FromArg for Option<String> {
    fn read(args: &Args, spec: &ArgSpec) -> Result<Self> {
        Ok(args.opt_str(spec.long).map(String::from))
    }
}

/// A switch: absent is false.
impl FromArg for bool {
    fn read(args: &Args, spec: &ArgSpec) -> Result<Self> {
        Ok(args.flag(spec.long))
    }
}

/// A boolean whose absence means something else than false (`--enabled` of an update).
impl FromArg for Option<bool> {
    fn read(args: &Args, spec: &ArgSpec) -> Result<Self> {
        Ok(args.opt_bool(spec.long))
    }
}

impl FromArg for Option<i64> {
    fn read(args: &Args, spec: &ArgSpec) -> Result<Self> {
        Ok(args.int(spec.long))
    }
}

/// A list: absent is empty.
impl FromArg for Vec<String> {
    fn read(args: &Args, spec: &ArgSpec) -> Result<Self> {
        Ok(args.list(spec.long).to_vec())
    }
}

impl FromArg for Option<Value> {
    fn read(args: &Args, spec: &ArgSpec) -> Result<Self> {
        Ok(args.json(spec.long).cloned())
    }
}

impl FromArg for Option<FileArg> {
    fn read(args: &Args, spec: &ArgSpec) -> Result<Self> {
        Ok(args.file(spec.long).cloned())
    }
}

impl FromArg for Option<Secret> {
    fn read(args: &Args, spec: &ArgSpec) -> Result<Self> {
        Ok(args.secret(spec.long).cloned())
    }
}

/// Declares a command's argument struct: each field is read by the spec after its `=`, or,
/// without one, as a group of flags ([`FromArgs`]). Exported, for the binary's own commands.
#[macro_export]
macro_rules! typed_args {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $( $(#[$field_meta:meta])* $field:ident : $ty:ty $(= $spec:expr)? ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis struct $name {
            $( $(#[$field_meta])* pub(crate) $field: $ty, )*
        }

        impl $crate::commands::typed::FromArgs for $name {
            fn from_args(args: &$crate::commands::args::Args) -> $crate::error::Result<Self> {
                Ok($name {
                    $( $field: $crate::commands::typed::typed_args!(@read args, $ty $(, $spec)?)?, )*
                })
            }
        }
    };
    (@read $args:ident, $ty:ty, $spec:expr) => {
        <$ty as $crate::commands::typed::FromArg>::from_arg($args, &$spec)
    };
    (@read $args:ident, $ty:ty) => {
        <$ty as $crate::commands::typed::FromArgs>::from_args($args)
    };
}
pub use crate::typed_args;

/// A command whose handler takes its typed arguments.
pub trait Command: FromArgs + Send + 'static {
    fn run(self, ctx: Ctx) -> HandlerFuture;
}

/// The registry's handler for a typed command: its arguments read, then the command run.
pub fn handler<C: Command>(ctx: Ctx, args: Args) -> HandlerFuture {
    match C::from_args(&args) {
        Ok(command) => command.run(ctx),
        Err(err) => Box::pin(async move { Err(err) }),
    }
}

/// A command that takes over the terminal (`repl`, `run`, `local serve`), with its typed
/// arguments.
pub trait TerminalCommand: FromArgs {
    fn run(self, terminal: &Terminal<'_>) -> Result<ExitCode>;
}

/// The registry's handler for a typed terminal command.
pub fn at_terminal<C: TerminalCommand>(terminal: &Terminal<'_>, args: Args) -> Result<ExitCode> {
    C::from_args(&args)?.run(terminal)
}

typed_args! {
    /// `-w` and `--id` (or the `WORKSPACE/ITEM` that stands for them): one item, by id or
    /// name, not yet resolved.
    pub(crate) struct ItemTarget {
        workspace: String = WORKSPACE,
        item: String = ITEM,
    }
}

impl ItemTarget {
    /// The workspace's and the item's ids.
    pub(crate) async fn resolve(&self, ctx: &Ctx) -> Result<(String, String)> {
        let workspace = ctx.workspace_id(&self.workspace).await?;
        let item = ctx.item_id(&workspace, &self.item, None).await?;
        Ok((workspace, item))
    }
}

typed_args! {
    /// What a paged list is asked for: one page (from a token), the first `limit` items, or
    /// every page.
    pub(crate) struct Paging {
        continuation_token: Option<String> = CONTINUATION_TOKEN,
        limit: Option<i64> = LIMIT,
        all: bool = ALL,
    }
}

/// A list whose absence means something else than empty (`deploy --types` replaces the
/// config's scope only when given, and a script may give it empty).
impl FromArg for Option<Vec<String>> {
    fn read(args: &Args, spec: &ArgSpec) -> Result<Self> {
        Ok(args.has(spec.long).then(|| args.list(spec.long).to_vec()))
    }
}

/// Whether the person at the terminal is to be asked before the deletions the command finds
/// ([`Args::asks_at_terminal`]): no flag, but how the command was called.
pub(crate) struct AsksAtTerminal(pub(crate) bool);

impl FromArgs for AsksAtTerminal {
    fn from_args(args: &Args) -> Result<Self> {
        Ok(AsksAtTerminal(args.asks_at_terminal()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::args::RawValue;
    use crate::commands::common::{NO_WAIT, effective_args};

    /// `schedule list Demo/Welcome --limit 3`, checked as every front end checks it.
    fn schedule_list() -> Args {
        let registry = crate::commands::Registry {
            groups: crate::commands::GROUPS,
        };
        let spec = registry.find("schedule", "list").expect("schedule list");
        let args = effective_args(spec);
        let raw = vec![
            (&WORKSPACE, RawValue::Text("Demo".into())),
            (&ITEM, RawValue::Text("Welcome".into())),
            (&LIMIT, RawValue::Int(3)),
        ];
        Args::check(spec, &args, raw).expect("checked")
    }

    typed_args! {
        struct Listing {
            target: ItemTarget,
            paging: Paging,
        }
    }

    typed_args! {
        /// Never built: reading it fails.
        #[allow(dead_code)]
        struct Misdeclared {
            no_wait: bool = NO_WAIT,
        }
    }

    #[test]
    fn fields_read_their_flags_by_their_specs() {
        let listing = Listing::from_args(&schedule_list()).expect("read");
        assert_eq!(listing.target.workspace, "Demo");
        assert_eq!(listing.target.item, "Welcome");
        assert_eq!(listing.paging.limit, Some(3));
        assert_eq!(listing.paging.continuation_token, None);
        assert!(!listing.paging.all);
    }

    #[test]
    fn a_field_for_a_flag_the_command_lacks_is_an_error_not_an_absent_value() {
        let Err(err) = Misdeclared::from_args(&schedule_list()) else {
            panic!("--no-wait is not a flag of schedule list");
        };
        assert!(err.message.contains("--no-wait"), "{}", err.message);
    }

    #[test]
    fn a_flag_the_front_end_withholds_reads_as_not_given() {
        // An MCP server without --files offers fewer flags than the command declares.
        let registry = crate::commands::Registry {
            groups: crate::commands::GROUPS,
        };
        let spec = registry.find("schedule", "list").expect("schedule list");
        let raw = vec![
            (&WORKSPACE, RawValue::Text("Demo".into())),
            (&ITEM, RawValue::Text("Welcome".into())),
        ];
        let args = Args::check(spec, &[&WORKSPACE, &ITEM], raw).expect("checked");
        let listing = Listing::from_args(&args).expect("read");
        assert_eq!(listing.paging.limit, None);
        assert!(!listing.paging.all);
    }
}
