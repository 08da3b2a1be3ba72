//! What a REPL line is: a `:` command, a command line (it starts with a group name, like
//! `item list -w Demo`), or Rhai code, which may need more lines before it is complete.

use crate::commands::REGISTRY;
use rhai::{Engine, ParseErrorType};

/// One line (or several joined) of REPL input.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Line {
    Empty,
    /// `:name rest`.
    Meta {
        name: String,
        rest: String,
    },
    /// A command line, split into words as a shell would.
    Command(Vec<String>),
    Rhai,
}

/// Decides what `input` is.
pub(super) fn classify(input: &str) -> Line {
    let trimmed = input.trim();
    if trimmed.is_empty() {
        return Line::Empty;
    }
    if let Some(meta) = trimmed.strip_prefix(':') {
        let (name, rest) = meta.split_once(char::is_whitespace).unwrap_or((meta, ""));
        return Line::Meta {
            name: name.to_string(),
            rest: rest.trim().to_string(),
        };
    }
    if is_command_line(trimmed) {
        return match split_words(trimmed) {
            Some(words) => Line::Command(words),
            None => Line::Rhai,
        };
    }
    Line::Rhai
}

/// A group name, then whitespace, then a word (not `=` or an operator): `item list`, but not
/// `item::list(...)` nor `item = 5`.
pub(super) fn is_command_line(text: &str) -> bool {
    let Some((first, rest)) = text.split_once(char::is_whitespace) else {
        return REGISTRY.group(text).is_some();
    };
    REGISTRY.group(first).is_some()
        && rest
            .trim_start()
            .starts_with(|c: char| c.is_alphanumeric() || c == '-')
}

/// A line that reads like a command line with a misspelt group (`items list`, `workspce
/// list`): the line as it was probably meant.
pub(super) fn near_command_line(text: &str) -> Option<String> {
    let (first, rest) = text.trim().split_once(char::is_whitespace)?;
    let rest = rest.trim_start();
    if REGISTRY.group(first).is_some()
        || !first.chars().all(|c| c.is_ascii_alphabetic() || c == '-')
        || !rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '-')
    {
        return None;
    }
    let names = REGISTRY.groups.iter().map(|group| group.name);
    fabsh_model::edit_distance::closest(first, names).map(|name| format!("{name} {rest}"))
}

/// `help`, `help item list`, `exit` or `quit` typed as words, as a shell takes them: the
/// `:` command they mean, and its argument.
pub(super) fn bare_meta(text: &str) -> Option<(&'static str, String)> {
    let (first, rest) = text
        .trim()
        .split_once(char::is_whitespace)
        .unwrap_or((text.trim(), ""));
    let words = || {
        rest.split_whitespace()
            .all(|w| w.chars().all(|c| c.is_alphanumeric() || c == '-'))
    };
    match first {
        "help" if words() => Some(("help", rest.trim().to_string())),
        "exit" | "quit" if rest.trim().is_empty() => Some(("quit", String::new())),
        _ => None,
    }
}

/// Words as a shell splits them: whitespace separates, single and double quotes group, a
/// backslash escapes the next character (not inside single quotes). `None` when a quote is
/// left open.
pub(super) fn split_words(text: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        other => word.push(other),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => word.push(chars.next()?),
                        other => word.push(other),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.push(chars.next()?);
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            other => {
                in_word = true;
                word.push(other);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Some(words)
}

/// True when `input` is Rhai that stops short: Rhai reports the end of input where it
/// expected more (an open block, list, map, call or backtick string).
pub(super) fn needs_more(engine: &Engine, input: &str) -> bool {
    if classify(input) != Line::Rhai {
        return false;
    }
    let Err(err) = engine.compile(input) else {
        return false;
    };
    match err.err_type() {
        ParseErrorType::UnexpectedEOF => true,
        ParseErrorType::MissingToken(..) => at_end(input, err.position()),
        ParseErrorType::BadInput(rhai::LexError::UnterminatedString) => input.contains('`'),
        _ => false,
    }
}

/// True when `position` is past the last non-blank character of `input`.
fn at_end(input: &str, position: rhai::Position) -> bool {
    let (Some(line), Some(column)) = (position.line(), position.position()) else {
        return true;
    };
    let trimmed = input.trim_end();
    let last_line = trimmed.lines().count().max(1);
    let last_column = trimmed
        .lines()
        .last()
        .map_or(0, |text| text.chars().count());
    line > last_line || (line == last_line && column > last_column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_names_start_command_lines_and_rhai_stays_rhai() {
        assert!(matches!(classify("item list -w Demo"), Line::Command(_)));
        assert_eq!(classify("item::list(\"Demo\")"), Line::Rhai);
        assert_eq!(classify("item = 5"), Line::Rhai);
        assert_eq!(classify("let x = 1"), Line::Rhai);
        assert!(matches!(classify(":help item"), Line::Meta { .. }));
        assert_eq!(classify("   "), Line::Empty);
    }

    #[test]
    fn help_exit_and_quit_work_as_words() {
        assert_eq!(bare_meta("help"), Some(("help", String::new())));
        assert_eq!(
            bare_meta("help item list"),
            Some(("help", "item list".into()))
        );
        assert_eq!(bare_meta(" exit "), Some(("quit", String::new())));
        assert_eq!(bare_meta("quit"), Some(("quit", String::new())));
        assert_eq!(bare_meta("help(1)"), None);
        assert_eq!(bare_meta("exit = 1"), None);
        assert_eq!(
            near_command_line("itme list -w Demo").as_deref(),
            Some("item list -w Demo")
        );
    }

    #[test]
    fn words_split_like_a_shell() {
        assert_eq!(
            split_words(r#"item update --name "Sales (old)" --description 'a b' x\ y"#),
            Some(vec![
                "item".into(),
                "update".into(),
                "--name".into(),
                "Sales (old)".into(),
                "--description".into(),
                "a b".into(),
                "x y".into()
            ])
        );
        assert_eq!(split_words("a \"open"), None);
    }

    #[test]
    fn open_blocks_ask_for_more_and_errors_do_not() {
        let engine = crate::script::syntax_engine();
        assert!(needs_more(&engine, "fn f(x) {"));
        assert!(needs_more(&engine, "let m = #{a: 1,"));
        assert!(needs_more(&engine, "let x = 1 +"));
        assert!(needs_more(&engine, "let s = `multi"));
        assert!(!needs_more(&engine, "1 + )"));
        assert!(!needs_more(&engine, "let x = 1;"));
        assert!(!needs_more(&engine, "item list -w {"));
    }
}
