//! The item types whose display names the service lets two items of the type share in a
//! workspace. Every other type's name is unique per type (`ItemDisplayNameAlreadyInUse`,
//! fabric-cicd PR #793).
//!
//! Each row is a type fabric-cli's recordings (microsoft/fabric-cli 1.7.0, commit 23a18448)
//! show created, and succeeding, with the name of an item of the type that the workspace's
//! listing just before holds; no recording shows a create of any type refused for its name:
//!
//! - `SemanticModel`: test_mkdir/test_mkdir_item_with_creation_payload_success[Report--
//!   expected_assertions3] (2026-01) lists two `fabcli000001_auto` models, the second made by
//!   test_mkdir_item_success[Report] (202, then `Succeeded`) beside the first.
//! - `DigitalTwinBuilder`: test_mkdir_item_success[DigitalTwinBuilderFlow] (2026-05-13) makes a
//!   second `fabcli000001_auto` (202, `Succeeded`), and test_mkdir_item_success[DigitalTwinBuilder]
//!   lists both.
//! - `Eventhouse`: test_exists/test_exists_onelake_exists_success[KQLDatabase-Tables-True]
//!   (2026-02-06) makes a second `fabcli000001_auto` eventhouse (201).

/// The types whose names repeat, as the service lets them.
const SHARED_NAMES: &[&str] = &["DigitalTwinBuilder", "Eventhouse", "SemanticModel"];

/// Whether the service refuses a second item of `item_type` with a name one already has.
pub fn names_unique(item_type: &str) -> bool {
    !SHARED_NAMES
        .iter()
        .any(|name| name.eq_ignore_ascii_case(item_type))
}

#[cfg(test)]
mod tests {
    use super::names_unique;

    #[test]
    fn only_the_recorded_types_share_names() {
        assert!(!names_unique("SemanticModel"));
        assert!(!names_unique("semanticmodel"));
        assert!(!names_unique("DigitalTwinBuilder"));
        assert!(!names_unique("Eventhouse"));
        assert!(names_unique("DigitalTwinBuilderFlow"));
        assert!(names_unique("Lakehouse"));
        assert!(names_unique("Report"));
    }
}
