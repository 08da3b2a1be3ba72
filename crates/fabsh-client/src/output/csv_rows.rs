//! CSV for spreadsheets and data tools (`-o csv`): RFC 4180 quoting by the `csv` crate (a
//! field holding a comma, a double quote, CR or LF is quoted, quotes inside doubled), a
//! header row naming the same columns TSV gives, then one record per item. Records end with
//! LF rather than RFC 4180's CRLF: the same line ends as every other format here, and CSV
//! readers (Python's csv, Excel, pandas, DuckDB) accept both.

use super::format::ListWriter;
use super::table::{cell, columns_for, lookup};
use serde_json::Value;
use std::io::Write;

/// Writes lists as CSV page by page; the header goes out with the first page (or at the
/// end, for an empty list with declared columns, so a reader still sees the columns).
pub(super) struct CsvWriter<'a> {
    out: csv::Writer<&'a mut dyn Write>,
    declared: Vec<String>,
    columns: Option<Vec<String>>,
}

impl<'a> CsvWriter<'a> {
    /// A writer onto `out` with the command's declared columns (may be empty).
    pub(super) fn new(out: &'a mut dyn Write, declared: &[&str]) -> Self {
        CsvWriter {
            out: csv::WriterBuilder::new()
                .terminator(csv::Terminator::Any(b'\n'))
                .from_writer(out),
            declared: declared
                .iter()
                .map(std::string::ToString::to_string)
                .collect(),
            columns: None,
        }
    }

    fn header(&mut self, columns: Vec<String>) -> std::io::Result<()> {
        self.out.write_record(&columns).map_err(csv_error)?;
        self.columns = Some(columns);
        Ok(())
    }
}

fn csv_error(err: csv::Error) -> std::io::Error {
    match err.into_kind() {
        csv::ErrorKind::Io(err) => err,
        other => std::io::Error::other(format!("{other:?}")),
    }
}

impl ListWriter for CsvWriter<'_> {
    fn page(&mut self, items: &[Value]) -> std::io::Result<()> {
        if items.is_empty() {
            return Ok(());
        }
        let columns = if let Some(columns) = &self.columns {
            columns.clone()
        } else {
            let declared: Vec<&str> = self.declared.iter().map(String::as_str).collect();
            let columns = columns_for(items, &declared);
            self.header(columns.clone())?;
            columns
        };
        for item in items {
            let record = columns.iter().map(|column| cell(lookup(item, column)));
            self.out.write_record(record).map_err(csv_error)?;
        }
        self.out.flush()
    }

    fn finish(mut self: Box<Self>) -> std::io::Result<()> {
        if self.columns.is_none() && !self.declared.is_empty() {
            let declared = self.declared.clone();
            self.header(declared)?;
        }
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn quotes_only_fields_that_need_it_and_heads_with_the_columns() {
        let mut buffer = Vec::new();
        let mut writer = Box::new(CsvWriter::new(&mut buffer, &["id", "name"]));
        writer
            .page(&[
                json!({"id": "1", "name": "a, \"b\""}),
                json!({"id": "2", "name": "line\nbreak"}),
            ])
            .expect("write");
        writer.finish().expect("write");
        assert_eq!(
            String::from_utf8(buffer).expect("utf8"),
            "id,name\n1,\"a, \"\"b\"\"\"\n2,\"line\nbreak\"\n"
        );
    }

    #[test]
    fn an_empty_list_still_names_its_declared_columns() {
        let mut buffer = Vec::new();
        let writer = Box::new(CsvWriter::new(&mut buffer, &["id", "name"]));
        writer.finish().expect("write");
        assert_eq!(String::from_utf8(buffer).expect("utf8"), "id,name\n");
    }
}
