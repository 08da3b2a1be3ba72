//! Few-shot files: a JSON array of `{question, query}` objects, or CSV (TSV) with the columns
//! `question` and `query`, read by [`super::row_file`]: every row is checked and every problem
//! is reported with its line number, so a file is either wholly valid or not uploaded at all.

use super::row_file::{self, RowProblem, Shape};

/// One valid example and the line it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FewShotRow {
    /// 1-based line of the row (CSV) or of the object's opening brace (JSON).
    pub line: usize,
    /// The question.
    pub question: String,
    /// The answer query.
    pub query: String,
    /// The column (JSON key) the query was read from: `query` or one of [`QUERY_ALIASES`].
    pub query_column: String,
}

/// The other names of a few-shot's query, as files, the command line (`--answer`, `--sql`),
/// scripts and MCP take them.
pub const QUERY_ALIASES: &[&str] = &["answer", "sql", "kql", "dax", "gql"];

const SHAPE: Shape = Shape {
    required: &["question", "query"],
    optional: &[],
    strings: false,
    aliases: &[("query", QUERY_ALIASES)],
};

/// Which columns the queries of `rows` were read from, when any was not `query`:
/// `the queries were read from the column sql`, for the upload's result.
pub fn query_columns_note(rows: &[FewShotRow]) -> Option<String> {
    let mut columns: Vec<&str> = rows.iter().map(|row| row.query_column.as_str()).collect();
    columns.sort_unstable();
    columns.dedup();
    match columns.as_slice() {
        ["query"] | [] => None,
        [one] => Some(format!("the queries were read from the column {one}")),
        more => Some(format!(
            "the queries were read from the columns {}",
            more.join(", ")
        )),
    }
}

/// The examples of a file, or a usage error (nothing was sent) that names the file and lists
/// every malformed row with its line number.
pub fn read_checked(
    path: &std::path::Path,
    bytes: &[u8],
) -> Result<Vec<FewShotRow>, crate::Problem> {
    // The format is told by the name's extension, which the whole path ends with.
    parse(&path.to_string_lossy(), bytes).map_err(|problems| {
        rows_error(path, &problems, "nothing was uploaded").with_hint(format!(
            "each row needs a non-empty question and query (the query may be named {})",
            QUERY_ALIASES.join(", ")
        ))
    })
}

/// The usage error for a file with malformed rows: the file, the count, every problem.
pub fn rows_error(
    path: &std::path::Path,
    problems: &[RowProblem],
    outcome: &str,
) -> crate::Problem {
    let count = problems.len();
    let mut err = crate::Problem::new(format!(
        "{}: {count} malformed row{}; {outcome}",
        path.display(),
        if count == 1 { "" } else { "s" }
    ));
    for problem in problems {
        err = err.with_cause(problem);
    }
    err
}

/// Reads every example of the file, or every problem found in it.
pub fn parse(file_name: &str, bytes: &[u8]) -> Result<Vec<FewShotRow>, Vec<RowProblem>> {
    let rows = row_file::parse(file_name, bytes, &SHAPE)?;
    // Required columns: row_file::parse refused every row without them.
    rows.iter()
        .map(|row| {
            Ok(FewShotRow {
                line: row.line,
                question: row.required("question")?.to_string(),
                query: row.required("query")?.to_string(),
                query_column: row.source("query").to_string(),
            })
        })
        .collect::<Result<_, RowProblem>>()
        .map_err(|problem| vec![problem])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_rows_carry_their_lines() {
        let text = "[\n  {\"question\": \"How many?\", \"query\": \"SELECT 1\"},\n  {\"question\": \"Who?\",\n   \"query\": \"SELECT 2\"}\n]";
        let rows = parse("x.json", text.as_bytes()).expect("valid");
        assert_eq!(rows.len(), 2);
        assert_eq!((rows[0].line, rows[1].line), (2, 3));
        assert_eq!(rows[1].query, "SELECT 2");
    }

    #[test]
    fn json_problems_name_every_bad_row() {
        let text = "[\n{\"question\": \"a\", \"query\": \"q\"},\n{\"question\": \"\", \"query\": \"q\"},\n{\"question\": \"c\"}\n]";
        let problems = parse("x.json", text.as_bytes()).expect_err("invalid");
        let lines: Vec<usize> = problems.iter().map(|p| p.line).collect();
        assert_eq!(lines, vec![3, 4]);
        let broken = parse("x.json", b"[\n{\"question\": \n").expect_err("invalid");
        assert!(broken[0].message.contains("not valid JSON"));
    }

    #[test]
    fn csv_rows_and_problems_carry_their_lines() {
        let text = "question,query\n\"How many orders?\",\"SELECT COUNT(*) FROM orders\"\n\"Multi\nline\",\"SELECT 1\"\nbad row only\n";
        let problems = parse("x.csv", text.as_bytes()).expect_err("invalid");
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].line, 5, "{problems:?}");
        let good = "Question,Query\nHow many?,SELECT 1\n\nWho?,SELECT 2\n";
        let rows = parse("x.csv", good.as_bytes()).expect("valid");
        assert_eq!((rows[0].line, rows[1].line), (2, 4));
        let headers = parse("x.csv", b"q,a\n1,2\n").expect_err("invalid");
        assert!(
            headers[0]
                .message
                .contains("question and query (or answer, sql")
        );
    }

    #[test]
    fn the_query_column_may_go_by_its_aliases_but_only_once() {
        let rows = parse("x.csv", b"question,SQL\nHow many?,SELECT 1\n").expect("valid");
        assert_eq!(
            (rows[0].query.as_str(), rows[0].query_column.as_str()),
            ("SELECT 1", "sql")
        );
        let note = query_columns_note(&rows).expect("a note");
        assert_eq!(note, "the queries were read from the column sql");
        let both = parse("x.csv", b"question,sql,answer\nq,a,b\n").expect_err("refused");
        assert!(both[0].message.contains("sql and answer"), "{both:?}");
        let json = br#"[{"question": "q", "answer": "SELECT 2"}]"#;
        assert_eq!(
            parse("x.json", json).expect("valid")[0].query_column,
            "answer"
        );
        let twice = br#"[{"question": "q", "answer": "a", "query": "b"}]"#;
        assert!(parse("x.json", twice).is_err());
    }
}
