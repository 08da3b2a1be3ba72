//! Few-shot files: a JSON array of `{question, query}` objects, or CSV (TSV) with the columns
//! `question` and `query`. Every row is checked and every problem is reported with its line
//! number, so a file is either wholly valid or not uploaded at all.

use serde_json::Value;
use serde_json::value::RawValue;

/// One valid example and the line it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FewShotRow {
    /// 1-based line of the row (CSV) or of the object's opening brace (JSON).
    pub line: usize,
    /// The question.
    pub question: String,
    /// The answer query.
    pub query: String,
}

/// A problem with one row (or with the file, at the line where it was found).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowProblem {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for RowProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// The file's format, from its name, else from its first character.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileFormat {
    Json,
    Csv,
    Tsv,
}

impl FileFormat {
    /// `.json`, `.csv`, `.tsv`; other names are sniffed: `[` starts JSON, anything else CSV.
    pub fn detect(file_name: &str, text: &str) -> FileFormat {
        let lower = file_name.to_ascii_lowercase();
        if lower.ends_with(".json") {
            FileFormat::Json
        } else if lower.ends_with(".tsv") {
            FileFormat::Tsv
        } else if lower.ends_with(".csv") || !text.trim_start().starts_with('[') {
            FileFormat::Csv
        } else {
            FileFormat::Json
        }
    }
}

/// The examples of a file, or a usage error (nothing was sent) that names the file and lists
/// every malformed row with its line number.
pub fn read_checked(path: &std::path::Path, bytes: &[u8]) -> crate::Result<Vec<FewShotRow>> {
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    parse(&name, bytes).map_err(|problems| {
        let count = problems.len();
        let mut err = crate::Error::usage(format!(
            "{}: {count} malformed row{}; nothing was uploaded",
            path.display(),
            if count == 1 { "" } else { "s" }
        ));
        for problem in problems {
            err = err.with_cause(problem);
        }
        err.with_hint("each row needs a non-empty question and query")
    })
}

/// Reads every example of the file, or every problem found in it.
pub fn parse(file_name: &str, bytes: &[u8]) -> Result<Vec<FewShotRow>, Vec<RowProblem>> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = std::str::from_utf8(bytes).map_err(|err| {
        let line = 1 + bytes[..err.valid_up_to()]
            .iter()
            .filter(|b| **b == b'\n')
            .count();
        vec![problem(line, "the file is not UTF-8 text")]
    })?;
    let rows = match FileFormat::detect(file_name, text) {
        FileFormat::Json => parse_json(text)?,
        FileFormat::Csv => parse_delimited(text, b',')?,
        FileFormat::Tsv => parse_delimited(text, b'\t')?,
    };
    if rows.is_empty() {
        return Err(vec![problem(1, "the file holds no examples")]);
    }
    Ok(rows)
}

fn problem(line: usize, message: impl Into<String>) -> RowProblem {
    RowProblem {
        line,
        message: message.into(),
    }
}

fn line_at(text: &str, offset: usize) -> usize {
    1 + text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
}

/// The line a CSV record starts on. The reader's own line count and offsets both include
/// the blank lines it skipped before the record, so those are stepped over here.
fn record_line(text: &str, byte: u64) -> usize {
    let start = (byte as usize).min(text.len());
    let skipped = text.as_bytes()[start..]
        .iter()
        .take_while(|b| **b == b'\n' || **b == b'\r')
        .count();
    line_at(text, start + skipped)
}

fn parse_json(text: &str) -> Result<Vec<FewShotRow>, Vec<RowProblem>> {
    let elements: Vec<&RawValue> = serde_json::from_str(text).map_err(|err| {
        let message = if err.is_data() {
            "expected a JSON array of {\"question\": ..., \"query\": ...} objects".to_string()
        } else {
            format!("not valid JSON: {err}")
        };
        vec![problem(err.line().max(1), message)]
    })?;
    let mut rows = Vec::with_capacity(elements.len());
    let mut problems = Vec::new();
    for raw in elements {
        // The raw slice points into `text`, so its address gives its offset.
        let offset = (raw.get().as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
        let line = line_at(text, offset);
        let value: Value = match serde_json::from_str(raw.get()) {
            Ok(value) => value,
            Err(err) => {
                problems.push(problem(line, format!("not valid JSON: {err}")));
                continue;
            }
        };
        let field = |key: &str| value.get(key).and_then(Value::as_str).map(str::trim);
        if !value.is_object() {
            problems.push(problem(line, "expected an object with question and query"));
            continue;
        }
        match row(line, field("question"), field("query")) {
            Ok(row) => rows.push(row),
            Err(err) => problems.push(err),
        }
    }
    collected(rows, problems)
}

/// The rows when no row had a problem, else every problem.
fn collected(
    rows: Vec<FewShotRow>,
    problems: Vec<RowProblem>,
) -> Result<Vec<FewShotRow>, Vec<RowProblem>> {
    if problems.is_empty() {
        Ok(rows)
    } else {
        Err(problems)
    }
}

fn row(line: usize, question: Option<&str>, query: Option<&str>) -> Result<FewShotRow, RowProblem> {
    match (question, query) {
        (Some(q), Some(a)) if !q.is_empty() && !a.is_empty() => Ok(FewShotRow {
            line,
            question: q.to_string(),
            query: a.to_string(),
        }),
        (None | Some(""), _) => Err(problem(line, "the question is missing or empty")),
        _ => Err(problem(line, "the query is missing or empty")),
    }
}

fn parse_delimited(text: &str, delimiter: u8) -> Result<Vec<FewShotRow>, Vec<RowProblem>> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|err| vec![problem(1, format!("unreadable header row: {err}"))])?
        .clone();
    let column = |name: &str| {
        headers
            .iter()
            .position(|header| header.trim().eq_ignore_ascii_case(name))
    };
    let (Some(question_at), Some(query_at)) = (column("question"), column("query")) else {
        let found: Vec<&str> = headers.iter().collect();
        return Err(vec![problem(
            1,
            format!(
                "the header row must name the columns question and query (found: {})",
                found.join(", ")
            ),
        )]);
    };
    let mut rows = Vec::new();
    let mut problems = Vec::new();
    for record in reader.records() {
        let record = match record {
            Ok(record) => record,
            Err(err) => {
                // Lines come from byte offsets: the reader's own line count skips blank lines.
                let line = err
                    .position()
                    .map_or(0, |p| line_at(text, p.byte() as usize));
                problems.push(problem(line, format!("unreadable row: {err}")));
                continue;
            }
        };
        let line = record.position().map_or(0, |p| record_line(text, p.byte()));
        if record.iter().all(|field| field.trim().is_empty()) {
            continue;
        }
        if record.len() != headers.len() {
            problems.push(problem(
                line,
                format!(
                    "{} fields where the header has {}",
                    record.len(),
                    headers.len()
                ),
            ));
            continue;
        }
        let field = |at: usize| record.get(at).map(str::trim);
        match row(line, field(question_at), field(query_at)) {
            Ok(row) => rows.push(row),
            Err(err) => problems.push(err),
        }
    }
    collected(rows, problems)
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
        assert!(headers[0].message.contains("question and query"));
    }

    #[test]
    fn formats_are_detected_by_name_then_content() {
        assert_eq!(FileFormat::detect("a.JSON", ""), FileFormat::Json);
        assert_eq!(FileFormat::detect("a.tsv", "["), FileFormat::Tsv);
        assert_eq!(FileFormat::detect("a.txt", " ["), FileFormat::Json);
        assert_eq!(FileFormat::detect("a", "question,query"), FileFormat::Csv);
    }
}
