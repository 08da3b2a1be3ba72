//! The two notebook layouts: `fabricGitSource` (`notebook-content.py`, cells separated by
//! marker comments, metadata as `# META` JSON lines) and `ipynb` (Jupyter JSON). Local Fabric
//! converts between them when getDefinition asks for the other format.

use serde_json::{Map, Value, json};

/// File of the fabricGitSource layout (Python notebooks).
pub const SOURCE_PATH: &str = "notebook-content.py";
/// File of the ipynb layout.
pub const IPYNB_PATH: &str = "notebook-content.ipynb";

const HEADER: &str = "# Fabric notebook source";
const METADATA: &str = "# METADATA ********************";
const CELL: &str = "# CELL ********************";
const MARKDOWN: &str = "# MARKDOWN ********************";
const META_PREFIX: &str = "# META";

#[derive(Debug, Clone, Copy, PartialEq)]
enum Section {
    Metadata,
    Code,
    Markdown,
}

fn marker(line: &str) -> Option<Section> {
    match line.trim_end() {
        METADATA => Some(Section::Metadata),
        CELL => Some(Section::Code),
        MARKDOWN => Some(Section::Markdown),
        _ => None,
    }
}

/// The sections of a fabricGitSource file, each with its text (the blank line after the
/// marker and blank lines before the next marker belong to the layout, not the text).
fn sections(source: &str) -> Result<Vec<(Section, String)>, String> {
    let mut lines = source.lines();
    if lines.next().map(str::trim_end) != Some(HEADER) {
        return Err(format!("a fabricGitSource notebook starts with {HEADER:?}"));
    }
    let mut found: Vec<(Section, Vec<&str>)> = Vec::new();
    for line in lines {
        match (marker(line), found.last_mut()) {
            (Some(section), _) => found.push((section, Vec::new())),
            (None, Some((_, body))) => body.push(line),
            (None, None) if line.trim().is_empty() => {}
            (None, None) => return Err("text before the first cell marker".into()),
        }
    }
    Ok(found
        .into_iter()
        .map(|(section, mut body)| {
            if body.first().is_some_and(|l| l.is_empty()) {
                body.remove(0);
            }
            while body.last().is_some_and(|l| l.is_empty()) {
                body.pop();
            }
            (section, body.join("\n"))
        })
        .collect())
}

fn meta_json(text: &str) -> Result<Value, String> {
    let json: Vec<&str> = text
        .lines()
        .map(|line| {
            line.strip_prefix(META_PREFIX)
                .map(|rest| rest.strip_prefix(' ').unwrap_or(rest))
                .ok_or_else(|| format!("a metadata line does not start with {META_PREFIX:?}"))
        })
        .collect::<Result<_, _>>()?;
    serde_json::from_str(&json.join("\n")).map_err(|err| format!("metadata is not JSON: {err}"))
}

/// Jupyter stores text as lines, each keeping its line break but the last.
fn source_lines(text: &str) -> Value {
    let mut lines: Vec<Value> = text.split_inclusive('\n').map(|l| json!(l)).collect();
    if lines.is_empty() {
        lines.push(json!(""));
    }
    Value::Array(lines)
}

/// The notebook metadata the service writes into an ipynb converted from a fabricGitSource
/// notebook, with the source's `# META` (`kernel_info`, `dependencies`, ...) filled in.
/// Recorded (export__test_export_item_success.yaml, getDefinition `/result`): a `.py` whose
/// metadata is `{"kernel_info": {"name": "synapse_pyspark"}, "dependencies": {}}` comes back
/// with `{"language_info": {"name": "python"}, "kernel_info": {"name": "synapse_pyspark",
/// "jupyter_kernel_name": null}, "a365ComputeOptions": null, "sessionKeepAliveTimeout": 0,
/// "dependencies": {"lakehouse": null}}`.
fn service_metadata(meta: Map<String, Value>) -> Value {
    let mut meta = meta;
    let mut object = |key: &str, defaults: Value| -> Value {
        let mut value = match meta.shift_remove(key) {
            Some(Value::Object(given)) => given,
            _ => Map::new(),
        };
        if let Value::Object(defaults) = defaults {
            for (name, default) in defaults {
                value.entry(name).or_insert(default);
            }
        }
        Value::Object(value)
    };
    let mut out = Map::new();
    // A fabricGitSource `.py` notebook is Python, whatever its kernel.
    out.insert(
        "language_info".into(),
        object("language_info", json!({"name": "python"})),
    );
    out.insert(
        "kernel_info".into(),
        object(
            "kernel_info",
            json!({"name": "synapse_pyspark", "jupyter_kernel_name": null}),
        ),
    );
    let dependencies = object("dependencies", json!({"lakehouse": null}));
    let compute = meta
        .shift_remove("a365ComputeOptions")
        .unwrap_or(Value::Null);
    let keep_alive = meta
        .shift_remove("sessionKeepAliveTimeout")
        .unwrap_or(json!(0));
    out.insert("a365ComputeOptions".into(), compute);
    out.insert("sessionKeepAliveTimeout".into(), keep_alive);
    out.insert("dependencies".into(), dependencies);
    out.extend(meta);
    Value::Object(out)
}

/// Drops from ipynb notebook metadata what [`service_metadata`] adds when it holds only the
/// defaults, so that a notebook converted there and back keeps its `# META` as it was
/// (`shift_remove` keeps the other keys in their order).
fn source_metadata(mut meta: Map<String, Value>) -> Map<String, Value> {
    let mut drop_if = |key: &str, default: Value| {
        if meta.get(key) == Some(&default) {
            meta.shift_remove(key);
        }
    };
    drop_if("language_info", json!({"name": "python"}));
    drop_if("a365ComputeOptions", Value::Null);
    drop_if("sessionKeepAliveTimeout", json!(0));
    for (key, inner) in [
        ("kernel_info", "jupyter_kernel_name"),
        ("dependencies", "lakehouse"),
    ] {
        if let Some(Value::Object(object)) = meta.get_mut(key)
            && object.get(inner) == Some(&Value::Null)
        {
            object.shift_remove(inner);
        }
    }
    meta
}

/// fabricGitSource (Python) to ipynb JSON text, as the service converts it (compact JSON;
/// code cells without `execution_count`, their `# META` under `metadata.microsoft`, each
/// source line ending in a line break; see [`service_metadata`] for the notebook metadata).
pub fn source_to_ipynb(source: &str) -> Result<String, String> {
    let mut notebook_meta = Map::new();
    let mut cells: Vec<Value> = Vec::new();
    for (section, text) in sections(source)? {
        match section {
            Section::Metadata => {
                let meta = meta_json(&text)?;
                match cells.last_mut() {
                    Some(cell) => cell["metadata"] = json!({ "microsoft": meta }),
                    None => {
                        notebook_meta = meta
                            .as_object()
                            .cloned()
                            .ok_or("the notebook metadata is not a JSON object")?;
                    }
                }
            }
            Section::Code => cells.push(json!({
                "cell_type": "code",
                "metadata": {},
                "source": source_lines(&terminated(text)),
                "outputs": [],
            })),
            Section::Markdown => {
                let text: Vec<&str> = text
                    .lines()
                    .map(|line| {
                        line.strip_prefix("# ")
                            .or(line.strip_prefix('#'))
                            .unwrap_or(line)
                    })
                    .collect();
                cells.push(json!({
                    "cell_type": "markdown",
                    "metadata": {},
                    "source": source_lines(&text.join("\n")),
                }));
            }
        }
    }
    let notebook = json!({
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": service_metadata(notebook_meta),
        "cells": cells,
    });
    serde_json::to_string(&notebook).map_err(|err| err.to_string())
}

/// A code cell's text with the line break the service keeps after its last line.
fn terminated(mut text: String) -> String {
    if !text.is_empty() {
        text.push('\n');
    }
    text
}

fn cell_text(cell: &Value) -> String {
    match cell.get("source") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(lines)) => lines.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

fn push_section(out: &mut String, marker: &str, text: &str) {
    out.push('\n');
    out.push_str(marker);
    out.push('\n');
    if !text.is_empty() {
        out.push('\n');
        out.push_str(text);
        out.push('\n');
    }
}

fn meta_lines(meta: &Value) -> Result<String, String> {
    let pretty = serde_json::to_string_pretty(meta).map_err(|err| err.to_string())?;
    Ok(pretty
        .lines()
        .map(|line| format!("{META_PREFIX} {line}"))
        .collect::<Vec<_>>()
        .join("\n"))
}

/// ipynb JSON text to fabricGitSource (Python). Notebooks in other languages are refused:
/// their source files use other comment markers.
pub fn ipynb_to_source(ipynb: &str) -> Result<String, String> {
    let notebook: Value =
        serde_json::from_str(ipynb).map_err(|err| format!("the notebook is not JSON: {err}"))?;
    let language = notebook
        .pointer("/metadata/language_info/name")
        .and_then(Value::as_str)
        .unwrap_or("python");
    if !language.eq_ignore_ascii_case("python") {
        return Err(format!(
            "only Python notebooks convert; this one is {language}"
        ));
    }
    let mut out = String::from(HEADER);
    out.push('\n');
    match notebook.get("metadata") {
        // No notebook metadata: no `# META` section.
        None => {}
        Some(Value::Object(meta)) => {
            let meta = source_metadata(meta.clone());
            if !meta.is_empty() {
                push_section(&mut out, METADATA, &meta_lines(&Value::Object(meta))?);
            }
        }
        Some(_) => return Err("the notebook metadata is not a JSON object".into()),
    }
    let cells = match notebook.get("cells") {
        // A notebook without cells converts to one without cells.
        None => &[][..],
        Some(Value::Array(cells)) => cells.as_slice(),
        Some(_) => return Err("the notebook's cells are not a JSON array".into()),
    };
    for cell in cells {
        let text = cell_text(cell);
        if cell.get("cell_type").and_then(Value::as_str) == Some("markdown") {
            let commented: Vec<String> = text.lines().map(|line| format!("# {line}")).collect();
            push_section(&mut out, MARKDOWN, &commented.join("\n"));
        } else {
            push_section(&mut out, CELL, text.trim_end_matches('\n'));
        }
        // The service keeps a code cell's `# META` under `metadata.microsoft`.
        let meta = cell
            .get("metadata")
            .map(|meta| meta.get("microsoft").unwrap_or(meta));
        if let Some(meta) = meta.filter(|m| m.as_object().is_some_and(|m| !m.is_empty())) {
            push_section(&mut out, METADATA, &meta_lines(meta)?);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "# Fabric notebook source

# METADATA ********************

# META {
# META   \"kernel_info\": {
# META     \"name\": \"synapse_pyspark\"
# META   },
# META   \"dependencies\": {}
# META }

# MARKDOWN ********************

# # Title
# 
# Some text.

# CELL ********************

x = 1
print(x)

# METADATA ********************

# META {
# META   \"language\": \"python\"
# META }

# CELL ********************

# METADATA ********************

# META {
# META   \"language\": \"python\"
# META }
";

    #[test]
    fn source_survives_a_round_trip_through_ipynb() {
        let ipynb = source_to_ipynb(SAMPLE).expect("to ipynb");
        let notebook: Value = serde_json::from_str(&ipynb).expect("json");
        assert_eq!(notebook["cells"].as_array().expect("cells").len(), 3);
        assert_eq!(notebook["cells"][0]["cell_type"], "markdown");
        assert_eq!(
            notebook["cells"][1]["source"],
            json!(["x = 1\n", "print(x)\n"])
        );
        assert_eq!(
            notebook["cells"][1]["metadata"],
            json!({"microsoft": {"language": "python"}})
        );
        assert_eq!(
            notebook["metadata"]["kernel_info"]["name"],
            "synapse_pyspark"
        );
        assert_eq!(ipynb_to_source(&ipynb).expect("to source"), SAMPLE);
    }

    #[test]
    fn other_languages_and_garbage_are_refused() {
        assert!(source_to_ipynb("print(1)").is_err());
        let scala = json!({"cells": [], "metadata": {"language_info": {"name": "scala"}}});
        assert!(ipynb_to_source(&scala.to_string()).is_err());
    }
}
