//! Item schedules (swagger `ItemSchedule`, `CreateScheduleRequest`, `ScheduleConfig` and its
//! Cron/Daily/Weekly/Monthly kinds in `common/job_scheduling.json`) and the checks both
//! fabsh and local Fabric apply to one before it is sent or stored.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `DayOfWeek`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Weekday {
    Monday,
    Tuesday,
    Wednesday,
    Thursday,
    Friday,
    Saturday,
    Sunday,
}

impl Weekday {
    /// Every day, Monday first.
    pub const ALL: [Weekday; 7] = [
        Weekday::Monday,
        Weekday::Tuesday,
        Weekday::Wednesday,
        Weekday::Thursday,
        Weekday::Friday,
        Weekday::Saturday,
        Weekday::Sunday,
    ];

    /// The day with this name (any case; three-letter forms too).
    pub fn parse(text: &str) -> Option<Weekday> {
        let lower = text.trim().to_ascii_lowercase();
        Weekday::ALL.into_iter().find(|day| {
            let name = day.name().to_ascii_lowercase();
            name == lower || (lower.len() == 3 && name.starts_with(&lower))
        })
    }

    /// The wire name.
    pub fn name(self) -> &'static str {
        match self {
            Weekday::Monday => "Monday",
            Weekday::Tuesday => "Tuesday",
            Weekday::Wednesday => "Wednesday",
            Weekday::Thursday => "Thursday",
            Weekday::Friday => "Friday",
            Weekday::Saturday => "Saturday",
            Weekday::Sunday => "Sunday",
        }
    }
}

/// `MonthlyOccurrence`: which day of the month a monthly schedule fires.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "occurrenceType")]
pub enum MonthlyOccurrence {
    #[serde(rename_all = "camelCase")]
    DayOfMonth { day_of_month: u32 },
    #[serde(rename_all = "camelCase")]
    OrdinalWeekday {
        week_index: String,
        weekday: Weekday,
    },
}

/// The kind-specific part of a `ScheduleConfig` (its `type` discriminator).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum ScheduleKind {
    /// Every `interval` minutes.
    Cron { interval: i64 },
    /// At each of `times` (hh:mm) every day.
    Daily { times: Vec<String> },
    /// At each of `times` on each of `weekdays`.
    Weekly {
        times: Vec<String>,
        weekdays: Vec<Weekday>,
    },
    /// Every `recurrence` months on the `occurrence` day, at each of `times`.
    Monthly {
        recurrence: i64,
        occurrence: MonthlyOccurrence,
        times: Vec<String>,
    },
}

/// `ScheduleConfig`: when a schedule fires.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleConfig {
    #[serde(flatten)]
    pub kind: ScheduleKind,
    /// `YYYY-MM-DDTHH:mm:ss[Z]`, UTC.
    pub start_date_time: String,
    pub end_date_time: String,
    /// A Windows time zone id (`Central Standard Time`, `UTC`).
    pub local_time_zone_id: String,
}

/// Most time slots a schedule may have (swagger `maxItems`).
const MAX_TIMES: usize = 100;
/// Longest Cron interval in minutes (ten years, swagger `maximum`).
pub const MAX_INTERVAL: i64 = 5_270_400;

/// Each problem names the field it is about, so a caller can name its own flag for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduleProblem {
    /// The wire field (`interval`, `times`, `weekdays`, `startDateTime`, ...).
    pub field: &'static str,
    pub message: String,
}

impl ScheduleConfig {
    /// What is wrong with this configuration, by the swagger's limits.
    pub fn problems(&self) -> Vec<ScheduleProblem> {
        let mut problems = Vec::new();
        let mut add = |field: &'static str, message: String| {
            problems.push(ScheduleProblem { field, message });
        };
        match &self.kind {
            ScheduleKind::Cron { interval } => {
                if !(1..=MAX_INTERVAL).contains(interval) {
                    add(
                        "interval",
                        format!("interval must be 1 to {MAX_INTERVAL} minutes, not {interval}"),
                    );
                }
            }
            ScheduleKind::Daily { times } => check_times(times, &mut add),
            ScheduleKind::Weekly { times, weekdays } => {
                check_times(times, &mut add);
                if weekdays.is_empty() {
                    add(
                        "weekdays",
                        "a weekly schedule needs at least one weekday".into(),
                    );
                }
                for (at, day) in weekdays.iter().enumerate() {
                    if weekdays[..at].contains(day) {
                        add("weekdays", format!("{} is given twice", day.name()));
                    }
                }
            }
            ScheduleKind::Monthly {
                recurrence,
                occurrence,
                times,
            } => {
                check_times(times, &mut add);
                if !(1..=12).contains(recurrence) {
                    add(
                        "recurrence",
                        format!("recurrence must be 1 to 12 months, not {recurrence}"),
                    );
                }
                if let MonthlyOccurrence::DayOfMonth { day_of_month } = occurrence
                    && !(1..=31).contains(day_of_month)
                {
                    add(
                        "occurrence",
                        format!("dayOfMonth must be 1 to 31, not {day_of_month}"),
                    );
                }
            }
        }
        let start = utc_seconds(&self.start_date_time);
        let end = utc_seconds(&self.end_date_time);
        if start.is_none() {
            add(
                "startDateTime",
                format!(
                    "'{}' is not a UTC time as YYYY-MM-DDTHH:mm:ssZ",
                    self.start_date_time
                ),
            );
        }
        if end.is_none() {
            add(
                "endDateTime",
                format!(
                    "'{}' is not a UTC time as YYYY-MM-DDTHH:mm:ssZ",
                    self.end_date_time
                ),
            );
        }
        if let (Some(start), Some(end)) = (start, end)
            && end <= start
        {
            add(
                "endDateTime",
                format!(
                    "the end {} must be later than the start {}",
                    self.end_date_time, self.start_date_time
                ),
            );
        }
        if self.local_time_zone_id.trim().is_empty() {
            add("localTimeZoneId", "a time zone id is required".into());
        }
        problems
    }
}

fn check_times(times: &[String], add: &mut impl FnMut(&'static str, String)) {
    if times.is_empty() || times.len() > MAX_TIMES {
        add(
            "times",
            format!("give 1 to {MAX_TIMES} times, not {}", times.len()),
        );
    }
    for time in times {
        if !is_hh_mm(time) {
            add(
                "times",
                format!("'{time}' is not a time as hh:mm (00:00-23:59)"),
            );
        }
    }
}

/// `hh:mm`, 00:00 to 23:59.
pub fn is_hh_mm(text: &str) -> bool {
    let Some((hours, minutes)) = text.split_once(':') else {
        return false;
    };
    let two_digits = |s: &str, max: u32| {
        s.len() == 2
            && s.chars().all(|c| c.is_ascii_digit())
            && s.parse::<u32>().is_ok_and(|n| n <= max)
    };
    two_digits(hours, 23) && two_digits(minutes, 59)
}

/// A UTC date-time as `YYYY-MM-DDTHH:mm:ss`, optionally with fractional seconds and a `Z`
/// (the service prints job times without the `Z`), as seconds since the Unix epoch; `None`
/// when it is not one.
pub fn utc_seconds(text: &str) -> Option<f64> {
    let text = text.strip_suffix('Z').unwrap_or(text);
    let (date, time) = text.split_once('T')?;
    let (clock, fraction) = match time.split_once('.') {
        Some((clock, fraction))
            if !fraction.is_empty() && fraction.chars().all(|c| c.is_ascii_digit()) =>
        {
            (clock, format!("0.{fraction}").parse::<f64>().ok()?)
        }
        Some(_) => return None,
        None => (time, 0.0),
    };
    let numbers = |s: &str, sep: char, widths: &[usize]| -> Option<Vec<i64>> {
        let parts: Vec<&str> = s.split(sep).collect();
        if parts.len() != widths.len() {
            return None;
        }
        parts
            .iter()
            .zip(widths)
            .map(|(part, width)| {
                (part.len() == *width && part.chars().all(|c| c.is_ascii_digit()))
                    .then(|| part.parse().ok())
                    .flatten()
            })
            .collect()
    };
    let d = numbers(date, '-', &[4, 2, 2])?;
    let t = numbers(clock, ':', &[2, 2, 2])?;
    let (year, month, day) = (d[0], d[1], d[2]);
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days_in_month = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    if day < 1 || day > days_in_month || t[0] > 23 || t[1] > 59 || t[2] > 59 {
        return None;
    }
    // Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let month_index = (month + 9) % 12;
    let day_of_year = (153 * month_index + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    let days = era * 146_097 + day_of_era - 719_468;
    let seconds = days * 86_400 + t[0] * 3600 + t[1] * 60 + t[2];
    Some(seconds as f64 + fraction)
}

/// `Principal` as a schedule's `owner` carries it: at least its id and type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScheduleOwner {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
}

/// `ItemSchedule`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemSchedule {
    pub id: String,
    pub enabled: bool,
    pub created_date_time: Option<String>,
    pub configuration: ScheduleConfig,
    pub owner: Option<ScheduleOwner>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution_data: Option<Map<String, Value>>,
}

/// `ItemSchedules`: a page of schedules.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemSchedules {
    pub value: Vec<ItemSchedule>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continuation_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continuation_uri: Option<String>,
}

/// `CreateScheduleRequest` / `UpdateScheduleRequest` (the same fields).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleRequest {
    pub enabled: bool,
    pub configuration: ScheduleConfig,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution_data: Option<Map<String, Value>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_bad_schedules() {
        let config = ScheduleConfig {
            kind: ScheduleKind::Weekly {
                times: vec!["24:00".into()],
                weekdays: vec![Weekday::Monday, Weekday::Monday],
            },
            start_date_time: "2024-02-30T00:00:00Z".into(),
            end_date_time: "2024-01-01T00:00:00Z".into(),
            local_time_zone_id: "UTC".into(),
        };
        let fields: Vec<&str> = config.problems().iter().map(|p| p.field).collect();
        assert_eq!(fields, ["times", "weekdays", "startDateTime"]);
        assert_eq!(utc_seconds("1970-01-02T00:00:01Z"), Some(86_401.0));
        assert_eq!(utc_seconds("2024-03-01T00:00:00"), Some(1_709_251_200.0));
        assert!(utc_seconds("2024-01-01T00:00:00Z") < utc_seconds("2024-01-01T00:00:00.5"));
        assert_eq!(Weekday::parse("tue"), Some(Weekday::Tuesday));
    }
}
