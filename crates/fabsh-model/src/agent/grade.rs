//! Grading an answer against the expected one without a model. The rules, in order, and the
//! first that decides names itself in the verdict:
//!
//! 1. `no_expected`: nothing to compare with: unclear.
//! 2. `no_answer`: an empty answer: no.
//! 3. `same_text`: equal once normalised (case, punctuation, spacing): yes.
//! 4. `numbers`: the expected answer holds numbers: yes when every one of them is in the answer
//!    (thousands separators ignored, within 0.01 % so `46,117.30` = `46117.3`), else no.
//! 5. `containment`: the expected text, or every content word of it, is in the answer: yes;
//!    else no.

use super::similarity::{content_words, normalize};
use serde::{Deserialize, Serialize};

/// A grade's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Yes,
    No,
    Unclear,
    /// No verdict: the grade could not be made (the judge failed). Counted as an error, never
    /// as a neutral `unclear`.
    Error,
}

impl Verdict {
    /// Its name, as it is written in the output (`yes`, `no`, `unclear`, `error`).
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Yes => "yes",
            Verdict::No => "no",
            Verdict::Unclear => "unclear",
            Verdict::Error => "error",
        }
    }

    /// The verdict of that name (as [`Verdict::name`] writes it), if one.
    pub fn named(name: &str) -> Option<Verdict> {
        [Verdict::Yes, Verdict::No, Verdict::Unclear, Verdict::Error]
            .into_iter()
            .find(|verdict| verdict.name() == name)
    }

    /// From a model's word (`yes`, `No`, `true`, ...); anything else is unclear.
    pub fn parse(text: &str) -> Verdict {
        match text.trim().to_ascii_lowercase().as_str() {
            "yes" | "true" | "correct" | "pass" => Verdict::Yes,
            "no" | "false" | "incorrect" | "fail" => Verdict::No,
            _ => Verdict::Unclear,
        }
    }
}

/// A verdict, the rule that decided it, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Grade {
    pub verdict: Verdict,
    /// `same_text`, `numbers`, `containment`, ... or `judge`.
    pub rule: String,
    pub rationale: String,
}

impl Grade {
    fn new(verdict: Verdict, rule: &str, rationale: impl Into<String>) -> Grade {
        Grade {
            verdict,
            rule: rule.to_string(),
            rationale: rationale.into(),
        }
    }
}

/// Relative tolerance when comparing numbers unless told (`--tolerance`): 0.5%, so an answer
/// that rounds (46,117 for 46,117.30) still passes.
pub const DEFAULT_TOLERANCE: f64 = 0.005;

/// The numbers in a text, thousands separators dropped (`46,117.30` → 46117.3).
pub fn numbers_in(text: &str) -> Vec<f64> {
    let normalized = normalize(text);
    normalized
        .split(' ')
        .filter_map(|word| {
            let digits: String = word.chars().filter(|c| *c != ',').collect();
            let digits = digits.trim_end_matches('%');
            digits
                .parse::<f64>()
                .ok()
                .filter(|n| n.is_finite() && word.starts_with(|c: char| c.is_ascii_digit()))
        })
        .collect()
}

fn same_number(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance * a.abs().max(b.abs()).max(1.0)
}

/// Grades `actual` against `expected` by the rules above, numbers within the default
/// tolerance.
pub fn grade(expected: Option<&str>, actual: &str) -> Grade {
    grade_within(expected, actual, DEFAULT_TOLERANCE)
}

/// Grades `actual` against `expected` by the rules above, numbers equal within `tolerance`
/// (relative).
pub fn grade_within(expected: Option<&str>, actual: &str, tolerance: f64) -> Grade {
    let Some(expected) = expected.map(str::trim).filter(|text| !text.is_empty()) else {
        return Grade::new(
            Verdict::Unclear,
            "no_expected",
            "no expected answer to compare with",
        );
    };
    if actual.trim().is_empty() {
        return Grade::new(Verdict::No, "no_answer", "the answer is empty");
    }
    let (want, got) = (normalize(expected), normalize(actual));
    if want == got {
        return Grade::new(Verdict::Yes, "same_text", "the answer is the expected text");
    }
    let wanted_numbers = numbers_in(expected);
    if !wanted_numbers.is_empty() {
        let found = numbers_in(actual);
        let missing: Vec<String> = wanted_numbers
            .iter()
            .filter(|want| !found.iter().any(|got| same_number(**want, *got, tolerance)))
            .map(f64::to_string)
            .collect();
        return if missing.is_empty() {
            Grade::new(
                Verdict::Yes,
                "numbers",
                "every expected number is in the answer",
            )
        } else {
            Grade::new(
                Verdict::No,
                "numbers",
                format!("the answer lacks {}", missing.join(", ")),
            )
        };
    }
    let padded = format!(" {got} ");
    if padded.contains(&format!(" {want} ")) {
        return Grade::new(
            Verdict::Yes,
            "containment",
            "the answer contains the expected text",
        );
    }
    let answer_words = content_words(actual);
    let missing: Vec<String> = content_words(expected)
        .into_iter()
        .filter(|word| !answer_words.contains(word))
        .collect();
    if missing.is_empty() {
        Grade::new(
            Verdict::Yes,
            "containment",
            "every content word of the expected answer is in the answer",
        )
    } else {
        Grade::new(
            Verdict::No,
            "containment",
            format!("the answer lacks {}", missing.join(", ")),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_match_across_formats() {
        let graded = grade(Some("46,117.30"), "Total revenue was 46117.3 EUR.");
        assert_eq!(
            (graded.verdict, graded.rule.as_str()),
            (Verdict::Yes, "numbers")
        );
        // 1% off is outside the default 0.5%; 0.05% off is inside it, but not inside 0.01%.
        let wrong = grade(Some("2000"), "There are 2020 orders.");
        assert_eq!(
            (wrong.verdict, wrong.rule.as_str()),
            (Verdict::No, "numbers")
        );
        assert_eq!(
            grade(Some("2000"), "There are 2001 orders.").verdict,
            Verdict::Yes
        );
        let strict = grade_within(Some("2000"), "There are 2001 orders.", 0.0001);
        assert_eq!(strict.verdict, Verdict::No);
        assert_eq!(
            numbers_in("12% of 1,000 in 2024"),
            vec![12.0, 1000.0, 2024.0]
        );
    }

    #[test]
    fn text_rules_and_their_names() {
        assert_eq!(grade(Some("Germany"), "germany!").rule, "same_text");
        let contained = grade(Some("Germany"), "The top country is Germany.");
        assert_eq!(
            (contained.verdict, contained.rule.as_str()),
            (Verdict::Yes, "containment")
        );
        let not = grade(Some("Germany"), "France");
        assert_eq!(
            (not.verdict, not.rule.as_str()),
            (Verdict::No, "containment")
        );
        assert_eq!(grade(None, "x").verdict, Verdict::Unclear);
        assert_eq!(grade(Some("x"), " ").rule, "no_answer");
        assert_eq!(Verdict::parse(" Yes "), Verdict::Yes);
        assert_eq!(Verdict::parse("maybe"), Verdict::Unclear);
    }
}
