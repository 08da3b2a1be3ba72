//! Every registry command has its Rhai function, in every call form, with no code written
//! for it: commands added later get theirs from the registry. Checked on the real registry
//! with no server (the probes fail in the flag checks, before anything connects).

use fabsh::commands::REGISTRY;
use fabsh::script::{self, Host, runner};
use fabsh_api::config::Settings;
use fabsh_client::bridge::Bridge;
use fabsh_client::output::Printer;
use std::collections::{HashMap, HashSet};

fn engine_on_nothing() -> (tokio::runtime::Runtime, rhai::Engine) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let settings = Settings {
        endpoint: Some("http://127.0.0.1:9".into()),
        ..Settings::default()
    };
    let host = Host::lazy(
        settings,
        Bridge::new(runtime.handle().clone()),
        Printer::plain(),
    );
    let engine = script::engine(&host).expect("engine");
    (runtime, engine)
}

/// `module::function` → the numbers of parameters it is registered with.
fn registered(engine: &rhai::Engine) -> HashMap<String, HashSet<usize>> {
    let mut found: HashMap<String, HashSet<usize>> = HashMap::new();
    for signature in engine.gen_fn_signatures(false) {
        let Some((name, rest)) = signature.split_once('(') else {
            continue;
        };
        let params = rest.split(')').next().unwrap_or("");
        let count = if params.trim().is_empty() {
            0
        } else {
            params.split(',').count()
        };
        found.entry(name.to_string()).or_default().insert(count);
    }
    found
}

#[test]
fn every_registry_command_has_a_function_for_each_call_form() {
    let (_runtime, engine) = engine_on_nothing();
    let found = registered(&engine);
    let mut names = HashSet::new();
    for spec in REGISTRY.all().filter(|spec| spec.is_scriptable()) {
        let name = script::qualified_name(spec);
        assert!(names.insert(name.clone()), "{name} names two commands");
        let arities = found
            .get(&name)
            .unwrap_or_else(|| panic!("{} has no function {name}", spec.path()));
        for arity in script::arities(spec) {
            assert!(
                arities.contains(&arity),
                "{name} lacks the {arity}-parameter form"
            );
        }
        assert!(
            script::positional_args(spec).len() < script::MAX_PARAMETERS,
            "{name} has too many required flags for a script function"
        );
    }
}

#[test]
fn every_function_reaches_its_commands_flag_checks() {
    let (_runtime, engine) = engine_on_nothing();
    for spec in REGISTRY.all().filter(|spec| spec.is_scriptable()) {
        let name = script::qualified_name(spec);
        let required = script::positional_args(spec).len();
        let mut positional = vec!["\"x\""; required];
        positional.push("#{zz_probe: 1}");
        for code in [
            format!("{name}({})", positional.join(", ")),
            format!("{name}(#{{zz_probe: 1}})"),
        ] {
            let failure = runner::run_source(&engine, &mut rhai::Scope::new(), "<probe>", &code)
                .expect_err("the probe key is unknown");
            assert_eq!(failure.exit_code(), 2, "{code}: {}", failure.error);
            assert!(
                failure.error.message.contains("has no option `zz_probe`")
                    && failure.error.message.contains("valid options:"),
                "{code}: {}",
                failure.error.message
            );
        }
    }
}

#[test]
fn the_docs_give_every_function_its_call_forms() {
    let (_runtime, engine) = engine_on_nothing();
    let docs = script::docs::markdown(&engine, None).expect("docs");
    for spec in REGISTRY.all().filter(|spec| spec.is_scriptable()) {
        assert!(
            docs.contains(&format!("`{}`", script::qualified_name(spec))),
            "{} is missing from the docs",
            script::qualified_name(spec)
        );
    }
    for function in [
        "bulk::create(workspace, items, opts)",
        "util::find_by_name(workspace, name)",
    ] {
        assert!(
            docs.contains(function),
            "{function} is missing from the docs"
        );
    }
}
