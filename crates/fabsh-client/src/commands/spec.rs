//! The shape of a registry entry: one `CommandSpec` per command, from which the CLI, the
//! script bindings, the REPL completion and the docs are all generated.

use crate::bridge::Bridge;
use crate::context::Ctx;
use crate::error::Result;
use crate::output::Printer;
use crate::reply::Reply;
use fabsh_api::config::Settings;
use futures::future::BoxFuture;
use std::process::ExitCode;

use super::args::Args;

/// What a handler returns: a boxed future yielding the command's data.
pub type HandlerFuture = BoxFuture<'static, Result<Reply>>;

/// What a front end gives a command that takes over the terminal.
pub struct Terminal<'a> {
    pub settings: &'a Settings,
    pub bridge: &'a Bridge,
    pub printer: &'a Printer,
}

/// How a command runs.
#[derive(Clone, Copy)]
pub enum Handler {
    /// Data in, data out, asynchronously; never prints. Every front end runs these.
    Data(fn(Ctx, Args) -> HandlerFuture),
    /// Takes over the terminal until it ends (`repl`, `run`, `local serve`): only the
    /// command line starts it.
    Interactive(fn(&Terminal<'_>, Args) -> Result<ExitCode>),
}

/// The type of a flag's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgKind {
    /// Free text.
    Str,
    /// A whole number.
    Int,
    /// `--flag`, `--flag true`, `--flag false`.
    Bool,
    /// One of the listed values (matched case-insensitively, stored as listed).
    Enum(&'static [&'static str]),
    /// JSON, inline or `@file`.
    Json,
    /// A GUID, checked before any request.
    Uuid,
    /// A GUID, or its first 8 characters or more (as a table too narrow for whole ids shows
    /// it, `…` and all), checked before any request; the handler finds the id it begins.
    UuidPrefix,
    /// A path to a file that must be readable.
    File,
    /// A secret (an API key), inline or `@file` so it need not sit in shell history; never
    /// printed, not even in errors about it.
    Secret,
    /// Comma-separated values.
    List,
    /// An id or a display name, resolved to an id by the handler.
    Ref,
    /// An item type: a known one in its canonical casing, a near miss of a known one
    /// (`Notebok`) refused with the suggestion, any other name passed through (the service
    /// adds types).
    ItemType,
}

impl ArgKind {
    /// How the value is written in usage lines and docs.
    pub fn value_name(self) -> &'static str {
        match self {
            ArgKind::Str => "TEXT",
            ArgKind::Int => "N",
            ArgKind::Bool => "BOOL",
            ArgKind::Enum(_) => "VALUE",
            ArgKind::Json => "JSON|@FILE",
            ArgKind::Uuid | ArgKind::UuidPrefix => "GUID",
            ArgKind::File => "FILE",
            ArgKind::Secret => "TEXT|@FILE",
            ArgKind::List => "A,B,...",
            ArgKind::Ref => "ID|NAME",
            ArgKind::ItemType => "TYPE",
        }
    }
}

/// One flag of a command.
#[derive(Debug, Clone, Copy)]
pub struct ArgSpec {
    /// Long name without dashes, kebab-case (`hard-delete`).
    pub long: &'static str,
    pub short: Option<char>,
    pub kind: ArgKind,
    pub required: bool,
    pub help: &'static str,
    /// Other long names accepted for this flag (`sql` for `answer`).
    pub aliases: &'static [&'static str],
    /// Taken from the command line by position instead of by name.
    pub positional: bool,
    /// The value used when the flag is absent.
    pub default: Option<&'static str>,
    /// A positional that takes every remaining word (`run FILE -- ARGS...`).
    pub trailing: bool,
    /// The environment variable whose value is used when the flag is absent (before the
    /// default).
    pub env: Option<&'static str>,
    /// An empty value means something here (clears a description, names the root folder);
    /// everywhere else an empty value is refused before anything is sent.
    pub allows_empty: bool,
    /// How the value is written in usage lines and docs (`<FILE>`); none: from the kind.
    pub value_name: Option<&'static str>,
    /// The smallest and largest whole number an `Int` flag takes (a count or a duration),
    /// checked with the other flags, before anything is sent.
    pub range: Option<(i64, i64)>,
    /// The value names a local file or folder the command reads or writes (a `File` flag
    /// reads one without saying so): front ends that must not reach the file system (the
    /// MCP server) leave such flags out or confine them.
    pub local: Option<LocalPath>,
    /// With `local`: the value may be a OneLake path instead (`onelake cp SRC DST`), as
    /// [`fabsh_api::onelake::LakePath::is_written_as_lake`] tells; such a value names no local
    /// file.
    pub or_onelake: bool,
    /// Setting this flag makes a mutating command lose data (`deploy apply --delete-orphans`):
    /// the command line asks first unless `--yes`, and an MCP server carries it out only
    /// with `--allow-destructive`.
    pub destructive: bool,
    /// The command asks for this deleting flag's consent itself, once it knows what it will
    /// delete (`deploy apply --delete-orphans` lists the items): the command line leaves the
    /// question to it, and still refuses off a terminal without `--yes`.
    pub confirmed_by_command: bool,
    /// The value of a destructive `Enum` flag that loses data (`--mode overwrite`); none: a
    /// destructive flag loses data when set.
    pub destructive_value: Option<&'static str>,
    /// The largest file a `File`, `Json` (`@FILE`) or `Secret` (`@FILE`) flag reads; none:
    /// [`DEFAULT_FILE_CAP`], or [`SECRET_FILE_CAP`] for a secret.
    pub max_bytes: Option<u64>,
}

/// The largest file a flag reads unless it says otherwise: what the file becomes is sent in
/// a request, and the service takes no larger body.
pub const DEFAULT_FILE_CAP: u64 = fabsh_model::limits::REQUEST_BODY;

/// The largest file a secret is read from (`--llm-key @FILE`): a key or password, never a
/// document.
pub const SECRET_FILE_CAP: u64 = 64 << 10;

/// The largest certificate file read (PEM or PFX): a chain of a few certificates and a key
/// takes kilobytes.
pub const CERTIFICATE_FILE_CAP: u64 = 1 << 20;

/// How a flag's value reaches the local file system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocalPath {
    /// A file the command reads.
    ReadFile,
    /// A folder the command reads.
    ReadDir,
    /// A file the command writes (replacing it if it exists).
    WriteFile,
    /// A folder the command writes files into.
    WriteDir,
}

impl ArgSpec {
    /// An optional named flag.
    pub const fn opt(long: &'static str, kind: ArgKind, help: &'static str) -> Self {
        ArgSpec {
            long,
            short: None,
            kind,
            required: false,
            help,
            aliases: &[],
            positional: false,
            default: None,
            trailing: false,
            env: None,
            allows_empty: false,
            value_name: None,
            range: None,
            local: None,
            or_onelake: false,
            destructive: false,
            confirmed_by_command: false,
            destructive_value: None,
            max_bytes: None,
        }
    }

    /// A required named flag.
    pub const fn req(long: &'static str, kind: ArgKind, help: &'static str) -> Self {
        ArgSpec {
            required: true,
            ..Self::opt(long, kind, help)
        }
    }

    /// A required positional argument.
    pub const fn positional(long: &'static str, kind: ArgKind, help: &'static str) -> Self {
        ArgSpec {
            positional: true,
            ..Self::req(long, kind, help)
        }
    }

    /// An optional positional taking every remaining word, kept as a list.
    pub const fn trailing(long: &'static str, help: &'static str) -> Self {
        ArgSpec {
            positional: true,
            trailing: true,
            ..Self::opt(long, ArgKind::List, help)
        }
    }

    /// The same positional, optional.
    pub const fn optional(self) -> Self {
        ArgSpec {
            required: false,
            ..self
        }
    }

    /// With a short form (`-w`).
    pub const fn short(self, short: char) -> Self {
        ArgSpec {
            short: Some(short),
            ..self
        }
    }

    /// With other long names accepted.
    pub const fn aliases(self, aliases: &'static [&'static str]) -> Self {
        ArgSpec { aliases, ..self }
    }

    /// Taken from this environment variable when absent.
    pub const fn env(self, env: &'static str) -> Self {
        ArgSpec {
            env: Some(env),
            ..self
        }
    }

    /// Taking an empty value as meaningful (its help says what it means).
    pub const fn allowing_empty(self) -> Self {
        ArgSpec {
            allows_empty: true,
            ..self
        }
    }

    /// With a default value.
    pub const fn default(self, default: &'static str) -> Self {
        ArgSpec {
            default: Some(default),
            ..self
        }
    }

    /// A whole number from `min` to `max` (`i64::MAX`: no upper bound).
    pub const fn range(self, min: i64, max: i64) -> Self {
        ArgSpec {
            range: Some((min, max)),
            ..self
        }
    }

    /// Taking a OneLake path in place of the local one (`onelake cp SRC DST`).
    pub const fn or_onelake(self) -> Self {
        ArgSpec {
            or_onelake: true,
            ..self
        }
    }

    /// Whether `value` of this flag names a local file or folder: it is a local-path flag,
    /// and the value is not a OneLake path the flag takes instead.
    pub fn names_local(&self, value: &str) -> bool {
        self.local_path().is_some()
            && !(self.or_onelake && fabsh_api::onelake::LakePath::is_written_as_lake(value))
    }

    /// Making the command lose data when set.
    pub const fn destructive(self) -> Self {
        ArgSpec {
            destructive: true,
            ..self
        }
    }

    /// Making the command lose data when this `Enum` flag is `value` (`--mode overwrite`).
    pub const fn destructive_when(self, value: &'static str) -> Self {
        ArgSpec {
            destructive: true,
            destructive_value: Some(value),
            ..self
        }
    }

    /// Whether this flag, as `args` set it, makes its command lose data.
    pub fn deletes_with(&self, args: &Args) -> bool {
        self.destructive
            && match self.destructive_value {
                None => args.flag(self.long),
                Some(value) => args
                    .opt_str(self.long)
                    .is_some_and(|given| given.eq_ignore_ascii_case(value)),
            }
    }

    /// How the setting that loses data is written (`--delete-orphans`, `--mode overwrite`).
    pub fn deleting_words(&self) -> String {
        match self.destructive_value {
            Some(value) => format!("--{} {value}", self.long),
            None => format!("--{}", self.long),
        }
    }

    /// Asking for its consent in the command, once it knows what it will delete.
    pub const fn confirmed_by_command(self) -> Self {
        ArgSpec {
            confirmed_by_command: true,
            ..self
        }
    }

    /// Reading a file of at most `bytes`.
    pub const fn max_bytes(self, bytes: u64) -> Self {
        ArgSpec {
            max_bytes: Some(bytes),
            ..self
        }
    }

    /// The largest file this flag reads.
    pub fn file_cap(&self) -> u64 {
        match (self.max_bytes, self.kind) {
            (Some(bytes), _) => bytes,
            (None, ArgKind::Secret) => SECRET_FILE_CAP,
            (None, _) => DEFAULT_FILE_CAP,
        }
    }

    /// Naming a local file or folder the command reads or writes.
    pub const fn local(self, local: LocalPath) -> Self {
        ArgSpec {
            local: Some(local),
            ..self
        }
    }

    /// A whole number of at least `min` (a count of 1 or more, a duration of 1 s or more).
    pub const fn at_least(self, min: i64) -> Self {
        self.range(min, i64::MAX)
    }

    /// How the value reaches the local file system, if it does: as declared, and a `File`
    /// flag is a file read.
    pub fn local_path(&self) -> Option<LocalPath> {
        match (self.local, self.kind) {
            (Some(local), _) => Some(local),
            (None, ArgKind::File) => Some(LocalPath::ReadFile),
            (None, _) => None,
        }
    }

    /// With this value name in usage lines and docs (`--min-pass-rate <RATE>`).
    pub const fn value_name(self, value_name: &'static str) -> Self {
        ArgSpec {
            value_name: Some(value_name),
            ..self
        }
    }

    /// How the value is written in usage lines and docs: the declared name, else one the
    /// flag's name makes plain (`--output-file` takes a FILE), else the kind's.
    pub fn shown_value_name(&self) -> &'static str {
        if let Some(name) = self.value_name {
            return name;
        }
        if self.kind != ArgKind::Str {
            return self.kind.value_name();
        }
        const BY_SUFFIX: &[(&str, &str)] = &[
            ("dir", "DIR"),
            ("file", "FILE"),
            ("url", "URL"),
            ("-id", "ID"),
            ("name", "NAME"),
            ("seconds", "SECONDS"),
            ("-ms", "MS"),
            ("rate", "RATE"),
            ("ratio", "RATIO"),
            ("email", "EMAIL"),
            ("host", "HOST"),
            ("model", "MODEL"),
            ("path", "PATH"),
        ];
        BY_SUFFIX
            .iter()
            .find(|(suffix, _)| self.long.ends_with(suffix))
            .map_or(self.kind.value_name(), |(_, name)| name)
    }

    /// The key used in script option maps (`hard_delete`).
    pub fn snake_name(&self) -> String {
        self.long.replace('-', "_")
    }
}

/// What the command returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReturnKind {
    List,
    Object,
    Void,
}

/// What a command needs from the front end before it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// A connected context: credentials and an endpoint (local Fabric, with `--local`).
    Service,
    /// Nothing from the service: it works from its flags, the settings and local files
    /// (offline checks, `config`, `auth`, which signs in by itself).
    Nothing,
    /// Local Fabric's store (`--data-dir`) or a running local Fabric server; never the
    /// Fabric service.
    LocalFabric,
}

/// The traits of a command (SPEC §1): what it does to the service and what it returns.
#[derive(Debug, Clone, Copy)]
pub struct Traits {
    /// Changes state; gets `--dry-run` when it does so through the service.
    pub mutates: bool,
    /// Loses data; asks for confirmation on a terminal unless `--yes`.
    pub destructive: bool,
    /// Runs a long-running operation; gets `--no-wait` and `--lro-timeout`.
    pub lro: bool,
    /// Returns pages; gets `--all` and `--continuation-token`.
    pub paged: bool,
    /// What the front end must provide.
    pub needs: Needs,
    /// Returns a secret (a token): written only into a pipe unless `--show`, and never a
    /// script function.
    pub secret: bool,
    /// A Rhai function too; off for what only makes sense on a shell's command line.
    pub scriptable: bool,
    pub returns: ReturnKind,
    /// Makes a page for `-o html` (an evaluation's report); other commands refuse that format.
    pub html: bool,
}

impl Traits {
    /// Read-only, returning a list of pages.
    pub const LIST: Traits = Traits {
        mutates: false,
        destructive: false,
        lro: false,
        paged: true,
        needs: Needs::Service,
        secret: false,
        scriptable: true,
        returns: ReturnKind::List,
        html: false,
    };
    /// Read-only, returning an object.
    pub const READ: Traits = Traits {
        returns: ReturnKind::Object,
        paged: false,
        ..Self::LIST
    };
    /// Changes state, returning an object.
    pub const MUTATE: Traits = Traits {
        mutates: true,
        ..Self::READ
    };
    /// Changes state and loses data.
    pub const DESTRUCTIVE: Traits = Traits {
        destructive: true,
        ..Self::MUTATE
    };

    /// The same traits, as a long-running operation.
    pub const fn lro(self) -> Traits {
        Traits { lro: true, ..self }
    }

    /// The same traits, returning nothing.
    pub const fn void(self) -> Traits {
        Traits {
            returns: ReturnKind::Void,
            ..self
        }
    }

    /// The same traits, returning a list that is not paged.
    pub const fn unpaged_list(self) -> Traits {
        Traits {
            returns: ReturnKind::List,
            paged: false,
            ..self
        }
    }

    /// The same traits, needing this from the front end.
    pub const fn needs(self, needs: Needs) -> Traits {
        Traits { needs, ..self }
    }

    /// The same traits, for a command that returns a secret.
    pub const fn secret(self) -> Traits {
        Traits {
            secret: true,
            scriptable: false,
            ..self
        }
    }

    /// The same traits, for a command that makes a page for `-o html`.
    pub const fn html(self) -> Traits {
        Traits { html: true, ..self }
    }

    /// The same traits, for a command only a shell's command line runs.
    pub const fn unscripted(self) -> Traits {
        Traits {
            scriptable: false,
            ..self
        }
    }

    /// The words SPEC §1 uses for these traits (`read-only, object`): the docs' terse form.
    pub fn describe(&self) -> String {
        let mut words = vec![if self.mutates { "mutates" } else { "read-only" }];
        if self.destructive {
            words.push("destructive");
        }
        if self.lro {
            words.push("LRO");
        }
        match self.needs {
            Needs::Service => {}
            Needs::Nothing => words.push("no Fabric connection"),
            Needs::LocalFabric => words.push("local Fabric only"),
        }
        words.push(match self.returns {
            ReturnKind::List => "list",
            ReturnKind::Object => "object",
            ReturnKind::Void => "void",
        });
        words.join(", ")
    }

    /// The same traits as a sentence for `--help`: "Changes state and cannot be undone;
    /// runs a long-running operation; prints nothing."
    pub fn sentence(&self) -> String {
        let mut parts = vec![
            match (self.mutates, self.destructive) {
                (false, _) => "Only reads",
                (true, false) => "Changes state",
                (true, true) => "Changes state and loses data (asks first unless --yes)",
            }
            .to_string(),
        ];
        if self.lro {
            parts.push("waits for a long-running operation (--no-wait returns at once)".into());
        }
        match self.needs {
            Needs::Service => {}
            Needs::Nothing => parts.push("needs no Fabric connection".into()),
            Needs::LocalFabric => parts.push("works on local Fabric only".into()),
        }
        parts.push(
            match self.returns {
                ReturnKind::List if self.paged => {
                    "returns a list, a page at a time (--all for every page)"
                }
                ReturnKind::List => "returns a list",
                ReturnKind::Object => "returns an object",
                ReturnKind::Void => "returns no data",
            }
            .into(),
        );
        format!("{}.", parts.join("; "))
    }
}

/// A usage example shown in `--help` and the docs.
#[derive(Debug, Clone, Copy)]
pub struct Example {
    /// The command line after `fabsh `.
    pub command: &'static str,
    pub about: &'static str,
}

/// One command, declared once.
#[derive(Clone, Copy)]
pub struct CommandSpec {
    /// The group (`item`, `data-agent`, `workspace`, `api`).
    pub group: &'static str,
    /// The command within the group; empty when the group is itself the command (`api`);
    /// two words for a command one level down (`principal add`).
    pub name: &'static str,
    pub summary: &'static str,
    /// Longer help shown under the summary, if any.
    pub about: &'static str,
    pub args: &'static [ArgSpec],
    pub traits: Traits,
    /// Columns shown in table and TSV output, in order; empty = derived from the data.
    pub columns: &'static [&'static str],
    pub examples: &'static [Example],
    pub handler: Handler,
}

impl CommandSpec {
    /// `item list`, or `api` for a group-level command.
    pub fn path(&self) -> String {
        if self.name.is_empty() {
            self.group.to_string()
        } else {
            format!("{} {}", self.group, self.name)
        }
    }

    /// True when the command takes over the terminal (only the command line starts it).
    pub fn is_interactive(&self) -> bool {
        matches!(self.handler, Handler::Interactive(_))
    }

    /// True when scripts get it as a function.
    pub fn is_scriptable(&self) -> bool {
        self.traits.scriptable && !self.traits.secret && !self.is_interactive()
    }

    /// True when a call can lose data: a destructive command, or a mutating one with a flag
    /// that makes it delete (`deploy apply --delete-orphans`). Such a command takes `--yes`.
    pub fn can_lose_data(&self) -> bool {
        self.traits.destructive
            || (self.traits.mutates && self.args.iter().any(|arg| arg.destructive))
    }

    /// True when this call loses data: the command is destructive, or it mutates and one of
    /// its deleting flags is set.
    pub fn loses_data(&self, args: &Args) -> bool {
        self.traits.destructive
            || (self.traits.mutates && self.args.iter().any(|arg| arg.deletes_with(args)))
    }

    /// True when this call's consent is asked by the command itself: it is not destructive
    /// as a whole, and each deleting flag set is one the command confirms.
    pub fn confirms_itself(&self, args: &Args) -> bool {
        !self.traits.destructive
            && self
                .args
                .iter()
                .filter(|arg| arg.deletes_with(args))
                .all(|arg| arg.confirmed_by_command)
    }

    /// The declared flag with this long name or alias.
    pub fn arg(&self, name: &str) -> Option<&'static ArgSpec> {
        self.args
            .iter()
            .find(|arg| arg.long == name || arg.aliases.contains(&name))
    }
}

impl std::fmt::Debug for CommandSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandSpec")
            .field("path", &self.path())
            .finish_non_exhaustive()
    }
}
