//! Files of rows the data-agent commands read (few-shot examples, evaluation questions): a
//! JSON array of objects (or, where allowed, of plain strings), or CSV/TSV with a header row.
//! Every row is checked and every problem is reported with its line number, so a file is
//! used whole or not at all.

use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::HashMap;

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

/// A problem at `line`.
pub fn problem(line: usize, message: impl Into<String>) -> RowProblem {
    RowProblem {
        line,
        message: message.into(),
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

/// What a file's rows hold.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// Columns (JSON keys) every row has, lower case.
    pub required: &'static [&'static str],
    /// Columns read when present.
    pub optional: &'static [&'static str],
    /// Whether a JSON array may hold plain strings (each the first required column).
    pub strings: bool,
    /// Other names a column may go by (`answer` and `sql` for `query`), each with the
    /// column it stands for. Two columns naming the same one are refused.
    pub aliases: &'static [(&'static str, &'static [&'static str])],
}

impl Shape {
    /// The column a header or key names: itself, or the column it is an alias of.
    fn canonical<'a>(&self, name: &'a str) -> &'a str {
        self.aliases
            .iter()
            .find(|(_, aliases)| aliases.iter().any(|alias| alias.eq_ignore_ascii_case(name)))
            .map_or(name, |(column, _)| column)
    }

    /// `query` as the header error shows it: `query (or answer, sql, ...)`.
    fn shown(&self, column: &str) -> String {
        match self.aliases.iter().find(|(name, _)| *name == column) {
            Some((_, aliases)) => format!("{column} (or {})", aliases.join(", ")),
            None => column.to_string(),
        }
    }

    fn described(&self) -> String {
        let keys: Vec<String> = self
            .required
            .iter()
            .map(|key| format!("\"{key}\": ..."))
            .collect();
        let objects = format!("{{{}}} objects", keys.join(", "));
        if self.strings {
            format!("expected a JSON array of strings or {objects}")
        } else {
            format!("expected a JSON array of {objects}")
        }
    }
}

/// One row: its line and its values by (lower-case) column, trimmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// 1-based line of the row (CSV) or of the element's start (JSON).
    pub line: usize,
    fields: HashMap<String, String>,
    /// The name the file used for a column, where it used an alias (`sql` for `query`).
    sources: HashMap<String, String>,
}

impl Row {
    /// The name the file gave `column`: an alias, or the column's own name.
    pub fn source<'a>(&'a self, column: &'a str) -> &'a str {
        self.sources.get(column).map_or(column, String::as_str)
    }

    /// The value of a column, if present and not blank.
    pub fn get(&self, column: &str) -> Option<&str> {
        self.fields
            .get(column)
            .map(String::as_str)
            .filter(|value| !value.is_empty())
    }

    /// The value of a required column, or the problem its absence (or blank value) makes.
    pub fn required(&self, column: &str) -> Result<&str, RowProblem> {
        self.get(column)
            .ok_or_else(|| problem(self.line, format!("the {column} is missing or empty")))
    }
}

/// The row, or the problem that its first missing required column makes.
fn checked(row: Row, shape: &Shape) -> Result<Row, RowProblem> {
    for column in shape.required {
        row.required(column)?;
    }
    Ok(row)
}

/// Every row of the file (each with its required columns), or every problem found in it
/// (including "no rows").
pub fn parse(file_name: &str, bytes: &[u8], shape: &Shape) -> Result<Vec<Row>, Vec<RowProblem>> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = std::str::from_utf8(bytes).map_err(|err| {
        let line = 1 + bytes[..err.valid_up_to()]
            .iter()
            .filter(|b| **b == b'\n')
            .count();
        vec![problem(line, "the file is not UTF-8 text")]
    })?;
    let rows = match FileFormat::detect(file_name, text) {
        FileFormat::Json => parse_json(text, shape)?,
        FileFormat::Csv => parse_delimited(text, b',', shape)?,
        FileFormat::Tsv => parse_delimited(text, b'\t', shape)?,
    };
    if rows.is_empty() {
        return Err(vec![problem(1, "the file holds no rows")]);
    }
    Ok(rows)
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

fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.trim().to_string()),
        Value::Number(number) => Some(number.to_string()),
        Value::Bool(flag) => Some(flag.to_string()),
        _ => None,
    }
}

fn parse_json(text: &str, shape: &Shape) -> Result<Vec<Row>, Vec<RowProblem>> {
    let elements: Vec<&RawValue> = serde_json::from_str(text).map_err(|err| {
        let message = if err.is_data() {
            shape.described()
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
        let mut fields = HashMap::new();
        let mut sources = HashMap::new();
        match value {
            Value::String(text) if shape.strings => {
                fields.insert(shape.required[0].to_string(), text.trim().to_string());
            }
            Value::Object(map) => {
                let mut named: HashMap<String, String> = HashMap::new();
                let mut clash = None;
                for (key, value) in map {
                    let key = key.to_lowercase();
                    let column = shape.canonical(&key).to_string();
                    if let Some(first) = named.insert(column.clone(), key.clone()) {
                        clash = Some(format!(
                            "\"{first}\" and \"{key}\" both give the {column}; keep one"
                        ));
                    }
                    if let Some(text) = scalar_text(&value) {
                        fields.insert(column.clone(), text);
                    }
                    if column != key {
                        sources.insert(column, key);
                    }
                }
                if let Some(clash) = clash {
                    problems.push(problem(line, clash));
                    continue;
                }
            }
            _ => {
                let or_text = if shape.strings { "a string or " } else { "" };
                let message = format!(
                    "expected {or_text}an object with {}",
                    shape.required.join(" and ")
                );
                problems.push(problem(line, message));
                continue;
            }
        }
        let row = Row {
            line,
            fields,
            sources,
        };
        match checked(row, shape) {
            Ok(row) => rows.push(row),
            Err(err) => problems.push(err),
        }
    }
    collected(rows, problems)
}

/// The rows when no row had a problem, else every problem.
pub fn collected<T>(rows: Vec<T>, problems: Vec<RowProblem>) -> Result<Vec<T>, Vec<RowProblem>> {
    if problems.is_empty() {
        Ok(rows)
    } else {
        Err(problems)
    }
}

fn parse_delimited(text: &str, delimiter: u8, shape: &Shape) -> Result<Vec<Row>, Vec<RowProblem>> {
    if let Some(line) = unclosed_quote(text, delimiter) {
        return Err(vec![problem(
            line,
            "a quoted field is never closed (a missing \")",
        )]);
    }
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|err| vec![problem(1, format!("unreadable header row: {err}"))])?
        .clone();
    // Each column the shape knows, with every header that names it (itself or an alias).
    let naming = |name: &str| -> Vec<(usize, String)> {
        headers
            .iter()
            .enumerate()
            .map(|(at, header)| (at, header.trim().to_lowercase()))
            .filter(|(_, header)| shape.canonical(header) == name)
            .collect()
    };
    for name in shape.required.iter().chain(shape.optional) {
        if let [first, second, ..] = naming(name).as_slice() {
            return Err(vec![problem(
                1,
                format!(
                    "the columns {} and {} both give the {name}; keep one",
                    first.1, second.1
                ),
            )]);
        }
    }
    let column = |name: &str| naming(name).first().map(|(at, _)| *at);
    let header_of = |name: &str| naming(name).first().map(|(_, header)| header.clone());
    if shape.required.iter().any(|name| column(name).is_none()) {
        let found: Vec<&str> = headers.iter().collect();
        let wanted: Vec<String> = shape
            .required
            .iter()
            .map(|name| shape.shown(name))
            .collect();
        return Err(vec![problem(
            1,
            format!(
                "the header row must name the columns {} (found: {})",
                wanted.join(" and "),
                found.join(", ")
            ),
        )]);
    }
    let sources: HashMap<String, String> = shape
        .required
        .iter()
        .chain(shape.optional)
        .filter_map(|name| Some((name.to_string(), header_of(name)?)))
        .filter(|(name, header)| name != header)
        .collect();
    let wanted: Vec<(&str, usize)> = shape
        .required
        .iter()
        .chain(shape.optional)
        .filter_map(|name| column(name).map(|at| (*name, at)))
        .collect();
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
        let fields = wanted
            .iter()
            .filter_map(|(name, at)| {
                record
                    .get(*at)
                    .map(|value| (name.to_string(), value.trim().to_string()))
            })
            .collect();
        let row = Row {
            line,
            fields,
            sources: sources.clone(),
        };
        match checked(row, shape) {
            Ok(row) => rows.push(row),
            Err(err) => problems.push(err),
        }
    }
    collected(rows, problems)
}

/// The line where a quoted field opens that the file never closes. The CSV reader would
/// silently take the rest of the file into that field, rows and all. As in the reader, a
/// field is quoted only when `"` is its first character, and `""` inside is a quote.
fn unclosed_quote(text: &str, delimiter: u8) -> Option<usize> {
    let bytes = text.as_bytes();
    let (mut at, mut line, mut field_start) = (0, 1, true);
    while let Some(&byte) = bytes.get(at) {
        at += 1;
        if field_start && byte == b'"' {
            let opened = line;
            loop {
                match (bytes.get(at), bytes.get(at + 1)) {
                    (None, _) => return Some(opened),
                    (Some(b'"'), Some(b'"')) => at += 2,
                    (Some(b'"'), _) => {
                        at += 1;
                        break;
                    }
                    (Some(b'\n'), _) => {
                        line += 1;
                        at += 1;
                    }
                    _ => at += 1,
                }
            }
            field_start = false;
            continue;
        }
        if byte == b'\n' {
            line += 1;
        }
        field_start = byte == delimiter || byte == b'\n' || byte == b'\r';
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const QUESTIONS: Shape = Shape {
        required: &["question"],
        optional: &["expected"],
        strings: true,
        aliases: &[],
    };

    #[test]
    fn json_strings_objects_and_numbers_become_rows() {
        let text = "[\"How many?\",\n {\"question\": \"Total?\", \"expected\": 46117.3}]";
        let rows = parse("q.json", text.as_bytes(), &QUESTIONS).expect("rows");
        assert_eq!(rows[0].get("question"), Some("How many?"));
        assert_eq!(
            (rows[1].line, rows[1].get("expected")),
            (2, Some("46117.3"))
        );
        let bad = parse("q.json", b"[1]", &QUESTIONS).expect_err("problems");
        assert!(bad[0].message.contains("a string or"), "{bad:?}");
    }

    #[test]
    fn optional_columns_may_be_missing_from_csv() {
        let rows = parse("q.tsv", b"question\nHow many?\n", &QUESTIONS).expect("rows");
        assert_eq!((rows[0].line, rows[0].get("expected")), (2, None));
        let bad = parse("q.csv", b"prompt\nx\n", &QUESTIONS).expect_err("problems");
        assert!(bad[0].message.contains("columns question"), "{bad:?}");
    }

    #[test]
    fn a_quote_never_closed_is_refused_at_its_line() {
        let bad =
            parse("q.csv", b"question\nfine\n\"open\nrest\n", &QUESTIONS).expect_err("problems");
        assert_eq!(bad[0].line, 3, "{bad:?}");
        assert!(bad[0].message.contains("never closed"), "{bad:?}");
        // Quotes that close, doubled quotes, line breaks inside quotes and quotes inside an
        // unquoted field are all fine.
        let text = "question,expected\n\"say \"\"hi\"\"\",\"a\nb\"\nit's 5\" long,x\n";
        let rows = parse("q.csv", text.as_bytes(), &QUESTIONS).expect("rows");
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].get("question"), Some("say \"hi\""));
        assert_eq!(rows[1].get("question"), Some("it's 5\" long"));
    }

    #[test]
    fn formats_are_detected_by_name_then_content() {
        assert_eq!(FileFormat::detect("a.JSON", ""), FileFormat::Json);
        assert_eq!(FileFormat::detect("a.tsv", "["), FileFormat::Tsv);
        assert_eq!(FileFormat::detect("a.txt", " ["), FileFormat::Json);
        assert_eq!(FileFormat::detect("a", "question,query"), FileFormat::Csv);
    }
}
