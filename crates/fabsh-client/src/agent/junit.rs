//! `data-agent evaluate --junit FILE`: the rows as JUnit XML for CI test reports, one
//! testcase per question and repeat, named by the question's place in the file (two
//! questions may share a text) and, with repeats, the run's number; a run not graded yes is a failure carrying the expected
//! and actual answers and the rationale (or the error), except a run left ungraded (verdict
//! error: the judge or the reference query failed), which is an error, as JUnit reports a
//! test that could not run as it should rather than one whose check failed.

use fabsh_model::agent::evaluation::EvaluationRow;
use fabsh_model::agent::grade::Verdict;
use std::fmt::Write;

/// `text` safe inside an XML attribute or element: the five special characters escaped and
/// the characters XML 1.0 cannot hold at all dropped.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

/// A text of a record that may be null, as a document shows it: null as nothing.
pub(crate) fn or_empty(value: &Option<String>) -> &str {
    value.as_deref().unwrap_or("")
}

/// A verdict as a document shows it: its name, or nothing when there is none.
pub(crate) fn verdict_text(verdict: Option<Verdict>) -> &'static str {
    verdict.map_or("", Verdict::name)
}

/// A testcase's name: `3. How many orders?`, and `(run 2 of 3)` when there are repeats.
fn case_name(question: &str, position: usize, run: usize, repeats: usize) -> String {
    if repeats > 1 {
        format!("{position}. {question} (run {run} of {repeats})")
    } else {
        format!("{position}. {question}")
    }
}

/// One testsuite: an agent's evaluation rows, in the order `evaluate` gives them (each
/// question's `repeats` runs together, questions in file order), named by `name`.
pub struct Suite<'a> {
    pub name: &'a str,
    pub rows: &'a [EvaluationRow],
    pub repeats: usize,
}

impl Suite<'_> {
    fn errors(&self) -> usize {
        self.rows.iter().filter(|row| row.ungraded()).count()
    }

    fn failures(&self) -> usize {
        self.rows.iter().filter(|row| !row.passed()).count() - self.errors()
    }

    fn seconds(&self) -> f64 {
        self.rows.iter().map(seconds).sum()
    }
}

/// A run's time; one without a latency (none is recorded for a question not asked) took none.
fn seconds(row: &EvaluationRow) -> f64 {
    row.latency_ms.map_or(0.0, |ms| ms as f64) / 1000.0
}

/// The JUnit document for several evaluations, a testsuite each (`deploy promote`'s agents).
pub fn render_suites(suites: &[Suite<'_>]) -> String {
    let tests: usize = suites.iter().map(|suite| suite.rows.len()).sum();
    let failures: usize = suites.iter().map(Suite::failures).sum();
    let errors: usize = suites.iter().map(Suite::errors).sum();
    let total: f64 = suites.iter().map(Suite::seconds).sum();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites tests=\"{tests}\" failures=\"{failures}\" errors=\"{errors}\" time=\"{total:.3}\">"
    );
    for suite in suites {
        write_suite(&mut out, suite);
    }
    out.push_str("</testsuites>\n");
    out
}

fn write_suite(out: &mut String, suite: &Suite<'_>) {
    let repeats = suite.repeats.max(1);
    let name = escape(suite.name);
    let _ = writeln!(
        out,
        "  <testsuite name=\"{name}\" tests=\"{n}\" failures=\"{failures}\" errors=\"{errors}\" time=\"{time:.3}\">",
        n = suite.rows.len(),
        failures = suite.failures(),
        errors = suite.errors(),
        time = suite.seconds(),
    );
    for (at, row) in suite.rows.iter().enumerate() {
        let case = case_name(&row.question, at / repeats + 1, at % repeats + 1, repeats);
        let _ = write!(
            out,
            "    <testcase classname=\"{name}\" name=\"{case}\" time=\"{time:.3}\"",
            case = escape(&case),
            time = seconds(row),
        );
        if row.passed() {
            out.push_str("/>\n");
            continue;
        }
        let reason = match or_empty(&row.error) {
            "" => or_empty(&row.rationale),
            error => error,
        };
        let _ = write!(
            out,
            ">\n      <{element} message=\"verdict {verdict} ({rule})\" type=\"{verdict}\">expected: {expected}\nactual: {actual}\nrationale: {reason}</{element}>\n    </testcase>\n",
            element = if row.ungraded() { "error" } else { "failure" },
            verdict = escape(verdict_text(row.verdict)),
            rule = escape(or_empty(&row.rule)),
            expected = escape(or_empty(&row.expected)),
            actual = escape(or_empty(&row.actual)),
            reason = escape(reason),
        );
    }
    out.push_str("  </testsuite>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// The document of one evaluation's rows, `suite` naming its testsuite.
    fn render(suite: &str, rows: &[EvaluationRow], repeats: usize) -> String {
        render_suites(&[Suite {
            name: suite,
            rows,
            repeats,
        }])
    }

    /// A row of `question` graded `verdict`, with the other keys of `more`.
    fn row(question: &str, verdict: &str, more: Value) -> EvaluationRow {
        let mut row = json!({"question": question, "expected": null, "actual": null,
            "verdict": verdict, "rule": null, "rationale": null, "latencyMs": null, "error": null});
        for (key, value) in more.as_object().expect("an object") {
            row[key] = value.clone();
        }
        serde_json::from_value(row).expect("a row")
    }

    #[test]
    fn special_characters_are_escaped_and_control_characters_dropped() {
        assert_eq!(
            escape("a<b & \"c\" 'd'>\u{1}"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;"
        );
        let xml = render("A&B", &[row("q<", "no", json!({"actual": "x]]>"}))], 1);
        assert!(xml.contains("name=\"1. q&lt;\""), "{xml}");
        assert!(xml.contains("actual: x]]&gt;"), "{xml}");
    }

    #[test]
    fn a_run_left_ungraded_is_an_error_not_a_failure() {
        let xml = render(
            "agent",
            &[
                row("a", "yes", json!({})),
                row("b", "no", json!({"rule": "numbers"})),
                row(
                    "c",
                    "error",
                    json!({"rule": "reference_failed", "error": "the reference query returned nothing"}),
                ),
            ],
            1,
        );
        assert!(
            xml.contains("tests=\"3\" failures=\"1\" errors=\"1\""),
            "{xml}"
        );
        assert!(
            xml.contains("<error message=\"verdict error (reference_failed)\" type=\"error\">")
                && xml.contains("rationale: the reference query returned nothing</error>"),
            "{xml}"
        );
        assert!(
            xml.contains("<failure message=\"verdict no (numbers)\""),
            "{xml}"
        );
    }

    #[test]
    fn two_questions_with_one_text_are_named_by_their_place_not_as_repeats() {
        let row = row("How many?", "yes", json!({}));
        let once = render("agent", &[row.clone(), row.clone()], 1);
        assert!(
            once.contains("name=\"1. How many?\"") && once.contains("name=\"2. How many?\""),
            "{once}"
        );
        let twice = render("agent", &[row.clone(), row.clone(), row.clone(), row], 2);
        for name in [
            "1. How many? (run 1 of 2)",
            "1. How many? (run 2 of 2)",
            "2. How many? (run 1 of 2)",
            "2. How many? (run 2 of 2)",
        ] {
            assert!(twice.contains(&format!("name=\"{name}\"")), "{twice}");
        }
    }
}
