//! Naming things the way people type them: `WORKSPACE/ITEM` instead of `-w` and `--id`,
//! Microsoft fab's path form (`Demo.Workspace/Welcome.Notebook`), `ls`/`get`/`rm`,
//! `fabsh login` and `fabsh version`, and `--name` where `--id` is meant. Ids are checked
//! against the server's own lists (List Workspaces, `GET /v1/workspaces`, and List Items,
//! `GET /v1/workspaces/{workspaceId}/items`, in the Fabric REST swagger), read here over raw
//! HTTP rather than through fabsh.

use crate::support::Server;
use serde_json::Value;

/// The `value` list of a raw GET.
fn listed(server: &Server, path: &str) -> Vec<Value> {
    let (status, page) = server.get_json(path);
    assert_eq!(status, 200, "{path}: {page}");
    page["value"].as_array().expect("value").clone()
}

/// The Demo workspace's id, from List Workspaces.
fn demo_id(server: &Server) -> String {
    listed(server, "/v1/workspaces")
        .iter()
        .find(|ws| ws["displayName"] == server.demo.as_str())
        .and_then(|ws| ws["id"].as_str())
        .expect(server.demo.as_str())
        .to_string()
}

/// The id of Demo's item with this name and type, from List Items.
fn item_id(server: &Server, name: &str, item_type: &str) -> String {
    let path = format!("/v1/workspaces/{}/items", demo_id(server));
    listed(server, &path)
        .iter()
        .find(|item| item["displayName"] == name && item["type"] == item_type)
        .and_then(|item| item["id"].as_str())
        .unwrap_or_else(|| panic!("{name} ({item_type})"))
        .to_string()
}

/// The id fabsh prints for `args` with `-q id`.
fn shown_id(server: &Server, args: &[&str]) -> String {
    let run = server.fabsh(&[args, &["-q", "id"]].concat());
    run.ok_json().as_str().expect("id").to_string()
}

#[test]
fn a_workspace_item_path_names_the_same_item_as_the_flags() {
    let server = Server::session(module_path!());
    let welcome = item_id(&server, "Welcome", "Notebook");
    for args in [
        &[
            "item",
            "show",
            "-w",
            server.demo.as_str(),
            "--id",
            "Welcome",
        ][..],
        &["item", "show", format!("{}/Welcome", server.demo).as_str()],
        &["item", "get", format!("{}/Welcome", server.demo).as_str()],
        &["item", "show", "-w", server.demo.as_str(), "Welcome"],
        &[
            "item",
            "show",
            format!("{}.Workspace/Welcome.Notebook", server.demo).as_str(),
        ],
        &[
            "item",
            "show",
            format!("{}.workspace/welcome.NOTEBOOK", server.demo.to_lowercase()).as_str(),
        ],
        &[
            "item",
            "show",
            format!("{}/Welcome.Notebook", server.demo).as_str(),
        ],
    ] {
        assert_eq!(shown_id(&server, args), welcome, "{args:?}");
    }
    assert_eq!(
        shown_id(&server, &["workspace", "show", server.demo.as_str()]),
        demo_id(&server)
    );
    assert_eq!(
        shown_id(
            &server,
            &[
                "workspace",
                "get",
                format!("{}.Workspace", server.demo).as_str()
            ]
        ),
        demo_id(&server)
    );
    // Flags win over the positional, which is then not even looked up.
    assert_eq!(
        shown_id(
            &server,
            &[
                "item",
                "show",
                "Nowhere/Nothing",
                "-w",
                server.demo.as_str(),
                "--id",
                "Welcome"
            ]
        ),
        welcome
    );

    // get-definition writes the same files either way.
    let dir = tempfile::tempdir().expect("dir");
    let by_path = dir.path().join("by-path");
    let by_flags = dir.path().join("by-flags");
    for (target, out) in [
        (vec![format!("{}/Welcome", server.demo).as_str()], &by_path),
        (
            vec!["-w", server.demo.as_str(), "--id", "Welcome"],
            &by_flags,
        ),
    ] {
        let out = out.to_str().expect("utf8");
        let args = [&["item", "get-definition"][..], &target, &["--dir", out]].concat();
        let run = server.fabsh(&args);
        assert_eq!(run.code, 0, "{}", run.stderr);
    }
    let files = |dir: &std::path::Path| {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .expect("dir")
            .map(|entry| entry.expect("entry").file_name().to_string_lossy().into())
            .collect();
        names.sort();
        names
    };
    assert!(!files(&by_path).is_empty());
    assert_eq!(files(&by_path), files(&by_flags));
}

#[test]
fn a_data_agent_path_names_the_agent() {
    let server = Server::session(module_path!());
    let made = server.fabsh(&[
        "data-agent",
        "create",
        server.demo.as_str(),
        "--name",
        "Sales agent",
    ]);
    assert_eq!(made.code, 0, "{}", made.stderr);
    let agent = item_id(&server, "Sales agent", "DataAgent");
    assert_eq!(
        shown_id(
            &server,
            &[
                "data-agent",
                "show",
                format!("{}/Sales agent", server.demo).as_str()
            ]
        ),
        agent
    );
    assert_eq!(
        shown_id(
            &server,
            &[
                "data-agent",
                "get",
                format!("{}.Workspace/Sales agent.DataAgent", server.demo).as_str()
            ]
        ),
        agent
    );
}

#[test]
fn same_named_items_are_an_error_listing_both_and_the_fab_form_picks_one() {
    let server = Server::session(module_path!());
    let made = server.fabsh(&[
        "item",
        "create",
        server.demo.as_str(),
        "--name",
        "Welcome",
        "--type",
        "Lakehouse",
    ]);
    assert_eq!(made.code, 0, "{}", made.stderr);
    let notebook = item_id(&server, "Welcome", "Notebook");
    let lakehouse = item_id(&server, "Welcome", "Lakehouse");

    // Requests that read either item by id (the log keeps the recent ones).
    let reads = || {
        server
            .request_paths()
            .iter()
            .filter(|path| path.contains(&notebook) || path.contains(&lakehouse))
            .count()
    };
    let reads_before = reads();
    let ambiguous = server.fabsh(&["item", "show", format!("{}/Welcome", server.demo).as_str()]);
    assert_eq!(ambiguous.code, 2, "{}", ambiguous.stderr);
    for expected in [
        &notebook,
        &lakehouse,
        "Notebook",
        "Lakehouse",
        "Welcome.Notebook",
    ] {
        assert!(
            ambiguous.stderr.contains(expected),
            "{expected} in {}",
            ambiguous.stderr
        );
    }
    assert_eq!(
        reads(),
        reads_before,
        "only the lookups ran: neither item was read"
    );

    assert_eq!(
        shown_id(
            &server,
            &[
                "item",
                "show",
                format!("{}/Welcome.Lakehouse", server.demo).as_str()
            ]
        ),
        lakehouse
    );
    assert_eq!(
        shown_id(
            &server,
            &[
                "item",
                "show",
                format!("{}/Welcome.notebook", server.demo).as_str()
            ]
        ),
        notebook
    );
}

#[test]
fn a_lakehouse_name_means_the_lakehouse_over_its_sql_endpoint_and_says_so() {
    let server = Server::session(module_path!());
    let lakehouse = item_id(&server, "SalesLakehouse", "Lakehouse");
    let endpoint = item_id(&server, "SalesLakehouse", "SQLEndpoint");
    let run = server.fabsh(&[
        "item",
        "show",
        format!("{}/SalesLakehouse", server.demo).as_str(),
        "-q",
        "id",
    ]);
    assert_eq!(run.ok_json(), Value::from(lakehouse.clone()));
    assert!(
        run.stderr.contains("SQL endpoint") && run.stderr.contains(&lakehouse),
        "{}",
        run.stderr
    );
    assert_eq!(
        shown_id(
            &server,
            &[
                "item",
                "show",
                format!("{}/SalesLakehouse.SQLEndpoint", server.demo).as_str()
            ]
        ),
        endpoint
    );
}

#[test]
fn ls_get_and_rm_work_in_every_group_and_rm_confirms_on_stderr() {
    let server = Server::session(module_path!());
    let demo = demo_id(&server);
    let listed_ids = |args: &[&str]| -> Vec<String> {
        let out = server.fabsh(&[args, &["-o", "json", "-q", "[].id"]].concat());
        serde_json::from_value(out.ok_json()).expect("ids")
    };
    let raw: Vec<String> = listed(&server, &format!("/v1/workspaces/{demo}/items"))
        .iter()
        .map(|item| item["id"].as_str().expect("id").to_string())
        .collect();
    assert_eq!(listed_ids(&["item", "ls", server.demo.as_str()]), raw);
    assert!(listed_ids(&["workspace", "ls"]).contains(&demo));
    let agents = server.fabsh(&["data-agent", "ls", server.demo.as_str(), "-o", "json"]);
    assert_eq!(agents.code, 0, "{}", agents.stderr);

    let report = item_id(&server, "Sales Report", "Report");
    let removed = server.fabsh(&[
        "item",
        "rm",
        format!("{}/Sales Report", server.demo).as_str(),
        "--yes",
    ]);
    assert_eq!(removed.code, 0, "{}", removed.stderr);
    assert_eq!(removed.stdout, "", "pipes stay clean");
    assert_eq!(removed.stderr.lines().count(), 1, "{}", removed.stderr);
    assert!(removed.stderr.contains(&report), "{}", removed.stderr);
    let left = listed(&server, &format!("/v1/workspaces/{demo}/items"));
    assert!(left.iter().all(|item| item["id"] != report.as_str()));
}

#[test]
fn login_and_version_work_as_words() {
    let server = Server::session(module_path!());
    let version = server.fabsh(&["version"]);
    assert_eq!(version.code, 0, "{}", version.stderr);
    assert!(
        version.stdout.contains(env!("CARGO_PKG_VERSION")),
        "{}",
        version.stdout
    );
    assert_eq!(version.stdout, server.fabsh(&["--version"]).stdout);
    let login = server.fabsh(&["login", "--help"]);
    assert_eq!(login.code, 0, "{}", login.stderr);
    assert_eq!(
        login.stdout,
        server.fabsh(&["auth", "login", "--help"]).stdout
    );
}

#[test]
fn name_where_id_is_meant_is_a_usage_error_pointing_at_id() {
    let server = Server::session(module_path!());
    let before = server.request_count();
    for flag in ["--name", "-n"] {
        let run = server.fabsh(&["item", "show", "-w", server.demo.as_str(), flag, "Welcome"]);
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(run.stderr.contains("--id"), "{}", run.stderr);
        assert!(run.stderr.contains("hint:"), "{}", run.stderr);
    }
    assert_eq!(server.request_count(), before, "nothing sent");
}

/// fab's folder path (`Demo.Workspace/Reports.Folder/Q1.Folder/Welcome.Notebook`) names the
/// item in that folder: a folder that does not exist, or an item that is not in it, is not
/// found rather than the same name elsewhere.
#[test]
fn a_fab_folder_path_finds_the_item_in_that_folder_only() {
    let server = Server::session(module_path!());
    let folder = |name: &str, parent: Option<&str>| {
        let mut args = vec![
            "folder",
            "create",
            "-w",
            server.demo.as_str(),
            "--name",
            name,
            "-q",
            "id",
        ];
        if let Some(parent) = parent {
            args.extend(["--parent-id", parent]);
        }
        server
            .fabsh(&args)
            .ok_json()
            .as_str()
            .expect("id")
            .to_string()
    };
    let reports = folder("Reports", None);
    let q1 = folder("Q1", Some(&reports));
    let welcome = item_id(&server, "Welcome", "Notebook");
    let moved = server.fabsh(&[
        "item",
        "move-to-folder",
        "-w",
        server.demo.as_str(),
        "--id",
        &welcome,
        "--folder-id",
        &q1,
    ]);
    assert_eq!(moved.code, 0, "{}", moved.stderr);
    for args in [
        &[
            "item",
            "show",
            format!(
                "{}.Workspace/Reports.Folder/Q1.Folder/Welcome.Notebook",
                server.demo
            )
            .as_str(),
        ][..],
        &[
            "item",
            "show",
            format!("{}/reports.folder/q1.FOLDER/Welcome", server.demo).as_str(),
        ],
        &[
            "item",
            "show",
            "-w",
            server.demo.as_str(),
            "--id",
            "Reports.Folder/Q1.Folder/Welcome.Notebook",
        ],
    ] {
        assert_eq!(shown_id(&server, args), welcome, "{args:?}");
    }
    for (path, says) in [
        (
            format!("{}.Workspace/Q1.Folder/Welcome.Notebook", server.demo).as_str(),
            "no folder named \"Q1\" at the workspace's root",
        ),
        (
            format!("{}.Workspace/Reports.Folder/Welcome.Notebook", server.demo).as_str(),
            "no item named \"Welcome.Notebook\" in folder Reports",
        ),
        (
            format!(
                "{}.Workspace/Reports.Folder/Nope.Folder/Welcome.Notebook",
                server.demo
            )
            .as_str(),
            "no folder named \"Nope\" in Reports",
        ),
    ] {
        let run = server.fabsh(&["item", "show", path]);
        assert_eq!(run.code, 4, "{path}: {}", run.stderr);
        assert!(run.stderr.contains(says), "{path}: {}", run.stderr);
    }
}
