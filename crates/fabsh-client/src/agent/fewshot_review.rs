//! Checks of a datasource's few-shot examples for `validate-fewshots`. The deterministic
//! ones always run: duplicates (same normalised question) and near-duplicates (content-word
//! overlap), conflicts (one question, different queries), queries that are empty, do not
//! parse or name what the schema lacks, and questions whose literal values (numbers, quoted
//! text, proper names) are missing from the query. A judge model adds ratings of clarity,
//! mapping and relatedness, in batches.

use fabsh_http::chat::LlmClient;
use fabsh_model::agent::fewshot_review::{ListedFewshot, Quality, ReviewIssue};
use fabsh_model::agent::similarity::{normalize, similarity};
use fabsh_model::agent::sql_check::{self, KnownSchema, SqlProblem};
use futures::StreamExt;
use serde::{Deserialize, Deserializer};
use serde_json::{Value, json};

/// Content-word overlap from which two different questions count as near-duplicates.
pub const NEAR_DUPLICATE: f64 = 0.8;
/// Examples the judge rates per request.
pub const BATCH: usize = 10;
/// The checks only a judge does.
pub const JUDGE_CHECKS: &[&str] = &["clarity", "mapping", "relatedness"];

/// One example under review.
#[derive(Debug, Clone)]
pub struct Example {
    pub id: String,
    pub question: String,
    pub query: String,
}

impl From<ListedFewshot> for Example {
    /// A key the service left out reads as empty: an example without its query is then
    /// reported as an empty query, one without a question is checked as asking nothing.
    fn from(listed: ListedFewshot) -> Example {
        Example {
            // A few-shot listed without an id, question or query is reviewed with an empty one, as
            // the service may list it so.
            id: listed.id.unwrap_or_default(),
            question: listed.question.unwrap_or_default(),
            query: listed.query.unwrap_or_default(),
        }
    }
}

/// A problem found.
#[derive(Debug, Clone, PartialEq)]
pub struct Issue {
    pub fewshot_ids: Vec<String>,
    /// `duplicate`, `near_duplicate`, `conflict`, `invalid_query`, `unknown_name`,
    /// `literal_mismatch`, `low_quality` or `ambiguous`.
    pub kind: &'static str,
    /// `high`, `medium` or `low`.
    pub severity: &'static str,
    pub explanation: String,
    pub suggestion: String,
}

impl Issue {
    fn new(
        ids: Vec<String>,
        kind: &'static str,
        severity: &'static str,
        explanation: String,
        suggestion: &str,
    ) -> Issue {
        Issue {
            fewshot_ids: ids,
            kind,
            severity,
            explanation,
            suggestion: suggestion.to_string(),
        }
    }

    /// As output, with the questions of the examples it concerns.
    pub fn reviewed(&self, questions: Vec<String>) -> ReviewIssue {
        ReviewIssue {
            fewshot_ids: self.fewshot_ids.clone(),
            kind: self.kind.to_string(),
            severity: self.severity.to_string(),
            explanation: self.explanation.clone(),
            suggestion: self.suggestion.clone(),
            questions,
        }
    }
}

fn same_query(a: &str, b: &str) -> bool {
    normalize(a) == normalize(b)
}

/// The deterministic checks. `schema` is given for SQL sources (names are checked against
/// it); for other sources only empty queries are found.
pub fn check(examples: &[Example], schema: Option<&KnownSchema>) -> Vec<Issue> {
    let mut issues = Vec::new();
    let mut grouped = vec![false; examples.len()];
    for (at, example) in examples.iter().enumerate() {
        if grouped[at] {
            continue;
        }
        let key = normalize(&example.question);
        let group: Vec<usize> = (at..examples.len())
            .filter(|&j| normalize(&examples[j].question) == key)
            .collect();
        if group.len() < 2 {
            continue;
        }
        for &j in &group {
            grouped[j] = true;
        }
        let ids = group.iter().map(|&j| examples[j].id.clone()).collect();
        let conflicting = group
            .iter()
            .any(|&j| !same_query(&examples[j].query, &example.query));
        issues.push(if conflicting {
            Issue::new(
                ids,
                "conflict",
                "high",
                format!(
                    "the question \"{}\" has different queries",
                    example.question
                ),
                "keep the one correct query and remove the others",
            )
        } else {
            Issue::new(
                ids,
                "duplicate",
                "medium",
                format!(
                    "the question \"{}\" appears {} times",
                    example.question,
                    group.len()
                ),
                "remove the repeated examples",
            )
        });
    }
    for (at, a) in examples.iter().enumerate() {
        for b in &examples[at + 1..] {
            let score = similarity(&a.question, &b.question);
            if normalize(&a.question) != normalize(&b.question) && score >= NEAR_DUPLICATE {
                issues.push(Issue::new(
                    vec![a.id.clone(), b.id.clone()],
                    "near_duplicate",
                    "low",
                    format!(
                        "\"{}\" and \"{}\" ask nearly the same ({:.0} % of their words)",
                        a.question,
                        b.question,
                        score * 100.0
                    ),
                    "merge them, or make each question say what sets it apart",
                ));
            }
        }
    }
    for example in examples {
        issues.extend(query_issue(example, schema));
        if let Some(missing) = missing_literals(example) {
            issues.push(Issue::new(
                vec![example.id.clone()],
                "literal_mismatch",
                "medium",
                format!("the question mentions {missing}, which the query does not use"),
                "make the query use the values the question names, or reword the question",
            ));
        }
    }
    issues
}

fn query_issue(example: &Example, schema: Option<&KnownSchema>) -> Option<Issue> {
    let ids = vec![example.id.clone()];
    if example.query.trim().is_empty() {
        return Some(Issue::new(
            ids,
            "invalid_query",
            "high",
            "the query is empty".to_string(),
            "give the example its query",
        ));
    }
    match sql_check::problem(&example.query, schema?) {
        Ok(()) => None,
        Err(SqlProblem::Invalid(reason)) => Some(Issue::new(
            ids,
            "invalid_query",
            "high",
            reason,
            "fix the query so it is one read-only SELECT that parses",
        )),
        Err(SqlProblem::UnknownName(reason)) => Some(Issue::new(
            ids,
            "unknown_name",
            "high",
            reason,
            "use the datasource's table and column names (see `data-agent list-elements`)",
        )),
    }
}

/// Words that start with a capital in questions without being values.
const NOT_VALUES: &[&str] = &[
    "What", "Which", "Who", "How", "When", "Where", "Why", "Show", "List", "Give", "Tell", "I",
    "Top", "Total", "Average", "Count",
];

/// The literal values of the question the query lacks (quoted text, numbers, proper names).
fn missing_literals(example: &Example) -> Option<String> {
    let query = example.query.to_lowercase();
    let mut literals: Vec<String> = Vec::new();
    for part in example.question.split(['"', '\'']).skip(1).step_by(2) {
        literals.push(part.trim().to_string());
    }
    for (at, word) in example.question.split_whitespace().enumerate() {
        let word = word.trim_matches(|c: char| !c.is_alphanumeric());
        let number = word.chars().all(|c| c.is_ascii_digit()) && !word.is_empty();
        let proper = at > 0
            && word.chars().next().is_some_and(char::is_uppercase)
            && !NOT_VALUES.contains(&word);
        if number || proper {
            literals.push(word.to_string());
        }
    }
    let missing: Vec<String> = literals
        .into_iter()
        .filter(|literal| !literal.is_empty() && !query.contains(&literal.to_lowercase()))
        .map(|literal| format!("\"{literal}\""))
        .collect();
    (!missing.is_empty()).then(|| missing.join(", "))
}

/// The judge's reply, as [`JUDGE_SYSTEM`] asks for it. A model writes what it writes: a reply
/// of another shape rates nothing, a rating that is not an object is passed over, and a key
/// left out or of another type reads as not said, so one odd key never loses a batch.
#[derive(Deserialize)]
struct JudgeReply {
    #[serde(default, deserialize_with = "ratings")]
    results: Vec<Rating>,
}

/// One example's rating.
#[derive(Deserialize)]
struct Rating {
    #[serde(default, deserialize_with = "said")]
    id: Option<String>,
    #[serde(default, deserialize_with = "said")]
    reason: Option<String>,
    #[serde(default)]
    clarity: Answer,
    #[serde(default)]
    mapping: Answer,
    #[serde(default)]
    relatedness: Answer,
}

/// What the judge answered for one check: `no` (in any case) or `false` is a no; anything
/// else, or nothing, is not.
#[derive(Default)]
struct Answer {
    no: bool,
}

impl<'de> Deserialize<'de> for Answer {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let said = Value::deserialize(deserializer)?;
        let no = said.as_str().is_some_and(|v| v.eq_ignore_ascii_case("no")) || said == false;
        Ok(Answer { no })
    }
}

/// A text the judge gave, if it gave one as text.
fn said<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    Ok(Value::deserialize(deserializer)?
        .as_str()
        .map(str::to_string))
}

/// The ratings of a reply's `results`, those that are objects.
fn ratings<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<Rating>, D::Error> {
    let results = Value::deserialize(deserializer)?;
    Ok(results
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|rating| Rating::deserialize(rating).ok())
        .collect())
}

const JUDGE_SYSTEM: &str = "You review few-shot examples of a data agent: each pairs a natural-language question with the query that answers it. For each example judge clarity (the question is unambiguous), mapping (every value and condition in the question is in the query) and relatedness (the query answers this question). Reply with one JSON object: {\"results\": [{\"id\": \"<id>\", \"clarity\": \"yes\" or \"no\", \"mapping\": \"yes\" or \"no\", \"relatedness\": \"yes\" or \"no\", \"reason\": \"one sentence\"}]}.";

/// The judge's ratings, `BATCH` examples per request, a few requests at once. A batch the
/// judge fails on becomes an error message instead of issues.
pub async fn judge(model: &LlmClient, examples: &[Example]) -> (Vec<Issue>, Vec<String>) {
    // Each request owns its material, so the requests can run on any thread.
    let requests: Vec<_> = examples
        .chunks(BATCH)
        .map(|batch| {
            let listed: Vec<Value> = batch
                .iter()
                .map(|e| json!({"id": e.id, "question": e.question, "query": e.query}))
                .collect();
            let (model, listed) = (model.clone(), Value::Array(listed).to_string());
            async move {
                model
                    .chat_json(JUDGE_SYSTEM, &listed)
                    .await
                    .map_err(|err| err.problem.message.clone())
            }
        })
        .collect();
    let outcomes: Vec<Result<Value, String>> =
        futures::stream::iter(requests).buffered(4).collect().await;
    let mut issues = Vec::new();
    let mut failures = Vec::new();
    for outcome in outcomes {
        match outcome {
            Ok(reply) => {
                let ratings =
                    JudgeReply::deserialize(&reply).map_or_else(|_| Vec::new(), |r| r.results);
                issues.extend(ratings.into_iter().flat_map(rating_issues));
            }
            Err(err) => failures.push(err),
        }
    }
    (issues, failures)
}

fn rating_issues(rating: Rating) -> Vec<Issue> {
    // A rating that names no example is still reported, on no example.
    let ids: Vec<String> = rating.id.into_iter().collect();
    let reason = rating
        .reason
        .unwrap_or_else(|| "no reason given".to_string());
    let mut issues = Vec::new();
    if rating.clarity.no {
        issues.push(Issue::new(
            ids.clone(),
            "ambiguous",
            "low",
            format!("unclear question: {reason}"),
            "reword the question so it has one reading",
        ));
    }
    if rating.mapping.no || rating.relatedness.no {
        issues.push(Issue::new(
            ids,
            "low_quality",
            "medium",
            reason,
            "make the query answer exactly what the question asks",
        ));
    }
    issues
}

/// `good` without issues above low severity, `poor` with any high one or with issues on more
/// than a quarter of the examples, else `fair`; but `unknown` instead of `good` or `fair` when
/// the judge failed on some examples, whose issues are then not known.
pub fn overall_quality(issues: &[Issue], examples: usize, judge_failed: bool) -> Quality {
    let mut flagged: Vec<&String> = issues.iter().flat_map(|i| &i.fewshot_ids).collect();
    flagged.sort();
    flagged.dedup();
    if issues.iter().any(|i| i.severity == "high") || flagged.len() * 4 > examples {
        Quality::Poor
    } else if judge_failed {
        Quality::Unknown
    } else if issues.iter().any(|i| i.severity == "medium") {
        Quality::Fair
    } else {
        Quality::Good
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example(id: &str, question: &str, query: &str) -> Example {
        Example {
            id: id.into(),
            question: question.into(),
            query: query.into(),
        }
    }

    #[test]
    fn a_judges_odd_keys_read_as_not_said_and_odd_ratings_are_passed_over() {
        let reply = json!({"results": [
            {"id": "1", "clarity": "NO", "mapping": false, "relatedness": "yes", "reason": 3},
            "not a rating",
            {"id": 2, "relatedness": "no", "reason": "answers another question"},
            {"id": "3", "clarity": "yes", "mapping": "yes", "relatedness": true},
        ]});
        let ratings = JudgeReply::deserialize(&reply).expect("a reply").results;
        let issues: Vec<(String, &str, String)> = ratings
            .into_iter()
            .flat_map(rating_issues)
            .map(|issue| (issue.fewshot_ids.join(","), issue.kind, issue.explanation))
            .collect();
        assert_eq!(
            issues,
            [
                (
                    "1".to_string(),
                    "ambiguous",
                    "unclear question: no reason given".to_string()
                ),
                (
                    "1".to_string(),
                    "low_quality",
                    "no reason given".to_string()
                ),
                (
                    String::new(),
                    "low_quality",
                    "answers another question".to_string()
                ),
            ]
        );
        assert!(JudgeReply::deserialize(&json!(["no", "results"])).is_err());
    }

    #[test]
    fn duplicates_conflicts_and_bad_queries_are_found() {
        let mut schema = KnownSchema::default();
        schema.add_table("orders", ["order_id", "amount"]);
        schema.add_table("customers", ["customer_id", "country"]);
        let examples = vec![
            example("1", "How many orders?", "SELECT COUNT(*) FROM orders"),
            example("2", "how many orders", "SELECT COUNT(*) FROM orders"),
            example("3", "Total amount?", "SELECT SUM(amount) FROM orders"),
            example("4", "Total amount", "SELECT MAX(amount) FROM orders"),
            example(
                "5",
                "Customers in Germany",
                "SELECT COUNT(*) FROM customers WHERE country = 'France'",
            ),
            example("6", "Broken", "SELEC * FROM"),
            example("7", "Colours", "SELECT colour FROM customers"),
        ];
        let issues = check(&examples, Some(&schema));
        let kinds: Vec<(&str, Vec<String>)> = issues
            .iter()
            .map(|i| (i.kind, i.fewshot_ids.clone()))
            .collect();
        assert!(
            kinds.contains(&("duplicate", vec!["1".into(), "2".into()])),
            "{kinds:?}"
        );
        assert!(
            kinds.contains(&("conflict", vec!["3".into(), "4".into()])),
            "{kinds:?}"
        );
        assert!(
            kinds.contains(&("literal_mismatch", vec!["5".into()])),
            "{kinds:?}"
        );
        assert!(
            kinds.contains(&("invalid_query", vec!["6".into()])),
            "{kinds:?}"
        );
        assert!(
            kinds.contains(&("unknown_name", vec!["7".into()])),
            "{kinds:?}"
        );
        assert_eq!(
            overall_quality(&issues, examples.len(), false),
            Quality::Poor
        );
        assert_eq!(
            overall_quality(&issues, examples.len(), true),
            Quality::Poor
        );
        assert_eq!(overall_quality(&[], examples.len(), true), Quality::Unknown);
        assert_eq!(overall_quality(&[], examples.len(), false), Quality::Good);
    }
}
