//! Profiles: flag > environment > profile > default, and what a profile supplies.

use super::{Session, add_app};
use crate::support::{Home, Server};

#[test]
fn settings_follow_flag_then_environment_then_profile_then_default() {
    let home = Home::new();
    let get = |args: &[&str], env: &[(&str, &str)]| {
        let run = home.run_env(args, env);
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout.trim().to_string()
    };
    let endpoint = ["config", "get", "endpoint"];
    assert_eq!(get(&endpoint, &[]), "https://api.fabric.microsoft.com/v1");
    let set = home.run(&[
        "--profile",
        "prod",
        "config",
        "set",
        "endpoint",
        "https://prod.example.invalid",
    ]);
    assert_eq!(set.code, 0, "{}", set.stderr);
    let prod = ["--profile", "prod", "config", "get", "endpoint"];
    assert_eq!(get(&prod, &[]), "https://prod.example.invalid/v1");
    assert_eq!(
        get(&endpoint, &[("FABSH_PROFILE", "prod")]),
        "https://prod.example.invalid/v1"
    );
    assert_eq!(
        get(&endpoint, &[]),
        "https://api.fabric.microsoft.com/v1",
        "default profile untouched"
    );
    let env = [("FABSH_ENDPOINT", "https://env.example.invalid/v1")];
    assert_eq!(get(&prod, &env), "https://env.example.invalid/v1");
    let flag = [
        "--profile",
        "prod",
        "--endpoint",
        "https://flag.example.invalid/v1",
        "config",
        "get",
        "endpoint",
    ];
    assert_eq!(get(&flag, &env), "https://flag.example.invalid/v1");

    let listed = home
        .run_env(&["--profile", "prod", "config", "list", "-o", "json"], &[])
        .ok_json();
    let row = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"] == "endpoint")
        .unwrap()
        .clone();
    assert_eq!(row["source"], "profile");
    let unset = home.run(&["--profile", "prod", "config", "unset", "endpoint"]);
    assert_eq!(unset.code, 0, "{}", unset.stderr);
    assert_eq!(
        get(&endpoint, &[("FABSH_PROFILE", "prod")]),
        "https://api.fabric.microsoft.com/v1"
    );

    let unknown = home.run(&["--profile", "nope", "workspace", "list"]);
    assert_eq!(unknown.code, 2, "{}", unknown.stderr);
    assert!(
        unknown.stderr.contains("no profile named `nope`"),
        "{}",
        unknown.stderr
    );
    let bad = home.run(&["config", "set", "output", "xml"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
}

#[test]
fn a_profile_gives_the_default_workspace_and_output_format() {
    let server = Server::session(module_path!());
    for (key, value) in [
        ("workspace", server.demo.as_str()),
        ("output", "yaml"),
        ("endpoint", server.endpoint.as_str()),
    ] {
        let set = server
            .home
            .run(&["--profile", "demo", "config", "set", key, value]);
        assert_eq!(set.code, 0, "{}", set.stderr);
    }
    // The profile signs in for its endpoint; later commands name nothing but the profile.
    let app = add_app(
        &server,
        &[
            "--name",
            "demo-reader",
            "-w",
            server.demo.as_str(),
            "--role",
            "Viewer",
        ],
    );
    let text = |key: &str| app[key].as_str().expect(key).to_string();
    let mut session = Session::new(&server);
    session.secret(&text("clientSecret"));
    let login = session.run_with_stdin(
        &[
            "--profile",
            "demo",
            "auth",
            "login",
            "--service-principal",
            "--tenant",
            &text("tenantId"),
            "--client-id",
            &text("clientId"),
            "--client-secret",
        ],
        &text("clientSecret"),
    );
    assert_eq!(login.code, 0, "{}", login.stderr);
    session.assert_no_secret_shown();
    let yaml = server.home.run(&["--profile", "demo", "item", "list"]);
    assert_eq!(yaml.code, 0, "{}", yaml.stderr);
    assert!(yaml.stdout.starts_with("- "), "{}", yaml.stdout);
    assert!(yaml.stdout.contains("SalesLakehouse"), "{}", yaml.stdout);
    let json = server
        .home
        .run(&["--profile", "demo", "item", "list", "-o", "json"]);
    assert!(json.ok_json().as_array().is_some());
    let tsv = server.home.run_env(
        &["--profile", "demo", "item", "list"],
        &[("FABSH_OUTPUT", "tsv")],
    );
    assert!(tsv.stdout.contains('\t'), "{}", tsv.stdout);
    let elsewhere = server.fabsh(&["--profile", "demo", "item", "list", "-w", "Nowhere"]);
    assert_eq!(
        elsewhere.code, 4,
        "the flag beats the profile: {}",
        elsewhere.stderr
    );
    let without = server.fabsh(&["item", "list"]);
    assert_eq!(without.code, 2, "{}", without.stderr);
}
