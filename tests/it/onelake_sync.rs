//! `onelake sync` and stopping a transfer with Ctrl-C, against local Fabric's OneLake. What
//! is asserted comes from the test's own files and digests and from the server's request log
//! (the session's Storage-token requests), never from fabsh's own account of what it did.

use crate::support::Server;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;

/// The file's bytes: a pattern that differs at every offset.
fn content(seed: u8, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[usize::from(seed) % 4] ^ seed)
        .collect()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, bytes).expect("write");
}

/// Every file below `dir` by relative path, with the SHA-256 of its bytes.
fn digests(dir: &Path) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("read dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            let relative = path.strip_prefix(dir).expect("below");
            let name = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            let digest = Sha256::digest(std::fs::read(&path).expect("read"));
            found.insert(name, format!("{digest:x}"));
        }
    }
    found
}

/// The session's OneLake requests made while `run` ran: `(method, path, query)`.
fn storage_requests_of(server: &Server, run: impl FnOnce()) -> Vec<(String, String, String)> {
    let before = server.storage_requests()["count"].as_u64().expect("count");
    run();
    let log = server.storage_requests();
    let after = log["count"].as_u64().expect("count");
    let requests = log["requests"].as_array().expect("requests");
    let new = usize::try_from(after - before).expect("count");
    assert!(
        new <= requests.len(),
        "the log kept every request of the run"
    );
    requests[requests.len() - new..]
        .iter()
        .map(|r| {
            let text = |key: &str| r[key].as_str().unwrap_or_default().to_string();
            (text("method"), text("path"), text("query"))
        })
        .collect()
}

/// The paths that were written (PUT) among `requests`, by file name.
fn put_names(requests: &[(String, String, String)]) -> Vec<String> {
    let mut names: Vec<String> = requests
        .iter()
        .filter(|(method, _, _)| method == "PUT")
        .map(|(_, path, _)| path.rsplit('/').next().unwrap_or_default().to_string())
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn sync_sends_only_new_or_changed_files_and_an_unchanged_tree_only_lists() {
    let server = Server::session(module_path!());
    let work = tempfile::tempdir().expect("work");
    let local = work.path().join("tree");
    write(&local, "a.txt", b"alpha\n");
    write(&local, "sub/b.bin", &content(5, 70_000));
    // Larger than one 4 MiB block: committed from blocks, its hash set on the block list.
    write(&local, "sub/big.bin", &content(9, 5 * 1024 * 1024 + 3));
    let lake = format!("{}/SalesLakehouse/Files/synced", server.demo);
    let sync = || {
        server
            .fabsh(&["onelake", "sync", &local.to_string_lossy(), &lake])
            .ok_json()
    };
    let first = storage_requests_of(&server, || {
        sync();
    });
    assert_eq!(put_names(&first), ["a.txt", "b.bin", "big.bin"]);

    // Same size, other content: only that file goes again.
    let mut changed = content(9, 5 * 1024 * 1024 + 3);
    changed[4 * 1024 * 1024 + 1] ^= 0xff;
    write(&local, "sub/big.bin", &changed);
    let second = storage_requests_of(&server, || {
        sync();
    });
    assert_eq!(put_names(&second), ["big.bin"], "{second:?}");

    let third = storage_requests_of(&server, || {
        let rows = sync();
        let actions: Vec<&str> = rows
            .as_array()
            .expect("rows")
            .iter()
            .map(|row| row["action"].as_str().expect("action"))
            .collect();
        assert_eq!(actions, ["unchanged"; 3]);
    });
    assert!(!third.is_empty());
    for (method, _, query) in &third {
        assert!(
            method == "GET" && query.contains("comp=list"),
            "an unchanged tree sends only listings: {third:?}"
        );
    }

    // And back: the downloaded tree is the local one, digest for digest.
    let back = work.path().join("back");
    server
        .fabsh(&["onelake", "sync", &lake, &back.to_string_lossy()])
        .ok_json();
    assert_eq!(digests(&back), digests(&local));
    let again = storage_requests_of(&server, || {
        server
            .fabsh(&["onelake", "sync", &lake, &back.to_string_lossy()])
            .ok_json();
    });
    for (method, _, query) in &again {
        assert!(
            method == "GET" && query.contains("comp=list"),
            "an unchanged download sends only listings: {again:?}"
        );
    }
}

#[test]
fn extra_files_go_only_with_delete_and_a_dry_run_writes_nothing() {
    let server = Server::session(module_path!());
    let work = tempfile::tempdir().expect("work");
    let local = work.path().join("tree");
    write(&local, "keep.txt", b"keep\n");
    write(&local, "gone.txt", b"gone\n");
    let lake = format!("{}/SalesLakehouse/Files/mirror", server.demo);
    let sync = |extra: &[&str]| {
        let mut args = vec!["onelake", "sync"];
        let from = local.to_string_lossy().into_owned();
        args.push(&from);
        args.push(&lake);
        args.extend_from_slice(extra);
        server.fabsh(&args)
    };
    sync(&[]).ok_json();
    std::fs::remove_file(local.join("gone.txt")).expect("remove");
    write(&local, "new.txt", b"new\n");
    let listed = || {
        let entries = server.fabsh(&["onelake", "ls", &lake, "-r"]).ok_json();
        let mut names: Vec<String> = entries
            .as_array()
            .expect("entries")
            .iter()
            .map(|e| e["name"].as_str().expect("name").to_string())
            .collect();
        names.sort();
        names
    };

    let planned = storage_requests_of(&server, || {
        let plan = sync(&["--delete", "--dry-run"]).ok_json();
        let items = plan["items"].as_array().expect("items").clone();
        let actions: BTreeMap<String, String> = items
            .iter()
            .map(|row| {
                (
                    row["path"].as_str().expect("path").to_string(),
                    row["action"].as_str().expect("action").to_string(),
                )
            })
            .collect();
        assert_eq!(
            actions,
            BTreeMap::from([
                ("gone.txt".to_string(), "delete".to_string()),
                ("keep.txt".to_string(), "unchanged".to_string()),
                ("new.txt".to_string(), "upload".to_string()),
            ])
        );
    });
    assert!(
        planned.iter().all(|(method, _, _)| method == "GET"),
        "a dry run only reads: {planned:?}"
    );
    assert_eq!(listed(), ["gone.txt", "keep.txt"]);

    // Without --delete the extra file stays; --delete off a terminal needs --yes.
    sync(&[]).ok_json();
    assert_eq!(listed(), ["gone.txt", "keep.txt", "new.txt"]);
    let refused = sync(&["--delete"]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert_eq!(listed(), ["gone.txt", "keep.txt", "new.txt"]);
    sync(&["--delete", "--yes"]).ok_json();
    assert_eq!(listed(), ["keep.txt", "new.txt"]);

    // Downloading: a local extra file stays unless --delete.
    let here = work.path().join("here");
    write(&here, "mine.txt", b"mine\n");
    let down = |extra: &[&str]| {
        let mut args = vec!["onelake", "sync", &lake];
        let to = here.to_string_lossy().into_owned();
        args.push(&to);
        args.extend_from_slice(extra);
        server.fabsh(&args).ok_json()
    };
    down(&[]);
    assert!(here.join("mine.txt").exists());
    down(&["--delete", "--yes"]);
    assert_eq!(digests(&here), digests(&local));
}

#[test]
fn bad_arguments_are_refused_before_anything_is_sent() {
    let server = Server::session(module_path!());
    let work = tempfile::tempdir().expect("work");
    let lake = format!("{}/SalesLakehouse/Files/x", server.demo);
    let before = server.storage_requests()["count"].clone();
    for (args, flag) in [
        (
            vec!["onelake", "cp", "a.csv", &lake, "--concurrency", "0"],
            "--concurrency",
        ),
        (
            vec!["onelake", "sync", ".", &lake, "--concurrency", "65"],
            "--concurrency",
        ),
        (vec!["onelake", "sync", "a", "b"], "OneLake"),
    ] {
        let run = server.fabsh(&args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(flag), "{args:?}: {}", run.stderr);
    }
    let file = work.path().join("f.txt");
    std::fs::write(&file, "x").expect("write");
    let not_a_folder = server.fabsh(&["onelake", "sync", &file.to_string_lossy(), &lake]);
    assert_eq!(not_a_folder.code, 2, "{}", not_a_folder.stderr);
    assert_eq!(server.storage_requests()["count"], before);
}

/// Runs `args` and sends SIGINT once `started` is true of the session's OneLake requests;
/// returns the exit code and stdout.
/// Runs fabsh with `args`, sends it SIGINT once the session's storage log
/// (`{count, requests}`) shows `started`, and returns its exit code and stdout.
fn interrupted(server: &Server, args: &[&str], started: impl Fn(&Value) -> bool) -> (i32, String) {
    let mut child = server
        .command(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // Bounded so a broken run fails instead of hanging; not a timing assertion.
    let mut seen = false;
    for _ in 0..6000 {
        let log = server.storage_requests();
        if started(&log) {
            seen = true;
            break;
        }
        if child.try_wait().expect("wait").is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(
        seen,
        "the transfer never started, or ended before it was seen"
    );
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let output = child.wait_with_output().expect("output");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[test]
fn an_interrupted_upload_leaves_no_blob() {
    // Each request waits a little, so the upload is surely in flight when Ctrl-C comes.
    let server = Server::session_with(module_path!(), &[("latency-ms", "100")]);
    let work = tempfile::tempdir().expect("work");
    let big = work.path().join("big.bin");
    std::fs::File::create(&big)
        .expect("create")
        .set_len(512 * 1024 * 1024)
        .expect("sparse file");
    let target = format!("{}/SalesLakehouse/Files/stopped/big.bin", server.demo);
    let (code, stdout) = interrupted(
        &server,
        &["onelake", "cp", &big.to_string_lossy(), &target],
        |log| {
            log["requests"]
                .as_array()
                .expect("requests")
                .iter()
                .any(|r| {
                    r["method"] == "PUT"
                        && r["query"]
                            .as_str()
                            .is_some_and(|q| q.contains("comp=block"))
                })
        },
    );
    assert_eq!(code, 130, "{stdout}");
    assert!(stdout.contains("interrupted"), "{stdout}");
    let gone = server.fabsh(&["onelake", "ls", &target]).ok_json();
    assert_eq!(gone, serde_json::json!([]), "no blob appears");
    let commits = server.storage_requests()["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .filter(|r| {
            r["method"] == "PUT"
                && r["query"]
                    .as_str()
                    .is_some_and(|q| q.contains("comp=blocklist"))
        })
        .count();
    assert_eq!(commits, 0, "the block list was never committed");
}

/// A file of `blocks` upload blocks (4 MiB), each different (its index and `seed` in every
/// word), and the SHA-256 of its bytes.
fn file_of_blocks(path: &Path, blocks: u32, seed: u32) -> String {
    use std::io::Write;
    let mut file = std::io::BufWriter::new(std::fs::File::create(path).expect("create"));
    let mut digest = Sha256::new();
    for index in 0..blocks {
        let block: Vec<u8> = (0..1024 * 1024u32)
            .flat_map(|word| (word ^ (index << 20) ^ seed.wrapping_mul(0x9e37_79b9)).to_le_bytes())
            .collect();
        digest.update(&block);
        file.write_all(&block).expect("write");
    }
    file.flush().expect("flush");
    format!("{:x}", digest.finalize())
}

/// True for a Put Block (not a Put Block List).
fn is_put_block(request: &Value) -> bool {
    request["method"] == "PUT"
        && request["query"]
            .as_str()
            .is_some_and(|q| q.split('&').any(|part| part == "comp=block"))
}

/// The block id a Put Block request names.
fn block_id(request: &Value) -> String {
    let query = request["query"].as_str().unwrap_or_default();
    let id = query
        .split('&')
        .find_map(|part| part.strip_prefix("blockid="))
        .unwrap_or_default();
    percent_encoding::percent_decode_str(id)
        .decode_utf8_lossy()
        .into_owned()
}

/// The ids of the blocks the blob committed by the Put Block List among `requests` is made
/// of, as Get Block List answers them.
fn committed_block_ids(server: &Server, requests: &[Value]) -> Vec<String> {
    let commit = requests
        .iter()
        .find(|r| {
            r["method"] == "PUT" && r["query"].as_str().unwrap_or_default() == "comp=blocklist"
        })
        .expect("a commit");
    let path = commit["path"].as_str().expect("path");
    let auth = format!("Bearer {}", server.storage_token);
    let (status, body) = crate::support::http(
        &server.origin(),
        "GET",
        &format!("{path}?comp=blocklist&blocklisttype=committed"),
        None,
        &[("Authorization", &auth), ("x-ms-version", "2023-11-03")],
    );
    assert_eq!(status, 200, "{body}");
    body.split("<Name>")
        .skip(1)
        .filter_map(|rest| rest.split_once("</Name>").map(|(id, _)| id.to_string()))
        .collect()
}

/// The requests of a storage log (`{count, requests}`) after the session's first `from`.
fn tail(log: &Value, from: u64) -> Vec<Value> {
    let count = log["count"].as_u64().expect("count");
    let requests = log["requests"].as_array().expect("requests");
    let new = usize::try_from(count - from).expect("count");
    assert!(new <= requests.len(), "the log kept every request");
    requests[requests.len() - new..].to_vec()
}

/// The session's requests after its first `from`.
fn requests_since(server: &Server, from: u64) -> Vec<Value> {
    tail(&server.storage_requests(), from)
}

/// The SHA-256 of the OneLake file `lake`, downloaded.
fn lake_digest(server: &Server, lake: &str) -> String {
    let down = tempfile::tempdir().expect("down");
    let to = down.path().join("back.bin");
    server
        .fabsh(&["onelake", "cp", lake, &to.to_string_lossy()])
        .ok_json();
    format!("{:x}", Sha256::digest(std::fs::read(&to).expect("read")))
}

/// Interrupts `onelake cp from to` once at least two of its blocks are staged (logged 201),
/// and returns how many were.
fn interrupt_upload(server: &Server, from: &Path, to: &str) -> usize {
    let before = server.storage_requests()["count"].as_u64().expect("count");
    let staged = |requests: &[Value]| {
        requests
            .iter()
            .filter(|r| is_put_block(r) && r["status"] == 201)
            .count()
    };
    let (code, stdout) = interrupted(
        server,
        &["onelake", "cp", &from.to_string_lossy(), to],
        |log| staged(&tail(log, before)) >= 2,
    );
    assert_eq!(code, 130, "{stdout}");
    staged(&requests_since(server, before))
}

#[test]
fn an_interrupted_large_upload_resumes_where_it_stopped() {
    let server = Server::session_with(module_path!(), &[("latency-ms", "100")]);
    let work = tempfile::tempdir().expect("work");
    let big = work.path().join("big.bin");
    let blocks = 16;
    let digest = file_of_blocks(&big, blocks, 1);
    let target = format!("{}/SalesLakehouse/Files/resumed/big.bin", server.demo);
    let staged = interrupt_upload(&server, &big, &target);
    assert!(
        staged < blocks as usize,
        "the first run was stopped before its end"
    );
    let gone = server.fabsh(&["onelake", "ls", &target]).ok_json();
    assert_eq!(
        gone,
        serde_json::json!([]),
        "nothing appears before the commit"
    );

    let before = server.storage_requests()["count"].as_u64().expect("count");
    server
        .fabsh(&["onelake", "cp", &big.to_string_lossy(), &target])
        .ok_json();
    let again = requests_since(&server, before);
    let sent = again.iter().filter(|r| is_put_block(r)).count();
    assert!(
        sent <= blocks as usize - staged,
        "{sent} blocks sent again; {staged} of {blocks} were staged by the first run"
    );
    let asked = again
        .iter()
        .filter(|r| {
            r["method"] == "GET"
                && r["query"]
                    .as_str()
                    .is_some_and(|q| q.contains("comp=blocklist"))
        })
        .count();
    assert_eq!(asked, 1, "one question for the staged blocks: {again:?}");
    assert_eq!(lake_digest(&server, &target), digest, "byte for byte");
}

#[test]
fn a_changed_file_is_not_resumed_from_the_blocks_of_its_old_content() {
    let server = Server::session_with(module_path!(), &[("latency-ms", "100")]);
    let work = tempfile::tempdir().expect("work");
    let big = work.path().join("changing.bin");
    let blocks = 16;
    file_of_blocks(&big, blocks, 2);
    let target = format!("{}/SalesLakehouse/Files/resumed/changing.bin", server.demo);
    let staged = interrupt_upload(&server, &big, &target);
    assert!(staged >= 2);

    // The same size, other bytes, and a modification time surely not the first one's.
    let first_time = std::fs::metadata(&big)
        .expect("meta")
        .modified()
        .expect("mtime");
    let digest = file_of_blocks(&big, blocks, 3);
    std::fs::File::options()
        .write(true)
        .open(&big)
        .expect("open")
        .set_modified(first_time + std::time::Duration::from_secs(60))
        .expect("set mtime");
    let before = server.storage_requests()["count"].as_u64().expect("count");
    server
        .fabsh(&["onelake", "cp", &big.to_string_lossy(), &target])
        .ok_json();
    // Blocks the stopped run still had on the way are logged as they end, some after
    // `before`: the new content's blocks are the ones its commit names.
    let again = requests_since(&server, before);
    let committed = committed_block_ids(&server, &again);
    let sent = again
        .iter()
        .filter(|r| is_put_block(r) && r["status"] == 201)
        .filter(|r| committed.contains(&block_id(r)))
        .count();
    assert_eq!(committed.len(), blocks as usize);
    assert_eq!(
        sent, blocks as usize,
        "every block of the new content is sent"
    );
    assert_eq!(
        lake_digest(&server, &target),
        digest,
        "the new content, whole"
    );
}

#[test]
fn a_large_file_does_not_replace_an_existing_one_without_overwrite() {
    let server = Server::session_with(module_path!(), &[("latency-ms", "100")]);
    let work = tempfile::tempdir().expect("work");
    let big = work.path().join("kept.bin");
    file_of_blocks(&big, 2, 4);
    let small = work.path().join("first.txt");
    std::fs::write(&small, "first\n").expect("write");
    let target = format!("{}/SalesLakehouse/Files/kept/kept.bin", server.demo);
    server
        .fabsh(&["onelake", "cp", &small.to_string_lossy(), &target])
        .ok_json();
    let before = server.storage_requests()["count"].as_u64().expect("count");
    let refused = server.fabsh(&["onelake", "cp", &big.to_string_lossy(), &target]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(refused.stderr.contains("--overwrite"), "{}", refused.stderr);
    let writes = requests_since(&server, before)
        .into_iter()
        .filter(|r| r["method"] == "PUT")
        .count();
    assert_eq!(writes, 0, "nothing was sent");
    assert_eq!(
        server.fabsh(&["onelake", "cat", &target]).stdout,
        "first\n",
        "the existing file is unchanged"
    );
}

#[test]
fn an_interrupted_download_leaves_no_file() {
    let server = Server::session(module_path!());
    let work = tempfile::tempdir().expect("work");
    let big = work.path().join("big.bin");
    std::fs::File::create(&big)
        .expect("create")
        .set_len(768 * 1024 * 1024)
        .expect("sparse file");
    let source = format!("{}/SalesLakehouse/Files/large/big.bin", server.demo);
    server
        .fabsh(&["onelake", "cp", &big.to_string_lossy(), &source])
        .ok_json();
    let into = work.path().join("down");
    std::fs::create_dir(&into).expect("mkdir");
    let (code, stdout) = interrupted(
        &server,
        &[
            "onelake",
            "cp",
            &source,
            &into.to_string_lossy(),
            "--overwrite",
        ],
        |log| {
            log["requests"]
                .as_array()
                .expect("requests")
                .iter()
                .any(|r| {
                    // Get Blob, not the upload's Get Block List (`comp=blocklist`).
                    r["method"] == "GET"
                        && r["query"].is_null()
                        && r["path"].as_str().is_some_and(|p| p.ends_with("/big.bin"))
                })
        },
    );
    assert_eq!(code, 130, "{stdout}");
    let left: Vec<_> = std::fs::read_dir(&into)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert!(left.is_empty(), "nothing is left of the download: {left:?}");
}

#[test]
fn a_small_file_copied_up_is_not_sent_again_by_sync() {
    let server = Server::session(module_path!());
    let work = tempfile::tempdir().expect("work");
    let local = work.path().join("copied");
    write(&local, "a.txt", b"copied first\n");
    write(&local, "b.bin", &content(3, 9_000));
    let lake = format!("{}/SalesLakehouse/Files/copied", server.demo);
    server
        .fabsh(&["onelake", "cp", &local.to_string_lossy(), &lake, "-r"])
        .ok_json();
    // A file sent in one request keeps its SHA-256, as sync's own uploads do.
    let synced = storage_requests_of(&server, || {
        server
            .fabsh(&["onelake", "sync", &local.to_string_lossy(), &lake])
            .ok_json();
    });
    assert!(put_names(&synced).is_empty(), "{synced:?}");
}

#[test]
fn a_commit_whose_answer_was_lost_is_known_as_this_uploads_on_the_retry() {
    // Three blocks and the commit: the fourth write that succeeds is the commit, whose answer
    // is lost; the retry is refused as the blob exists (create-only), and the blob found
    // there is this very upload's.
    let server = Server::with(&[("onelake-lost-response-rate", "0.25")]);
    let work = tempfile::tempdir().expect("work");
    let big = work.path().join("three.bin");
    let sent = file_of_blocks(&big, 3, 9);
    let target = format!("{}/SalesLakehouse/Files/lost/three.bin", server.demo);
    let before = server.storage_requests()["count"].as_u64().expect("count");
    let run = server.fabsh(&["onelake", "cp", &big.to_string_lossy(), &target]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let commits = requests_since(&server, before)
        .into_iter()
        .filter(|r| {
            r["method"] == "PUT" && r["query"].as_str().unwrap_or("").contains("comp=blocklist")
        })
        .count();
    assert_eq!(
        commits, 2,
        "the commit was sent again after its answer was lost"
    );
    assert_eq!(
        lake_digest(&server, &target),
        sent,
        "the blob is the file sent"
    );
}
