//! The item types whose names the service lets two items share
//! (`fabsh_model::item_types::names_unique`): local Fabric creates a second item of a name
//! taken, as the service's recordings (vendored under tests/fixtures/fabric-cli-recordings)
//! show it did.

use crate::agreement_routes::recorded_interaction;
use crate::service_bodies::{call, get_json, header, path_of, poll_to_success};
use crate::support::Server;
use serde_json::Value;

/// Each recording: the workspace's listing, holding an item of the name, then the create of
/// a second item of the type and name.
const SECOND_OF_A_NAME: &[&str] = &[
    "mkdir__test_mkdir_item_successReport__second_semantic_model.yaml",
    "mkdir__test_mkdir_item_successDigitalTwinBuilderFlow__second_builder.yaml",
    "exists__test_exists_onelake_exists_successKQLDatabase-Tables-True__second_eventhouse.yaml",
];

#[test]
fn a_name_taken_is_given_again_where_the_service_gives_it() {
    for file in SECOND_OF_A_NAME {
        let listing = recorded_interaction(file, 0);
        let create = recorded_interaction(file, 1);
        let request = create.request.expect("a create's body");
        // The recording's own evidence: the name was taken when the service took it again.
        let taken = listing.answer["value"]
            .as_array()
            .expect("a listing")
            .iter()
            .any(|item| {
                item["type"] == request["type"] && item["displayName"] == request["displayName"]
            });
        assert!(taken, "{file}: the listing holds the name");

        let server = Server::session(module_path!());
        let collection = create.path.rsplit('/').next().expect("a collection");
        let path = server.demo_path(&format!("/{collection}"));
        let mut made = Vec::new();
        for _ in 0..2 {
            let (status, head, answer) = call(&server, "POST", &path, Some(&request));
            assert_eq!(u64::from(status), create.status, "{file}: {answer}");
            made.push(created_id(&server, status, &head, &answer));
        }
        assert_ne!(made[0], made[1], "{file}");
        let listed = get_json(&server, &path);
        let named: Vec<&Value> = listed["value"]
            .as_array()
            .expect("a list")
            .iter()
            .filter(|item| item["displayName"] == request["displayName"])
            .collect();
        assert_eq!(named.len(), 2, "{file}: {listed}");
    }
}

/// The id of the item a create made: in its 201's answer, or its operation's result.
pub(crate) fn created_id(server: &Server, status: u16, head: &str, answer: &str) -> String {
    let item: Value = if status == 202 {
        poll_to_success(server, head);
        let location = header(head, "Location").expect("Location");
        get_json(server, &format!("{}/result", path_of(server, &location)))
    } else {
        serde_json::from_str(answer).expect("the item")
    };
    item["id"].as_str().expect("an id").to_string()
}
