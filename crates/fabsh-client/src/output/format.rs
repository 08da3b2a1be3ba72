//! The output formats and how each writes a value.

use super::csv_rows::CsvWriter;
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
    /// RFC 4180 CSV with a header row (`-o csv`).
    Csv,
    Yaml,
    /// A command's page as HTML (`-o html`): only the commands that make one take it.
    Html,
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
    pub const NAMES: &'static [&'static str] =
        &["json", "table", "wide", "tsv", "csv", "yaml", "html"];
    /// The names a default format may take (a profile's `output`, `FABSH_OUTPUT`, the REPL's
    /// `:output`): all but html, which only some commands write.
    pub const DEFAULT_NAMES: &'static [&'static str] = fabsh_api::config::OUTPUT_NAMES;

    /// Parses `-o`'s value.
    pub fn parse(text: &str) -> Option<Format> {
        Some(match text.to_ascii_lowercase().as_str() {
            "json" => Format::Json,
            "table" => Format::Table,
            "wide" => Format::Wide,
            "tsv" => Format::Tsv,
            "csv" => Format::Csv,
            "yaml" => Format::Yaml,
            "html" => Format::Html,
            _ => return None,
        })
    }

    /// Parses a default format's name (one of [`Format::DEFAULT_NAMES`]).
    pub fn parse_default(text: &str) -> Option<Format> {
        Format::parse(text).filter(|format| *format != Format::Html)
    }

    /// The format the environment or profile asks for when `-o` is not given.
    pub fn configured(settings: &fabsh_api::config::Settings) -> Option<Format> {
        settings
            .output_name()
            .and_then(|name| Format::parse_default(&name))
    }

    /// True for the tables people read (`table`, `wide`).
    pub fn is_table(self) -> bool {
        matches!(self, Format::Table | Format::Wide)
    }

    /// True when lists can be written page by page without seeing them whole.
    pub fn streams(self) -> bool {
        matches!(self, Format::Json | Format::Tsv | Format::Csv)
    }

    /// True for the formats that write rows of columns (tables, TSV, CSV): a reply that
    /// names its rows (`sql query`'s `rows`) shows those rather than the whole object.
    pub fn is_rows(self) -> bool {
        matches!(
            self,
            Format::Table | Format::Wide | Format::Tsv | Format::Csv
        )
    }

    /// A writer that emits a list page by page.
    pub fn list_writer<'a>(
        self,
        out: &'a mut dyn Write,
        columns: &[&str],
    ) -> Box<dyn ListWriter + 'a> {
        match self {
            Format::Tsv => Box::new(table::TsvWriter::new(out, columns)),
            Format::Csv => Box::new(CsvWriter::new(out, columns)),
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
            // The printer writes a command's page itself; a value has none.
            Format::Html => Err(std::io::Error::other("-o html: this result has no page")),
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
            Format::Tsv | Format::Csv => {
                let items = match value {
                    Value::Array(items) => items.as_slice(),
                    Value::Object(_) => std::slice::from_ref(value),
                    Value::Null => return Ok(()),
                    scalar => return writeln!(out, "{}", table::cell(scalar)),
                };
                let mut writer = self.list_writer(out, columns);
                writer.page(items)?;
                writer.finish()
            }
        }
    }
}
