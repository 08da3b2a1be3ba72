//! `deploy plan | apply | export`: a workspace from a git folder in Fabric's git layout, with
//! fabric-cicd's config.yml and parameter.yml. The repository is read and parameterised by
//! the pure `fabsh-deploy` crate; these handlers fetch the workspace's state and carry the
//! plan out.

mod after;
mod apply;
mod consent;
mod export;
mod flags;
mod plan;
mod promote;
mod report;
mod saved;
mod state;

use super::spec::{ArgKind, ArgSpec, CommandSpec, Example, Handler, LocalPath, Traits};
use super::typed::handler;
use crate::context::Ctx;
use crate::error::{Error, Result};
use fabsh_deploy::plan::Repository;
use futures::StreamExt;
use futures::future::BoxFuture;

const DIR: ArgSpec = ArgSpec::positional(
    "dir",
    ArgKind::Str,
    "The repository directory: one <name>.<Type> folder per item (default: the config's core.repository_directory)",
)
.optional()
.value_name("DIR")
.local(LocalPath::ReadDir);
const WORKSPACE: ArgSpec = ArgSpec::opt(
    "workspace",
    ArgKind::Ref,
    "Target workspace id or display name (default: the config's core.workspace_id or core.workspace)",
)
.short('w');
pub const ENVIRONMENT: ArgSpec = ArgSpec::opt(
    "environment",
    ArgKind::Str,
    "The environment: picks the config's values and parameter.yml's replace_value entries (PPE, PROD, ...)",
)
.value_name("ENV");
pub const CONFIG: ArgSpec = ArgSpec::opt(
    "config",
    ArgKind::Str,
    "fabric-cicd's config.yml (workspace, repository_directory, item_types_in_scope, parameter, publish/unpublish)",
)
.value_name("FILE")
.local(LocalPath::ReadFile);
const DELETE_ORPHANS: ArgSpec = ArgSpec::opt(
    "delete-orphans",
    ArgKind::Bool,
    "Delete the workspace's items of types in scope that the repository does not hold, but those unpublish.exclude_regex keeps and protected types (that hold data) not opted in",
)
// On apply it deletes items: an MCP server carries it out only with --allow-destructive,
// and at a terminal apply asks once it knows which.
.destructive()
.confirmed_by_command();
const DELETE_TYPE: ArgSpec = ArgSpec::opt(
    "delete-type",
    ArgKind::List,
    "With --delete-orphans, also delete orphans of these protected types (comma-separated: Lakehouse, Warehouse, SQLDatabase, Eventhouse, KQLDatabase, MirroredDatabase, CosmosDBDatabase, SnowflakeDatabase, WarehouseSnapshot, MLExperiment, MLModel), as config.yml's features enable_<type>_unpublish do",
)
.value_name("TYPE");
const MAX_DELETES: ArgSpec = ArgSpec::opt(
    "max-deletes",
    ArgKind::Int,
    "The most orphans a plan deletes without --allow-mass-delete (default 10)",
)
.value_name("N")
.range(0, i64::MAX);
const ALLOW_MASS_DELETE: ArgSpec = ArgSpec::opt(
    "allow-mass-delete",
    ArgKind::Bool,
    "Let the plan delete more than --max-deletes orphans, or every item of the workspace",
);
const ENV_VARS: ArgSpec = ArgSpec::opt(
    "env-vars",
    ArgKind::List,
    "Let parameter.yml's $ENV:NAME read these environment variables and no other (comma-separated names); without it none is read, unless config.yml's features list enable_environment_variable_replacement (then any it names). Values are deployed, never shown",
)
.value_name("NAME");
const TYPES: ArgSpec = ArgSpec::opt(
    "types",
    ArgKind::List,
    "Deploy only items of these types (comma-separated; replaces config.yml's core.item_types_in_scope). Orphans are looked for among these types only",
)
.value_name("TYPE");
const ITEMS: ArgSpec = ArgSpec::opt(
    "items",
    ArgKind::List,
    "Deploy only these items: Name.Type (any case) or a display name, comma-separated (replaces config.yml's publish.items_to_include). References to items left out go to the target's items of their names",
)
.value_name("ITEM");
const EXCLUDE: ArgSpec = ArgSpec::opt(
    "exclude",
    ArgKind::Str,
    "Leave out items whose Name.Type this regex finds (besides config.yml's publish.exclude_regex, which is matched against names). Those left out are no orphans",
)
.value_name("REGEX");
const DIFF: ArgSpec = ArgSpec::opt(
    "diff",
    ArgKind::Bool,
    "Add a unified diff of every changed part (base64 parts decoded where they are text)",
);

const OUT: ArgSpec = ArgSpec::opt(
    "out",
    ArgKind::Str,
    "Also save the plan to this file (readable by you only) for deploy apply --plan: every row and what it was computed from, no token and no $ENV value",
)
.value_name("FILE")
.local(LocalPath::WriteFile);
const PLAN: ArgSpec = ArgSpec::opt(
    "plan",
    ArgKind::Str,
    "Apply exactly this plan, saved by deploy plan --out, instead of planning: refused (exit 2, naming the first item that changed) when the repository or the workspace moved since",
)
.value_name("FILE")
.local(LocalPath::ReadFile);

const CONCURRENCY: ArgSpec = ArgSpec::opt(
    "concurrency",
    ArgKind::Int,
    "How many items of one level are written at once (1 to 64)",
)
.range(1, 64)
.default("32");
const PUBLISH_AGENTS: ArgSpec = ArgSpec::opt(
    "publish-agents",
    ArgKind::Bool,
    "Publish every data agent of the repository after deploying it",
);

const EXPORT_WORKSPACE: ArgSpec =
    ArgSpec::req("workspace", ArgKind::Ref, "Workspace id or display name").short('w');
const EXPORT_DIR: ArgSpec = ArgSpec::positional(
    "dir",
    ArgKind::Str,
    "A new or empty folder to write the repository into",
)
.value_name("DIR")
.local(LocalPath::WriteDir);

/// The exit code of `deploy plan` when apply would change something.
pub const CHANGES_PENDING_EXIT: u8 = 8;

/// The deploy commands.
pub static COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        group: "deploy",
        name: "plan",
        summary: "What deploy apply would do, item by item (--out saves it for apply --plan); with no workspace, validate the repository offline",
        about: "Reads the repository (item folders with .platform, sub-folders as workspace folders, an Eventhouse's .children), parameterises each item for the target (parameter.yml: find_replace, key_value_replace, spark_pool, $items/$workspace/$ENV variables; logical ids become the target's item ids) and compares it with the workspace on normalised parts. A folder that is not a repository is refused before any request (exit 2): one with no <name>.<Type> folder holding a .platform under it (a home directory, a folder with a README), one item's own folder, a config's repository_directory that does not exist. Each item is create, update, move, unchanged, orphan (in the workspace only, kept) or delete (an orphan apply deletes, with --delete-orphans); rows come by dependency level, then action in that order, then folder and name. An item's .schedules is compared with the schedules the job scheduler lists for it; a lakehouse's shortcut missing or different, an environment never published (or whose last publish failed) and a semantic model not bound to the connection semantic_model_binding gives it are changes too. Types that hold data (Lakehouse, Warehouse, SQLDatabase, Eventhouse, KQLDatabase, MirroredDatabase, CosmosDBDatabase, SnowflakeDatabase, WarehouseSnapshot, MLExperiment, MLModel) are deleted as orphans only when opted in, each by --delete-type or, as fabric-cicd does, by config.yml's features (enable_lakehouse_unpublish, enable_warehouse_unpublish, enable_sqldatabase_unpublish, enable_eventhouse_unpublish, enable_kqldatabase_unpublish): otherwise the row is an orphan whose changes say why it is kept. A plan that deletes every item of the workspace, or more than --max-deletes (10), is refused (exit 2, naming the count) unless --allow-mass-delete. Problems (definition checks as validate-definition, rules that match nothing, $items naming an item of neither the repository nor the target workspace, whose own items it may name as fabric-cicd allows) are listed with their severity; an --environment that parameter.yml or config.yml does not know is warned of, naming those they know. The scope is fabric-cicd's: --types (or core.item_types_in_scope), --items (or publish.items_to_include), --exclude besides publish.exclude_regex and publish.folder_exclude_regex; an item left out is no orphan, and a reference to it (a logical id, a report's model) is to the target's item of its name. The repository is read only under its real path: a link that leads out of it is refused by name before any request (exit 2), a link inside is followed (each folder once), only regular files are read, and a part or an item's files over 96 MiB (what one definition request holds), or a repository over 1 GiB or 100,000 files and folders, is refused; so is a parameter rule whose output would make a part pass 96 MiB (an error naming the rule, the file and the limit). $ENV:NAME reads an environment variable only when allowed (--env-vars, or enable_environment_variable_replacement in config.yml's features), else it is an error; its value is never shown: a diff shows $ENV:NAME where it goes. --diff adds each changed part's unified diff to the rows, and a table shows them after its rows, whole. --out FILE saves the plan for deploy apply --plan, readable by you only: every row with its reason, SHA-256 digests of what it was computed from (each item's content after parameterisation, with $ENV:NAME for a value; each workspace item's state it was compared with), the workspace and the endpoint; no token and no value. Without a workspace the repository is validated and compared with nothing, as a note says. Exit codes: 0 nothing to change, 8 changes pending (as terraform plan -detailed-exitcode; scripts and tools get the plan, with pending: true), 2 the plan has errors.",
        args: &[
            DIR,
            WORKSPACE,
            ENVIRONMENT,
            CONFIG,
            ENV_VARS,
            TYPES,
            ITEMS,
            EXCLUDE,
            DIFF,
            DELETE_ORPHANS,
            DELETE_TYPE,
            MAX_DELETES,
            ALLOW_MASS_DELETE,
            OUT,
        ],
        traits: Traits::READ,
        columns: &[
            "action",
            "type",
            "displayName",
            "folder",
            "level",
            "changes",
        ],
        examples: &[
            Example {
                command: "deploy plan ./workspace",
                about: "validate the repository, no workspace needed",
            },
            Example {
                command: "deploy plan --config deploy.yml -w Release --environment PROD --diff",
                about: "what apply would change in Release, with diffs (exit 8 when something would)",
            },
            Example {
                command: "deploy plan --config deploy.yml -w Release --environment PROD --delete-orphans --out release.plan",
                about: "save the plan, deletions included, to review and then apply as it is",
            },
        ],
        handler: Handler::Data(handler::<plan::DeployPlan>),
    },
    CommandSpec {
        group: "deploy",
        name: "apply",
        summary: "Deploy the repository, or a saved plan, to a workspace: create, update, move (and delete orphans with --delete-orphans)",
        about: "Carries out deploy plan: folders first, then items by dependency level (what an item refers to is deployed before it), the items of one level concurrently, then the orphans to delete. Unchanged items are not written. An environment created or updated is published; a lakehouse gets the shortcuts of its shortcuts.metadata.json it lacks; an item's .schedules is deployed through the job scheduler (per job type, the n-th schedule updated when it differs, created when missing; `Execute` is a pipeline's `Pipeline` job type); a semantic model is bound to the connection parameter.yml's semantic_model_binding gives it for the environment, unless it already uses it (a connection the caller cannot see is noted, not bound). Each item reports its outcome: created, updated, moved, unchanged, deleted, kept, failed or not_started (an earlier level failed); one line on stderr sums them up (created, updated, moved, deleted, unchanged, follow-ups done, failed), and the JSON's summary holds the same counts. Exits 5 when some item failed; running the same command again finishes the job without duplicates (items pair by type and name, creates go through the exactly-once path). --publish-agents publishes every deployed data agent afterwards. The repository is read as deploy plan reads it, and what deploy plan refuses (a folder that is not a repository, a plan deleting too much) apply refuses before writing anything; a $ENV:NAME not allowed (--env-vars) is refused before any request, and a dry run shows $ENV:NAME where a value would be sent. --delete-orphans deletes what the plan marks delete (protected types only with --delete-type or their features flag): at a terminal apply asks once the plan is made, listing the items it deletes (name, type, folder; the first 20 and a count); off a terminal it needs --yes. --plan FILE applies exactly a plan saved by deploy plan --out, without planning again: give the same DIR or --config and --environment (-w may be left out); the workspace is read again and the plan is refused (exit 2, naming the first item that changed) when the repository or the workspace moved since; a plan that deletes needs --delete-orphans too.",
        args: &[
            DIR,
            WORKSPACE,
            ENVIRONMENT,
            CONFIG,
            ENV_VARS,
            TYPES,
            ITEMS,
            EXCLUDE,
            DELETE_ORPHANS,
            DELETE_TYPE,
            MAX_DELETES,
            ALLOW_MASS_DELETE,
            PLAN,
            CONCURRENCY,
            PUBLISH_AGENTS,
        ],
        traits: Traits::MUTATE,
        columns: &["type", "displayName", "outcome", "level", "id", "error"],
        examples: &[
            Example {
                command: "deploy apply --config deploy.yml -w Staging --environment PROD",
                about: "deploy with PROD's parameters, leaving orphans in place",
            },
            Example {
                command: "deploy apply --config deploy.yml -w Release --environment PROD --delete-orphans --yes",
                about: "deploy and delete what the repository no longer holds",
            },
            Example {
                command: "deploy apply --config deploy.yml --environment PROD --plan release.plan --delete-orphans --yes",
                about: "apply exactly the saved plan, refused if the repository or the workspace moved since",
            },
            Example {
                command: "deploy apply --config deploy.yml -w Sales --environment PROD --dry-run",
                about: "every request apply would send, nothing changed",
            },
        ],
        handler: Handler::Data(handler::<apply::DeployApply>),
    },
    CommandSpec {
        group: "deploy",
        name: "export",
        summary: "Write a workspace's items as a repository: folders as sub-folders, one <name>.<Type> folder per item",
        about: "The layout deploy apply reads. Each .platform carries the item's logical id, or, when the service gives none (the all-zero GUID), the item's id; references to the workspace's own items are written as the git format writes them, so they deploy to another workspace as references to its items: an item's id in other items' parts becomes its logical id, the workspace's id under a workspace-id key (workspaceId, default_lakehouse_workspace_id) the all-zero GUID, its name in a Power BI connection string its id, and where its id is left, a parameter.yml written beside the items makes it the target's ($workspace.id). export, apply to an empty workspace, then plan reports nothing to do. The folder must be new or empty.",
        args: &[EXPORT_WORKSPACE, EXPORT_DIR],
        traits: Traits::READ,
        columns: &["type", "displayName", "path"],
        examples: &[Example {
            command: "deploy export -w Release ./release",
            about: "a repository of the workspace",
        }],
        handler: Handler::Data(handler::<export::DeployExport>),
    },
    CommandSpec {
        group: "deploy",
        name: "promote",
        summary: "Deploy to a test workspace, load its data, evaluate its data agents there, and only then deploy to production",
        about: "Runs the stdlib's promote::run. 1. deploy apply DIR to --test (with --test-environment) and publish its data agents. 2. Prepare test's data, since a repository carries its lakehouses' definitions but not their data: the prepare steps of the promotion file (--prepare FILE, else promote.yml beside --config, else in DIR), in order: `load_table: {lakehouse, table, from_local, mode?, format?, header?, delimiter?}` loads a file of this machine into a lakehouse table (as lakehouse load-table --from-local, through the lakehouse's Files/promote/, replaced on each run; from_local is relative to the promotion file and read only under its folder, links followed), `job: {item, job_type?, timeout?}` runs an item's job and waits for it (as job run). 3. Evaluate every data agent of the test deploy against --questions (as data-agent evaluate --fail-on-regression), each against --baseline (default latest: the agent's last recorded run in the test workspace, else the same agent's elsewhere, matched by its repository logical id then its name; with none at all it runs without one, records the run and says so), and --min-pass-rate when given. 4. Only when every agent passed: deploy apply to --prod (with --prod-environment) and publish its data agents. A step that fails stops the promotion before production is touched (every agent is still evaluated, so the report shows them all). The reply is a row per step (step, target, status: done, failed, skipped or planned, detail) with both deploys' reports and each agent's evaluation; --junit FILE writes the evaluations as JUnit XML, a testsuite per agent (also when the promotion stopped). Everything read is checked before the first request (exit 2): the repository for both environments, the questions, the promotion file and its files, --junit's folder (an existing file only with --force). --dry-run lists the steps: both deploys as dry runs, the preparation and evaluations as planned. Exit codes: 5 a deploy left items undeployed, 9 a preparation job failed, 6 a pass rate below --min-pass-rate, 7 a regression against the baseline, 1 an evaluation that could not grade its runs.",
        args: &[
            DIR,
            CONFIG,
            promote::TEST,
            promote::PROD,
            crate::commands::data_agent::evaluate_flags::QUESTIONS,
            promote::TEST_ENVIRONMENT,
            promote::PROD_ENVIRONMENT,
            ENV_VARS,
            promote::PREPARE,
            crate::commands::data_agent::evaluate_flags::BASELINE,
            crate::commands::data_agent::evaluate_flags::MIN_PASS_RATE,
            crate::commands::data_agent::evaluate_flags::JUNIT,
            promote::FORCE,
        ],
        traits: Traits::MUTATE,
        columns: &["step", "target", "status", "detail"],
        examples: &[
            Example {
                command: "deploy promote ./workspace --test Staging --prod Release --questions questions.csv",
                about: "deploy to test, load its data (promote.yml), evaluate the agents, then deploy to production",
            },
            Example {
                command: "deploy promote --config deploy.yml --test Staging --test-environment PPE --prod Release --prod-environment PROD --questions questions.csv --min-pass-rate 0.9 --junit promotion.xml",
                about: "for CI: a pass-rate bar and a JUnit report",
            },
            Example {
                command: "deploy promote ./workspace --test Staging --prod Release --questions questions.csv --dry-run",
                about: "the steps, nothing changed",
            },
        ],
        handler: Handler::Data(handler::<promote::DeployPromote>),
    },
];

/// Runs `jobs` at most `limit` at a time; results in the order they finish. The jobs are
/// boxed before they meet the stream, so the handler's future stays `Send` for any lifetime
/// (a closure mapping to futures over borrowed data does not, in today's compiler).
async fn at_most<'a, T: Send + 'a>(jobs: Vec<BoxFuture<'a, T>>, limit: usize) -> Vec<T> {
    futures::stream::iter(jobs)
        .buffer_unordered(limit.max(1))
        .collect()
        .await
}

/// The target workspace's id: `-w` (`given`), else the config's workspace_id or workspace.
async fn target_workspace(
    ctx: Ctx,
    given: Option<&str>,
    repo: &Repository,
) -> Result<Option<String>> {
    let named = given
        .map(str::to_string)
        .or_else(|| repo.settings.workspace_id.clone())
        .or_else(|| repo.settings.workspace.clone());
    match named {
        Some(text) => {
            let id = ctx.workspace_id(&text).await;
            Ok(Some(id.map_err(|err| named_by_config(err, repo, &text))?))
        }
        None => Ok(None),
    }
}

/// A not-found error about `workspace` that says so when config.yml gave it (its
/// `core.workspace_id` or `core.workspace` for the environment): the person may not know
/// the id came from there, or which environment picked it.
pub(super) fn named_by_config(mut err: Error, repo: &Repository, workspace: &str) -> Error {
    let settings = &repo.settings;
    let key = if settings.workspace_id.as_deref() == Some(workspace) {
        "core.workspace_id"
    } else if settings.workspace_id.is_none() && settings.workspace.as_deref() == Some(workspace) {
        "core.workspace"
    } else {
        return err;
    };
    if !err.is_not_found() {
        return err;
    }
    let environment = match repo.environment.as_deref() {
        Some(env) => format!(" for environment {env:?}"),
        None => String::new(),
    };
    err.message = format!(
        "workspace {workspace}, config.yml's {key}{environment}, was not found: {}",
        err.message
    );
    err.with_hint("check config.yml's value (and --environment), or give the workspace with -w")
}
