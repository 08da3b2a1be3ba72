//! Table definitions and the migration that creates them.

use rusqlite::{Connection, TransactionBehavior};

/// The migrations in order: the file's `PRAGMA user_version` counts those applied. A new
/// one is a step of its own appended here (one line), so branches that each add one merge by
/// keeping both lines.
const MIGRATIONS: &[&str] = &[
    SCHEMA_V1,
    SCHEMA_V2,
    SCHEMA_V3,
    SCHEMA_V4,
    SCHEMA_V5,
    super::creation_payloads::MIGRATION,
    super::environment_publishes::MIGRATION,
    super::workspace_tags::MIGRATION,
    super::shortcuts::MIGRATION,
    super::jobs::MIGRATION,
    super::jobs::MIGRATION_FIRING,
    super::mlv_definitions::MIGRATION,
    super::jobs::MIGRATION_SUBMITTER,
    super::item_names::MIGRATION,
];

/// Schema version written to `PRAGMA user_version`.
pub(crate) const VERSION: i64 = MIGRATIONS.len() as i64;

const SCHEMA_V1: &str = r"
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value BLOB NOT NULL
) WITHOUT ROWID;

CREATE TABLE tenants (
    id           TEXT PRIMARY KEY,
    display_name TEXT NOT NULL,
    is_default   INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE principals (
    id                  TEXT PRIMARY KEY,
    tenant_id           TEXT NOT NULL REFERENCES tenants(id),
    kind                TEXT NOT NULL,
    display_name        TEXT NOT NULL,
    user_principal_name TEXT,
    client_id           TEXT UNIQUE,
    secret_sha256       TEXT,
    created_at          INTEGER NOT NULL
);
CREATE UNIQUE INDEX principals_display_name ON principals(display_name COLLATE NOCASE);

CREATE TABLE workspaces (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    display_name TEXT NOT NULL,
    description  TEXT NOT NULL DEFAULT '',
    capacity_id  TEXT,
    created_at   INTEGER NOT NULL
);
CREATE UNIQUE INDEX workspaces_display_name ON workspaces(display_name COLLATE NOCASE);

CREATE TABLE role_assignments (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    principal_id TEXT NOT NULL REFERENCES principals(id) ON DELETE CASCADE,
    role         TEXT NOT NULL,
    UNIQUE (workspace_id, principal_id)
);
CREATE INDEX role_assignments_principal ON role_assignments(principal_id, workspace_id);

CREATE TABLE folders (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    parent_id    TEXT REFERENCES folders(id),
    display_name TEXT NOT NULL,
    created_at   INTEGER NOT NULL
);
CREATE UNIQUE INDEX folders_sibling_name
    ON folders(workspace_id, coalesce(parent_id, ''), display_name COLLATE NOCASE);
CREATE INDEX folders_parent ON folders(parent_id);
CREATE INDEX folders_workspace ON folders(workspace_id, seq);

CREATE TABLE items (
    seq                  INTEGER PRIMARY KEY AUTOINCREMENT,
    id                   TEXT NOT NULL UNIQUE,
    workspace_id         TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    type                 TEXT NOT NULL,
    display_name         TEXT NOT NULL,
    description          TEXT,
    folder_id            TEXT,
    parent_item_id       TEXT,
    logical_id           TEXT NOT NULL,
    sensitivity_label_id TEXT,
    definition_format    TEXT,
    created_at           INTEGER NOT NULL,
    deleted_at           INTEGER
);
-- Keyset paging walks these in creation order; the partial indexes skip soft-deleted rows.
CREATE INDEX items_live ON items(workspace_id, seq) WHERE deleted_at IS NULL;
CREATE INDEX items_live_type ON items(workspace_id, type, seq) WHERE deleted_at IS NULL;
CREATE INDEX items_live_folder ON items(folder_id, seq) WHERE deleted_at IS NULL;
CREATE INDEX items_parent ON items(parent_item_id) WHERE parent_item_id IS NOT NULL;
-- Names are unique per type among live items, case-insensitively, enforced by the file itself
-- so two processes cannot both win (since item_names::MIGRATION, not for the types whose names
-- the service lets repeat).
CREATE UNIQUE INDEX items_live_name
    ON items(workspace_id, type, display_name COLLATE NOCASE) WHERE deleted_at IS NULL;

CREATE TABLE definition_parts (
    item_id TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    ord     INTEGER NOT NULL,
    path    TEXT NOT NULL,
    payload BLOB NOT NULL,
    PRIMARY KEY (item_id, ord)
) WITHOUT ROWID;

CREATE TABLE operations (
    id           TEXT PRIMARY KEY,
    principal_id TEXT NOT NULL,
    status       TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    due_at       INTEGER NOT NULL,
    action       TEXT,
    has_result   INTEGER NOT NULL DEFAULT 0,
    result       TEXT,
    error        TEXT
);
CREATE INDEX operations_pending ON operations(due_at) WHERE status = 'Running';
";

/// Sign-in state: pending device codes (approved from another process, so they live in the
/// file) and the certificates and federated subjects registered on apps.
const SCHEMA_V2: &str = r"
CREATE TABLE device_codes (
    device_code_sha256 TEXT PRIMARY KEY,
    user_code          TEXT NOT NULL UNIQUE,
    tenant_id          TEXT NOT NULL,
    client_id          TEXT NOT NULL,
    scope              TEXT NOT NULL,
    expires_at         INTEGER NOT NULL,
    approved_by        TEXT REFERENCES principals(id) ON DELETE CASCADE
);

CREATE TABLE app_credentials (
    principal_id TEXT NOT NULL REFERENCES principals(id) ON DELETE CASCADE,
    kind         TEXT NOT NULL,
    value        BLOB NOT NULL
);
CREATE INDEX app_credentials_principal ON app_credentials(principal_id, kind);
";

/// Version 3: tags, item connections, endorsements, and logical-id lookups.
const SCHEMA_V3: &str = r"
CREATE TABLE tags (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    display_name TEXT NOT NULL,
    domain_id    TEXT
);
CREATE UNIQUE INDEX tags_display_name ON tags(display_name COLLATE NOCASE);

CREATE TABLE item_tags (
    item_id TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    tag_id  TEXT NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
    seq     INTEGER NOT NULL,
    PRIMARY KEY (item_id, tag_id)
) WITHOUT ROWID;

CREATE TABLE item_connections (
    item_id    TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    ord        INTEGER NOT NULL,
    connection TEXT NOT NULL,
    PRIMARY KEY (item_id, ord)
) WITHOUT ROWID;

CREATE TABLE endorsements (
    item_id      TEXT PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
    endorsement  TEXT NOT NULL,
    certified_by TEXT
) WITHOUT ROWID;

-- Logical ids are unique per workspace among live items; checked in the write transaction
-- rather than by a unique index, so older files holding duplicates still open.
CREATE INDEX items_live_logical_id ON items(workspace_id, logical_id) WHERE deleted_at IS NULL;
";

/// Version 4: logical ids are compared ignoring case, so their index must ignore case too;
/// with a case-sensitive index every create scanned the workspace's items.
const SCHEMA_V4: &str = r"
DROP INDEX IF EXISTS items_live_logical_id;
CREATE INDEX items_live_logical_id_nocase
    ON items(workspace_id, logical_id COLLATE NOCASE) WHERE deleted_at IS NULL;
";

/// Version 5: a counter bumped whenever an item's parts change, so parsed definitions can be
/// reused until then without reading the parts at all; and definition parts in an ordinary
/// table, since a WITHOUT ROWID table keeps each (large) payload inside its key's b-tree and
/// finding one part meant reading through its neighbours' payloads.
const SCHEMA_V5: &str = r"
ALTER TABLE items ADD COLUMN parts_version INTEGER NOT NULL DEFAULT 0;

CREATE TABLE definition_parts_by_row (
    item_id TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    ord     INTEGER NOT NULL,
    path    TEXT NOT NULL,
    payload BLOB NOT NULL
);
INSERT INTO definition_parts_by_row (item_id, ord, path, payload)
    SELECT item_id, ord, path, payload FROM definition_parts;
DROP TABLE definition_parts;
ALTER TABLE definition_parts_by_row RENAME TO definition_parts;
CREATE UNIQUE INDEX definition_parts_key ON definition_parts(item_id, ord);
";

/// Creates the tables on a new file; leaves a current file alone. Runs in an immediate
/// transaction so two processes opening a fresh directory at once do not both create.
pub(crate) fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let version: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    for (applied, migration) in (1..).zip(MIGRATIONS) {
        if version < applied {
            tx.execute_batch(migration)?;
        }
    }
    if version < VERSION {
        tx.pragma_update(None, "user_version", VERSION)?;
    }
    // Additive tables outside the numbered versions (see `shares::TABLES`).
    tx.execute_batch(super::shares::TABLES)?;
    tx.execute_batch(super::assistants::TABLES)?;
    tx.execute_batch(super::identities::TABLES)?;
    tx.commit()
}
