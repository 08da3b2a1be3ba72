//! The Fabric item types we know: canonical name, per-type REST collection, and portal path
//! segment. The set is open — the service adds types — so unknown names pass through.

/// One known item type.
#[derive(Debug, Clone, Copy)]
pub struct ItemType {
    /// The `type` value, PascalCase as the service wants it.
    pub name: &'static str,
    /// The per-type REST collection (`/workspaces/{ws}/notebooks`).
    pub collection: &'static str,
    /// The portal path segment (`/groups/{ws}/synapsenotebooks/{id}`), when known.
    pub portal: Option<&'static str>,
}

const fn t(name: &'static str, collection: &'static str, portal: Option<&'static str>) -> ItemType {
    ItemType {
        name,
        collection,
        portal,
    }
}

/// The 51 ItemType values of the REST spec. Portal segments come from fabric-cli's URI
/// mapping; DataAgent's (`aiskills`) is only reported by third parties.
pub static ITEM_TYPES: &[ItemType] = &[
    t("Dashboard", "dashboards", Some("dashboards")),
    t("Report", "reports", Some("reports")),
    t("SemanticModel", "semanticModels", Some("datasets")),
    t("PaginatedReport", "paginatedReports", Some("rdlreports")),
    t("Datamart", "datamarts", Some("datamarts")),
    t("Lakehouse", "lakehouses", Some("lakehouses")),
    t("Eventhouse", "eventhouses", Some("eventhouses")),
    t("Environment", "environments", Some("sparkenvironments")),
    t("KQLDatabase", "kqlDatabases", Some("databases")),
    t("KQLQueryset", "kqlQuerysets", Some("queryworkbenches")),
    t("KQLDashboard", "kqlDashboards", Some("kustodashboards")),
    t("DataPipeline", "dataPipelines", Some("pipelines")),
    t("Notebook", "notebooks", Some("synapsenotebooks")),
    t(
        "SparkJobDefinition",
        "sparkJobDefinitions",
        Some("sparkjobdefinitions"),
    ),
    t("MLExperiment", "mlExperiments", Some("mlexperiments")),
    t("MLModel", "mlModels", Some("mlmodels")),
    t("Warehouse", "warehouses", Some("datawarehouses")),
    t("Eventstream", "eventstreams", Some("eventstreams")),
    t("SQLEndpoint", "sqlEndpoints", Some("lakewarehouses")),
    t("MirroredWarehouse", "mirroredWarehouses", None),
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
    t("SQLDatabase", "sqlDatabases", Some("sqldatabases")),
    t("CopyJob", "copyJobs", Some("copyjobs")),
    t(
        "VariableLibrary",
        "variableLibraries",
        Some("variable-libraries"),
    ),
    t("Dataflow", "dataflows", Some("dataflows-gen2")),
    t("ApacheAirflowJob", "apacheAirflowJobs", None),
    t("WarehouseSnapshot", "warehouseSnapshots", None),
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
    t("DataAgent", "dataAgents", Some("aiskills")),
    t("MirroredCatalog", "mirroredCatalogs", None),
    t("AppBackend", "appBackends", None),
    t("OrgApp", "orgApps", None),
    t("OrgAppAudience", "orgAppAudiences", None),
    t("DataBuildToolJob", "dataBuildToolJobs", None),
    t("AzureDatabricksStorage", "azureDatabricksStorages", None),
    t("Plan", "plans", None),
];

/// The known type with this name, ignoring case.
pub fn find(name: &str) -> Option<&'static ItemType> {
    ITEM_TYPES
        .iter()
        .find(|item_type| item_type.name.eq_ignore_ascii_case(name.trim()))
}

/// The known type served by this collection (`notebooks`).
pub fn by_collection(collection: &str) -> Option<&'static ItemType> {
    ITEM_TYPES
        .iter()
        .find(|item_type| item_type.collection == collection)
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
        }
    }

    #[test]
    fn casing_is_fixed_for_known_types_only() {
        assert_eq!(canonical("notebook"), "Notebook");
        assert_eq!(canonical("SomethingNew"), "SomethingNew");
    }
}
