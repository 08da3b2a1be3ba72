//! A recorded evaluation run, as `data-agent evaluations show` prints it and the evaluation
//! store keeps it, its summary, and its line in `evaluations list`.

use super::row::EvaluationRow;
use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// An evaluation run: who was evaluated and how, its summary and its rows. `data-agent
/// evaluate` makes one (without `runId` and `time` under `--no-save`); the store gives every
/// key back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvaluationRun {
    /// The store's id of the run; null for a run not recorded.
    pub run_id: Option<String>,
    /// When it was recorded (RFC 3339); null for a run not recorded.
    pub time: Option<String>,
    /// The agent's workspace.
    pub workspace: Named,
    /// The agent.
    pub agent: Named,
    /// The agent's logical id (its definition's `.platform` `config.logicalId`), which its
    /// copies deployed to other workspaces share; null when it has none (the all-zero GUID),
    /// when it could not be read, and in runs recorded before it was.
    #[serde(default)]
    pub agent_logical_id: Option<String>,
    /// `rules`, or `judge MODEL`.
    pub grading: String,
    /// The questions file's name (never its local path).
    pub questions_file: String,
    /// The sha256 of the questions file's bytes, in hex: two runs asked the same questions
    /// when they match.
    pub questions_sha256: String,
    /// Times each question was asked.
    pub repeats: u64,
    /// Runs at once.
    pub concurrency: u64,
    /// One hash of the agent's published configuration; null when it could not be read.
    pub configuration_fingerprint: Option<String>,
    /// Null when the store holds a summary it cannot read.
    pub summary: Option<EvaluationSummary>,
    /// A hash per published part; null for runs recorded before parts were, or when the
    /// configuration could not be read.
    pub configuration_parts: Option<ConfigurationParts>,
    /// One row per question and repeat, each question's repeats together.
    #[serde(default)]
    pub rows: Vec<EvaluationRow>,
    /// Keys this version does not know, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A workspace or an agent: its id, and its name when it was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Named {
    /// Its id (or, for a `--published-url` run, the agent as the user named it).
    pub id: String,
    /// Its display name; null when it was not read.
    pub name: Option<String>,
}

impl Named {
    /// Its name, else its id.
    pub fn name_or_id(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.id)
    }
}

/// A run's counts, pass rate and latency percentiles (`evaluate::summary` of the stdlib).
/// Failed runs count as failed and as errors; runs left ungraded (verdict `error`) as errors
/// only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvaluationSummary {
    /// Questions × repeats.
    pub runs: u64,
    /// Runs graded yes.
    pub passed: u64,
    /// Runs graded no.
    pub failed: u64,
    /// Runs graded unclear.
    pub unclear: u64,
    /// Runs with an error (failed, or left ungraded).
    pub errors: u64,
    /// `passed / runs`, 0 without runs.
    pub pass_rate: f64,
    /// The nearest-rank median latency; null without runs.
    pub latency_p50_ms: Option<u64>,
    /// The nearest-rank 95th percentile latency; null without runs.
    pub latency_p95_ms: Option<u64>,
    /// Keys this version does not know, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `data-agent evaluate`'s summary: the run's, and its id in the store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedSummary {
    /// The counts.
    #[serde(flatten)]
    pub summary: EvaluationSummary,
    /// The store's id of the run; null under `--no-save`.
    pub run_id: Option<String>,
}

/// A run as `data-agent evaluations list` shows it. Every key is set for a recorded run;
/// the report page's line for a run not recorded has only `time`, `passRate` and
/// `configurationFingerprint`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListedRun {
    /// The store's id of the run.
    pub run_id: Option<String>,
    /// When it was recorded.
    pub time: Option<String>,
    /// Its summary's pass rate.
    pub pass_rate: Option<f64>,
    /// Its summary's runs; null when the store holds a summary it cannot read.
    pub runs: Option<u64>,
    /// See [`EvaluationRun::configuration_fingerprint`].
    pub configuration_fingerprint: Option<String>,
    /// See [`EvaluationRun::grading`].
    pub grading: Option<String>,
    /// See [`EvaluationRun::questions_sha256`].
    pub questions_sha256: Option<String>,
}

/// The sha256 of each part of the agent's published configuration, by its path under
/// `published/` (`stage_config.json`, `<datasource>/fewshots.json`, ...) and
/// `publishedDescription`, in the order recorded (a JSON object).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigurationParts(Vec<(String, String)>);

impl ConfigurationParts {
    /// Adds a part's hash (or replaces it).
    pub fn insert(&mut self, part: impl Into<String>, hash: impl Into<String>) {
        let (part, hash) = (part.into(), hash.into());
        match self.0.iter_mut().find(|(known, _)| *known == part) {
            Some((_, known)) => *known = hash,
            None => self.0.push((part, hash)),
        }
    }

    /// A part's hash, if recorded.
    pub fn get(&self, part: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(known, _)| known == part)
            .map(|(_, hash)| hash.as_str())
    }

    /// The parts, in the order recorded.
    pub fn parts(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(part, _)| part.as_str())
    }
}

impl Serialize for ConfigurationParts {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (part, hash) in &self.0 {
            map.serialize_entry(part, hash)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for ConfigurationParts {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Parts;
        impl<'de> Visitor<'de> for Parts {
            type Value = ConfigurationParts;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of part paths and their sha256")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut parts = ConfigurationParts::default();
                while let Some((part, hash)) = map.next_entry::<String, String>()? {
                    parts.insert(part, hash);
                }
                Ok(parts)
            }
        }
        deserializer.deserialize_map(Parts)
    }
}
