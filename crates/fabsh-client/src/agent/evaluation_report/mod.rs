//! `data-agent evaluations report`: one recorded run as a single self-contained HTML page
//! (inline CSS and SVG, nothing loaded from anywhere) — its summary, the agent's pass rate
//! over its recorded runs, a questions × runs matrix, the latency histogram of the run and
//! every row not graded yes; with a comparison, its summary first. Every text from the
//! store is escaped. Elements carry class names and data-* attributes so tests (and
//! scripts) can read the page structurally.

use super::junit::{escape, or_empty};
use fabsh_model::agent::evaluation::{Comparison, EvaluationRun, ListedRun};
use std::fmt::Write;

mod failures;
mod latency;
mod matrix;
mod summary;
mod trend;

use failures::failures_section;
use latency::latency_section;
use matrix::matrix_section;
use summary::{comparison_section, summary_section};
use trend::trend_section;

/// What the page shows.
pub struct Report<'a> {
    /// The run, as `evaluations show` gives it.
    pub run: &'a EvaluationRun,
    /// The agent's recorded runs, oldest first, as `evaluations list` gives them.
    pub history: &'a [ListedRun],
    /// The runs of the matrix, oldest first, as `evaluations show` gives them; the page shows
    /// them newest first.
    pub matrix: &'a [EvaluationRun],
    /// `evaluations compare`'s answer, when asked for.
    pub comparison: Option<&'a Comparison>,
}

const STYLE: &str = "
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0 auto;padding:16px;max-width:1100px;color:#1b1b1b;background:#fff;line-height:1.4}
h1{font-size:1.5rem;margin:.2em 0 .6em;overflow-wrap:anywhere}
h2{font-size:1.15rem;margin:1.6em 0 .5em;border-bottom:1px solid #ddd;padding-bottom:.2em}
section{max-width:100%}
dl.summary{display:grid;grid-template-columns:repeat(auto-fit,minmax(170px,1fr));gap:8px;margin:0}
dl.summary div{background:#f5f6f8;border-radius:6px;padding:8px 10px;min-width:0}
dt{font-size:.75rem;color:#555;text-transform:uppercase;letter-spacing:.03em}
dd{margin:0;font-weight:600;overflow-wrap:anywhere}
svg{display:block}
svg.histogram{width:100%;height:auto;max-width:600px}
.scroll{overflow-x:auto;max-width:100%;border:1px solid #e3e3e3;border-radius:6px}
.trend-chart{display:flex;align-items:flex-start}
.trend-axis{flex:none}
.chart{flex:1;min-width:0;overflow-x:auto;direction:rtl}
.chart svg{direction:ltr;margin:0 auto 0 0}
table{border-collapse:collapse;font-size:.85rem}
th,td{padding:4px 6px;border:1px solid #e3e3e3;text-align:left;vertical-align:top}
table.matrix th.question{min-width:180px;max-width:320px;font-weight:normal;overflow-wrap:anywhere;position:sticky;left:0;background:#fff;z-index:1}
table.matrix thead th{font-size:.7rem;white-space:nowrap}
table.matrix th.current{background:#fff3c4;border:2px solid #b07a00;border-bottom-width:1px}
table.matrix td.current{border-left:2px solid #b07a00;border-right:2px solid #b07a00}
table.matrix tr:last-child td.current{border-bottom:2px solid #b07a00}
.this-run{display:inline-block;background:#b07a00;color:#fff;border-radius:3px;padding:0 4px;margin-bottom:2px;font-weight:700}
td.cell{text-align:center;font-weight:700;min-width:34px}
.pass{background:#cdeccd;color:#125212}
.fail{background:#f8cccc;color:#8a1010}
.mixed{background:#fbe3a6;color:#6b4a00}
.absent{background:#e8e8e8;color:#555}
.unclear{background:#dfe7f5;color:#1f3f73}
.legend{display:flex;flex-wrap:wrap;gap:10px;margin:8px 0;font-size:.85rem;padding:0;list-style:none}
.legend li span{display:inline-block;min-width:24px;text-align:center;border-radius:4px;margin-right:4px;font-weight:700}
article.failure{border:1px solid #e3c0c0;border-left:4px solid #c33;border-radius:6px;padding:8px 12px;margin:10px 0;overflow-wrap:anywhere}
article.failure h3{font-size:1rem;margin:0 0 6px}
article.failure pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:2px 0 8px;background:#f7f7f7;padding:6px;border-radius:4px;font-size:.85rem}
.muted{color:#666;font-size:.85rem;overflow-wrap:anywhere}
.comparison ul{padding-left:1.2em}
@media (max-width:480px){body{padding:10px}h1{font-size:1.2rem}dl.summary{grid-template-columns:1fr 1fr}}
";

/// A recorded time (RFC 3339, to the nanosecond) to the second, with its offset:
/// `2026-11-25 16:40:12 +00:00`. Text that does not parse is shown as it is.
fn to_the_second(recorded: &str) -> String {
    use time::format_description::well_known::Rfc3339;
    let shown = time::macros::format_description!(
        "[year]-[month]-[day] [hour]:[minute]:[second] [offset_hour sign:mandatory]:[offset_minute]"
    );
    time::OffsetDateTime::parse(recorded, &Rfc3339)
        .ok()
        .and_then(|at| at.format(&shown).ok())
        .unwrap_or_else(|| recorded.to_string())
}

/// The page.
pub fn render(report: &Report) -> String {
    let run = report.run;
    let agent = run.agent.name_or_id();
    let mut page = String::new();
    let _ = write!(
        page,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <title>Evaluation {} of {}</title><style>{STYLE}</style></head><body>\
         <h1>Evaluation of {}</h1>",
        escape(&short(or_empty(&run.run_id), 8)),
        escape(agent),
        escape(agent),
    );
    if let Some(comparison) = report.comparison {
        page.push_str(&comparison_section(comparison));
    }
    page.push_str(&summary_section(run));
    page.push_str(&trend_section(report.history, or_empty(&run.run_id)));
    page.push_str(&matrix_section(run, report.matrix));
    page.push_str(&latency_section(run));
    page.push_str(&failures_section(run));
    page.push_str("</body></html>\n");
    page
}

/// The first `n` characters.
fn short(text: &str, n: usize) -> String {
    text.chars().take(n).collect()
}

/// "1 run", "2 runs": a page of a first run says so without a stray plural.
fn runs(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

fn percent(value: Option<f64>) -> String {
    value.map_or_else(|| "—".to_string(), |rate| format!("{:.1}%", rate * 100.0))
}

fn millis(value: Option<u64>) -> String {
    value.map_or_else(|| "—".to_string(), |ms| format!("{ms} ms"))
}

#[cfg(test)]
mod tests;
