//! `data-agent evaluations list | show | delete | compare | report`: the runs `data-agent evaluate`
//! recorded in the evaluation store, read back to track an agent over time. Only `list`
//! asks the service (to resolve the workspace and agent names); the rest work offline.

use super::evaluation_record::in_existing_dir;
use super::{AGENT, AgentTarget};
use crate::agent::evaluation_compare;
use crate::agent::evaluation_report::{self, Report};
use crate::agent::evaluations::{AgentFilter, Store};
use crate::agent::junit::or_empty;
use crate::commands::common::{TARGET, WORKSPACE};
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, LocalPath, Needs, Traits,
};
use crate::commands::typed::{Command, handler, typed_args};
use crate::context::Ctx;
use crate::error::Result;
use crate::reply::Reply;
use fabsh_model::agent::evaluation::{Comparison, EvaluationRun, ListedRun, ReportWritten};

const RUN: ArgSpec = ArgSpec::positional(
    "run",
    ArgKind::Str,
    "Evaluation run id, an unambiguous prefix of it, or latest (the newest recorded run, of the agent when one is named)",
);
/// `[WORKSPACE/AGENT]` before the runs: the agent whose runs they are, as `list` takes it.
const RUNS_OF: ArgSpec = ArgSpec::positional(
    TARGET,
    ArgKind::Str,
    "The workspace and data agent the runs belong to (Demo/\"Sales agent\"), as recorded; -w and --id say the same",
)
.optional()
.value_name("WORKSPACE/AGENT");
/// `-w`, when it only narrows the runs looked at.
const RUNS_WORKSPACE: ArgSpec = ArgSpec::opt(
    "workspace",
    ArgKind::Str,
    "The workspace of the agent whose runs these are (id or name, as recorded)",
)
.short('w');
/// `--id`, when it only narrows the runs looked at.
const RUNS_AGENT: ArgSpec = ArgSpec::opt(
    "id",
    ArgKind::Str,
    "The data agent whose runs these are (id or name, as recorded)",
);

typed_args! {
    /// The agent whose runs are meant: `[WORKSPACE/AGENT]` before the runs, or `-w` and `--id`
    /// (which win), matched against what each run recorded.
    struct RunsOf {
        path: Option<String> = RUNS_OF,
        workspace: Option<String> = RUNS_WORKSPACE,
        agent: Option<String> = RUNS_AGENT,
    }
}

impl RunsOf {
    /// The filter the flags give, if any.
    fn filter(&self) -> Option<AgentFilter> {
        let path = self.path.as_deref();
        let (mut workspace, mut agent) = match path.map(|p| p.split_once('/')) {
            Some(Some((workspace, agent))) => (Some(workspace), Some(agent)),
            Some(None) => (None, path),
            None => (None, None),
        };
        workspace = self.workspace.as_deref().or(workspace);
        agent = self.agent.as_deref().or(agent);
        // One of the two given: the other, left out (or empty, as in `/AGENT`), matches any.
        let given = |part: Option<&str>| part.filter(|p| !p.is_empty()).map(str::to_string);
        (workspace.is_some() || agent.is_some()).then(|| AgentFilter {
            workspace: given(workspace),
            agent: given(agent),
        })
    }
}

pub(crate) const LIST_EVALUATIONS: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "evaluations list",
    summary: "List the recorded evaluation runs of an agent, newest first",
    about: "Runs recorded by `data-agent evaluate` in the evaluation store (the user data dir's fabsh/evaluations.sqlite3): runId, time (to the second, in your zone, with its offset), passRate, runs (questions × repeats), grading and configurationFingerprint, a hash of the agent's published configuration that changes when it is republished differently.",
    args: &[WORKSPACE, AGENT],
    traits: Traits::READ.unpaged_list(),
    columns: &[
        "runId",
        "time",
        "passRate",
        "runs",
        "grading",
        "configurationFingerprint",
    ],
    examples: &[Example {
        command: "data-agent evaluations list -w Demo --id \"Sales agent\"",
        about: "the pass rate over time",
    }],
    handler: Handler::Data(handler::<List>),
};

pub(crate) const SHOW_EVALUATION: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "evaluations show",
    summary: "Show a recorded evaluation run and its rows",
    about: "The run as recorded: runId, time, workspace and agent ({id, name}), grading (rules or the judge model), questionsFile and its questionsSha256, repeats, concurrency, configurationFingerprint, summary, and every row (question, expected, actual, verdict, rule, rationale, latencyMs, error).",
    args: &[RUNS_OF, RUN, RUNS_WORKSPACE, RUNS_AGENT],
    traits: Traits::READ.needs(Needs::Nothing),
    // A table shows the rows; the run's own fields are the JSON's.
    columns: &["question", "verdict", "rule", "latencyMs"],
    examples: &[Example {
        command: "data-agent evaluations show \"$RUN_ID\" -q \"rows[?verdict=='no']\"",
        about: "the failed runs of a recorded evaluation",
    }],
    handler: Handler::Data(handler::<Show>),
};

pub(crate) const DELETE_EVALUATION: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "evaluations delete",
    summary: "Delete a recorded evaluation run and its rows",
    about: "",
    args: &[RUNS_OF, RUN, RUNS_WORKSPACE, RUNS_AGENT],
    traits: Traits::DESTRUCTIVE.needs(Needs::Nothing).void(),
    columns: &[],
    examples: &[Example {
        command: "data-agent evaluations delete \"$RUN_ID\" --yes",
        about: "the run and its rows are gone",
    }],
    handler: Handler::Data(handler::<Delete>),
};

const RUN_A: ArgSpec =
    ArgSpec::positional("run-a", ArgKind::Str, "The base run (id, prefix or latest)");
const RUN_B: ArgSpec = ArgSpec::positional(
    "run-b",
    ArgKind::Str,
    "The run compared with it (id, prefix or latest)",
);

pub(crate) const COMPARE_EVALUATIONS: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "evaluations compare",
    summary: "Compare two recorded evaluation runs question by question",
    about: "Per question, from RUN_A (the base) to RUN_B: newly_failing (every repeat passed in A, none in B), newly_passing, flaky (different verdicts across the repeats of either run), unchanged, added or removed; a question passes when graded yes; repeats left ungraded (verdict unclear, or error: the judge or the reference query failed) count neither way, and a question with no graded repeat is unclear; regressed is true when it passed on every repeat of A and fails on some in B (what `evaluate --fail-on-regression` stops on). Also passRateDelta, latencyP50DeltaMs (B minus A) and configurationChanged (whether the agent's published configuration fingerprint differs; null when a run has none) and configurationChanges, what changed: one {part, what, change} per published part added, removed or changed (e.g. stage_config.json, the instructions and settings; a datasource's fewshots.json; publishedDescription), null for runs recorded before parts were. A table shows the questions, with the counts, the pass-rate change and each configuration change as notes; -o html writes RUN_B's report page compared with RUN_A (as `evaluations report RUN_B --compare RUN_A`).",
    args: &[RUNS_OF, RUN_A, RUN_B, RUNS_WORKSPACE, RUNS_AGENT],
    traits: Traits::READ.needs(Needs::Nothing).html(),
    columns: &["question", "status", "base", "head"],
    examples: &[Example {
        command: "data-agent evaluations compare \"$BASE_RUN_ID\" \"$RUN_ID\" -q \"questions[?status=='newly_failing']\"",
        about: "what broke between two runs",
    }],
    handler: Handler::Data(handler::<Compare>),
};

/// The most runs the report's matrix shows.
const MATRIX_RUNS: usize = 20;

// `--output-file` as `evaluate` names its file; `--output` is how it used to be spelt.
const REPORT_FILE: ArgSpec = ArgSpec::opt(
    "output-file",
    ArgKind::Str,
    "The HTML file to write; without it the page is returned as `html`",
)
.value_name("FILE")
.aliases(&["output"])
.local(LocalPath::WriteFile);
const COMPARE_WITH: ArgSpec = ArgSpec::opt(
    "compare",
    ArgKind::Str,
    "A run to compare with, as the base (id or prefix)",
);

pub(crate) const REPORT_EVALUATION: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "evaluations report",
    summary: "Write a recorded evaluation run as a self-contained HTML report",
    about: "One HTML file with nothing loaded from elsewhere (inline CSS and SVG): the run's summary (agent, workspace, time, grading, pass rate, runs, p50/p95 latency, configuration and questions-file fingerprints), the agent's pass rate over all its recorded runs (oldest to newest, each point at its date, its configuration fingerprint in its tooltip and the legend), a questions × runs matrix over the agent's last 20 runs up to this one, newest first, this run's column outlined and headed \"this run\" (pass ✓, fail ✗, mixed ±, absent –), the latency histogram of the run, and every row not graded yes with expected, actual and the rationale or error (repeats that failed alike as one card with their count). --compare BASE puts `evaluations compare BASE RUN`'s summary (newly failing, newly passing, flaky, unchanged, the deltas and the changed questions) at the top. --output-file writes the page (`--output` is an alias); -o html writes it to stdout. Works offline, from the evaluation store.",
    args: &[
        RUNS_OF,
        RUN,
        RUNS_WORKSPACE,
        RUNS_AGENT,
        REPORT_FILE,
        COMPARE_WITH,
    ],
    traits: Traits::READ.needs(Needs::Nothing).html(),
    columns: &[],
    examples: &[Example {
        command: "data-agent evaluations report \"$RUN_ID\" --compare \"$BASE_RUN_ID\" --output-file report.html",
        about: "a page to read or attach to a pull request",
    }],
    handler: Handler::Data(handler::<ReportEvaluation>),
};

typed_args! {
    /// `data-agent evaluations list`.
    struct List {
        target: AgentTarget,
    }
}

impl Command for List {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let agent = self.target.resolve(&ctx).await?;
            let runs = Store::open()?.list(&agent.workspace, &agent.id)?;
            Ok(Reply::json(serde_json::to_value(runs)?))
        })
    }
}

typed_args! {
    /// `data-agent evaluations show`.
    struct Show {
        of: RunsOf,
        run: String = RUN,
    }
}

impl Command for Show {
    fn run(self, _ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let run = Store::open()?.show(&self.run, self.of.filter().as_ref())?;
            let summary = run.summary.as_ref();
            let pass_rate = summary.map_or_else(
                || "unknown".to_string(),
                |summary| format!("{:.1}%", summary.pass_rate * 100.0),
            );
            // A summary the store could not read has no count of runs, said as JSON says it.
            let runs =
                summary.map_or_else(|| "null".to_string(), |summary| summary.runs.to_string());
            let note = format!(
                "run {} of {}: {runs} runs, pass rate {pass_rate}",
                // A run read from the store always has its id.
                or_empty(&run.run_id),
                // An agent whose name was not read (a `--published-url` run) goes unnamed.
                or_empty(&run.agent.name),
            );
            Ok(Reply::json(serde_json::to_value(run)?)
                .with_table_rows("rows")
                .with_note(note))
        })
    }
}

typed_args! {
    /// `data-agent evaluations delete`.
    struct Delete {
        of: RunsOf,
        run: String = RUN,
    }
}

impl Command for Delete {
    fn run(self, _ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let id = Store::open()?.delete(&self.run, self.of.filter().as_ref())?;
            Ok(Reply::empty().with_note(format!("deleted evaluation run {id}")))
        })
    }
}

typed_args! {
    /// `data-agent evaluations compare`.
    struct Compare {
        of: RunsOf,
        base: String = RUN_A,
        head: String = RUN_B,
    }
}

impl Command for Compare {
    fn run(self, _ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let agent = self.of.filter();
            let store = Store::open()?;
            let base = store.show(&self.base, agent.as_ref())?;
            let head = store.show(&self.head, agent.as_ref())?;
            let comparison = evaluation_compare::compare(&base, &head);
            // A table shows the questions only: the counts and configuration changes come with
            // it as notes.
            let notes = evaluation_compare::notes(&comparison);
            let mut reply = Reply::json(serde_json::to_value(&comparison)?)
                .with_table_rows("questions")
                // `-o html`: RUN_B's report, compared with RUN_A.
                .with_html(move |_| report_page(&head, Some(&comparison)).map(|page| page.html));
            for note in notes {
                reply = reply.with_note(note);
            }
            Ok(reply)
        })
    }
}

typed_args! {
    /// `data-agent evaluations report`.
    struct ReportEvaluation {
        of: RunsOf,
        run: String = RUN,
        output_file: Option<String> = REPORT_FILE,
        compare: Option<String> = COMPARE_WITH,
    }
}

impl Command for ReportEvaluation {
    fn run(self, _ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let output = self
                .output_file
                .as_deref()
                .map(|text| in_existing_dir(REPORT_FILE.long, text))
                .transpose()?;
            let agent = self.of.filter();
            let store = Store::open()?;
            let run = store.show(&self.run, agent.as_ref())?;
            let comparison = self
                .compare
                .as_deref()
                .map(|base| store.show(base, agent.as_ref()))
                .transpose()?
                .map(|base| evaluation_compare::compare(&base, &run));
            drop(store);
            let page = report_page(&run, comparison.as_ref())?;
            let mut written = ReportWritten {
                run_id: run.run_id,
                runs_charted: page.charted,
                matrix_runs: page.matrix,
                report: None,
                html: None,
            };
            match output {
                Some(output) => {
                    std::fs::write(&output, &page.html).map_err(|err| {
                        crate::error::Error::runtime(format!("cannot write {}", output.display()))
                            .with_cause(err)
                    })?;
                    written.report = Some(output.display().to_string());
                }
                None => written.html = Some(page.html.clone()),
            }
            let html = page.html;
            Ok(Reply::json(serde_json::to_value(written)?).with_html(move |_| Ok(html)))
        })
    }
}

/// An evaluation's report page, and how many runs its chart and matrix show.
pub(crate) struct ReportPage {
    pub html: String,
    pub charted: usize,
    pub matrix: usize,
}

/// The report page of `run` (as `evaluations show` gives it, rows included) beside the
/// agent's recorded runs. A run that was not recorded (`evaluate --no-save`, no `runId`) is
/// shown alone, and the store is not opened for it: --no-save leaves no trace.
pub(crate) fn report_page(
    run: &EvaluationRun,
    comparison: Option<&Comparison>,
) -> Result<ReportPage> {
    let (history, matrix) = if run.run_id.is_none() {
        let listed = ListedRun {
            run_id: None,
            time: run.time.clone(),
            pass_rate: run.summary.as_ref().map(|summary| summary.pass_rate),
            runs: None,
            configuration_fingerprint: run.configuration_fingerprint.clone(),
            grading: None,
            questions_sha256: None,
        };
        (vec![listed], vec![run.clone()])
    } else {
        let store = Store::open()?;
        let mut history = store.list(&run.workspace.id, &run.agent.id)?;
        history.reverse();
        // The matrix ends at the reported run, so an older run's report shows the runs up
        // to it (as they were then) with it in the first column, whenever it is made.
        let end = history
            .iter()
            .position(|listed| listed.run_id == run.run_id)
            .map_or(history.len(), |at| at + 1);
        let matrix = history[end.saturating_sub(MATRIX_RUNS)..end]
            .iter()
            .map(|listed| match listed.run_id.as_deref() {
                Some(other) if listed.run_id != run.run_id => store.show(other, None),
                // This run, or (never, as the store lists its runs) one without an id.
                _ => Ok(run.clone()),
            })
            .collect::<Result<Vec<_>>>()?;
        (history, matrix)
    };
    let html = evaluation_report::render(&Report {
        run,
        history: &history,
        matrix: &matrix,
        comparison,
    });
    Ok(ReportPage {
        html,
        charted: history.len(),
        matrix: matrix.len(),
    })
}
