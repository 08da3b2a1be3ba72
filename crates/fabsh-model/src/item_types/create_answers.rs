//! Whether the service answers an item create inline (201 with the item) or as a long-running
//! operation (202), per type and per kind of create: with a `definition` or without one. The
//! service decides per type, and a type's two kinds of create need not agree (a Lakehouse is
//! made inline, a Lakehouse with a definition through an operation).
//!
//! Every row comes from `tests/recordings/create-status-by-type.tsv`: the creates recorded by
//! microsoft/fabric-cli 1.7.0's tests (commit 23a18448), counted per type and kind, with the
//! status of the newest recording, which wins where recordings disagree (a Warehouse was made
//! through an operation until early 2026, inline since April 2026). A kind of create never
//! recorded (for a type, or at all) gets the service's usual answer: inline without a
//! definition, an operation with one. The swagger's examples are no help there: nearly all
//! list both 201 and 202.

/// `Some(true)` when the service answers 202; one row per recorded type: (type, without a
/// definition, with one).
const SERVICE_ANSWERS: &[(&str, Option<bool>, Option<bool>)] = &[
    ("CopyJob", Some(false), None),
    ("CosmosDBDatabase", Some(true), Some(true)),
    ("DataPipeline", Some(false), Some(false)),
    ("Dataflow", Some(false), None),
    ("DigitalTwinBuilder", Some(true), Some(true)),
    ("DigitalTwinBuilderFlow", Some(false), Some(true)),
    ("Environment", Some(false), Some(true)),
    ("Eventhouse", Some(false), Some(true)),
    ("Eventstream", Some(true), None),
    ("GraphQLApi", Some(false), None),
    ("GraphQuerySet", Some(false), None),
    ("KQLDashboard", Some(false), Some(false)),
    ("KQLDatabase", Some(true), Some(true)),
    ("KQLQueryset", Some(false), Some(false)),
    ("Lakehouse", Some(false), Some(true)),
    ("MLExperiment", Some(true), None),
    ("MLModel", Some(true), None),
    ("Map", Some(false), Some(true)),
    ("MirroredDatabase", None, Some(false)),
    ("MountedDataFactory", None, Some(false)),
    ("Notebook", None, Some(true)),
    ("Reflex", Some(false), Some(false)),
    ("Report", None, Some(true)),
    ("SQLDatabase", Some(true), Some(true)),
    ("SemanticModel", None, Some(true)),
    ("SparkJobDefinition", Some(false), Some(false)),
    ("UserDataFunction", Some(false), Some(true)),
    ("VariableLibrary", Some(false), None),
    ("Warehouse", Some(false), None),
];

/// Whether the service answers a create of `item_type` (with a definition or not) with 202.
pub fn created_through_operation(item_type: &str, with_definition: bool) -> bool {
    let row = SERVICE_ANSWERS
        .iter()
        .find(|(name, _, _)| name.eq_ignore_ascii_case(item_type));
    let recorded = row.and_then(
        |&(_, without, with)| {
            if with_definition { with } else { without }
        },
    );
    recorded.unwrap_or(with_definition)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unrecorded_kinds_get_the_usual_answer() {
        // Recorded both ways.
        assert!(!created_through_operation("Lakehouse", false));
        assert!(created_through_operation("Lakehouse", true));
        // A notebook is recorded with a definition only: without one, inline.
        assert!(!created_through_operation("Notebook", false));
        // A Dataflow is recorded without a definition only: with one, an operation.
        assert!(created_through_operation("Dataflow", true));
        // A type never recorded.
        assert!(!created_through_operation("SomeNewType", false));
        assert!(created_through_operation("SomeNewType", true));
    }
}
