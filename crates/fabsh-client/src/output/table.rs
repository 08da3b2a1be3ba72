//! Tables for terminals and TSV for pipes, from lists of JSON objects.

use super::format::ListWriter;
use comfy_table::{ContentArrangement, Table, presets};
use serde_json::Value;
use std::io::Write;

/// Columns derived from data are capped so tables stay readable.
const MAX_DERIVED_COLUMNS: usize = 8;
/// Rows inspected when deriving columns.
const ROWS_FOR_COLUMNS: usize = 50;
/// Longest cell shown in a table before it is cut.
const MAX_CELL: usize = 80;

/// The columns to show: the command's declared ones, else the keys of the first rows.
pub fn columns_for(items: &[Value], declared: &[&str]) -> Vec<String> {
    if !declared.is_empty() {
        return declared.iter().map(|column| column.to_string()).collect();
    }
    let mut columns: Vec<String> = Vec::new();
    for item in items.iter().take(ROWS_FOR_COLUMNS) {
        match item {
            Value::Object(map) => {
                for key in map.keys() {
                    if !columns.contains(key) && columns.len() < MAX_DERIVED_COLUMNS {
                        columns.push(key.clone());
                    }
                }
            }
            _ if columns.is_empty() => columns.push("value".into()),
            _ => {}
        }
    }
    columns
}

/// The value at a column: a key, a dotted path (`sensitivityLabel.id`), or the item itself
/// for lists of plain values.
fn lookup<'a>(item: &'a Value, column: &str) -> &'a Value {
    if !item.is_object() {
        return if column == "value" {
            item
        } else {
            &Value::Null
        };
    }
    column
        .split('.')
        .fold(item, |value, key| value.get(key).unwrap_or(&Value::Null))
}

/// A value as cell text: strings bare, null empty, lists of plain values comma-joined,
/// anything else compact JSON.
pub fn cell(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(text) => text.clone(),
        Value::Bool(_) | Value::Number(_) => value.to_string(),
        Value::Array(items)
            if items
                .iter()
                .all(|item| !item.is_object() && !item.is_array()) =>
        {
            items.iter().map(cell).collect::<Vec<_>>().join(",")
        }
        other => other.to_string(),
    }
}

fn shorten(text: String) -> String {
    if text.chars().count() <= MAX_CELL {
        return text;
    }
    let mut cut: String = text.chars().take(MAX_CELL - 1).collect();
    cut.push('…');
    cut
}

fn new_table() -> Table {
    let mut table = Table::new();
    table
        .load_style(presets::UTF8_HORIZONTAL_ONLY)
        .set_content_arrangement(ContentArrangement::Dynamic);
    table
}

/// A list as a table with a header row.
pub fn render_table(items: &[Value], declared: &[&str]) -> String {
    if items.is_empty() {
        return "(no results)".into();
    }
    let columns = columns_for(items, declared);
    let mut table = new_table();
    table.set_header(columns.clone());
    for item in items {
        table.add_row(
            columns
                .iter()
                .map(|column| shorten(cell(lookup(item, column)))),
        );
    }
    table.to_string()
}

/// An object as a two-column key/value table.
pub fn render_object(value: &Value) -> String {
    let mut table = new_table();
    if let Value::Object(map) = value {
        for (key, value) in map {
            table.add_row(vec![key.clone(), shorten(cell(value))]);
        }
    }
    table.to_string()
}

/// TSV: one line per item, cells separated by tabs, no header row (so `cut`, `xargs` and
/// `while read` take the values as they are, as with az); tabs and line breaks inside cells
/// escaped.
pub struct TsvWriter<'a> {
    out: &'a mut dyn Write,
    declared: Vec<String>,
    columns: Option<Vec<String>>,
}

impl<'a> TsvWriter<'a> {
    /// A writer onto `out` with the command's declared columns (may be empty).
    pub fn new(out: &'a mut dyn Write, declared: &[&str]) -> Self {
        TsvWriter {
            out,
            declared: declared.iter().map(|c| c.to_string()).collect(),
            columns: None,
        }
    }
}

fn tsv_cell(value: &Value) -> String {
    cell(value)
        .replace('\\', "\\\\")
        .replace('\t', "\\t")
        .replace('\n', "\\n")
        .replace('\r', "\\r")
}

impl ListWriter for TsvWriter<'_> {
    fn page(&mut self, items: &[Value]) -> std::io::Result<()> {
        if items.is_empty() {
            return Ok(());
        }
        let columns = match &self.columns {
            Some(columns) => columns.clone(),
            None => {
                let declared: Vec<&str> = self.declared.iter().map(String::as_str).collect();
                let columns = columns_for(items, &declared);
                self.columns = Some(columns.clone());
                columns
            }
        };
        for item in items {
            let row: Vec<String> = columns
                .iter()
                .map(|column| tsv_cell(lookup(item, column)))
                .collect();
            writeln!(self.out, "{}", row.join("\t"))?;
        }
        self.out.flush()
    }

    fn finish(self: Box<Self>) -> std::io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn derived_columns_follow_first_appearance() {
        let items = [
            json!({"id": "1", "name": "a"}),
            json!({"id": "2", "type": "T"}),
        ];
        assert_eq!(columns_for(&items, &[]), vec!["id", "name", "type"]);
        assert_eq!(columns_for(&items, &["type"]), vec!["type"]);
    }

    #[test]
    fn tsv_escapes_and_reads_dotted_paths() {
        let mut buffer = Vec::new();
        let mut writer = Box::new(TsvWriter::new(&mut buffer, &["id", "label.id"]));
        writer
            .page(&[
                json!({"id": "a\tb", "label": {"id": "L"}}),
                json!({"id": "c"}),
            ])
            .expect("write");
        writer.finish().expect("write");
        assert_eq!(String::from_utf8(buffer).expect("utf8"), "a\\tb\tL\nc\t\n");
    }

    #[test]
    fn cells_show_plain_lists_joined_and_objects_as_json() {
        assert_eq!(cell(&json!(["a", 1])), "a,1");
        assert_eq!(cell(&json!({"k": 1})), r#"{"k":1}"#);
        assert_eq!(cell(&Value::Null), "");
    }
}
