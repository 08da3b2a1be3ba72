//! Fault knobs (latency, quota, errors, lost responses, a crash, LRO timing, paging,
//! sync-vs-async), the
//! server's token lifetimes and connection limits, and the sliding-window request quota. `KNOBS`
//! is the one table the CLI builds its flags from.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// One fault knob as the CLI exposes it.
#[derive(Debug, Clone, Copy)]
pub struct Knob {
    /// Flag name without dashes in front (`latency-ms`).
    pub flag: &'static str,
    /// Environment variable (`FABSH_LOCAL_LATENCY_MS`).
    pub env: &'static str,
    /// One-line help.
    pub help: &'static str,
    /// Default value as text.
    pub default: &'static str,
}

/// The `async-ratio` value (its default) that answers each LRO-capable call as the service does.
const SERVICE_MODE: &str = "service";

/// Every fault knob, in the order `local serve --help` lists them.
pub const KNOBS: [Knob; 21] = [
    Knob {
        flag: "latency-ms",
        env: "FABSH_LOCAL_LATENCY_MS",
        help: "Milliseconds added before every API response",
        default: "0",
    },
    Knob {
        flag: "quota-rps",
        env: "FABSH_LOCAL_QUOTA_RPS",
        help: "API requests per second accepted before answering 429 (0 = no quota)",
        default: "0",
    },
    Knob {
        flag: "error-rate",
        env: "FABSH_LOCAL_ERROR_RATE",
        help: "Share of API requests answered 500/503 before any change is made, evenly spaced per HTTP method (0.0-1.0)",
        default: "0.0",
    },
    Knob {
        flag: "lost-response-rate",
        env: "FABSH_LOCAL_LOST_RESPONSE_RATE",
        help: "Share of mutating requests applied and committed, then answered 500 (0.0-1.0)",
        default: "0.0",
    },
    Knob {
        flag: "onelake-lost-response-rate",
        env: "FABSH_LOCAL_ONELAKE_LOST_RESPONSE_RATE",
        help: "Share of OneLake writes (PUT, DELETE) made, then answered 500, evenly spaced (0.0-1.0)",
        default: "0.0",
    },
    Knob {
        flag: "crash-after-writes",
        env: "FABSH_LOCAL_CRASH_AFTER_WRITES",
        help: "Crash after committing this many mutating API requests: the process exits at once (status 70) without answering the last one, its change kept; 0 = never. For testing how clients recover from a server that dies mid-run; in-process (--local) the whole fabsh process exits",
        default: "0",
    },
    Knob {
        flag: "lro-ms",
        env: "FABSH_LOCAL_LRO_MS",
        help: "How long a long-running operation runs, in milliseconds",
        default: "50",
    },
    Knob {
        flag: "retry-after-seconds",
        env: "FABSH_LOCAL_RETRY_AFTER_SECONDS",
        help: "Least Retry-After, in whole seconds, on a 202 and on the state of a running operation (the service sends whole seconds, 20 in recordings; 0 lets a client poll at once)",
        default: "1",
    },
    Knob {
        flag: "job-ms",
        env: "FABSH_LOCAL_JOB_MS",
        help: "How long a job run (`job run`, the job scheduler's run on demand) takes, in milliseconds: NotStarted for its first tenth, then InProgress, then Completed (or Failed with --job-failure)",
        default: "3000",
    },
    Knob {
        flag: "job-failure",
        env: "FABSH_LOCAL_JOB_FAILURE",
        help: "Make every job run started from now on end Failed with this failureReason, written `ErrorCode: message` (a message alone gets the code JobInstanceFailed); `none`: runs complete",
        default: "none",
    },
    Knob {
        flag: "schedule-minute-ms",
        env: "FABSH_LOCAL_SCHEDULE_MINUTE_MS",
        help: "How long a minute of an item schedule's clock lasts, in milliseconds, from when the schedule was last set: 1000 makes a Cron schedule of every 5 minutes start a run every 5 seconds. An enabled schedule starts runs (invokeType Scheduled) as its time comes; one that comes while a run of its job type is still going on the item is Deduped. Cron fires in any time zone, Daily and Weekly in UTC only",
        default: "60000",
    },
    Knob {
        flag: "page-size",
        env: "FABSH_LOCAL_PAGE_SIZE",
        help: "Entries per page on every paged list",
        default: "100",
    },
    Knob {
        flag: "async-ratio",
        env: "FABSH_LOCAL_ASYNC_RATIO",
        help: "Share of LRO-capable calls answered 202 instead of inline (0.0-1.0), the same for every such call. `service` (the default) answers each as the service does: creates without a definition inline (a Warehouse's 202), creates with one 202 (a DataPipeline's inline); getDefinition, updateDefinition, bulk export and import, identity and data-agent data-source calls 202",
        default: "service",
    },
    Knob {
        flag: "per-api-quotas",
        env: "FABSH_LOCAL_PER_API_QUOTAS",
        help: "Enforce the per-API quotas of the reference, per caller: external data shares and invitations 10 requests/min, tags 25/min (true/false)",
        default: "false",
    },
    Knob {
        flag: "legacy-assistants",
        env: "FABSH_LOCAL_LEGACY_ASSISTANTS",
        help: "Serve data agents' OpenAI-Assistants-compatible surface (.../aiassistant/openai/...: threads, runs, run steps, files), which the service retired on 2026-08-26; by default it answers 404 as the service now does (true/false)",
        default: "false",
    },
    Knob {
        flag: "token-seconds",
        env: "FABSH_LOCAL_TOKEN_SECONDS",
        help: "Lifetime of access tokens from the token and managed-identity endpoints (negative: already expired)",
        default: "3599",
    },
    Knob {
        flag: "refresh-token-seconds",
        env: "FABSH_LOCAL_REFRESH_TOKEN_SECONDS",
        help: "Lifetime of refresh tokens (negative: already expired)",
        default: "7776000",
    },
    Knob {
        flag: "query-seconds",
        env: "FABSH_LOCAL_QUERY_SECONDS",
        help: "Seconds a data agent's SQL query may run (waiting for a free slot included) before it is stopped and the answer says so",
        default: "5",
    },
    Knob {
        flag: "header-timeout-ms",
        env: "FABSH_LOCAL_HEADER_TIMEOUT_MS",
        help: "Milliseconds a client has to send a request's head, from connecting or from its first byte on a kept-alive connection; also the longest a request body may stall, and all the time the small bodies of the sign-in endpoints get",
        default: "10000",
    },
    Knob {
        flag: "idle-timeout-ms",
        env: "FABSH_LOCAL_IDLE_TIMEOUT_MS",
        help: "Milliseconds a kept-alive connection may wait for its next request before it is closed",
        default: "60000",
    },
    Knob {
        flag: "max-connections",
        env: "FABSH_LOCAL_MAX_CONNECTIONS",
        help: "Connections held open at once; at the limit the longest-idle one is closed to admit a new one (keep it well under `ulimit -n`: the store's files need descriptors too)",
        default: "512",
    },
];

/// The fault settings, token lifetimes and connection limits of one server.
#[derive(Debug, Clone, PartialEq)]
pub struct Faults {
    /// Sleep before handling each API request.
    pub latency_ms: u64,
    /// Accepted API requests per second; 0 disables the quota.
    pub quota_rps: u32,
    /// Share of API requests answered 500/503 before any change.
    pub error_rate: f64,
    /// Share of mutating requests committed and then answered 500.
    pub lost_response_rate: f64,
    /// Share of OneLake writes (Blob API `PUT`, `DELETE`) whose answer is lost after the
    /// change is made: a 500 goes back instead, and the client sends the write again.
    pub onelake_lost_response_rate: f64,
    /// Committed mutating requests after which the process exits unanswered; 0 never.
    pub crash_after_writes: u64,
    /// Duration of a long-running operation.
    pub lro_ms: u64,
    /// Least `Retry-After` of a running operation, in seconds.
    pub retry_after_seconds: u64,
    /// Duration of a job run.
    pub job_ms: u64,
    /// The `failureReason` every new job run ends with (`Code: message`); none: runs complete.
    pub job_failure: Option<String>,
    /// How long a minute of a schedule's clock lasts.
    pub schedule_minute_ms: u64,
    /// Entries per page.
    pub page_size: u32,
    /// Share of LRO-capable calls answered 202; `None` answers each as the service does.
    pub async_ratio: Option<f64>,
    /// Whether the per-API quotas (shares, invitations, tags) are enforced.
    pub per_api_quotas: bool,
    /// Whether the retired Assistants-compatible surface is served.
    pub legacy_assistants: bool,
    /// Seconds an issued access token is valid; negative issues expired ones (for tests of
    /// the client's refresh paths).
    pub token_seconds: i64,
    /// Seconds an issued refresh token is valid; negative issues expired ones.
    pub refresh_token_seconds: i64,
    /// Seconds an agent's SQL query may take before it is stopped.
    pub query_seconds: u64,
    /// Time allowed for a request's head, for each stall of its body, and for all of a small
    /// unauthenticated body.
    pub header_timeout_ms: u64,
    /// Time a kept-alive connection may wait for its next request.
    pub idle_timeout_ms: u64,
    /// Connections held open at once.
    pub max_connections: u32,
}

impl Default for Faults {
    fn default() -> Self {
        Faults {
            latency_ms: 0,
            quota_rps: 0,
            error_rate: 0.0,
            lost_response_rate: 0.0,
            onelake_lost_response_rate: 0.0,
            crash_after_writes: 0,
            lro_ms: 50,
            retry_after_seconds: 1,
            job_ms: 3000,
            job_failure: None,
            schedule_minute_ms: 60_000,
            page_size: 100,
            async_ratio: None,
            per_api_quotas: false,
            legacy_assistants: false,
            token_seconds: 3599,
            refresh_token_seconds: 90 * 24 * 3600,
            query_seconds: 5,
            header_timeout_ms: 10_000,
            idle_timeout_ms: 60_000,
            max_connections: 512,
        }
    }
}

impl Faults {
    /// Sets one knob by its flag name from text; the error says what was wrong.
    pub fn set(&mut self, flag: &str, value: &str) -> Result<(), String> {
        let value = value.trim();
        match flag {
            "latency-ms" => self.latency_ms = parse_int(flag, value, 0, 600_000)?,
            "quota-rps" => self.quota_rps = parse_int(flag, value, 0, 1_000_000)? as u32,
            "error-rate" => self.error_rate = parse_share(flag, value)?,
            "lost-response-rate" => self.lost_response_rate = parse_share(flag, value)?,
            "onelake-lost-response-rate" => {
                self.onelake_lost_response_rate = parse_share(flag, value)?;
            }
            "crash-after-writes" => {
                self.crash_after_writes = parse_int(flag, value, 0, 1_000_000_000)?;
            }
            "lro-ms" => self.lro_ms = parse_int(flag, value, 0, 3_600_000)?,
            "retry-after-seconds" => self.retry_after_seconds = parse_int(flag, value, 0, 3600)?,
            "job-ms" => self.job_ms = parse_int(flag, value, 0, 24 * 3_600_000)?,
            "job-failure" => {
                self.job_failure =
                    Some(value.to_string()).filter(|reason| !reason.is_empty() && reason != "none");
            }
            "schedule-minute-ms" => {
                self.schedule_minute_ms = parse_int(flag, value, 1, 24 * 3_600_000)?;
            }
            "page-size" => self.page_size = parse_int(flag, value, 1, 10_000)? as u32,
            "async-ratio" => {
                self.async_ratio = match value {
                    SERVICE_MODE => None,
                    share => Some(
                        parse_share(flag, share).map_err(|e| format!("{e} (or {SERVICE_MODE})"))?,
                    ),
                }
            }
            "per-api-quotas" => self.per_api_quotas = parse_bool(flag, value)?,
            "legacy-assistants" => self.legacy_assistants = parse_bool(flag, value)?,
            "token-seconds" => self.token_seconds = parse_lifetime(flag, value)?,
            "refresh-token-seconds" => self.refresh_token_seconds = parse_lifetime(flag, value)?,
            "query-seconds" => self.query_seconds = parse_int(flag, value, 1, 3600)?,
            "header-timeout-ms" => self.header_timeout_ms = parse_int(flag, value, 10, 3_600_000)?,
            "idle-timeout-ms" => self.idle_timeout_ms = parse_int(flag, value, 10, 3_600_000)?,
            "max-connections" => {
                self.max_connections = parse_int(flag, value, 1, 1_000_000)? as u32;
            }
            _ => return Err(format!("unknown fault knob '{flag}'")),
        }
        Ok(())
    }

    /// Defaults overridden by every `FABSH_LOCAL_*` variable that is set.
    pub fn from_env() -> Result<Faults, String> {
        let mut faults = Faults::default();
        for knob in KNOBS {
            if let Ok(value) = std::env::var(knob.env) {
                faults
                    .set(knob.flag, &value)
                    .map_err(|e| format!("{}: {e}", knob.env))?;
            }
        }
        Ok(faults)
    }
}

fn parse_int(flag: &str, value: &str, min: u64, max: u64) -> Result<u64, String> {
    let n: u64 = value
        .parse()
        .map_err(|_| format!("{flag} expects a whole number, got '{value}'"))?;
    if n < min || n > max {
        return Err(format!("{flag} must be between {min} and {max}, got {n}"));
    }
    Ok(n)
}

/// Up to a year either way.
fn parse_lifetime(flag: &str, value: &str) -> Result<i64, String> {
    const YEAR: i64 = 366 * 24 * 3600;
    let n: i64 = value
        .parse()
        .map_err(|_| format!("{flag} expects a whole number of seconds, got '{value}'"))?;
    if !(-YEAR..=YEAR).contains(&n) {
        return Err(format!("{flag} must be within a year either way, got {n}"));
    }
    Ok(n)
}

fn parse_bool(flag: &str, value: &str) -> Result<bool, String> {
    match value.to_ascii_lowercase().as_str() {
        "true" | "1" | "on" => Ok(true),
        "false" | "0" | "off" => Ok(false),
        _ => Err(format!("{flag} expects true or false, got '{value}'")),
    }
}

fn parse_share(flag: &str, value: &str) -> Result<f64, String> {
    let f: f64 = value
        .parse()
        .map_err(|_| format!("{flag} expects a number between 0 and 1, got '{value}'"))?;
    if !(0.0..=1.0).contains(&f) {
        return Err(format!("{flag} must be between 0 and 1, got {value}"));
    }
    Ok(f)
}

/// Picks which requests a share-of-requests knob applies to, evenly and the same way on
/// every run: with share 0.5 every second request, with 0.2 every fifth. Deterministic
/// spacing keeps tests reproducible and bounds the longest run of failures, so a client's
/// retries are tested, not the dice.
#[derive(Debug, Default)]
pub(crate) struct Spread {
    seen: AtomicU64,
    picked: AtomicU64,
}

impl Spread {
    /// True when the next request is one of the `share` picked.
    pub(crate) fn next(&self, share: f64) -> bool {
        if share <= 0.0 {
            return false;
        }
        let n = self.seen.fetch_add(1, Ordering::Relaxed) + 1;
        let pick = (n as f64 * share).floor() > ((n - 1) as f64 * share).floor();
        if pick {
            self.picked.fetch_add(1, Ordering::Relaxed);
        }
        pick
    }

    /// How many requests were picked so far.
    pub(crate) fn picked(&self) -> u64 {
        self.picked.load(Ordering::Relaxed)
    }
}

/// One [`Spread`] per share knob, so the knobs do not interfere, and the count of committed
/// writes `crash-after-writes` waits for. Errors are spread per HTTP method: a client's fixed
/// request pattern (a lookup between two creates) then cannot line up with the spacing so that
/// the same call always fails.
#[derive(Debug, Default)]
pub(crate) struct Spreads {
    errors_by_method: [Spread; 5],
    pub lost_responses: Spread,
    /// Over OneLake writes that succeeded.
    pub onelake_lost_responses: Spread,
    pub async_calls: Spread,
    committed_writes: AtomicU64,
}

/// The exit status of a process that crashed on purpose (`crash-after-writes`): EX_SOFTWARE.
pub(crate) const CRASH_STATUS: i32 = 70;

impl Spreads {
    /// Counts one committed write; true when it is the one `crash_after` (0: none) names.
    pub(crate) fn crash_now(&self, crash_after: u64) -> bool {
        crash_after > 0 && self.committed_writes.fetch_add(1, Ordering::SeqCst) + 1 == crash_after
    }

    /// The error spread for requests with this method.
    pub(crate) fn errors(&self, method: &axum::http::Method) -> &Spread {
        use axum::http::Method;
        let index = match *method {
            Method::GET => 0,
            Method::POST => 1,
            Method::PATCH => 2,
            Method::DELETE => 3,
            _ => 4,
        };
        &self.errors_by_method[index]
    }
}

/// How much of a simulated delay is left to a thread sleep instead of the async timer.
const PRECISE_TAIL: Duration = Duration::from_millis(3);

/// Sleeps for `delay` to within a fraction of a millisecond. The async timer works in whole
/// milliseconds and fires late (about 2 ms on a busy 2-core machine), which would turn every
/// "25 ms" of simulated latency into 27; so the last few milliseconds are slept on a blocking
/// thread, whose sleep is accurate.
pub(crate) async fn precise_sleep(delay: Duration) {
    let deadline = std::time::Instant::now() + delay;
    if let Some(coarse) = delay.checked_sub(PRECISE_TAIL) {
        tokio::time::sleep(coarse).await;
    }
    let rest = deadline.saturating_duration_since(std::time::Instant::now());
    if !rest.is_zero() {
        // A failed join only means the runtime is shutting down; the delay no longer matters.
        let _ = tokio::task::spawn_blocking(move || std::thread::sleep(rest)).await;
    }
}

/// Sliding one-second window over accepted requests. Only accepted requests count, so a
/// client that stays under the rate is never refused, whatever it did before.
#[derive(Debug, Default)]
pub(crate) struct QuotaWindow {
    accepted: Mutex<VecDeque<Instant>>,
}

impl QuotaWindow {
    /// Admits a request at `now`, or returns how long until a slot frees up.
    pub(crate) fn admit(&self, rps: u32, now: Instant) -> Result<(), Duration> {
        // The lock only guards a queue push/pop; poisoning cannot leave it inconsistent.
        let mut accepted = crate::locks::lock(&self.accepted);
        admit_sliding(&mut accepted, rps as usize, Duration::from_secs(1), now)
    }
}

/// Sliding-window admission over the times of accepted requests: admits (and records) a
/// request at `now` when fewer than `limit` were accepted within `window`, else returns how
/// long until the oldest of them leaves the window.
pub(crate) fn admit_sliding(
    accepted: &mut VecDeque<Instant>,
    limit: usize,
    window: Duration,
    now: Instant,
) -> Result<(), Duration> {
    while let Some(&oldest) = accepted.front() {
        if now.duration_since(oldest) >= window {
            accepted.pop_front();
        } else {
            break;
        }
    }
    if accepted.len() < limit {
        accepted.push_back(now);
        return Ok(());
    }
    let oldest = accepted.front().copied().unwrap_or(now);
    Err(window.saturating_sub(now.duration_since(oldest)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spreads_pick_evenly_and_exactly() {
        let spread = Spread::default();
        let picks: Vec<bool> = (0..10).map(|_| spread.next(0.5)).collect();
        assert_eq!(
            picks,
            [
                false, true, false, true, false, true, false, true, false, true
            ]
        );
        let fifth = Spread::default();
        assert_eq!((0..100).filter(|_| fifth.next(0.2)).count(), 20);
        assert!(!Spread::default().next(0.0));
        assert!(Spread::default().next(1.0));
    }

    #[test]
    fn the_crash_comes_after_exactly_the_writes_named() {
        let spreads = Spreads::default();
        let crashes: Vec<bool> = (0..4).map(|_| spreads.crash_now(3)).collect();
        assert_eq!(crashes, [false, false, true, false]);
        assert!(!Spreads::default().crash_now(0));
    }

    #[test]
    fn defaults_match_the_knob_table() {
        let mut parsed = Faults::default();
        for knob in KNOBS {
            parsed.set(knob.flag, knob.default).unwrap();
        }
        assert_eq!(parsed, Faults::default());
    }

    #[test]
    fn env_names_follow_the_flag_names() {
        for knob in KNOBS {
            let expected = format!("FABSH_LOCAL_{}", knob.flag.to_uppercase().replace('-', "_"));
            assert_eq!(knob.env, expected);
        }
    }

    #[test]
    fn set_parses_and_validates() {
        let mut faults = Faults::default();
        faults.set("latency-ms", "25").unwrap();
        faults.set("error-rate", "0.5").unwrap();
        faults.set("page-size", "7").unwrap();
        assert_eq!(faults.latency_ms, 25);
        assert_eq!(faults.error_rate, 0.5);
        assert_eq!(faults.page_size, 7);
        assert!(faults.set("error-rate", "1.5").is_err());
        assert!(faults.set("page-size", "0").is_err());
        assert!(faults.set("lro-ms", "soon").is_err());
        assert!(faults.set("no-such-knob", "1").is_err());
        faults.set("query-seconds", "2").unwrap();
        assert_eq!(faults.query_seconds, 2);
        assert!(faults.set("query-seconds", "0").is_err());
    }

    #[test]
    fn quota_counts_only_accepted_requests_in_the_last_second() {
        let quota = QuotaWindow::default();
        let start = Instant::now();
        assert!(quota.admit(2, start).is_ok());
        assert!(quota.admit(2, start + Duration::from_millis(100)).is_ok());
        let wait = quota
            .admit(2, start + Duration::from_millis(200))
            .unwrap_err();
        assert_eq!(wait, Duration::from_millis(800));
        assert!(quota.admit(2, start + Duration::from_secs(1)).is_ok());
    }

    #[test]
    fn a_steady_client_under_the_rate_is_never_refused() {
        let quota = QuotaWindow::default();
        let start = Instant::now();
        // 9 requests per second against a quota of 10, for five seconds.
        for i in 0..45u64 {
            let at = start + Duration::from_millis(i * 1000 / 9);
            assert!(quota.admit(10, at).is_ok(), "request {i} refused");
        }
    }
}
