//! Bad input that used to get past the flag checks (issue 26, "Refuse before sending"): each
//! case exits 2 naming the flag, and local Fabric sees no request at all.

use crate::support::{Home, Run, Server};

/// Runs `args` against `server` and asserts the refusal: exit 2, `names` in the message, and
/// not one request seen by the server.
fn refused_before_sending(server: &Server, args: &[&str], names: &str) -> Run {
    let before = server.request_count();
    let run = server.fabsh(args);
    assert_eq!(
        run.code, 2,
        "{args:?}: expected a usage error; stderr:\n{}\nstdout:\n{}",
        run.stderr, run.stdout
    );
    assert!(
        run.stderr.contains(names),
        "{args:?}: the refusal does not name {names}: {}",
        run.stderr
    );
    // The request log counts API requests; reading it is not one of them.
    assert_eq!(
        server.request_count(),
        before,
        "{args:?} sent requests before refusing: {:?}",
        server.request_paths()
    );
    run
}

#[test]
fn a_negative_lro_timeout_is_refused_before_the_item_is_created() {
    let server = Server::session(module_path!());
    let create = [
        "item",
        "create",
        "-w",
        server.demo.as_str(),
        "--name",
        "NeverMade",
        "--type",
        "Notebook",
        "--lro-timeout",
        "-1",
    ];
    let run = refused_before_sending(&server, &create, "--lro-timeout");
    assert!(run.stderr.contains("at least 1"), "{}", run.stderr);
    let get = [
        "item",
        "get-definition",
        "-w",
        server.demo.as_str(),
        "--id",
        "Welcome",
        "--lro-timeout",
        "0",
    ];
    refused_before_sending(&server, &get, "--lro-timeout");
    let names = server
        .fabsh(&[
            "item",
            "list",
            "-w",
            server.demo.as_str(),
            "-q",
            "[].displayName",
        ])
        .ok_json();
    assert!(
        !names
            .as_array()
            .expect("names")
            .iter()
            .any(|n| n == "NeverMade"),
        "the refused create made the item: {names}"
    );
}

#[test]
fn a_limit_below_one_is_refused_before_names_are_looked_up() {
    let server = Server::session(module_path!());
    for limit in ["0", "-1"] {
        let run = refused_before_sending(
            &server,
            &["item", "list", "-w", server.demo.as_str(), "--limit", limit],
            "--limit",
        );
        assert!(
            run.stderr.contains(&format!("got {limit}")),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn conflicting_thread_flags_of_a_query_are_a_usage_error() {
    let server = Server::session(module_path!());
    refused_before_sending(
        &server,
        &[
            "data-agent",
            "query",
            "-w",
            server.demo.as_str(),
            "--id",
            "Sales agent",
            "--prompt",
            "hi",
            "--keep-thread",
            "--thread-id",
            "00000000-0000-4000-8000-000000000001",
        ],
        "--thread-id",
    );
}

#[test]
fn an_empty_workspace_given_as_w_is_refused_naming_w() {
    let server = Server::session(module_path!());
    let run = refused_before_sending(&server, &["workspace", "delete", "-w", "", "--yes"], "-w");
    assert!(run.stderr.contains("-w is empty"), "{}", run.stderr);
    // Only the spelling typed: `--id` and `--workspace` are the same flag's other names.
    assert!(
        !run.stderr.contains("--id") && !run.stderr.contains("--workspace"),
        "the refusal names spellings the user did not type: {}",
        run.stderr
    );
    let run = refused_before_sending(
        &server,
        &["workspace", "delete", "--workspace=", "--yes"],
        "--workspace is empty",
    );
    assert!(!run.stderr.contains("-w,"), "{}", run.stderr);
}

#[test]
fn an_app_credential_without_service_principal_is_refused_not_a_device_code_sign_in() {
    let home = Home::new();
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("credential.pem");
    std::fs::write(&file, "not read").expect("write");
    let file = file.to_str().expect("path");
    // Nothing listens on this authority: a sign-in that starts anyway fails there (or waits)
    // instead of reaching the network.
    let authority = [("FABSH_AUTHORITY_HOST", "http://127.0.0.1:9")];
    for flag in ["--certificate", "--federated-token-file"] {
        let run = home.run_env(&["auth", "login", flag, file, "--tenant", "t"], &authority);
        assert_eq!(run.code, 2, "{flag}: {}\n{}", run.stderr, run.stdout);
        assert!(
            run.stderr.contains("--service-principal") && run.stderr.contains(flag),
            "{flag}: the refusal names neither the flag nor the missing one: {}",
            run.stderr
        );
    }
}

#[test]
fn local_admin_files_are_checked_by_the_client() {
    let server = Server::start();
    let dir = tempfile::tempdir().expect("dir");
    let not_a_certificate = dir.path().join("key.pem");
    std::fs::write(
        &not_a_certificate,
        "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
    )
    .expect("write");
    let empty = dir.path().join("empty.csv");
    std::fs::write(&empty, "").expect("write");
    let run = refused_before_sending(
        &server,
        &[
            "local",
            "principal",
            "add",
            "--name",
            "bad-cert",
            "--certificate",
            not_a_certificate.to_str().expect("path"),
        ],
        "--certificate",
    );
    assert!(run.stderr.contains("key.pem"), "{}", run.stderr);
    let principals = server.fabsh(&["local", "principal", "list"]).ok_json();
    assert!(
        !principals.to_string().contains("bad-cert"),
        "the refused principal was added: {principals}"
    );
    let run = refused_before_sending(
        &server,
        &[
            "local",
            "load-table",
            "-w",
            "Demo",
            "--lakehouse",
            "SalesLakehouse",
            "--table",
            "empty",
            "--file",
            empty.to_str().expect("path"),
        ],
        "--file",
    );
    assert!(run.stderr.contains("empty.csv"), "{}", run.stderr);
}
