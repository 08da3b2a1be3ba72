//! Loading CSV files into a table: the header names the columns (without one, they are
//! `_c0`, `_c1`, ... as Spark names them), each column's type is inferred from its values
//! (bigint, float, date, bit, else varchar), empty fields are NULL. An existing table of the
//! same name is replaced, or appended to when its columns are the files' and their values fit
//! its types, in one transaction.

use super::quote_identifier;
use rusqlite::Connection;
use rusqlite::types::Value as SqlValue;
use serde::Serialize;

/// What a load did.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct LoadedTable {
    /// The table.
    pub table: String,
    /// Rows inserted.
    pub rows: usize,
    /// Columns and their inferred types.
    pub columns: Vec<LoadedColumn>,
}

/// One column of a loaded table.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct LoadedColumn {
    /// Name from the header.
    pub name: String,
    /// Inferred type.
    #[serde(rename = "type")]
    pub kind: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Inferred {
    Bit,
    BigInt,
    Float,
    Date,
    Varchar,
}

impl Inferred {
    fn name(self) -> &'static str {
        match self {
            Inferred::Bit => "bit",
            Inferred::BigInt => "bigint",
            Inferred::Float => "float",
            Inferred::Date => "date",
            Inferred::Varchar => "varchar",
        }
    }

    /// The type of a column declared `declared`, read as SQLite reads declared types (by
    /// what they contain: `int`, `decimal(10,2)`, `nvarchar(50)`), dates and bits apart.
    fn declared(declared: &str) -> Inferred {
        let upper = declared.to_ascii_uppercase();
        let has = |part: &str| upper.contains(part);
        if has("INT") {
            Inferred::BigInt
        } else if has("BIT") || has("BOOL") {
            Inferred::Bit
        } else if upper == "DATE" {
            Inferred::Date
        } else if has("CHAR") || has("TEXT") || has("CLOB") || upper.is_empty() {
            Inferred::Varchar
        } else if has("REAL") || has("FLOA") || has("DOUB") || has("DEC") || has("NUM") {
            Inferred::Float
        } else {
            Inferred::Varchar
        }
    }

    fn of(text: &str) -> Inferred {
        if matches!(text.to_ascii_lowercase().as_str(), "true" | "false") {
            Inferred::Bit
        } else if text.parse::<i64>().is_ok() {
            Inferred::BigInt
        } else if text.parse::<f64>().is_ok_and(f64::is_finite) {
            Inferred::Float
        } else if is_date(text) {
            Inferred::Date
        } else {
            Inferred::Varchar
        }
    }

    /// The narrowest type holding both.
    fn widen(self, other: Inferred) -> Inferred {
        match (self, other) {
            (a, b) if a == b => a,
            (Inferred::BigInt, Inferred::Float) | (Inferred::Float, Inferred::BigInt) => {
                Inferred::Float
            }
            _ => Inferred::Varchar,
        }
    }

    fn value(self, text: &str) -> SqlValue {
        match self {
            Inferred::Bit => SqlValue::Integer(i64::from(text.eq_ignore_ascii_case("true"))),
            Inferred::BigInt => text.parse().map_or(SqlValue::Null, SqlValue::Integer),
            Inferred::Float => text.parse().map_or(SqlValue::Null, SqlValue::Real),
            Inferred::Date | Inferred::Varchar => SqlValue::Text(text.to_string()),
        }
    }
}

fn is_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 10
        && bytes[4] == b'-'
        && bytes[7] == b'-'
        && bytes
            .iter()
            .enumerate()
            .all(|(i, b)| i == 4 || i == 7 || b.is_ascii_digit())
}

/// True for names made of letters, digits and underscores, not starting with a digit.
pub(crate) fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.len() <= 128
}

/// How the CSV files of a load are written.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CsvFormat {
    /// Whether each file's first row names the columns.
    pub header: bool,
    /// The byte between fields.
    pub delimiter: u8,
}

impl Default for CsvFormat {
    fn default() -> CsvFormat {
        CsvFormat {
            header: true,
            delimiter: b',',
        }
    }
}

/// What a load does to a table that exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LoadMode {
    /// Replaces it.
    Overwrite,
    /// Adds the rows to it.
    Append,
}

/// Rows of text read and checked, ready to load (from CSV files, or a Parquet file's values):
/// their column names, the types inferred from their values and the rows.
pub(crate) struct TextTable {
    table: String,
    headers: Vec<String>,
    types: Vec<Inferred>,
    records: Vec<csv::StringRecord>,
}

impl TextTable {
    /// Reads `bytes` (CSV with a header row) for `table`: a bad table or column name, an
    /// unreadable or ragged row is an error naming it, before any store is touched.
    pub(crate) fn parse(table: &str, bytes: &[u8]) -> Result<TextTable, String> {
        TextTable::read(table, &[("the file", bytes)], CsvFormat::default())
    }

    /// Reads `files` (each named for errors) as one table's rows: with a header, every file's
    /// must be the first's; without, every file has as many fields a row.
    pub(crate) fn read(
        table: &str,
        files: &[(&str, &[u8])],
        format: CsvFormat,
    ) -> Result<TextTable, String> {
        let mut headers: Option<Vec<String>> = None;
        let mut records = Vec::new();
        for (name, bytes) in files {
            let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
            let mut reader = csv::ReaderBuilder::new()
                .flexible(true)
                .has_headers(format.header)
                .delimiter(format.delimiter)
                .from_reader(bytes);
            let first = records.len();
            for record in reader.records() {
                records.push(record.map_err(|err| format!("{name}: unreadable row: {err}"))?);
            }
            let own: Vec<String> = if format.header {
                let row = reader
                    .headers()
                    .map_err(|err| format!("{name}: unreadable header row: {err}"))?;
                row.iter().map(|h| h.trim().to_string()).collect()
            } else {
                let width = records.get(first).map_or(0, csv::StringRecord::len);
                (0..width).map(|i| format!("_c{i}")).collect()
            };
            match &headers {
                None => headers = Some(own),
                Some(seen) if same_names(seen, &own) => {}
                Some(seen) => {
                    return Err(format!(
                        "{name} has the columns {}, where the first file has {}",
                        own.join(", "),
                        seen.join(", ")
                    ));
                }
            }
            let width = headers.as_ref().map_or(0, Vec::len);
            if let Some(ragged) = records[first..].iter().find(|r| r.len() != width) {
                let line = ragged.position().map_or(0, csv::Position::line);
                return Err(format!(
                    "{name} line {line}: {} fields where the header has {width}",
                    ragged.len()
                ));
            }
        }
        let Some(headers) = headers else {
            return Err("no file to load".to_string());
        };
        TextTable::from_rows(table, headers, records)
    }

    /// Rows of text (an empty field for NULL) under their column names, as CSV files or a
    /// Parquet file's values give them: a bad table or column name is an error naming it,
    /// each column's type is inferred from its values.
    pub(crate) fn from_rows(
        table: &str,
        headers: Vec<String>,
        records: Vec<csv::StringRecord>,
    ) -> Result<TextTable, String> {
        if !valid_name(table) {
            return Err(format!(
                "'{table}' is not a valid table name (letters, digits and _, not starting with a digit)"
            ));
        }
        if headers.is_empty() || headers.iter().any(|h| !valid_name(h)) {
            return Err(format!(
                "every header must be a column name (letters, digits and _): {}",
                headers.join(", ")
            ));
        }
        let mut types: Vec<Option<Inferred>> = vec![None; headers.len()];
        for record in &records {
            for (slot, field) in types.iter_mut().zip(record.iter()) {
                if field.is_empty() {
                    continue;
                }
                let kind = Inferred::of(field);
                *slot = Some(slot.map_or(kind, |seen| seen.widen(kind)));
            }
        }
        let types = types
            .into_iter()
            .map(|t| t.unwrap_or(Inferred::Varchar))
            .collect();
        Ok(TextTable {
            table: table.to_string(),
            headers,
            types,
            records,
        })
    }

    /// Loads the rows into the table, in one transaction: replacing it if it exists, or with
    /// [`LoadMode::Append`] adding to it when it has the same columns and their types hold
    /// the rows' values.
    pub(crate) fn load(self, conn: &mut Connection, mode: LoadMode) -> Result<LoadedTable, String> {
        let TextTable {
            table,
            headers,
            mut types,
            records,
        } = self;
        let sql_error = |err: rusqlite::Error| err.to_string();
        let tx = conn.transaction().map_err(sql_error)?;
        let quoted = quote_identifier(&table);
        let existing = match mode {
            LoadMode::Append => existing_columns(&tx, &table).map_err(sql_error)?,
            LoadMode::Overwrite => None,
        };
        if let Some(columns) = existing {
            types = appendable(&table, &headers, &types, &columns)?;
        } else {
            let columns: Vec<String> = headers
                .iter()
                .zip(&types)
                .map(|(name, kind)| format!("{} {}", quote_identifier(name), kind.name()))
                .collect();
            tx.execute_batch(&format!(
                "DROP TABLE IF EXISTS {quoted}; CREATE TABLE {quoted} ({});",
                columns.join(", ")
            ))
            .map_err(sql_error)?;
        }
        let placeholders = vec!["?"; headers.len()].join(", ");
        {
            let mut insert = tx
                .prepare(&format!("INSERT INTO {quoted} VALUES ({placeholders})"))
                .map_err(sql_error)?;
            for record in &records {
                let values: Vec<SqlValue> = record
                    .iter()
                    .zip(&types)
                    .map(|(field, kind)| {
                        if field.is_empty() {
                            SqlValue::Null
                        } else {
                            kind.value(field)
                        }
                    })
                    .collect();
                insert
                    .execute(rusqlite::params_from_iter(values))
                    .map_err(sql_error)?;
            }
        }
        tx.commit().map_err(sql_error)?;
        Ok(LoadedTable {
            table,
            rows: records.len(),
            columns: headers
                .into_iter()
                .zip(types)
                .map(|(name, kind)| LoadedColumn {
                    name,
                    kind: kind.name().to_string(),
                })
                .collect(),
        })
    }
}

/// Whether two lists of column names are the same (ASCII case aside, as SQL compares them).
fn same_names(a: &[String], b: &[String]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.eq_ignore_ascii_case(b))
}

/// The names and declared types of `table`'s columns, `None` when there is no such table.
fn existing_columns(
    conn: &Connection,
    table: &str,
) -> rusqlite::Result<Option<Vec<(String, String)>>> {
    let mut statement = conn.prepare("SELECT name, type FROM pragma_table_info(?1)")?;
    let columns = statement
        .query_map([table], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<Vec<(String, String)>>>()?;
    Ok((!columns.is_empty()).then_some(columns))
}

/// The types rows are appended with: the table's own, when its columns are the files' and
/// each holds the values the files have for it.
fn appendable(
    table: &str,
    headers: &[String],
    inferred: &[Inferred],
    columns: &[(String, String)],
) -> Result<Vec<Inferred>, String> {
    let names: Vec<String> = columns.iter().map(|(name, _)| name.clone()).collect();
    if !same_names(headers, &names) {
        return Err(format!(
            "the table {table} has the columns {}, the files {}: append needs the same columns",
            names.join(", "),
            headers.join(", ")
        ));
    }
    headers
        .iter()
        .zip(inferred)
        .zip(columns)
        .map(|((name, kind), (_, declared))| {
            let declared = Inferred::declared(declared);
            if declared.widen(*kind) == declared {
                Ok(declared)
            } else {
                Err(format!(
                    "column {name} of {table} is {}; the files' values for it are {}",
                    declared.name(),
                    kind.name()
                ))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(conn: &mut Connection, table: &str, bytes: &[u8]) -> Result<LoadedTable, String> {
        TextTable::parse(table, bytes)?.load(conn, LoadMode::Overwrite)
    }

    #[test]
    fn types_are_inferred_per_column() {
        let mut conn = Connection::open_in_memory().expect("db");
        let csv = b"id,price,day,flag,note\n1,2.5,2024-01-02,true,a\n2,3,2024-02-03,false,\n";
        let loaded = load(&mut conn, "items", csv).expect("load");
        let kinds: Vec<&str> = loaded.columns.iter().map(|c| c.kind.as_str()).collect();
        assert_eq!(kinds, vec!["bigint", "float", "date", "bit", "varchar"]);
        assert_eq!(loaded.rows, 2);
        let note: Option<String> = conn
            .query_row("SELECT note FROM items WHERE id = 2", [], |r| r.get(0))
            .expect("row");
        assert_eq!(note, None);
        // Loading again replaces the table.
        load(&mut conn, "items", b"id\n7\n").expect("reload");
        let count: i64 = conn
            .query_row("SELECT count(*) FROM items", [], |r| r.get(0))
            .expect("count");
        assert_eq!(count, 1);
    }

    #[test]
    fn bad_names_and_ragged_rows_are_refused() {
        let mut conn = Connection::open_in_memory().expect("db");
        assert!(load(&mut conn, "1abc", b"a\n1\n").is_err());
        assert!(load(&mut conn, "t", b"a b\n1\n").is_err());
        let ragged = load(&mut conn, "t", b"a,b\n1,2\n3\n").unwrap_err();
        assert!(ragged.contains("line 3"), "{ragged}");
    }
}
