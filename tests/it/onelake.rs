//! `onelake ls | cp | cat | rm` against local Fabric's OneLake (issue 47): a folder tree with
//! binary content and UTF-8 names goes up and comes back byte for byte (a file larger than
//! one upload block included), an existing file is replaced only with --overwrite, a Viewer
//! cannot write, and paths that are not in an item are refused before anything is sent.
//! What is compared is the test's own files, never fabsh's other output.

use crate::support::{Server, http, principal_with_token};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// The file's bytes: a pattern that differs at every offset, so a block out of place shows.
fn content(seed: u8, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[usize::from(seed) % 4] ^ seed)
        .collect()
}

/// Every file below `dir`: its `/`-separated relative path and its bytes.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("read dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                folders.push(path);
            } else {
                let relative = path.strip_prefix(dir).expect("below");
                let name = relative
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                files.insert(name, std::fs::read(&path).expect("read"));
            }
        }
    }
    files
}

/// Each file's SHA-256 (hex), by name.
fn digests(files: &BTreeMap<String, Vec<u8>>) -> BTreeMap<String, String> {
    use sha2::Digest;
    files
        .iter()
        .map(|(name, bytes)| (name.clone(), format!("{:x}", sha2::Sha256::digest(bytes))))
        .collect()
}

fn write_tree(dir: &Path, files: &BTreeMap<String, Vec<u8>>) {
    for (name, bytes) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, bytes).expect("write");
    }
}

#[test]
fn a_folder_tree_goes_up_and_comes_back_byte_for_byte() {
    let server = Server::session(module_path!());
    let work = tempfile::tempdir().expect("work");
    let local = work.path().join("tree");
    let files: BTreeMap<String, Vec<u8>> = [
        ("readme.txt".to_string(), b"orders of the week\n".to_vec()),
        ("données/été ☀.bin".to_string(), content(7, 70_000)),
        ("données/deep/empty.bin".to_string(), Vec::new()),
        // Larger than one 8 MiB upload block: sent as blocks, committed as one file.
        (
            "big/blocks.bin".to_string(),
            content(3, 9 * 1024 * 1024 + 17),
        ),
    ]
    .into_iter()
    .collect();
    write_tree(&local, &files);
    let lake = format!("{}/SalesLakehouse/Files/tree", server.demo);
    let up = server.fabsh(&[
        "onelake",
        "cp",
        &local.to_string_lossy(),
        &lake,
        "--recursive",
    ]);
    let copied = up.ok_json();
    assert_eq!(
        copied.as_array().map(Vec::len),
        Some(files.len()),
        "{copied}"
    );

    let listed = server
        .fabsh(&["onelake", "ls", &lake, "--recursive", "--long"])
        .ok_json();
    // Shown as written: the workspace and lakehouse by name, not the ids OneLake is sent.
    for row in copied.as_array().expect("rows") {
        let to = row["to"].as_str().expect("to");
        assert!(to.starts_with(&format!("{lake}/")), "{to}");
    }
    assert!(!up.stderr.contains("note:"), "{}", up.stderr);
    let mut sizes: BTreeMap<String, u64> = BTreeMap::new();
    for entry in listed.as_array().expect("entries") {
        let path = entry["name"].as_str().expect("path");
        assert!(path.starts_with(&format!("{lake}/")), "{path}");
        let name = path.rsplit_once("/Files/tree/").expect("under the tree").1;
        sizes.insert(name.to_string(), entry["size"].as_u64().expect("size"));
    }
    let expected: BTreeMap<String, u64> = files
        .iter()
        .map(|(name, bytes)| (name.clone(), bytes.len() as u64))
        .collect();
    assert_eq!(sizes, expected);

    let back = work.path().join("back");
    server
        .fabsh(&[
            "onelake",
            "cp",
            &lake,
            &back.to_string_lossy(),
            "--recursive",
        ])
        .ok_json();
    // Compared by SHA-256 digests the test computes of its own files and of what came back.
    assert_eq!(
        digests(&tree(&back)),
        digests(&files),
        "the downloaded tree differs"
    );
    // One level: folders, then files.
    let top = server.fabsh(&["onelake", "ls", &lake]).ok_json();
    let kinds: Vec<(&str, &str)> = top
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            (
                e["kind"].as_str().expect("kind"),
                e["name"].as_str().expect("name"),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("folder", "big"),
            ("folder", "données"),
            ("file", "readme.txt")
        ]
    );
    let text = server
        .fabsh(&["onelake", "cat", &format!("{lake}/readme.txt")])
        .stdout;
    assert_eq!(text.trim_end(), "orders of the week");
}

#[test]
fn an_existing_file_is_replaced_only_with_overwrite() {
    let server = Server::session(module_path!());
    let work = tempfile::tempdir().expect("work");
    let first = work.path().join("first.csv");
    let second = work.path().join("second.csv");
    std::fs::write(&first, "id\n1\n").expect("write");
    std::fs::write(&second, "id\n2\n").expect("write");
    let target = format!("{}/SalesLakehouse/Files/kept.csv", server.demo);
    let cp = |from: &Path, extra: &[&str]| {
        let mut args = vec!["onelake", "cp"];
        let from = from.to_string_lossy().into_owned();
        args.push(&from);
        args.push(&target);
        args.extend_from_slice(extra);
        server.fabsh(&args)
    };
    cp(&first, &[]).ok_json();
    let again = cp(&second, &[]);
    assert_eq!(again.code, 2, "{}", again.stderr);
    assert!(again.stderr.contains("--overwrite"), "{}", again.stderr);
    let cat = || server.fabsh(&["onelake", "cat", &target]).stdout;
    assert_eq!(cat(), "id\n1\n");
    cp(&second, &["--overwrite"]).ok_json();
    assert_eq!(cat(), "id\n2\n");

    // Downloading over a local file wants --overwrite too.
    let down = server.fabsh(&["onelake", "cp", &target, &first.to_string_lossy()]);
    assert_eq!(down.code, 2, "{}", down.stderr);
    assert_eq!(std::fs::read_to_string(&first).expect("read"), "id\n1\n");
}

#[test]
fn a_viewer_reads_nothing_it_may_not_and_writes_nothing() {
    let server = Server::session(module_path!());
    let work = tempfile::tempdir().expect("work");
    let file = work.path().join("x.csv");
    std::fs::write(&file, "a\n").expect("write");
    let (viewer, _) = principal_with_token(
        &server,
        "onelake viewer",
        &["--workspace", &server.demo, "--role", "Viewer"],
    );
    let body = serde_json::json!({
        "principal": viewer["objectId"], "audience": "storage"
    })
    .to_string();
    let auth = server.bearer();
    let (status, answer) = http(
        &server.origin(),
        "POST",
        "/_local/tokens",
        Some(&body),
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/json"),
        ],
    );
    assert_eq!(status, 200, "{answer}");
    let token: Value = serde_json::from_str(&answer).expect("token");
    let storage = token["access_token"].as_str().expect("access_token");
    let target = format!("{}/SalesLakehouse/Files/viewer.csv", server.demo);
    let run = server.fabsh_env(
        &["onelake", "cp", &file.to_string_lossy(), &target],
        &[("FABSH_STORAGE_TOKEN", storage)],
    );
    assert_eq!(run.code, 3, "{}", run.stderr);
    let listed = server
        .fabsh(&[
            "onelake",
            "ls",
            &format!("{}/SalesLakehouse/Files", server.demo),
        ])
        .ok_json();
    assert!(
        !listed.to_string().contains("viewer.csv"),
        "the Viewer's file was written: {listed}"
    );
}

#[test]
fn paths_outside_an_item_are_refused_before_anything_is_sent() {
    let server = Server::session(module_path!());
    let before = server.request_count();
    for args in [
        &["onelake", "ls", server.demo.as_str()][..],
        &[
            "onelake",
            "ls",
            &format!("{}/SalesLakehouse/raw", server.demo),
        ],
        &[
            "onelake",
            "ls",
            &format!("{}/SalesLakehouse/Files/../x", server.demo),
        ],
        &["onelake", "cp", "a.csv", "b.csv"],
        &[
            "onelake",
            "rm",
            &format!("{}/SalesLakehouse.Lakehouse", server.demo),
        ],
    ] {
        let run = server.fabsh(args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
    }
    assert_eq!(server.request_count(), before, "nothing was sent");
}

#[test]
fn rm_deletes_a_file_and_a_folder_only_with_recursive() {
    let server = Server::session(module_path!());
    let work = tempfile::tempdir().expect("work");
    let files: BTreeMap<String, Vec<u8>> = [
        ("a.txt".to_string(), b"a".to_vec()),
        ("sub/b.txt".to_string(), b"b".to_vec()),
    ]
    .into_iter()
    .collect();
    write_tree(work.path(), &files);
    let folder = format!("{}/SalesLakehouse/Files/gone", server.demo);
    server
        .fabsh(&[
            "onelake",
            "cp",
            &work.path().to_string_lossy(),
            &folder,
            "-r",
        ])
        .ok_json();
    let refused = server.fabsh(&["onelake", "rm", &folder, "--yes"]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(refused.stderr.contains("--recursive"), "{}", refused.stderr);
    server
        .fabsh(&["onelake", "rm", &format!("{folder}/a.txt"), "--yes"])
        .ok_json();
    let left = server
        .fabsh(&["onelake", "ls", &folder, "-r", "-l"])
        .ok_json();
    assert_eq!(left.as_array().map(Vec::len), Some(1), "{left}");
    server
        .fabsh(&["onelake", "rm", &folder, "-r", "--yes"])
        .ok_json();
    let none = server.fabsh(&["onelake", "ls", &folder, "-r"]).ok_json();
    assert_eq!(none, serde_json::json!([]));
    let missing = server.fabsh(&["onelake", "rm", &format!("{folder}/a.txt"), "--yes"]);
    assert_eq!(missing.code, 4, "{}", missing.stderr);
}

#[test]
fn head_prints_the_first_lines_and_mv_leaves_no_source() {
    let server = Server::session(module_path!());
    let work = tempfile::tempdir().expect("work");
    let csv: String = (0..5000).map(|n| format!("{n},row {n}\n")).collect();
    std::fs::write(work.path().join("rows.csv"), &csv).expect("write");
    let folder = format!("{}/SalesLakehouse/Files/moving", server.demo);
    server
        .fabsh(&[
            "onelake",
            "cp",
            &work.path().to_string_lossy(),
            &folder,
            "-r",
        ])
        .ok_json();
    let head = server.fabsh(&["onelake", "head", &format!("{folder}/rows.csv"), "-n", "3"]);
    assert_eq!(head.code, 0, "{}", head.stderr);
    assert_eq!(head.stdout, "0,row 0\n1,row 1\n2,row 2\n");

    let archive = format!("{}/SalesLakehouse/Files/archive", server.demo);
    server
        .fabsh(&["onelake", "mv", &folder, &archive, "-r", "--yes"])
        .ok_json();
    let gone = server.fabsh(&["onelake", "ls", &folder, "-r"]).ok_json();
    assert_eq!(gone, serde_json::json!([]));
    let moved = server
        .fabsh(&["onelake", "cat", &format!("{archive}/rows.csv")])
        .stdout;
    assert!(moved == csv, "the moved file differs");
}

#[test]
fn lakehouse_tables_lists_the_demo_datasets_tables() {
    let server = Server::session(module_path!());
    let listed = server
        .fabsh(&[
            "lakehouse",
            "tables",
            "-w",
            &server.demo,
            "--item",
            "SalesLakehouse",
        ])
        .ok_json();
    // The demo dataset's three tables (crates/fabsh-local/src/tables/demo.rs), managed Delta
    // tables under the lakehouse's Tables folder, as Tables_ListTables answers them.
    let mut names = Vec::new();
    for table in listed.as_array().expect("tables") {
        let name = table["name"].as_str().expect("name");
        assert_eq!(table["type"], "Managed", "{table}");
        assert_eq!(table["format"], "Delta", "{table}");
        let location = table["location"].as_str().expect("location");
        assert!(location.ends_with(&format!("/Tables/{name}")), "{table}");
        names.push(name.to_string());
    }
    names.sort();
    assert_eq!(names, ["customers", "orders", "products"]);
    let limited = server.fabsh(&[
        "lakehouse",
        "tables",
        "-w",
        &server.demo,
        "--item",
        "SalesLakehouse",
        "--limit",
        "2",
    ]);
    assert_eq!(limited.ok_json().as_array().map(Vec::len), Some(2));
    let not_a_lakehouse = server.fabsh(&[
        "lakehouse",
        "tables",
        "-w",
        &server.demo,
        "--item",
        "Welcome",
    ]);
    assert_eq!(not_a_lakehouse.code, 4, "{}", not_a_lakehouse.stderr);
}

#[test]
fn a_workspace_onelake_does_not_know_is_not_found() {
    let server = Server::session(module_path!());
    // Named with its type, so nothing is looked up before OneLake is asked.
    let run = server.fabsh(&[
        "onelake",
        "ls",
        "No such workspace.Workspace/Lake.Lakehouse/Files",
    ]);
    assert_eq!(run.code, 4, "{}", run.stderr);
    assert!(
        run.stderr.contains("its workspace is not in OneLake"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_file_too_large_for_onelake_is_refused_before_anything_is_sent() {
    let server = Server::session(module_path!());
    let work = tempfile::tempdir().expect("work");
    let huge = work.path().join("huge.bin");
    // Sparse: 50,000 blocks of 4 MiB and one byte more, taking no disk.
    let file = std::fs::File::create(&huge).expect("create");
    file.set_len(50_000 * 4 * 1024 * 1024 + 1).expect("set_len");
    let count = || {
        let storage = server.storage_requests()["count"].as_u64().expect("count");
        server.request_count() + storage
    };
    let before = count();
    let run = server.fabsh(&[
        "onelake",
        "cp",
        &huge.to_string_lossy(),
        &format!("{}/SalesLakehouse.Lakehouse/Files/huge.bin", server.demo),
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("50000 blocks"), "{}", run.stderr);
    assert_eq!(count(), before, "a request was sent");
}
