//! Item types that hold data: deleting one as an orphan loses what it holds (tables, files,
//! databases, experiment runs, model versions), which no repository can bring back. Their
//! orphans are deleted only when each type is opted in: by `--delete-type`, or, as
//! fabric-cicd does, by the type's `enable_<type>_unpublish` flag in config.yml's features.

/// A protected type and fabric-cicd's feature flag that lets it be unpublished, if it has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Protected {
    pub item_type: &'static str,
    pub feature: Option<&'static str>,
}

const fn with_flag(item_type: &'static str, feature: &'static str) -> Protected {
    Protected {
        item_type,
        feature: Some(feature),
    }
}

const fn no_flag(item_type: &'static str) -> Protected {
    Protected {
        item_type,
        feature: None,
    }
}

/// The protected types: fabric-cicd's five with their flags, then the other types whose
/// deletion loses data (mirrored and Cosmos DB databases, Snowflake databases, warehouse
/// snapshots, ML experiments and models).
pub const PROTECTED: &[Protected] = &[
    with_flag("Lakehouse", "enable_lakehouse_unpublish"),
    with_flag("Warehouse", "enable_warehouse_unpublish"),
    with_flag("SQLDatabase", "enable_sqldatabase_unpublish"),
    with_flag("Eventhouse", "enable_eventhouse_unpublish"),
    with_flag("KQLDatabase", "enable_kqldatabase_unpublish"),
    no_flag("MirroredDatabase"),
    no_flag("CosmosDBDatabase"),
    no_flag("SnowflakeDatabase"),
    no_flag("WarehouseSnapshot"),
    no_flag("MLExperiment"),
    no_flag("MLModel"),
];

/// The protected type named `name` (any case).
pub fn find(name: &str) -> Option<&'static Protected> {
    PROTECTED
        .iter()
        .find(|p| p.item_type.eq_ignore_ascii_case(name.trim()))
}

/// Why an orphan of `item_type` is kept, when it is a protected type that neither
/// `delete_types` nor the config's `features` opt in; None when it may be deleted.
pub fn kept_because(
    item_type: &str,
    delete_types: &[String],
    features: &[String],
) -> Option<String> {
    let protected = find(item_type)?;
    let by_flag = delete_types
        .iter()
        .any(|t| t.eq_ignore_ascii_case(protected.item_type));
    let by_feature = protected
        .feature
        .is_some_and(|flag| features.iter().any(|f| f == flag));
    if by_flag || by_feature {
        return None;
    }
    let how = match protected.feature {
        Some(flag) => format!(
            "--delete-type {} or config.yml's features {flag}",
            protected.item_type
        ),
        None => format!("--delete-type {}", protected.item_type),
    };
    Some(format!(
        "kept: a {} holds data, deleted only with {how}",
        protected.item_type
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_protected_type_is_deleted_only_when_opted_in_by_flag_or_feature() {
        let none: Vec<String> = Vec::new();
        assert!(kept_because("Notebook", &none, &none).is_none());
        let kept = kept_because("Lakehouse", &none, &none).expect("kept");
        assert!(
            kept.contains("--delete-type Lakehouse") && kept.contains("enable_lakehouse_unpublish")
        );
        assert!(kept_because("Lakehouse", &["lakehouse".into()], &none).is_none());
        assert!(kept_because("Lakehouse", &none, &["enable_lakehouse_unpublish".into()]).is_none());
        // One type's flag opts in no other.
        assert!(
            kept_because(
                "Warehouse",
                &["Lakehouse".into()],
                &["enable_lakehouse_unpublish".into()]
            )
            .is_some()
        );
        let mirrored = kept_because("MirroredDatabase", &none, &none).expect("kept");
        assert!(!mirrored.contains("features"), "{mirrored}");
    }
}
