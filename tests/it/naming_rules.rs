//! Names the service refuses (issue 48): local Fabric refuses each name a documented naming
//! rule refuses, on create and on rename, and takes the names the rules allow. The rules are
//! read here from the swagger's own words (tests/fixtures/fabric-rest-api-specs, commit
//! 4a7d6e4, MIT: the `displayName` descriptions of platform, appBackend, eventhouse,
//! kqlDatabase, digitalTwinBuilder and ontology), or quoted from the Learn pages the swagger
//! sends the reader to (folders) and that state a type's rules (lakehouse, SQL database). No
//! recording shows a refused name: the answer is 400 `InvalidInput`, the code and message the
//! service gave for a lakehouse named `lh-demo` (microsoft/terraform-provider-fabric issue
//! 100), and for folders the code the swagger lists, `InvalidFolderDisplayName`.

use crate::data_agent_wire::swagger;
use crate::service_bodies::call;
use crate::support::Server;
use serde_json::{Value, json};

/// The `displayName` description of a swagger request definition.
fn described(file: &str, request: &str) -> String {
    let text = &swagger(file)["definitions"][request]["properties"]["displayName"]["description"];
    text.as_str()
        .unwrap_or_else(|| panic!("{file} {request}"))
        .to_string()
}

/// The text of `text` between `before` and the next `after`.
fn between<'a>(text: &'a str, before: &str, after: &str) -> &'a str {
    let start = text
        .find(before)
        .unwrap_or_else(|| panic!("{before:?} in {text}"))
        + before.len();
    let len = text[start..].find(after).expect("the end");
    &text[start..start + len]
}

/// Sends `body` and expects the 400 with `code`; the rule is said in the answer.
fn refused(server: &Server, method: &str, path: &str, body: &Value, code: &str) {
    let (status, _, text) = call(server, method, path, Some(body));
    assert_eq!(status, 400, "{method} {path} {body}: {text}");
    let answer: Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(answer["errorCode"], code, "{text}");
    let said = answer["moreDetails"][0]["message"]
        .as_str()
        .or(answer["message"].as_str())
        .unwrap_or_default();
    // The name, then the rule it breaks.
    assert!(said.contains("valid: "), "the rule is said: {text}");
}

/// Sends `body` and expects it taken (201, or 202 for an operation, or 200 for a PATCH).
fn taken(server: &Server, method: &str, path: &str, body: &Value) -> Option<String> {
    let (status, _, text) = call(server, method, path, Some(body));
    assert!(
        (200..=202).contains(&status),
        "{method} {path} {body}: {status} {text}"
    );
    serde_json::from_str::<Value>(&text).ok()?["id"]
        .as_str()
        .map(str::to_string)
}

fn name(text: &str) -> Value {
    json!({ "displayName": text })
}

#[test]
fn workspace_names_follow_the_swagger() {
    let server = Server::session(module_path!());
    for request in ["CreateWorkspaceRequest", "UpdateWorkspaceRequest"] {
        let text = described("platform/definitions/platform.json", request);
        assert!(
            text.contains("cannot contain more than 256 characters"),
            "{text}"
        );
        assert_eq!(between(&text, "<br>\"", "\""), "Admin monitoring");
    }
    refused(
        &server,
        "POST",
        "/v1/workspaces",
        &name("Admin monitoring"),
        "InvalidInput",
    );
    refused(
        &server,
        "POST",
        "/v1/workspaces",
        &name(&"w".repeat(257)),
        "InvalidInput",
    );
    let longest = server.own_name(&"w".repeat(250));
    let id = taken(&server, "POST", "/v1/workspaces", &name(&longest)).expect("id");
    let path = format!("/v1/workspaces/{id}");
    refused(
        &server,
        "PATCH",
        &path,
        &name("admin monitoring"),
        "InvalidInput",
    );
    taken(
        &server,
        "PATCH",
        &path,
        &name(&server.own_name("Sales / EMEA: 2026")),
    );
    call(&server, "DELETE", &path, None);
}

#[test]
fn folder_names_follow_learns_folder_name_requirements() {
    let server = Server::session(module_path!());
    // The swagger's folder names "must meet [Folder name requirements](/fabric/get-started/
    // workspaces-folders#folder-name-requirements)"; Learn's list (MicrosoftDocs/fabric-docs,
    // docs/get-started/workspaces-folders.md): no C0 or C1 control codes, no leading or
    // trailing spaces, none of ~"#.&*:<>?/\{|}, not $recycle.bin, recycled or recycler, at
    // most 255 characters.
    let text = described("platform/definitions/platform.json", "CreateFolderRequest");
    assert!(text.contains("#folder-name-requirements"), "{text}");
    let folders = server.demo_path("/folders");
    let mut bad: Vec<String> = "~\"#.&*:<>?/\\{|}"
        .chars()
        .map(|c| format!("a{c}b"))
        .collect();
    bad.extend(
        [
            "nul\u{0}",
            "two\nlines",
            "c1\u{85}",
            " lead",
            "trail ",
            "Recycler",
        ]
        .map(String::from),
    );
    bad.push("f".repeat(256));
    for folder in &bad {
        refused(
            &server,
            "POST",
            &folders,
            &name(folder),
            "InvalidFolderDisplayName",
        );
    }
    taken(&server, "POST", &folders, &name(&"f".repeat(255)));
    let id = taken(&server, "POST", &folders, &name("Q3 reports (draft)")).expect("id");
    let path = format!("{folders}/{id}");
    refused(
        &server,
        "PATCH",
        &path,
        &name("Q3/Q4"),
        "InvalidFolderDisplayName",
    );
    taken(&server, "PATCH", &path, &name("Q3 and Q4 reports"));
}

#[test]
fn app_backend_names_follow_the_swagger() {
    let server = Server::session(module_path!());
    let backends = server.demo_path("/appBackends");
    for request in ["CreateAppBackendRequest", "UpdateAppBackendRequest"] {
        let text = described("appBackend/definitions.json", request);
        let longest: usize = between(&text, "can't exceed ", " characters")
            .parse()
            .expect("n");
        assert_eq!(longest, 91);
        for special in between(&text, "special characters (", "), can't end").split(' ') {
            let bad = format!("a{special}b");
            refused(&server, "POST", &backends, &name(&bad), "InvalidInput");
        }
        for reserved in between(&text, "reserved name (", ")").split(", ") {
            refused(&server, "POST", &backends, &name(reserved), "InvalidInput");
        }
        assert!(text.contains("can't end with a period or space"), "{text}");
        for bad in ["ends.", "ends ", "a".repeat(longest + 1).as_str()] {
            refused(&server, "POST", &backends, &name(bad), "InvalidInput");
        }
    }
    let id = taken(&server, "POST", &backends, &name(&"a".repeat(91))).expect("id");
    let path = format!("{backends}/{id}");
    refused(&server, "PATCH", &path, &name("tempdb"), "InvalidInput");
    taken(&server, "PATCH", &path, &name("Orders backend v2"));
}

#[test]
fn eventhouse_and_kql_database_names_follow_the_swagger() {
    let server = Server::session(module_path!());
    let allowed = "alphanumeric characters, underscores, periods, and hyphens";
    for (file, request) in [
        ("eventhouse/definitions.json", "CreateEventhouseRequest"),
        ("eventhouse/definitions.json", "UpdateEventhouseRequest"),
        ("kqlDatabase/definitions.json", "CreateKQLDatabaseRequest"),
        ("kqlDatabase/definitions.json", "UpdateKQLDatabaseRequest"),
    ] {
        assert!(
            described(file, request).contains(allowed),
            "{file} {request}"
        );
    }
    let eventhouses = server.demo_path("/eventhouses");
    let databases = server.demo_path("/kqlDatabases");
    for bad in [
        "with space",
        "a/b",
        "a#b",
        "a:b",
        "nul\u{0}",
        "two\nlines",
        "a..b/c",
    ] {
        refused(&server, "POST", &eventhouses, &name(bad), "InvalidInput");
        refused(&server, "POST", &databases, &name(bad), "InvalidInput");
    }
    let house = taken(&server, "POST", &eventhouses, &name("Tele_metry.v1-2")).expect("id");
    let database = json!({
        "displayName": "Tele_metry.db-1",
        "creationPayload": {"databaseType": "ReadWrite", "parentEventhouseItemId": house},
    });
    taken(&server, "POST", &databases, &database);
    let path = format!("{eventhouses}/{house}");
    refused(&server, "PATCH", &path, &name("Tele metry"), "InvalidInput");
}

#[test]
fn digital_twin_builder_and_ontology_names_follow_the_swagger() {
    let server = Server::session(module_path!());
    let rule =
        "It should start with letter, only has numbers and letters or _ and is less than 100";
    for (folder, request, collection) in [
        (
            "digitalTwinBuilder",
            "CreateDigitalTwinBuilderRequest",
            "/digitaltwinbuilders",
        ),
        ("ontology", "CreateOntologyRequest", "/ontologies"),
    ] {
        let text = described(&format!("{folder}/definitions.json"), request);
        assert!(text.contains(rule), "{text}");
        let path = server.demo_path(collection);
        for bad in [
            "9lives",
            "_first",
            "two words",
            "a-b",
            "a".repeat(100).as_str(),
        ] {
            refused(&server, "POST", &path, &name(bad), "InvalidInput");
        }
        taken(
            &server,
            "POST",
            &path,
            &name(&format!("A{}", "b".repeat(98))),
        );
    }
}

#[test]
fn lakehouse_and_sql_database_names_follow_learn() {
    let server = Server::session(module_path!());
    // Learn, "Create a lakehouse": "must begin with a letter (A–Z or a–z) and may only contain
    // alphanumeric characters and underscores thereafter. [...] must not exceed 123
    // characters." `lh-demo` is the name the service refused (terraform-provider-fabric #100).
    let lakehouses = server.demo_path("/lakehouses");
    for bad in [
        "lh-demo",
        "Lake 0",
        "_x",
        "1st",
        "a/b",
        "a.b",
        "L".repeat(124).as_str(),
    ] {
        refused(&server, "POST", &lakehouses, &name(bad), "InvalidInput");
    }
    // The swagger's example name, and the longest.
    let id = taken(&server, "POST", &lakehouses, &name("Lakehouse_1")).expect("id");
    taken(&server, "POST", &lakehouses, &name(&"L".repeat(123)));
    let path = format!("{lakehouses}/{id}");
    refused(&server, "PATCH", &path, &name("lh-demo"), "InvalidInput");
    // A definition that renames it (updateMetadata) meets the same rules.
    let platform = json!({
        "metadata": {"type": "Lakehouse", "displayName": "lh-demo"},
        "config": {"version": "2.0", "logicalId": "00000000-0000-0000-0000-000000000000"},
    });
    let definition = json!({"definition": {"parts": [
        part("lakehouse.metadata.json", &json!({})),
        part(".platform", &platform),
    ]}});
    let update = format!("{path}/updateDefinition?updateMetadata=true");
    refused(&server, "POST", &update, &definition, "InvalidInput");

    // Learn, "Limitations in SQL database": "Database names cannot contain characters ! [ ] <
    // > * % & : / ? # = @ ^ \" ' ; ( )".
    let databases = server.demo_path("/sqlDatabases");
    for c in "![]<>*%&:/?#=@^\"';()".chars() {
        refused(
            &server,
            "POST",
            &databases,
            &name(&format!("db{c}1")),
            "InvalidInput",
        );
    }
    // fabric-cicd's sample SQL database.
    taken(&server, "POST", &databases, &name("Hello db"));
}

#[test]
fn other_types_take_names_no_rule_refuses() {
    let server = Server::session(module_path!());
    // The swagger says only "must follow naming rules according to item type" and documents
    // none for these; Learn's "Git integration source code format" says an item's name may
    // hold what a directory name cannot (git integration encodes it).
    let items = server.demo_path("/items");
    for (kind, text) in [
        ("Notebook", "a/b"),
        ("Notebook", ".."),
        ("Notebook", "two\nlines"),
        ("Warehouse", "Warehouse 1"),
        // fabric-cicd's sample items.
        ("Notebook", "Hello World"),
        ("DataPipeline", "Run Hello World"),
    ] {
        let body = json!({"displayName": text, "type": kind});
        taken(&server, "POST", &items, &body);
    }
    refused(
        &server,
        "POST",
        &items,
        &json!({"displayName": "n".repeat(257), "type": "Notebook"}),
        "InvalidInput",
    );
}

fn part(path: &str, content: &Value) -> Value {
    use base64::Engine;
    let payload = base64::engine::general_purpose::STANDARD.encode(content.to_string());
    json!({"path": path, "payload": payload, "payloadType": "InlineBase64"})
}
