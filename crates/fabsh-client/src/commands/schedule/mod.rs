//! The `schedule` group: when an item's job runs by itself (swagger `JobScheduler_*Schedule*`).
//! Every flag is checked against the swagger's limits before anything is sent; an update
//! reads the schedule, changes what the flags name, and sends the whole of it back (the
//! service's PATCH wants `enabled` and the complete `configuration`).

mod flags;

use super::common::{self, ITEM, WORKSPACE};
use super::job::JOB_TYPE_FLAG;
use super::spec::{ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits};
use super::typed::{Command, ItemTarget, Paging, handler, typed_args};
use crate::context::Ctx;
use crate::error::Result;
use crate::reply::Reply;
use fabsh_api::api::jobs;
use flags::{Change, change_of, request_of};

const JOB_TYPE: ArgSpec = ArgSpec::opt(
    JOB_TYPE_FLAG,
    ArgKind::Str,
    "Job type the schedule starts (case-sensitive); default from the item's type",
);
const SCHEDULE_ID: ArgSpec = ArgSpec::req(
    "schedule",
    ArgKind::UuidPrefix,
    "The schedule's id, or its first 8 characters or more as a narrow table shows them",
);
const KIND: ArgSpec = ArgSpec::opt(
    "type",
    ArgKind::Enum(&["Cron", "Daily", "Weekly"]),
    "Cron: every --interval minutes; Daily: at --times; Weekly: at --times on --weekdays",
);
const INTERVAL: ArgSpec = ArgSpec::opt(
    "interval",
    ArgKind::Int,
    "Cron: minutes between runs (1 to 5270400)",
)
.range(1, fabsh_model::jobs::MAX_INTERVAL);
const TIMES: ArgSpec = ArgSpec::opt(
    "times",
    ArgKind::List,
    "Daily and Weekly: times of day as hh:mm, comma-separated (1 to 100)",
);
const WEEKDAYS: ArgSpec = ArgSpec::opt(
    "weekdays",
    ArgKind::List,
    "Weekly: days, comma-separated (Monday or Mon, ...)",
);
const START: ArgSpec = ArgSpec::opt(
    "start",
    ArgKind::Str,
    "First moment the schedule applies, UTC, as 2025-01-31T08:00:00Z",
);
const END: ArgSpec = ArgSpec::opt(
    "end",
    ArgKind::Str,
    "Last moment the schedule applies, UTC, later than --start",
);
const TIME_ZONE: ArgSpec = ArgSpec::opt(
    "time-zone",
    ArgKind::Str,
    "Windows time zone id the times are in (UTC, Central Standard Time, W. Europe Standard Time)",
);
const ENABLED: ArgSpec = ArgSpec::opt(
    "enabled",
    ArgKind::Bool,
    "Whether the schedule starts runs (default true on create)",
);

/// Columns of a schedule in tables.
const COLUMNS: &[&str] = &[
    "id",
    "enabled",
    "configuration.type",
    "configuration.interval",
    "configuration.times",
    "configuration.weekdays",
    "configuration.localTimeZoneId",
    "configuration.endDateTime",
];

/// The schedule commands.
pub static COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        group: "schedule",
        name: "list",
        summary: "List an item's schedules of one job type",
        about: "",
        args: &[WORKSPACE, ITEM, JOB_TYPE],
        traits: Traits::LIST,
        columns: COLUMNS,
        examples: &[Example {
            command: "schedule list Demo/Welcome",
            about: "when the notebook runs by itself",
        }],
        handler: Handler::Data(handler::<List>),
    },
    CommandSpec {
        group: "schedule",
        name: "show",
        summary: "Show one schedule",
        about: "",
        args: &[WORKSPACE, ITEM, JOB_TYPE, SCHEDULE_ID],
        traits: Traits::READ,
        columns: COLUMNS,
        examples: &[Example {
            command: "schedule show Demo/Welcome --schedule \"$SCHEDULE_ID\"",
            about: "one schedule",
        }],
        handler: Handler::Data(handler::<Show>),
    },
    CommandSpec {
        group: "schedule",
        name: "create",
        summary: "Schedule an item's job: every N minutes (Cron), daily or weekly at set times",
        about: "Needs --type, its own fields (--interval for Cron; --times for Daily; --times and --weekdays for Weekly), --start and --end (UTC). Times are in --time-zone (a Windows time zone id, default UTC). Everything is checked before anything is sent. An item has at most 20 schedules.",
        args: &[
            WORKSPACE, ITEM, JOB_TYPE, KIND, INTERVAL, TIMES, WEEKDAYS, START, END, TIME_ZONE,
            ENABLED,
        ],
        traits: Traits::MUTATE,
        columns: COLUMNS,
        examples: &[
            Example {
                command: "schedule create Demo/Welcome --type Cron --interval 60 --start 2025-01-01T00:00:00Z --end 2025-12-31T23:59:00Z",
                about: "every hour during 2025",
            },
            Example {
                command: "schedule create Demo/Welcome --type Weekly --weekdays Mon,Thu --times 07:30 --time-zone \"W. Europe Standard Time\" --start 2025-01-01T00:00:00Z --end 2026-01-01T00:00:00Z",
                about: "twice a week, Paris time",
            },
        ],
        handler: Handler::Data(handler::<Create>),
    },
    CommandSpec {
        group: "schedule",
        name: "update",
        summary: "Change a schedule: its kind, times, dates, time zone, or whether it is enabled",
        about: "Reads the schedule and changes only what the flags name; changing --type needs that kind's fields. The flags are checked before anything is sent, the whole result again before it is written.",
        args: &[
            WORKSPACE,
            ITEM,
            JOB_TYPE,
            SCHEDULE_ID,
            KIND,
            INTERVAL,
            TIMES,
            WEEKDAYS,
            START,
            END,
            TIME_ZONE,
            ENABLED,
        ],
        traits: Traits::MUTATE,
        columns: COLUMNS,
        examples: &[Example {
            command: "schedule update Demo/Welcome --schedule \"$SCHEDULE_ID\" --enabled false",
            about: "pause a schedule",
        }],
        handler: Handler::Data(handler::<Update>),
    },
    CommandSpec {
        group: "schedule",
        name: "delete",
        summary: "Delete a schedule",
        about: "Asks for confirmation on a terminal unless --yes.",
        args: &[WORKSPACE, ITEM, JOB_TYPE, SCHEDULE_ID],
        traits: Traits::DESTRUCTIVE.void(),
        columns: &[],
        examples: &[Example {
            command: "schedule delete Demo/Welcome --schedule \"$SCHEDULE_ID\" --yes",
            about: "delete without asking",
        }],
        handler: Handler::Data(handler::<Delete>),
    },
];

typed_args! {
    /// Which schedules: the item's, of one job type (`--job-type`, default by the item's type).
    struct Schedules {
        target: ItemTarget,
        job_type: Option<String> = JOB_TYPE,
    }
}

impl Schedules {
    /// The workspace's and the item's ids, and the job type.
    async fn resolve(&self, ctx: &Ctx) -> Result<(String, String, String)> {
        let (workspace, item) = self.target.resolve(ctx).await?;
        let job_type =
            super::job::job_type(ctx, self.job_type.as_deref(), &workspace, &item).await?;
        Ok((workspace, item, job_type))
    }
}

typed_args! {
    /// What the flags say of a schedule's configuration and state.
    struct ScheduleFlags {
        kind: Option<String> = KIND,
        interval: Option<i64> = INTERVAL,
        times: Vec<String> = TIMES,
        weekdays: Vec<String> = WEEKDAYS,
        start: Option<String> = START,
        end: Option<String> = END,
        time_zone: Option<String> = TIME_ZONE,
        enabled: Option<bool> = ENABLED,
    }
}

typed_args! {
    /// `schedule list`.
    struct List {
        schedules: Schedules,
        paging: Paging,
    }
}

typed_args! {
    /// One schedule of an item.
    struct One {
        schedules: Schedules,
        schedule: String = SCHEDULE_ID,
    }
}

typed_args! {
    /// `schedule create`.
    struct Create {
        schedules: Schedules,
        flags: ScheduleFlags,
    }
}

typed_args! {
    /// `schedule update`.
    struct Update {
        one: One,
        flags: ScheduleFlags,
    }
}

impl One {
    /// The workspace, item and job type, and the whole id of the schedule `--schedule` names
    /// (a whole id, or the beginning of one of the item's schedules of the job type).
    async fn resolve(&self, ctx: &Ctx) -> Result<(String, String, String, String)> {
        let (workspace, item, job_type) = self.schedules.resolve(ctx).await?;
        let schedules = async {
            let listed = jobs::list_schedules(ctx.api(), &workspace, &item, &job_type).await?;
            Ok(listed.into_iter().map(|schedule| schedule.id).collect())
        };
        let id = common::id_beginning(
            &self.schedule,
            schedules,
            "schedule",
            "fabsh schedule list WORKSPACE/ITEM",
        )
        .await?;
        Ok((workspace, item, job_type, id))
    }
}

impl Command for List {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let (workspace, item, job_type) = self.schedules.resolve(&ctx).await?;
            let req = jobs::schedules_req(&workspace, &item, &job_type);
            common::paged_by(ctx.api(), req, &self.paging).await
        })
    }
}

typed_args! {
    /// `schedule show`.
    struct Show {
        one: One,
    }
}

impl Command for Show {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let (workspace, item, job_type, id) = self.one.resolve(&ctx).await?;
            let schedule = jobs::get_schedule(ctx.api(), &workspace, &item, &job_type, &id).await?;
            Ok(Reply::json(serde_json::to_value(schedule)?))
        })
    }
}

impl Command for Create {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let request = request_of(&self.flags)?;
            let (workspace, item, job_type) = self.schedules.resolve(&ctx).await?;
            let created =
                jobs::create_schedule(ctx.api(), &workspace, &item, &job_type, &request).await?;
            Ok(Reply::json(serde_json::to_value(created)?))
        })
    }
}

impl Command for Update {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let change: Change = change_of(&self.flags)?;
            let (workspace, item, job_type, id) = self.one.resolve(&ctx).await?;
            let current = jobs::get_schedule(ctx.api(), &workspace, &item, &job_type, &id).await?;
            let request = change.applied_to(current)?;
            let updated =
                jobs::update_schedule(ctx.api(), &workspace, &item, &job_type, &id, &request)
                    .await?;
            Ok(Reply::json(serde_json::to_value(updated)?))
        })
    }
}

typed_args! {
    /// `schedule delete`.
    struct Delete {
        one: One,
    }
}

impl Command for Delete {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let (workspace, item, job_type, id) = self.one.resolve(&ctx).await?;
            jobs::delete_schedule(ctx.api(), &workspace, &item, &job_type, &id).await?;
            Ok(Reply::done(format!("deleted schedule {id}")))
        })
    }
}
