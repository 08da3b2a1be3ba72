//! Times as a reader wants them: to the second, in the reader's zone, with the offset (still
//! RFC 3339, so scripts parse them). The zone's offset is read once at start-up, while the
//! process has a single thread: the `time` crate reads it only then, as reading the zone
//! while other threads may change the environment is unsound.

use std::sync::OnceLock;
use time::format_description::well_known::Rfc3339;
use time::{OffsetDateTime, UtcOffset};

static LOCAL_OFFSET: OnceLock<UtcOffset> = OnceLock::new();

/// Reads the local zone's offset now (call before starting threads); UTC when it cannot.
pub fn remember_local_offset() {
    let offset = UtcOffset::current_local_offset().unwrap_or(UtcOffset::UTC);
    let _ = LOCAL_OFFSET.set(offset);
}

/// An RFC 3339 time in the local zone, to the second (`2026-11-25T20:18:07+01:00`); text
/// that is not such a time as it is.
pub fn shown(text: &str) -> String {
    let Ok(time) = OffsetDateTime::parse(text, &Rfc3339) else {
        return text.to_string();
    };
    let offset = LOCAL_OFFSET.get().copied().unwrap_or(UtcOffset::UTC);
    time.to_offset(offset)
        .replace_nanosecond(0)
        .ok()
        .and_then(|time| time.format(&Rfc3339).ok())
        .unwrap_or_else(|| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_lose_their_fraction_and_keep_an_offset() {
        assert_eq!(
            shown("2026-11-25T19:18:07.694602518Z"),
            "2026-11-25T19:18:07Z"
        );
        assert_eq!(shown("yesterday"), "yesterday");
    }
}
