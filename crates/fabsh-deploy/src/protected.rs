//! Item types that hold data: deleting one as an orphan loses what it holds (tables, files,
//! databases, experiment runs, model versions), which no repository can bring back. Their
//! orphans are deleted only when each type is opted in: by `--delete-type`, or, as
//! fabric-cicd does, by the type's `enable_<type>_unpublish` flag in config.yml's features.

use fabsh_model::deploy::Kept;

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
pub fn kept_because(item_type: &str, delete_types: &[String], features: &[String]) -> Option<Kept> {
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
    Some(Kept::Protected {
        item_type: protected.item_type.to_string(),
        feature: protected.feature.map(str::to_string),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn protected(item_type: &str, feature: Option<&str>) -> Option<Kept> {
        Some(Kept::Protected {
            item_type: item_type.into(),
            feature: feature.map(str::to_string),
        })
    }

    /// A type, `--delete-type`, config.yml's features, why it is kept (None: deleted).
    type Case = (
        &'static str,
        &'static [&'static str],
        &'static [&'static str],
        Option<Kept>,
    );

    #[test]
    fn a_protected_type_is_deleted_only_when_opted_in_by_flag_or_feature() {
        let lakehouse_flag = Some("enable_lakehouse_unpublish");
        let cases: &[Case] = &[
            ("Notebook", &[], &[], None),
            (
                "Lakehouse",
                &[],
                &[],
                protected("Lakehouse", lakehouse_flag),
            ),
            // --delete-type names a type in any case; the kept reason its canonical name.
            ("Lakehouse", &["lakehouse"], &[], None),
            ("Lakehouse", &[], &["enable_lakehouse_unpublish"], None),
            // One type's flag opts in no other.
            (
                "Warehouse",
                &["Lakehouse"],
                &["enable_lakehouse_unpublish"],
                protected("Warehouse", Some("enable_warehouse_unpublish")),
            ),
            ("KQLDatabase", &["KQLDatabase"], &[], None),
            // Types fabric-cicd has no flag for are opted in only by --delete-type.
            (
                "MirroredDatabase",
                &[],
                &[],
                protected("MirroredDatabase", None),
            ),
            ("MLModel", &["MLModel"], &[], None),
        ];
        for (item_type, types, features, kept) in cases {
            let types: Vec<String> = types.iter().map(std::string::ToString::to_string).collect();
            let features: Vec<String> = features
                .iter()
                .map(std::string::ToString::to_string)
                .collect();
            assert_eq!(
                &kept_because(item_type, &types, &features),
                kept,
                "{item_type} {types:?} {features:?}"
            );
        }
    }
}
