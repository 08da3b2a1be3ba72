//! The `grade` module: grading a data agent's answers, for `stdlib/evaluate.rhai` and scripts.
//! `grade::answer(expected, actual)` applies the deterministic rules; `grade::answers(rows,
//! opts)` grades many runs concurrently, with the judge the running command configured
//! (`data-agent evaluate --llm-*`), or with `opts.judge: true` the one `FABSH_LLM_*` names,
//! else the deterministic rules. The judge's key never passes through the script.

use super::convert::{at_call, throw, to_dynamic, to_json};
use super::host::Host;
use fabsh_client::agent::judge::{self, Judge};
use fabsh_client::error::{Error, Result};
use fabsh_http::chat::LlmConfig;
use fabsh_model::agent::grade::{self, Grade};
use fabsh_model::sql::ResultSet;
use futures::StreamExt;
use rhai::{
    Array, Dynamic, Engine, FuncRegistration, ImmutableString, Map, Module, NativeCallContext,
};
use serde_json::Value;
use std::sync::Arc;

/// Runs graded at once unless told.
const DEFAULT_CONCURRENCY: usize = 8;

/// Registers `grade::answer` and `grade::answers`.
pub(super) fn register(engine: &mut Engine, host: &Host) {
    let mut module = Module::new();
    FuncRegistration::new("answer")
        .with_comments(["/// `grade::answer(expected, actual)`: the deterministic rules' verdict on one answer: `#{verdict, rule, rationale}`"]).set_into_module(
        &mut module,
        |expected: Dynamic, actual: ImmutableString| {
            let expected = expected.into_string().ok();
            to_dynamic(grade_json(&grade::grade(expected.as_deref(), &actual)))
        },
    );
    let h = host.clone();
    FuncRegistration::new("answers")
        .with_comments(["/// `grade::answers(rows, opts)`: grades many `#{expected, actual}` rows concurrently, with the judge the running command configured (or `opts.judge: true` for the one `FABSH_LLM_*` names), else the rules; a row without an `expectedResult` of its own is graded against its question's, `opts.questions[row.index]`"])
        .with_volatility(true)
        .set_into_module(
            &mut module,
            // `&mut`: the rows (each with its result set) are read where they are, not copied.
            move |context: NativeCallContext, rows: &mut Array, opts: Map| {
                answers(&h, rows, &opts).map_err(|err| at_call(&context, throw(err)))
            },
        );
    module.build_index();
    engine.register_static_module("grade", module.into());
}

fn grade_json(grade: &Grade) -> Value {
    serde_json::to_value(grade).unwrap_or(Value::Null)
}

/// A reference query's result set and whether its query orders the rows.
type Reference = (ResultSet, bool);

/// One run as the grader needs it.
struct Run {
    question: String,
    expected: Option<String>,
    /// The run's own reference (its `expectedResult`), else its question's.
    reference: Option<Arc<Reference>>,
    actual: Option<String>,
    error: Option<String>,
}

/// One field of a Rhai map as JSON, converted alone: the map's other fields (a row's steps,
/// files, a copy of its question) are never copied.
fn field_of(map: Option<&Map>, key: &str) -> Result<Value> {
    map.and_then(|map| map.get(key))
        .map_or(Ok(Value::Null), |value| {
            to_json(value).map_err(Error::usage)
        })
}

/// The reference of a row or question map: its `expectedResult` and `ordered`, if it has a
/// result set.
fn reference_of(map: Option<&Map>) -> Result<Option<Arc<Reference>>> {
    let Ok(set) = serde_json::from_value::<ResultSet>(field_of(map, "expectedResult")?) else {
        return Ok(None);
    };
    let ordered = field_of(map, "ordered")?.as_bool().unwrap_or(false);
    Ok(Some(Arc::new((set, ordered))))
}

/// The references of `opts.questions`, by the place of each question.
fn question_references(opts: &Map) -> Result<Vec<Option<Arc<Reference>>>> {
    let Some(questions) = opts.get("questions") else {
        return Ok(Vec::new());
    };
    let questions = questions.read_lock::<Array>().ok_or_else(|| {
        Error::usage("grade::answers: questions must be the array the rows' index points into")
    })?;
    questions
        .iter()
        .map(|question| reference_of(question.read_lock::<Map>().as_deref()))
        .collect()
}

/// A row's fields as the grader reads them; a row without a result set of its own is graded
/// against its question's (by its `index` into `questions`).
fn run_of(row: &Dynamic, questions: &[Option<Arc<Reference>>]) -> Result<Run> {
    let map = row.read_lock::<Map>();
    let map = map.as_deref();
    let text = |key: &str| -> Result<Option<String>> {
        Ok(match field_of(map, key)? {
            Value::Null => None,
            Value::String(text) => Some(text),
            Value::Object(map) => map.get("message").and_then(Value::as_str).map(String::from),
            other => Some(other.to_string()),
        })
    };
    let reference = match reference_of(map)? {
        Some(own) => Some(own),
        None => field_of(map, "index")?
            .as_u64()
            .and_then(|index| questions.get(usize::try_from(index).ok()?))
            .cloned()
            .flatten(),
    };
    Ok(Run {
        // A run's question is text or absent; absent reads as an empty question, as the script
        // wrote none.
        question: text("question")?.unwrap_or_default(),
        expected: text("expected")?,
        reference,
        actual: text("actual")?,
        error: text("error")?,
    })
}

fn answers(host: &Host, rows: &Array, opts: &Map) -> Result<Dynamic> {
    let concurrency = match opts.get("concurrency") {
        None => DEFAULT_CONCURRENCY,
        Some(value) => value
            .as_int()
            .ok()
            .and_then(|n| usize::try_from(n).ok())
            .filter(|n| *n >= 1)
            .ok_or_else(|| {
                Error::usage("grade::answers: concurrency must be a whole number ≥ 1")
            })?,
    };
    let judge: Option<Arc<Judge>> = if opts.get("judge").and_then(|v| v.as_bool().ok())
        == Some(true)
    {
        let config = LlmConfig::resolve(None, None, None, None)?
            .ok_or_else(|| Error::usage("grade::answers: judge: true needs FABSH_LLM_ENDPOINT"))?;
        let config = judge::with_model(config)?;
        Some(Arc::new(Judge::new(config, None, &host.settings())?))
    } else {
        host.connected_ctx().and_then(|ctx| ctx.judge().cloned())
    };
    let tolerance = match opts.get("tolerance") {
        None => grade::DEFAULT_TOLERANCE,
        Some(value) => value
            .as_float()
            .ok()
            .filter(|t| (0.0..=1.0).contains(t))
            .ok_or_else(|| {
                Error::usage(
                    "grade::answers: tolerance must be a number from 0 to 1 (0.005 is 0.5%)",
                )
            })?,
    };
    let questions = question_references(opts)?;
    let runs = rows
        .iter()
        .map(|row| run_of(row, &questions))
        .collect::<Result<Vec<Run>>>()?;
    let bar = opts
        .get("progress")
        .filter(|label| label.is_string())
        .map(|label| host.progress().bar(runs.len() as u64, label.to_string()));
    let graded = host.bridge().block_on(async {
        let grades = futures::stream::iter(runs.iter())
            .map(|run| {
                judge::grade_run(
                    judge.as_deref(),
                    &run.question,
                    run.expected.as_deref(),
                    run.reference
                        .as_deref()
                        .map(|(set, ordered)| (set, *ordered)),
                    run.actual.as_deref(),
                    run.error.as_deref(),
                    tolerance,
                )
            })
            .buffered(concurrency)
            .inspect(|_| {
                if let Some(bar) = &bar {
                    bar.step();
                }
            })
            .collect::<Vec<Grade>>()
            .await;
        Ok(grades)
    })?;
    Ok(Dynamic::from_array(
        graded
            .iter()
            .map(|grade| to_dynamic(grade_json(grade)))
            .collect(),
    ))
}
