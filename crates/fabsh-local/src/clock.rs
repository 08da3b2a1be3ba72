//! Wall-clock time as stored (Unix nanoseconds) and as Fabric prints it.

use time::OffsetDateTime;

/// Now, in nanoseconds since the Unix epoch (the store's time unit).
pub(crate) fn now_nanos() -> i64 {
    // i64 nanoseconds last until 2262; the clamp only guards a clock set absurdly far ahead.
    let nanos = OffsetDateTime::now_utc().unix_timestamp_nanos();
    i64::try_from(nanos).unwrap_or(i64::MAX)
}

fn to_datetime(nanos: i64) -> OffsetDateTime {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(nanos))
        .unwrap_or(OffsetDateTime::UNIX_EPOCH)
}

/// Timestamps as the service prints them (operation states, share expiry, item
/// properties): UTC, no `Z`, up to seven fractional digits with trailing zeros dropped, as
/// .NET's `yyyy-MM-ddTHH:mm:ss.FFFFFFF` does. Recorded: `2025-09-02T19:38:15.1233511`,
/// `2025-12-31T14:28:28.557812` (set__test_set_item_report_definition_semantic_model_id_success.yaml),
/// `2026-07-26T04:53:55.93` (ls__test_ls_external_data_shares_success.yaml).
pub(crate) fn service_timestamp(nanos: i64) -> String {
    let t = to_datetime(nanos);
    let mut text = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:07}",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.nanosecond() / 100
    );
    let kept = text.trim_end_matches('0').trim_end_matches('.').len();
    text.truncate(kept);
    text
}

/// Timestamps as the Spark monitoring answers print them (`LivySession.submittedDateTime`:
/// "using the YYYY-MM-DDTHH:mm:ssZ format", the swagger examples' `2025-01-31T15:32:03Z`).
pub(crate) fn zulu_timestamp(nanos: i64) -> String {
    format!("{}Z", seconds_utc(nanos))
}

/// Timestamps as a SQL database's restore points print them: UTC, seven fractional digits
/// always, and `Z` (`2026-07-01T19:30:59.6330000Z`, fabric-cli's
/// test_mkdir_sqldatabase_restore_and_restore_deleted_with_creation_payload_success).
pub(crate) fn restore_point_timestamp(nanos: i64) -> String {
    let hundreds = to_datetime(nanos).nanosecond() / 100;
    format!("{}.{hundreds:07}Z", seconds_utc(nanos))
}

/// `YYYY-MM-DDTHH:mm:ss` in UTC.
fn seconds_utc(nanos: i64) -> String {
    let t = to_datetime(nanos);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    )
}

/// A Windows FILETIME: 100-nanosecond intervals since 1601-01-01 UTC (a restorable deleted
/// database's name ends with its deletion's: `…,134274078596330000` for
/// `2026-07-01T19:30:59.633Z`).
pub(crate) fn file_time(nanos: i64) -> i64 {
    /// 100-nanosecond intervals from 1601-01-01 to the Unix epoch.
    const UNIX_EPOCH_FILE_TIME: i64 = 116_444_736_000_000_000;
    nanos / 100 + UNIX_EPOCH_FILE_TIME
}

/// The US-style time in the 429 message (`9/3/2025 7:03:20 AM`).
pub(crate) fn blocked_until(nanos: i64) -> String {
    let t = to_datetime(nanos);
    let (hour, meridiem) = match t.hour() {
        0 => (12, "AM"),
        h @ 1..=11 => (h, "AM"),
        12 => (12, "PM"),
        h => (h - 12, "PM"),
    };
    format!(
        "{}/{}/{} {}:{:02}:{:02} {}",
        u8::from(t.month()),
        t.day(),
        t.year(),
        hour,
        t.minute(),
        t.second(),
        meridiem
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_the_recordings() {
        // 2025-09-02T19:38:15.1233511Z
        let nanos = 1_756_841_895_123_351_100;
        assert_eq!(service_timestamp(nanos), "2025-09-02T19:38:15.1233511");
        assert_eq!(
            service_timestamp(1_756_841_895_930_000_000),
            "2025-09-02T19:38:15.93"
        );
        assert_eq!(
            service_timestamp(1_756_841_895_000_000_000),
            "2025-09-02T19:38:15"
        );
        assert_eq!(blocked_until(nanos), "9/2/2025 7:38:15 PM");
        assert_eq!(
            blocked_until(1_756_771_200_000_000_000),
            "9/2/2025 12:00:00 AM"
        );
    }

    #[test]
    fn restore_points_print_as_recorded() {
        // `2026-07-01T19:30:59.633Z`, the recorded deletion of
        // test_mkdir_sqldatabase_restore_and_restore_deleted_with_creation_payload_success.
        let nanos = 1_782_934_259_633_000_000;
        assert_eq!(
            restore_point_timestamp(nanos),
            "2026-07-01T19:30:59.6330000Z"
        );
        assert_eq!(file_time(nanos), 134_274_078_596_330_000);
    }
}
