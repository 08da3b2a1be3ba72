//! The persistent name cache (issue 29): after one listing, a name costs the requests the
//! same command by id costs, plus at most the one that confirms the id; a name changed behind
//! fabsh's back (raw HTTP, which fabsh never sees) is found again; ambiguity shows once an
//! entry is older than 15 minutes; concurrent writers leave the file readable; the cache is
//! per endpoint and principal. Requests are counted in local Fabric's request log.

use crate::data_agent_query::{EXAMPLES, published};
use crate::support::{Home, Server, http, principal_token};
use serde_json::{Value, json};
use std::path::PathBuf;

/// The Demo workspace's id and its Welcome notebook's id, as local Fabric's own API lists them
/// (and so as fabsh never saw them).
fn demo_ids(server: &Server) -> (String, String) {
    let (_, workspaces) = server.get_json("/v1/workspaces");
    let ws = find(&workspaces["value"], &server.demo)["id"]
        .as_str()
        .expect("ws")
        .to_string();
    let (_, items) = server.get_json(&format!("/v1/workspaces/{ws}/items"));
    let welcome = find(&items["value"], "Welcome")["id"]
        .as_str()
        .expect("id")
        .to_string();
    (ws, welcome)
}

fn find<'a>(list: &'a Value, name: &str) -> &'a Value {
    list.as_array()
        .expect("a list")
        .iter()
        .find(|entry| entry["displayName"] == name)
        .unwrap_or_else(|| panic!("{name} in {list}"))
}

/// The requests `run` made, as `METHOD path` (path after `/v1`).
fn requests_of(server: &Server, run: impl FnOnce()) -> Vec<String> {
    let before = server.request_count();
    run();
    let log = server.requests();
    let all = log["requests"].as_array().expect("requests");
    let made = (server.request_count() - before) as usize;
    all[all.len() - made..]
        .iter()
        .map(|r| {
            let path = r["path"].as_str().unwrap_or_default();
            format!(
                "{} {}",
                r["method"].as_str().unwrap_or_default(),
                path.trim_start_matches("/v1")
            )
        })
        .collect()
}

/// Sends a raw request with the admin's token: a change fabsh does not see.
fn behind_fabshs_back(server: &Server, method: &str, path: &str, body: Option<Value>) -> Value {
    let body = body.map(|b| b.to_string());
    let auth = server.bearer();
    let (status, answer) = http(
        &server.origin(),
        method,
        path,
        body.as_deref(),
        &[
            ("Authorization", auth.as_str()),
            ("Content-Type", "application/json"),
        ],
    );
    assert!(
        (200..300).contains(&status),
        "{method} {path}: {status} {answer}"
    );
    serde_json::from_str(&answer).unwrap_or(Value::Null)
}

/// The name caches of `home`: one directory per endpoint and principal.
fn cache_dirs(home: &Home) -> Vec<PathBuf> {
    let dir = home.dir.path().join("state/fabsh/names");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect()
}

/// The list files of every name cache of `home`.
fn cache_files(home: &Home) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = cache_dirs(home)
        .iter()
        .flat_map(|dir| std::fs::read_dir(dir).expect("a cache dir"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

#[test]
fn after_one_listing_a_name_costs_the_request_by_id_and_at_most_one_confirmation() {
    // Definitions answered inline, so both runs make the same requests but the check.
    let server = Server::with(&[("async-ratio", "0")]);
    let (ws, welcome) = demo_ids(&server);
    server
        .fabsh(&["item", "list", "-w", &server.demo])
        .ok_json();

    let shown = requests_of(&server, || {
        let item = server
            .fabsh(&["item", "show", "-w", &ws, "--id", "Welcome"])
            .ok_json();
        assert_eq!(item["id"], welcome.as_str());
    });
    assert_eq!(
        shown,
        [format!("GET /workspaces/{ws}/items/{welcome}")],
        "the show is the check"
    );

    let both_names = requests_of(&server, || {
        server
            .fabsh(&["item", "show", "-w", &server.demo, "--id", "Welcome"])
            .ok_json();
    });
    let mut sorted = both_names.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        [
            format!("GET /workspaces/{ws}"),
            format!("GET /workspaces/{ws}/items/{welcome}")
        ],
        "the workspace is confirmed alongside, no listing"
    );

    let by_id = requests_of(&server, || {
        server
            .fabsh(&["item", "get-definition", "-w", &ws, "--id", &welcome])
            .ok_json();
    });
    let by_name = requests_of(&server, || {
        server
            .fabsh(&["item", "get-definition", "-w", &ws, "--id", "Welcome"])
            .ok_json();
    });
    assert_eq!(
        by_name.len(),
        by_id.len() + 1,
        "{by_name:?} against {by_id:?}"
    );
    assert_eq!(
        by_name[0],
        format!("GET /workspaces/{ws}/items/{welcome}"),
        "confirmed first"
    );
    assert!(
        by_name.iter().all(|r| !r.ends_with("/items")),
        "no listing: {by_name:?}"
    );
}

#[test]
fn a_data_agent_asked_by_name_costs_one_confirmation_more_than_by_id() {
    let fx = published(module_path!(), EXAMPLES);
    fx.server
        .fabsh(&["data-agent", "list", "-w", &fx.workspace])
        .ok_json();
    let ask = |agent: &str| {
        let args = [
            "data-agent",
            "query",
            "-w",
            &fx.workspace,
            "--id",
            agent,
            "--prompt",
            "how many orders?",
        ];
        requests_of(&fx.server, || {
            fx.server.fabsh(&args).ok_json();
        })
    };
    let by_id = ask(&fx.agent);
    let by_name = ask("Sales agent");
    assert_eq!(
        by_name.len(),
        by_id.len() + 1,
        "{by_name:?} against {by_id:?}"
    );
    assert_eq!(
        by_name[0],
        format!("GET /workspaces/{}/items/{}", fx.workspace, fx.agent)
    );
}

#[test]
fn an_item_renamed_or_deleted_behind_fabshs_back_is_found_again() {
    let server = Server::session(module_path!());
    let (ws, welcome) = demo_ids(&server);
    server.fabsh(&["item", "list", "-w", &ws]).ok_json();

    // Welcome is renamed, and a new notebook takes its name: the name now means the new one.
    let items = format!("/v1/workspaces/{ws}/items");
    behind_fabshs_back(
        &server,
        "PATCH",
        &format!("{items}/{welcome}"),
        Some(json!({"displayName": "Farewell"})),
    );
    let newcomer = behind_fabshs_back(
        &server,
        "POST",
        &items,
        Some(json!({"displayName": "Welcome", "type": "Notebook"})),
    );
    let shown = server
        .fabsh(&["item", "show", "-w", &ws, "--id", "Welcome"])
        .ok_json();
    assert_eq!(shown["id"], newcomer["id"], "the stale id was not used");
    let shown = server
        .fabsh(&["item", "show", "-w", &ws, "--id", "Farewell"])
        .ok_json();
    assert_eq!(shown["id"], welcome.as_str());

    // Deleted: a clear not-found, after a listing.
    let gone = newcomer["id"].as_str().expect("id");
    behind_fabshs_back(&server, "DELETE", &format!("{items}/{gone}"), None);
    let mut deleted = None;
    let listed = requests_of(&server, || {
        deleted = Some(server.fabsh(&["item", "delete", "-w", &ws, "--id", "Welcome", "--yes"]));
    });
    let deleted = deleted.expect("ran");
    assert_eq!(deleted.code, 4, "not found: {}", deleted.stderr);
    assert!(deleted.stderr.contains("Welcome"), "{}", deleted.stderr);
    assert!(
        listed.iter().all(|r| !r.starts_with("DELETE")),
        "nothing deleted: {listed:?}"
    );
    assert!(
        listed.contains(&format!("GET /workspaces/{ws}/items")),
        "{listed:?}"
    );
}

/// Moves every listing time in the cache files of `home` back by 16 minutes.
fn age_cache(home: &Home) {
    for path in cache_files(home) {
        let mut list: Value =
            serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("json");
        if let Some(at) = list["listed_at"].as_i64().filter(|at| *at > 0) {
            list["listed_at"] = json!(at - 16 * 60);
        }
        std::fs::write(&path, list.to_string()).expect("write");
    }
}

#[test]
fn a_new_item_of_another_type_with_the_same_name_is_ambiguous_once_the_entry_is_old() {
    let server = Server::session(module_path!());
    let (ws, welcome) = demo_ids(&server);
    server.fabsh(&["item", "list", "-w", &ws]).ok_json();
    let items = format!("/v1/workspaces/{ws}/items");
    let pipeline = behind_fabshs_back(
        &server,
        "POST",
        &items,
        Some(json!({"displayName": "Welcome", "type": "DataPipeline"})),
    );

    // Within 15 minutes of the listing the cache answers (the documented limit)...
    let shown = server
        .fabsh(&["item", "show", "-w", &ws, "--id", "Welcome"])
        .ok_json();
    assert_eq!(shown["id"], welcome.as_str());
    // ...after that, the name is listed again before ambiguity is ruled out.
    age_cache(&server.home);
    let run = server.fabsh(&["item", "show", "-w", &ws, "--id", "Welcome"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("Notebook") && run.stderr.contains("DataPipeline"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(pipeline["id"].as_str().expect("id")),
        "{}",
        run.stderr
    );
    // With its type, the old entry still serves: one request.
    age_cache(&server.home);
    let typed = requests_of(&server, || {
        let item = server
            .fabsh(&["item", "show", "-w", &ws, "--id", "Welcome.Notebook"])
            .ok_json();
        assert_eq!(item["id"], welcome.as_str());
    });
    assert_eq!(typed.len(), 1, "{typed:?}");
}

#[test]
fn a_destructive_command_by_name_confirms_with_the_service_that_the_name_is_unique() {
    let server = Server::session(module_path!());
    let (ws, welcome) = demo_ids(&server);
    server.fabsh(&["item", "list", "-w", &ws]).ok_json();
    let items = format!("/v1/workspaces/{ws}/items");
    behind_fabshs_back(
        &server,
        "POST",
        &items,
        Some(json!({"displayName": "Welcome", "type": "Lakehouse"})),
    );
    // Within the 15 minutes a read may use the cached entry; a delete may not.
    let run = server.fabsh(&["item", "delete", "-w", &ws, "--id", "Welcome", "--yes"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("Notebook") && run.stderr.contains("Lakehouse"),
        "{}",
        run.stderr
    );
    let (status, _) = server.get_json(&format!("{items}/{welcome}"));
    assert_eq!(status, 200, "the cached notebook was deleted");
}

#[test]
fn fabshs_own_writes_keep_the_cache_true() {
    let server = Server::session(module_path!());
    let (ws, _) = demo_ids(&server);
    server.fabsh(&["item", "list", "-w", &ws]).ok_json();
    let show = |name: &str| {
        let mut run = None;
        let made = requests_of(&server, || {
            run = Some(server.fabsh(&["item", "show", "-w", &ws, "--id", name]));
        });
        (run.expect("ran"), made)
    };
    let created = server
        .fabsh(&[
            "item", "create", "-w", &ws, "--name", "Fresh", "--type", "Notebook",
        ])
        .ok_json();
    let (run, made) = show("Fresh");
    assert_eq!(run.ok_json()["id"], created["id"]);
    assert_eq!(made.len(), 1, "created: known without a listing: {made:?}");

    let id = created["id"].as_str().expect("id");
    server
        .fabsh(&[
            "item", "update", "-w", &ws, "--id", "Fresh", "--name", "Fresher",
        ])
        .ok_json();
    let (run, made) = show("Fresher");
    assert_eq!(run.ok_json()["id"], id);
    assert_eq!(made.len(), 1, "renamed: known without a listing: {made:?}");

    let deleted = server.fabsh(&["item", "delete", "-w", &ws, "--id", "Fresher", "--yes"]);
    assert_eq!(deleted.code, 0, "{}", deleted.stderr);
    let (run, made) = show("Fresher");
    assert_eq!(run.code, 4, "{}", run.stderr);
    assert_eq!(
        made,
        [format!("GET /workspaces/{ws}/items")],
        "deleted: not offered, listed"
    );
}

#[test]
fn concurrent_processes_writing_the_cache_leave_it_readable() {
    let server = Server::session(module_path!());
    let (ws, welcome) = demo_ids(&server);
    let children: Vec<_> = (0..8)
        .map(|n| {
            let args: Vec<String> = match n % 3 {
                0 => vec![
                    "item".into(),
                    "list".into(),
                    "-w".into(),
                    server.demo.clone(),
                ],
                1 => vec!["workspace".into(), "list".into()],
                _ => [
                    "item",
                    "create",
                    "-w",
                    &ws,
                    "--name",
                    &format!("Par{n}"),
                    "--type",
                    "Notebook",
                ]
                .map(String::from)
                .to_vec(),
            };
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let mut command = server.command(&args);
            command
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null());
            command.spawn().expect("spawn")
        })
        .collect();
    for mut child in children {
        assert!(child.wait().expect("wait").success());
    }
    let caches = cache_dirs(&server.home);
    assert_eq!(caches.len(), 1, "one endpoint, one principal: {caches:?}");
    let files = cache_files(&server.home);
    assert_eq!(files.len(), 2, "the workspaces and Demo's items: {files:?}");
    for file in &files {
        let text = std::fs::read_to_string(file).expect("read");
        serde_json::from_str::<Value>(&text).expect("a whole JSON file");
    }
    let shown = server.fabsh(&["cache", "show"]).ok_json();
    assert_eq!(shown[0]["endpoint"], server.endpoint.as_str());
    let item = server
        .fabsh(&["item", "show", "-w", &server.demo, "--id", "Welcome"])
        .ok_json();
    assert_eq!(item["id"], welcome.as_str());
}

#[test]
fn the_cache_is_per_endpoint_and_principal() {
    // Two endpoints, and a second principal: servers of their own.
    let a = Server::start();
    let b = Server::start();
    a.fabsh(&["item", "list", "-w", &a.demo]).ok_json();
    let (_, welcome_b) = demo_ids(&b);
    // a's home, b's endpoint: b's Demo and Welcome, found by listing b.
    let mut run = None;
    let made = requests_of(&b, || {
        run = Some(a.home.run_env(
            &["item", "show", "-w", &b.demo, "--id", "Welcome"],
            &[
                ("FABSH_ENDPOINT", b.endpoint.as_str()),
                ("FABSH_TOKEN", b.token.as_str()),
            ],
        ));
    });
    assert_eq!(run.expect("ran").ok_json()["id"], welcome_b.as_str());
    assert!(made.contains(&"GET /workspaces".to_string()), "{made:?}");
    assert_eq!(cache_dirs(&a.home).len(), 2, "one cache per endpoint");

    // Another principal on a's endpoint lists for itself.
    let other = principal_token(&a, "reader", &a.demo, "Viewer");
    let made = requests_of(&a, || {
        a.fabsh_as(&other, &["item", "show", "-w", &a.demo, "--id", "Welcome"])
            .ok_json();
    });
    assert!(made.contains(&"GET /workspaces".to_string()), "{made:?}");
    assert_eq!(cache_dirs(&a.home).len(), 3, "one cache per principal");
}

#[test]
fn no_cache_leaves_the_file_alone_and_cache_clear_forgets() {
    let server = Server::session(module_path!());
    let (ws, _) = demo_ids(&server);
    server
        .fabsh(&["--no-cache", "item", "list", "-w", &ws])
        .ok_json();
    server
        .fabsh_env(&["item", "list", "-w", &ws], &[("FABSH_NO_CACHE", "1")])
        .ok_json();
    assert!(cache_dirs(&server.home).is_empty(), "no file written");

    server.fabsh(&["item", "list", "-w", &ws]).ok_json();
    let (_, items) = server.get_json(&format!("/v1/workspaces/{ws}/items"));
    let shown = server.fabsh(&["cache", "show"]).ok_json();
    assert_eq!(
        shown[0]["items"][0]["items"],
        json!(items["value"].as_array().expect("items").len())
    );

    let listed = requests_of(&server, || {
        server
            .fabsh(&["--no-cache", "item", "show", "-w", &ws, "--id", "Welcome"])
            .ok_json();
    });
    assert_eq!(listed.len(), 2, "listed, then shown: {listed:?}");

    let cleared = server.fabsh(&["cache", "clear"]).ok_json();
    assert_eq!(cleared["removed"], 1);
    assert_eq!(server.fabsh(&["cache", "show"]).ok_json(), json!([]));
    let listed = requests_of(&server, || {
        server
            .fabsh(&["item", "show", "-w", &ws, "--id", "Welcome"])
            .ok_json();
    });
    assert_eq!(listed.len(), 2, "listed again: {listed:?}");
}

#[test]
fn a_script_reads_the_same_names_its_commands_keep_true() {
    let server = Server::session(module_path!());
    let (ws, _) = demo_ids(&server);
    let script = server.home.dir.path().join("names.rhai");
    std::fs::write(
        &script,
        format!(
            r#"
let first = item::show(#{{workspace: "{ws}", id: "Welcome"}});
let renamed = item::update(#{{workspace: "{ws}", id: "Welcome", name: "Hello"}});
let second = item::show(#{{workspace: "{ws}", id: "Hello"}});
print(first.id == second.id);
"#
        ),
    )
    .expect("script");
    let path = script.to_string_lossy().into_owned();
    let made = requests_of(&server, || {
        let run = server.fabsh(&["run", &path]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(run.stdout.contains("true"), "{}", run.stdout);
    });
    let lists = made.iter().filter(|r| r.ends_with("/items")).count();
    assert_eq!(lists, 1, "one listing for the whole script: {made:?}");
}

#[test]
fn a_listing_of_many_pages_keeps_the_names_of_every_page() {
    // Pages of two: the Demo workspace's items span several pages.
    let server = Server::with(&[("page-size", "2")]);
    let workspaces = every_page(&server, "/v1/workspaces");
    let ws = find(&Value::Array(workspaces), &server.demo)["id"]
        .as_str()
        .expect("ws")
        .to_string();
    let listed = every_page(&server, &format!("/v1/workspaces/{ws}/items"));
    assert!(listed.len() > 4, "several pages: {}", listed.len());

    // One by-name lookup of the last item lists every page once...
    let last = listed.last().expect("an item");
    let shown = server
        .fabsh(&[
            "item",
            "show",
            "-w",
            &ws,
            "--id",
            last["displayName"].as_str().expect("name"),
        ])
        .ok_json();
    assert_eq!(shown["id"], last["id"]);

    // ...and then each name, on whichever page it was, costs the one request by id.
    for item in &listed {
        let name = format!(
            "{}.{}",
            item["displayName"].as_str().expect("name"),
            item["type"].as_str().expect("type")
        );
        let id = item["id"].as_str().expect("id");
        let made = requests_of(&server, || {
            let shown = server
                .fabsh(&["item", "show", "-w", &ws, "--id", &name])
                .ok_json();
            assert_eq!(shown["id"], id, "{name}");
        });
        assert_eq!(made, [format!("GET /workspaces/{ws}/items/{id}")], "{name}");
    }
}

/// Every entry of a paged list, read through local Fabric's own API.
fn every_page(server: &Server, path: &str) -> Vec<Value> {
    let mut entries = Vec::new();
    let mut next = path.to_string();
    loop {
        let (_, page) = server.get_json(&next);
        entries.extend(page["value"].as_array().expect("value").iter().cloned());
        let Some(token) = page["continuationToken"].as_str() else {
            return entries;
        };
        next = format!("{path}?continuationToken={token}");
    }
}

#[test]
fn a_lookup_reads_only_its_lists_rewrites_nothing_and_the_files_stay_private() {
    let server = Server::session(module_path!());
    let (ws, welcome) = demo_ids(&server);
    server
        .fabsh(&["item", "list", "-w", &server.demo])
        .ok_json();
    let files = cache_files(&server.home);
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_name().expect("name").to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [format!("items-{ws}.json"), "workspaces.json".to_string()],
        "one file per list"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| std::fs::metadata(p).expect("meta").permissions().mode();
        for dir in cache_dirs(&server.home) {
            assert_eq!(mode(&dir) & 0o777, 0o700, "{dir:?}");
        }
        for file in &files {
            assert_eq!(mode(file) & 0o777, 0o600, "{file:?}");
        }
    }

    // A lookup by names reads the two lists and writes neither.
    let stamps = |files: &[PathBuf]| -> Vec<(u64, std::time::SystemTime)> {
        files
            .iter()
            .map(|f| {
                let meta = std::fs::metadata(f).expect("meta");
                (meta.len(), meta.modified().expect("mtime"))
            })
            .collect()
    };
    let before = stamps(&files);
    let item = server
        .fabsh(&["item", "show", "-w", &server.demo, "--id", "Welcome"])
        .ok_json();
    assert_eq!(item["id"], welcome.as_str());
    assert_eq!(stamps(&files), before, "nothing rewritten");
}

#[test]
fn a_cache_other_users_may_read_is_refused_as_every_file_fabsh_keeps_is() {
    use std::os::unix::fs::PermissionsExt;
    let server = Server::session(module_path!());
    server
        .fabsh(&["item", "show", "-w", &server.demo, "--id", "Welcome"])
        .ok_json();
    let chmod = |path: &std::path::Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
    };
    let show = || server.fabsh(&["item", "show", "-w", &server.demo, "--id", "Welcome"]);
    let list = cache_files(&server.home).pop().expect("a list file");
    chmod(&list, 0o644);
    let refused = show();
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("refusing the name cache")
            && refused.stderr.contains("lets other users read it")
            && refused
                .stderr
                .contains(&format!("chmod 600 {}", list.display())),
        "{}",
        refused.stderr
    );
    chmod(&list, 0o600);
    let folder = list.parent().expect("cache dir").to_path_buf();
    chmod(&folder, 0o755);
    let refused = show();
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .contains(&format!("chmod -R go-rwx {}", folder.display())),
        "{}",
        refused.stderr
    );
    chmod(&folder, 0o700);
    show().ok_json();
}
