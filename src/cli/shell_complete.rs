//! `fabsh __complete -- WORDS...`, the hidden command the shell scripts of `fabsh completions
//! bash|zsh|fish` call on Tab (as kubectl's and gh's scripts call theirs): WORDS are the words
//! after `fabsh`, the last the one being completed (empty after a space). It prints what may
//! come there, one a line, unquoted: the same commands, flags, values and workspace and item
//! names as the REPL's Tab, names from the name cache (a listing from the last minute answers
//! without a request) and otherwise a listing given [`SHELL_WAIT`] at most. It never fails:
//! a shell shows nothing rather than an error.

use super::tree;
use crate::commands::REGISTRY;
use crate::repl::names::{NameSource, SessionNames};
use fabsh_api::config::Settings;
use fabsh_client::bridge::Bridge;
use fabsh_client::output::Progress;
use fabsh_local::store_names;
use std::cell::OnceCell;
use std::ffi::OsString;
use std::process::ExitCode;
use std::time::Duration;
use tokio::runtime::Handle;

/// The hidden command's name.
pub(super) const COMMAND: &str = "__complete";

/// How long one Tab may wait for a listing: a shell must not hang on a slow service.
const SHELL_WAIT: Duration = Duration::from_millis(1500);

/// Runs `fabsh __complete` on `args` (program name first) and prints the candidates.
pub(super) fn run(args: Vec<OsString>, handle: Handle) -> ExitCode {
    let mut words: Vec<String> = args
        .iter()
        .skip(2)
        .map(|word| word.to_string_lossy().into_owned())
        .collect();
    if words.first().is_some_and(|word| word == "--") {
        words.remove(0);
    }
    // An empty command line completes from nothing typed.
    let current = words.pop().unwrap_or_default();
    let (settings, done) = leading_globals(&words);
    let names = LazyNames {
        settings,
        bridge: Bridge::new(handle),
        session: OnceCell::new(),
    };
    for candidate in candidates(&done, &current, &names) {
        println!("{candidate}");
    }
    ExitCode::SUCCESS
}

/// The candidates for `current` after the finished words `done`.
pub(super) fn candidates(done: &[String], current: &str, names: &dyn NameSource) -> Vec<String> {
    if !done.is_empty() {
        return crate::repl::complete::candidates_after(done, current, names);
    }
    // The first word: a group, or a global flag.
    let mut found: Vec<String> = REGISTRY
        .groups
        .iter()
        .map(|group| group.name.to_string())
        .collect();
    found.extend(
        tree::build()
            .get_arguments()
            .filter_map(|arg| arg.get_long().map(|long| format!("--{long}"))),
    );
    found.retain(|word| word.starts_with(current));
    found
}

/// The settings the global flags before the command give (`--local`, `--profile P`,
/// `--endpoint URL`), and the words after them.
fn leading_globals(words: &[String]) -> (Settings, Vec<String>) {
    let root = tree::build();
    let mut settings = Settings::default();
    let mut at = 0;
    while let Some(word) = words.get(at) {
        let Some(arg) = root.get_arguments().find(|arg| {
            word.strip_prefix("--")
                .is_some_and(|long| arg.get_long() == Some(long))
                || word.strip_prefix('-').is_some_and(|short| {
                    short.len() == 1 && arg.get_short().map(String::from).as_deref() == Some(short)
                })
        }) else {
            break;
        };
        let value = arg
            .get_action()
            .takes_values()
            .then(|| words.get(at + 1).cloned())
            .flatten();
        match (arg.get_id().as_str(), value.clone()) {
            ("local", _) => settings.local = true,
            ("profile", Some(profile)) => settings.profile = Some(profile),
            ("endpoint", Some(endpoint)) => settings.endpoint = Some(endpoint),
            _ => {}
        }
        at += if value.is_some() { 2 } else { 1 };
    }
    (settings, words[at.min(words.len())..].to_vec())
}

/// Names from the connection the settings choose, connected on the first lookup (most Tabs
/// complete a command or a flag and need none). `--local` starts no server for a Tab: its
/// names are read from the local store itself.
struct LazyNames {
    settings: Settings,
    bridge: Bridge,
    session: OnceCell<Option<SessionNames>>,
}

impl LazyNames {
    fn session(&self) -> Option<&SessionNames> {
        self.session
            .get_or_init(|| {
                if self.settings.local {
                    return None;
                }
                let mut settings = self.settings.clone();
                settings.load_profile(false).ok()?;
                let ctx =
                    crate::connect::connect(&settings, self.bridge.clone(), Progress::hidden())
                        .ok()?;
                Some(SessionNames {
                    ctx,
                    wait: SHELL_WAIT,
                })
            })
            .as_ref()
    }
}

impl NameSource for LazyNames {
    fn workspaces(&self) -> Vec<String> {
        if self.settings.local {
            return store_names::workspaces(&fabsh_local::default_data_dir());
        }
        self.session()
            .map(super::super::repl::names::NameSource::workspaces)
            // Without a session (not signed in, offline) Tab offers no names; it never fails.
            .unwrap_or_default()
    }

    fn items(&self, workspace: &str, kind: Option<&str>) -> Vec<String> {
        if self.settings.local {
            let mut names: Vec<String> =
                store_names::items(&fabsh_local::default_data_dir(), workspace)
                    .into_iter()
                    .filter(|item| {
                        kind.is_none_or(|kind| item.item_type.eq_ignore_ascii_case(kind))
                    })
                    .map(|item| item.name)
                    .collect();
            names.dedup();
            return names;
        }
        self.session()
            .map(|session| session.items(workspace, kind))
            // Without a session (not signed in, offline) Tab offers no names; it never fails.
            .unwrap_or_default()
    }
}
