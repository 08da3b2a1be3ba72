//! Item definitions end to end against local Fabric: round trips through the CLI, folders of
//! part files, notebook formats, and paths that would leave the folder.

use crate::stub::Stub;
use crate::support::{Home, Server};
use axum::Router;
use axum::routing::post;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

/// The text of one part of a `get-definition` answer.
pub(crate) fn decoded(definition: &Value, path: &str) -> String {
    let part = definition["definition"]["parts"]
        .as_array()
        .expect("parts")
        .iter()
        .find(|p| p["path"] == path)
        .unwrap_or_else(|| panic!("no part {path} in {definition}"));
    let bytes = STANDARD.decode(part["payload"].as_str().expect("payload"));
    String::from_utf8(bytes.expect("base64")).expect("utf8")
}

/// `item get-definition -w Demo --id ID` with extra flags, as JSON.
pub(crate) fn get_definition(server: &Server, id: &str, extra: &[&str]) -> Value {
    let mut args = vec![
        "item",
        "get-definition",
        "-w",
        server.demo.as_str(),
        "--id",
        id,
    ];
    args.extend_from_slice(extra);
    server.fabsh(&args).ok_json()
}

/// `item update-definition -w Demo --id ID` with the given source flags, asserting success.
fn update_definition(server: &Server, id: &str, source: &[&str]) {
    let mut args = vec![
        "item",
        "update-definition",
        "-w",
        server.demo.as_str(),
        "--id",
        id,
        "--yes",
    ];
    args.extend_from_slice(source);
    let run = server.fabsh(&args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "", "update-definition returns nothing");
}

/// Writes `value` to a file in the server's home and returns `@path`.
fn at_file(server: &Server, name: &str, value: &Value) -> String {
    let file = server.home.dir.path().join(name);
    std::fs::write(&file, value.to_string()).expect("write");
    format!("@{}", file.display())
}

#[test]
fn get_edit_update_get_shows_the_change() {
    let server = Server::session(module_path!());
    let mut definition = get_definition(&server, "Welcome", &[]);
    let edited = format!(
        "{}\n# CELL ********************\n\nprint('edited')\n",
        decoded(&definition, "notebook-content.py")
    );
    for part in definition["definition"]["parts"]
        .as_array_mut()
        .expect("parts")
    {
        if part["path"] == "notebook-content.py" {
            part["payload"] = json!(STANDARD.encode(&edited));
        }
    }
    let source = at_file(&server, "definition.json", &definition);
    update_definition(&server, "Welcome", &["--definition", &source]);
    let after = get_definition(&server, "Welcome", &["--decode"]);
    assert_eq!(decoded(&after, "notebook-content.py"), edited);
    let shown = after["definition"]["parts"][0]["decodedPayload"].as_str();
    assert!(shown.expect("decoded").contains("print('edited')"));
}

#[test]
fn a_folder_export_validates_and_updates_the_item() {
    let server = Server::session(module_path!());
    let dir = server.home.dir.path().join("model");
    let dir_text = dir.to_string_lossy().into_owned();
    let summary = get_definition(&server, "Sales Model", &["--dir", &dir_text]);
    let written: Vec<&str> = summary["parts"]
        .as_array()
        .expect("parts")
        .iter()
        .filter_map(|p| p["path"].as_str())
        .collect();
    assert!(
        written.contains(&"definition/tables/Orders.tmdl"),
        "{written:?}"
    );
    assert!(dir.join(".platform").is_file());

    let validate = [
        "item",
        "validate-definition",
        "--type",
        "SemanticModel",
        "--dir",
        &dir_text,
    ];
    let report = server
        .fabsh(&[&validate[..], &["--strict", "true"]].concat())
        .ok_json();
    assert_eq!(report["valid"], true, "{report}");

    let table = dir.join("definition/tables/Orders.tmdl");
    let text = std::fs::read_to_string(&table).expect("tmdl");
    std::fs::write(&table, text.replace("'Total Sales'", "'Revenue'")).expect("write");
    update_definition(&server, "Sales Model", &["--dir", &dir_text]);
    let after = get_definition(&server, "Sales Model", &[]);
    assert!(decoded(&after, "definition/tables/Orders.tmdl").contains("measure 'Revenue'"));

    let again = server.fabsh(&[
        "item",
        "get-definition",
        "-w",
        server.demo.as_str(),
        "--id",
        "Sales Model",
        "--dir",
        &dir_text,
    ]);
    assert_eq!(
        again.code, 2,
        "a non-empty folder is refused: {}",
        again.stderr
    );
    assert!(again.stderr.contains("is not empty"), "{}", again.stderr);
}

#[test]
fn a_single_file_becomes_a_single_part_named_after_it() {
    let server = Server::session(module_path!());
    let file = server.home.dir.path().join("notebook-content.py");
    let source = "# Fabric notebook source\n\n# CELL ********************\n\nx = 1\n";
    std::fs::write(&file, source).expect("write");
    update_definition(&server, "Welcome", &["--file", &file.to_string_lossy()]);
    let after = get_definition(&server, "Welcome", &[]);
    assert_eq!(decoded(&after, "notebook-content.py"), source);
}

#[test]
fn notebooks_convert_between_formats_on_request() {
    let server = Server::session(module_path!());
    let ipynb = get_definition(&server, "Welcome", &["--format", "ipynb"]);
    assert_eq!(ipynb["definition"]["format"], "ipynb");
    let notebook: Value =
        serde_json::from_str(&decoded(&ipynb, "notebook-content.ipynb")).expect("ipynb JSON");
    assert_eq!(notebook["nbformat"], 4);
    assert_eq!(notebook["cells"][0]["cell_type"], "markdown");

    // Stored as ipynb, read back in the source layout: the same notebook as before.
    let original = get_definition(&server, "Welcome", &[]);
    let source = at_file(&server, "ipynb.json", &ipynb);
    update_definition(&server, "Welcome", &["--definition", &source]);
    let back = get_definition(&server, "Welcome", &["--format", "fabricGitSource"]);
    assert_eq!(back["definition"]["format"], "fabricGitSource");
    assert_eq!(
        decoded(&back, "notebook-content.py"),
        decoded(&original, "notebook-content.py")
    );

    let refused = server.fabsh(&[
        "item",
        "get-definition",
        "-w",
        server.demo.as_str(),
        "--id",
        "Welcome",
        "--format",
        "TMSL",
    ]);
    assert_eq!(refused.code, 1);
    assert!(
        refused.stderr.contains("InvalidDefinitionFormat"),
        "{}",
        refused.stderr
    );
}

#[test]
fn new_items_start_with_a_definition_of_their_type() {
    let server = Server::session(module_path!());
    for item_type in [
        "Notebook",
        "DataPipeline",
        "Lakehouse",
        "SparkJobDefinition",
        "DataAgent",
    ] {
        let name = format!("Fresh_{item_type}");
        let created = server
            .fabsh(&[
                "item",
                "create",
                "-w",
                server.demo.as_str(),
                "--name",
                &name,
                "--type",
                item_type,
            ])
            .ok_json();
        let id = created["id"].as_str().expect("id");
        let dir = server.home.dir.path().join(item_type);
        let dir_text = dir.to_string_lossy().into_owned();
        get_definition(&server, id, &["--dir", &dir_text]);
        let platform: Value =
            serde_json::from_slice(&std::fs::read(dir.join(".platform")).expect(".platform"))
                .expect("JSON");
        assert_eq!(platform["metadata"]["type"], item_type);
        assert!(
            uuid::Uuid::try_parse(platform["config"]["logicalId"].as_str().expect("id")).is_ok()
        );
        let report = server
            .fabsh(&[
                "item",
                "validate-definition",
                "--type",
                item_type,
                "--dir",
                &dir_text,
                "--strict",
                "true",
            ])
            .ok_json();
        assert_eq!(report["valid"], true, "{item_type}: {report}");
    }
}

#[test]
fn part_paths_that_leave_the_folder_are_refused_and_nothing_is_written() {
    let evil = json!({"definition": {"parts": [
        {"path": "notebook-content.py", "payload": STANDARD.encode("fine"), "payloadType": "InlineBase64"},
        {"path": "../escaped.txt", "payload": STANDARD.encode("gotcha"), "payloadType": "InlineBase64"},
    ]}});
    let stub = Stub::start(move |_| {
        Router::new().route(
            "/v1/workspaces/{ws}/items/{id}/getDefinition",
            post(move || {
                let body = evil.to_string();
                async move { ([("content-type", "application/json")], body) }
            }),
        )
    });
    let home = Home::new();
    let out = home.dir.path().join("out");
    let out_text = out.to_string_lossy().into_owned();
    let run = home.run_env(
        &[
            "item",
            "get-definition",
            "-w",
            "11111111-1111-1111-1111-111111111111",
            "--id",
            "22222222-2222-2222-2222-222222222222",
            "--dir",
            &out_text,
        ],
        &[
            ("FABSH_ENDPOINT", stub.endpoint.as_str()),
            ("FABSH_TOKEN", "test-token"),
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("../escaped.txt"), "{}", run.stderr);
    assert!(!out.exists(), "nothing may be written");
    assert!(!home.dir.path().join("escaped.txt").exists());
}

#[test]
fn a_folder_with_a_symbolic_link_is_refused() {
    let home = Home::new();
    let dir = home.dir.path().join("parts");
    std::fs::create_dir(&dir).expect("dir");
    std::fs::write(home.dir.path().join("secret.txt"), "x").expect("write");
    std::os::unix::fs::symlink(
        home.dir.path().join("secret.txt"),
        dir.join("notebook-content.py"),
    )
    .expect("link");
    let dir_text = dir.to_string_lossy().into_owned();
    let run = home.run(&["item", "validate-definition", "--dir", &dir_text]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("symbolic link"), "{}", run.stderr);
}

/// Export a notebook with `get-definition --dir`, then create a new item from that folder in
/// the same workspace. The exported `.platform` carries the all-zero logical id, as every
/// getDefinition in recordings/fabric-cli does (export__test_export_item_success,
/// import__test_import_update_existing_item_successNotebook), so the import gets a fresh
/// identity instead of a 409 for the source's logical id.
#[test]
fn an_exported_folder_imports_beside_its_source() {
    let server = Server::session(module_path!());
    let dir = server.home.dir.path().join("welcome");
    let dir_text = dir.to_string_lossy().into_owned();
    get_definition(&server, "Welcome", &["--dir", &dir_text]);
    let platform: Value =
        serde_json::from_slice(&std::fs::read(dir.join(".platform")).expect(".platform"))
            .expect("JSON");
    assert_eq!(
        platform["config"]["logicalId"],
        "00000000-0000-0000-0000-000000000000"
    );
    let created = server
        .fabsh(&[
            "item",
            "create",
            "-w",
            server.demo.as_str(),
            "--name",
            "Welcome again",
            "--type",
            "Notebook",
            "--dir",
            &dir_text,
        ])
        .ok_json();
    assert_eq!(created["displayName"], "Welcome again");
    let copy = get_definition(&server, created["id"].as_str().expect("id"), &[]);
    let source = get_definition(&server, "Welcome", &[]);
    assert_eq!(
        decoded(&copy, "notebook-content.py"),
        decoded(&source, "notebook-content.py")
    );
}

#[test]
fn a_definition_written_half_way_leaves_nothing_that_blocks_a_second_run() {
    let server = Server::session(module_path!());
    // A notebook with a part of 200 KiB, written under a 64 KiB file-size limit: the write
    // fails part-way (the kernel stops the process), as a full disk or a kill would.
    let cell = format!("# CELL\n\nprint('{}')\n", "x".repeat(200 << 10));
    let definition = json!({"parts": [{
        "path": "notebook-content.py",
        "payload": STANDARD.encode(format!("# Fabric notebook source\n\n{cell}")),
        "payloadType": "InlineBase64",
    }]});
    let file = at_file(&server, "big.json", &definition);
    server
        .fabsh(&[
            "item",
            "create",
            "-w",
            server.demo.as_str(),
            "--name",
            "Big",
            "--type",
            "Notebook",
            "--definition",
            &file,
        ])
        .ok_json();
    let dir = server.home.dir.path().join("big");
    let dir_text = dir.to_string_lossy().into_owned();
    let args = [
        "item",
        "get-definition",
        "-w",
        server.demo.as_str(),
        "--id",
        "Big",
        "--dir",
        &dir_text,
    ];
    let mut limited = server.home.command_under_ulimit("-f 64", &args);
    limited
        .env("FABSH_ENDPOINT", &server.endpoint)
        .env("FABSH_TOKEN", &server.token)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let status = limited.status().expect("run fabsh");
    assert!(!status.success(), "the limited run wrote the whole part");
    assert!(
        !dir.exists(),
        "a half-written folder was left at {dir_text}"
    );
    let again = server.fabsh(&args).ok_json();
    assert_eq!(again["parts"][0]["path"], "notebook-content.py");
    assert!(
        std::fs::metadata(dir.join("notebook-content.py"))
            .expect("the part")
            .len()
            > 200 << 10
    );
}

#[test]
fn a_folder_holding_only_a_platform_is_refused_offline_for_the_type_given() {
    let server = Server::session(module_path!());
    let dir = server.home.dir.path().join("badnb");
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(
        dir.join(".platform"),
        r#"{"metadata": {"type": "Notebook", "displayName": "Bad"}, "config": {"version": "2.0", "logicalId": "00000000-0000-0000-0000-000000000000"}}"#,
    )
    .expect("platform");
    let before = server.request_count();
    let run = server.fabsh(&[
        "item",
        "create",
        "-w",
        server.demo.as_str(),
        "--name",
        "Bad",
        "--type",
        "Notebook",
        "--dir",
        &dir.to_string_lossy(),
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("notebook-content.py") && run.stderr.contains("MissingRequiredPart"),
        "{}",
        run.stderr
    );
    // Checked before the workspace was even looked up.
    assert_eq!(server.request_count(), before, "a request was sent");
}
