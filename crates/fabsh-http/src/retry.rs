//! When and how long to wait before sending a request again.

use rand::RngExt;
use reqwest::header::HeaderMap;
use std::time::{Duration, SystemTime};

/// How many 429 answers one request sits out before giving up.
pub const MAX_THROTTLED_ATTEMPTS: u32 = 10;
/// How many 5xx or connection failures an idempotent request retries.
pub const MAX_FAILED_ATTEMPTS: u32 = 4;
/// The wait after a 429 without a usable `Retry-After` (fab and fabric-cicd use 10 s to 60 s).
pub const DEFAULT_THROTTLE_WAIT: Duration = Duration::from_secs(10);
/// Longest wait honoured from a `Retry-After`.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(300);

/// The wait a `Retry-After` header asks for: whole (or fractional) seconds, or an HTTP date.
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let value = headers.get("retry-after")?.to_str().ok()?.trim();
    let wait = if let Ok(seconds) = value.parse::<f64>() {
        if !seconds.is_finite() || seconds < 0.0 {
            return None;
        }
        Duration::from_secs_f64(seconds)
    } else {
        let when = httpdate_to_system_time(value)?;
        when.duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO)
    };
    Some(wait.min(MAX_RETRY_AFTER))
}

/// Exponential backoff with full jitter: attempt 1 waits up to 0.4 s, then 0.8 s, 1.6 s, ...
pub fn backoff(attempt: u32) -> Duration {
    let ceiling = 0.2 * 2f64.powi(attempt.min(8) as i32);
    let jittered = rand::rng().random_range(ceiling / 2.0..=ceiling);
    Duration::from_secs_f64(jittered)
}

/// Parses an RFC 7231 IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
fn httpdate_to_system_time(text: &str) -> Option<SystemTime> {
    let format = time::macros::format_description!(
        "[weekday repr:short], [day] [month repr:short] [year] [hour]:[minute]:[second] GMT"
    );
    let parsed = time::PrimitiveDateTime::parse(text, format).ok()?;
    let unix = parsed.assume_utc().unix_timestamp();
    let unix = u64::try_from(unix).ok()?;
    Some(SystemTime::UNIX_EPOCH + Duration::from_secs(unix))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert("Retry-After", value.parse().expect("header"));
        headers
    }

    #[test]
    fn reads_seconds_fractions_and_dates() {
        assert_eq!(retry_after(&headers("57")), Some(Duration::from_secs(57)));
        assert_eq!(
            retry_after(&headers("0.5")),
            Some(Duration::from_millis(500))
        );
        assert_eq!(
            retry_after(&headers("Sun, 06 Nov 1994 08:49:37 GMT")),
            Some(Duration::ZERO)
        );
        assert_eq!(retry_after(&headers("soon")), None);
        assert_eq!(retry_after(&HeaderMap::new()), None);
    }

    #[test]
    fn backoff_grows_and_stays_jittered() {
        for attempt in 1..5 {
            let wait = backoff(attempt).as_secs_f64();
            let ceiling = 0.2 * 2f64.powi(attempt as i32);
            assert!(
                wait >= ceiling / 2.0 && wait <= ceiling,
                "{wait} for {attempt}"
            );
        }
    }
}
