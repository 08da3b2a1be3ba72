//! Parse errors that point at the offending line without repeating the file. serde's
//! messages quote the value they met, which is a whole file when the file is one scalar (a
//! secret named as `parameter:`), and errors go to CI logs and MCP results: so the quoted
//! text is dropped from the message, and what shows of the file is a short excerpt of the
//! line the parser stopped at, marked as one.

/// The most characters of the offending line an error shows.
const EXCERPT_CHARS: usize = 40;
/// The most characters of a parser's message an error keeps (its path into the document
/// holds the file's keys).
const MESSAGE_CHARS: usize = 160;

/// A parser's `message` without the text it quotes, then where it stopped (`at`: line and
/// column, from 1) with an excerpt of that line of `text`.
pub(crate) fn parse_error(text: &str, message: &str, at: Option<(usize, usize)>) -> String {
    let mut out = cut(&unquoted(&without_position(message)), MESSAGE_CHARS);
    if let Some((line, column)) = at {
        out.push_str(&format!(" (line {line}, column {column}"));
        if let Some(excerpt) = excerpt(text, line, column) {
            out.push_str(&format!("; excerpt: {excerpt:?}"));
        }
        out.push(')');
    }
    out
}

/// The message without the parser's own ` at line L column C` (the error says it once).
fn without_position(message: &str) -> String {
    let Some(at) = message.find(" at line ") else {
        return message.to_string();
    };
    let rest = &message[at + " at line ".len()..];
    // `<digits> column <digits>`, then whatever the parser adds (`, while parsing ...`).
    let digits = |s: &str| s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let line = digits(rest);
    let Some(after) = rest[line..].strip_prefix(" column ") else {
        return message.to_string();
    };
    let column = digits(after);
    if line == 0 || column == 0 {
        return message.to_string();
    }
    format!("{}{}", &message[..at], &after[column..])
}

/// `message` with each double-quoted string (a value from the file, as serde quotes it)
/// replaced by `"…"`, and each backquoted name cut short.
fn unquoted(message: &str) -> String {
    let mut out = String::new();
    let mut chars = message.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                let mut escaped = false;
                for inner in chars.by_ref() {
                    match (escaped, inner) {
                        (false, '\\') => escaped = true,
                        (false, '"') => break,
                        _ => escaped = false,
                    }
                }
                out.push_str("\"…\"");
            }
            '`' => {
                let name: String = chars.by_ref().take_while(|&inner| inner != '`').collect();
                out.push('`');
                out.push_str(&cut(&name, EXCERPT_CHARS));
                out.push('`');
            }
            other => out.push(other),
        }
    }
    out
}

/// At most `most` characters of `text`, `…` marking a cut.
pub(crate) fn cut(text: &str, most: usize) -> String {
    if text.chars().count() <= most {
        return text.to_string();
    }
    let mut kept: String = text.chars().take(most).collect();
    kept.push('…');
    kept
}

/// Up to [`EXCERPT_CHARS`] characters of line `line` around `column`, `…` marking a cut.
fn excerpt(text: &str, line: usize, column: usize) -> Option<String> {
    let chars: Vec<char> = text.lines().nth(line.checked_sub(1)?)?.chars().collect();
    if chars.is_empty() {
        return None;
    }
    // A few characters before the column, for context, and never past the line's end.
    let start = column
        .saturating_sub(1)
        .saturating_sub(8)
        .min(chars.len().saturating_sub(EXCERPT_CHARS));
    let end = (start + EXCERPT_CHARS).min(chars.len());
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.extend(&chars[start..end]);
    if end < chars.len() {
        out.push('…');
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_keeps_no_quoted_value_and_the_line_shows_in_part() {
        let secret = "s3cr3t-".repeat(20);
        let text = format!("first line\n{secret}\n");
        let message = format!(
            "core: invalid type: string \"{secret}\", expected struct Core at line 2 column 1"
        );
        let shown = parse_error(&text, &message, Some((2, 1)));
        assert!(!shown.contains(&secret), "{shown}");
        assert!(shown.starts_with("core: invalid type: string \"…\", expected struct Core (line 2, column 1; excerpt: \""), "{shown}");
        let excerpt_len = shown
            .split("excerpt: ")
            .nth(1)
            .expect("excerpt")
            .chars()
            .count();
        assert!(excerpt_len <= EXCERPT_CHARS + 4, "{shown}");
        // Escaped quotes inside a quoted value do not end it early.
        assert_eq!(unquoted(r#"string "a\"b" here"#), "string \"…\" here");
        assert_eq!(
            unquoted(&format!("unknown field `{}`", "k".repeat(50))),
            format!("unknown field `{}…`", "k".repeat(40))
        );
        assert_eq!(
            without_position(
                "did not find expected node content at line 2 column 3, while parsing a flow node"
            ),
            "did not find expected node content, while parsing a flow node"
        );
        assert_eq!(excerpt("a: [b\n", 1, 4).as_deref(), Some("a: [b"));
    }
}
