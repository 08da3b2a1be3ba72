//! The run's summary, and a comparison's.

use super::{millis, percent, short, to_the_second};
use crate::agent::junit::{escape, or_empty};
use fabsh_model::agent::evaluation::{
    Comparison, ConfigurationChange, EvaluationRun, EvaluationSummary, QuestionStatus,
};
use std::fmt::Write;

pub(super) fn summary_section(run: &EvaluationRun) -> String {
    let summary = run.summary.as_ref();
    // A summary the store could not read shows its counts empty.
    let count = |of: fn(&EvaluationSummary) -> u64| {
        summary.map_or_else(String::new, |summary| of(summary).to_string())
    };
    let fingerprint = run
        .configuration_fingerprint
        .as_deref()
        .map_or_else(|| "none".to_string(), |f| short(f, 12));
    let items = [
        ("Agent", run.agent.name_or_id().to_string()),
        ("Workspace", run.workspace.name_or_id().to_string()),
        ("Time", to_the_second(or_empty(&run.time))),
        ("Grading", run.grading.clone()),
        ("Pass rate", percent(summary.map(|s| s.pass_rate))),
        // Runs, as the JSON's summary counts them: one per question of the file and repeat
        // (two questions of one text are two questions, not repeats).
        (
            "Runs",
            format!(
                "{} ({} × {} repeats)",
                count(|s| s.runs),
                questions_in_file(run),
                run.repeats
            ),
        ),
        ("Passed runs", count(|s| s.passed)),
        ("Failed runs", count(|s| s.failed)),
        ("Unclear runs", count(|s| s.unclear)),
        ("Error runs", count(|s| s.errors)),
        (
            "Latency p50",
            millis(summary.and_then(|s| s.latency_p50_ms)),
        ),
        (
            "Latency p95",
            millis(summary.and_then(|s| s.latency_p95_ms)),
        ),
        ("Configuration", fingerprint),
        ("Questions file sha256", short(&run.questions_sha256, 12)),
        ("Run id", or_empty(&run.run_id).to_string()),
    ];
    let mut out = String::from("<section class=\"summary\"><h2>Summary</h2><dl class=\"summary\">");
    for (label, value) in items {
        let _ = write!(
            out,
            "<div><dt>{label}</dt><dd>{}</dd></div>",
            escape(&value)
        );
    }
    let _ = write!(
        out,
        "</dl><p class=\"muted\">Questions file: {} · sha256 {}</p></section>",
        escape(&run.questions_file),
        escape(&run.questions_sha256)
    );
    out
}

/// How many questions the run's file held: its rows are each question's repeats together.
fn questions_in_file(run: &EvaluationRun) -> usize {
    let repeats = usize::try_from(run.repeats).unwrap_or(usize::MAX).max(1);
    run.rows.len() / repeats
}

pub(super) fn comparison_section(comparison: &Comparison) -> String {
    let signed = |value: Option<f64>, scale: f64, unit: &str| {
        value.map_or_else(|| "—".to_string(), |v| format!("{:+.1}{unit}", v * scale))
    };
    let mut out = format!(
        "<section class=\"comparison\"><h2>Compared with run {}</h2><dl class=\"summary\">",
        escape(&short(or_empty(&comparison.base.run_id), 8))
    );
    // These count questions (the summary above counts runs): the labels say which.
    let items = [
        (
            "Newly failing questions",
            comparison.newly_failing.to_string(),
        ),
        (
            "Newly passing questions",
            comparison.newly_passing.to_string(),
        ),
        ("Flaky questions", comparison.flaky.to_string()),
        ("Unchanged questions", comparison.unchanged.to_string()),
        ("Unclear questions", comparison.unclear.to_string()),
        (
            "Pass rate Δ",
            signed(comparison.pass_rate_delta, 100.0, " pts"),
        ),
        (
            "Latency p50 Δ",
            signed(comparison.latency_p50_delta_ms, 1.0, " ms"),
        ),
        (
            "Configuration changed",
            // Null (a run without a fingerprint) shows nothing.
            comparison
                .configuration_changed
                .map_or_else(String::new, |changed| changed.to_string()),
        ),
        (
            "What changed",
            changes_text(comparison.configuration_changes.as_deref()),
        ),
    ];
    for (label, value) in items {
        let _ = write!(
            out,
            "<div><dt>{label}</dt><dd>{}</dd></div>",
            escape(&value)
        );
    }
    out.push_str("</dl><ul>");
    for question in &comparison.questions {
        if question.status == QuestionStatus::Unchanged {
            continue;
        }
        let status = question.status.name();
        let _ = write!(
            out,
            "<li class=\"change\" data-status=\"{}\"><strong>{}</strong>: {}</li>",
            escape(status),
            escape(&status.replace('_', " ")),
            escape(&question.question)
        );
    }
    out.push_str("</ul></section>");
    out
}

/// The configuration changes as one line: `instructions and settings (changed), …`; a dash
/// when the runs predate per-part records or nothing changed.
fn changes_text(changes: Option<&[ConfigurationChange]>) -> String {
    let named: Vec<String> = changes
        .into_iter()
        .flatten()
        .map(|change| format!("{} ({})", change.what, change.change.name()))
        .collect();
    if named.is_empty() {
        "—".into()
    } else {
        named.join(", ")
    }
}
