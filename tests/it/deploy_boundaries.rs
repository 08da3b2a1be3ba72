//! `deploy` reads nothing beyond what it was given, on crafted repositories: no file outside
//! the repository's real path (links out are refused by name), no runaway walk, read or
//! replacement (each bounded, refused within a small memory budget), no environment variable
//! unless allowed (and no value ever shown), and no file repeated in an error. A refusal is
//! an exit 2 with nothing sent, which a server of the test's own counts.

use crate::deploy::{deployed_part, new_workspace, requests_since};
use crate::mcp::{call, connect_env, runtime};
use crate::support::{Run, Server, shared};
use serde_json::json;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

/// What a crafted part links to: it must never show in anything deploy prints.
const SECRET: &str = "TOPSECRET-d4f1c8a2-outside-the-repository";

/// The address space a refused run is given: far below what the runaway cases took before
/// (3.5 GB, 18 GB, all of memory), far above what a refusal needs.
const MEMORY_KIB: u64 = 1 << 20;

/// A notebook folder `<name>.Notebook` under `dir` whose one part runs `code`.
pub(crate) fn notebook(dir: &Path, name: &str, code: &str) -> PathBuf {
    let item = dir.join(format!("{name}.Notebook"));
    std::fs::create_dir_all(&item).expect("item folder");
    let platform = json!({
        "metadata": {"type": "Notebook", "displayName": name},
        "config": {"version": "2.0", "logicalId": "00000000-0000-0000-0000-000000000000"},
    });
    std::fs::write(item.join(".platform"), platform.to_string()).expect(".platform");
    std::fs::write(
        item.join("notebook-content.py"),
        format!("# Fabric notebook source\n\n# CELL ********************\n\n{code}\n"),
    )
    .expect("part");
    item
}

/// A repository with one notebook, `Nb`, and a folder outside it holding the secret.
struct Crafted {
    root: tempfile::TempDir,
    outside: tempfile::TempDir,
}

impl Crafted {
    fn new() -> Crafted {
        let crafted = Crafted {
            root: tempfile::tempdir().expect("temp dir"),
            outside: tempfile::tempdir().expect("temp dir"),
        };
        notebook(&crafted.repo(), "Nb", "print(1)");
        std::fs::write(crafted.secret(), SECRET).expect("secret");
        crafted
    }

    fn repo(&self) -> PathBuf {
        self.root.path().join("repo")
    }

    fn nb(&self) -> PathBuf {
        self.repo().join("Nb.Notebook")
    }

    fn secret(&self) -> PathBuf {
        self.outside.path().join("secret.txt")
    }

    fn dir(&self) -> String {
        self.repo().display().to_string()
    }
}

/// Asserts `run` was refused as a usage error whose message has each of `wanted`, showing
/// neither the secret nor the server's token.
fn assert_refused(run: &Run, server: &Server, wanted: &[&str]) {
    assert_eq!(run.code, 2, "{}\n{}", run.stderr, run.stdout);
    for text in wanted {
        assert!(
            run.stderr.contains(text),
            "{text:?} not in:\n{}",
            run.stderr
        );
    }
    assert_unshown(run, server);
}

/// Asserts neither the secret nor the server's token shows in `run`.
fn assert_unshown(run: &Run, server: &Server) {
    for shown in [&run.stdout, &run.stderr] {
        assert!(!shown.contains(SECRET), "the secret shows:\n{shown}");
        assert!(!shown.contains(&server.token), "the token shows:\n{shown}");
    }
}

#[test]
fn links_out_of_the_repository_are_refused_by_name_before_anything_is_sent() {
    let server = Server::session(module_path!());
    let workspace = new_workspace(&server, "Boundaries");
    type Make = fn(&Crafted);
    let cases: [(&str, &str, Make); 5] = [
        (
            "a part linked to a file outside",
            "DIR: Nb.Notebook/notebook-content.py: a link to ",
            |c| {
                std::fs::remove_file(c.nb().join("notebook-content.py")).expect("rm");
                symlink(c.secret(), c.nb().join("notebook-content.py")).expect("link");
            },
        ),
        (
            "a part linked to the process's environment",
            "DIR: Nb.Notebook/environ.py: a link to /proc/self/environ",
            |c| {
                symlink("/proc/self/environ", c.nb().join("environ.py")).expect("link");
            },
        ),
        (
            "a linked sub-folder",
            "DIR: Nb.Notebook/lib: a link to ",
            |c| {
                symlink(c.outside.path(), c.nb().join("lib")).expect("link");
            },
        ),
        (
            "a whole item folder linked in",
            "DIR: Elsewhere.Notebook: a link to ",
            |c| {
                let elsewhere = notebook(c.outside.path(), "Elsewhere", SECRET);
                symlink(elsewhere, c.repo().join("Elsewhere.Notebook")).expect("link");
            },
        ),
        ("parameter.yml linked out", "parameter file: ", |c| {
            symlink(c.secret(), c.repo().join("parameter.yml")).expect("link");
        }),
    ];
    for (case, named, make) in cases {
        let crafted = Crafted::new();
        make(&crafted);
        let dir = crafted.dir();
        let before = server.request_count();
        for command in ["plan", "apply"] {
            let run = server.fabsh(&["deploy", command, &dir, "-w", &workspace, "-o", "json"]);
            assert_refused(&run, &server, &[named, "which leads out of the repository"]);
        }
        assert_eq!(server.request_count(), before, "{case}: something was sent");
    }
    // A link that stays inside is followed.
    let crafted = Crafted::new();
    std::fs::write(crafted.repo().join("shared.py"), "x = 1\n").expect("write");
    symlink("../shared.py", crafted.nb().join("shared.py")).expect("link");
    let run = server.fabsh(&["deploy", "plan", &crafted.dir(), "-o", "json"]);
    let plan = run.ok_json();
    assert_eq!(plan["items"][0]["displayName"], "Nb", "{plan}");
}

#[test]
fn runaway_repositories_are_refused_within_a_memory_budget_before_anything_is_sent() {
    let server = Server::session(module_path!());
    let workspace = new_workspace(&server, "Runaways");
    type Make = fn(&Crafted);
    let cases: [(&str, &[&str], Make); 3] = [
        (
            "two links to their own folder",
            &["DIR: Nb.Notebook/a: leads to a folder read already"],
            |c| {
                symlink(".", c.nb().join("a")).expect("link");
                symlink(".", c.nb().join("b")).expect("link");
            },
        ),
        (
            "a part linked to /dev/zero",
            &["DIR: Nb.Notebook/zero.py: a link to /dev/zero, which leads out of the repository"],
            |c| {
                symlink("/dev/zero", c.nb().join("zero.py")).expect("link");
            },
        ),
        (
            "a find_replace that makes 1 MB into 1 GB",
            &[
                "find_replace rule 1 (find_value \"a\") would make Nb.Notebook/notebook-content.py larger than the 96 MiB one part may hold",
            ],
            |c| {
                let megabyte = "a".repeat(1 << 20);
                notebook(&c.repo(), "Nb", &format!("# {megabyte}"));
                let thousand = "x".repeat(1000);
                let rule = format!(
                    "find_replace:\n  - find_value: \"a\"\n    replace_value:\n      _ALL_: \"{thousand}\"\n"
                );
                std::fs::write(c.repo().join("parameter.yml"), rule).expect("parameter.yml");
            },
        ),
    ];
    for (case, named, make) in cases {
        let crafted = Crafted::new();
        make(&crafted);
        let dir = crafted.dir();
        // Offline, nothing is asked of the service at all.
        let before = server.request_count();
        let run = server.fabsh_with_memory(MEMORY_KIB, &["deploy", "plan", &dir, "-o", "json"]);
        assert_refused(&run, &server, named);
        assert_eq!(
            server.request_count(),
            before,
            "{case}: plan sent something"
        );
        // apply reads the workspace to plan against it, and writes nothing.
        let before = server.request_count();
        let run = server.fabsh_with_memory(
            MEMORY_KIB,
            &["deploy", "apply", &dir, "-w", &workspace, "-o", "json"],
        );
        assert_refused(&run, &server, named);
        let written: Vec<(String, String)> = requests_since(&server, before)
            .into_iter()
            .filter(|(method, _)| method != "GET")
            .collect();
        assert!(written.is_empty(), "{case}: apply sent {written:?}");
    }
}

/// The variable `$ENV:` names in the tests' parameter files, set to [`SECRET`].
const VARIABLE: &str = "DEPLOY_TEST_SECRET";

/// parameter.yml's rule: `TOKEN_HERE` becomes the variable's value in PROD.
fn env_rule(variable: &str) -> String {
    format!(
        "find_replace:\n  - find_value: \"TOKEN_HERE\"\n    replace_value:\n      PROD: \"$ENV:{variable}\"\n"
    )
}

#[test]
fn env_variables_reach_a_definition_only_when_allowed_and_are_never_shown() {
    let server = Server::session(module_path!());
    let workspace = new_workspace(&server, "Env");
    let crafted = Crafted::new();
    notebook(&crafted.repo(), "Nb", "token = 'TOKEN_HERE'");
    std::fs::write(crafted.repo().join("parameter.yml"), env_rule(VARIABLE)).expect("write");
    let dir = crafted.dir();
    let deploy = |command: &str, extra: &[&str]| {
        let mut args = vec![
            "deploy",
            command,
            &dir,
            "-w",
            &workspace,
            "--environment",
            "PROD",
        ];
        args.extend_from_slice(extra);
        server.fabsh_env(&args, &[(VARIABLE, SECRET)])
    };
    // Unasked: the plan names the flag, and apply sends nothing.
    let plan = deploy("plan", &["-o", "json"]);
    assert_refused(
        &plan,
        &server,
        &[
            "parameter.yml: $ENV:DEPLOY_TEST_SECRET: environment variables are read only when allowed: give --env-vars DEPLOY_TEST_SECRET",
            "(EnvironmentVariableNotAllowed)",
        ],
    );
    let before = server.request_count();
    assert_refused(
        &deploy("apply", &["-o", "json"]),
        &server,
        &["--env-vars DEPLOY_TEST_SECRET"],
    );
    assert_eq!(
        server.request_count(),
        before,
        "a refused apply sent something"
    );
    // Allowed: a dry run lists `$ENV:NAME` where the value goes; apply deploys the value.
    let allowed = ["--env-vars", VARIABLE];
    let dry = deploy(
        "apply",
        &[&allowed[..], &["--dry-run", "-o", "json"]].concat(),
    );
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert_unshown(&dry, &server);
    let applied = deploy("apply", &[&allowed[..], &["-o", "json"]].concat());
    assert_unshown(&applied, &server);
    let id = applied.ok_json()["items"][0]["id"]
        .as_str()
        .expect("id")
        .to_string();
    let part = deployed_part(&server, &workspace, &id, "notebook-content.py");
    assert!(part.contains(&format!("token = '{SECRET}'")), "{part}");
    // A change planned with its diff, in each output: `$ENV:NAME` where the value went.
    notebook(&crafted.repo(), "Nb", "token = 'TOKEN_HERE'\nprint(2)");
    for output in ["json", "yaml", "table"] {
        let run = deploy("plan", &[&allowed[..], &["--diff", "-o", output]].concat());
        assert_eq!(run.code, 8, "{output}: {}", run.stderr);
        assert_unshown(&run, &server);
    }
    let plan = deploy("plan", &[&allowed[..], &["--diff", "-o", "json"]].concat()).json();
    let diff = plan["items"][0]["diffs"][0]["diff"].as_str().expect("diff");
    assert!(
        diff.contains("token = '$ENV:DEPLOY_TEST_SECRET'") && diff.contains("+print(2)"),
        "{diff}"
    );
    // config.yml's feature flag opts in as fabric-cicd's does.
    let config = crafted.root.path().join("deploy.yml");
    std::fs::write(
        &config,
        "core:\n  repository_directory: repo\nfeatures:\n  - enable_environment_variable_replacement\n",
    )
    .expect("config");
    let config = config.display().to_string();
    let run = server.fabsh_env(
        &[
            "deploy",
            "plan",
            "--config",
            &config,
            "-w",
            &workspace,
            "--environment",
            "PROD",
            "--diff",
            "-o",
            "json",
        ],
        &[(VARIABLE, SECRET)],
    );
    assert_eq!(run.code, 8, "{}", run.stderr);
    assert_unshown(&run, &server);
}

#[test]
fn parse_errors_quote_an_excerpt_never_the_file() {
    let server = shared(module_path!());
    // A token longer than an excerpt, on a line of its own.
    let token = format!("{SECRET}-{}", "z".repeat(60));
    let crafted = Crafted::new();
    let root = crafted.root.path();
    let secret_file = crafted.outside.path().join("token");
    std::fs::write(&secret_file, format!("{token}\n")).expect("write");
    let configs = [
        // A config whose parameter file is a secret, not parameters.
        format!(
            "core:\n  repository_directory: repo\n  parameter: {}\n",
            secret_file.display()
        ),
        // A config that is no config.
        format!("core: {token}\n"),
    ];
    let mut runs = Vec::new();
    for (n, text) in configs.iter().enumerate() {
        let config = root.join(format!("config{n}.yml"));
        std::fs::write(&config, text).expect("config");
        let config = config.display().to_string();
        runs.push(server.fabsh(&["deploy", "plan", "--config", &config]));
    }
    // parameter.yml broken on the secret's line.
    std::fs::write(
        crafted.repo().join("parameter.yml"),
        format!("find_replace:\n  - find_value: [\n{token}: x\n"),
    )
    .expect("parameter.yml");
    runs.push(server.fabsh(&["deploy", "plan", &crafted.dir()]));
    // A .platform that is not JSON.
    std::fs::remove_file(crafted.repo().join("parameter.yml")).expect("rm");
    std::fs::write(
        crafted.nb().join(".platform"),
        format!("{{\"metadata\": {token}}}"),
    )
    .expect("write");
    runs.push(server.fabsh(&["deploy", "plan", &crafted.dir()]));
    let wanted = [
        "parameter file: ",
        "--config: ",
        "parameter file: ",
        "DIR: Nb.Notebook/.platform: ",
    ];
    for (run, wanted) in runs.iter().zip(wanted) {
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(run.stderr.contains(wanted), "{wanted}: {}", run.stderr);
        for shown in [&run.stdout, &run.stderr] {
            // Never the file: at most an excerpt, shorter than the token.
            assert!(!shown.contains(&token[..41]), "{shown}");
        }
    }
    assert!(
        runs[0]
            .stderr
            .contains("(line 1, column 1; excerpt: \"TOPSECRET-d4f1c8a2-outside-the-repositor…\")"),
        "{}",
        runs[0].stderr
    );
}

#[test]
fn mcp_deploy_plan_reads_only_under_files_and_no_variable_unless_named() {
    let server = shared(module_path!());
    let crafted = Crafted::new();
    let root = crafted.root.path();
    // A part linked out, a template extended from outside, a config's parameter outside.
    symlink(crafted.secret(), crafted.nb().join("linked.py")).expect("link");
    let extends = root.join("extends");
    notebook(&extends, "Nb", "print(1)");
    std::fs::write(
        extends.join("parameter.yml"),
        format!(
            "extend:\n  - {:?}\n",
            crafted.secret().display().to_string()
        ),
    )
    .expect("parameter.yml");
    std::fs::write(
        root.join("outside.yml"),
        format!(
            "core:\n  repository_directory: extends\n  parameter: {}\n",
            crafted.secret().display()
        ),
    )
    .expect("config");
    // `$ENV:` of a variable the server may read, and of one it may not (its own token).
    let env = root.join("env");
    notebook(&env, "Nb", "a = 'TOKEN_HERE'\nb = 'OTHER_HERE'");
    let rules = format!(
        "{}  - find_value: \"OTHER_HERE\"\n    replace_value:\n      PROD: \"$ENV:FABSH_TOKEN\"\n",
        env_rule(VARIABLE)
    );
    std::fs::write(env.join("parameter.yml"), rules).expect("parameter.yml");
    // A config that opts in: a server's tools read no more for it.
    std::fs::write(
        root.join("env.yml"),
        "core:\n  repository_directory: env\nfeatures:\n  - enable_environment_variable_replacement\n",
    )
    .expect("config");
    let root_arg = root.display().to_string();
    let text = |result: &rmcp::model::CallToolResult| serde_json::to_string(result).expect("json");
    runtime().block_on(async {
        for allowed in [None, Some(VARIABLE)] {
            let mut flags = vec!["-w", "Demo", "--files", &root_arg];
            if let Some(name) = allowed {
                flags.extend(["--deploy-env-vars", name]);
            }
            let (client, _) = connect_env(server, &flags, &[(VARIABLE, SECRET)]).await;
            for (arguments, refused) in [
                (json!({"dir": "repo", "workspace": "Demo", "diff": true}), "a link to "),
                (
                    json!({"dir": "extends", "workspace": "Demo", "diff": true}),
                    "which leads outside the repository and the parameter file's folder",
                ),
                (json!({"config": "outside.yml", "workspace": "Demo", "diff": true}), "is refused"),
            ] {
                let result = call(&client, "deploy_plan", arguments.clone()).await;
                let shown = text(&result);
                assert_eq!(result.is_error, Some(true), "{arguments}: {shown}");
                assert!(shown.contains(refused), "{arguments}: {shown}");
                assert!(!shown.contains(SECRET), "{shown}");
            }
            let result = call(
                &client,
                "deploy_plan",
                json!({"config": "env.yml", "workspace": "Demo", "environment": "PROD", "diff": true}),
            )
            .await;
            let shown = text(&result);
            assert!(
                !shown.contains(SECRET) && !shown.contains(&server.token),
                "{shown}"
            );
            let token_refused = match allowed {
                None => "$ENV:FABSH_TOKEN: no environment variable is allowed here: give --env-vars FABSH_TOKEN (an MCP server: start it with --deploy-env-vars FABSH_TOKEN)",
                Some(_) => "$ENV:FABSH_TOKEN: FABSH_TOKEN is not among the environment variables allowed (DEPLOY_TEST_SECRET)",
            };
            assert!(shown.contains(token_refused), "{shown}");
            // The variable the server names is read; without the flag, none is.
            let secret_refused = shown.contains("$ENV:DEPLOY_TEST_SECRET: ");
            assert_eq!(secret_refused, allowed.is_none(), "{shown}");
            client.cancel().await.expect("close");
        }
    });
}
