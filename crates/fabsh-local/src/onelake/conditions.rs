//! Conditional headers and ranges as the Blob service takes them: `If-Match`,
//! `If-None-Match` (`*` or ETags), `If-Modified-Since` and `If-Unmodified-Since` (RFC 1123
//! dates, second precision), and `Range`/`x-ms-range` of `bytes=a-b` or `bytes=a-`.

use super::answer::StorageError;
use super::files::Meta;
use axum::http::{HeaderMap, StatusCode};
use std::time::{SystemTime, UNIX_EPOCH};
use time::OffsetDateTime;
use time::format_description::BorrowedFormatItem;
use time::macros::format_description;

/// RFC 1123, as HTTP dates are written.
const HTTP_DATE: &[BorrowedFormatItem<'_>] = format_description!(
    "[weekday repr:short], [day] [month repr:short] [year] [hour]:[minute]:[second] GMT"
);

/// `time` as an HTTP date.
pub(crate) fn http_date(time: SystemTime) -> String {
    OffsetDateTime::from(time)
        .format(HTTP_DATE)
        // Only years past 9999 have no such form; no file's time is one.
        .unwrap_or_else(|_| "Fri, 31 Dec 9999 23:59:59 GMT".to_string())
}

/// An HTTP date, or `None` when the text is not one.
pub(crate) fn parse_http_date(text: &str) -> Option<SystemTime> {
    let parsed = time::PrimitiveDateTime::parse(text.trim(), HTTP_DATE).ok()?;
    Some(SystemTime::from(parsed.assume_utc()))
}

/// Whole seconds since the epoch: HTTP dates carry no finer time.
fn seconds(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

/// An ETag without quotes or weakness, for comparing (listings give them bare, headers quoted).
fn bare(etag: &str) -> &str {
    etag.trim().trim_start_matches("W/").trim_matches('"')
}

/// True when `list` (a header's comma-separated ETags) names `etag`.
fn names(list: &str, etag: &str) -> bool {
    list.split(',').any(|one| bare(one) == bare(etag))
}

/// The conditions a request states.
#[derive(Debug, Default)]
pub(crate) struct Conditions {
    if_match: Option<String>,
    if_none_match: Option<String>,
    if_modified_since: Option<SystemTime>,
    if_unmodified_since: Option<SystemTime>,
}

/// 412 `ConditionNotMet`.
fn not_met() -> StorageError {
    StorageError::new(
        StatusCode::PRECONDITION_FAILED,
        "ConditionNotMet",
        "The condition specified using HTTP conditional header(s) is not met.",
    )
}

impl Conditions {
    /// The conditions of a request's headers; a date that does not parse is ignored, as HTTP
    /// says an invalid date condition is.
    pub(crate) fn of(headers: &HeaderMap) -> Conditions {
        let text = |name: &str| {
            headers
                .get(name)
                .and_then(|value| value.to_str().ok())
                .map(str::to_string)
        };
        Conditions {
            if_match: text("if-match"),
            if_none_match: text("if-none-match"),
            if_modified_since: text("if-modified-since").and_then(|t| parse_http_date(&t)),
            if_unmodified_since: text("if-unmodified-since").and_then(|t| parse_http_date(&t)),
        }
    }

    /// Whether a read goes on: `Ok(true)` to answer, `Ok(false)` for 304 Not Modified, or
    /// 412 `ConditionNotMet`.
    pub(crate) fn read(&self, meta: &Meta) -> Result<bool, StorageError> {
        if let Some(list) = &self.if_match
            && list.trim() != "*"
            && !names(list, &meta.etag)
        {
            return Err(not_met());
        }
        if let Some(since) = self.if_unmodified_since
            && seconds(meta.modified) > seconds(since)
        {
            return Err(not_met());
        }
        if let Some(list) = &self.if_none_match
            && (list.trim() == "*" || names(list, &meta.etag))
        {
            return Ok(false);
        }
        if let Some(since) = self.if_modified_since
            && seconds(meta.modified) <= seconds(since)
        {
            return Ok(false);
        }
        Ok(true)
    }

    /// Whether a write (put, copy, delete) of a blob whose current state is `current` goes on:
    /// `If-None-Match: *` on an existing blob is 409 `BlobAlreadyExists`, any other condition
    /// not met 412 `ConditionNotMet` (an `If-Match` on a missing blob among them).
    pub(crate) fn write(&self, current: Option<&Meta>) -> Result<(), StorageError> {
        if let Some(list) = &self.if_none_match {
            match current {
                Some(_) if list.trim() == "*" => {
                    return Err(StorageError::new(
                        StatusCode::CONFLICT,
                        "BlobAlreadyExists",
                        "The specified blob already exists.",
                    ));
                }
                Some(meta) if names(list, &meta.etag) => return Err(not_met()),
                _ => {}
            }
        }
        if let Some(list) = &self.if_match {
            let holds = current.is_some_and(|meta| list.trim() == "*" || names(list, &meta.etag));
            if !holds {
                return Err(not_met());
            }
        }
        if let Some(meta) = current {
            if let Some(since) = self.if_unmodified_since
                && seconds(meta.modified) > seconds(since)
            {
                return Err(not_met());
            }
            if let Some(since) = self.if_modified_since
                && seconds(meta.modified) <= seconds(since)
            {
                return Err(not_met());
            }
        }
        Ok(())
    }
}

/// The byte range a read asks for, as `(first, last)` inclusive within a blob of `size`
/// bytes; `None` for the whole blob (no range, or one that is not `bytes=a-b`/`bytes=a-`,
/// which HTTP says to ignore). A range starting at or past the end is 416 `InvalidRange`.
pub(crate) fn range(headers: &HeaderMap, size: u64) -> Result<Option<(u64, u64)>, StorageError> {
    // `x-ms-range` wins over `Range` when both are sent, as Azure documents.
    let Some(text) = ["x-ms-range", "range"]
        .iter()
        .find_map(|name| headers.get(*name).and_then(|value| value.to_str().ok()))
    else {
        return Ok(None);
    };
    let Some((first, last)) = text
        .trim()
        .strip_prefix("bytes=")
        .and_then(|spec| spec.split_once('-'))
    else {
        return Ok(None);
    };
    let Ok(first) = first.trim().parse::<u64>() else {
        return Ok(None);
    };
    let last = match last.trim() {
        "" => None,
        given => match given.parse::<u64>() {
            Ok(last) if last >= first => Some(last),
            _ => return Ok(None),
        },
    };
    if first >= size {
        return Err(StorageError::new(
            StatusCode::RANGE_NOT_SATISFIABLE,
            "InvalidRange",
            "The range specified is invalid for the current size of the resource.",
        )
        .header(axum::http::header::CONTENT_RANGE, format!("bytes */{size}")));
    }
    let last = last.map_or(size - 1, |last| last.min(size - 1));
    Ok(Some((first, last)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;
    use std::time::Duration;

    fn meta(etag: &str, secs: u64) -> Meta {
        Meta {
            size: 10,
            modified: UNIX_EPOCH + Duration::from_secs(secs),
            etag: etag.into(),
        }
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).expect("header"));
        }
        map
    }

    #[test]
    fn http_dates_round_trip() {
        let time = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert_eq!(http_date(time), "Tue, 14 Nov 2023 22:13:20 GMT");
        assert_eq!(parse_http_date("Tue, 14 Nov 2023 22:13:20 GMT"), Some(time));
        assert_eq!(parse_http_date("yesterday"), None);
    }

    #[test]
    fn writes_honour_if_none_match_and_if_match() {
        let current = meta("\"0xA\"", 100);
        let create_only = Conditions::of(&headers(&[("if-none-match", "*")]));
        assert_eq!(
            create_only.write(Some(&current)).err().map(|e| e.code()),
            Some("BlobAlreadyExists")
        );
        assert!(create_only.write(None).is_ok());
        let update = Conditions::of(&headers(&[("if-match", "0xA")]));
        assert!(update.write(Some(&current)).is_ok());
        assert_eq!(
            update
                .write(Some(&meta("\"0xB\"", 100)))
                .err()
                .map(|e| e.code()),
            Some("ConditionNotMet")
        );
        assert_eq!(
            update.write(None).err().map(|e| e.code()),
            Some("ConditionNotMet")
        );
    }

    #[test]
    fn reads_answer_not_modified_or_precondition_failed() {
        let current = meta("\"0xA\"", 100);
        let same = Conditions::of(&headers(&[("if-none-match", "\"0xA\"")]));
        assert!(!same.read(&current).expect("not an error"));
        let other = Conditions::of(&headers(&[("if-match", "\"0xB\"")]));
        assert!(other.read(&current).is_err());
        assert!(Conditions::default().read(&current).expect("answered"));
    }

    #[test]
    fn ranges_are_clamped_to_the_blob_and_past_its_end_refused() {
        let range_of = |text: &str, size| range(&headers(&[("range", text)]), size);
        assert_eq!(range_of("bytes=2-5", 10).ok(), Some(Some((2, 5))));
        assert_eq!(range_of("bytes=2-", 10).ok(), Some(Some((2, 9))));
        assert_eq!(range_of("bytes=8-100", 10).ok(), Some(Some((8, 9))));
        assert_eq!(range_of("bytes=5-2", 10).ok(), Some(None));
        assert_eq!(range_of("items=1-2", 10).ok(), Some(None));
        assert_eq!(
            range_of("bytes=10-", 10).err().map(|e| e.code()),
            Some("InvalidRange")
        );
        let both = headers(&[("range", "bytes=0-1"), ("x-ms-range", "bytes=3-4")]);
        assert_eq!(range(&both, 10).ok(), Some(Some((3, 4))));
    }
}
