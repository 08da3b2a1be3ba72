//! Local Fabric: a wire-compatible Fabric server backed by SQLite.
