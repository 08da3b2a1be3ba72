//! What a new user trips over (issue 27): messages that name what is missing, suggestions for
//! near-miss names, fab's habits, signing in, and the rest of a first afternoon with fabsh.
//! Names come from local Fabric's demo data (the Demo workspace: SalesLakehouse, Welcome,
//! Sales Model, Sales Report).

use crate::support::{Home, Server, shared};

fn server() -> &'static Server {
    shared(module_path!())
}

#[test]
fn one_name_for_an_item_command_names_the_missing_item() {
    let run = server().fabsh(&["item", "show", "Demo"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("the item is missing") && run.stderr.contains("Demo/ITEM"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("needs --workspace"), "{}", run.stderr);
}

#[test]
fn a_near_miss_workspace_name_gets_a_suggestion() {
    // A letter left out, and two swapped.
    for typo in ["Dmo", "Dmeo"] {
        let run = server().fabsh(&["item", "ls", "-w", typo]);
        assert_eq!(run.code, 4, "{}", run.stderr);
        assert!(
            run.stderr.contains("did you mean \"Demo\"?"),
            "{typo}: {}",
            run.stderr
        );
    }
}

#[test]
fn a_misspelt_type_gets_one_message() {
    let run = server().fabsh(&["item", "ls", "-w", "Demo", "--type", "Notbook"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("did you mean Notebook?"),
        "{}",
        run.stderr
    );
    assert!(
        !run.stderr.contains("passed to the service"),
        "{}",
        run.stderr
    );
}

#[test]
fn fab_first_commands_say_what_to_type_instead() {
    let home = Home::new();
    let run = home.run(&["ls"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("fabsh workspace ls") && run.stderr.contains("fabsh item ls -w"),
        "{}",
        run.stderr
    );
    let run = home.run(&["cd", "Demo"]);
    assert!(run.stderr.contains("-w WORKSPACE"), "{}", run.stderr);
    // A command other tools have under a group points to fabsh's, not to clap's nearest.
    let run = home.run(&["item", "rename", "Demo/Welcome", "Hello"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("item update WORKSPACE/ITEM --name NEW")
            && !run.stderr.contains("similar"),
        "{}",
        run.stderr
    );
}

#[test]
fn auth_status_signed_out_is_an_answer_unless_checked() {
    let home = Home::new();
    let run = home.run(&["auth", "status"]);
    let status = run.ok_json();
    assert_eq!(status["signedIn"], false);
    assert!(run.stderr.contains("not signed in"), "{}", run.stderr);
    assert!(run.stderr.contains("fabsh auth login"), "{}", run.stderr);
    let checked = home.run(&["auth", "status", "--check"]);
    assert_eq!(checked.code, 3, "{}", checked.stderr);
    let signed_in = server().fabsh(&["auth", "status"]).ok_json();
    assert_eq!(signed_in["signedIn"], true);
}

/// A new data agent called `name` in Demo with the demo lakehouse as its datasource.
fn agent_with_lakehouse(name: &str) {
    let server = server();
    server
        .fabsh(&["data-agent", "create", "-w", "Demo", "--name", name])
        .ok_json();
    let args = [
        "data-agent",
        "add-datasource",
        "-w",
        "Demo",
        "--id",
        name,
        "--artifact",
        "SalesLakehouse",
    ];
    server.fabsh(&args).ok_json();
}

#[test]
fn a_script_call_with_too_few_values_says_what_is_missing() {
    let run = server().fabsh(&["-e", "item::show(\"Demo\")"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("takes (workspace, id)") && run.stderr.contains("`id` is missing"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("not a map"), "{}", run.stderr);
}

#[test]
fn an_unknown_script_key_is_named_with_the_valid_ones() {
    let run = server().fabsh(&["-e", "item::list(#{workspce: \"Demo\"})"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("no option `workspce`")
            && run.stderr.contains("valid options: workspace")
            && run.stderr.contains("did you mean `workspace`?"),
        "{}",
        run.stderr
    );
    // A few-shot's map: the unknown key is named, not another function suggested.
    let code = "data_agent::add_fewshot(\"Demo\", \"Any agent\", \"SalesLakehouse\", \
                #{question: \"q\", sqll: \"SELECT 1\"})";
    let run = server().fabsh(&["-e", code]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("has no option `sqll`")
            && run
                .stderr
                .contains("valid options: workspace, id, datasource, question, answer")
            && !run.stderr.contains("show_fewshot"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_few_shot_from_a_script_takes_the_rest_of_its_values_in_a_map_with_cli_aliases() {
    agent_with_lakehouse("Script few-shot agent");
    let code = "data_agent::add_fewshot(\"Demo\", \"Script few-shot agent\", \"SalesLakehouse\", \
                #{question: \"How many orders?\", sql: \"SELECT COUNT(*) FROM orders\"})";
    let added = server().fabsh(&["-e", code]).ok_json();
    assert_eq!(added["query"], "SELECT COUNT(*) FROM orders");
    assert_eq!(added["question"], "How many orders?");
}

// An MCP client names the few-shot's query as the CLI does: `sql` (or `answer`) for `query`.
#[test]
fn a_few_shot_from_an_mcp_client_takes_the_cli_aliases() {
    use crate::mcp::{call, connect, runtime, structured};
    use serde_json::json;
    agent_with_lakehouse("MCP few-shot agent");
    runtime().block_on(async {
        let (client, _) = connect(server(), &["--allow-writes"]).await;
        for (key, sql) in [
            ("sql", "SELECT COUNT(*) FROM orders"),
            ("answer", "SELECT COUNT(*) FROM customers"),
        ] {
            let added = call(
                &client,
                "data_agent_add_fewshot",
                json!({"workspace": "Demo", "id": "MCP few-shot agent",
                       "datasource": "SalesLakehouse", "question": format!("by {key}?"), key: sql}),
            )
            .await;
            assert_ne!(added.is_error, Some(true), "{key}: {added:?}");
            assert_eq!(structured(&added)["query"], sql, "{key}");
        }
        client.cancel().await.expect("close");
    });
}

#[test]
fn fs_remove_deletes_what_it_is_given_but_never_the_current_or_home_folder() {
    let home = Home::new();
    let work = home.dir.path().join("work");
    std::fs::create_dir_all(work.join("out/parts")).unwrap();
    std::fs::write(work.join("out/parts/a.json"), "{}").unwrap();
    let run = |code: &str| {
        let mut command = home.command(&["-e", code]);
        command
            .current_dir(&work)
            .stdin(std::process::Stdio::null());
        command.output().expect("run fabsh")
    };
    let removed = run("fs::remove(\"out\")");
    assert!(removed.status.success(), "{removed:?}");
    assert_eq!(String::from_utf8_lossy(&removed.stdout).trim(), "true");
    assert!(!work.join("out").exists());
    let again = run("fs::remove(\"out\")");
    assert_eq!(String::from_utf8_lossy(&again.stdout).trim(), "false");
    for precious in ["..", ".", "~"] {
        let code = if precious == "~" {
            format!("fs::remove({:?})", home.dir.path().display().to_string())
        } else {
            format!("fs::remove({precious:?})")
        };
        let refused = run(&code);
        assert_eq!(refused.status.code(), Some(2), "{precious}: {refused:?}");
        assert!(work.exists() && home.dir.path().exists());
    }
}

#[test]
fn a_few_shot_file_may_name_its_query_sql_and_says_so() {
    agent_with_lakehouse("Aliased file agent");
    let home = Home::new();
    let file = home.dir.path().join("examples.csv");
    std::fs::write(
        &file,
        "question,sql\nHow many orders?,SELECT COUNT(*) FROM orders\n",
    )
    .unwrap();
    let path = file.display().to_string();
    let base = [
        "data-agent",
        "upload-fewshots",
        "-w",
        "Demo",
        "--id",
        "Aliased file agent",
        "--datasource",
        "SalesLakehouse",
        "--file",
    ];
    let mut args = base.to_vec();
    args.push(&path);
    let run = server().fabsh(&args);
    assert_eq!(run.ok_json()["summary"]["added"], 1);
    assert!(
        run.stderr
            .contains("the queries were read from the column sql"),
        "{}",
        run.stderr
    );
    std::fs::write(&file, "question,sql,answer\nq,SELECT 1,SELECT 2\n").unwrap();
    let both = server().fabsh(&args);
    assert_eq!(both.code, 2, "{}", both.stderr);
    assert!(both.stderr.contains("sql and answer"), "{}", both.stderr);
    std::fs::write(&file, "q,a\nx,y\n").unwrap();
    let header = server().fabsh(&args);
    assert!(
        header
            .stderr
            .contains("query (or answer, sql, kql, dax, gql)"),
        "{}",
        header.stderr
    );
}

#[test]
fn agents_create_checks_the_few_shot_file_before_creating_anything() {
    let home = Home::new();
    let file = home.dir.path().join("bad.csv");
    std::fs::write(&file, "question,query\nHow many orders?,\n").unwrap();
    let code = format!(
        "agents::create(\"Demo\", #{{name: \"Checked first agent\", \
         sources: [#{{artifact: \"SalesLakehouse\", fewshots: {:?}}}]}})",
        file.display().to_string()
    );
    let run = server().fabsh(&["-e", &code]);
    assert_ne!(run.code, 0, "{}", run.stdout);
    assert!(run.stderr.contains("line 2"), "{}", run.stderr);
    let agents = server()
        .fabsh(&["data-agent", "ls", "-w", "Demo", "-o", "json"])
        .ok_json();
    assert!(
        !agents
            .as_array()
            .unwrap()
            .iter()
            .any(|agent| agent["displayName"] == "Checked first agent"),
        "{agents}"
    );
}

#[test]
fn a_query_that_returns_null_is_answered_as_no_value() {
    let name = "Null answer agent";
    agent_with_lakehouse(name);
    let agent = ["-w", "Demo", "--id", name];
    let run = |command: &str, rest: &[&str]| {
        let mut args = vec!["data-agent", command];
        args.extend_from_slice(&agent);
        args.extend_from_slice(rest);
        server().fabsh(&args).ok_json()
    };
    run(
        "select-tables",
        &["--datasource", "SalesLakehouse", "--tables", "orders"],
    );
    run(
        "add-fewshot",
        &[
            "--datasource",
            "SalesLakehouse",
            "--question",
            "What is the largest order from the year 1900?",
            "--sql",
            "SELECT MAX(amount) FROM orders WHERE order_date < '1901-01-01'",
        ],
    );
    run("publish", &["--description", "Nothing before 1901"]);
    let out = run(
        "query",
        &["--prompt", "What is the largest order from the year 1900?"],
    );
    let answer = out["answer"].as_str().expect("answer");
    assert!(answer.contains("returned no value"), "{out}");
    assert!(!answer.contains("The answer is ."), "{out}");
}

#[test]
fn show_steps_is_documented_as_local_fabric_with_legacy_assistants_only() {
    let help = Home::new().run(&["data-agent", "query", "--help"]);
    assert!(
        help.stdout.contains("--legacy-assistants"),
        "{}",
        help.stdout
    );
    let readme = include_str!("../../README.md");
    assert!(readme.contains("--legacy-assistants true"));
    // The tour runs `--local` (no legacy surface): it shows no flag that cannot work there.
    let tour_steps = readme
        .lines()
        .filter(|line| line.starts_with("fabsh --local") && line.contains("--show-steps"));
    assert_eq!(tour_steps.count(), 0);
}

/// The `sh` block of the README that follows the line starting with `heading`.
fn readme_block(heading: &str) -> String {
    let readme = include_str!("../../README.md");
    let after = &readme[readme.find(heading).expect("the heading")..];
    let start = after.find("```sh\n").expect("a sh block") + "```sh\n".len();
    let block = &after[start..];
    block[..block.find("```").expect("the block's end")].to_string()
}

#[test]
fn the_readmes_data_agent_block_runs_as_written_with_its_questions_file() {
    let home = Home::new();
    let run = home.shell(&readme_block("A data agent over the demo lakehouse"));
    assert_eq!(run.code, 0, "{}", run.stderr);
    // The shipped questions file's answers are the demo generator's counts (3,000 orders,
    // 240 customers): every question passes.
    let questions = include_str!("../../scripts/questions.csv").lines().count() - 1;
    let graded = format!("{questions} runs graded by the rules: {questions} passed");
    assert!(run.stderr.contains(&graded), "{}", run.stderr);
}

#[test]
fn a_dry_run_rename_to_a_taken_name_reports_the_conflict() {
    let server = server();
    let taken = server.create_demo_item("Dry run taken name", "Notebook");
    let renamed = server.create_demo_item("Dry run renamed", "Notebook");
    let run = server.fabsh(&[
        "item",
        "update",
        "Demo/Dry run renamed",
        "--name",
        "Dry run taken name",
        "--dry-run",
    ]);
    assert_eq!(run.code, 2, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("ItemDisplayNameAlreadyInUse") && run.stderr.contains(&taken),
        "{}",
        run.stderr
    );
    // A free name is planned as before.
    let free = server.fabsh(&[
        "item",
        "update",
        "Demo/Dry run renamed",
        "--name",
        "Dry run free name",
        "--dry-run",
    ]);
    assert_eq!(free.code, 0, "{}", free.stderr);
    let shown = server
        .fabsh(&[
            "item",
            "show",
            "-w",
            "Demo",
            "--id",
            &renamed,
            "-q",
            "displayName",
        ])
        .ok_json();
    assert_eq!(shown, "Dry run renamed");
}

// get-definition --dir --clean: a script can re-run an export into the same folder.

fn get_definition_into(server: &Server, dir: &str, extra: &[&str]) -> crate::support::Run {
    let args = [
        &[
            "item",
            "get-definition",
            "-w",
            server.demo.as_str(),
            "--id",
            "Sales Model",
            "--dir",
            dir,
        ][..],
        extra,
    ]
    .concat();
    server.fabsh(&args)
}

#[test]
fn get_definition_clean_replaces_only_the_previous_parts() {
    let server = Server::session(module_path!());
    let dir = server.home.dir.path().join("model");
    let dir_text = dir.to_string_lossy().into_owned();
    get_definition_into(&server, &dir_text, &[]).ok_json();
    // A part left from an older definition (a table since dropped) must not survive a re-run.
    let stale = dir.join("definition/tables/Dropped.tmdl");
    std::fs::write(&stale, "table Dropped\n").expect("stale part");

    let refused = get_definition_into(&server, &dir_text, &[]);
    assert_eq!(refused.code, 2, "without --clean: {}", refused.stderr);
    assert!(
        refused.stderr.contains("is not empty"),
        "{}",
        refused.stderr
    );

    let summary = get_definition_into(&server, &dir_text, &["--clean"]).ok_json();
    assert!(!stale.exists(), "the stale part was removed: {summary}");
    // The demo data's semantic model has an Orders table.
    assert!(dir.join("definition/tables/Orders.tmdl").is_file());
    assert!(dir.join(".platform").is_file());
}

#[test]
fn get_definition_clean_never_removes_files_that_are_not_parts() {
    let server = Server::session(module_path!());
    let dir = server.home.dir.path().join("model");
    let dir_text = dir.to_string_lossy().into_owned();
    get_definition_into(&server, &dir_text, &[]).ok_json();
    let notes = dir.join("notes.txt");
    std::fs::write(&notes, "my notes").expect("notes");

    let refused = get_definition_into(&server, &dir_text, &["--clean"]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(refused.stderr.contains("notes.txt"), "{}", refused.stderr);
    assert!(notes.is_file(), "a file that is not a part stays");
    assert!(
        dir.join("definition/tables/Orders.tmdl").is_file(),
        "nothing was removed when refusing"
    );

    // A folder that is not a definition folder at all (no .platform) is refused too.
    let other = server.home.dir.path().join("other");
    std::fs::create_dir(&other).expect("dir");
    std::fs::write(other.join("x.json"), "{}").expect("file");
    let refused = get_definition_into(&server, &other.to_string_lossy(), &["--clean"]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(other.join("x.json").is_file());
}

// Tags by name: --tag-ids takes display names as workspaces and items take names.
#[test]
fn tags_apply_and_unapply_by_display_name() {
    let server = Server::session(module_path!());
    let tags = server.fabsh(&["tag", "list"]).ok_json();
    let tag = &tags.as_array().expect("tags")[0];
    let name = tag["displayName"].as_str().expect("name").to_string();
    let id = tag["id"].as_str().expect("id").to_string();
    let item = |verb: &str| {
        server.fabsh(&[
            "item",
            verb,
            "-w",
            server.demo.as_str(),
            "--id",
            "Welcome",
            "--tag-ids",
            &name,
        ])
    };
    let applied = item("apply-tags").ok_json();
    assert_eq!(applied["tags"][0]["id"], id.as_str(), "{applied}");
    let removed = item("unapply-tags").ok_json();
    // An item without tags has no `tags` (or an empty list).
    assert!(
        removed["tags"].as_array().is_none_or(Vec::is_empty),
        "{removed}"
    );

    // A workspace takes tag names too.
    let workspace = |verb: &str| {
        server.fabsh(&[
            "workspace",
            verb,
            "-w",
            server.demo.as_str(),
            "--tag-ids",
            &name,
        ])
    };
    let applied = workspace("apply-tags").ok_json();
    assert_eq!(applied["tags"][0]["id"], id.as_str(), "{applied}");
    let removed = workspace("unapply-tags").ok_json();
    assert!(
        removed["tags"].as_array().is_none_or(Vec::is_empty),
        "{removed}"
    );

    let unknown = server.fabsh(&[
        "item",
        "apply-tags",
        "-w",
        server.demo.as_str(),
        "--id",
        "Welcome",
        "--tag-ids",
        "No Such Tag",
    ]);
    // Known only after the tags are listed: not found (exit 4), as an unknown workspace.
    assert_eq!(unknown.code, 4, "{}", unknown.stderr);
    assert!(
        unknown.stderr.contains("no tag is named"),
        "{}",
        unknown.stderr
    );
}

// The long-running-operation spinner names what it waits for. Its label reaches an MCP client
// as the progress message, where a test can read it.
#[test]
fn a_long_running_operation_reports_the_command_and_the_item_it_waits_for() {
    use crate::mcp::{call, connect, runtime, structured};
    let server = Server::with(&[("lro-ms", "400")]);
    runtime().block_on(async {
        let (client, recorder) = connect(&server, &[]).await;
        let got = call(
            &client,
            "item_get_definition",
            serde_json::json!({"workspace": "Demo", "id": "Welcome"}),
        )
        .await;
        assert!(
            structured(&got)["definition"]["parts"].is_array(),
            "{got:?}"
        );
        // Notifications may be handed over after the result.
        let messages = || -> Vec<String> {
            let progress = recorder.progress.lock().expect("progress");
            progress.iter().filter_map(|p| p.message.clone()).collect()
        };
        for _ in 0..50 {
            if !messages().is_empty() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        let messages = messages();
        assert!(
            !messages.is_empty()
                && messages
                    .iter()
                    .all(|m| m.starts_with("item get-definition Welcome:")),
            "{messages:?}"
        );
        client.cancel().await.expect("close");
    });
}

// logicalId: an item that has one exports it; one that has none exports the all-zero GUID, as
// every recorded getDefinition of an item made without one does (recordings/fabric-cli export,
// import, set).
const NO_LOGICAL_ID: &str = "00000000-0000-0000-0000-000000000000";

/// The `config.logicalId` of the `.platform` in folder `dir`.
fn logical_id_in(dir: &std::path::Path) -> String {
    let text = std::fs::read_to_string(dir.join(".platform")).expect("read .platform");
    let platform: serde_json::Value = serde_json::from_str(&text).expect(".platform is JSON");
    platform["config"]["logicalId"]
        .as_str()
        .expect("logicalId")
        .to_string()
}

#[test]
fn a_logical_id_once_set_or_given_at_creation_is_what_get_definition_exports() {
    let server = Server::session(module_path!());
    let out = tempfile::tempdir().expect("temp dir");
    let export = |name: &str, into: &str| {
        let dir = out.path().join(into);
        let dir_text = dir.display().to_string();
        server
            .fabsh(&[
                "item",
                "get-definition",
                "-w",
                server.demo.as_str(),
                "--id",
                name,
                "--dir",
                &dir_text,
            ])
            .ok_json();
        logical_id_in(&dir)
    };
    // Demo's items were made without one.
    assert_eq!(export("Welcome", "before"), NO_LOGICAL_ID);
    let set = "3f2b8c1d-4e5a-4b6c-8d7e-9f0a1b2c3d4e";
    server
        .fabsh(&[
            "item",
            "update-logical-id",
            "-w",
            server.demo.as_str(),
            "--id",
            "Welcome",
            "--logical-id",
            set,
        ])
        .ok_json();
    assert_eq!(export("Welcome", "after"), set);

    // A copy made from a definition that carries none has none; one made from a `.platform`
    // with one keeps it.
    let before = out.path().join("before").display().to_string();
    server
        .fabsh(&[
            "item",
            "create",
            "-w",
            server.demo.as_str(),
            "--name",
            "Copy",
            "--type",
            "Notebook",
            "--dir",
            &before,
        ])
        .ok_json();
    assert_eq!(export("Copy", "copy"), NO_LOGICAL_ID);
    let given = out.path().join("given");
    std::fs::create_dir_all(&given).expect("dir");
    for entry in std::fs::read_dir(out.path().join("before")).expect("list") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), given.join(entry.file_name())).expect("copy");
    }
    let platform = std::fs::read_to_string(given.join(".platform"))
        .expect("read")
        .replace(NO_LOGICAL_ID, "5a1e0c6e-1b2d-4c3e-8f4a-5b6c7d8e9f01");
    std::fs::write(given.join(".platform"), platform).expect("write");
    server
        .fabsh(&[
            "item",
            "create",
            "-w",
            server.demo.as_str(),
            "--name",
            "Given",
            "--type",
            "Notebook",
            "--dir",
            &given.display().to_string(),
        ])
        .ok_json();
    assert_eq!(
        export("Given", "given-again"),
        "5a1e0c6e-1b2d-4c3e-8f4a-5b6c7d8e9f01"
    );
}

#[test]
fn deploy_export_writes_the_logical_id_an_item_has_and_the_id_of_one_that_has_none() {
    let server = Server::session(module_path!());
    let set = "3f2b8c1d-4e5a-4b6c-8d7e-9f0a1b2c3d4e";
    server
        .fabsh(&[
            "item",
            "update-logical-id",
            "-w",
            server.demo.as_str(),
            "--id",
            "Welcome",
            "--logical-id",
            set,
        ])
        .ok_json();
    let model = server
        .fabsh(&[
            "item",
            "show",
            "-w",
            server.demo.as_str(),
            "--id",
            "Sales Model",
        ])
        .ok_json();
    let out = tempfile::tempdir().expect("temp dir");
    let repo = out.path().join("repo");
    server
        .fabsh(&[
            "deploy",
            "export",
            "-w",
            server.demo.as_str(),
            &repo.display().to_string(),
            "-o",
            "json",
        ])
        .ok_json();
    assert_eq!(logical_id_in(&repo.join("Welcome.Notebook")), set);
    assert_eq!(
        logical_id_in(&repo.join("Sales Model.SemanticModel")),
        model["id"].as_str().expect("id")
    );
}

// Evaluation times: to the second, in the reader's zone with its offset (TZ as POSIX gives it:
// `IST-5:30` is five and a half hours east of UTC), and on the report's chart as dates.
#[test]
fn evaluation_times_are_to_the_second_in_the_readers_zone_and_date_the_chart() {
    use crate::data_agent_evaluate::questions;
    use crate::data_agent_query::{EXAMPLES, published};
    use crate::evaluations::evaluate;
    let fx = published(module_path!(), EXAMPLES);
    let dir = tempfile::tempdir().expect("dir");
    let file = questions(&fx, &dir);
    evaluate(&fx, &file, &[]).ok_json();
    let zone = [("TZ", "IST-5:30")];
    let listed = fx.server.fabsh_env(
        &[
            "data-agent",
            "evaluations",
            "list",
            "-w",
            &fx.workspace,
            "--id",
            &fx.agent,
        ],
        &zone,
    );
    let listed: serde_json::Value = serde_json::from_str(&listed.stdout).expect("JSON");
    let time = listed[0]["time"].as_str().expect("time").to_string();
    // 2026-11-25T20:18:07+05:30: no fraction, the zone's offset.
    assert_eq!(time.len(), "2026-11-25T20:18:07+05:30".len(), "{time}");
    assert!(time.ends_with("+05:30"), "{time}");
    let run_id = listed[0]["runId"].as_str().expect("id").to_string();

    let page = dir.path().join("report.html");
    let report = fx.server.fabsh_env(
        &[
            "data-agent",
            "evaluations",
            "report",
            &run_id,
            "--output-file",
            page.to_str().expect("path"),
        ],
        &zone,
    );
    assert_eq!(report.code, 0, "{}", report.stderr);
    let html = std::fs::read_to_string(&page).expect("report");
    // The x-axis names the run by its day and minute, in the same zone.
    let axis = format!("{} {}", &time[5..10], &time[11..16]);
    let trend = &html[html.find("<svg class=\"trend\"").expect("chart")..];
    assert!(trend.contains(&format!(">{axis}</text>")), "{axis}");
    // The questions file by its name and sha256, not its local path.
    let shown = fx
        .server
        .fabsh(&["data-agent", "evaluations", "show", &run_id])
        .ok_json();
    let sha = shown["questionsSha256"].as_str().expect("sha256");
    assert!(html.contains(&format!("questions.json · sha256 {sha}")));
    assert!(!html.contains(dir.path().to_str().expect("path")));
}

// `evaluate --baseline ... -o table` shows the comparison (a note beside the questions table)
// instead of dropping it.
#[test]
fn a_table_evaluation_against_a_baseline_says_what_changed() {
    use crate::data_agent_evaluate::questions;
    use crate::data_agent_query::{EXAMPLES, published};
    use crate::evaluations::{evaluate, orders_made_wrong};
    let fx = published(module_path!(), EXAMPLES);
    let dir = tempfile::tempdir().expect("dir");
    let file = questions(&fx, &dir);
    evaluate(&fx, &file, &[]).ok_json();
    let changed = orders_made_wrong(&fx, &dir);
    let run = evaluate(&fx, &changed, &["--baseline", "latest", "-o", "table"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("1 newly failing")
            && run
                .stderr
                .contains("newly failing: How many orders are there?"),
        "{}",
        run.stderr
    );
}

// Pass rates print as percentages: the summary note, the --min-pass-rate refusal and the
// questions table. The fixture's four questions: two right, one wrong, one without an
// expectation, so two of four runs pass.
#[test]
fn pass_rates_print_as_percentages() {
    use crate::data_agent_evaluate::questions;
    use crate::data_agent_query::{EXAMPLES, published};
    use crate::evaluations::evaluate;
    let fx = published(module_path!(), EXAMPLES);
    let dir = tempfile::tempdir().expect("dir");
    let file = questions(&fx, &dir);
    let run = evaluate(
        &fx,
        &file,
        &["--min-pass-rate", "0.8", "-o", "table", "--no-save"],
    );
    assert_eq!(run.code, 6, "{}", run.stderr);
    assert!(run.stderr.contains("; pass rate 50.0%;"), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("the pass rate 50.0% is below --min-pass-rate 0.8 (80.0%)"),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout.contains("100%") && run.stdout.contains("0%"),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains("0.5") && !run.stdout.contains("1.0 "),
        "{}",
        run.stdout
    );
}

// What `cargo install` builds is a binary of a normal size: the release profile drops debug
// info and symbols and folds generic code with fat LTO (189 MB with line tables, 49.5 MB
// without the three, 28.5 MB with them, as measured when they were set). A release build takes
// too long for a test, so this pins the settings that make the size.
#[test]
fn the_release_profile_builds_a_binary_of_a_normal_size() {
    let manifest = include_str!("../../Cargo.toml");
    let section: Vec<&str> = manifest
        .lines()
        .skip_while(|line| line.trim() != "[profile.release]")
        .skip(1)
        .take_while(|line| !line.starts_with('['))
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .collect();
    for setting in [
        "debug = false",
        "strip = true",
        "lto = \"fat\"",
        "codegen-units = 1",
    ] {
        assert!(section.contains(&setting), "{setting} in {section:?}");
    }
}
