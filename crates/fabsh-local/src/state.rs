//! What every handler shares. Only immutable facts (keys, ids, settings), per-server counters
//! and two memos live here; all mutable Fabric state is in the database file. The memos
//! (parsed agent definitions, item table schemas) are this server's own, and each entry is
//! keyed by a version its file keeps (an item's parts version, a table file's schema cookie),
//! which a request reads first: a change by any route or process is seen at once.

use super::agents::budget::QueryBudget;
use super::agents::parsed::Definitions;
use super::api_quotas::ApiQuotas;
use super::auth::Keys;
use super::bodies::LargeBodies;
use super::faults::{Faults, QuotaWindow, Spreads};
use super::hosts::Hosts;
use super::middleware::RequestLog;
use super::store::Db;
use super::tables::Tables;
use fabsh_model::agent::language_model::JsonChat;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Shared server state.
#[derive(Debug)]
pub(crate) struct AppState {
    /// The store.
    pub db: Db,
    /// Parsed agent definitions, by item and parts version.
    pub definitions: Definitions,
    /// The item tables beside the store, and their schemas by schema cookie.
    pub tables: Tables,
    /// Fault settings.
    pub faults: Faults,
    /// Accepted-request window for `quota-rps`.
    pub quota: QuotaWindow,
    /// Accepted-request windows for `per-api-quotas`.
    pub api_quotas: ApiQuotas,
    /// Which requests the share knobs pick.
    pub spreads: Spreads,
    /// Turns for reading large request bodies.
    pub large_bodies: LargeBodies,
    /// Recent requests for `GET /_local/requests`.
    pub requests: RequestLog,
    /// Token signing keys (the secret is persisted, never changes).
    pub keys: Keys,
    /// Tokens already checked against `keys`, so a client's next request skips the RSA check.
    pub verified_tokens: crate::auth::VerifiedTokens,
    /// The same for Storage tokens (OneLake's), kept apart so neither answers for the other.
    pub verified_storage_tokens: crate::auth::VerifiedTokens,
    /// Held while a OneLake write checks its conditions and puts its file in place, so that
    /// `If-None-Match: *` and `If-Match` hold against a concurrent write of the same blob.
    pub onelake_commits: std::sync::Mutex<()>,
    /// The ranges Put Blocks reserved in each blob's staged-blocks file (`onelake::staged`).
    pub onelake_staging: crate::onelake::Reservations,
    /// SHA-256 (hex) of the identity header secret `/msi/token` wants; only the digest is
    /// kept here, so it is compared without timing the secret itself.
    pub identity_header_digest: String,
    /// The tenant new principals join.
    pub default_tenant: String,
    /// A second tenant for cross-tenant tests.
    pub second_tenant: String,
    /// Object id of the seeded admin user.
    pub admin_id: String,
    /// `http://host:port` of the listener, used when a request has no `Host` header.
    pub bound_origin: String,
    /// The configured public URL (`--public-url`), the origin of every absolute URL.
    pub public_url: Option<String>,
    /// The hosts requests may name.
    pub hosts: Hosts,
    /// Where, how long and how many at once agents' SQL queries run.
    pub queries: QueryBudget,
    /// The language model agents write SQL with, if the server was given one.
    pub llm: Option<Arc<dyn JsonChat>>,
    /// Cancelled on shutdown so background LRO tasks stop.
    pub shutdown: CancellationToken,
}

/// The handle handlers receive.
pub(crate) type Shared = Arc<AppState>;
