//! Tables for terminals and TSV for pipes, from lists of JSON objects. Tables are compact
//! (gh, kubectl): a header once, no lines between rows, one line per row. Identifiers (ids,
//! types, GUIDs) are never wrapped and keep their width; free text shrinks to fit the
//! terminal and is cut with `…`. Only when the free text would be cut past reading do GUIDs
//! give way, to their first 8 characters (as `docker ps` shows ids). `-o wide` shows
//! everything whole.

use super::format::ListWriter;
use comfy_table::{ColumnConstraint, ContentArrangement, Row, Table, Width, presets};
use serde_json::Value;
use std::io::Write;

/// Columns derived from data are capped so tables stay readable.
const MAX_DERIVED_COLUMNS: usize = 8;
/// Rows inspected when deriving columns.
const ROWS_FOR_COLUMNS: usize = 50;
/// Longest cell shown in a table before it is cut.
const MAX_CELL: usize = 80;

/// The columns to show: the command's declared ones, else the keys of the first rows.
pub(super) fn columns_for(items: &[Value], declared: &[&str]) -> Vec<String> {
    if !declared.is_empty() {
        return declared
            .iter()
            .map(std::string::ToString::to_string)
            .collect();
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
pub(super) fn lookup<'a>(item: &'a Value, column: &str) -> &'a Value {
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
pub(super) fn cell(value: &Value) -> String {
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

/// True for a column holding a fraction read as a percentage (`passRate`, `passRateDelta`).
fn is_rate_column(name: &str) -> bool {
    let leaf = name.rsplit('.').next().unwrap_or(name);
    leaf == "passRate" || leaf.ends_with("PassRate") || leaf.starts_with("passRate")
}

/// A cell as a table shows it: pass rates as percentages (`33.3%`, `+12.5%` for a delta)
/// rather than `0.3333333333333333`; JSON and TSV keep the fraction.
fn table_cell(column: &str, value: &Value) -> String {
    match value.as_f64() {
        Some(rate) if is_rate_column(column) => {
            let percent = format!("{:.1}", rate * 100.0);
            let percent = percent.strip_suffix(".0").unwrap_or(&percent).to_string();
            let leaf = column.rsplit('.').next().unwrap_or(column);
            if leaf.ends_with("Delta") && rate > 0.0 {
                format!("+{percent}%")
            } else {
                format!("{percent}%")
            }
        }
        _ => cell(value),
    }
}

/// At this width or less, the id column goes last: names and types stay readable and the
/// id, which only a copy needs whole, takes what room is left.
const NARROW: u16 = 100;

/// The columns in the order a table shows them: `id` last when the table is narrow.
fn shown_order(columns: Vec<String>, fit: Fit) -> Vec<String> {
    let narrow =
        fit == Fit::Terminal && new_table(fit).width().is_some_and(|width| width <= NARROW);
    if !narrow || columns.len() < 2 {
        return columns;
    }
    let (ids, mut rest): (Vec<String>, Vec<String>) =
        columns.into_iter().partition(|column| column == "id");
    rest.extend(ids);
    rest
}

fn shorten(text: String) -> String {
    // A multi-line cell shows its first line: rows stay one line each.
    let text = match text.split_once('\n') {
        Some((first, _)) => format!("{}…", first.trim_end()),
        None => text,
    };
    if text.chars().count() <= MAX_CELL {
        return text;
    }
    let mut cut: String = text.chars().take(MAX_CELL - 1).collect();
    cut.push('…');
    cut
}

/// How much room a table has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fit {
    /// The terminal's width (`COLUMNS`, else the terminal's own; none when piped).
    Terminal,
    /// Every column whole, however wide (`-o wide`).
    Wide,
}

/// The width tables fit into: `COLUMNS` when set, else none here (comfy-table asks the
/// terminal itself when stdout is one).
fn columns_env() -> Option<u16> {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .filter(|width| *width > 0)
}

fn new_table(fit: Fit) -> Table {
    let mut table = Table::new();
    table.load_style(presets::NOTHING);
    if fit == Fit::Terminal {
        table.set_content_arrangement(ContentArrangement::Dynamic);
        // Cells are cut to one line, never wrapped: with no word delimiter a cell is cut at
        // the column's width ("Scratch noteb…"), not at the last space that fits ("Scratch…").
        table.set_delimiter('\0');
        if let Some(width) = columns_env() {
            table.set_width(width);
        }
    }
    table
}

/// True for a column of identifiers, which keep their width to be copied (GUIDs give way
/// only in a table too narrow for its text: [`make_room`]): `id`, `...Id`, `type`, or one
/// whose every value is a GUID (or a number, a percentage or a boolean: short, and wrong
/// when cut).
fn is_identifier_column(name: &str, cells: &[String]) -> bool {
    let leaf = name.rsplit('.').next().unwrap_or(name);
    // An `…Id` of words (a time zone's `W. Europe Standard Time`) is text that may be cut.
    let words = cells.iter().any(|cell| cell.contains(' '));
    leaf == "id"
        || (leaf.ends_with("Id") && !words)
        || leaf == "type"
        || every_filled_cell(cells, |cell| {
            is_guid(cell)
                || cell.parse::<f64>().is_ok()
                || cell
                    .strip_suffix('%')
                    .is_some_and(|n| n.parse::<f64>().is_ok())
                || cell == "true"
                || cell == "false"
        })
}

/// True when some cell holds something and every cell that does passes `test`.
fn every_filled_cell(cells: &[String], test: impl Fn(&str) -> bool) -> bool {
    cells.iter().any(|cell| !cell.is_empty())
        && cells.iter().all(|cell| cell.is_empty() || test(cell))
}

fn is_guid(cell: &str) -> bool {
    uuid::Uuid::try_parse(cell).is_ok()
}

/// The width left to each free-text column but the name, when the name column takes the rest.
const MIN_FREE_WIDTH: u16 = 10;

/// The column people find a row by (`displayName`, `name`): it shrinks after the other free text.
fn is_name_column(name: &str) -> bool {
    matches!(
        name.rsplit('.').next().unwrap_or(name),
        "displayName" | "name"
    )
}

/// Rows of cells under `header` as a table that fits: identifier columns keep their full
/// width, the others shrink and cut with `…` (nothing cut with `Fit::Wide`); see
/// [`make_room`] for when GUIDs give way.
fn fitted(header: Vec<String>, show_header: bool, mut rows: Vec<Vec<String>>, fit: Fit) -> String {
    let mut table = new_table(fit);
    let mut columns: Vec<(String, Vec<String>, u16)> = header
        .iter()
        .enumerate()
        .map(|(index, name)| {
            (
                name.clone(),
                cells_of(&rows, index),
                padding(header.len(), index),
            )
        })
        .collect();
    let identifiers: Vec<bool> = columns
        .iter()
        .map(|(name, cells, _)| is_identifier_column(name, cells))
        .collect();
    if let (Fit::Terminal, Some(total)) = (fit, table.width()) {
        for index in make_room(&columns, &identifiers, total) {
            for cell in rows.iter_mut().filter_map(|row| row.get_mut(index)) {
                *cell = short_guid(cell);
            }
            for cell in &mut columns[index].1 {
                *cell = short_guid(cell);
            }
        }
    }
    if show_header {
        let mut row = Row::from(header);
        row.max_height(1);
        table.set_header(row);
    }
    for cells in rows {
        let mut row = Row::from(cells);
        if fit == Fit::Terminal {
            row.max_height(1);
        }
        table.add_row(row);
    }
    // What is left once identifiers have their width goes first to the name column (the one
    // people scan by), leaving the other free-text columns a little each.
    let fixed: u16 = columns
        .iter()
        .zip(&identifiers)
        .filter(|(_, identifier)| **identifier)
        .map(|((name, cells, padding), _)| widest(name, cells, *padding))
        .sum();
    let free = identifiers
        .iter()
        .filter(|identifier| !**identifier)
        .count() as u16;
    let for_name = table
        .width()
        .map(|total| total.saturating_sub(fixed + MIN_FREE_WIDTH * free.saturating_sub(1)));
    for (index, ((name, cells, padding), identifier)) in
        columns.iter().zip(&identifiers).enumerate()
    {
        let Some(column) = table.column_mut(index) else {
            continue;
        };
        column.set_padding((0, *padding));
        if fit != Fit::Terminal {
            continue;
        }
        let bound = if *identifier {
            Some(widest(name, cells, *padding))
        } else if is_name_column(name) {
            for_name.map(|room| room.min(widest(name, cells, *padding)))
        } else {
            None
        };
        if let Some(bound) = bound {
            column.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(bound)));
        }
    }
    table.trim_fmt()
}

/// The cells of one column (every row has one per column of the header).
fn cells_of(rows: &[Vec<String>], index: usize) -> Vec<String> {
    rows.iter()
        .filter_map(|row| row.get(index).cloned())
        .collect()
}

/// The space after a column: two, none after the last.
fn padding(columns: usize, index: usize) -> u16 {
    if index + 1 == columns { 0 } else { 2 }
}

/// A column's width whole: its widest cell or its name, with its padding.
fn widest(name: &str, cells: &[String], padding: u16) -> u16 {
    let widest = cells
        .iter()
        .map(String::as_str)
        .chain(std::iter::once(name))
        .map(|cell| cell.chars().count())
        .max()
        .unwrap_or(0)
        + usize::from(padding);
    u16::try_from(widest).unwrap_or(u16::MAX)
}

/// The GUID columns to cut to their first [`SHORT_GUID`] characters, as `docker ps` shows
/// ids: all of them when identifiers whole would leave the free text less than
/// [`READABLE`] a column in `total` columns, else none. A table is read by its names, and
/// `-o wide`, `json` and `tsv` keep every id whole.
fn make_room(
    columns: &[(String, Vec<String>, u16)],
    identifiers: &[bool],
    total: u16,
) -> Vec<usize> {
    let (mut fixed, mut wanted) = (0u16, 0u16);
    for ((name, cells, padding), identifier) in columns.iter().zip(identifiers) {
        let width = widest(name, cells, *padding);
        if *identifier {
            fixed = fixed.saturating_add(width);
        } else {
            wanted = wanted.saturating_add(width.min(READABLE));
        }
    }
    if total.saturating_sub(fixed) >= wanted {
        return Vec::new();
    }
    columns
        .iter()
        .zip(identifiers)
        .enumerate()
        .filter(|(_, ((_, cells, _), identifier))| {
            **identifier && every_filled_cell(cells, is_guid)
        })
        .map(|(index, _)| index)
        .collect()
}

/// Room a free-text column needs to be read (padding included), when it holds that much.
const READABLE: u16 = 12;

/// Characters of a GUID a narrow table shows (then `…`): eight tell ids apart at a glance.
const SHORT_GUID: usize = 8;

/// A GUID as a narrow table shows it: its first [`SHORT_GUID`] characters and `…`.
fn short_guid(cell: &str) -> String {
    if cell.is_empty() {
        return String::new();
    }
    let mut short: String = cell.chars().take(SHORT_GUID).collect();
    short.push('…');
    short
}

/// A list as a table with a header row.
pub(super) fn render_table(items: &[Value], declared: &[&str], fit: Fit) -> String {
    if items.is_empty() {
        return "(no results)".into();
    }
    let columns = shown_order(columns_for(items, declared), fit);
    let rows = items
        .iter()
        .map(|item| {
            columns
                .iter()
                .map(|column| shown(table_cell(column, lookup(item, column)), fit))
                .collect()
        })
        .collect();
    fitted(headers(&columns), true, rows, fit)
}

/// The header of each column: the last part of its path (`type` for `configuration.type`),
/// which is what the cells are, unless two columns would then read alike. A long dotted path
/// made a column wider than its cells, and at 80 columns left the others `…`.
fn headers(columns: &[String]) -> Vec<String> {
    let leaf = |column: &str| column.rsplit('.').next().unwrap_or(column).to_string();
    columns
        .iter()
        .map(|column| {
            let short = leaf(column);
            let shared = columns.iter().filter(|other| leaf(other) == short).count() > 1;
            if shared { column.clone() } else { short }
        })
        .collect()
}

/// An object as a two-column key/value table.
pub(super) fn render_object(value: &Value, fit: Fit) -> String {
    let rows = match value {
        Value::Object(map) => map
            .iter()
            .map(|(key, value)| vec![key.clone(), shown(table_cell(key, value), fit)])
            .collect(),
        _ => Vec::new(),
    };
    fitted(vec!["key".into(), "value".into()], false, rows, fit)
}

fn shown(text: String, fit: Fit) -> String {
    match fit {
        Fit::Terminal => shorten(text),
        Fit::Wide => text,
    }
}

/// TSV: one line per item, cells separated by tabs, no header row (so `cut`, `xargs` and
/// `while read` take the values as they are, as with az); tabs and line breaks inside cells
/// escaped.
pub(super) struct TsvWriter<'a> {
    out: &'a mut dyn Write,
    declared: Vec<String>,
    columns: Option<Vec<String>>,
}

impl<'a> TsvWriter<'a> {
    /// A writer onto `out` with the command's declared columns (may be empty).
    pub(super) fn new(out: &'a mut dyn Write, declared: &[&str]) -> Self {
        TsvWriter {
            out,
            declared: declared
                .iter()
                .map(std::string::ToString::to_string)
                .collect(),
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
        let columns = if let Some(columns) = &self.columns {
            columns.clone()
        } else {
            let declared: Vec<&str> = self.declared.iter().map(String::as_str).collect();
            let columns = columns_for(items, &declared);
            self.columns = Some(columns.clone());
            columns
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
    fn pass_rates_show_as_percentages_in_tables_only() {
        assert_eq!(table_cell("passRate", &json!(0.3333333333333333)), "33.3%");
        assert_eq!(table_cell("head.passRate", &json!(1.0)), "100%");
        assert_eq!(table_cell("passRateDelta", &json!(0.125)), "+12.5%");
        assert_eq!(table_cell("passRateDelta", &json!(-0.5)), "-50%");
        assert_eq!(table_cell("runs", &json!(0.5)), "0.5");
        assert_eq!(tsv_cell(&json!(0.5)), "0.5");
    }

    #[test]
    fn percentages_keep_their_width_like_numbers() {
        let cells = |list: &[&str]| {
            list.iter()
                .map(std::string::ToString::to_string)
                .collect::<Vec<_>>()
        };
        assert!(is_identifier_column(
            "passRate",
            &cells(&["100%", "33.3%", ""])
        ));
        assert!(is_identifier_column("runs", &cells(&["3", "12"])));
        assert!(!is_identifier_column("note", &cells(&["100%", "most"])));
        assert!(!is_identifier_column("note", &cells(&["%", "5 %"])));
    }

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
