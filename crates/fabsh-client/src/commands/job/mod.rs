//! The `job` group: run an item (a notebook, a pipeline, a Spark job, a lakehouse's table
//! maintenance) on demand and follow the run, list and show runs, cancel one.

pub(crate) mod instances;
mod run;
pub(crate) use run::job_type;
mod wait;

use super::common::{ITEM, WORKSPACE};
use super::spec::{ArgKind, ArgSpec, CommandSpec, Example, Handler, Traits};
use super::typed::handler;

/// `--instance`: a run's id.
pub(super) const INSTANCE: ArgSpec = ArgSpec::req(
    "instance",
    ArgKind::UuidPrefix,
    "The run's (job instance's) id, or its first 8 characters or more as a narrow table shows them",
);

/// `--job-type`, named here so errors and help agree.
pub(crate) const JOB_TYPE_FLAG: &str = "job-type";

/// `--job-type` of `job run`.
pub(super) const JOB_TYPE: ArgSpec = ArgSpec::opt(
    JOB_TYPE_FLAG,
    ArgKind::Str,
    "Job type (case-sensitive); default from the item's type",
);
pub(super) const PARAMETERS: ArgSpec = ArgSpec::opt(
    "parameters",
    ArgKind::Json,
    "Run parameters: {\"name\": value} or [{\"name\", \"type\", \"value\"}], inline or @file",
);
pub(super) const EXECUTION_DATA: ArgSpec = ArgSpec::opt(
    "execution-data",
    ArgKind::Json,
    "The job type's execution data (an object), inline or @file",
);
pub(super) const NO_WAIT: ArgSpec = ArgSpec::opt(
    "no-wait",
    ArgKind::Bool,
    "Return once the run is started, with its id, instead of following it to its end",
);
// Waiting is the default; the switch stays for the command lines that spell it.
pub(super) const WAIT: ArgSpec = ArgSpec::opt(
    "wait",
    ArgKind::Bool,
    "Follow the run until it ends (the default)",
);
pub(super) const TIMEOUT: ArgSpec = ArgSpec::opt(
    "timeout",
    ArgKind::Int,
    "Stop waiting after this many seconds (exit 10)",
)
.range(1, 7 * 24 * 3600);
pub(super) const CANCEL_ON_TIMEOUT: ArgSpec = ArgSpec::opt(
    "cancel-on-timeout",
    ArgKind::Bool,
    "With --timeout: cancel the run when the time runs out",
);

/// Columns of a run in tables.
const RUN_COLUMNS: &[&str] = &[
    "id",
    "jobType",
    "status",
    "startTimeUtc",
    "endTimeUtc",
    "duration",
    "failureReason.message",
];

/// The job commands.
pub static COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        group: "job",
        name: "run",
        summary: "Run an item's job on demand (a notebook, pipeline, Spark job, table maintenance) and wait for it to end",
        about: "The job type follows the item's type unless --job-type names one: Notebook → RunNotebook, DataPipeline → Pipeline, SparkJobDefinition → sparkjob, Lakehouse → TableMaintenance (job types are case-sensitive). --parameters takes {\"name\": value, ...} (each typed from its JSON value: Text, Boolean, Integer, Number) or the service's own list [{\"name\", \"type\", \"value\"}]; --execution-data is the job type's fixed settings. It follows the run to its end, as fab's `job run` does (--no-wait returns once it is started, with its id and the command that follows it), polling as the service's Retry-After says: exit 0 when it Completed, exit 9 when it Failed or was Cancelled (the failure reason is printed), exit 10 when --timeout passed first (the run is left running and its id printed, or cancelled with --cancel-on-timeout). Ctrl-C while waiting asks on a terminal whether to cancel the run; elsewhere it leaves the run running and says so; a SIGTERM (a cancelled CI job) leaves it running, names it and exits 143, and a wait the endpoint stops answering names the run too. Local Fabric follows a run's lifecycle but executes no code.",
        args: &[
            WORKSPACE,
            ITEM,
            JOB_TYPE,
            PARAMETERS,
            EXECUTION_DATA,
            NO_WAIT,
            WAIT,
            TIMEOUT,
            CANCEL_ON_TIMEOUT,
        ],
        traits: Traits::MUTATE,
        columns: RUN_COLUMNS,
        examples: &[
            Example {
                command: "job run Demo/Welcome",
                about: "run a notebook and wait for it to finish",
            },
            Example {
                command: "job run Demo/Welcome --parameters '{\"region\": \"west\", \"limit\": 10}' --timeout 600 --cancel-on-timeout",
                about: "with parameters, giving up (and cancelling) after ten minutes",
            },
            Example {
                command: "job run -w Demo --id SalesLakehouse --execution-data @maintenance.json --no-wait",
                about: "a lakehouse's table maintenance, without waiting",
            },
        ],
        handler: Handler::Data(handler::<run::Run>),
    },
    CommandSpec {
        group: "job",
        name: "list",
        summary: "List an item's runs, newest first",
        about: "Each with its status, start and end (UTC), duration in seconds and failure reason. The service keeps about the 100 most recent finished runs of an item.",
        args: &[WORKSPACE, ITEM],
        traits: Traits::LIST,
        columns: RUN_COLUMNS,
        examples: &[Example {
            command: "job list Demo/Welcome",
            about: "the notebook's recent runs",
        }],
        handler: Handler::Data(handler::<instances::List>),
    },
    CommandSpec {
        group: "job",
        name: "show",
        summary: "Show one run of an item",
        about: "",
        args: &[WORKSPACE, ITEM, INSTANCE],
        traits: Traits::READ,
        columns: RUN_COLUMNS,
        examples: &[Example {
            command: "job show Demo/Welcome --instance \"$JOB_RUN_ID\" -q status",
            about: "the run's status",
        }],
        handler: Handler::Data(handler::<instances::Show>),
    },
    CommandSpec {
        group: "job",
        name: "cancel",
        summary: "Cancel a run that has not ended",
        about: "Stops the run (its work so far is not undone); a run that already ended is refused by the service (JobAlreadyCompleted). Asks for confirmation on a terminal unless --yes. Prints the run afterwards.",
        args: &[WORKSPACE, ITEM, INSTANCE],
        traits: Traits::DESTRUCTIVE,
        columns: RUN_COLUMNS,
        examples: &[Example {
            command: "job cancel Demo/Welcome --instance \"$JOB_RUN_ID\" --yes",
            about: "cancel without asking",
        }],
        handler: Handler::Data(handler::<instances::Cancel>),
    },
];
