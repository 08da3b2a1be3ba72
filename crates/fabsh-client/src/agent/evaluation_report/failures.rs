//! The rows not graded yes.

use super::millis;
use crate::agent::junit::{escape, or_empty, verdict_text};
use fabsh_model::agent::evaluation::{EvaluationRow, EvaluationRun};
use std::fmt::Write;

/// Every row not graded yes, with what was expected, what came back and why; the repeats that
/// failed the same way (same question, verdict, expected, actual and reason) are one card
/// with their count, so a run of many repeats does not bury its few distinct failures.
pub(super) fn failures_section(run: &EvaluationRun) -> String {
    let failed: Vec<&EvaluationRow> = run.rows.iter().filter(|row| !row.passed()).collect();
    let why = |row: &EvaluationRow| match &row.error {
        None => or_empty(&row.rationale).to_string(),
        Some(error) => error.clone(),
    };
    let same_failure = |row: &EvaluationRow| {
        (
            row.question.clone(),
            verdict_text(row.verdict).to_string(),
            or_empty(&row.rule).to_string(),
            or_empty(&row.expected).to_string(),
            or_empty(&row.actual).to_string(),
            why(row),
        )
    };
    // Each distinct failure with its rows, in the order first met.
    let mut groups: Vec<(_, Vec<&EvaluationRow>)> = Vec::new();
    for row in &failed {
        let key = same_failure(row);
        match groups.iter_mut().find(|(known, _)| *known == key) {
            Some((_, rows)) => rows.push(row),
            None => groups.push((key, vec![row])),
        }
    }
    let mut out = format!(
        "<section><h2>Rows not graded yes ({}, {} distinct)</h2>",
        failed.len(),
        groups.len()
    );
    for ((question, verdict, rule, expected, actual, why), rows) in groups {
        let latencies: Vec<u64> = rows.iter().filter_map(|row| row.latency_ms).collect();
        let latency = match (latencies.iter().min(), latencies.iter().max()) {
            (Some(low), Some(high)) if low != high => format!("{low}–{high} ms"),
            _ => millis(rows[0].latency_ms),
        };
        let times = match rows.len() {
            1 => String::new(),
            n => format!("{n} repeats alike · "),
        };
        // No expected answer (none given, or the reference query gave none) is said, not an
        // empty box.
        let expected = if expected.is_empty() {
            "(none)".to_string()
        } else {
            expected
        };
        // The expected answer of a reference query is its result: the query beside it.
        let reference = match rows[0].reference_query() {
            Some(sql) => format!(
                "<div>Reference query</div><pre class=\"expected-sql\">{}</pre>",
                escape(sql)
            ),
            None => String::new(),
        };
        let _ = write!(
            out,
            "<article class=\"failure\" data-verdict=\"{}\" data-count=\"{}\"><h3>{}</h3>\
             <p class=\"muted\">{times}verdict {} · rule {} · {latency}</p>{reference}\
             <div>Expected</div><pre class=\"expected\">{}</pre>\
             <div>Actual</div><pre class=\"actual\">{}</pre>\
             <div>Why</div><pre class=\"why\">{}</pre></article>",
            escape(&verdict),
            rows.len(),
            escape(&question),
            escape(&verdict),
            escape(&rule),
            escape(&expected),
            escape(&actual),
            escape(&why),
        );
    }
    out.push_str("</section>");
    out
}
