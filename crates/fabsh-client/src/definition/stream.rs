//! Writing a getDefinition response (or a bulk export's result) to a folder without holding
//! the decoded definition in memory: the response body is parsed in place (payloads are
//! borrowed, not copied) and each part is decoded into its file as the parser reaches it.

use super::folder::{self, DirWriter};
use crate::error::{Error, Result};
use fabsh_model::definition::paths;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::{Value, json};
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt;
use std::path::Path;

/// One wire part, borrowing its payload from the response body.
#[derive(Deserialize)]
struct WirePart<'a> {
    #[serde(borrow)]
    path: Cow<'a, str>,
    #[serde(borrow)]
    payload: Cow<'a, str>,
}

/// What to do with each part as it is reached.
trait PartSink {
    fn part(&self, path: &str, payload: &str) -> Result<()>;
}

/// Which answer a body is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// getDefinition: `{definition: {format?, parts: [...]}}`, part paths relative.
    Definition,
    /// bulkExportDefinitions: `{itemDefinitionsIndex: [...], definitionParts: [...]}`, part
    /// paths absolute within the export (`/<folders>/<name>.<Type>/<part>`).
    BulkExport,
}

impl Layout {
    /// The part's path relative to the folder written to: bulk paths lose their leading `/`.
    fn relative(self, path: &str) -> &str {
        match self {
            Layout::Definition => path,
            Layout::BulkExport => path.strip_prefix('/').unwrap_or(path),
        }
    }
}

/// What a walk found besides the parts.
#[derive(Debug, Default)]
struct Walked {
    /// The definition's `format`.
    format: Option<String>,
    /// A bulk export's `itemDefinitionsIndex`.
    index: Option<Value>,
}

/// Walks the body, handing each part to `sink`. An error from the sink stops the walk and is
/// returned as is.
fn walk(body: &[u8], layout: Layout, sink: &dyn PartSink) -> Result<Walked> {
    let failure = RefCell::new(None);
    let index = RefCell::new(None);
    let walker = Envelope {
        sink,
        failure: &failure,
        layout,
        index: &index,
    };
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    let outcome = walker.deserialize(&mut deserializer);
    if let Some(err) = failure.into_inner() {
        return Err(err);
    }
    let format = outcome.map_err(|err| {
        Error::runtime(format!("the service's definition could not be read: {err}"))
    })?;
    Ok(Walked {
        format,
        index: index.into_inner(),
    })
}

#[derive(Clone, Copy)]
struct Envelope<'s> {
    sink: &'s dyn PartSink,
    failure: &'s RefCell<Option<Error>>,
    layout: Layout,
    index: &'s RefCell<Option<Value>>,
}

impl<'de> DeserializeSeed<'de> for Envelope<'_> {
    type Value = Option<String>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(EnvelopeVisitor {
            outer: true,
            seed: self,
        })
    }
}

/// Visits the outer object (looking for `definition`) and the definition object (looking
/// for `format` and `parts`).
struct EnvelopeVisitor<'s> {
    outer: bool,
    seed: Envelope<'s>,
}

impl<'de> Visitor<'de> for EnvelopeVisitor<'_> {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object holding a definition")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut format = None;
        let mut found = false;
        let bulk = self.seed.layout == Layout::BulkExport;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match (self.outer, bulk, key.as_ref()) {
                (true, false, "definition") => {
                    found = true;
                    format = map.next_value_seed(DefinitionSeed(self.seed))?;
                }
                (false, false, "format") => format = map.next_value::<Option<String>>()?,
                (false, false, "parts") | (true, true, "definitionParts") => {
                    found = true;
                    map.next_value_seed(PartsSeed(self.seed))?;
                }
                (true, true, "itemDefinitionsIndex") => {
                    *self.seed.index.borrow_mut() = Some(map.next_value::<Value>()?);
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if !found {
            return Err(de::Error::custom(match (self.outer, bulk) {
                (true, false) => "the answer has no `definition`",
                (false, _) => "the definition has no `parts`",
                (true, true) => "the answer has no `definitionParts`",
            }));
        }
        Ok(format)
    }
}

struct DefinitionSeed<'s>(Envelope<'s>);

impl<'de> DeserializeSeed<'de> for DefinitionSeed<'_> {
    type Value = Option<String>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(EnvelopeVisitor {
            outer: false,
            seed: self.0,
        })
    }
}

struct PartsSeed<'s>(Envelope<'s>);

impl<'de> DeserializeSeed<'de> for PartsSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for PartsSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of parts")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(part) = seq.next_element::<WirePart<'de>>()? {
            let path = self.0.layout.relative(&part.path);
            if let Err(err) = self.0.sink.part(path, &part.payload) {
                let message = err.to_string();
                *self.0.failure.borrow_mut() = Some(err);
                return Err(de::Error::custom(message));
            }
        }
        Ok(())
    }
}

/// First pass: every path must be safe and appear once, before any file is written.
struct PathCheck {
    seen: RefCell<HashSet<String>>,
}

impl PartSink for PathCheck {
    fn part(&self, path: &str, _payload: &str) -> Result<()> {
        if let Some(problem) = paths::problem(path) {
            return Err(Error::runtime(format!(
                "the service sent part path {path:?}, refused: {problem}; nothing was written"
            )));
        }
        if !self.seen.borrow_mut().insert(path.to_string()) {
            return Err(Error::runtime(format!(
                "the service sent part {path} twice; nothing was written"
            )));
        }
        Ok(())
    }
}

/// Second pass: decode each part into its file.
struct Writer<'w> {
    writer: &'w DirWriter,
    written: RefCell<Vec<Value>>,
}

impl PartSink for Writer<'_> {
    fn part(&self, path: &str, payload: &str) -> Result<()> {
        let bytes = self.writer.write_part(path, payload)?;
        self.written
            .borrow_mut()
            .push(json!({"path": path, "bytes": bytes}));
        Ok(())
    }
}

/// Writes the parts of a getDefinition answer under `dir` (which must be new or empty) and
/// returns `{directory, format?, parts: [{path, bytes}]}`. Every path is checked before the
/// first file is written.
/// With `clean`, the previous parts in `dir` are removed once the answer is known to be good
/// (see [`folder::clean_previous_parts`]).
pub fn write_answer(body: &[u8], dir: &Path, clean: bool) -> Result<Value> {
    let (writer, written, walked) = write_parts(body, Layout::Definition, dir, clean)?;
    let mut summary = serde_json::Map::new();
    summary.insert(
        "directory".into(),
        json!(writer.target().display().to_string()),
    );
    if let Some(format) = walked.format {
        summary.insert("format".into(), json!(format));
    }
    summary.insert("parts".into(), Value::Array(written));
    writer.finish()?;
    Ok(Value::Object(summary))
}

/// Writes the parts of a bulk export's result under `dir` (new or empty) as
/// `<folders>/<name>.<Type>/<part>` and returns `{directory, items, partCount, bytes}`, `items`
/// being the export's index. Every path is checked before the first file is written.
pub fn write_bulk_export(body: &[u8], dir: &Path) -> Result<Value> {
    let (writer, written, walked) = write_parts(body, Layout::BulkExport, dir, false)?;
    let bytes: u64 = written.iter().filter_map(|p| p["bytes"].as_u64()).sum();
    let summary = json!({
        "directory": writer.target().display().to_string(),
        "items": walked.index.unwrap_or(Value::Array(Vec::new())),
        "partCount": written.len(),
        "bytes": bytes,
    });
    writer.finish()?;
    Ok(summary)
}

/// Checks every path, then writes every part: the writer, `[{path, bytes}]`, and what the
/// walk found.
fn write_parts(
    body: &[u8],
    layout: Layout,
    dir: &Path,
    clean: bool,
) -> Result<(DirWriter, Vec<Value>, Walked)> {
    walk(
        body,
        layout,
        &PathCheck {
            seen: RefCell::default(),
        },
    )?;
    if clean {
        folder::clean_previous_parts(dir)?;
    }
    let writer = DirWriter::create(dir)?;
    let sink = Writer {
        writer: &writer,
        written: RefCell::default(),
    };
    let walked = walk(body, layout, &sink)?;
    let written = sink.written.into_inner();
    Ok((writer, written, walked))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabsh_model::definition::encode_payload;

    #[test]
    fn parts_land_in_files_and_escapes_write_nothing() {
        let dir = tempfile::tempdir().expect("dir");
        let body = json!({"definition": {"parts": [
            {"path": "notebook-content.py", "payload": encode_payload(b"print(1)"), "payloadType": "InlineBase64"},
            {"path": ".platform", "payload": encode_payload(b"{}"), "payloadType": "InlineBase64"}
        ], "format": "fabricGitSource"}});
        let out = dir.path().join("ok");
        let summary = write_answer(body.to_string().as_bytes(), &out, false).expect("written");
        assert_eq!(summary["format"], "fabricGitSource");
        assert_eq!(
            std::fs::read(out.join("notebook-content.py")).expect("file"),
            b"print(1)"
        );

        let evil = json!({"definition": {"parts": [
            {"path": "fine.txt", "payload": "eA==", "payloadType": "InlineBase64"},
            {"path": "../evil.txt", "payload": "eA==", "payloadType": "InlineBase64"}
        ]}});
        let refused = dir.path().join("refused");
        assert!(write_answer(evil.to_string().as_bytes(), &refused, false).is_err());
        assert!(
            !refused.exists(),
            "nothing is written when any path is refused"
        );
        assert!(!dir.path().join("evil.txt").exists());
    }

    #[test]
    fn bulk_exports_land_in_item_folders() {
        let dir = tempfile::tempdir().expect("dir");
        let body = json!({
            "itemDefinitionsIndex": [{"id": "1", "rootPath": "/F/N.Notebook"}],
            "definitionParts": [
                {"path": "/F/N.Notebook/.platform", "payload": encode_payload(b"{}"), "payloadType": "InlineBase64"},
                {"path": "/F/N.Notebook/notebook-content.py", "payload": encode_payload(b"x"), "payloadType": "InlineBase64"}
            ]
        });
        let out = dir.path().join("out");
        let summary = write_bulk_export(body.to_string().as_bytes(), &out).expect("written");
        assert_eq!(summary["partCount"], 2);
        assert_eq!(summary["items"][0]["rootPath"], "/F/N.Notebook");
        assert_eq!(
            std::fs::read(out.join("F/N.Notebook/notebook-content.py")).expect("file"),
            b"x"
        );
        let evil = json!({"definitionParts": [
            {"path": "/../evil", "payload": "eA==", "payloadType": "InlineBase64"}
        ]});
        assert!(write_bulk_export(evil.to_string().as_bytes(), &dir.path().join("no")).is_err());
        assert!(!dir.path().join("evil").exists());
    }
}
