//! `fabsh config get|set|unset|list`: the selected profile's settings. `get` and `list` show
//! the value in effect and where it came from (flag, env, profile, default); `set` and
//! `unset` change the profile in the config file.

use clap::{Arg, ArgMatches, Command};
use fabsh_client::config::{self, ConfigFile, KEYS, Origin, Settings, config_path};
use fabsh_client::error::{Error, Result};
use fabsh_client::output::Printer;
use serde_json::{Value, json};
use std::process::ExitCode;

/// The `config` command tree.
pub fn command() -> Command {
    let keys: Vec<&str> = KEYS.iter().map(|k| k.name).collect();
    let mut list_help = String::from("Settings:\n");
    for key in KEYS {
        list_help.push_str(&format!(
            "  {:<15} {} (env {})\n",
            key.name, key.help, key.env
        ));
    }
    let key = Arg::new("key")
        .required(true)
        .value_name("KEY")
        .value_parser(clap::builder::PossibleValuesParser::new(keys))
        .help("The setting");
    Command::new("config")
        .about("Show and change profile settings (--profile / FABSH_PROFILE selects the profile)")
        .subcommand_required(true)
        .after_help(list_help)
        .subcommand(
            Command::new("get")
                .about("Print a setting's value in effect")
                .arg(key.clone()),
        )
        .subcommand(
            Command::new("set")
                .about("Store a setting in the profile")
                .arg(key.clone())
                .arg(
                    Arg::new("value")
                        .required(true)
                        .value_name("VALUE")
                        .help("The value"),
                )
                .after_help("Example: fabsh --profile prod config set workspace Sales"),
        )
        .subcommand(
            Command::new("unset")
                .about("Remove a setting from the profile")
                .arg(key),
        )
        .subcommand(
            Command::new("list").about("List the settings in effect, with where each comes from"),
        )
}

/// Runs `config ...`.
pub fn run(matches: &ArgMatches, settings: &Settings, printer: &Printer) -> Result<ExitCode> {
    let key_arg = |sub: &ArgMatches| {
        sub.get_one::<String>("key")
            .map(String::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let profile = settings.profile_name();
    match matches.subcommand() {
        Some(("get", sub)) => {
            let name = key_arg(sub);
            let (value, _) = effective(settings, &name).ok_or_else(|| {
                Error::not_found(format!("`{name}` is not set in profile `{profile}`"))
            })?;
            printer.text(&format!("{value}\n"))?;
        }
        Some(("set", sub)) => {
            let key = config::key(&key_arg(sub))?;
            let value = sub.get_one::<String>("value").map_or("", String::as_str);
            let value = config::check_value(key, value)?;
            let path = config_path();
            let mut file = ConfigFile::load(&path)?;
            file.set(&profile, key.name, &value);
            file.save(&path)?;
        }
        Some(("unset", sub)) => {
            let key = config::key(&key_arg(sub))?;
            let path = config_path();
            let mut file = ConfigFile::load(&path)?;
            if !file.unset(&profile, key.name) {
                printer.note(&format!(
                    "`{}` was not set in profile `{profile}`",
                    key.name
                ));
                return Ok(ExitCode::SUCCESS);
            }
            file.save(&path)?;
        }
        Some(("list", _)) => {
            let rows: Vec<Value> = KEYS
                .iter()
                .filter_map(|key| {
                    let (value, origin) = effective(settings, key.name)?;
                    Some(json!({"key": key.name, "value": value, "source": origin.as_str()}))
                })
                .collect();
            printer.print_value(Value::Array(rows), &["key", "value", "source"])?;
        }
        _ => return Err(Error::usage("see `fabsh config --help`")),
    }
    Ok(ExitCode::SUCCESS)
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
