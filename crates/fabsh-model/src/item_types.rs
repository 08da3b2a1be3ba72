//! The Fabric item types we know: canonical name, per-type REST collection, portal path
//! segment, and which generic operations the type supports. Shared by the client (type
//! casing, portal URLs, copy checks) and local Fabric (routes, validation).

mod create_answers;
mod parts;
mod shared_names;

use crate::edit_distance::edit_distance;
pub use create_answers::created_through_operation;
use parts::{
    DATA_AGENT_PARTS, ENVIRONMENT_PARTS, LAKEHOUSE_PARTS, NOTEBOOK_PARTS, PIPELINE_PARTS,
    REPORT_PARTS, SEMANTIC_MODEL_PARTS, SPARK_JOB_PARTS,
};
pub use parts::{PartRules, Required, path_matches};
pub use shared_names::names_unique;

// The names code decides on (deploy's follow-ups, shell-only types, ...): one spelling, the
// table's, so a comparison cannot drift from what the table and the service call the type.
/// `Report`.
pub const REPORT: &str = "Report";
/// `SemanticModel`.
pub const SEMANTIC_MODEL: &str = "SemanticModel";
/// `Lakehouse`.
pub const LAKEHOUSE: &str = "Lakehouse";
/// `Environment`.
pub const ENVIRONMENT: &str = "Environment";
/// `Notebook`.
pub const NOTEBOOK: &str = "Notebook";
/// `SparkJobDefinition`.
pub const SPARK_JOB_DEFINITION: &str = "SparkJobDefinition";
/// `MLExperiment`.
pub const ML_EXPERIMENT: &str = "MLExperiment";
/// `Warehouse`.
pub const WAREHOUSE: &str = "Warehouse";
/// `SQLDatabase`.
pub const SQL_DATABASE: &str = "SQLDatabase";
/// `VariableLibrary`.
pub const VARIABLE_LIBRARY: &str = "VariableLibrary";
/// `DataAgent`.
pub const DATA_AGENT: &str = "DataAgent";
/// `Eventhouse`.
pub const EVENTHOUSE: &str = "Eventhouse";
/// `MirroredDatabase`.
pub const MIRRORED_DATABASE: &str = "MirroredDatabase";

/// One known item type.
#[derive(Debug, Clone, Copy)]
pub struct ItemType {
    /// The `type` value, PascalCase as the service wants it.
    pub name: &'static str,
    /// The per-type REST collection (`/workspaces/{ws}/notebooks`).
    pub collection: &'static str,
    /// The portal path segment (`/groups/{ws}/synapsenotebooks/{id}`), when known.
    pub portal: Option<&'static str>,
    /// Whether getDefinition/updateDefinition apply (false: `OperationNotSupportedForItem`).
    pub has_definition: bool,
    /// Whether the public API creates it (SQL endpoints, dashboards, datamarts are not).
    pub creatable: bool,
    /// What a definition of this type looks like, when known (`validate-definition --type`).
    pub parts: Option<&'static PartRules>,
    /// The Power BI groups-API collection that carries its endorsement, if it has one.
    pub endorsement_collection: Option<&'static str>,
}

const fn t(name: &'static str, collection: &'static str, portal: Option<&'static str>) -> ItemType {
    ItemType {
        name,
        collection,
        portal,
        has_definition: true,
        creatable: true,
        parts: None,
        endorsement_collection: None,
    }
}

impl ItemType {
    /// The same type with its definition layout.
    const fn with_parts(self, parts: &'static PartRules) -> ItemType {
        ItemType {
            parts: Some(parts),
            ..self
        }
    }

    /// The same type, endorsement-readable through this Power BI collection.
    const fn endorsed_in(self, collection: &'static str) -> ItemType {
        ItemType {
            endorsement_collection: Some(collection),
            ..self
        }
    }
}

const fn no_definition(
    name: &'static str,
    collection: &'static str,
    portal: Option<&'static str>,
) -> ItemType {
    ItemType {
        has_definition: false,
        ..t(name, collection, portal)
    }
}

const fn listed_only(
    name: &'static str,
    collection: &'static str,
    portal: Option<&'static str>,
) -> ItemType {
    ItemType {
        has_definition: false,
        creatable: false,
        ..t(name, collection, portal)
    }
}

/// The 51 ItemType values of the REST spec. Portal segments come from fabric-cli's URI
/// mapping; DataAgent's (`aiskills`) is only reported by third parties. The service's set is
/// open, so the client passes unknown names through; local Fabric refuses them, as a typo
/// should fail there as it would against the service.
pub static ITEM_TYPES: &[ItemType] = &[
    listed_only("Dashboard", "dashboards", Some("dashboards")).endorsed_in("dashboards"),
    t(REPORT, "reports", Some("reports"))
        .with_parts(&REPORT_PARTS)
        .endorsed_in("reports"),
    t(SEMANTIC_MODEL, "semanticModels", Some("datasets"))
        .with_parts(&SEMANTIC_MODEL_PARTS)
        .endorsed_in("datasets"),
    t("PaginatedReport", "paginatedReports", Some("rdlreports")),
    listed_only("Datamart", "datamarts", Some("datamarts")).endorsed_in("datamarts"),
    t(LAKEHOUSE, "lakehouses", Some("lakehouses")).with_parts(&LAKEHOUSE_PARTS),
    t("Eventhouse", "eventhouses", Some("eventhouses")),
    t(ENVIRONMENT, "environments", Some("sparkenvironments")).with_parts(&ENVIRONMENT_PARTS),
    t("KQLDatabase", "kqlDatabases", Some("databases")),
    t("KQLQueryset", "kqlQuerysets", Some("queryworkbenches")),
    t("KQLDashboard", "kqlDashboards", Some("kustodashboards")),
    t("DataPipeline", "dataPipelines", Some("pipelines")).with_parts(&PIPELINE_PARTS),
    t(NOTEBOOK, "notebooks", Some("synapsenotebooks")).with_parts(&NOTEBOOK_PARTS),
    t(
        SPARK_JOB_DEFINITION,
        "sparkJobDefinitions",
        Some("sparkjobdefinitions"),
    )
    .with_parts(&SPARK_JOB_PARTS),
    no_definition(ML_EXPERIMENT, "mlExperiments", Some("mlexperiments")),
    no_definition("MLModel", "mlModels", Some("mlmodels")),
    no_definition(WAREHOUSE, "warehouses", Some("datawarehouses")),
    t("Eventstream", "eventstreams", Some("eventstreams")),
    listed_only("SQLEndpoint", "sqlEndpoints", Some("lakewarehouses")),
    listed_only("MirroredWarehouse", "mirroredWarehouses", None),
    t(
        "MirroredDatabase",
        "mirroredDatabases",
        Some("mirroreddatabases"),
    ),
    t("Reflex", "reflexes", Some("reflexes")),
    t("GraphQLApi", "graphQLApis", Some("graphql")),
    t(
        "MountedDataFactory",
        "mountedDataFactories",
        Some("mounteddatafactories"),
    ),
    t(SQL_DATABASE, "sqlDatabases", Some("sqldatabases")),
    t("CopyJob", "copyJobs", Some("copyjobs")),
    t(
        VARIABLE_LIBRARY,
        "variableLibraries",
        Some("variable-libraries"),
    ),
    t("Dataflow", "dataflows", Some("dataflows-gen2")).endorsed_in("dataflows"),
    t("ApacheAirflowJob", "apacheAirflowJobs", None),
    no_definition("WarehouseSnapshot", "warehouseSnapshots", None),
    t(
        "DigitalTwinBuilder",
        "digitalTwinBuilders",
        Some("digital-twin-builder"),
    ),
    t("DigitalTwinBuilderFlow", "digitalTwinBuilderFlows", None),
    t(
        "MirroredAzureDatabricksCatalog",
        "mirroredAzureDatabricksCatalogs",
        None,
    ),
    t("Map", "maps", None),
    t("AnomalyDetector", "anomalyDetectors", None),
    t(
        "UserDataFunction",
        "userDataFunctions",
        Some("userdatafunctions"),
    ),
    t("GraphModel", "graphModels", None),
    t("GraphQuerySet", "graphQuerySets", Some("graph-queryset")),
    t("SnowflakeDatabase", "snowflakeDatabases", None),
    t("OperationsAgent", "operationsAgents", None),
    t(
        "CosmosDBDatabase",
        "cosmosDbDatabases",
        Some("cosmosdbdatabases"),
    ),
    t("Ontology", "ontologies", None),
    t("EventSchemaSet", "eventSchemaSets", None),
    t(DATA_AGENT, "dataAgents", Some("aiskills")).with_parts(&DATA_AGENT_PARTS),
    // Its swagger gets and updates its definition, and creates it only with one.
    t("MirroredCatalog", "mirroredCatalogs", None),
    no_definition("AppBackend", "appBackends", None),
    no_definition("OrgApp", "orgApps", None),
    no_definition("OrgAppAudience", "orgAppAudiences", None),
    t("DataBuildToolJob", "dataBuildToolJobs", None),
    t("AzureDatabricksStorage", "azureDatabricksStorages", None),
    no_definition("Plan", "plans", None),
];

/// The known type with this name, ignoring case.
pub fn find(name: &str) -> Option<&'static ItemType> {
    ITEM_TYPES
        .iter()
        .find(|item_type| item_type.name.eq_ignore_ascii_case(name.trim()))
}

/// The known type that `name` is a near miss of, when it is not a known type itself: the
/// same letters apart from case, spaces, `-` and `_` (`semantic-model`), or a typo a few
/// edits away (`Notebok`). Names far from every known type are not near misses: the
/// service adds types, so those pass through.
pub fn near_miss(name: &str) -> Option<&'static ItemType> {
    if find(name).is_some() {
        return None;
    }
    let given = letters(name);
    let allowed = match given.chars().count() {
        0..=3 => 0,
        4..=6 => 1,
        _ => 2,
    };
    ITEM_TYPES
        .iter()
        .map(|item_type| (edit_distance(&given, &letters(item_type.name)), item_type))
        .filter(|(distance, _)| *distance <= allowed)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, item_type)| item_type)
}

/// A type name reduced to what tells types apart: lower-case letters and digits.
fn letters(name: &str) -> String {
    name.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The known type served by this collection (`notebooks`), ignoring case as the service does
/// (its swagger itself spells `digitaltwinbuilders` and `mlmodels` besides the camelCase).
pub fn by_collection(collection: &str) -> Option<&'static ItemType> {
    ITEM_TYPES
        .iter()
        .find(|item_type| item_type.collection.eq_ignore_ascii_case(collection))
}

/// The type name as the service wants it: canonical casing for known types, else as given.
pub fn canonical(name: &str) -> String {
    find(name).map_or_else(
        || name.trim().to_string(),
        |item_type| item_type.name.to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_has_the_spec_types_once_each() {
        assert_eq!(ITEM_TYPES.len(), 51);
        for item_type in ITEM_TYPES {
            assert_eq!(find(item_type.name).map(|t| t.name), Some(item_type.name));
            assert_eq!(
                by_collection(item_type.collection).map(|t| t.name),
                Some(item_type.name)
            );
            assert_eq!(
                by_collection(&item_type.collection.to_uppercase()).map(|t| t.name),
                Some(item_type.name)
            );
        }
    }

    #[test]
    fn typos_of_known_types_are_near_misses_and_new_names_are_not() {
        assert_eq!(near_miss("Notebok").map(|t| t.name), Some("Notebook"));
        assert_eq!(near_miss("lakehose").map(|t| t.name), Some("Lakehouse"));
        assert_eq!(
            near_miss("semantic model").map(|t| t.name),
            Some("SemanticModel")
        );
        assert_eq!(near_miss("notebook").map(|t| t.name), None, "a known type");
        assert_eq!(near_miss("SomethingNew").map(|t| t.name), None);
        assert_eq!(
            near_miss("Mop").map(|t| t.name),
            None,
            "short names must match"
        );
    }

    #[test]
    fn casing_is_fixed_for_known_types_only() {
        assert_eq!(canonical("notebook"), "Notebook");
        assert_eq!(canonical("SomethingNew"), "SomethingNew");
    }
}
