//! The flags of `data-agent evaluate` (with the judge flags `validate-fewshots` and `mcp serve`
//! share), and the checks each gets before anything is asked.

use super::AgentTarget;
use super::evaluation_record as tracking;
use super::query::{DOWNLOAD_FILES, KEEP_THREAD, PUBLISHED_URL, QUERY_STAGE, SHOW_STEPS, TIMEOUT};
use crate::agent::judge;
use crate::commands::args::{ArgValue, FileArg};
use crate::commands::spec::{ArgKind, ArgSpec, LocalPath};
use crate::commands::typed::typed_args;
use crate::error::{Error, Result};
use fabsh_http::chat::{DEFAULT_API_VERSION, ENDPOINT_VAR, KEY_VAR, LlmConfig, MODEL_VAR};
use fabsh_model::Secret;
use std::path::PathBuf;

/// The judge flags `evaluate` and `validate-fewshots` share.
pub const LLM_ENDPOINT: ArgSpec = ArgSpec::opt(
    "llm-endpoint",
    ArgKind::Str,
    "Judge model: an Azure OpenAI resource URL or an OpenAI-compatible base URL; needs --llm-model",
)
.env(ENDPOINT_VAR);
/// `--llm-key`.
pub const LLM_KEY: ArgSpec = ArgSpec::opt(
    "llm-key",
    ArgKind::Secret,
    "Judge API key, or @FILE holding it (keeps it out of shell history); never printed or stored",
)
.env(KEY_VAR);
/// `--llm-model`.
pub const LLM_MODEL: ArgSpec = ArgSpec::opt(
    "llm-model",
    ArgKind::Str,
    "Judge model, or the Azure deployment name",
)
.env(MODEL_VAR);
/// `--llm-api-version`.
pub const LLM_API_VERSION: ArgSpec = ArgSpec::opt(
    "llm-api-version",
    ArgKind::Str,
    "Azure OpenAI API of the judge: v1, or a dated api-version (2024-10-21) for the deployments path",
)
.default(DEFAULT_API_VERSION);

typed_args! {
    /// The `--llm-*` flags (or `FABSH_LLM_*`): the judge model, if one is named.
    pub struct JudgeFlags {
        endpoint: Option<String> = LLM_ENDPOINT,
        key: Option<Secret> = LLM_KEY,
        model: Option<String> = LLM_MODEL,
        api_version: Option<String> = LLM_API_VERSION,
    }
}

impl JudgeFlags {
    /// The judge these flags describe, if any; it must name its model.
    pub fn config(&self) -> Result<Option<LlmConfig>> {
        LlmConfig::resolve(
            self.endpoint.as_deref(),
            self.key.as_ref().map(Secret::expose),
            self.model.as_deref(),
            self.api_version.as_deref(),
        )?
        .map(judge::with_model)
        .transpose()
    }

    /// Whether `--llm-endpoint` was given (a critic prompt needs a judge).
    pub fn has_endpoint(&self) -> bool {
        self.endpoint.is_some()
    }

    /// The flags as given, for a front end that sets the judge once (`mcp serve`) and hands
    /// them to each command that grades answers.
    pub fn given(&self) -> Vec<(&'static str, ArgValue)> {
        let text = |spec: &ArgSpec, value: &Option<String>| {
            value.clone().map(|value| (spec.long, ArgValue::Str(value)))
        };
        let key = self
            .key
            .clone()
            .map(|key| (LLM_KEY.long, ArgValue::Secret(key)));
        [
            text(&LLM_ENDPOINT, &self.endpoint),
            key,
            text(&LLM_MODEL, &self.model),
            text(&LLM_API_VERSION, &self.api_version),
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}

pub(crate) const QUESTIONS: ArgSpec = ArgSpec::req(
    "questions",
    ArgKind::File,
    "JSON, CSV or TSV file of questions (and expected answers)",
);
pub(super) const REPEATS: ArgSpec =
    ArgSpec::opt("repeats", ArgKind::Int, "Times each question is asked")
        .at_least(1)
        .default("1");
pub(super) const CONCURRENCY: ArgSpec = ArgSpec::opt(
    "concurrency",
    ArgKind::Int,
    "Runs at once (1 = one after another)",
)
.at_least(1)
.default("1");
pub(super) const CRITIC_PROMPT: ArgSpec = ArgSpec::opt(
    "critic-prompt",
    ArgKind::Str,
    "The judge's prompt, with {query}, {expected_answer}, {actual_answer}; needs a judge",
);
pub(super) const CRITIC_PROMPT_FILE: ArgSpec = ArgSpec::opt(
    "critic-prompt-file",
    ArgKind::File,
    "Read the judge's prompt from this file",
);
pub(super) const OUTPUT_FILE: ArgSpec = ArgSpec::opt(
    "output-file",
    ArgKind::Str,
    "Also write the rows to this .csv or .json file, or the run's report page to this .html file",
)
.local(LocalPath::WriteFile);
pub(crate) const MIN_PASS_RATE: ArgSpec = ArgSpec::opt(
    "min-pass-rate",
    ArgKind::Str,
    "Exit 6 when the pass rate (0 to 1) is below this, for CI (1 means the service, the network or the judge failed)",
);
pub(super) const TOLERANCE: ArgSpec = ArgSpec::opt(
    "tolerance",
    ArgKind::Str,
    "Without a judge, numbers match within this relative tolerance: 0.5% (the default) or 0.005",
)
.value_name("SHARE")
.default("0.5%");
pub(super) const NO_SAVE: ArgSpec = ArgSpec::opt(
    "no-save",
    ArgKind::Bool,
    "Do not record this run in the evaluation store",
);
pub(crate) const BASELINE: ArgSpec = ArgSpec::opt(
    "baseline",
    ArgKind::Str,
    "A recorded run to compare with (its id, an unambiguous prefix, or latest: this agent's newest, else the same agent's in another workspace, else none); the comparison is in the output",
)
.value_name("RUN");
pub(super) const FAIL_ON_REGRESSION: ArgSpec = ArgSpec::opt(
    "fail-on-regression",
    ArgKind::Bool,
    "Exit 7 when a question that passed in --baseline (default latest) now fails, on any repeat; without a baseline run there is nothing to regress from",
);
pub(crate) const JUNIT: ArgSpec = ArgSpec::opt(
    "junit",
    ArgKind::Str,
    "Also write the runs as JUnit XML to this file, one testcase per question and repeat",
)
.value_name("FILE")
.local(LocalPath::WriteFile);
pub(crate) const FORCE: ArgSpec = ArgSpec::opt(
    "force",
    ArgKind::Bool,
    "Replace the --output-file and --junit files when they exist",
);

typed_args! {
    /// `data-agent evaluate`.
    pub(super) struct Evaluate {
        target: AgentTarget,
        questions: Option<FileArg> = QUESTIONS,
        published_url: Option<String> = PUBLISHED_URL,
        repeats: Option<i64> = REPEATS,
        stage: Option<String> = QUERY_STAGE,
        timeout: Option<i64> = TIMEOUT,
        concurrency: Option<i64> = CONCURRENCY,
        critic_prompt: Option<String> = CRITIC_PROMPT,
        critic_prompt_file: Option<FileArg> = CRITIC_PROMPT_FILE,
        judge: JudgeFlags,
        show_steps: bool = SHOW_STEPS,
        keep_thread: bool = KEEP_THREAD,
        download_files: Option<String> = DOWNLOAD_FILES,
        output_file: Option<String> = OUTPUT_FILE,
        min_pass_rate: Option<String> = MIN_PASS_RATE,
        tolerance: String = TOLERANCE,
        no_save: bool = NO_SAVE,
        baseline: Option<String> = BASELINE,
        fail_on_regression: bool = FAIL_ON_REGRESSION,
        junit: Option<String> = JUNIT,
        force: bool = FORCE,
    }
}

/// A whole number flag (`--repeats`, `--concurrency`) that must be at least 1.
pub(super) fn at_least_one(value: Option<i64>, spec: &ArgSpec) -> Result<i64> {
    match value.unwrap_or(1) {
        n if n >= 1 => Ok(n),
        n => Err(Error::usage(format!(
            "--{} must be at least 1, got {n}",
            spec.long
        ))),
    }
}

impl Evaluate {
    /// The judge's prompt from `--critic-prompt` or `--critic-prompt-file`.
    pub(super) fn critic_prompt(&self) -> Result<Option<String>> {
        match (&self.critic_prompt, &self.critic_prompt_file) {
            (Some(_), Some(_)) => Err(Error::usage(
                "--critic-prompt and --critic-prompt-file cannot be used together",
            )),
            (Some(text), None) => Ok(Some(text.clone())),
            (None, Some(file)) => String::from_utf8(file.bytes.to_vec())
                .map(Some)
                .map_err(|_| {
                    Error::usage(format!(
                        "--critic-prompt-file: {} is not UTF-8 text",
                        file.path.display()
                    ))
                }),
            (None, None) => Ok(None),
        }
    }

    /// `--output-file`: `.csv`, `.json` or `.html`, in a directory that exists.
    pub(super) fn output_file(&self) -> Result<Option<PathBuf>> {
        let Some(text) = self.output_file.as_deref() else {
            return Ok(None);
        };
        let lower = text.to_ascii_lowercase();
        if ![".csv", ".json", ".html"]
            .iter()
            .any(|end| lower.ends_with(end))
        {
            return Err(Error::usage(format!(
                "--output-file must end in .csv, .json or .html, got {text:?}"
            )));
        }
        tracking::new_output_file(OUTPUT_FILE.long, text, self.force).map(Some)
    }

    /// `--min-pass-rate`: a share from 0 to 1.
    pub(super) fn min_pass_rate(&self) -> Result<Option<f64>> {
        parse_min_pass_rate(self.min_pass_rate.as_deref())
    }

    /// `--tolerance`: a share (`0.005`) or a percentage (`0.5%`), from 0 to 1.
    pub(super) fn tolerance(&self) -> Result<f64> {
        let text = self.tolerance.trim();
        let parsed = match text.strip_suffix('%') {
            Some(percent) => percent.trim().parse::<f64>().map(|p| p / 100.0),
            None => text.parse::<f64>(),
        };
        match parsed {
            Ok(share) if (0.0..=1.0).contains(&share) => Ok(share),
            _ => Err(Error::usage(format!(
                "--tolerance must be a share from 0 to 1 (0.005) or a percentage (0.5%), got {text:?}"
            ))),
        }
    }

    /// `--junit FILE`.
    pub(super) fn junit_file(&self) -> Result<Option<PathBuf>> {
        self.junit
            .as_deref()
            .map(|text| tracking::new_output_file(JUNIT.long, text, self.force))
            .transpose()
    }
}

/// `--min-pass-rate`'s text as a share from 0 to 1.
pub(crate) fn parse_min_pass_rate(text: Option<&str>) -> Result<Option<f64>> {
    let Some(text) = text else {
        return Ok(None);
    };
    match text.trim().parse::<f64>() {
        Ok(rate) if (0.0..=1.0).contains(&rate) => Ok(Some(rate)),
        _ => Err(Error::usage(format!(
            "--min-pass-rate must be a number from 0 to 1, got {text:?}"
        ))),
    }
}
