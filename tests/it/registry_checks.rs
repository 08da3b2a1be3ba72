//! The registry's consistency (DESIGN §2): command and flag names unique and kebab-case,
//! every flag documented (the ones traits add too), every command with an example of itself.
//! That every example runs is `help_examples`.

use fabsh::commands::REGISTRY;
use fabsh_client::commands::common::effective_args;
use std::collections::HashSet;

/// `hard-delete`: lower-case ASCII words of letters and digits, joined by single hyphens,
/// starting with a letter.
fn is_kebab(word: &str) -> bool {
    word.starts_with(|c: char| c.is_ascii_lowercase())
        && word.split('-').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
}

#[test]
fn kebab_case_is_what_the_check_says() {
    for good in ["item", "data-agent", "add-fewshot", "v2", "list-elements"] {
        assert!(is_kebab(good), "{good}");
    }
    for bad in [
        "",
        "Item",
        "add_fewshot",
        "-x",
        "x-",
        "a--b",
        "2fa",
        "principal add",
    ] {
        assert!(!is_kebab(bad), "{bad}");
    }
}

#[test]
fn command_names_are_unique_kebab_case_words() {
    let mut groups = HashSet::new();
    let mut paths = HashSet::new();
    for group in REGISTRY.groups {
        assert!(is_kebab(group.name), "group {:?}", group.name);
        assert!(groups.insert(group.name), "group {} twice", group.name);
        for spec in group.commands {
            assert_eq!(
                spec.group,
                group.name,
                "{} is listed under {}",
                spec.path(),
                group.name
            );
            // One or two kebab words (`principal add`), one space apart; empty for a group
            // that is itself the command (`api`).
            if !spec.name.is_empty() {
                let words: Vec<&str> = spec.name.split(' ').collect();
                assert!(
                    words.len() <= 2 && words.iter().all(|word| is_kebab(word)),
                    "command name {:?} of {}",
                    spec.name,
                    group.name
                );
            }
            assert!(paths.insert(spec.path()), "{} twice", spec.path());
        }
    }
}

#[test]
fn flags_are_unique_kebab_case_and_documented() {
    for spec in REGISTRY.all() {
        let mut names = HashSet::new();
        let mut shorts = HashSet::new();
        for arg in effective_args(spec) {
            for name in std::iter::once(&arg.long).chain(arg.aliases) {
                assert!(is_kebab(name), "{}: flag {name:?}", spec.path());
                assert!(names.insert(*name), "{}: --{name} twice", spec.path());
            }
            if let Some(short) = arg.short {
                assert!(shorts.insert(short), "{}: -{short} twice", spec.path());
            }
            assert!(
                !arg.help.trim().is_empty(),
                "{}: --{} has no help",
                spec.path(),
                arg.long
            );
            // Everywhere else an empty value is refused, so where it is taken the help
            // must say what it means.
            assert!(
                !arg.allows_empty || arg.help.contains("empty"),
                "{}: --{} takes an empty value but its help does not say what it means",
                spec.path(),
                arg.long
            );
        }
        assert!(
            !spec.summary.trim().is_empty(),
            "{} has no summary",
            spec.path()
        );
    }
}

#[test]
fn every_command_has_an_example_of_itself() {
    for spec in REGISTRY.all() {
        assert!(!spec.examples.is_empty(), "{} has no example", spec.path());
        for example in spec.examples {
            // The command line after `fabsh `: global flags may come first
            // (`--local run ...`), and the command's own words must be in it.
            let words = format!(" {} ", example.command);
            assert!(
                words.contains(&format!(" {} ", spec.path())),
                "an example of {} runs something else: {}",
                spec.path(),
                example.command
            );
            assert!(
                !example.command.starts_with("fabsh "),
                "{}: examples leave out `fabsh `: {}",
                spec.path(),
                example.command
            );
            assert!(
                !example.about.trim().is_empty(),
                "{}: the example {} says nothing about itself",
                spec.path(),
                example.command
            );
        }
    }
}
