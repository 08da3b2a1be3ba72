//! Registry commands as Rhai functions, generated from the registry: one static module per
//! group (`item`, `workspace`, `data_agent`), one function per command (`item::get_definition`),
//! each callable three ways:
//!
//! - required flags positional, in declared order: `item::show(ws, id)`
//! - the same plus a trailing options map: `item::list(ws, #{type: "Notebook", all: true})`
//! - one map of everything: `item::show(#{workspace: ws, id: id})`
//!
//! Values are checked by `Args::check`, like the CLI's, and the command runs through
//! `commands::execute`, like the CLI's.

use super::convert::{at_call, throw, to_dynamic, to_raw_value};
use super::host::Host;
use fabsh_client::commands::common::{TARGET, effective_args};
use fabsh_client::commands::{self, ArgKind, ArgSpec, Args, CommandSpec, RawValue, Registry};
use fabsh_client::context::Ctx;
use fabsh_client::error::{Error, Result};
use rhai::{Dynamic, Engine, EvalAltResult, FuncRegistration, Map, Module, NativeCallContext};
use serde_json::Value;
use std::rc::Rc;

/// The most parameters a generated function can take (required flags plus the options map).
pub const MAX_PARAMETERS: usize = 8;

/// The group-level command (`api`) is called as `<group>::request`.
const GROUP_COMMAND_FUNCTION: &str = "request";

type Call = Rc<dyn Fn(Vec<Dynamic>) -> std::result::Result<Dynamic, Box<EvalAltResult>>>;

/// The Rhai module of a group: `data-agent` → `data_agent`.
pub fn module_name(group: &str) -> String {
    group.replace('-', "_")
}

/// The Rhai function of a command: `get-definition` → `get_definition`; a group that is
/// itself the command (`api`) gets `request`.
pub fn function_name(spec: &CommandSpec) -> String {
    if spec.name.is_empty() {
        return GROUP_COMMAND_FUNCTION.to_string();
    }
    let name = spec.name.replace(['-', ' '], "_");
    // A keyword of Rhai cannot be called as `module::export`: such a command's function
    // takes a trailing `_` (`deploy::export_`).
    if RHAI_KEYWORDS.contains(&name.as_str()) {
        format!("{name}_")
    } else {
        name
    }
}

/// Rhai's keywords (reserved or in use) that a command name could be.
const RHAI_KEYWORDS: &[&str] = &[
    "export",
    "import",
    "as",
    "private",
    "global",
    "fn",
    "let",
    "const",
    "return",
    "throw",
    "for",
    "in",
    "while",
    "loop",
    "do",
    "if",
    "else",
    "switch",
    "break",
    "continue",
    "try",
    "catch",
    "this",
    "is",
    "new",
    "use",
    "with",
    "module",
    "package",
    "static",
    "shared",
    "sync",
    "spawn",
    "thread",
    "go",
    "await",
    "async",
    "yield",
    "default",
    "case",
    "public",
    "protected",
    "super",
    "var",
    "match",
    "exit",
    "print",
    "debug",
    "eval",
    "type_of",
];

/// `item::show`: how messages and docs name the function.
pub fn qualified_name(spec: &CommandSpec) -> String {
    format!("{}::{}", module_name(spec.group), function_name(spec))
}

/// The flags taken by position: the required ones without a default, in declared order.
pub fn positional_args(spec: &'static CommandSpec) -> Vec<&'static ArgSpec> {
    effective_args(spec)
        .into_iter()
        .filter(|arg| arg.required && arg.default.is_none())
        .collect()
}

/// The numbers of parameters a command's function is registered with: every count up to the
/// positional ones plus an options map, so a call with too few values (or with the rest of
/// the required values in its map, `add_fewshot(ws, agent, ds, #{question, answer})`)
/// reaches the command and gets a message about its arguments, not "no function".
pub fn arities(spec: &'static CommandSpec) -> Vec<usize> {
    let required = positional_args(spec).len();
    let mut arities: Vec<usize> = (1..=required + 1).collect();
    if required == 0 {
        arities.insert(0, 0);
    }
    arities
}

/// Registers one static module per group, with a function for every command.
pub(super) fn register(engine: &mut Engine, host: &Host, registry: Registry) -> Result<()> {
    for group in registry.groups {
        let scriptable: Vec<&'static CommandSpec> = group
            .commands
            .iter()
            .filter(|spec| spec.is_scriptable())
            .collect();
        if scriptable.is_empty() {
            continue;
        }
        let mut module = Module::new();
        for spec in scriptable {
            let host = host.clone();
            let call: Call =
                Rc::new(move |values| call_with_values(&host, spec, values).map_err(throw));
            for arity in arities(spec) {
                set_function(&mut module, &function_name(spec), arity, &call)?;
            }
        }
        module.build_index();
        engine.register_static_module(module_name(group.name), module.into());
    }
    Ok(())
}

/// Runs a command from the values a script passed, in any of the three call forms.
fn call_with_values(
    host: &Host,
    spec: &'static CommandSpec,
    mut values: Vec<Dynamic>,
) -> Result<Dynamic> {
    let positional = positional_args(spec);
    let single_map = values.len() == 1
        && values[0].is_map()
        && positional
            .first()
            .is_none_or(|arg| arg.kind != ArgKind::Json);
    let options = if values.len() == positional.len() && !single_map {
        None
    } else {
        let given = values.len();
        let Some(map) = values.pop().and_then(Dynamic::try_cast::<Map>) else {
            return Err(wrong_arguments(spec, &positional, given));
        };
        Some(map)
    };
    let raw = raw_args(spec, &positional, &values, options.as_ref())?;
    run_command(host, spec, raw).map(to_dynamic)
}

/// A call whose values fit none of the forms: what the function takes, and which of its
/// arguments the call left out.
fn wrong_arguments(
    spec: &'static CommandSpec,
    positional: &[&'static ArgSpec],
    given: usize,
) -> Error {
    let required: Vec<String> = positional.iter().map(|arg| arg.snake_name()).collect();
    let name = qualified_name(spec);
    let takes = required.join(", ");
    let plural = if given == 1 { "" } else { "s" };
    // Given as many or more than required: none missing.
    let missing = &required[given.min(required.len())..];
    let detail = if missing.is_empty() {
        format!("it was given {given} argument{plural} and the last is not an options map")
    } else {
        format!(
            "it was given {given} argument{plural}, so {} missing",
            match missing {
                [one] => format!("`{one}` is"),
                more => format!("`{}` are", more.join("`, `")),
            }
        )
    };
    Error::usage(format!(
        "{name} takes ({takes}), ({takes}, #{{options}}) or one map #{{...}}; {detail}"
    ))
}

/// Flag values from script values: positional ones for `positional` flags, then an options
/// map keyed by snake_case (or kebab-case) flag names. Unknown keys are usage errors that
/// list the valid ones.
pub(super) fn raw_args(
    spec: &'static CommandSpec,
    positional: &[&'static ArgSpec],
    values: &[Dynamic],
    options: Option<&Map>,
) -> Result<Vec<(&'static ArgSpec, RawValue)>> {
    let effective = effective_args(spec);
    let convert = |arg: &ArgSpec, value: &Dynamic| {
        to_raw_value(value).map_err(|why| {
            Error::usage(format!(
                "{} {}: {why}",
                qualified_name(spec),
                arg.snake_name()
            ))
        })
    };
    let mut raw = Vec::new();
    for (arg, value) in positional.iter().zip(values) {
        if let Some(value) = convert(arg, value)? {
            raw.push((*arg, value));
        }
    }
    for (key, value) in options.into_iter().flatten() {
        let flag = key.replace('_', "-");
        let arg = effective
            .iter()
            .filter(|arg| arg.long != TARGET)
            .find(|arg| arg.long == flag || arg.aliases.contains(&flag.as_str()))
            .ok_or_else(|| unknown_key(spec, key))?;
        if let Some(value) = convert(arg, value)? {
            raw.push((*arg, value));
        }
    }
    Ok(raw)
}

/// A map key the command does not take: named as the unknown key, with the keys it takes
/// and the closest one, as a typo usually is.
fn unknown_key(spec: &'static CommandSpec, key: &str) -> Error {
    let keys = option_keys(spec);
    let error = Error::usage(format!(
        "{} has no option `{key}`; valid options: {}",
        qualified_name(spec),
        keys.join(", ")
    ));
    match fabsh_model::edit_distance::closest(key, keys.iter().map(String::as_str)) {
        Some(near) => error.with_hint(format!("did you mean `{near}`?")),
        None => error,
    }
}

/// Every option-map key a command takes, snake_case, in declared order. The command line's
/// `WORKSPACE/ITEM` is not one: a script passes the workspace and the item as values (fab's
/// `Welcome.Notebook` form works there too).
pub fn option_keys(spec: &'static CommandSpec) -> Vec<String> {
    effective_args(spec)
        .iter()
        .filter(|arg| arg.long != TARGET)
        .map(|arg| arg.snake_name())
        .collect()
}

/// Checks the values, filling in configured defaults (the default workspace) for flags the
/// script left out, as the CLI does. A script's list is the whole list: a paged command gets
/// every page unless the script asks for less (`all: false`, `limit`, a continuation token).
pub(super) fn check_args(
    host: &Host,
    spec: &'static CommandSpec,
    mut raw: Vec<(&'static ArgSpec, RawValue)>,
) -> Result<Args> {
    let effective = effective_args(spec);
    for arg in &effective {
        if raw.iter().any(|(given, _)| given.long == arg.long) {
            continue;
        }
        if let Some(value) = host.flag_default(arg) {
            raw.push((arg, RawValue::Text(value)));
        }
    }
    let asks_for_less = ["all", "limit", "continuation-token"]
        .iter()
        .any(|flag| raw.iter().any(|(given, _)| given.long == *flag));
    if spec.traits.paged
        && !asks_for_less
        && let Some(all) = effective.iter().find(|arg| arg.long == "all")
    {
        raw.push((all, RawValue::Bool(true)));
    }
    Args::check(spec, &effective, raw)
}

/// Checks the values, connects if needed, and runs the command through the bridge.
pub(super) fn run_command(
    host: &Host,
    spec: &'static CommandSpec,
    raw: Vec<(&'static ArgSpec, RawValue)>,
) -> Result<Value> {
    let args = check_args(host, spec, raw)?;
    let ctx = host.ctx_for(spec)?;
    let value = host.bridge().block_on(value_of(spec, args, ctx))?;
    host.ran(spec);
    Ok(value)
}

/// Runs a command and collects its reply as JSON. A reply that carries a failure (some
/// items of a bulk command failed) becomes that error, with the data in its `details`.
pub(super) async fn value_of(spec: &'static CommandSpec, args: Args, ctx: Ctx) -> Result<Value> {
    let mut reply = commands::execute(spec, args, &ctx).await?;
    let failure = reply.failure.take();
    let value = reply.into_value().await?;
    match failure {
        // A plan with changes pending, a run that ended Failed: the answer a script asked
        // for, not a failure.
        Some(failure) if failure.kind.carries_answer() => Ok(value),
        Some(mut failure) => {
            failure.details = Some(value);
            Err(failure)
        }
        None => Ok(value),
    }
}

/// Registers `call` under `name` taking `arity` values of any type.
fn set_function(module: &mut Module, name: &str, arity: usize, call: &Call) -> Result<()> {
    macro_rules! set {
        ($($value:ident),*) => {{
            let call = Rc::clone(call);
            FuncRegistration::new(name)
                .with_volatility(true)
                .set_into_module(module, move |context: NativeCallContext, $($value: Dynamic),*| {
                    call(vec![$($value),*]).map_err(|err| at_call(&context, err))
                });
        }};
    }
    match arity {
        0 => set!(),
        1 => set!(a),
        2 => set!(a, b),
        3 => set!(a, b, c),
        4 => set!(a, b, c, d),
        5 => set!(a, b, c, d, e),
        6 => set!(a, b, c, d, e, f),
        7 => set!(a, b, c, d, e, f, g),
        8 => set!(a, b, c, d, e, f, g, h),
        _ => {
            return Err(Error::runtime(format!(
                "{name} would take {arity} parameters; scripts allow at most {MAX_PARAMETERS}"
            )));
        }
    }
    Ok(())
}
