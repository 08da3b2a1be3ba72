//! The questions × runs matrix.

use super::{runs, short};
use crate::agent::evaluation_compare::outcomes;
use crate::agent::junit::{escape, or_empty};
use fabsh_model::agent::evaluation::{EvaluationRun, Outcome};
use std::collections::BTreeMap;
use std::fmt::Write;

/// One cell's class, symbol and wording.
fn cell(outcome: Option<Outcome>) -> (&'static str, &'static str, &'static str) {
    match outcome {
        Some(Outcome::Pass) => ("pass", "✓", "passed on every repeat"),
        Some(Outcome::Fail) => ("fail", "✗", "failed on every repeat"),
        Some(Outcome::Flaky) => ("mixed", "±", "passed on some repeats"),
        Some(Outcome::Unclear) => (
            "unclear",
            "?",
            "unclear (no expected answer, or the judge could not grade)",
        ),
        None => ("absent", "–", "not asked"),
    }
}

/// The questions of the run × the runs of the matrix, newest first: the matrix scrolls
/// sideways behind a sticky question column, and without a script a scroll box opens at its
/// left end, so newest first is what puts this run (normally the newest) in view on a phone
/// and on a desktop alike. This run's column is outlined and headed "this run", so it is not
/// told by colour alone.
pub(super) fn matrix_section(run: &EvaluationRun, matrix: &[EvaluationRun]) -> String {
    let current = or_empty(&run.run_id);
    let shown: Vec<(&EvaluationRun, BTreeMap<String, Outcome>)> = matrix
        .iter()
        .rev()
        .map(|r| (r, outcomes(r).into_iter().collect()))
        .collect();
    // The command's window ends at the reported run; a window given without it is said so.
    let (up_to, where_this_run_is) = if shown.iter().any(|(r, _)| or_empty(&r.run_id) == current) {
        (
            " up to this one",
            "the outlined column headed <b>this run</b> is the run this page reports",
        )
    } else {
        (
            "",
            "the run this page reports is older than these and not among them",
        )
    };
    let mut out = format!(
        "<section><h2>Questions × the last {}{up_to}</h2>\
         <p class=\"muted\">Newest first, older runs further right; {where_this_run_is}.</p>\
         <ul class=\"legend\">",
        runs(matrix.len(), "run")
    );
    for outcome in [
        Some(Outcome::Pass),
        Some(Outcome::Fail),
        Some(Outcome::Flaky),
        Some(Outcome::Unclear),
        None,
    ] {
        let (class, symbol, wording) = cell(outcome);
        let _ = write!(
            out,
            "<li><span class=\"{class}\">{symbol}</span>{wording}</li>"
        );
    }
    out.push_str(
        "</ul><div class=\"scroll\"><table class=\"matrix\"><thead><tr><th class=\"question\">Question</th>",
    );
    for (column, _) in &shown {
        let id = or_empty(&column.run_id);
        let is_current = id == current;
        let time = or_empty(&column.time);
        let _ = write!(
            out,
            "<th class=\"run{}\" data-run=\"{}\" data-current=\"{is_current}\" title=\"{} {}\">\
             {}{}<br>{}<br>{}</th>",
            if is_current { " current" } else { "" },
            escape(id),
            escape(id),
            escape(time),
            if is_current {
                "<span class=\"this-run\">this run</span><br>"
            } else {
                ""
            },
            escape(&short(id, 8)),
            escape(&short(time, 10)),
            // The hour and minute: runs of one day are otherwise told apart by id alone.
            escape(&time.chars().skip(11).take(5).collect::<String>()),
        );
    }
    out.push_str("</tr></thead><tbody>");
    for (question, _) in outcomes(run) {
        let _ = write!(
            out,
            "<tr class=\"matrix-row\"><th class=\"question\" scope=\"row\">{}</th>",
            escape(&question)
        );
        for (column, outcomes) in &shown {
            let id = or_empty(&column.run_id);
            let (class, symbol, wording) = cell(outcomes.get(&question).copied());
            let _ = write!(
                out,
                "<td class=\"cell {class}{}\" data-run=\"{}\" data-outcome=\"{class}\" title=\"{wording}\">{symbol}</td>",
                if id == current { " current" } else { "" },
                escape(id)
            );
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table></div></section>");
    out
}
