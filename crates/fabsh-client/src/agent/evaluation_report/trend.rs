//! The pass-rate trend over the agent's recorded runs.

use super::{percent, runs, short, to_the_second};
use crate::agent::junit::{escape, or_empty};
use fabsh_model::agent::evaluation::ListedRun;
use std::fmt::Write;

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

/// Horizontal room per run in the trend chart, in px: the rotated (-45°) date labels of
/// neighbouring points are `RUN_STEP × sin 45°` apart, which must be more than their 11 px
/// font for them not to overlap.
pub(super) const RUN_STEP: f64 = 18.0;
/// The trend plot's narrowest width in px, for an agent with few runs.
pub(super) const TREND_MIN_WIDTH: f64 = 740.0;
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
pub(super) fn trend_section(history: &[ListedRun], current: &str) -> String {
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
