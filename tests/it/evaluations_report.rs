//! `data-agent evaluations report`: the HTML page of a recorded run, read back structurally
//! (the class names and data-* attributes it emits) against what the store recorded, as
//! `evaluations show` / `list` give it. The fixture: a published agent, a base run of the
//! questions of `data_agent_evaluate::questions` (two right, one wrong, one without an
//! expectation) and a head run with the orders expectation made wrong and a question
//! carrying markup, so its text must come out escaped.

use crate::data_agent_evaluate::questions;
use crate::data_agent_query::{EXAMPLES, published};
use crate::evaluations::{evaluate, evaluations, list, orders_made_wrong};
use serde_json::Value;
use std::collections::BTreeMap;

const MARKUP: &str = "<b>Orders</b> <script>alert(1)</script> by region?";
const MARKUP_ESCAPED: &str = "&lt;b&gt;Orders&lt;/b&gt; &lt;script&gt;alert(1)&lt;/script&gt;";

/// The values of `attribute="..."` in `html`, in order.
fn attributes<'a>(html: &'a str, attribute: &str) -> Vec<&'a str> {
    let marker = format!("{attribute}=\"");
    html.match_indices(&marker)
        .map(|(at, _)| {
            let rest = &html[at + marker.len()..];
            &rest[..rest.find('"').expect("closing quote")]
        })
        .collect()
}

/// The question of each matrix row and its cells as (run, outcome).
fn matrix(html: &str) -> Vec<(String, Vec<(String, String)>)> {
    html.split("<tr class=\"matrix-row\">")
        .skip(1)
        .map(|row| {
            let row = &row[..row.find("</tr>").expect("row end")];
            let question = row
                .split("scope=\"row\">")
                .nth(1)
                .and_then(|rest| rest.split("</th>").next())
                .expect("question")
                .to_string();
            let runs = attributes(row, "data-run");
            let outcomes = attributes(row, "data-outcome");
            let cells = runs
                .into_iter()
                .zip(outcomes)
                .map(|(r, o)| (r.to_string(), o.to_string()))
                .collect();
            (question, cells)
        })
        .collect()
}

/// A question's cell as the spec names it from its recorded verdicts: every repeat yes is
/// pass, none is fail, some is mixed; every repeat unclear (no expectation) is unclear, its own
/// state; not asked is absent.
fn expected_cell(run: &Value, question: &str) -> &'static str {
    let verdicts: Vec<&Value> = run["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter(|row| row["question"] == question)
        .map(|row| &row["verdict"])
        .collect();
    let yes = verdicts.iter().filter(|v| **v == "yes").count();
    // Repeats left ungraded (unclear, or error: the judge or the reference query failed)
    // count neither way.
    let graded = verdicts
        .iter()
        .filter(|v| **v != "unclear" && **v != "error")
        .count();
    match (verdicts.len(), yes) {
        (0, _) => "absent",
        _ if graded == 0 => "unclear",
        (_, 0) => "fail",
        (_, y) if y == graded => "pass",
        _ => "mixed",
    }
}

/// HTML-escaped as the page must show text.
fn escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

#[test]
fn the_report_charts_every_run_and_shows_each_questions_recorded_verdicts() {
    let fx = published(module_path!(), EXAMPLES);
    let dir = tempfile::tempdir().expect("dir");
    let file = questions(&fx, &dir);
    let base_out = evaluate(&fx, &file, &["--repeats", "2"]).ok_json();
    let base_id = base_out["summary"]["runId"]
        .as_str()
        .expect("id")
        .to_string();
    let changed = orders_made_wrong(&fx, &dir);
    let text = std::fs::read_to_string(&changed).expect("read");
    let end = text.rfind(']').expect("array end");
    let extra = serde_json::to_string(MARKUP).expect("json");
    // The markup question twice: two questions of one text, not one asked twice.
    std::fs::write(
        &changed,
        format!(
            "{}, {{\"question\": {extra}, \"expected\": \"1\"}}, {{\"question\": {extra}, \"expected\": \"1\"}}]",
            &text[..end]
        ),
    )
    .expect("write");
    let questions_in_file =
        serde_json::from_str::<Value>(&std::fs::read_to_string(&changed).expect("read"))
            .expect("JSON")
            .as_array()
            .expect("questions")
            .len();
    let head_run = evaluate(&fx, &changed, &[]);
    let head_id = list(&fx)[0]["runId"].as_str().expect("id").to_string();
    assert_ne!(head_id, base_id, "{}", head_run.stderr);

    let page = dir.path().join("report.html");
    let out = evaluations(
        &fx,
        &[
            "report",
            &head_id[..8],
            "--compare",
            &base_id,
            "--output",
            page.to_str().expect("path"),
        ],
    )
    .ok_json();
    assert_eq!(out["runId"], head_id.as_str());
    let html = std::fs::read_to_string(&page).expect("the report is written");
    // `latest` names the newest run, as `--baseline latest` does; `--output-file` is the
    // file's name as `evaluate` has it (`--output` stays as an alias).
    let latest_page = dir.path().join("latest.html");
    let latest = evaluations(
        &fx,
        &[
            "report",
            "latest",
            "--output-file",
            latest_page.to_str().expect("path"),
        ],
    )
    .ok_json();
    assert_eq!(latest["runId"], head_id.as_str());
    let compared = evaluations(&fx, &["compare", &base_id, "latest"]).ok_json();
    assert_eq!(compared["head"]["runId"], head_id.as_str());
    assert_eq!(compared["unclear"], 1, "{compared}");

    // Self-contained: nothing loaded from elsewhere, no script at all.
    for remote in [
        "src=\"http",
        "href=\"http",
        "url(http",
        "@import",
        "<script",
        "<link",
    ] {
        assert!(!html.contains(remote), "{remote} in the report");
    }
    // Text from the store is escaped.
    assert!(
        html.contains(MARKUP_ESCAPED),
        "the markup question, escaped"
    );

    // One chart point per recorded run, oldest first, this run the current one.
    let recorded: Vec<String> = list(&fx)
        .iter()
        .rev()
        .map(|r| r["runId"].as_str().expect("id").to_string())
        .collect();
    let trend = &html[html.find("<svg class=\"trend\"").expect("chart")..];
    let trend = &trend[..trend.find("</svg>").expect("chart end")];
    assert_eq!(attributes(trend, "data-run"), recorded);
    assert_eq!(attributes(trend, "data-current"), ["false", "true"]);

    // The matrix: a row per question of the head run, a column per recorded run, newest
    // first as `evaluations list` gives them, so the run reported (here the newest) is the
    // first column, in view without scrolling; each cell as the recorded verdicts say.
    let newest_first: Vec<String> = recorded.iter().rev().cloned().collect();
    assert_eq!(newest_first[0], head_id);
    let table = &html[html.find("<table class=\"matrix\">").expect("matrix")..];
    let header = &table[..table.find("</thead>").expect("matrix header")];
    assert_eq!(attributes(header, "data-run"), newest_first);
    // The first run column is this run's, marked in words as well as colour.
    assert_eq!(attributes(header, "data-current"), ["true", "false"]);
    let first = header
        .split("<th class=\"run")
        .nth(1)
        .expect("a run column");
    assert!(
        first.starts_with(" current\"") && first.contains("this run"),
        "{first}"
    );
    // A report of the older run ends its matrix there: the runs up to it, it first.
    let old_page = dir.path().join("old.html");
    evaluations(
        &fx,
        &[
            "report",
            &base_id,
            "--output-file",
            old_page.to_str().expect("path"),
        ],
    )
    .ok_json();
    let old_html = std::fs::read_to_string(&old_page).expect("the older report");
    let old_table = &old_html[old_html.find("<table class=\"matrix\">").expect("matrix")..];
    let old_header = &old_table[..old_table.find("</thead>").expect("matrix header")];
    assert_eq!(attributes(old_header, "data-run"), [base_id.as_str()]);
    assert_eq!(attributes(old_header, "data-current"), ["true"]);

    let base = evaluations(&fx, &["show", &base_id]).ok_json();
    let head = evaluations(&fx, &["show", &head_id]).ok_json();
    let mut asked: Vec<String> = Vec::new();
    for row in head["rows"].as_array().expect("rows") {
        let q = row["question"].as_str().expect("question").to_string();
        if !asked.contains(&q) {
            asked.push(q);
        }
    }
    let rows = matrix(&html);
    assert_eq!(
        rows.iter().map(|(q, _)| q.clone()).collect::<Vec<_>>(),
        asked.iter().map(|q| escaped(q)).collect::<Vec<_>>()
    );
    let shown: BTreeMap<&str, &Value> = [(base_id.as_str(), &base), (head_id.as_str(), &head)]
        .into_iter()
        .collect();
    for ((_, cells), question) in rows.iter().zip(&asked) {
        let runs: Vec<&str> = cells.iter().map(|(r, _)| r.as_str()).collect();
        assert_eq!(runs, newest_first, "one column per run, newest first");
        for (run, outcome) in cells {
            assert_eq!(
                outcome,
                expected_cell(shown[run.as_str()], question),
                "{question} in {run}"
            );
        }
    }
    let outcomes: Vec<&str> = rows
        .iter()
        .flat_map(|(_, cells)| cells.iter().map(|(_, o)| o.as_str()))
        .collect();
    for class in ["pass", "fail", "unclear", "absent"] {
        assert!(outcomes.contains(&class), "{class} in {outcomes:?}");
    }
    // Unclear is its own state in the legend and the counts too, never a failure.
    assert!(
        html.contains("<li><span class=\"unclear\">?</span>unclear"),
        "unclear in the legend"
    );
    let unclear_rows = head["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter(|row| row["verdict"] == "unclear")
        .count();
    assert!(unclear_rows > 0);
    // The run's counts are of runs, each as the rows say, and labelled so; the comparison's
    // are of questions and say that.
    let rows_with = |verdict: &str| {
        head["rows"]
            .as_array()
            .expect("rows")
            .iter()
            .filter(|row| row["verdict"] == verdict)
            .count()
    };
    for (label, verdict) in [
        ("Passed runs", "yes"),
        ("Failed runs", "no"),
        ("Unclear runs", "unclear"),
        ("Error runs", "error"),
    ] {
        let count = rows_with(verdict);
        assert!(
            html.contains(&format!("<dt>{label}</dt><dd>{count}</dd>")),
            "{label} {count}"
        );
    }
    assert_eq!(unclear_rows, rows_with("unclear"));
    assert!(
        html.contains("<dt>Unclear questions</dt>"),
        "the comparison's unit"
    );
    // Runs: every question of the file (two of one text are two) times the repeats.
    let repeats = head["repeats"].as_u64().expect("repeats");
    assert!(
        html.contains(&format!("({questions_in_file} × {repeats} repeats)")),
        "runs as questions × repeats"
    );
    // The base and head runs were made from different questions files: the trend says so.
    assert_ne!(base["questionsSha256"], head["questionsSha256"]);
    assert_eq!(
        html.matches("class=\"file-change\"").count(),
        1,
        "one change of file"
    );
    assert!(
        html.contains("Questions files (sha256)"),
        "the files' legend"
    );

    // Every row of the head run not graded yes, in order, and no other; identical failures
    // (same question, verdict and answer) are one card with their count.
    assert_eq!(failure_cards(&html), distinct_failures(&head));
    // The base run asked each question twice: its repeated failures are one card each.
    let base_page = dir.path().join("base.html");
    evaluations(
        &fx,
        &[
            "report",
            &base_id,
            "--output-file",
            base_page.to_str().expect("path"),
        ],
    )
    .ok_json();
    let base_html = std::fs::read_to_string(&base_page).expect("the base report");
    let base_run = evaluations(&fx, &["show", &base_id]).ok_json();
    let cards = failure_cards(&base_html);
    assert_eq!(cards, distinct_failures(&base_run));
    assert!(cards.iter().all(|(_, count)| *count == 2), "{cards:?}");

    // The comparison: one change entry per question `evaluations compare` says changed.
    let compared = evaluations(&fx, &["compare", &base_id, &head_id]).ok_json();
    let changed_statuses: Vec<&str> = compared["questions"]
        .as_array()
        .expect("questions")
        .iter()
        .map(|q| q["status"].as_str().expect("status"))
        .filter(|s| *s != "unchanged")
        .collect();
    let section = &html[html.find("class=\"comparison\"").expect("comparison")..];
    let section = &section[..section.find("</section>").expect("end")];
    assert_eq!(attributes(section, "data-status"), changed_statuses);
    // At least the markup question, added in the head run.
    assert!(changed_statuses.contains(&"added"), "{compared}");
}

/// The report's failure cards: each question (escaped) and how many rows it stands for.
fn failure_cards(html: &str) -> Vec<(String, usize)> {
    html.split("<article class=\"failure\"")
        .skip(1)
        .map(|card| {
            let count = card
                .split("data-count=\"")
                .nth(1)
                .and_then(|rest| rest.split('"').next())
                .and_then(|n| n.parse().ok())
                .expect("data-count");
            let question = card
                .split("<h3>")
                .nth(1)
                .expect("h3")
                .split("</h3>")
                .next()
                .expect("h3 end")
                .to_string();
            (question, count)
        })
        .collect()
}

/// The rows of a recorded run not graded yes, identical ones (question, verdict, actual)
/// counted together, in the order first met.
fn distinct_failures(run: &Value) -> Vec<(String, usize)> {
    let mut seen: Vec<((String, String, String), usize)> = Vec::new();
    for row in run["rows"].as_array().expect("rows") {
        if row["verdict"] == "yes" {
            continue;
        }
        let key = (
            escaped(row["question"].as_str().expect("question")),
            row["verdict"].to_string(),
            row["actual"].to_string(),
        );
        match seen.iter_mut().find(|(known, _)| *known == key) {
            Some((_, count)) => *count += 1,
            None => seen.push((key, 1)),
        }
    }
    seen.into_iter()
        .map(|((question, _, _), count)| (question, count))
        .collect()
}

#[test]
fn a_bad_output_is_refused_before_anything_is_written() {
    let fx = published(module_path!(), EXAMPLES);
    let dir = tempfile::tempdir().expect("dir");
    let file = questions(&fx, &dir);
    let out = evaluate(&fx, &file, &[]).ok_json();
    let id = out["summary"]["runId"].as_str().expect("id").to_string();
    let dir_path = dir.path().to_str().expect("path").to_string();
    let missing = dir.path().join("no/such/report.html");
    // Without a file the page is the answer (what an MCP client without --files gets).
    let page = evaluations(&fx, &["report", id.as_str()]).ok_json();
    assert!(
        page["html"]
            .as_str()
            .is_some_and(|html| html.contains("</html>")),
        "{page}"
    );
    for output in [dir_path.as_str(), missing.to_str().expect("path")] {
        let args = vec!["report", id.as_str(), "--output", output];
        let refused = evaluations(&fx, &args);
        assert_eq!(refused.code, 2, "{output:?}: {}", refused.stderr);
        assert!(
            refused.stderr.contains("--output-file"),
            "{}",
            refused.stderr
        );
    }
    assert!(!missing.exists());
}

/// The recorded run ids of the agent, oldest first.
fn recorded_ids(fx: &crate::data_agents::AgentFixture) -> Vec<String> {
    list(fx)
        .iter()
        .rev()
        .map(|r| r["runId"].as_str().expect("id").to_string())
        .collect()
}

// `-o html` is the page wherever a command makes one: `evaluations report` (what
// --output-file writes), `evaluations compare A B` (B's report compared with A) and
// `evaluate` (this run's, compared with its --baseline; `--output-file x.html` writes it).
// Elsewhere, and as a default format, it is refused before anything is sent.
#[test]
fn o_html_writes_the_report_page_where_a_command_makes_one() {
    let fx = published(module_path!(), EXAMPLES);
    let dir = tempfile::tempdir().expect("dir");
    let file = questions(&fx, &dir);
    let base = evaluate(&fx, &file, &[]).ok_json()["summary"]["runId"]
        .as_str()
        .expect("id")
        .to_string();
    let changed = orders_made_wrong(&fx, &dir);
    let head = evaluate(&fx, &changed, &["--baseline", &base, "-o", "html"]);
    assert_eq!(head.code, 0, "{}", head.stderr);
    let head_id = recorded_ids(&fx).pop().expect("the head run");
    // evaluate's page: this run, current on the chart, compared with the baseline, whose
    // newly failing question (the orders one, made wrong) is named.
    let page = &head.stdout;
    assert!(
        page.starts_with("<!DOCTYPE html>") && page.trim_end().ends_with("</html>"),
        "{page}"
    );
    let current: Vec<&str> = page
        .split("<g class=\"point current\" data-run=\"")
        .skip(1)
        .map(|rest| &rest[..rest.find('"').expect("quote")])
        .collect();
    assert_eq!(current, [head_id.as_str()]);
    assert!(
        page.contains(&format!("<h2>Compared with run {}</h2>", &base[..8])),
        "the comparison"
    );
    assert!(
        page.contains("data-status=\"newly_failing\"><strong>newly failing</strong>: How many orders are there?"),
        "the newly failing question"
    );

    // report -o html is what --output-file writes, and compare -o html the same page.
    let written = dir.path().join("report.html");
    evaluations(
        &fx,
        &[
            "report",
            &head_id,
            "--compare",
            &base,
            "--output-file",
            written.to_str().expect("path"),
        ],
    )
    .ok_json();
    let written = std::fs::read_to_string(&written).expect("the page");
    let reported = evaluations(&fx, &["report", &head_id, "--compare", &base, "-o", "html"]);
    assert_eq!(reported.code, 0, "{}", reported.stderr);
    assert_eq!(reported.stdout, written);
    let compared = evaluations(&fx, &["compare", &base, &head_id, "-o", "html"]);
    assert_eq!(compared.code, 0, "{}", compared.stderr);
    assert_eq!(compared.stdout, written);

    // evaluate --output-file x.html: the page of the run it records.
    let run_page = dir.path().join("run.html");
    let out = evaluate(
        &fx,
        &file,
        &["--output-file", run_page.to_str().expect("path")],
    )
    .ok_json();
    let run_id = out["summary"]["runId"].as_str().expect("id");
    let run_html = std::fs::read_to_string(&run_page).expect("the run's page");
    assert!(
        run_html.contains(&format!("<g class=\"point current\" data-run=\"{run_id}\"")),
        "the recorded run is this page's"
    );

    // Refused where there is no page, before any request; and never a default format.
    let before = fx.server.request_count();
    let refused = fx
        .server
        .fabsh(&["item", "list", "-w", fx.server.demo.as_str(), "-o", "html"]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(refused.stdout.is_empty(), "{}", refused.stdout);
    assert!(
        refused.stderr.contains("`data-agent evaluations report`"),
        "{}",
        refused.stderr
    );
    let after = fx.server.request_count();
    // The log's own request is the only one more.
    assert!(after <= before + 1, "{before} → {after}");
    let default = fx.server.fabsh(&["config", "set", "output", "html"]);
    assert_eq!(default.code, 2, "{}", default.stderr);
}

/// The CSS rule of `selector` in the page's style sheet.
fn css_rule<'a>(html: &'a str, selector: &str) -> &'a str {
    html.lines()
        .find(|line| line.starts_with(&format!("{selector}{{")))
        .unwrap_or_else(|| panic!("no rule {selector}"))
}

// On a phone the trend chart opens at the newest run with its percent scale in view: the
// scale is a drawing of its own beside the box that scrolls sideways, never inside it, and
// that box is right-to-left, which a browser opens at its right end (the newest run) without
// a script. The plot is drawn at one px per unit, so a narrow screen scrolls it rather than
// shrinking its labels. (Looked at in Chromium at 390×844 and 1280×800.)
#[test]
fn the_trend_chart_opens_at_the_newest_run_with_its_scale_outside_the_scroll() {
    let fx = published(module_path!(), EXAMPLES);
    let dir = tempfile::tempdir().expect("dir");
    let file = questions(&fx, &dir);
    for _ in 0..3 {
        evaluate(&fx, &file, &[]).ok_json();
    }
    let recorded = recorded_ids(&fx);
    let out = evaluations(&fx, &["report", "latest"]).ok_json();
    let html = out["html"].as_str().expect("the page");

    let chart = html.find("<div class=\"chart\">").expect("the scroll box");
    let scrolled = &html[chart..];
    let scrolled = &scrolled[..scrolled.find("</div>").expect("its end")];
    let axis = html.find("<svg class=\"trend-axis\"").expect("the scale");
    let axis_svg = &html[axis..];
    let axis_svg = &axis_svg[..axis_svg.find("</svg>").expect("its end")];
    // The scale is before the scroll box and ends before it starts: outside it.
    assert!(
        axis + axis_svg.len() < chart,
        "the scale is outside the scroll box"
    );
    for percent in ["0%", "25%", "50%", "75%", "100%"] {
        assert!(
            axis_svg.contains(&format!(">{percent}</text>")),
            "{percent}"
        );
    }
    assert!(
        !scrolled.contains("%</text>"),
        "no scale inside the scroll box"
    );
    // Side by side, the scale never shrinking; the box scrolls, right-to-left, and its
    // drawing is laid out left-to-right.
    assert!(css_rule(html, ".trend-chart").contains("display:flex"));
    assert!(css_rule(html, ".trend-axis").contains("flex:none"));
    let scroll_box = css_rule(html, ".chart");
    assert!(
        scroll_box.contains("overflow-x:auto") && scroll_box.contains("direction:rtl"),
        "{scroll_box}"
    );
    assert!(css_rule(html, ".chart svg").contains("direction:ltr"));
    // The newest run (the one reported) is the rightmost point, at the end the box opens at.
    let points = attributes(scrolled, "data-run");
    assert_eq!(points, recorded);
    let xs: Vec<f64> = attributes(scrolled, "cx")
        .iter()
        .map(|x| x.parse().expect("number"))
        .collect();
    assert!(xs.windows(2).all(|pair| pair[0] < pair[1]), "{xs:?}");
    assert_eq!(attributes(scrolled, "data-current").last(), Some(&"true"));
    // One px per unit, wider than a phone: it scrolls there.
    let plot = &scrolled[scrolled.find("<svg class=\"trend\"").expect("plot")..];
    let width: f64 = attributes(plot, "width")[0].parse().expect("width");
    let view_box = attributes(plot, "viewBox")[0];
    assert_eq!(view_box.split(' ').nth(2), Some(width.to_string().as_str()));
    assert!(width > 390.0, "{width}");

    // The x-axis carries dates; the configuration fingerprint is in each point's tooltip and
    // in the legend (the three runs share one configuration).
    let fingerprint = list(&fx)[0]["configurationFingerprint"]
        .as_str()
        .expect("fingerprint")[..7]
        .to_string();
    let titles: Vec<&str> = scrolled
        .split("<title>")
        .skip(1)
        .map(|rest| &rest[..rest.find("</title>").expect("title end")])
        .collect();
    assert_eq!(titles.len(), 3);
    assert!(
        titles.iter().all(|title| title.ends_with(&fingerprint)),
        "{titles:?}"
    );
    assert!(
        html.contains(&format!(
            "Configurations: <code>{fingerprint}</code> runs 1–3"
        )),
        "the legend"
    );
}
