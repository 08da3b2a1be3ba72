//! Per-type item collections (`/workspaces/{ws}/notebooks`, `/dataAgents`, ...): every one the
//! swagger has is routed, whatever its case, and lists only items of its type. The list is
//! `tests/fixtures/fabric-rest-api-specs/item-collections.tsv`: each `Items_List*` operation of
//! microsoft/fabric-rest-api-specs with its path segment and the `type` its example answers.
//! The swagger itself spells segments in more than one case (`digitaltwinbuilders`,
//! `mlmodels` beside `mlModels`): the service matches them without regard to case.

use crate::support::Server;
use serde_json::Value;
use std::path::Path;

/// (segment, item type, swagger file, operation id) per row of the fixture.
fn swagger_collections() -> Vec<[String; 4]> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fabric-rest-api-specs/item-collections.tsv");
    std::fs::read_to_string(path)
        .expect("item-collections.tsv")
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let cells: Vec<String> = line.split('\t').map(String::from).collect();
            cells.try_into().expect("four cells a row")
        })
        .collect()
}

/// The ids of `items` of `item_type`, in order.
fn ids_of(items: &Value, item_type: Option<&str>) -> Vec<String> {
    items["value"]
        .as_array()
        .expect("value")
        .iter()
        .filter(|item| item_type.is_none_or(|t| item["type"] == t))
        .map(|item| item["id"].as_str().expect("id").to_string())
        .collect()
}

#[test]
fn every_swagger_collection_lists_its_type_in_any_case() {
    let collections = swagger_collections();
    assert!(collections.len() >= 51, "the fixture lists the item types");
    let server = Server::session(module_path!());
    let (status, all) = server.get_json(&server.demo_path("/items"));
    assert_eq!(status, 200);
    let mut types_seen = 0;
    for [segment, item_type, file, operation] in &collections {
        let expected = ids_of(&all, Some(item_type));
        if !expected.is_empty() {
            types_seen += 1;
        }
        let variants = [
            segment.clone(),
            segment.to_uppercase(),
            segment.to_lowercase(),
        ];
        for variant in variants {
            let (status, listed) = server.get_json(&server.demo_path(&format!("/{variant}")));
            assert_eq!(status, 200, "{operation} ({file}) as /{variant}: {listed}");
            assert_eq!(
                ids_of(&listed, None),
                expected,
                "{operation} ({file}) as /{variant} lists the {item_type} items only"
            );
        }
    }
    assert!(types_seen >= 3, "the demo has items of several types");
}

#[test]
fn an_item_opens_through_its_collection_in_any_case() {
    // Items_GetNotebook (notebook/swagger.json): GET /workspaces/{ws}/notebooks/{id}; the
    // same item is not found through another type's collection.
    let server = Server::session(module_path!());
    let (_, notebooks) = server.get_json(&server.demo_path("/notebooks"));
    let id = ids_of(&notebooks, None)
        .into_iter()
        .next()
        .expect("a notebook");
    for collection in ["notebooks", "Notebooks", "NOTEBOOKS", "Items"] {
        let (status, item) = server.get_json(&server.demo_path(&format!("/{collection}/{id}")));
        assert_eq!(status, 200, "/{collection}/{id}: {item}");
        assert_eq!(item["id"], id.as_str());
    }
    let (status, body) = server.get_json(&server.demo_path(&format!("/Lakehouses/{id}")));
    assert_eq!(status, 404, "{body}");
}
