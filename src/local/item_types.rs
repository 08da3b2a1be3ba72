//! The item types local Fabric knows: ItemType name, per-type collection path segment, and
//! which generic operations the type supports.
//!
//! Only these 51 types (the spec's ItemType enum) are accepted for creation and as a `type`
//! filter; anything else is `InvalidItemType`. The real enum is open, but local Fabric cannot
//! know what an unknown type's definition or children look like, and a typo in a script should
//! fail here as it would against the service rather than create an item nobody can use.

/// One item type.
#[derive(Debug)]
pub struct ItemType {
    /// The PascalCase ItemType (`SemanticModel`).
    pub name: &'static str,
    /// The camelCase plural of the type-specific collection (`semanticModels`).
    pub collection: &'static str,
    /// Whether getDefinition/updateDefinition apply (false → `OperationNotSupportedForItem`).
    pub has_definition: bool,
    /// Whether the public API creates it (SQL endpoints, dashboards, datamarts are not).
    pub creatable: bool,
}

const fn t(name: &'static str, collection: &'static str) -> ItemType {
    ItemType {
        name,
        collection,
        has_definition: true,
        creatable: true,
    }
}

const fn no_definition(name: &'static str, collection: &'static str) -> ItemType {
    ItemType {
        name,
        collection,
        has_definition: false,
        creatable: true,
    }
}

const fn listed_only(name: &'static str, collection: &'static str) -> ItemType {
    ItemType {
        name,
        collection,
        has_definition: false,
        creatable: false,
    }
}

/// All known item types.
pub static ITEM_TYPES: &[ItemType] = &[
    listed_only("Dashboard", "dashboards"),
    t("Report", "reports"),
    t("SemanticModel", "semanticModels"),
    t("PaginatedReport", "paginatedReports"),
    listed_only("Datamart", "datamarts"),
    t("Lakehouse", "lakehouses"),
    t("Eventhouse", "eventhouses"),
    t("Environment", "environments"),
    t("KQLDatabase", "kqlDatabases"),
    t("KQLQueryset", "kqlQuerysets"),
    t("KQLDashboard", "kqlDashboards"),
    t("DataPipeline", "dataPipelines"),
    t("Notebook", "notebooks"),
    t("SparkJobDefinition", "sparkJobDefinitions"),
    no_definition("MLExperiment", "mlExperiments"),
    no_definition("MLModel", "mlModels"),
    no_definition("Warehouse", "warehouses"),
    t("Eventstream", "eventstreams"),
    listed_only("SQLEndpoint", "sqlEndpoints"),
    listed_only("MirroredWarehouse", "mirroredWarehouses"),
    t("MirroredDatabase", "mirroredDatabases"),
    t("Reflex", "reflexes"),
    t("GraphQLApi", "graphQLApis"),
    t("MountedDataFactory", "mountedDataFactories"),
    t("SQLDatabase", "sqlDatabases"),
    t("CopyJob", "copyJobs"),
    t("VariableLibrary", "variableLibraries"),
    t("Dataflow", "dataflows"),
    t("ApacheAirflowJob", "apacheAirflowJobs"),
    no_definition("WarehouseSnapshot", "warehouseSnapshots"),
    t("DigitalTwinBuilder", "digitalTwinBuilders"),
    t("DigitalTwinBuilderFlow", "digitalTwinBuilderFlows"),
    t(
        "MirroredAzureDatabricksCatalog",
        "mirroredAzureDatabricksCatalogs",
    ),
    t("Map", "maps"),
    t("AnomalyDetector", "anomalyDetectors"),
    t("UserDataFunction", "userDataFunctions"),
    t("GraphModel", "graphModels"),
    t("GraphQuerySet", "graphQuerySets"),
    t("SnowflakeDatabase", "snowflakeDatabases"),
    t("OperationsAgent", "operationsAgents"),
    t("CosmosDBDatabase", "cosmosDbDatabases"),
    t("Ontology", "ontologies"),
    t("EventSchemaSet", "eventSchemaSets"),
    t("DataAgent", "dataAgents"),
    no_definition("MirroredCatalog", "mirroredCatalogs"),
    no_definition("AppBackend", "appBackends"),
    no_definition("OrgApp", "orgApps"),
    no_definition("OrgAppAudience", "orgAppAudiences"),
    t("DataBuildToolJob", "dataBuildToolJobs"),
    t("AzureDatabricksStorage", "azureDatabricksStorages"),
    no_definition("Plan", "plans"),
];

/// The type with this name; case-insensitive because clients are sloppy with `type=` filters.
pub fn by_name(name: &str) -> Option<&'static ItemType> {
    ITEM_TYPES
        .iter()
        .find(|t| t.name.eq_ignore_ascii_case(name))
}

/// The type served under this collection segment (exact, as routes are case-sensitive).
pub fn by_collection(collection: &str) -> Option<&'static ItemType> {
    ITEM_TYPES.iter().find(|t| t.collection == collection)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_has_the_51_spec_types_with_unique_collections() {
        assert_eq!(ITEM_TYPES.len(), 51);
        for (i, a) in ITEM_TYPES.iter().enumerate() {
            for b in &ITEM_TYPES[i + 1..] {
                assert_ne!(a.name, b.name);
                assert_ne!(a.collection, b.collection);
            }
            assert_ne!(a.collection, "items");
            assert_ne!(a.collection, "folders");
        }
        assert_eq!(by_name("notebook").map(|t| t.name), Some("Notebook"));
        assert_eq!(
            by_collection("dataAgents").map(|t| t.name),
            Some("DataAgent")
        );
        assert!(by_collection("DataAgents").is_none());
    }
}
