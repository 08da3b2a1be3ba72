//! The few things a script needs that Rhai lacks: JSON, base64 (definition parts), files the
//! script names, environment variables, `sleep` and `now`. Nothing here spawns processes or
//! touches files other than the ones passed in.

use super::convert::{at_call, throw, to_dynamic, to_json};
use super::host::Host;
use fabsh_client::error::Error;
use rhai::{
    Array, Dynamic, Engine, FuncRegistration, ImmutableString, Map, Module, NativeCallContext,
};
use serde_json::Value;
use std::time::Duration;

type RhaiResult = std::result::Result<Dynamic, Box<rhai::EvalAltResult>>;

/// Registers `json::`, `fs::`, `env::`, `base64::`, `sleep` and `now`.
pub(super) fn register(engine: &mut Engine, host: &Host) {
    engine.register_static_module("json", json_module().into());
    engine.register_static_module("fs", fs_module().into());
    engine.register_static_module("env", env_module().into());
    engine.register_static_module("base64", base64_module().into());
    let bridge = host.bridge().clone();
    let sleep = move |seconds: f64| -> RhaiResult {
        let duration = Duration::try_from_secs_f64(seconds.max(0.0))
            .map_err(|_| throw(Error::usage(format!("sleep: {seconds} is not a duration"))))?;
        // Through the bridge, so Ctrl-C ends the wait.
        bridge
            .block_on(async {
                tokio::time::sleep(duration).await;
                Ok(())
            })
            .map_err(throw)?;
        Ok(Dynamic::UNIT)
    };
    let sleep_int = sleep.clone();
    FuncRegistration::new("sleep")
        .with_comments(["/// `sleep(seconds)`: waits (Ctrl-C still stops the script)"])
        .with_volatility(true)
        .register_into_engine(engine, sleep);
    FuncRegistration::new("sleep")
        .with_volatility(true)
        .register_into_engine(engine, move |seconds: i64| sleep_int(seconds as f64));
    FuncRegistration::new("now")
        .with_comments(["/// `now()`: the UTC time as RFC 3339 text"])
        .with_volatility(true)
        .register_into_engine(engine, now);
}

/// The current UTC time, RFC 3339 (`2026-01-31T12:00:00.123Z`).
fn now() -> RhaiResult {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .map(Dynamic::from)
        .map_err(|err| throw(Error::runtime(format!("now: {err}"))))
}

fn json_module() -> Module {
    let mut module = Module::new();
    FuncRegistration::new("parse")
        .with_comments(["/// `json::parse(text)`: JSON text to a value"])
        .set_into_module(
            &mut module,
            |context: NativeCallContext, text: ImmutableString| {
                parse_json(&text, "json::parse").map_err(|err| at_call(&context, err))
            },
        );
    FuncRegistration::new("stringify")
        .with_comments(["/// `json::stringify(value)`: a value as compact JSON"])
        .set_into_module(&mut module, |context: NativeCallContext, value: Dynamic| {
            stringify(&value, false).map_err(|err| at_call(&context, err))
        });
    FuncRegistration::new("pretty")
        .with_comments(["/// `json::pretty(value)`: a value as indented JSON"])
        .set_into_module(&mut module, |context: NativeCallContext, value: Dynamic| {
            stringify(&value, true).map_err(|err| at_call(&context, err))
        });
    module.build_index();
    module
}

fn parse_json(text: &str, what: &str) -> RhaiResult {
    serde_json::from_str::<Value>(text)
        .map(to_dynamic)
        .map_err(|err| throw(Error::usage(format!("{what}: invalid JSON: {err}"))))
}

fn stringify(value: &Dynamic, pretty: bool) -> RhaiResult {
    let json = to_json(value).map_err(|why| throw(Error::usage(format!("json: {why}"))))?;
    let text = if pretty {
        serde_json::to_string_pretty(&json)
    } else {
        serde_json::to_string(&json)
    };
    text.map(Dynamic::from)
        .map_err(|err| throw(Error::runtime(err.to_string())))
}

fn fs_module() -> Module {
    let mut module = Module::new();
    FuncRegistration::new("read_text")
        .with_comments(["/// `fs::read_text(path)`: a file's text"])
        .with_volatility(true)
        .set_into_module(
            &mut module,
            |context: NativeCallContext, path: ImmutableString| {
                read(&path)
                    .map(Dynamic::from)
                    .map_err(|err| at_call(&context, err))
            },
        );
    FuncRegistration::new("read_json")
        .with_comments(["/// `fs::read_json(path)`: a JSON file's value"])
        .with_volatility(true)
        .set_into_module(
            &mut module,
            |context: NativeCallContext, path: ImmutableString| {
                read(&path)
                    .and_then(|text| parse_json(&text, &format!("fs::read_json {path}")))
                    .map_err(|err| at_call(&context, err))
            },
        );
    FuncRegistration::new("read_csv")
        .with_comments([
            "/// `fs::read_csv(path)`: a CSV file with a header row, as an array of maps of text",
        ])
        .with_volatility(true)
        .set_into_module(
            &mut module,
            |context: NativeCallContext, path: ImmutableString| {
                read_csv(&path).map_err(|err| at_call(&context, err))
            },
        );
    FuncRegistration::new("read_fewshots")
        .with_comments(["/// `fs::read_fewshots(path)`: a few-shot file (JSON or CSV) as `[#{line, question, query}]`; a malformed row is an error naming every bad line"])
        .with_volatility(true)
        .set_into_module(
            &mut module,
            |context: NativeCallContext, path: ImmutableString| {
                read_fewshots(&path).map_err(|err| at_call(&context, err))
            },
        );
    FuncRegistration::new("write_text")
        .with_comments(["/// `fs::write_text(path, text)`: writes text to a file"])
        .with_volatility(true)
        .set_into_module(
            &mut module,
            |context: NativeCallContext, path: ImmutableString, text: ImmutableString| {
                write(&path, text.as_bytes()).map_err(|err| at_call(&context, err))
            },
        );
    FuncRegistration::new("write_json")
        .with_comments(["/// `fs::write_json(path, value)`: writes a value as indented JSON"])
        .with_volatility(true)
        .set_into_module(
            &mut module,
            |context: NativeCallContext, path: ImmutableString, value: Dynamic| {
                stringify(&value, true)
                    .and_then(|text| write(&path, format!("{text}\n").as_bytes()))
                    .map_err(|err| at_call(&context, err))
            },
        );
    FuncRegistration::new("remove")
        .with_comments(["/// `fs::remove(path)`: deletes a file, or a folder with everything in it; true when something was there. Refuses the current folder, the home folder and the folders that hold them"])
        .with_volatility(true)
        .set_into_module(
            &mut module,
            |context: NativeCallContext, path: ImmutableString| {
                remove(&path).map_err(|err| at_call(&context, err))
            },
        );
    module.build_index();
    module
}

/// Deletes `path` (a folder recursively), refusing the folders a slip would destroy: the
/// current one, the home folder, and any folder holding either (`fs::remove("..")`, `/`).
fn remove(path: &str) -> RhaiResult {
    let target = std::path::Path::new(path);
    let Ok(resolved) = target.canonicalize() else {
        // Nothing there (or a dangling link, removed as the link it is).
        return match std::fs::remove_file(target) {
            Ok(()) => Ok(Dynamic::TRUE),
            Err(_) => Ok(Dynamic::FALSE),
        };
    };
    let precious = [std::env::current_dir().ok(), dirs::home_dir()];
    for keep in precious.iter().flatten() {
        let keep = keep.canonicalize().unwrap_or_else(|_| keep.clone());
        if keep.starts_with(&resolved) {
            return Err(throw(Error::usage(format!(
                "fs::remove {path}: refusing to delete {}, which is or holds {}",
                resolved.display(),
                keep.display()
            ))));
        }
    }
    let removed = if target.is_dir() && !target.is_symlink() {
        std::fs::remove_dir_all(target)
    } else {
        std::fs::remove_file(target)
    };
    removed
        .map(|()| Dynamic::TRUE)
        .map_err(|err| throw(Error::runtime(format!("cannot remove {path}: {err}"))))
}

fn read(path: &str) -> std::result::Result<String, Box<rhai::EvalAltResult>> {
    std::fs::read_to_string(path)
        .map_err(|err| throw(Error::usage(format!("cannot read {path}: {err}"))))
}

fn write(path: &str, bytes: &[u8]) -> RhaiResult {
    std::fs::write(path, bytes)
        .map(|()| Dynamic::UNIT)
        .map_err(|err| throw(Error::runtime(format!("cannot write {path}: {err}"))))
}

/// A CSV file with a header row, as an array of maps from column name to text.
fn read_csv(path: &str) -> RhaiResult {
    let bad = |err: csv::Error| throw(Error::usage(format!("fs::read_csv {path}: {err}")));
    let mut reader = csv::Reader::from_path(path).map_err(bad)?;
    let headers = reader.headers().map_err(bad)?.clone();
    let mut rows = Array::new();
    for record in reader.records() {
        let record = record.map_err(bad)?;
        let row: Map = headers
            .iter()
            .zip(record.iter())
            .map(|(name, value)| (name.into(), Dynamic::from(value.to_string())))
            .collect();
        rows.push(Dynamic::from_map(row));
    }
    Ok(Dynamic::from_array(rows))
}

/// A few-shot file (JSON or CSV) as `[#{line, question, query}]`; a malformed row is an
/// error listing every bad line.
fn read_fewshots(path: &str) -> RhaiResult {
    let bytes = std::fs::read(path)
        .map_err(|err| throw(Error::usage(format!("cannot read {path}: {err}"))))?;
    let rows = fabsh_model::agent::fewshot_file::read_checked(std::path::Path::new(path), &bytes)
        .map_err(|invalid| throw(invalid.into()))?;
    let rows: Vec<Value> = rows
        .into_iter()
        .map(|row| serde_json::json!({"line": row.line, "question": row.question, "query": row.query}))
        .collect();
    Ok(to_dynamic(Value::Array(rows)))
}

/// Definitions carry their parts as base64; scripts need to make and read them.
fn base64_module() -> Module {
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;
    let mut module = Module::new();
    FuncRegistration::new("encode")
        .with_comments(["/// `base64::encode(text)`: text as base64 (definition part payloads)"])
        .set_into_module(&mut module, |text: ImmutableString| {
            STANDARD.encode(text.as_bytes())
        });
    FuncRegistration::new("decode")
        .with_comments(["/// `base64::decode(text)`: base64 back to text"])
        .set_into_module(
            &mut module,
            |context: NativeCallContext, encoded: ImmutableString| -> RhaiResult {
                let bytes = STANDARD.decode(encoded.trim()).map_err(|err| {
                    at_call(
                        &context,
                        throw(Error::usage(format!("base64::decode: {err}"))),
                    )
                })?;
                String::from_utf8(bytes).map(Dynamic::from).map_err(|_| {
                    at_call(
                        &context,
                        throw(Error::usage("base64::decode: the bytes are not UTF-8 text")),
                    )
                })
            },
        );
    module.build_index();
    module
}

fn env_module() -> Module {
    let mut module = Module::new();
    FuncRegistration::new("get")
        .with_volatility(true)
        .set_into_module(&mut module, |name: ImmutableString| {
            std::env::var(name.as_str()).map_or(Dynamic::UNIT, Dynamic::from)
        });
    FuncRegistration::new("get")
        .with_comments([
            "/// `env::get(name)`: an environment variable, or `()`; `env::get(name, default)`",
        ])
        .with_volatility(true)
        .set_into_module(&mut module, |name: ImmutableString, default: Dynamic| {
            std::env::var(name.as_str()).map_or(default, Dynamic::from)
        });
    module.build_index();
    module
}
