//! The job scheduler's wire types (swagger platform `JobScheduler_*`, definitions in
//! `platform.json` and `common/job_scheduling.json`): job instances, the run-on-demand body,
//! the job types per item type; item schedules live in `schedules`.

mod firing;
mod schedules;

pub use schedules::*;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `ItemJobStatus`. The service may add statuses (`modelAsString`): an unknown one is kept
/// as `Other` and treated as still running.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum JobStatus {
    NotStarted,
    InProgress,
    Completed,
    Failed,
    Cancelled,
    /// Skipped because a run of the same job type was already running.
    Deduped,
    #[serde(other)]
    Other,
}

impl JobStatus {
    /// Whether the run has ended (it will not change again).
    pub fn is_final(self) -> bool {
        matches!(
            self,
            JobStatus::Completed | JobStatus::Failed | JobStatus::Cancelled | JobStatus::Deduped
        )
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::NotStarted => "NotStarted",
            JobStatus::InProgress => "InProgress",
            JobStatus::Completed => "Completed",
            JobStatus::Failed => "Failed",
            JobStatus::Cancelled => "Cancelled",
            JobStatus::Deduped => "Deduped",
            JobStatus::Other => "Other",
        }
    }
}

/// Why a run failed: the swagger's `ErrorResponse`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FailureReason {
    pub error_code: Option<String>,
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

/// `ItemJobInstance`: one run of an item's job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobInstance {
    pub id: String,
    pub item_id: String,
    pub job_type: String,
    /// `Manual` or `Scheduled` (more may come).
    pub invoke_type: Option<String>,
    pub status: JobStatus,
    pub root_activity_id: Option<String>,
    /// UTC, as the service prints it (no `Z`); absent before the run starts.
    pub start_time_utc: Option<String>,
    pub end_time_utc: Option<String>,
    /// Null unless the run failed (the swagger's examples send `null`).
    pub failure_reason: Option<FailureReason>,
}

/// `ItemJobInstances`: a page of runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobInstances {
    pub value: Vec<JobInstance>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continuation_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continuation_uri: Option<String>,
}

/// `ItemJobParameterType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ParameterType {
    VariableReference,
    Integer,
    Number,
    Text,
    Boolean,
    DateTime,
    Guid,
    Automatic,
}

/// `Parameter`: one per-run input of an on-demand job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobParameter {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: ParameterType,
    pub value: Value,
}

impl JobParameter {
    /// A parameter whose type follows its JSON value (text, boolean, integer, number);
    /// other values (objects, arrays, null) are `Automatic`, left to the service.
    pub fn inferred(name: &str, value: Value) -> JobParameter {
        let kind = match &value {
            Value::String(_) => ParameterType::Text,
            Value::Bool(_) => ParameterType::Boolean,
            Value::Number(n) if n.is_i64() || n.is_u64() => ParameterType::Integer,
            Value::Number(_) => ParameterType::Number,
            _ => ParameterType::Automatic,
        };
        JobParameter {
            name: name.to_string(),
            kind,
            value,
        }
    }
}

/// `RunOnDemandItemJobRequest`: the optional body of a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunRequest {
    /// Fixed data the job type defines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution_data: Option<Map<String, Value>>,
    /// Per-run inputs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Vec<JobParameter>>,
}

impl RunRequest {
    /// Whether there is nothing to send (the body may then be left out).
    pub fn is_empty(&self) -> bool {
        self.execution_data.is_none() && self.parameters.is_none()
    }

    /// What is wrong with the parameters: names must be unique (case-blind) and at most
    /// 256 characters, as the swagger says.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        // A set: a list of a hundred thousand parameters is checked in linear time.
        let mut seen = std::collections::HashSet::new();
        for parameter in self.parameters.iter().flatten() {
            let lower = parameter.name.to_lowercase();
            if parameter.name.trim().is_empty() {
                problems.push("a parameter has an empty name".to_string());
            } else if parameter.name.chars().count() > 256 {
                problems.push(format!(
                    "parameter name '{}…' is longer than 256 characters",
                    parameter.name.chars().take(20).collect::<String>()
                ));
            } else if !seen.insert(lower) {
                problems.push(format!(
                    "parameter '{}' is given twice (names are compared case-blind)",
                    parameter.name
                ));
            }
        }
        problems
    }
}

/// Seconds from a run's start to its end, when it has both.
pub fn run_duration(instance: &JobInstance) -> Option<f64> {
    let start = utc_seconds(instance.start_time_utc.as_deref()?)?;
    let end = utc_seconds(instance.end_time_utc.as_deref()?)?;
    Some(((end - start) * 1000.0).round() / 1000.0)
}

/// The job type a run of an item of this type gets when none is named: the service's
/// documented types per item (`RunNotebook`, `Pipeline`, `sparkjob`, `TableMaintenance`);
/// case matters to the service. `None` for types without a known default.
pub fn default_job_type(item_type: &str) -> Option<&'static str> {
    JOB_TYPES
        .iter()
        .find(|(ty, _)| ty.eq_ignore_ascii_case(item_type))
        .map(|(_, jobs)| jobs[0])
}

/// The job types each item type accepts, its default first.
pub const JOB_TYPES: &[(&str, &[&str])] = &[
    ("Notebook", &["RunNotebook"]),
    ("DataPipeline", &["Pipeline"]),
    ("SparkJobDefinition", &["sparkjob"]),
    ("Lakehouse", &["TableMaintenance"]),
];

/// Whether `job_type` is one the item type accepts (exact case), when the type is known.
pub fn accepts_job_type(item_type: &str, job_type: &str) -> Option<bool> {
    JOB_TYPES
        .iter()
        .find(|(ty, _)| ty.eq_ignore_ascii_case(item_type))
        .map(|(_, jobs)| jobs.contains(&job_type))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_swagger_examples_shapes() {
        let instance: JobInstance = serde_json::from_value(json!({
            "id": "f2d65699-dd22-4889-980c-15226deb0e1b",
            "itemId": "431e8d7b-4a95-4c02-8ccd-6faef5ba1bd7",
            "jobType": "DefaultJob", "invokeType": "Manual", "status": "Completed",
            "rootActivityId": "8c2ee553-53a4-7edb-1042-0d8189a9e0ca",
            "startTimeUtc": "2023-04-22T06:35:00.7812154",
            "endTimeUtc": "2023-04-22T06:35:00.8033333", "failureReason": null
        }))
        .unwrap();
        assert_eq!(instance.status, JobStatus::Completed);
        let later: JobStatus = serde_json::from_value(json!("Paused")).unwrap();
        assert_eq!(later, JobStatus::Other);
        let config: ScheduleConfig = serde_json::from_value(json!({
            "startDateTime": "2024-04-28T00:00:00", "endDateTime": "2024-04-30T23:59:00",
            "localTimeZoneId": "Central Standard Time", "type": "Cron", "interval": 10
        }))
        .unwrap();
        assert_eq!(config.kind, ScheduleKind::Cron { interval: 10 });
        assert!(config.problems().is_empty());
    }

    #[test]
    fn parameter_names_are_unique_case_blind_as_the_swagger_says() {
        let request = |names: &[&str]| RunRequest {
            execution_data: None,
            parameters: Some(
                names
                    .iter()
                    .map(|name| JobParameter::inferred(name, json!(1)))
                    .collect(),
            ),
        };
        assert!(request(&["a", "b"]).problems().is_empty());
        let twice = request(&["Region", "x", "region"]).problems();
        assert_eq!(twice.len(), 1, "{twice:?}");
        assert!(twice[0].contains("'region' is given twice"), "{twice:?}");
        assert!(request(&[" "]).problems()[0].contains("empty name"));
    }
}
