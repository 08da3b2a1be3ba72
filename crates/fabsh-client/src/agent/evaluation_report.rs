//! `data-agent evaluations report`: one recorded run as a single self-contained HTML page
//! (inline CSS and SVG, nothing loaded from anywhere) — its summary, the agent's pass rate
//! over its recorded runs, a questions × runs matrix, the latency histogram of the run and
//! every row not graded yes; with a comparison, its summary first. Every text from the
//! store is escaped. Elements carry class names and data-* attributes so tests (and
//! scripts) can read the page structurally.

use super::evaluation_compare::outcomes;
use super::junit::{escape, or_empty, verdict_text};
use fabsh_model::agent::evaluation::{
    Comparison, ConfigurationChange, EvaluationRow, EvaluationRun, EvaluationSummary, ListedRun,
    Outcome, QuestionStatus,
};
use std::collections::BTreeMap;
use std::fmt::Write;

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

/// A run's place on the trend chart's x-axis: its day and minute (`11-25 20:18`) in the time
/// as recorded (shown in the reader's zone by the store).
fn axis_date(recorded: &str) -> String {
    use time::format_description::well_known::Rfc3339;
    let shown = time::macros::format_description!("[month]-[day] [hour]:[minute]");
    time::OffsetDateTime::parse(recorded, &Rfc3339)
        .ok()
        .and_then(|at| at.format(&shown).ok())
        .unwrap_or_else(|| recorded.to_string())
}

/// What a run's line of the history is told apart by (its configuration fingerprint, its
/// questions file's sha256).
type Key = fn(&ListedRun) -> Option<&str>;

/// The configuration fingerprint of a run of the history.
fn fingerprint_of(run: &ListedRun) -> Option<&str> {
    run.configuration_fingerprint.as_deref()
}

/// The questions file's sha256 of a run of the history.
fn questions_of(run: &ListedRun) -> Option<&str> {
    run.questions_sha256.as_deref()
}

/// The runs (1 = oldest) that share `key`'s value, in order: a new span whenever it
/// changes, as `(short value, first, last)`.
fn spans(history: &[ListedRun], key: Key) -> Vec<(String, usize, usize)> {
    let mut spans: Vec<(String, usize, usize)> = Vec::new();
    for (i, run) in history.iter().enumerate() {
        let value = key(run).map_or_else(|| "none".to_string(), |f| short(f, 7));
        match spans.last_mut() {
            Some((known, _, last)) if *known == value => *last = i + 1,
            _ => spans.push((value, i + 1, i + 1)),
        }
    }
    spans
}

/// One legend line: `label`, then each value of `key` with the runs made on it.
fn legend(history: &[ListedRun], key: Key, label: &str) -> String {
    let entries: Vec<String> = spans(history, key)
        .iter()
        .map(|(value, first, last)| {
            let runs = if first == last {
                format!("run {first}")
            } else {
                format!("runs {first}–{last}")
            };
            format!("<code>{}</code> {runs}", escape(value))
        })
        .collect();
    format!(
        "<p class=\"muted legend\">{label}: {}</p>",
        entries.join(", ")
    )
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

fn summary_section(run: &EvaluationRun) -> String {
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

fn comparison_section(comparison: &Comparison) -> String {
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

/// Horizontal room per run in the trend chart, in px: the rotated (-45°) date labels of
/// neighbouring points are `RUN_STEP × sin 45°` apart, which must be more than their 11 px
/// font for them not to overlap.
const RUN_STEP: f64 = 18.0;
/// The trend plot's narrowest width in px, for an agent with few runs.
const TREND_MIN_WIDTH: f64 = 740.0;
/// The trend chart's height in px, the date labels under the plot included.
const TREND_HEIGHT: f64 = 260.0;
/// The width of the percent scale beside the plot, in px.
const AXIS_WIDTH: f64 = 42.0;

/// The pass rate over the agent's runs, oldest first, as a line chart drawn at one px per
/// unit, so its 11 px labels read the same on a phone and a desktop: the plot widens with
/// the number of runs, so labels never crowd, and scrolls sideways when wider than the page.
/// The percent scale is a separate drawing beside the scroll box, never scrolled out of view;
/// the scroll box is right-to-left so that, without a script, it opens at its right end:
/// the newest runs (this one, normally) are what a phone shows first.
fn trend_section(history: &[ListedRun], current: &str) -> String {
    // Room on the left for the first run's date, rotated under the plot, and on the right
    // for the last point's circle.
    let (height, left, right, top, bottom) = (TREND_HEIGHT, 62.0, 14.0, 16.0, 70.0);
    let steps = history.len().saturating_sub(1) as f64;
    let width = (left + right + RUN_STEP * steps).max(TREND_MIN_WIDTH);
    let plot_w = width - left - right;
    let plot_h = height - top - bottom;
    let x = |i: usize| {
        if history.len() <= 1 {
            left + plot_w / 2.0
        } else {
            left + plot_w * i as f64 / (history.len() - 1) as f64
        }
    };
    let y = |rate: f64| top + plot_h * (1.0 - rate.clamp(0.0, 1.0));
    let mut axis = format!(
        "<svg class=\"trend-axis\" width=\"{AXIS_WIDTH}\" height=\"{height}\" \
         viewBox=\"0 0 {AXIS_WIDTH} {height}\" aria-hidden=\"true\" font-size=\"11\">"
    );
    let mut svg = format!(
        "<svg class=\"trend\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" \
         role=\"img\" aria-label=\"Pass rate over {} recorded runs\" font-size=\"11\">",
        history.len()
    );
    for tick in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let _ = write!(
            axis,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#555\">{}%</text>",
            AXIS_WIDTH - 6.0,
            y(tick) + 4.0,
            tick * 100.0,
        );
        let _ = write!(
            svg,
            "<line x1=\"0\" x2=\"{width}\" y1=\"{y}\" y2=\"{y}\" stroke=\"#e3e3e3\"/>",
            y = y(tick),
        );
    }
    axis.push_str("</svg>");
    // Runs of one questions file are joined; where the file changes, the line breaks and a
    // dashed rule says so: pass rates of different questions are not one trend.
    // A run whose pass rate is not known (none recorded) is drawn at the bottom.
    let rate = |run: &ListedRun| run.pass_rate.unwrap_or(0.0);
    for (_, first, last) in spans(history, questions_of) {
        let points: Vec<String> = (first - 1..last)
            .map(|i| format!("{:.1},{:.1}", x(i), y(rate(&history[i]))))
            .collect();
        let _ = write!(
            svg,
            "<polyline class=\"questions-file\" points=\"{}\" fill=\"none\" stroke=\"#2d6cdf\" stroke-width=\"2\"/>",
            points.join(" ")
        );
        if first > 1 {
            let at = f64::midpoint(x(first - 2), x(first - 1));
            let _ = write!(
                svg,
                "<g class=\"file-change\"><line x1=\"{at:.1}\" x2=\"{at:.1}\" y1=\"{top}\" y2=\"{:.1}\" \
                 stroke=\"#b06000\" stroke-dasharray=\"4 3\"/><text x=\"{:.1}\" y=\"{:.1}\" fill=\"#b06000\">\
                 new questions</text></g>",
                top + plot_h,
                at + 3.0,
                top + 10.0
            );
        }
    }
    for (i, run) in history.iter().enumerate() {
        let id = or_empty(&run.run_id);
        let is_current = id == current;
        let fingerprint = fingerprint_of(run).map_or_else(|| "none".to_string(), |f| short(f, 7));
        let time = or_empty(&run.time);
        let label = axis_date(time);
        let (cx, cy) = (x(i), y(rate(run)));
        let _ = write!(
            svg,
            "<g class=\"point{}\" data-run=\"{}\" data-current=\"{is_current}\">\
             <title>{} {} {}</title>\
             <circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"{}\" fill=\"{}\" stroke=\"#2d6cdf\" stroke-width=\"2\"/>\
             <text transform=\"translate({cx:.1},{:.1}) rotate(-45)\" text-anchor=\"end\" fill=\"{}\" font-family=\"monospace\"{}>{}</text></g>",
            if is_current { " current" } else { "" },
            escape(id),
            escape(&to_the_second(time)),
            percent(run.pass_rate),
            escape(&fingerprint),
            if is_current { 7 } else { 4 },
            if is_current { "#f0a000" } else { "#fff" },
            top + plot_h + 14.0,
            if is_current { "#000" } else { "#555" },
            if is_current {
                " font-weight=\"bold\""
            } else {
                ""
            },
            escape(&label),
        );
    }
    svg.push_str("</svg>");
    format!(
        "<section><h2>Pass rate over the agent's {}</h2>\
         <div class=\"trend-chart\">{axis}<div class=\"chart\">{svg}</div></div>\
         <p class=\"muted\">Oldest to newest, each point at its date (month-day hour:minute); \
         a point's tooltip names its configuration fingerprint; the larger amber point is this \
         run; a dashed line marks a change of questions file, where the line breaks.</p>{}</section>",
        runs(history.len(), "recorded run"),
        legend(history, fingerprint_of, "Configurations")
            + &legend(history, questions_of, "Questions files (sha256)")
    )
}

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
fn matrix_section(run: &EvaluationRun, matrix: &[EvaluationRun]) -> String {
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

/// The run's latencies as a histogram of up to ten equal bins.
fn latency_section(run: &EvaluationRun) -> String {
    let latencies: Vec<f64> = run
        .rows
        .iter()
        .filter_map(|row| row.latency_ms)
        .map(|ms| ms as f64)
        .collect();
    let mut out = String::from("<section><h2>Latency of this run</h2>");
    if latencies.is_empty() {
        out.push_str("<p class=\"muted\">No latencies recorded.</p></section>");
        return out;
    }
    let low = latencies.iter().copied().fold(f64::INFINITY, f64::min);
    let high = latencies.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let bins = if high > low { 10 } else { 1 };
    let step = ((high - low) / bins as f64).max(1.0);
    let mut counts = vec![0usize; bins];
    for latency in &latencies {
        let bin = (((latency - low) / step) as usize).min(bins - 1);
        counts[bin] += 1;
    }
    let most = counts.iter().copied().max().unwrap_or(1).max(1);
    // Narrow, so that its labels stay readable when a phone shrinks it to the page.
    let (width, height, left, bottom, top) = (480.0, 200.0, 36.0, 40.0, 14.0);
    let plot_h = height - top - bottom;
    let bar_w = (width - left - 8.0) / bins as f64;
    let _ = write!(
        out,
        "<svg class=\"histogram\" viewBox=\"0 0 {width} {height}\" role=\"img\" \
         aria-label=\"Latency histogram of {} runs\" font-size=\"12\">\
         <text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#555\">{most}</text>\
         <text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#555\">0</text>",
        latencies.len(),
        left - 6.0,
        top + 8.0,
        left - 6.0,
        top + plot_h,
    );
    for (i, count) in counts.iter().enumerate() {
        let h = plot_h * *count as f64 / most as f64;
        let x = left + bar_w * i as f64;
        let from = low + step * i as f64;
        let _ = write!(
            out,
            "<g class=\"bar\" data-count=\"{count}\"><title>{from:.0}–{:.0} ms: {count}</title>\
             <rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{h:.1}\" fill=\"#2d6cdf\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#333\">{}</text></g>",
            from + step,
            x + 1.0,
            top + plot_h - h,
            bar_w - 2.0,
            x + bar_w / 2.0,
            top + plot_h - h - 3.0,
            // An empty bin shows no count: a lone 0 would read as an axis label.
            if *count == 0 {
                String::new()
            } else {
                count.to_string()
            },
        );
    }
    let _ = write!(
        out,
        "<text x=\"{left}\" y=\"{}\" fill=\"#555\">{low:.0} ms</text>\
         <text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#555\">{:.0} ms</text></svg></section>",
        height - 18.0,
        width - 8.0,
        height - 18.0,
        low + step * bins as f64,
    );
    out
}

/// Every row not graded yes, with what was expected, what came back and why; the repeats that
/// failed the same way (same question, verdict, expected, actual and reason) are one card
/// with their count, so a run of many repeats does not bury its few distinct failures.
fn failures_section(run: &EvaluationRun) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn history(n: usize) -> Vec<ListedRun> {
        (0..n)
            .map(|i| ListedRun {
                run_id: Some(format!("run-{i}")),
                time: Some("2026-01-01T00:00:00Z".into()),
                pass_rate: Some(0.5),
                runs: None,
                configuration_fingerprint: Some(format!("{i:064x}")),
                grading: None,
                questions_sha256: None,
            })
            .collect()
    }

    /// A recorded run of the history, with one question that passed.
    fn recorded(listed: &ListedRun) -> EvaluationRun {
        serde_json::from_value(json!({
            "runId": listed.run_id, "time": listed.time,
            "workspace": {"id": "w", "name": null}, "agent": {"id": "a", "name": null},
            "grading": "rules", "questionsFile": "q.json", "questionsSha256": "",
            "repeats": 1, "concurrency": 1,
            "configurationFingerprint": listed.configuration_fingerprint,
            "summary": null, "configurationParts": null,
            "rows": [{"question": "q", "expected": null, "actual": null, "verdict": "yes",
                      "rule": null, "rationale": null, "latencyMs": null, "error": null}],
        }))
        .expect("a run")
    }

    /// The numbers of every `attribute="..."` in `html`, in order.
    fn numbers(html: &str, attribute: &str) -> Vec<f64> {
        let marker = format!(" {attribute}=\"");
        html.match_indices(&marker)
            .map(|(at, _)| {
                let rest = &html[at + marker.len()..];
                rest[..rest.find('"').unwrap()].parse().unwrap()
            })
            .collect()
    }

    /// The trend plot's viewBox width and its width in CSS px.
    fn widths(html: &str) -> (f64, f64) {
        let plot = html.split("<svg class=\"trend\"").nth(1).unwrap();
        let number_after = |marker: &str| -> f64 {
            let rest = plot.split(marker).nth(1).unwrap();
            rest[..rest.find([' ', '"']).unwrap()].parse().unwrap()
        };
        (number_after("viewBox=\"0 0 "), number_after(" width=\""))
    }

    #[test]
    fn the_trend_chart_widens_with_the_runs_so_neighbouring_points_keep_their_room() {
        let mut last_width = 0.0;
        for n in [1, 3, 30, 52, 200] {
            let runs = history(n);
            let html = trend_section(&runs, &format!("run-{}", n - 1));
            let (width, css_width) = widths(&html);
            assert!(width >= TREND_MIN_WIDTH, "{n} runs: {width}");
            assert!(width >= last_width, "{n} runs: {width} < {last_width}");
            last_width = width;
            // Drawn at one px per unit: a narrow page scrolls it rather than shrinking its
            // labels.
            assert_eq!(css_width, width, "{n} runs");
            let xs = numbers(&html, "cx");
            assert_eq!(xs.len(), n);
            for pair in xs.windows(2) {
                assert!(pair[1] - pair[0] >= RUN_STEP - 0.1, "{n} runs: {pair:?}");
            }
            assert!(
                xs.iter().all(|x| *x > 0.0 && *x < width),
                "{n} runs: {xs:?}"
            );
            assert_eq!(html.matches("data-current=\"true\"").count(), 1, "{n} runs");
        }
        // Few runs share the minimum width; many widen it, one step per run.
        assert_eq!(widths(&trend_section(&history(3), "")).0, TREND_MIN_WIDTH);
        let (many, more) = (
            widths(&trend_section(&history(100), "")).0,
            widths(&trend_section(&history(101), "")).0,
        );
        assert!(many > TREND_MIN_WIDTH);
        assert_eq!(more - many, RUN_STEP);
    }

    /// Each run column's header, in order: its `data-run` and whether it is marked current.
    fn matrix_header(html: &str) -> Vec<(String, bool)> {
        let header = &html[..html.find("</thead>").unwrap()];
        header
            .split("<th class=\"run")
            .skip(1)
            .map(|th| {
                let id = th.split("data-run=\"").nth(1).unwrap();
                let id = id[..id.find('"').unwrap()].to_string();
                (id, th.starts_with(" current\""))
            })
            .collect()
    }

    #[test]
    fn the_matrix_puts_the_newest_run_first_and_marks_this_one_wherever_it_is() {
        let runs: Vec<EvaluationRun> = history(5).iter().map(recorded).collect();
        let header = |current: usize, window: &[EvaluationRun]| -> Vec<(String, bool)> {
            window
                .iter()
                .rev()
                .map(|r| {
                    let id = or_empty(&r.run_id).to_string();
                    let is_current = id == format!("run-{current}");
                    (id, is_current)
                })
                .collect()
        };
        // This run is the newest: the first column, headed in words as well as coloured.
        let html = matrix_section(&runs[4], &runs);
        assert_eq!(matrix_header(&html), header(4, &runs));
        assert_eq!(matrix_header(&html)[0], ("run-4".to_string(), true));
        assert_eq!(html.matches("this run</span>").count(), 1);
        assert_eq!(html.matches("cell pass current").count(), 1);
        assert!(html.contains("Newest first"));
        // An older run keeps its place in time.
        let html = matrix_section(&runs[2], &runs);
        assert_eq!(matrix_header(&html), header(2, &runs));
        // A run older than the window is not pretended into it.
        let html = matrix_section(&runs[0], &runs[1..]);
        assert_eq!(matrix_header(&html), header(0, &runs[1..]));
        assert!(!html.contains("this run</span>"));
        assert!(html.contains("not among them"));
        assert!(html.contains("the last 4 runs"));
        assert!(matrix_section(&runs[0], &runs[..1]).contains("the last 1 run up to this one<"));
    }
}
