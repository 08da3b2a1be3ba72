//! A language model as judge of a data agent's answers: an independent model (not the agent
//! under test), asked for a structured verdict `{verdict: yes|no|unclear, rationale}`.
//!
//! The prompt is a template with three placeholders, `{query}`, `{expected_answer}` and
//! `{actual_answer}`, all filled in one pass (a placeholder inside an answer is left alone).
//! `--critic-prompt` replaces the default template; the instruction to answer in JSON stays.

use crate::error::{Error, Result};
use fabsh_api::auth::model_tokens::model_client;
use fabsh_api::config::Settings;
use fabsh_http::chat::{LlmClient, LlmConfig, MODEL_VAR};
use fabsh_model::agent::grade::{Grade, Verdict};
use fabsh_model::agent::grade_result::grade_result;
use fabsh_model::sql::ResultSet;

/// The placeholders a critic prompt may use.
pub const PLACEHOLDERS: [&str; 3] = ["{query}", "{expected_answer}", "{actual_answer}"];

/// The judge's prompt unless `--critic-prompt` replaces it.
pub const DEFAULT_PROMPT: &str = "Question: {query}\nExpected answer: {expected_answer}\nActual answer: {actual_answer}\n\nDoes the actual answer give the expected answer? It does when it is equivalent in numbers and meaning; reasonable rounding and extra explanation are fine. When no expected answer is given, judge whether the actual answer plausibly and directly answers the question; say unclear when you cannot tell.";

/// What the model is told about the form of its reply, whatever the prompt.
const REPLY_FORMAT: &str = "You grade the answers of a data agent. Reply with one JSON object and nothing else: {\"verdict\": \"yes\" or \"no\" or \"unclear\", \"rationale\": \"one sentence\"}.";

/// Stands for a missing expected answer in the prompt.
const NO_EXPECTED: &str = "(none given)";

/// Fills the three placeholders of `template` in one pass.
pub fn fill(template: &str, question: &str, expected: Option<&str>, actual: &str) -> String {
    let values = [question, expected.unwrap_or(NO_EXPECTED), actual];
    let mut out = String::with_capacity(template.len() + question.len() + actual.len());
    let mut rest = template;
    'scan: while let Some(open) = rest.find('{') {
        for (placeholder, value) in PLACEHOLDERS.iter().zip(values) {
            if rest[open..].starts_with(placeholder) {
                out.push_str(&rest[..open]);
                out.push_str(value);
                rest = &rest[open + placeholder.len()..];
                continue 'scan;
            }
        }
        out.push_str(&rest[..=open]);
        rest = &rest[open + 1..];
    }
    out.push_str(rest);
    out
}

/// `config`, refused (exit 2) when it names no model: a grade must not depend on whatever
/// model the endpoint picks by default.
pub fn with_model(config: LlmConfig) -> Result<LlmConfig> {
    if config.model.is_none() {
        return Err(Error::usage(format!(
            "--llm-endpoint needs --llm-model (or {MODEL_VAR}): the judge model, or the Azure deployment name"
        )));
    }
    Ok(config)
}

/// A judge: a model and the prompt it is given.
#[derive(Clone)]
pub struct Judge {
    client: LlmClient,
    template: String,
}

impl Judge {
    /// A judge on `config`, with `critic_prompt` as its template when given; a keyless Azure
    /// OpenAI judge signs in with the credential chain of `settings`.
    pub fn new(
        config: LlmConfig,
        critic_prompt: Option<String>,
        settings: &Settings,
    ) -> Result<Judge> {
        Ok(Judge {
            client: model_client(config, settings)?,
            template: critic_prompt.unwrap_or_else(|| DEFAULT_PROMPT.to_string()),
        })
    }

    /// The model's name, for output.
    pub fn model(&self) -> String {
        self.client.config().label()
    }

    /// The judge's grade of one answer; a judge that cannot be reached (after retries) or
    /// answers nonsense is an error.
    pub async fn grade(
        &self,
        question: &str,
        expected: Option<&str>,
        actual: &str,
    ) -> Result<Grade> {
        let prompt = fill(&self.template, question, expected, actual);
        let reply = self.client.chat_json(REPLY_FORMAT, &prompt).await?;
        let verdict = match &reply["verdict"] {
            serde_json::Value::String(word) => Verdict::parse(word),
            serde_json::Value::Bool(true) => Verdict::Yes,
            serde_json::Value::Bool(false) => Verdict::No,
            _ => Verdict::Unclear,
        };
        let rationale = reply["rationale"]
            .as_str()
            .unwrap_or("the judge gave no rationale")
            .to_string();
        Ok(Grade {
            verdict,
            rule: "judge".to_string(),
            rationale,
        })
    }
}

/// The rule of a grade the judge could not make.
pub const JUDGE_FAILED: &str = "judge_failed";

/// The grade of one evaluation run: a run that failed is a `no` by the rule `run_failed`;
/// otherwise the judge's grade when there is a judge (its failure is a grade with the verdict
/// `error` by the rule `judge_failed`, the rationale saying why), else the deterministic
/// rules: against the reference query's result set (and whether its query orders it) when
/// the run has one, else against the expected text.
pub async fn grade_run(
    judge: Option<&Judge>,
    question: &str,
    expected: Option<&str>,
    reference: Option<(&ResultSet, bool)>,
    actual: Option<&str>,
    error: Option<&str>,
    tolerance: f64,
) -> Grade {
    if let Some(error) = error {
        return Grade {
            verdict: Verdict::No,
            rule: "run_failed".to_string(),
            rationale: format!("the run failed: {error}"),
        };
    }
    // A run that neither failed nor answered is graded as an empty answer.
    let actual = actual.unwrap_or_default();
    match judge {
        Some(judge) => judge
            .grade(question, expected, actual)
            .await
            .unwrap_or_else(|err| Grade {
                verdict: Verdict::Error,
                rule: JUDGE_FAILED.to_string(),
                rationale: format!("the judge failed: {err}"),
            }),
        None => match reference {
            Some((set, ordered)) => grade_result(set, ordered, actual, tolerance),
            None => fabsh_model::agent::grade::grade_within(expected, actual, tolerance),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_three_placeholders_are_filled_once() {
        let filled = fill(
            "Q={query} E={expected_answer} A={actual_answer} {other}",
            "How many?",
            Some("2000"),
            "It is {query}",
        );
        assert_eq!(filled, "Q=How many? E=2000 A=It is {query} {other}");
        assert!(fill(DEFAULT_PROMPT, "q", None, "a").contains("Expected answer: (none given)"));
    }
}
