//! When a schedule fires: the times its `ScheduleConfig` names between two instants, in
//! seconds since the Unix epoch. Cron fires every `interval` minutes from `startDateTime`;
//! Daily and Weekly at their `times` (on their `weekdays`) of each day, while the start and
//! end allow. Only zone-free schedules are computed: Cron, and Daily or Weekly in UTC (no time
//! zone database is bundled to place another zone's `hh:mm`); the rest fire nowhere.

use super::schedules::{ScheduleConfig, ScheduleKind, Weekday, utc_seconds};

const DAY: i64 = 86_400;

/// The Windows time zone ids of UTC itself.
fn is_utc(zone: &str) -> bool {
    matches!(
        zone.trim(),
        "UTC" | "Coordinated Universal Time" | "Etc/UTC" | "UTC+00:00"
    )
}

/// Seconds after midnight of an `hh:mm`.
fn time_of_day(text: &str) -> Option<i64> {
    let (hours, minutes) = text.split_once(':')?;
    Some(hours.parse::<i64>().ok()? * 3600 + minutes.parse::<i64>().ok()? * 60)
}

/// The weekday of a day counted from 1970-01-01 (a Thursday).
fn weekday_of(day: i64) -> Weekday {
    Weekday::ALL[usize::try_from((day + 3).rem_euclid(7)).unwrap_or(0)]
}

impl ScheduleConfig {
    /// Whether local Fabric can place this schedule's fire times (see the module).
    pub fn fires_locally(&self) -> bool {
        match self.kind {
            ScheduleKind::Cron { .. } => true,
            ScheduleKind::Daily { .. } | ScheduleKind::Weekly { .. } => {
                is_utc(&self.local_time_zone_id)
            }
            ScheduleKind::Monthly { .. } => false,
        }
    }

    /// The fire times after `after` up to and including `until`, oldest first, at most the
    /// `limit` latest of them (a server that was stopped does not owe every missed run).
    pub fn fires_between(&self, after: i64, until: i64, limit: usize) -> Vec<i64> {
        let (Some(start), Some(end)) = (
            utc_seconds(&self.start_date_time),
            utc_seconds(&self.end_date_time),
        ) else {
            return Vec::new();
        };
        // Whole seconds: fractions of a second are not a schedule's grain.
        let (start, end) = (start.ceil() as i64, end.floor() as i64);
        let (low, high) = (after.max(start - 1), until.min(end));
        if high <= low || limit == 0 || !self.fires_locally() {
            return Vec::new();
        }
        let mut fires: Vec<i64> = match &self.kind {
            ScheduleKind::Cron { interval } => {
                let period = interval.max(&1) * 60;
                // The first and last multiples of the period past `start` inside (low, high].
                let first = (low - start).div_euclid(period) + 1;
                let last = (high - start).div_euclid(period);
                let first = first.max(last - i64::try_from(limit).unwrap_or(i64::MAX) + 1);
                (first..=last).map(|k| start + k * period).collect()
            }
            ScheduleKind::Daily { times } => daily(times, None, low, high, limit),
            ScheduleKind::Weekly { times, weekdays } => {
                daily(times, Some(weekdays), low, high, limit)
            }
            ScheduleKind::Monthly { .. } => Vec::new(),
        };
        let excess = fires.len().saturating_sub(limit);
        fires.drain(..excess);
        fires
    }
}

/// The `times` of each day (of the `weekdays`, when given) inside (low, high], oldest first;
/// only the days that can hold the `limit` latest are visited.
fn daily(
    times: &[String],
    weekdays: Option<&Vec<Weekday>>,
    low: i64,
    high: i64,
    limit: usize,
) -> Vec<i64> {
    let mut offsets: Vec<i64> = times.iter().filter_map(|t| time_of_day(t)).collect();
    offsets.sort_unstable();
    offsets.dedup();
    if offsets.is_empty() {
        return Vec::new();
    }
    let last_day = high.div_euclid(DAY);
    // Each day holds at least one fire when it is a fire day, and one of every 7 days is.
    let reach = i64::try_from(limit)
        .unwrap_or(i64::MAX / 8)
        .saturating_mul(7)
        + 1;
    let first_day = low.div_euclid(DAY).max(last_day - reach);
    let mut fires = Vec::new();
    for day in first_day..=last_day {
        if weekdays.is_some_and(|days| !days.contains(&weekday_of(day))) {
            continue;
        }
        fires.extend(
            offsets
                .iter()
                .map(|offset| day * DAY + offset)
                .filter(|at| (low + 1..=high).contains(at)),
        );
    }
    fires
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(kind: ScheduleKind, zone: &str) -> ScheduleConfig {
        ScheduleConfig {
            kind,
            start_date_time: "2024-01-01T00:00:00Z".into(),
            end_date_time: "2024-12-31T23:59:00Z".into(),
            local_time_zone_id: zone.into(),
        }
    }

    fn at(text: &str) -> i64 {
        utc_seconds(text).expect("a time") as i64
    }

    #[test]
    fn cron_fires_every_interval_from_the_start() {
        let cron = config(ScheduleKind::Cron { interval: 10 }, "Central Standard Time");
        let fires = cron.fires_between(at("2024-03-01T00:05:00"), at("2024-03-01T00:30:00"), 10);
        assert_eq!(
            fires,
            [
                at("2024-03-01T00:10:00"),
                at("2024-03-01T00:20:00"),
                at("2024-03-01T00:30:00")
            ]
        );
        // The start itself fires; the latest ones are kept past the limit; none past the end.
        let first = cron.fires_between(0, at("2024-01-01T00:00:00"), 10);
        assert_eq!(first, [at("2024-01-01T00:00:00")]);
        let limited = cron.fires_between(0, at("2024-01-01T01:00:00"), 2);
        assert_eq!(
            limited,
            [at("2024-01-01T00:50:00"), at("2024-01-01T01:00:00")]
        );
        assert!(
            cron.fires_between(at("2025-01-01T00:00:00"), at("2025-02-01T00:00:00"), 9)
                .is_empty()
        );
    }

    #[test]
    fn daily_and_weekly_fire_at_their_times_in_utc_only() {
        let daily = config(
            ScheduleKind::Daily {
                times: vec!["18:00".into(), "06:30".into()],
            },
            "UTC",
        );
        let fires = daily.fires_between(at("2024-03-01T07:00:00"), at("2024-03-02T07:00:00"), 10);
        assert_eq!(
            fires,
            [at("2024-03-01T18:00:00"), at("2024-03-02T06:30:00")]
        );
        // 2024-03-04 is a Monday.
        let weekly = config(
            ScheduleKind::Weekly {
                times: vec!["09:00".into()],
                weekdays: vec![Weekday::Monday],
            },
            "UTC",
        );
        let fires = weekly.fires_between(at("2024-03-01T00:00:00"), at("2024-03-12T00:00:00"), 10);
        assert_eq!(
            fires,
            [at("2024-03-04T09:00:00"), at("2024-03-11T09:00:00")]
        );
        let elsewhere = config(
            ScheduleKind::Daily {
                times: vec!["06:30".into()],
            },
            "Pacific Standard Time",
        );
        assert!(!elsewhere.fires_locally());
        assert!(
            elsewhere
                .fires_between(0, at("2024-06-01T00:00:00"), 10)
                .is_empty()
        );
    }
}
