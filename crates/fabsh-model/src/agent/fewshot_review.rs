//! `data-agent validate-fewshots`: the few-shot examples of a datasource as the
//! configuration API lists them, and the review of them fabsh prints.

use serde::{Deserialize, Serialize};

/// A few-shot example as the configuration API lists it: what a review reads of it. Each
/// key may be missing (a draft example without its query, say).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListedFewshot {
    /// Its id.
    #[serde(default)]
    pub id: Option<String>,
    /// The question.
    #[serde(default)]
    pub question: Option<String>,
    /// The query that answers it.
    #[serde(default)]
    pub query: Option<String>,
}

/// The review: its issues, what was checked, and the overall quality.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FewshotReview {
    /// Every problem found.
    pub issues: Vec<ReviewIssue>,
    /// What was checked, and how.
    pub summary: ReviewSummary,
    /// The examples' quality overall.
    pub overall_quality: Quality,
}

/// A problem found among the examples.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewIssue {
    /// The examples it concerns.
    pub fewshot_ids: Vec<String>,
    /// `duplicate`, `near_duplicate`, `conflict`, `invalid_query`, `unknown_name`,
    /// `literal_mismatch`, `empty_result`, `query_failed`, `low_quality` or `ambiguous`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `high`, `medium` or `low`.
    pub severity: String,
    /// What is wrong.
    pub explanation: String,
    /// What to do about it.
    pub suggestion: String,
    /// The questions of the examples it concerns, which a person reads to know which to fix.
    pub questions: Vec<String>,
}

/// What a review checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewSummary {
    /// The datasource's name.
    pub datasource: String,
    /// Its examples.
    pub fewshots: usize,
    /// The checks made.
    pub checks: Vec<String>,
    /// Why some checks were left out (the queries not run, a language other than SQL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<Vec<String>>,
    /// The judge model, when one rated the examples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<String>,
    /// Why the judge failed on some requests, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge_failures: Option<Vec<String>>,
    /// The judge's checks, when no judge made them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<SkippedChecks>,
    /// Issues found.
    pub issues: usize,
}

/// Checks left out, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedChecks {
    /// The checks.
    pub checks: Vec<String>,
    /// Why.
    pub reason: String,
}

/// The examples' quality overall.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Quality {
    /// No issue above low severity.
    Good,
    /// Issues of medium severity.
    Fair,
    /// An issue of high severity, or issues on more than a quarter of the examples.
    Poor,
    /// The judge failed on some examples, whose issues are then not known.
    Unknown,
}

impl Quality {
    /// Its name, as it is written in the output (`good`).
    pub fn name(self) -> &'static str {
        match self {
            Quality::Good => "good",
            Quality::Fair => "fair",
            Quality::Poor => "poor",
            Quality::Unknown => "unknown",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_review_is_written_in_its_order_with_only_the_parts_it_has() {
        let text = r#"{"issues":[{"fewshotIds":["1","2"],"type":"duplicate","severity":"medium","explanation":"e","suggestion":"s","questions":["q","q"]}],"summary":{"datasource":"Sales","fewshots":2,"checks":["duplicate"],"notes":["n"],"skipped":{"checks":["clarity"],"reason":"no judge model"},"issues":1},"overallQuality":"fair"}"#;
        let review: FewshotReview = serde_json::from_str(text).expect("review");
        assert_eq!(review.overall_quality, Quality::Fair);
        assert_eq!(review.summary.judge, None);
        assert_eq!(review.issues[0].kind, "duplicate");
        assert_eq!(serde_json::to_string(&review).expect("write"), text);
        assert_eq!(
            serde_json::to_value(Quality::Unknown).expect("write"),
            Quality::Unknown.name()
        );
    }

    #[test]
    fn a_listed_example_may_lack_a_key_or_hold_null() {
        let listed: ListedFewshot = serde_json::from_str(
            r#"{"id": "f1", "question": "How many?", "query": null, "etag": "x"}"#,
        )
        .expect("listed");
        assert_eq!(listed.id.as_deref(), Some("f1"));
        assert_eq!(listed.query, None);
        let bare: ListedFewshot = serde_json::from_str("{}").expect("listed");
        assert_eq!(bare, ListedFewshot::default());
    }
}
