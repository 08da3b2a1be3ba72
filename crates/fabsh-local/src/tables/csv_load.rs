//! Loading a CSV file into a table: the header names the columns, each column's type is
//! inferred from its values (bigint, float, date, bit, else varchar), empty fields are NULL.
//! An existing table of the same name is replaced, in one transaction.

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

/// A CSV file read and checked, ready to load: its column names, their inferred types and
/// its rows.
pub(crate) struct CsvTable {
    table: String,
    headers: Vec<String>,
    types: Vec<Inferred>,
    records: Vec<csv::StringRecord>,
}

impl CsvTable {
    /// Reads `bytes` (CSV with a header row) for `table`: a bad table or column name, an
    /// unreadable or ragged row is an error naming it, before any store is touched.
    pub(crate) fn parse(table: &str, bytes: &[u8]) -> Result<CsvTable, String> {
        if !valid_name(table) {
            return Err(format!(
                "'{table}' is not a valid table name (letters, digits and _, not starting with a digit)"
            ));
        }
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(bytes);
        let headers: Vec<String> = reader
            .headers()
            .map_err(|err| format!("unreadable header row: {err}"))?
            .iter()
            .map(|h| h.trim().to_string())
            .collect();
        if headers.is_empty() || headers.iter().any(|h| !valid_name(h)) {
            return Err(format!(
                "every header must be a column name (letters, digits and _): {}",
                headers.join(", ")
            ));
        }
        let mut records = Vec::new();
        for record in reader.records() {
            let record = record.map_err(|err| format!("unreadable row: {err}"))?;
            if record.len() != headers.len() {
                let line = record.position().map_or(0, csv::Position::line);
                return Err(format!(
                    "line {line}: {} fields where the header has {}",
                    record.len(),
                    headers.len()
                ));
            }
            records.push(record);
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
        Ok(CsvTable {
            table: table.to_string(),
            headers,
            types,
            records,
        })
    }

    /// Loads the rows into the table, replacing it if it exists, in one transaction.
    pub(crate) fn load(self, conn: &mut Connection) -> Result<LoadedTable, String> {
        let CsvTable {
            table,
            headers,
            types,
            records,
        } = self;
        let columns: Vec<String> = headers
            .iter()
            .zip(&types)
            .map(|(name, kind)| format!("{} {}", quote_identifier(name), kind.name()))
            .collect();
        let tx = conn.transaction().map_err(|err| err.to_string())?;
        let quoted = quote_identifier(&table);
        let placeholders = vec!["?"; headers.len()].join(", ");
        let sql_error = |err: rusqlite::Error| err.to_string();
        tx.execute_batch(&format!(
            "DROP TABLE IF EXISTS {quoted}; CREATE TABLE {quoted} ({});",
            columns.join(", ")
        ))
        .map_err(sql_error)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn load(conn: &mut Connection, table: &str, bytes: &[u8]) -> Result<LoadedTable, String> {
        CsvTable::parse(table, bytes)?.load(conn)
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
