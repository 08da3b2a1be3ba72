//! The engine against a registry of its own: a fake command that echoes its checked flags,
//! so call forms, conversions, errors, `parallel` and cancellation are tested with no server.

use super::{Host, build, runner};
use fabsh_api::config::Settings;
use fabsh_client::bridge::Bridge;
use fabsh_client::commands::{
    ArgKind, ArgSpec, ArgValue, Args, CommandSpec, Group, Handler, HandlerFuture, Registry, Traits,
};
use fabsh_client::context::Ctx;
use fabsh_client::error::{Error, ErrorKind};
use fabsh_client::output::Printer;
use fabsh_client::reply::Reply;
use rhai::{Dynamic, Engine, Scope};
use serde_json::{Map, Value, json};

fn echo(_ctx: Ctx, args: Args) -> HandlerFuture {
    Box::pin(async move {
        if args.opt_str("name") == Some("missing") {
            return Err(Error::api(
                404,
                Some("ItemNotFound".into()),
                "no such thing",
            ));
        }
        let values: Map<String, Value> = args
            .values()
            .iter()
            .map(|(key, value)| {
                let value = match value {
                    ArgValue::Str(text) => json!(text),
                    ArgValue::Int(int) => json!(int),
                    ArgValue::Bool(flag) => json!(flag),
                    ArgValue::Json(json) => json.clone(),
                    ArgValue::List(items) => json!(items),
                    ArgValue::File(file) => json!(file.file_name()),
                    ArgValue::Secret(secret) => json!(secret.to_string()),
                };
                (key.to_string(), value)
            })
            .collect();
        Ok(Reply::json(Value::Object(values)))
    })
}

static FAKE: Registry = Registry {
    groups: &[Group {
        name: "fake-group",
        summary: "test commands",
        commands: &[CommandSpec {
            group: "fake-group",
            name: "echo-args",
            summary: "echo the checked flags",
            about: "",
            args: &[
                ArgSpec::req("workspace", ArgKind::Ref, "w"),
                ArgSpec::req("name", ArgKind::Str, "n"),
                ArgSpec::opt("count", ArgKind::Int, "c"),
                ArgSpec::opt("tags", ArgKind::List, "t"),
                ArgSpec::opt("hard-delete", ArgKind::Bool, "h"),
                ArgSpec::opt("data", ArgKind::Json, "d"),
                ArgSpec::opt("mode", ArgKind::Enum(&["Fast", "Slow"]), "m"),
            ],
            traits: Traits::READ,
            columns: &[],
            examples: &[],
            handler: Handler::Data(echo),
        }],
    }],
};

struct Fixture {
    _runtime: tokio::runtime::Runtime,
    bridge: Bridge,
    engine: Engine,
}

fn fixture() -> Fixture {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let bridge = Bridge::new(runtime.handle().clone());
    // The fake command never sends anything; the endpoint only has to parse.
    let settings = Settings {
        endpoint: Some("http://127.0.0.1:9".into()),
        ..Settings::default()
    };
    let host = Host::lazy(settings, bridge.clone(), Printer::plain());
    let engine = build(&host, FAKE).expect("engine");
    Fixture {
        _runtime: runtime,
        bridge,
        engine,
    }
}

impl Fixture {
    fn eval(&self, code: &str) -> Result<Value, super::ScriptFailure> {
        runner::run_source(&self.engine, &mut Scope::new(), "<test>", code)
            .map(|value: Dynamic| super::to_json(&value).expect("JSON value"))
    }
}

#[test]
fn the_three_call_forms_check_the_same_flags() {
    let f = fixture();
    let positional = f
        .eval(r#"fake_group::echo_args("ws", "n1")"#)
        .expect("positional");
    let with_options = f
        .eval(r#"fake_group::echo_args("ws", "n1", #{count: 3, hard_delete: true})"#)
        .expect("with options");
    let one_map = f
        .eval(r#"fake_group::echo_args(#{workspace: "ws", name: "n1", count: 3, "hard-delete": true})"#)
        .expect("one map");
    assert_eq!(positional, json!({"name": "n1", "workspace": "ws"}));
    assert_eq!(with_options, one_map);
    assert_eq!(with_options["count"], json!(3));
    assert_eq!(with_options["hard-delete"], json!(true));
}

#[test]
fn script_values_become_flag_values() {
    let f = fixture();
    let value = f
        .eval(
            r#"fake_group::echo_args("ws", 42, #{tags: ["a", "b"], data: #{k: [1, 2.5]}, mode: "fast", count: ()})"#,
        )
        .expect("converted");
    assert_eq!(value["name"], json!("42"));
    assert_eq!(value["tags"], json!(["a", "b"]));
    assert_eq!(value["data"], json!({"k": [1, 2.5]}));
    assert_eq!(value["mode"], json!("Fast"));
    assert!(value.get("count").is_none(), "() means not given");
}

#[test]
fn unknown_keys_and_bad_values_are_usage_errors() {
    let f = fixture();
    let failure = f
        .eval(r#"fake_group::echo_args("ws", "n", #{colour: 1})"#)
        .expect_err("unknown key");
    assert_eq!(failure.error.kind, ErrorKind::Usage);
    assert!(
        failure
            .error
            .message
            .contains("valid options: workspace, name, count, tags, hard_delete, data, mode"),
        "{}",
        failure.error.message
    );
    let failure = f
        .eval(r#"fake_group::echo_args("ws", "n", #{mode: "medium"})"#)
        .expect_err("bad enum");
    assert!(failure.error.message.contains("must be one of Fast, Slow"));
    let failure = f
        .eval(r#"fake_group::echo_args("ws")"#)
        .expect_err("not enough");
    assert!(failure.error.message.contains("takes (workspace, name)"));
    let spot = failure.spot.expect("a place");
    assert_eq!((spot.line, spot.origin.as_str()), (1, "<test>"));
}

#[test]
fn errors_are_catchable_maps() {
    let f = fixture();
    let caught = f
        .eval(
            r#"let e = (); try { fake_group::echo_args("ws", "missing") } catch (err) { e = err } e"#,
        )
        .expect("caught");
    assert_eq!(caught["kind"], json!("not_found"));
    assert_eq!(caught["status"], json!(404));
    assert_eq!(caught["code"], json!("ItemNotFound"));
    assert_eq!(caught["message"], json!("no such thing"));
    assert!(caught.get("request_id").is_some());
    let failure = f
        .eval("let x = 1;\nfake_group::echo_args(\"ws\", \"missing\")")
        .expect_err("uncaught");
    assert_eq!(failure.exit_code(), 4);
    assert_eq!(failure.spot.map(|spot| spot.line), Some(2));
}

#[test]
fn parallel_keeps_every_result_in_order() {
    let f = fixture();
    let results = f
        .eval(
            r#"fabsh::parallel([
                #{command: "fake-group echo-args", args: #{workspace: "w", name: "a"}},
                #{command: "no such", args: #{}},
                #{command: "fake-group echo-args", args: #{workspace: "w", name: "missing"}},
                "not a map",
                #{command: "fake-group echo-args", args: #{workspace: "w", name: "e"}},
            ], #{concurrency: 2})"#,
        )
        .expect("results");
    let results = results.as_array().expect("array");
    assert_eq!(results.len(), 5);
    assert_eq!(results[0]["ok"]["name"], json!("a"));
    assert_eq!(results[1]["error"]["kind"], json!("usage"));
    assert_eq!(results[2]["error"]["kind"], json!("not_found"));
    assert_eq!(results[3]["error"]["kind"], json!("usage"));
    assert_eq!(results[4]["ok"]["name"], json!("e"));
}

#[test]
fn eval_is_disabled() {
    let f = fixture();
    let failure = f.eval(r#"eval("1 + 1")"#).expect_err("eval");
    assert_eq!(failure.error.kind, ErrorKind::Usage);
}

#[test]
fn cancellation_stops_a_script_and_try_cannot_catch_it() {
    let f = fixture();
    f.bridge.cancel();
    let failure = f
        .eval("let caught = false; try { loop { } } catch { caught = true } caught")
        .expect_err("cancelled");
    assert_eq!(failure.error.kind, ErrorKind::Cancelled);
    assert_eq!(failure.exit_code(), 130);
}

#[test]
fn natives_cover_json_and_the_environment() {
    let f = fixture();
    let value = f
        .eval(r#"let v = json::parse("{\"a\": [1, true]}"); [json::stringify(v), env::get("FABSH_SURELY_UNSET_VAR", "dflt")]"#)
        .expect("natives");
    assert_eq!(value, json!(["{\"a\":[1,true]}", "dflt"]));
}

#[test]
fn grade_answers_finds_a_rows_result_set_on_its_question() {
    let f = fixture();
    // The rows' `expected` text says 1: only the question's result set (3000) can pass the
    // first row and fail the second.
    let graded = f
        .eval(
            r#"
            let questions = [#{question: "How many orders?", ordered: false,
                               expectedResult: #{columns: ["n"], rows: [[3000]], truncated: false}}];
            let rows = [
                #{index: 0, question: "How many orders?", expected: "1", actual: "There are 3,000 orders."},
                #{index: 0, question: "How many orders?", expected: "1", actual: "There are 2,900 orders."},
                #{question: "Own result", expected: "1", actual: "7",
                  expectedResult: #{columns: ["n"], rows: [[7]], truncated: false}},
            ];
            grade::answers(rows, #{questions: questions}).map(|g| `${g.verdict} ${g.rule}`)"#,
        )
        .expect("graded");
    assert_eq!(
        graded,
        json!(["yes result_value", "no result_value", "yes result_value"])
    );
}
