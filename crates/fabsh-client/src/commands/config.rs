//! `fabsh config get|set|unset|list`: the selected profile's settings. `get` and `list` show
//! the value in effect and where it came from (flag, env, profile, default); `set` and
//! `unset` change the profile in the config file.

use crate::commands::args::Args;
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Needs, Traits,
};
use crate::commands::typed::{Command, FromArgs, handler, typed_args};
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::reply::Reply;
use fabsh_api::config::{self, ConfigFile, KEY_NAMES, KEYS, Origin, Settings, config_path};
use serde_json::{Value, json};

const KEY: ArgSpec = ArgSpec::positional("key", ArgKind::Enum(KEY_NAMES), "The setting");
const VALUE: ArgSpec = ArgSpec::positional("value", ArgKind::Str, "The value");
const CHANGE: Traits = Traits::MUTATE.needs(Needs::Nothing).void();

/// Every `config` command.
pub static COMMANDS: &[CommandSpec] = &[GET, SET, UNSET, LIST];

const GET: CommandSpec = CommandSpec {
    group: "config",
    name: "get",
    summary: "Print a setting's value in effect",
    about: "",
    args: &[KEY],
    traits: Traits::READ.needs(Needs::Nothing),
    columns: &[],
    examples: &[Example {
        command: "config get endpoint",
        about: "the endpoint commands use",
    }],
    handler: Handler::Data(handler::<Get>),
};

const SET: CommandSpec = CommandSpec {
    group: "config",
    name: "set",
    summary: "Store a setting in the profile",
    about: "The value is checked first (an endpoint must be a URL, an output a format), so a \
bad profile fails here, not at a later command.",
    args: &[KEY, VALUE],
    traits: CHANGE,
    columns: &[],
    examples: &[Example {
        command: "--profile prod config set workspace Sales",
        about: "-w Sales implied for the prod profile",
    }],
    handler: Handler::Data(handler::<Set>),
};

const UNSET: CommandSpec = CommandSpec {
    group: "config",
    name: "unset",
    summary: "Remove a setting from the profile",
    about: "",
    args: &[KEY],
    traits: CHANGE,
    columns: &[],
    examples: &[Example {
        command: "--profile prod config unset workspace",
        about: "no default workspace any more",
    }],
    handler: Handler::Data(handler::<Unset>),
};

const LIST: CommandSpec = CommandSpec {
    group: "config",
    name: "list",
    summary: "List the settings in effect, with where each comes from",
    about: "",
    args: &[],
    traits: Traits::READ.needs(Needs::Nothing).unpaged_list(),
    columns: &["key", "value", "source"],
    examples: &[Example {
        command: "config list",
        about: "each setting in effect and where it comes from",
    }],
    handler: Handler::Data(handler::<List>),
};

typed_args! {
    /// `config get`.
    struct Get {
        key: String = KEY,
    }
}

impl Command for Get {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let name = self.key.as_str();
            let settings = ctx.settings();
            let (value, _) = effective(settings, name).ok_or_else(|| {
                Error::not_found(format!(
                    "`{name}` is not set in profile `{}`",
                    settings.profile_name()
                ))
            })?;
            Ok(Reply::text(format!("{value}\n")))
        })
    }
}

typed_args! {
    /// `config set`.
    struct Set {
        key: String = KEY,
        value: String = VALUE,
    }
}

impl Command for Set {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let key = config::key(&self.key)?;
            let value = config::check_value(key, &self.value)?;
            let profile = ctx.settings().profile_name();
            change(|file| {
                file.set(&profile, key.name, &value);
                true
            })?;
            Ok(Reply::empty().with_note(format!("{} = {value} in profile `{profile}`", key.name)))
        })
    }
}

typed_args! {
    /// `config unset`.
    struct Unset {
        key: String = KEY,
    }
}

impl Command for Unset {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let key = config::key(&self.key)?;
            let profile = ctx.settings().profile_name();
            let note = if change(|file| file.unset(&profile, key.name))? {
                format!("{} removed from profile `{profile}`", key.name)
            } else {
                format!("`{}` was not set in profile `{profile}`", key.name)
            };
            Ok(Reply::empty().with_note(note))
        })
    }
}

/// Applies `edit` to the config file and saves it when `edit` says it changed something.
fn change(edit: impl FnOnce(&mut ConfigFile) -> bool) -> Result<bool> {
    let path = config_path();
    let mut file = ConfigFile::load(&path)?;
    let changed = edit(&mut file);
    if changed {
        file.save(&path)?;
    }
    Ok(changed)
}

/// `config list`: it takes no flags.
struct List;

impl FromArgs for List {
    fn from_args(_: &Args) -> Result<Self> {
        Ok(List)
    }
}

impl Command for List {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let settings = ctx.settings();
            let rows: Vec<Value> = KEYS
                .iter()
                .filter_map(|key| {
                    let (value, origin) = effective(settings, key.name)?;
                    Some(json!({"key": key.name, "value": value, "source": origin.as_str()}))
                })
                .collect();
            Ok(Reply::json(Value::Array(rows)))
        })
    }
}

/// The value in effect, including defaults the settings fall back to.
fn effective(settings: &Settings, name: &str) -> Option<(String, Origin)> {
    match name {
        "authority-host" => Some(settings.authority_host()),
        "endpoint" => settings
            .lookup(name)
            .or_else(|| Some((settings.endpoint(), Origin::Default))),
        _ => settings.lookup(name),
    }
}
