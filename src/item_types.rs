//! The Fabric item types we know: canonical name, per-type REST collection, portal path
//! segment, and which generic operations the type supports. Shared by the client (type
//! casing, portal URLs, copy checks) and local Fabric (routes, validation).

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

/// The definition layout of one type (reference §8.3, §8.4). Path patterns are `/`-separated;
/// `*` matches within one segment, a final `**` matches any number of segments.
#[derive(Debug, Clone, Copy)]
pub struct PartRules {
    /// The `format` values the type accepts; empty when none is named.
    pub formats: &'static [&'static str],
    /// Parts that must be present: each entry is satisfied by any one of its patterns.
    pub required: &'static [Required],
    /// Every path the type is known to use; other paths get a warning.
    pub canonical: &'static [&'static str],
    /// Largest accepted part, in bytes, where the service documents one.
    pub max_part_bytes: Option<usize>,
}

/// One required part: any of `any_of`, checked only when the definition's `format` is
/// `when_format` (or always, when `None`).
#[derive(Debug, Clone, Copy)]
pub struct Required {
    pub when_format: Option<&'static str>,
    pub any_of: &'static [&'static str],
}

const fn always(any_of: &'static [&'static str]) -> Required {
    Required {
        when_format: None,
        any_of,
    }
}

const fn for_format(format: &'static str, any_of: &'static [&'static str]) -> Required {
    Required {
        when_format: Some(format),
        any_of,
    }
}

/// Notebook source files, by language, in the fabricGitSource layout.
const NOTEBOOK_SOURCES: &[&str] = &[
    "notebook-content.py",
    "notebook-content.sql",
    "notebook-content.scala",
    "notebook-content.r",
];

static NOTEBOOK_PARTS: PartRules = PartRules {
    formats: &["ipynb", "fabricGitSource"],
    required: &[
        for_format("fabricGitSource", NOTEBOOK_SOURCES),
        for_format(
            "ipynb",
            &["notebook-content.ipynb", "artifact.content.ipynb"],
        ),
        always(&[
            "notebook-content.py",
            "notebook-content.sql",
            "notebook-content.scala",
            "notebook-content.r",
            "notebook-content.ipynb",
            "artifact.content.ipynb",
        ]),
    ],
    canonical: &[
        "notebook-content.py",
        "notebook-content.sql",
        "notebook-content.scala",
        "notebook-content.r",
        "notebook-content.ipynb",
        "artifact.content.ipynb",
    ],
    max_part_bytes: None,
};

static REPORT_PARTS: PartRules = PartRules {
    formats: &["PBIR-Legacy", "PBIR"],
    required: &[
        always(&["definition.pbir"]),
        for_format("PBIR-Legacy", &["report.json"]),
        for_format("PBIR", &["definition/report.json"]),
        always(&["report.json", "definition/report.json"]),
    ],
    canonical: &[
        "definition.pbir",
        "report.json",
        "definition/**",
        "StaticResources/**",
        "CustomVisuals/**",
        "semanticModelDiagramLayout.json",
        "mobileState.json",
    ],
    max_part_bytes: None,
};

static SEMANTIC_MODEL_PARTS: PartRules = PartRules {
    formats: &["TMDL", "TMSL"],
    required: &[
        always(&["definition.pbism"]),
        for_format("TMDL", &["definition/model.tmdl"]),
        for_format("TMSL", &["model.bim"]),
        always(&["definition/model.tmdl", "model.bim"]),
    ],
    canonical: &[
        "definition.pbism",
        "model.bim",
        "definition/**",
        "diagramLayout.json",
        "Copilot/**",
        ".pbi/**",
    ],
    max_part_bytes: None,
};

static SPARK_JOB_PARTS: PartRules = PartRules {
    formats: &["SparkJobDefinitionV1", "SparkJobDefinitionV2"],
    required: &[always(&["SparkJobDefinitionV1.json"])],
    canonical: &["SparkJobDefinitionV1.json", "Main/**", "Libs/**"],
    max_part_bytes: None,
};

static PIPELINE_PARTS: PartRules = PartRules {
    formats: &[],
    required: &[always(&["pipeline-content.json"])],
    canonical: &["pipeline-content.json"],
    max_part_bytes: None,
};

static LAKEHOUSE_PARTS: PartRules = PartRules {
    formats: &[],
    required: &[always(&["lakehouse.metadata.json"])],
    canonical: &[
        "lakehouse.metadata.json",
        "shortcuts.metadata.json",
        "data-access-roles.json",
        "alm.settings.json",
    ],
    max_part_bytes: None,
};

static ENVIRONMENT_PARTS: PartRules = PartRules {
    formats: &[],
    required: &[],
    canonical: &[
        "Libraries/PublicLibraries/environment.yml",
        "Libraries/CustomLibraries/*",
        "Setting/Sparkcompute.yml",
    ],
    max_part_bytes: None,
};

/// Each data agent part is at most 5 MiB (reference §8.4).
const DATA_AGENT_MAX_PART: usize = 5 * 1024 * 1024;

static DATA_AGENT_PARTS: PartRules = PartRules {
    formats: &[],
    required: &[
        always(&["Files/Config/data_agent.json"]),
        always(&["Files/Config/draft/stage_config.json"]),
    ],
    canonical: &[
        "Files/Config/data_agent.json",
        "Files/Config/draft/stage_config.json",
        "Files/Config/draft/*/datasource.json",
        "Files/Config/draft/*/fewshots.json",
        "Files/Config/publish_info.json",
        "Files/Config/published/**",
    ],
    max_part_bytes: Some(DATA_AGENT_MAX_PART),
};

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
    t("Report", "reports", Some("reports"))
        .with_parts(&REPORT_PARTS)
        .endorsed_in("reports"),
    t("SemanticModel", "semanticModels", Some("datasets"))
        .with_parts(&SEMANTIC_MODEL_PARTS)
        .endorsed_in("datasets"),
    t("PaginatedReport", "paginatedReports", Some("rdlreports")),
    listed_only("Datamart", "datamarts", Some("datamarts")).endorsed_in("datamarts"),
    t("Lakehouse", "lakehouses", Some("lakehouses")).with_parts(&LAKEHOUSE_PARTS),
    t("Eventhouse", "eventhouses", Some("eventhouses")),
    t("Environment", "environments", Some("sparkenvironments")).with_parts(&ENVIRONMENT_PARTS),
    t("KQLDatabase", "kqlDatabases", Some("databases")),
    t("KQLQueryset", "kqlQuerysets", Some("queryworkbenches")),
    t("KQLDashboard", "kqlDashboards", Some("kustodashboards")),
    t("DataPipeline", "dataPipelines", Some("pipelines")).with_parts(&PIPELINE_PARTS),
    t("Notebook", "notebooks", Some("synapsenotebooks")).with_parts(&NOTEBOOK_PARTS),
    t(
        "SparkJobDefinition",
        "sparkJobDefinitions",
        Some("sparkjobdefinitions"),
    )
    .with_parts(&SPARK_JOB_PARTS),
    no_definition("MLExperiment", "mlExperiments", Some("mlexperiments")),
    no_definition("MLModel", "mlModels", Some("mlmodels")),
    no_definition("Warehouse", "warehouses", Some("datawarehouses")),
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
    t("SQLDatabase", "sqlDatabases", Some("sqldatabases")),
    t("CopyJob", "copyJobs", Some("copyjobs")),
    t(
        "VariableLibrary",
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
    t("DataAgent", "dataAgents", Some("aiskills")).with_parts(&DATA_AGENT_PARTS),
    no_definition("MirroredCatalog", "mirroredCatalogs", None),
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

/// The known type served by this collection (`notebooks`).
pub fn by_collection(collection: &str) -> Option<&'static ItemType> {
    ITEM_TYPES
        .iter()
        .find(|item_type| item_type.collection == collection)
}

/// Whether `path` matches a part pattern of [`PartRules`].
pub fn path_matches(pattern: &str, path: &str) -> bool {
    let pattern: Vec<&str> = pattern.split('/').collect();
    let path: Vec<&str> = path.split('/').collect();
    segments_match(&pattern, &path)
}

fn segments_match(pattern: &[&str], path: &[&str]) -> bool {
    match (pattern.first(), path.first()) {
        (Some(&"**"), _) => !path.is_empty(),
        (Some(head), Some(segment)) => {
            glob_segment(head.as_bytes(), segment.as_bytes())
                && segments_match(&pattern[1..], &path[1..])
        }
        (None, None) => true,
        _ => false,
    }
}

fn glob_segment(pattern: &[u8], text: &[u8]) -> bool {
    match pattern.split_first() {
        None => text.is_empty(),
        Some((b'*', rest)) => (0..=text.len()).any(|skip| glob_segment(rest, &text[skip..])),
        Some((head, rest)) => text
            .split_first()
            .is_some_and(|(first, tail)| first == head && glob_segment(rest, tail)),
    }
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
    fn part_patterns_match_segments_and_trees() {
        assert!(path_matches(
            "definition/**",
            "definition/pages/p1/page.json"
        ));
        assert!(!path_matches("definition/**", "definition"));
        assert!(path_matches(
            "Files/Config/draft/*/datasource.json",
            "Files/Config/draft/lakehouse-tables-Sales/datasource.json"
        ));
        assert!(!path_matches(
            "Files/Config/draft/*/datasource.json",
            "Files/Config/draft/a/b/datasource.json"
        ));
        assert!(path_matches(
            "Libraries/CustomLibraries/*",
            "Libraries/CustomLibraries/x.whl"
        ));
        assert!(!path_matches("report.json", "definition/report.json"));
    }

    #[test]
    fn casing_is_fixed_for_known_types_only() {
        assert_eq!(canonical("notebook"), "Notebook");
        assert_eq!(canonical("SomethingNew"), "SomethingNew");
    }
}
