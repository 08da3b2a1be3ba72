//! A JSON array written element by element, so `--all` over many pages never holds the
//! whole list in memory.

use super::format::ListWriter;
use serde_json::Value;
use std::io::Write;

/// Writes `[`, the items (pretty, indented as inside an array), then `]`.
pub(super) struct JsonListWriter<'a> {
    out: &'a mut dyn Write,
    written: usize,
}

impl<'a> JsonListWriter<'a> {
    /// A writer onto `out`.
    pub(super) fn new(out: &'a mut dyn Write) -> Self {
        JsonListWriter { out, written: 0 }
    }
}

impl ListWriter for JsonListWriter<'_> {
    fn page(&mut self, items: &[Value]) -> std::io::Result<()> {
        for item in items {
            self.out.write_all(if self.written == 0 {
                b"[\n  "
            } else {
                b",\n  "
            })?;
            let text = serde_json::to_string_pretty(item).map_err(std::io::Error::other)?;
            // Pretty JSON only has line breaks between tokens (breaks inside strings are
            // escaped), so indenting every line nests the item correctly.
            self.out.write_all(text.replace('\n', "\n  ").as_bytes())?;
            self.written += 1;
        }
        self.out.flush()
    }

    fn finish(self: Box<Self>) -> std::io::Result<()> {
        let end: &[u8] = if self.written == 0 { b"[]\n" } else { b"\n]\n" };
        self.out.write_all(end)?;
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn streamed_pages_make_one_valid_array() {
        let mut buffer = Vec::new();
        let mut writer = Box::new(JsonListWriter::new(&mut buffer));
        writer
            .page(&[json!({"a": 1}), json!({"b": [1, 2]})])
            .expect("write");
        writer.page(&[]).expect("write");
        writer.page(&[json!("x")]).expect("write");
        writer.finish().expect("write");
        let parsed: Value = serde_json::from_slice(&buffer).expect("valid JSON");
        assert_eq!(parsed, json!([{"a": 1}, {"b": [1, 2]}, "x"]));
    }

    #[test]
    fn an_empty_list_is_an_empty_array() {
        let mut buffer = Vec::new();
        Box::new(JsonListWriter::new(&mut buffer))
            .finish()
            .expect("write");
        assert_eq!(buffer, b"[]\n");
    }
}
