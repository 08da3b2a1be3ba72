//! What a script may do and how much: the limits (set here and nowhere else), `eval`
//! disabled, imports limited to the stdlib, output through the printer, and Ctrl-C.

use super::host::Host;
use fabsh_client::output::SourceSpot;
use rhai::{Dynamic, Engine};

/// Operations before a script is stopped: far more than any automation needs, so only a
/// runaway loop meets it.
pub(super) const MAX_OPERATIONS: u64 = 5_000_000_000;
/// How often (in operations) a running script checks for Ctrl-C.
const CANCEL_CHECK_EVERY: u64 = 256;

/// Sets every limit a script runs under.
pub(super) fn apply_limits(engine: &mut Engine) {
    engine
        .set_max_operations(MAX_OPERATIONS)
        .set_max_call_levels(128)
        .set_max_expr_depths(256, 128)
        .set_max_string_size(64 * 1024 * 1024)
        .set_max_array_size(1_000_000)
        .set_max_map_size(1_000_000)
        .set_max_modules(256)
        .set_max_variables(100_000)
        .set_max_functions(10_000);
}

/// A bare engine under the same limits, for reading scripts without running them (syntax
/// checks, doc comments).
pub fn syntax_engine() -> Engine {
    let mut engine = Engine::new_raw();
    apply_limits(&mut engine);
    engine
}

/// Disables `eval`, routes `print` and `debug` to the printer, and stops the script when
/// Ctrl-C cancels the bridge. Termination is not an error a `try` block can catch.
pub(super) fn restrict(engine: &mut Engine, host: &Host) {
    engine.disable_symbol("eval");
    let printer = host.printer().clone();
    engine.on_print(move |text| {
        // A closed stdout (`| head`) is not the script's problem.
        let _ = printer.text(&format!("{text}\n"));
    });
    let printer = host.printer().clone();
    engine.on_debug(move |text, source, position| {
        let spot = position.line().map(|line| SourceSpot {
            origin: source.unwrap_or("<script>").to_string(),
            line,
            column: position.position().unwrap_or(1),
            text: None,
        });
        printer.script_debug(text, spot.as_ref());
    });
    let bridge = host.bridge().clone();
    engine.on_progress(move |operations| {
        (operations % CANCEL_CHECK_EVERY == 0 && bridge.is_cancelled())
            .then(|| Dynamic::from("cancelled"))
    });
}
