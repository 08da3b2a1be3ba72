//! Per-API quotas that the reference lists on top of the platform's (§6): external data shares
//! and their invitations 10 requests a minute, tags 25 a minute, per caller. Enforced only
//! with the `per-api-quotas` knob, answered like any throttling (429 `RequestBlocked` with
//! `Retry-After`).

use super::faults::admit_sliding;
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One API family with its own quota.
struct ApiQuota {
    /// Names the family in the window key.
    name: &'static str,
    /// Requests a caller may make per minute.
    per_minute: usize,
    /// Whether a request path belongs to the family.
    matches: fn(&str) -> bool,
}

/// The per-API quotas of the reference.
static QUOTAS: &[ApiQuota] = &[
    ApiQuota {
        name: "externalDataShares",
        per_minute: 10,
        matches: |path| path.contains("/externalDataShares"),
    },
    ApiQuota {
        name: "tags",
        per_minute: 25,
        matches: |path| {
            path.ends_with("/applyTags")
                || path.ends_with("/unapplyTags")
                || path == "/v1/tags"
                || path == "/v1/admin/tags"
        },
    },
];

/// The accepted requests of each caller per API family, over the last minute.
#[derive(Debug, Default)]
pub(crate) struct ApiQuotas {
    windows: Mutex<HashMap<(String, &'static str), VecDeque<Instant>>>,
}

impl ApiQuotas {
    /// Whether `path` falls under a per-API quota at all (checked before identifying the
    /// caller, which costs a token check).
    pub(crate) fn applies(path: &str) -> bool {
        QUOTAS.iter().any(|quota| (quota.matches)(path))
    }

    /// Admits `caller`'s request to `path` at `now`, or returns how long until it would be.
    pub(crate) fn admit(&self, caller: &str, path: &str, now: Instant) -> Result<(), Duration> {
        let Some(quota) = QUOTAS.iter().find(|quota| (quota.matches)(path)) else {
            return Ok(());
        };
        // The lock only guards queue pushes and pops; poisoning cannot leave them torn.
        let mut windows = crate::locks::lock(&self.windows);
        let accepted = windows.entry((caller.to_string(), quota.name)).or_default();
        admit_sliding(accepted, quota.per_minute, Duration::from_secs(60), now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_allow_ten_a_minute_per_caller() {
        let quotas = ApiQuotas::default();
        let start = Instant::now();
        let path = "/v1/workspaces/w/items/i/externalDataShares";
        for i in 0..10 {
            assert!(quotas.admit("a", path, start).is_ok(), "request {i}");
        }
        let wait = quotas.admit("a", path, start).expect_err("eleventh");
        assert_eq!(wait, Duration::from_secs(60));
        assert!(quotas.admit("b", path, start).is_ok(), "another caller");
        assert!(
            quotas.admit("a", "/v1/workspaces", start).is_ok(),
            "other APIs"
        );
        assert!(
            quotas
                .admit("a", path, start + Duration::from_secs(60))
                .is_ok()
        );
        assert!(ApiQuotas::applies("/v1/externalDataShares/invitations/x"));
        assert!(!ApiQuotas::applies("/v1/workspaces/w/items"));
    }
}
