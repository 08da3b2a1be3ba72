//! Evaluation question files: a JSON array of strings or of `{question, expected}` objects,
//! or CSV/TSV with a `question` column and an optional `expected` one (`expected_answer` is
//! read too). A question may also give `expected_sql`, a reference query whose result is the
//! expected answer, and `expected_item`, the lakehouse or warehouse it runs against (default:
//! the agent's first datasource). Every row is checked first, so a bad file is rejected, with line numbers,
//! before any question is asked.

use super::fewshot_file::rows_error;
use super::row_file::{self, RowProblem, Shape, problem};
use crate::sql::{StatementKind, kind_of, orders_rows, parse};

/// One question to ask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    /// 1-based line it starts on.
    pub line: usize,
    /// The question.
    pub question: String,
    /// The expected answer, if the file gives one.
    pub expected: Option<String>,
    /// The reference query whose result is the expected answer, if the file gives one.
    pub expected_sql: Option<String>,
    /// The item the reference query runs against (an id or a name), if not the agent's
    /// first datasource.
    pub expected_item: Option<String>,
    /// The reference query orders its rows (ORDER BY at its outer level), so a list answer
    /// is graded in order.
    pub ordered: bool,
}

impl Question {
    /// True when the expected answer comes from a reference query.
    pub fn has_reference(&self) -> bool {
        self.expected_sql.is_some()
    }
}

/// The names the literal expected answer goes by.
const EXPECTED: &[&str] = &["expected", "expected_answer", "expectedanswer"];

const SHAPE: Shape = Shape {
    required: &["question"],
    optional: &[
        "expected",
        "expected_answer",
        "expectedanswer",
        "expected_sql",
        "expected_item",
    ],
    strings: true,
    aliases: &[],
};

/// The questions of a file, or a usage error naming every bad row by line.
pub fn read_checked(path: &std::path::Path, bytes: &[u8]) -> Result<Vec<Question>, crate::Problem> {
    let refused = |problems: &[RowProblem]| {
        rows_error(path, problems, "nothing was asked")
            .with_hint("each row needs a non-empty question")
    };
    // The format is told by the name's extension, which the whole path ends with.
    let rows = row_file::parse(&path.to_string_lossy(), bytes, &SHAPE)
        .map_err(|problems| refused(&problems))?;
    let mut questions: Vec<Question> = rows
        .iter()
        .map(|row| {
            // Required column: row_file::parse refused every row without it.
            let question = row.required("question")?.to_string();
            Ok(Question {
                line: row.line,
                question,
                expected: EXPECTED
                    .iter()
                    .find_map(|key| row.get(key))
                    .map(String::from),
                expected_sql: row
                    .get("expected_sql")
                    .map(str::trim)
                    .filter(|sql| !sql.is_empty())
                    .map(String::from),
                expected_item: row
                    .get("expected_item")
                    .map(str::trim)
                    .filter(|item| !item.is_empty())
                    .map(String::from),
                ordered: false,
            })
        })
        .collect::<Result<_, RowProblem>>()
        .map_err(|problem| refused(&[problem]))?;
    let writes: Vec<RowProblem> = questions.iter_mut().filter_map(read_reference).collect();
    if !writes.is_empty() {
        return Err(rows_error(path, &writes, "nothing was asked")
            .with_hint("a reference query reads the expected answer: SELECT or WITH"));
    }
    Ok(questions)
}

/// Reads a question's reference query once: whether it orders its rows (kept in the
/// question) and, when it would change data (an evaluation never writes), the problem of its
/// row. A statement fabsh cannot parse is left to the endpoint, which may know it (its rows
/// are then taken as unordered).
fn read_reference(question: &mut Question) -> Option<RowProblem> {
    let statements = parse(question.expected_sql.as_deref()?, "statement").ok()?;
    question.ordered = orders_rows(&statements);
    match kind_of(&statements) {
        Ok(StatementKind::Writes(word)) => Some(problem(
            question.line,
            format!("expected_sql is a {word} statement; a reference query may only read"),
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn a_reference_query_that_writes_is_refused_with_its_line() {
        let json = br#"[{"question": "How many?", "expected_sql": "SELECT COUNT(*) FROM orders"},
 {"question": "Gone?", "expected_sql": "DELETE FROM orders"},
 {"question": "Copied?", "expected_sql": "SELECT * INTO copy FROM orders"}]"#;
        let err = read_checked(Path::new("q.json"), json).expect_err("refused");
        let text = err.to_string();
        assert!(text.contains("2 malformed rows"), "{text}");
        assert!(text.contains("line 2") && text.contains("DELETE"), "{text}");
        assert!(
            text.contains("line 3") && text.contains("SELECT INTO"),
            "{text}"
        );
    }

    #[test]
    fn strings_objects_and_csv_are_read() {
        let json = br#"["How many orders?", {"question": "Revenue?", "expected": "46,117.30"}]"#;
        let questions = read_checked(Path::new("q.json"), json).expect("questions");
        assert_eq!(questions[0].expected, None);
        assert_eq!(questions[1].expected.as_deref(), Some("46,117.30"));
        let csv = b"question,expected_answer\nHow many?,3000\n";
        let questions = read_checked(Path::new("q.csv"), csv).expect("questions");
        assert_eq!(
            (questions[0].line, questions[0].expected.as_deref()),
            (2, Some("3000"))
        );
    }

    #[test]
    fn reference_queries_are_read_from_csv_and_json() {
        let csv =
            b"question,expected_sql,expected_item\nHow many?,SELECT COUNT(*) FROM orders,Sales\n";
        let questions = read_checked(Path::new("q.csv"), csv).expect("questions");
        assert_eq!(
            questions[0].expected_sql.as_deref(),
            Some("SELECT COUNT(*) FROM orders")
        );
        assert_eq!(questions[0].expected_item.as_deref(), Some("Sales"));
        assert_eq!(questions[0].expected, None);
        let json = br#"[{"question": "How many?", "expected_sql": "SELECT 1"}]"#;
        let questions = read_checked(Path::new("q.json"), json).expect("questions");
        assert!(questions[0].has_reference() && questions[0].expected_item.is_none());
    }

    #[test]
    fn bad_rows_are_named_by_line() {
        let err = read_checked(
            Path::new("q.json"),
            b"[\n\"ok\",\n{\"expected\": \"x\"},\n7\n]",
        )
        .expect_err("bad");
        let causes = err.causes.join("\n");
        assert!(
            causes.contains("line 3") && causes.contains("line 4"),
            "{causes}"
        );
    }
}
