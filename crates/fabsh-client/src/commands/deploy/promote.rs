//! `deploy promote`: the stdlib's `promote::run` as a command, so a CI job needs no script.
//! Everything a promotion reads is checked here before the first request (the repository for
//! both environments, the questions, the promotion file and the files it loads, the JUnit
//! file's folder); the steps run in the stdlib, whose report (also when a step failed, in
//! the error's details) becomes the reply and the JUnit file.

use super::flags::RepositoryFlags;
use super::{CONFIG, DIR, ENV_VARS};
use crate::agent::junit::Suite;
use crate::commands::args::FileArg;
use crate::commands::data_agent::evaluate_flags::{
    BASELINE, JUNIT, MIN_PASS_RATE, QUESTIONS, parse_min_pass_rate,
};
use crate::commands::data_agent::evaluation_record::{self, new_output_file};
use crate::commands::spec::{ArgKind, ArgSpec, HandlerFuture, LocalPath};
use crate::commands::typed::{Command, typed_args};
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::reply::Reply;
use crate::stdlib;
use fabsh_deploy::promote::{self as promotion_file, PromoteFile, Step};
use fabsh_model::agent::evaluation::BaselineMatch;
use fabsh_model::agent::questions;
use fabsh_model::promotion::{Promotion, StepStatus};
use serde::Serialize;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

pub(super) const TEST: ArgSpec = ArgSpec::req(
    "test",
    ArgKind::Ref,
    "The test workspace (id or display name): deployed, prepared and evaluated first",
)
.value_name("WS");
pub(super) const PROD: ArgSpec = ArgSpec::req(
    "prod",
    ArgKind::Ref,
    "The production workspace (id or display name): deployed only when every agent passes in test",
)
.value_name("WS");
pub(super) const TEST_ENVIRONMENT: ArgSpec = ArgSpec::opt(
    "test-environment",
    ArgKind::Str,
    "The environment of the test deploy (config.yml's and parameter.yml's: PPE, TEST, ...)",
)
.value_name("ENV");
pub(super) const PROD_ENVIRONMENT: ArgSpec = ArgSpec::opt(
    "prod-environment",
    ArgKind::Str,
    "The environment of the production deploy (PROD, ...)",
)
.value_name("ENV");
pub(super) const PREPARE: ArgSpec = ArgSpec::opt(
    "prepare",
    ArgKind::Str,
    "The promotion file whose prepare steps load test's data (default: promote.yml beside --config, else in DIR)",
)
.value_name("FILE")
.local(LocalPath::ReadFile);

/// `--force`: evaluate's, but a promotion writes no `--output-file`.
pub(super) const FORCE: ArgSpec = ArgSpec::opt(
    "force",
    ArgKind::Bool,
    "Replace the --junit file when it exists",
);

typed_args! {
    /// `deploy promote`.
    pub(super) struct DeployPromote {
        dir: Option<String> = DIR,
        config: Option<String> = CONFIG,
        test: String = TEST,
        prod: String = PROD,
        questions: Option<FileArg> = QUESTIONS,
        test_environment: Option<String> = TEST_ENVIRONMENT,
        prod_environment: Option<String> = PROD_ENVIRONMENT,
        env_vars: Option<Vec<String>> = ENV_VARS,
        prepare: Option<String> = PREPARE,
        baseline: Option<String> = BASELINE,
        min_pass_rate: Option<String> = MIN_PASS_RATE,
        junit: Option<String> = JUNIT,
        force: bool = FORCE,
    }
}

impl Command for DeployPromote {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let questions = self
                .questions
                .as_ref()
                .ok_or_else(|| Error::usage("--questions is required"))?;
            questions::read_checked(&questions.path, &questions.bytes)?;
            let min_pass_rate = parse_min_pass_rate(self.min_pass_rate.as_deref())?;
            let junit = self
                .junit
                .as_deref()
                .map(|text| new_output_file(JUNIT.long, text, self.force))
                .transpose()?;
            for environment in [&self.test_environment, &self.prod_environment] {
                self.repository(environment.clone()).open()?;
            }
            let (prepare_file, prepare) = self.preparation()?;
            let dry_run = ctx.api().options().dry_run;
            let options = PromoteOptions {
                test: &self.test,
                prod: &self.prod,
                questions: &questions.path,
                prepare: &prepare.prepare,
                baseline: self.baseline.as_deref().unwrap_or("latest"),
                dry_run,
                config: self.config.as_deref(),
                test_environment: self.test_environment.as_deref(),
                prod_environment: self.prod_environment.as_deref(),
                env_vars: self.env_vars.as_deref(),
                min_pass_rate,
            };
            let options = serde_json::to_value(&options)?;
            let dir = json!(self.dir);
            let (report, failure) =
                match stdlib::call(ctx.clone(), "promote::run", vec![dir, options]).await {
                    Ok(report) => (report, None),
                    Err(mut err) => match err.details.take() {
                        Some(report) => (report, Some(without_stdlib_trail(err))),
                        None => return Err(err),
                    },
                };
            let mut promotion: Promotion = serde_json::from_value(report).map_err(|err| {
                Error::runtime("promote::run returned a report of another shape").with_cause(err)
            })?;
            let worded = word_evaluations(&mut promotion);
            if let (Some(path), false) = (&junit, dry_run) {
                write_junit(path, &promotion)?;
            }
            let reply = reply(promotion, prepare_file.as_deref(), failure, dry_run)?;
            Ok(worded.into_iter().fold(reply, Reply::with_note))
        })
    }
}

/// The options `promote::run` takes (its `opts` map); those not given are left out.
#[derive(Serialize)]
struct PromoteOptions<'a> {
    test: &'a str,
    prod: &'a str,
    questions: &'a Path,
    prepare: &'a [Step],
    baseline: &'a str,
    dry_run: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    config: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    test_environment: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prod_environment: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    env_vars: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    min_pass_rate: Option<f64>,
}

impl DeployPromote {
    /// The repository flags of one of the two deploys.
    fn repository(&self, environment: Option<String>) -> RepositoryFlags {
        RepositoryFlags {
            dir: self.dir.clone(),
            config: self.config.clone(),
            environment,
            env_vars: self.env_vars.clone(),
            types: None,
            items: None,
            exclude: None,
        }
    }

    /// The promotion file (`--prepare`, or promote.yml found beside the config or in DIR)
    /// and its steps; none when there is no file.
    fn preparation(&self) -> Result<(Option<PathBuf>, PromoteFile)> {
        let found = promotion_file::find(
            self.prepare.as_deref().map(Path::new),
            self.config.as_deref().map(Path::new),
            self.dir.as_deref().map(Path::new),
        );
        let Some(path) = found else {
            return Ok((None, PromoteFile::default()));
        };
        let file = promotion_file::load(&path).map_err(|err| {
            Error::usage(format!("--prepare: {err}")).with_hint("nothing was sent")
        })?;
        Ok((Some(path), file))
    }
}

/// Each evaluation step's detail, short enough for a table (the pass rate, the baseline run,
/// then what failed), and a note per evaluation in full: how its baseline was found.
fn word_evaluations(promotion: &mut Promotion) -> Vec<String> {
    let mut notes = Vec::new();
    for step in promotion
        .steps
        .iter_mut()
        .filter(|step| step.step == "evaluate")
    {
        let Some(result) = promotion
            .evaluations
            .iter()
            .find(|evaluation| evaluation.agent == step.target)
            .and_then(|evaluation| evaluation.result.as_ref())
        else {
            continue;
        };
        let rate = format!("{:.1}%", result.summary.summary.pass_rate * 100.0);
        let (short, long) = match &result.baseline {
            Some(baseline) if baseline.matched_by != BaselineMatch::None => {
                let run = baseline.run_id.as_deref().unwrap_or("?");
                (
                    format!("vs {}", &run[..run.len().min(8)]),
                    format!("against run {run} ({})", baseline.matched_by.words()),
                )
            }
            _ => (
                "first run".to_string(),
                "with no baseline: this run is the next promotion's".to_string(),
            ),
        };
        notes.push(format!("{}: pass rate {rate}, {long}", step.target));
        let said = format!("pass {rate}, {short}");
        step.detail = if step.detail.is_empty() {
            said
        } else {
            format!("{said}: {}", step.detail)
        };
    }
    notes
}

/// The error a step failed with, without the stdlib functions it passed through on its way
/// out (`in function `stop``): they are promote::run's insides, not the failure's causes.
fn without_stdlib_trail(mut err: Error) -> Error {
    err.causes
        .retain(|cause| !cause.starts_with("in function `") && !cause.starts_with("in module `"));
    err
}

/// The evaluations as one JUnit file, a testsuite per agent.
fn write_junit(path: &Path, promotion: &Promotion) -> Result<()> {
    let suites: Vec<Suite<'_>> = promotion
        .evaluations
        .iter()
        .filter_map(|evaluation| {
            let result = evaluation.result.as_ref()?;
            Some(Suite {
                name: &evaluation.agent,
                rows: &result.rows,
                repeats: (result.rows.len() / result.questions.len().max(1)).max(1),
            })
        })
        .collect();
    evaluation_record::write_junit(path, &suites)
}

/// The reply: the steps as the table's rows, a line on how it ended, and the failure of the
/// step that stopped it.
fn reply(
    promotion: Promotion,
    prepare_file: Option<&Path>,
    failure: Option<Error>,
    dry_run: bool,
) -> Result<Reply> {
    let count = |status: StepStatus| {
        promotion
            .steps
            .iter()
            .filter(|step| step.status == status)
            .count()
    };
    let ended = match (&failure, dry_run) {
        (Some(_), _) => format!(
            "promotion stopped: {} step(s) failed, production {}",
            count(StepStatus::Failed),
            if promotion.prod.is_some() {
                "deployed in part"
            } else {
                "untouched"
            }
        ),
        (None, true) => format!(
            "dry run: {} step(s) planned, nothing changed",
            promotion.steps.len()
        ),
        (None, false) => format!("promoted: {} step(s) done", count(StepStatus::Done)),
    };
    let value: Value = serde_json::to_value(&promotion)?;
    let mut reply = Reply::json(value.clone())
        .with_table_rows("steps")
        .with_note(ended);
    if let Some(path) = prepare_file {
        reply = reply.with_note(format!("preparation from {}", path.display()));
    }
    if dry_run {
        reply = reply.with_dry_run_items(value["steps"].clone());
    }
    Ok(match failure {
        Some(failure) => reply.with_failure(failure),
        None => reply,
    })
}
