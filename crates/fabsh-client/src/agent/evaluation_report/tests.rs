use super::trend::{RUN_STEP, TREND_MIN_WIDTH};
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
