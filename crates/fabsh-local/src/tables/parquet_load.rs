//! Parquet files as rows to load: the columns of each file's schema, its values as text (a
//! null as an empty field), so a Parquet load infers column types as a CSV load does. Every
//! file of a load has the first one's columns. Nested values (groups, lists, maps) load as
//! their text.

use super::csv_load::TextTable;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;

/// Reads `files` (each named for errors) as the rows of `table`.
pub(crate) fn read(table: &str, files: Vec<(String, Vec<u8>)>) -> Result<TextTable, String> {
    let mut headers: Option<Vec<String>> = None;
    let mut records = Vec::new();
    for (name, bytes) in files {
        let reader = SerializedFileReader::new(bytes::Bytes::from(bytes))
            .map_err(|err| format!("{name} is not a Parquet file this server reads: {err}"))?;
        let own: Vec<String> = reader
            .metadata()
            .file_metadata()
            .schema()
            .get_fields()
            .iter()
            .map(|field| field.name().to_string())
            .collect();
        match &headers {
            None => headers = Some(own),
            Some(seen) if *seen == own => {}
            Some(seen) => {
                return Err(format!(
                    "{name} has the columns {}, where the first file has {}",
                    own.join(", "),
                    seen.join(", ")
                ));
            }
        }
        let rows = reader
            .get_row_iter(None)
            .map_err(|err| format!("{name}: unreadable rows: {err}"))?;
        for row in rows {
            let row = row.map_err(|err| format!("{name}: unreadable row: {err}"))?;
            let fields: Vec<String> = row
                .get_column_iter()
                .map(|(_, field)| text(field))
                .collect();
            records.push(csv::StringRecord::from(fields));
        }
    }
    let Some(headers) = headers else {
        return Err("no file to load".to_string());
    };
    TextTable::from_rows(table, headers, records)
}

/// A value as the text a CSV file would hold for it.
fn text(field: &Field) -> String {
    match field {
        Field::Null => String::new(),
        // Display quotes strings; the text is the string itself.
        Field::Str(text) => text.clone(),
        other => other.to_string(),
    }
}
