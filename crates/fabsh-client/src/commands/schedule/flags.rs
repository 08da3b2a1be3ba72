//! From the schedule flags to a `ScheduleRequest`, every problem reported as a usage error
//! naming the flag that carries it (the model's checks name wire fields; this maps them).

use super::ScheduleFlags;
use crate::error::{Error, Result};
use fabsh_model::jobs::{
    ItemSchedule, ScheduleConfig, ScheduleKind, ScheduleRequest, Weekday, is_hh_mm, utc_seconds,
};

/// The flag that sets a configuration field.
fn flag_of(field: &str) -> &'static str {
    match field {
        "interval" => "--interval",
        "times" => "--times",
        "weekdays" => "--weekdays",
        "startDateTime" => "--start",
        "endDateTime" => "--end",
        "localTimeZoneId" => "--time-zone",
        _ => "--type",
    }
}

/// The first problem of a configuration, as a usage error naming its flag.
fn checked(config: &ScheduleConfig) -> Result<()> {
    match config.problems().into_iter().next() {
        Some(problem) => Err(Error::usage(format!(
            "{}: {}",
            flag_of(problem.field),
            problem.message
        ))),
        None => Ok(()),
    }
}

/// What the flags say, each checked on its own.
pub(super) struct Change {
    kind: Option<String>,
    interval: Option<i64>,
    times: Option<Vec<String>>,
    weekdays: Option<Vec<Weekday>>,
    start: Option<String>,
    end: Option<String>,
    time_zone: Option<String>,
    enabled: Option<bool>,
}

/// The schedule flags, each checked (formats and ranges) before anything is sent.
pub(super) fn change_of(flags: &ScheduleFlags) -> Result<Change> {
    let times = (!flags.times.is_empty()).then(|| flags.times.clone());
    for time in times.iter().flatten() {
        if !is_hh_mm(time) {
            return Err(Error::usage(format!(
                "--times: '{time}' is not a time as hh:mm (00:00-23:59)"
            )));
        }
    }
    let weekdays = match flags.weekdays.as_slice() {
        [] => None,
        days => Some(
            days.iter()
                .map(|day| {
                    Weekday::parse(day).ok_or_else(|| {
                        Error::usage(format!("--weekdays: '{day}' is not a day of the week"))
                            .with_hint("Monday..Sunday, or Mon..Sun")
                    })
                })
                .collect::<Result<Vec<_>>>()?,
        ),
    };
    for (flag, value) in [("--start", &flags.start), ("--end", &flags.end)] {
        if let Some(value) = value
            && utc_seconds(value).is_none()
        {
            return Err(Error::usage(format!(
                "{flag}: '{value}' is not a UTC time as YYYY-MM-DDTHH:mm:ssZ"
            )));
        }
    }
    let time_zone = flags.time_zone.as_deref().map(str::trim).map(String::from);
    if let Some(zone) = &time_zone
        && zone.contains('/')
    {
        return Err(Error::usage(format!(
            "--time-zone: '{zone}' looks like an IANA zone; the service takes Windows time zone ids"
        ))
        .with_hint("for example UTC, Central Standard Time, W. Europe Standard Time"));
    }
    Ok(Change {
        kind: flags.kind.clone(),
        interval: flags.interval,
        times,
        weekdays,
        start: flags.start.clone(),
        end: flags.end.clone(),
        time_zone,
        enabled: flags.enabled,
    })
}

/// A new schedule from the flags: `--type`, its fields, `--start` and `--end` are required.
pub(super) fn request_of(flags: &ScheduleFlags) -> Result<ScheduleRequest> {
    let change = change_of(flags)?;
    let kind = change
        .kind
        .clone()
        .ok_or_else(|| Error::usage("--type is required: Cron, Daily or Weekly"))?;
    let start = change
        .start
        .clone()
        .ok_or_else(|| Error::usage("--start is required (UTC, as 2025-01-31T08:00:00Z)"))?;
    let end = change
        .end
        .clone()
        .ok_or_else(|| Error::usage("--end is required (UTC, later than --start)"))?;
    let configuration = ScheduleConfig {
        kind: change.kind_of(&kind, None)?,
        start_date_time: start,
        end_date_time: end,
        local_time_zone_id: change.time_zone.clone().unwrap_or_else(|| "UTC".into()),
    };
    checked(&configuration)?;
    Ok(ScheduleRequest {
        enabled: change.enabled.unwrap_or(true),
        configuration,
        execution_data: None,
    })
}

impl Change {
    /// The kind-specific part for `kind`, from the flags, falling back to `current` when it
    /// is of the same kind (an update that changes only the times keeps the weekdays).
    fn kind_of(&self, kind: &str, current: Option<&ScheduleKind>) -> Result<ScheduleKind> {
        let missing = |flag: &str| Error::usage(format!("{flag} is required for --type {kind}"));
        let current_times = match current {
            Some(ScheduleKind::Daily { times } | ScheduleKind::Weekly { times, .. }) => {
                Some(times.clone())
            }
            _ => None,
        };
        let times = || {
            self.times
                .clone()
                .or_else(|| current_times.clone())
                .ok_or_else(|| missing("--times"))
        };
        let flagged_but_unused = |flag: &str, set: bool| {
            if set {
                Err(Error::usage(format!(
                    "{flag} does not apply to --type {kind}"
                )))
            } else {
                Ok(())
            }
        };
        Ok(match kind {
            "Cron" => {
                flagged_but_unused("--times", self.times.is_some())?;
                flagged_but_unused("--weekdays", self.weekdays.is_some())?;
                let interval = self
                    .interval
                    .or(match current {
                        Some(ScheduleKind::Cron { interval }) => Some(*interval),
                        _ => None,
                    })
                    .ok_or_else(|| missing("--interval"))?;
                ScheduleKind::Cron { interval }
            }
            "Daily" => {
                flagged_but_unused("--interval", self.interval.is_some())?;
                flagged_but_unused("--weekdays", self.weekdays.is_some())?;
                ScheduleKind::Daily { times: times()? }
            }
            "Weekly" => {
                flagged_but_unused("--interval", self.interval.is_some())?;
                let weekdays = self
                    .weekdays
                    .clone()
                    .or(match current {
                        Some(ScheduleKind::Weekly { weekdays, .. }) => Some(weekdays.clone()),
                        _ => None,
                    })
                    .ok_or_else(|| missing("--weekdays"))?;
                ScheduleKind::Weekly {
                    times: times()?,
                    weekdays,
                }
            }
            other => {
                return Err(Error::usage(format!(
                    "--type {other}: fabsh writes Cron, Daily and Weekly schedules"
                )));
            }
        })
    }

    /// The schedule `current` with the flags' changes, checked whole.
    pub(super) fn applied_to(&self, current: ItemSchedule) -> Result<ScheduleRequest> {
        let old = current.configuration;
        let current_kind = match &old.kind {
            ScheduleKind::Cron { .. } => "Cron",
            ScheduleKind::Daily { .. } => "Daily",
            ScheduleKind::Weekly { .. } => "Weekly",
            ScheduleKind::Monthly { .. } => "Monthly",
        };
        let touches_kind = self.kind.is_some()
            || self.interval.is_some()
            || self.times.is_some()
            || self.weekdays.is_some();
        let kind = match (&self.kind, touches_kind) {
            (Some(kind), _) => self.kind_of(kind, Some(&old.kind))?,
            (None, true) => self.kind_of(current_kind, Some(&old.kind))?,
            (None, false) => old.kind,
        };
        let configuration = ScheduleConfig {
            kind,
            start_date_time: self.start.clone().unwrap_or(old.start_date_time),
            end_date_time: self.end.clone().unwrap_or(old.end_date_time),
            local_time_zone_id: self.time_zone.clone().unwrap_or(old.local_time_zone_id),
        };
        checked(&configuration)?;
        Ok(ScheduleRequest {
            enabled: self.enabled.unwrap_or(current.enabled),
            configuration,
            execution_data: current.execution_data,
        })
    }
}
