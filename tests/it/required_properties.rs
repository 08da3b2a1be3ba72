//! Typed GETs of every other item type whose swagger `Get<Type>` answers required
//! `properties` (issue 28: "every typed GET carries the properties its swagger defines"),
//! checked against the vendored `<type>/definitions.json` and `Get<Type>` examples
//! (tests/fixtures/fabric-rest-api-specs, MIT); the types with tests of their own are in
//! typed_properties.rs and agreement_routes.rs (Environment).

use crate::data_agent_wire::swagger;
use crate::service_bodies::assert_shaped;
use crate::support::shared;
use crate::typed_properties::{create, definition, example_properties, properties};
use serde_json::json;

/// One type: its swagger folder, collection, properties definition, Get example, and the
/// create example (and its body parameter) when the swagger creates it with a payload.
struct Typed {
    folder: &'static str,
    collection: &'static str,
    properties: &'static str,
    get: &'static str,
    create: Option<(&'static str, &'static str)>,
}

/// The other types whose swagger `Get<Type>` answers required `properties` (every
/// `*/swagger.json` of the vendored commit; the others have tests of their own).
const REQUIRED_PROPERTIES: &[Typed] = &[
    Typed {
        folder: "sparkjobdefinition",
        collection: "sparkJobDefinitions",
        properties: "SparkJobDefinitionProperties",
        get: "GetSparkJobDefinition",
        create: None,
    },
    Typed {
        folder: "orgApp",
        collection: "orgApps",
        properties: "OrgAppProperties",
        get: "GetOrgApp",
        create: None,
    },
    Typed {
        folder: "orgAppAudience",
        collection: "orgAppAudiences",
        properties: "OrgAppAudienceProperties",
        get: "GetOrgAppAudience",
        create: None,
    },
    Typed {
        folder: "eventSchemaSet",
        collection: "eventSchemaSets",
        properties: "EventSchemaSetProperties",
        get: "GetEventSchemaSet",
        create: None,
    },
    Typed {
        folder: "dataBuildToolJob",
        collection: "dataBuildToolJobs",
        properties: "DataBuildToolJobProperties",
        get: "GetDataBuildToolJob",
        create: None,
    },
    Typed {
        folder: "variableLibrary",
        collection: "variableLibraries",
        properties: "VariableLibraryProperties",
        get: "GetVariableLibrary",
        create: None,
    },
    Typed {
        folder: "cosmosDbDatabase",
        collection: "cosmosDbDatabases",
        properties: "CosmosDBDatabaseProperties",
        get: "GetCosmosDBDatabase",
        create: None,
    },
    Typed {
        folder: "operationsAgent",
        collection: "operationsAgents",
        properties: "OperationsAgentProperties",
        get: "GetOperationsAgent",
        create: None,
    },
    Typed {
        folder: "warehouseSnapshot",
        collection: "warehouseSnapshots",
        properties: "WarehouseSnapshotProperties",
        get: "GetWarehouseSnapshot",
        create: Some((
            "CreateWarehouseSnapshotWithoutDefinition",
            "createWarehouseSnapshotRequest",
        )),
    },
    Typed {
        folder: "mirroredAzureDatabricksCatalog",
        collection: "mirroredAzureDatabricksCatalogs",
        properties: "MirroredAzureDatabricksCatalogProperties",
        get: "GetMirroredAzureDatabricksCatalog",
        create: Some((
            "CreateMirroredAzureDatabricksCatalogWithPayload",
            "createMirroredAzureDatabricksCatalogRequest",
        )),
    },
    Typed {
        folder: "digitalTwinBuilderFlow",
        collection: "digitalTwinBuilderFlows",
        properties: "DigitalTwinBuilderFlowProperties",
        get: "GetDigitalTwinBuilderFlow",
        create: Some((
            "CreateDigitalTwinBuilderFlowWithoutDefinition",
            "createDigitalTwinBuilderFlowRequest",
        )),
    },
];

#[test]
fn every_type_with_required_properties_carries_them() {
    let server = shared(module_path!());
    let ws = server.demo_path("");
    let ws_id = ws.rsplit('/').next().expect("workspace id").to_string();
    let warehouse = create(server, "warehouses", json!({"displayName": "Snapshotted"}));
    for typed in REQUIRED_PROPERTIES {
        let Typed {
            folder,
            collection,
            properties: name,
            get,
            create: create_example,
        } = typed;
        let body = match create_example {
            Some((file, param)) => {
                let mut body = swagger(&format!("{folder}/examples/{file}.json"))["parameters"]
                    [*param]
                    .clone();
                let payload = &mut body["creationPayload"];
                if payload.get("parentWarehouseId").is_some() {
                    payload["parentWarehouseId"] = json!(warehouse);
                }
                if let Some(reference) = payload.get_mut("digitalTwinBuilderItemReference") {
                    reference["workspaceId"] = json!(ws_id);
                }
                body
            }
            None => json!({"displayName": format!("Typed {name}")}),
        };
        let id = create(server, collection, body.clone());
        let answered = properties(server, collection, &id);
        let shape = definition(&format!("{folder}/definitions.json"), name);
        assert_shaped(&answered, &shape, name);
        let example = example_properties(&format!("{folder}/examples/{get}.json"));
        if let Some(root) = answered.get("oneLakeRootPath") {
            // The example's path is OneLake's host, then the workspace and item ids.
            let host = example["oneLakeRootPath"].as_str().map_or_else(
                || "https://onelake.dfs.fabric.microsoft.com".into(),
                |p| p.splitn(4, '/').take(3).collect::<Vec<_>>().join("/"),
            );
            assert_eq!(root, &json!(format!("{host}/{ws_id}/{id}")), "{name}");
        }
        // What the item was created with is what it answers.
        if let Some(payload) = body["creationPayload"].as_object() {
            for (key, value) in payload {
                assert_eq!(&answered[key], value, "{name}.{key}: {answered}");
            }
        }
        // Values the example shows and the item does not decide.
        for key in ["activeValueSetName", "state", "autoSync"] {
            if answered.get(key).is_some() && example.get(key).is_some() {
                assert_eq!(answered[key], example[key], "{name}.{key}");
            }
        }
    }
}
