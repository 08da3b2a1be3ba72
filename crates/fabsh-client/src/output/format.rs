//! The output formats and how each writes a value.

use super::json_stream::JsonListWriter;
use super::table;
use serde_json::Value;
use std::io::Write;

/// An output format (`-o`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Table,
    /// A table with every column whole (`-o wide`).
    Wide,
    Tsv,
    Yaml,
}

/// Writes a list page by page.
pub trait ListWriter {
    /// Writes the items of one page.
    fn page(&mut self, items: &[Value]) -> std::io::Result<()>;
    /// Ends the list.
    fn finish(self: Box<Self>) -> std::io::Result<()>;
}

impl Format {
    /// The names accepted by `-o`.
    pub const NAMES: &'static [&'static str] = &["json", "table", "wide", "tsv", "yaml"];

    /// Parses `-o`'s value.
    pub fn parse(text: &str) -> Option<Format> {
        Some(match text.to_ascii_lowercase().as_str() {
            "json" => Format::Json,
            "table" => Format::Table,
            "wide" => Format::Wide,
            "tsv" => Format::Tsv,
            "yaml" => Format::Yaml,
            _ => return None,
        })
    }

    /// True for the tables people read (`table`, `wide`).
    pub fn is_table(self) -> bool {
        matches!(self, Format::Table | Format::Wide)
    }

    /// True when lists can be written page by page without seeing them whole.
    pub fn streams(self) -> bool {
        matches!(self, Format::Json | Format::Tsv)
    }

    /// A writer that emits a list page by page.
    pub fn list_writer<'a>(
        self,
        out: &'a mut dyn Write,
        columns: &[&str],
    ) -> Box<dyn ListWriter + 'a> {
        match self {
            Format::Tsv => Box::new(table::TsvWriter::new(out, columns)),
            _ => Box::new(JsonListWriter::new(out)),
        }
    }

    /// Writes a whole value.
    pub fn write(
        self,
        out: &mut dyn Write,
        value: &Value,
        columns: &[&str],
    ) -> std::io::Result<()> {
        match self {
            Format::Json => {
                serde_json::to_writer_pretty(&mut *out, value)?;
                writeln!(out)
            }
            Format::Yaml => {
                let text = serde_yaml_ng::to_string(value).map_err(std::io::Error::other)?;
                out.write_all(text.as_bytes())
            }
            Format::Table | Format::Wide => {
                let fit = if self == Format::Wide {
                    table::Fit::Wide
                } else {
                    table::Fit::Terminal
                };
                let text = match value {
                    Value::Array(items) => table::render_table(items, columns, fit),
                    Value::Object(_) => table::render_object(value, fit),
                    Value::Null => return Ok(()),
                    scalar => table::cell(scalar),
                };
                writeln!(out, "{text}")
            }
            Format::Tsv => match value {
                Value::Array(items) => {
                    let mut writer = table::TsvWriter::new(out, columns);
                    writer.page(items)?;
                    Box::new(writer).finish()
                }
                Value::Object(_) => {
                    let mut writer = table::TsvWriter::new(out, columns);
                    writer.page(std::slice::from_ref(value))?;
                    Box::new(writer).finish()
                }
                Value::Null => Ok(()),
                scalar => writeln!(out, "{}", table::cell(scalar)),
            },
        }
    }
}
