//! `data-agent evaluate`: every question of a file asked `--repeats` times, `--concurrency`
//! at once, each answer graded by a judge model or the deterministic rules. Runs the stdlib
//! functions `evaluate::ask` and `evaluate::grade_runs` (`evaluate::run` is the two), with the
//! reference queries of `expected_sql` running between them, while the agent is asked; this
//! handler checks the input first, then shapes and writes the result. No run is ever
//! dropped: a failed one is a row graded `no` by `run_failed`.

use super::evaluate_flags::{
    BASELINE, CONCURRENCY, CRITIC_PROMPT, CRITIC_PROMPT_FILE, Evaluate, FAIL_ON_REGRESSION, FORCE,
    JUNIT, LLM_API_VERSION, LLM_ENDPOINT, LLM_KEY, LLM_MODEL, MIN_PASS_RATE, NO_SAVE, OUTPUT_FILE,
    QUESTIONS, REPEATS, TOLERANCE, at_least_one,
};
use super::evaluation_record::{self as tracking, sha256_hex};
use super::evaluation_reference::{self as reference, Reference};
use super::evaluation_subject::{Subject, subject as read_subject};
use super::query::{
    DOWNLOAD_FILES, KEEP_THREAD, PUBLISHED_URL, QUERY_STAGE, SHOW_STEPS, TIMEOUT, check_stage,
    timeout,
};
use super::{AGENT, evaluations};
use crate::agent::evaluation_compare;
use crate::agent::judge::{JUDGE_FAILED, Judge, PLACEHOLDERS};
use crate::agent::junit::or_empty;
use crate::commands::common::WORKSPACE;
use crate::commands::spec::{CommandSpec, Example, Handler, HandlerFuture, Traits};
use crate::commands::typed::{Command, handler};
use crate::context::Ctx;
use crate::error::{Error, ErrorKind, Result};
use crate::reply::Reply;
use crate::stdlib;
use fabsh_api::agent::downloads;
use fabsh_model::agent::evaluation::{
    AskOptions, Comparison, Evaluation, EvaluationRow, EvaluationRun, GradedRow, GradedRuns,
    QuestionSummary, RecordedSummary,
};
use fabsh_model::agent::grade::Verdict;
use fabsh_model::agent::questions;
use fabsh_model::sql::ResultSet;
use serde::Deserialize;
use serde_json::json;
use std::path::Path;

pub(crate) const EVALUATE: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "evaluate",
    summary: "Ask a published agent every question of a file, grade the answers, summarise",
    about: "Questions: a JSON array of strings or {\"question\", \"expected\"} objects, or CSV/TSV with a question column and an optional expected one; a bad file is rejected with line numbers before anything is asked. A question may give expected_sql instead of (or beside) expected: a reference query (a read: a file with one that writes, SELECT INTO included, is refused before anything is asked) run once per evaluation, while the agent is asked (a few at a time besides --concurrency), on expected_item (a lakehouse or warehouse of the agent's workspace; default the agent's first datasource) through its SQL endpoint; its result set is the expected answer, graded by the rules as a single value (within --tolerance), a list (in order only when the query has ORDER BY) or a small table (every value present), or given to the judge; the row records expectedSql and expectedResult. A reference query that fails or returns nothing makes its question an error (rule reference_failed), never a pass, and the exit code 1. Each question is asked --repeats times, --concurrency runs at once. With a judge (--llm-endpoint and --llm-model, or FABSH_LLM_*) each answer gets a verdict {yes, no, unclear} and a rationale from the model; a run the judge could not grade (unreachable, an error, no verdict) gets the verdict error (rule judge_failed), counts under errors and makes the exit code 1; --critic-prompt replaces its prompt and may use {query}, {expected_answer} and {actual_answer}. Without a judge, rules grade it: same normalised text, the expected numbers (46,117.30 = 46117.3, equal within --tolerance), or containment; each row names its rule. A failed run is a row graded no (rule run_failed). Output: {summary, questions, rows}; --output-file writes the rows as .csv or .json, or the run's report page as .html (as `evaluations report`; -o html writes it to stdout). Each run is recorded in the evaluation store (the user data dir's fabsh/evaluations.sqlite3, private to you) unless --no-save: its id is summary.runId, and `data-agent evaluations list | show | compare | delete` read it back. --baseline RUN|latest compares with a recorded run of the same agent (output keys baseline, saying which run and how it was found, and comparison); a RUN that is not recorded, or is of another agent, is refused before anything is asked. latest is this agent's newest run in its workspace; when it has none there, the newest run of the same agent elsewhere (one deployed from the same repository item: the same logical id, else the same display name), preferring its workspace; when no run is of it (a first evaluation, as in a first promotion), the run is compared with nothing, recorded, and a note says so (baseline.matchedBy none). With --fail-on-regression (which implies --baseline latest) a question that passed on every repeat there and fails on any now fails the evaluation (exit 7; its comparison row says regressed); without a baseline run only --min-pass-rate gates. --junit FILE writes JUnit XML for CI (a run not graded yes is a failure, one left ungraded by the judge or a reference query an error). Exit codes: 1 when every run failed, the judge failed on some, or a reference query gave no expected answer, 6 when the pass rate is below --min-pass-rate, 7 on a regression under --fail-on-regression. Runs the stdlib functions evaluate::ask and evaluate::grade_runs (together evaluate::run).",
    args: &[
        WORKSPACE,
        AGENT,
        QUESTIONS,
        PUBLISHED_URL,
        REPEATS,
        QUERY_STAGE,
        TIMEOUT,
        CONCURRENCY,
        CRITIC_PROMPT,
        CRITIC_PROMPT_FILE,
        LLM_ENDPOINT,
        LLM_KEY,
        LLM_MODEL,
        LLM_API_VERSION,
        SHOW_STEPS,
        KEEP_THREAD,
        DOWNLOAD_FILES,
        OUTPUT_FILE,
        MIN_PASS_RATE,
        TOLERANCE,
        NO_SAVE,
        BASELINE,
        FAIL_ON_REGRESSION,
        JUNIT,
        FORCE,
    ],
    traits: Traits::READ.html(),
    columns: &[
        "question",
        "runs",
        "passed",
        "failed",
        "unclear",
        "errors",
        "passRate",
        "consistent",
        "failedAnswer",
    ],
    examples: &[
        Example {
            command: "data-agent evaluate -w Demo --id \"Sales agent\" --questions questions.csv --repeats 3 --concurrency 8",
            about: "graded by the rules",
        },
        Example {
            command: "data-agent evaluate -w Demo --id \"Sales agent\" --questions questions.json --llm-endpoint \"$AZURE_OPENAI_ENDPOINT\" --llm-model gpt-4o --output-file results.csv --min-pass-rate 0.8",
            about: "graded by a judge model, failing CI below 80 %",
        },
    ],
    handler: Handler::Data(handler::<Evaluate>),
};

impl Command for Evaluate {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            check_stage(self.stage.as_deref())?;
            let limit = timeout(self.timeout)?;
            let repeats = at_least_one(self.repeats, &REPEATS)?;
            let concurrency = at_least_one(self.concurrency, &CONCURRENCY)?;
            let file = self
                .questions
                .as_ref()
                .ok_or_else(|| Error::usage("--questions is required"))?;
            let critic = self.critic_prompt()?;
            let judge = match (self.judge.config()?, critic) {
                (Some(config), critic) => Some(Judge::new(config, critic, ctx.settings())?),
                (None, Some(_)) => {
                    return Err(Error::usage("--critic-prompt needs a judge model: give --llm-endpoint (or set FABSH_LLM_ENDPOINT)")
                    .with_hint(format!("the prompt may use {}", PLACEHOLDERS.join(", "))));
                }
                (None, None) => None,
            };
            let output = self.output_file()?;
            let bar = self.min_pass_rate()?;
            let tolerance = self.tolerance()?;
            let downloads = self
                .download_files
                .as_deref()
                .map(downloads::check_dir)
                .transpose()?;
            let junit = self.junit_file()?;
            // Both calls' script engines are built on threads of their own, milliseconds of
            // serial time each: the asking one from here, while the file is checked and the agent
            // looked up; the grading one once the file is read, so that it takes a core from the
            // agent's first questions rather than from the asking engine and the file's checks
            // (it is needed only after the last answer).
            let model = judge.as_ref().map(Judge::model);
            let asking = stdlib::prepare(&ctx)?;
            let asked = questions::read_checked(&file.path, &file.bytes)?;
            let grading = stdlib::prepare(&ctx.with_judge(judge))?;
            let resolved = match &self.published_url {
                Some(_) => None,
                None => Some(self.target.resolve(&ctx).await?),
            };
            let (workspace, id) = match &resolved {
                Some(agent) => (agent.workspace.clone(), agent.id.clone()),
                None => (self.target.workspace.clone(), self.target.agent.clone()),
            };
            let opened = tracking::open(
                !self.no_save,
                self.baseline.as_deref(),
                self.fail_on_regression,
            )?;
            // Who was evaluated costs a few reads: skipped when nothing is recorded, named or
            // compared (a baseline is found by the agent's identity, and a comparison names
            // what changed in the configuration).
            let subject = if self.no_save && junit.is_none() && !opened.compares() {
                Subject::unread(&workspace, &id)
            } else {
                let given = &self.target.workspace;
                read_subject(&ctx, given, resolved.as_ref(), &workspace, &id).await
            };
            let mut tracked = opened.choose(&subject)?;
            let opts = AskOptions {
                repeats: repeats as u64,
                concurrency: concurrency as u64,
                timeout: limit.as_secs(),
                show_steps: self.show_steps,
                keep_thread: self.keep_thread,
                progress: "evaluating".into(),
                tolerance,
                published_url: self.published_url.clone(),
                download_files: downloads.as_ref().map(|dir| dir.display().to_string()),
            };
            let opts = serde_json::to_value(opts)?;
            // The reference queries (each once) run while the agent is asked, in a small pool of
            // their own: a result is needed only to grade, and grading waits for both.
            let subject_agent = if asked.iter().any(questions::Question::has_reference) {
                Some(match &resolved {
                    Some(agent) => agent.clone(),
                    None => self.target.resolve(&ctx).await?,
                })
            } else {
                None
            };
            let to_ask: Vec<_> = asked
                .iter()
                .map(|question| reference::stdlib_question(question, None))
                .collect();
            let asking = asking.call(
                "evaluate::ask",
                vec![
                    json!(workspace),
                    json!(id),
                    serde_json::to_value(to_ask)?,
                    opts.clone(),
                ],
            );
            let referencing = async {
                match &subject_agent {
                    Some(agent) => {
                        let pool = reference::pool_size(concurrency as usize);
                        reference::run_all(&ctx, agent, &asked, pool, limit).await
                    }
                    None => Ok(vec![None; asked.len()]),
                }
            };
            let (answered, references) = tokio::join!(asking, referencing);
            let (answered, references) = (answered?, references?);
            let question_list: Vec<_> = asked
                .iter()
                .zip(&references)
                .map(|(question, found)| reference::stdlib_question(question, found.as_ref()))
                .collect();
            // A result set stays with its question in the stdlib; each row gets it back here.
            let expected_results: Vec<Option<ResultSet>> = references
                .iter()
                .map(|found| match found {
                    Some(Reference::Rows(set)) => Some(set.clone()),
                    _ => None,
                })
                .collect();
            let result = grading
                .call(
                    "evaluate::grade_runs",
                    vec![serde_json::to_value(question_list)?, answered, opts],
                )
                .await?;
            let graded: GradedRuns = serde_json::from_value(result).map_err(|err| {
                Error::runtime("the stdlib's evaluate::grade_runs returned runs of another shape")
                    .with_cause(err)
            })?;
            let with_references = references.iter().any(Option::is_some);
            let failed = failed_answers(&graded.rows, asked.len());
            let rows = shaped_rows(
                graded.rows,
                &self,
                with_references.then_some(expected_results.as_slice()),
            );
            let expected_rows = asked.len() * repeats as usize;
            if rows.len() != expected_rows {
                return Err(Error::runtime(format!(
                    "the stdlib returned {} rows for {expected_rows} runs",
                    rows.len()
                )));
            }
            // The rows now; a page once the run is recorded and compared.
            let page_file = output.clone().filter(|path| is_html(path));
            if let Some(path) = output.as_ref().filter(|path| !is_html(path)) {
                write_rows(path, &rows)?;
            }
            let grader = model
                .as_ref()
                .map_or("the rules".to_string(), |m| format!("the judge {m}"));
            // Its name, not its local path (which says nothing to a report's other readers); its
            // sha256 tells whether two runs asked the same questions.
            let questions_file = file.path.file_name().map_or_else(
                || file.path.display().to_string(),
                |name| name.to_string_lossy().into_owned(),
            );
            let mut run = EvaluationRun {
                run_id: None,
                time: None,
                workspace: subject.workspace,
                agent: subject.agent,
                agent_logical_id: subject.logical_id,
                grading: model.map_or("rules".to_string(), |m| format!("judge {m}")),
                questions_file,
                questions_sha256: sha256_hex(&file.bytes),
                repeats: repeats as u64,
                concurrency: concurrency as u64,
                configuration_fingerprint: subject.configuration_fingerprint,
                summary: Some(graded.summary.clone()),
                configuration_parts: subject.configuration_parts,
                rows: Vec::new(),
                extra: serde_json::Map::new(),
            };
            let run_id = tracking::record(&mut tracked, &mut run, &rows)?;
            let comparison = tracking::compare(&tracked, &run, &rows);
            if let Some(path) = &junit {
                let suite = crate::agent::junit::Suite {
                    name: run.agent.name.as_deref().unwrap_or(&id),
                    rows: &rows,
                    repeats: repeats as usize,
                };
                tracking::write_junit(path, &[suite])?;
            }
            let per_question = graded
                .questions
                .into_iter()
                .zip(failed)
                .map(|(question, failed_answer)| QuestionSummary {
                    failed_answer,
                    ..question
                })
                .collect();
            let out = Evaluation {
                summary: RecordedSummary {
                    summary: graded.summary,
                    run_id: run_id.clone(),
                },
                questions: per_question,
                rows,
                baseline: tracked.chosen.clone(),
                comparison,
            };
            let gate = Gate {
                bar,
                fail_on_regression: self.fail_on_regression,
            };
            // A table shows the questions only: which baseline, and the comparison with it,
            // come with it as notes.
            let chosen = out
                .baseline
                .as_ref()
                .map(|chosen| tracking::baseline_notes(chosen, &run.workspace));
            let compared = out.comparison.as_ref().map(evaluation_compare::notes);
            // The report of this run, as `evaluations report --compare BASELINE` makes it: to the
            // `--output-file` page now, and under `-o html` instead of the data.
            if let Some(path) = &page_file {
                let shown = EvaluationRun {
                    rows: out.rows.clone(),
                    ..run.clone()
                };
                let page = evaluations::report_page(&shown, out.comparison.as_ref())?;
                std::fs::write(path, page.html).map_err(|err| {
                    Error::runtime(format!("cannot write {}", path.display())).with_cause(err)
                })?;
            }
            // `-o html`: made from the reply's data only when asked for, so its rows are not
            // copied otherwise.
            let mut reply = reply(out, gate, &grader)?.with_html(move |data| {
                let out = Evaluation::deserialize(data)?;
                let shown = EvaluationRun {
                    rows: out.rows,
                    ..run
                };
                evaluations::report_page(&shown, out.comparison.as_ref()).map(|page| page.html)
            });
            for note in chosen
                .into_iter()
                .flatten()
                .chain(compared.into_iter().flatten())
            {
                reply = reply.with_note(note);
            }
            Ok(match run_id {
                Some(id) => reply.with_note(format!("recorded as evaluation run {id}")),
                None => reply,
            })
        })
    }
}

/// Per question (by its place in the file), what the agent answered (or the error) on its
/// first run graded no, so a table shows why a question failed without the rows. One pass
/// over the stdlib's rows, by their `index`: two questions may share a text.
fn failed_answers(rows: &[GradedRow], questions: usize) -> Vec<Option<String>> {
    let mut failed = vec![None; questions];
    for row in rows {
        if let Some(slot @ None) = failed.get_mut(row.index)
            && row.verdict == Some(Verdict::No)
        {
            let answer = row
                .actual
                .as_deref()
                .filter(|text| !text.is_empty())
                .or(row.error.as_deref())
                // A run graded no with neither an answer nor an error (an empty answer) shows
                // as the empty answer it was.
                .unwrap_or_default();
            *slot = Some(answer.to_string());
        }
    }
    failed
}

/// The rows with the keys `evaluate` promises, plus the ones asked for; with reference
/// queries, each row's `expectedResult` is its question's (by the row's `index`).
fn shaped_rows(
    rows: Vec<GradedRow>,
    asked: &Evaluate,
    expected_results: Option<&[Option<ResultSet>]>,
) -> Vec<EvaluationRow> {
    rows.into_iter()
        .map(|row| EvaluationRow {
            expected_sql: expected_results.is_some().then_some(row.expected_sql),
            expected_result: expected_results
                .map(|results| results.get(row.index).cloned().flatten()),
            steps: asked.show_steps.then(|| row.steps.flatten()),
            thread_id: asked.keep_thread.then(|| row.thread_id.flatten()),
            files: asked.download_files.is_some().then(|| row.files.flatten()),
            question: row.question,
            expected: row.expected,
            actual: row.actual,
            verdict: row.verdict,
            rule: row.rule,
            rationale: row.rationale,
            latency_ms: row.latency_ms,
            error: row.error,
            extra: row.extra,
        })
        .collect()
}

/// True when `--output-file` names a page (`.html`, any case) rather than rows.
fn is_html(path: &Path) -> bool {
    path.to_string_lossy()
        .to_ascii_lowercase()
        .ends_with(".html")
}

/// Writes the rows as CSV (the promised columns) or JSON (whole rows).
fn write_rows(path: &Path, rows: &[EvaluationRow]) -> Result<()> {
    let failed = |err: std::io::Error| {
        Error::runtime(format!("cannot write {}", path.display())).with_cause(err)
    };
    if path
        .to_string_lossy()
        .to_ascii_lowercase()
        .ends_with(".json")
    {
        let mut text = serde_json::to_string_pretty(rows)?;
        text.push('\n');
        return std::fs::write(path, text).map_err(failed);
    }
    let mut writer = csv::Writer::from_writer(Vec::new());
    let header = EvaluationRow::COLUMNS.map(String::from);
    for record in std::iter::once(header).chain(rows.iter().map(EvaluationRow::cells)) {
        writer.write_record(&record).map_err(|err| {
            Error::runtime(format!("cannot write {}", path.display())).with_cause(err)
        })?;
    }
    let bytes = writer.into_inner().map_err(|err| {
        Error::runtime(format!("cannot write {}", path.display())).with_cause(err.to_string())
    })?;
    std::fs::write(path, bytes).map_err(failed)
}

/// The bars a run must clear: `--min-pass-rate` and `--fail-on-regression`.
struct Gate {
    bar: Option<f64>,
    fail_on_regression: bool,
}

/// A latency of the summary as JSON writes it: null when there was no run.
fn latency_text(ms: Option<u64>) -> String {
    ms.map_or_else(|| "null".to_string(), |ms| ms.to_string())
}

/// The reply: the questions as the table's rows, the summary as a note, and a failure when
/// runs were left ungraded (the judge failed, or a reference query gave no expected answer),
/// every run failed, a question regressed under `--fail-on-regression`, or the pass rate is
/// below `--min-pass-rate`.
fn reply(out: Evaluation, gate: Gate, grader: &str) -> Result<Reply> {
    let summary = &out.summary.summary;
    let rate = summary.pass_rate;
    let note = format!(
        "{} runs graded by {grader}: {} passed, {} failed, {} unclear, {} errors; pass rate {:.1}%; latency p50 {} ms, p95 {} ms",
        summary.runs,
        summary.passed,
        summary.failed,
        summary.unclear,
        summary.errors,
        rate * 100.0,
        latency_text(summary.latency_p50_ms),
        latency_text(summary.latency_p95_ms),
    );
    let rows = &out.rows;
    let with_rule = |rule: &str| -> Vec<&EvaluationRow> {
        rows.iter()
            .filter(|row| row.rule.as_deref() == Some(rule))
            .collect()
    };
    let ungraded = with_rule(JUDGE_FAILED);
    let unreferenced = with_rule(reference::REFERENCE_FAILED);
    let first_error = |rows: &[&EvaluationRow]| {
        rows.first()
            .and_then(|row| row.error.as_deref())
            .unwrap_or("no reason given")
            .to_string()
    };
    // Below the bar or not, a result with runs left ungraded cannot be trusted.
    let left_ungraded = |rows: &[&EvaluationRow], message: String, hint: &str| {
        Some(
            Error::runtime(format!("{message}; they count under errors"))
                .with_cause(first_error(rows))
                .with_hint(hint),
        )
    };
    let regressed = out
        .comparison
        .as_ref()
        .filter(|_| gate.fail_on_regression)
        .and_then(regressions);
    let failure = if !ungraded.is_empty() {
        left_ungraded(
            &ungraded,
            format!(
                "the judge could not grade {} of {} runs",
                ungraded.len(),
                summary.runs
            ),
            "check --llm-endpoint, --llm-model and --llm-key (or FABSH_LLM_*)",
        )
    } else if !unreferenced.is_empty() {
        // The questions file is wrong, or the data changed under it: not the agent's doing,
        // and a pass rate without those questions says less than it seems to.
        left_ungraded(
            &unreferenced,
            format!(
                "{} of {} runs have no expected answer: their reference query failed or returned nothing",
                unreferenced.len(),
                summary.runs
            ),
            "run the question's expected_sql with `fabsh sql query -w WS --item ITEM --sql ...` to see what it returns",
        )
    } else if summary.runs > 0 && summary.errors == summary.runs {
        let all: Vec<&EvaluationRow> = rows.iter().collect();
        Some(Error::runtime("every run failed").with_cause(first_error(&all)))
    } else if let Some((base, regressed)) = regressed {
        Some(
            Error::new(
                ErrorKind::Regression,
                format!(
                    "{} question(s) that passed in the baseline run {base} now fail",
                    regressed.len(),
                ),
            )
            .with_cause(regressed.join("; ")),
        )
    } else {
        gate.bar.filter(|bar| rate < *bar).map(|bar| {
            Error::new(
                ErrorKind::BelowBar,
                format!(
                    "the pass rate {:.1}% is below --min-pass-rate {bar} ({:.1}%)",
                    rate * 100.0,
                    bar * 100.0
                ),
            )
        })
    };
    let reply = Reply::json(serde_json::to_value(&out)?)
        .with_table_rows("questions")
        .with_note(note);
    Ok(match failure {
        Some(failure) => reply.with_failure(failure),
        None => reply,
    })
}

/// The baseline run's id and the questions that passed on every repeat of it and fail on
/// some now, if any.
fn regressions(comparison: &Comparison) -> Option<(String, Vec<String>)> {
    let regressed: Vec<String> = comparison
        .regressed()
        .map(|question| question.question.clone())
        .collect();
    // The baseline is a recorded run: it has its id.
    let base = or_empty(&comparison.base.run_id).to_string();
    (!regressed.is_empty()).then_some((base, regressed))
}
