//! Data agents end to end against local Fabric: the full configuration round trip from the
//! command line (create, add the demo lakehouse, select, describe, upload few-shots, publish,
//! change the draft, read both stages, reset).

use crate::support::{Run, Server};
use serde_json::Value;

/// An agent in the server's Demo workspace (a session's copy of it), with ids for the commands
/// that want them.
pub(crate) struct AgentFixture {
    pub server: Server,
    pub workspace: String,
    pub agent: String,
}

impl AgentFixture {
    /// One new agent called "Sales agent" in a session on the server of the test file `key`
    /// names (`module_path!()`).
    pub(crate) fn new(key: &'static str) -> AgentFixture {
        Self::on(Server::session(key))
    }

    /// One new agent called "Sales agent" on `server`.
    pub(crate) fn on(server: Server) -> AgentFixture {
        let workspace = text(&server.fabsh(&["workspace", "show", "-w", &server.demo, "-q", "id"]));
        let created = server
            .fabsh(&[
                "data-agent",
                "create",
                "-w",
                &server.demo,
                "--name",
                "Sales agent",
            ])
            .ok_json();
        let agent = created["id"].as_str().expect("id").to_string();
        AgentFixture {
            server,
            workspace,
            agent,
        }
    }

    /// One new agent called `name` on a server a test file shares (borrowed, not owned).
    pub(crate) fn on_shared(server: &'static Server, name: &str) -> SharedAgent {
        let workspace = text(&server.fabsh(&["workspace", "show", "-w", "Demo", "-q", "id"]));
        let created = server
            .fabsh(&["data-agent", "create", "-w", "Demo", "--name", name])
            .ok_json();
        SharedAgent {
            server,
            workspace,
            agent: created["id"].as_str().expect("id").to_string(),
        }
    }

    /// Runs `data-agent <command> -w <ws id> --id <agent id> <rest>`.
    pub(crate) fn run(&self, command: &str, rest: &[&str]) -> Run {
        self.run_env(command, rest, &[])
    }

    /// The same with extra environment variables.
    pub(crate) fn run_env(&self, command: &str, rest: &[&str], env: &[(&str, &str)]) -> Run {
        let mut args = vec![
            "data-agent",
            command,
            "-w",
            &self.workspace,
            "--id",
            &self.agent,
        ];
        args.extend_from_slice(rest);
        self.server.fabsh_env(&args, env)
    }

    /// The same, asserting success and parsing JSON.
    pub(crate) fn ok(&self, command: &str, rest: &[&str]) -> Value {
        self.run(command, rest).ok_json()
    }

    /// Adds the demo lakehouse.
    pub(crate) fn add_lakehouse(&self) -> Value {
        self.ok("add-datasource", &["--artifact", "SalesLakehouse"])
    }
}

/// An agent on a shared server: the same commands as [`AgentFixture`].
pub(crate) struct SharedAgent {
    pub server: &'static Server,
    pub workspace: String,
    pub agent: String,
}

impl SharedAgent {
    /// Runs `data-agent <command> -w <ws id> --id <agent id> <rest>`, asserting success.
    pub(crate) fn ok(&self, command: &str, rest: &[&str]) -> Value {
        let mut args = vec![
            "data-agent",
            command,
            "-w",
            &self.workspace,
            "--id",
            &self.agent,
        ];
        args.extend_from_slice(rest);
        self.server.fabsh(&args).ok_json()
    }

    /// Adds the demo lakehouse.
    pub(crate) fn add_lakehouse(&self) -> Value {
        self.ok("add-datasource", &["--artifact", "SalesLakehouse"])
    }
}

fn text(run: &Run) -> String {
    run.ok_json().as_str().expect("text").to_string()
}

fn selected_paths(fixture: &AgentFixture, stage: &str) -> Vec<String> {
    let rows = fixture.ok(
        "list-elements",
        &["--datasource", "SalesLakehouse", "--stage", stage],
    );
    rows.as_array()
        .expect("rows")
        .iter()
        .filter(|row| row["selected"] == true && row["type"] == "Table")
        .map(|row| row["path"].as_str().expect("path").to_string())
        .collect()
}

fn without_stage(mut config: Value) -> Value {
    config.as_object_mut().expect("object").remove("stage");
    config
}

#[test]
fn the_configuration_round_trips_through_publish_and_reset() {
    let fx = AgentFixture::new(module_path!());
    let source = fx.add_lakehouse();
    assert_eq!(source["type"], "LakehouseTables");
    assert_eq!(source["displayName"], "SalesLakehouse");
    assert!(
        selected_paths(&fx, "staging").is_empty(),
        "tables start unselected"
    );

    let selected = fx.ok(
        "select-tables",
        &[
            "--datasource",
            "SalesLakehouse",
            "--tables",
            "orders,dbo.customers",
        ],
    );
    assert_eq!(selected["changed"].as_array().expect("changed").len(), 2);
    let described = fx.ok(
        "describe-element",
        &[
            "--datasource",
            "SalesLakehouse",
            "--path",
            "dbo.orders.amount",
            "--description",
            "Order total in EUR",
        ],
    );
    assert_eq!(described["type"], "Column");
    assert_eq!(described["description"], "Order total in EUR");

    let dir = tempfile::tempdir().expect("dir");
    let csv = dir.path().join("examples.csv");
    std::fs::write(
        &csv,
        "question,query\n\"How many orders are there?\",\"SELECT COUNT(*) FROM orders\"\n\"Revenue by country\",\"SELECT c.country, SUM(o.amount) AS revenue FROM orders o JOIN customers c ON c.customer_id = o.customer_id GROUP BY c.country\"\n",
    )
    .expect("write");
    let csv = csv.to_string_lossy().into_owned();
    let uploaded = fx.ok(
        "upload-fewshots",
        &["--datasource", "SalesLakehouse", "--file", &csv],
    );
    assert_eq!(uploaded["summary"]["added"], 2, "{uploaded}");
    let lines: Vec<&Value> = uploaded["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|row| &row["line"])
        .collect();
    assert_eq!(lines, [2, 3]);
    // Uploading the same file again changes nothing.
    let again = fx.ok(
        "upload-fewshots",
        &["--datasource", "SalesLakehouse", "--file", &csv],
    );
    assert_eq!(again["summary"]["unchanged"], 2, "{again}");
    let fewshots = fx.ok("list-fewshots", &["--datasource", "SalesLakehouse"]);
    for fewshot in fewshots.as_array().expect("list") {
        assert_eq!(fewshot["validationStatus"]["value"], "Valid", "{fewshot}");
    }

    fx.ok("update-config", &["--instructions", "Answer in EUR"]);
    let published = fx.ok("publish", &["--description", "Sales questions"]);
    assert_eq!(published["publishedDescription"], "Sales questions");
    let shown = fx.ok("show", &[]);
    assert_eq!(
        shown["properties"]["publishedDescription"],
        "Sales questions"
    );
    let published_config = fx.ok("get-config", &["--stage", "published"]);

    // Change the draft: the published stage keeps the old state.
    fx.ok(
        "update-config",
        &[
            "--instructions",
            "Answer in USD",
            "--enable-preview-runtime",
        ],
    );
    fx.ok(
        "select-tables",
        &["--datasource", "SalesLakehouse", "--tables", "products"],
    );
    let draft = fx.ok("get-config", &[]);
    assert_eq!(draft["instructions"], "Answer in USD");
    assert_eq!(draft["previewRuntime"], true);
    let still = fx.ok("get-config", &["--stage", "published"]);
    assert_eq!(still, published_config);
    assert_eq!(still["instructions"], "Answer in EUR");
    assert_eq!(still["previewRuntime"], false);
    assert_eq!(
        selected_paths(&fx, "published"),
        ["dbo.customers", "dbo.orders"]
    );
    assert_eq!(
        selected_paths(&fx, "staging"),
        ["dbo.customers", "dbo.orders", "dbo.products"]
    );

    // The definition shows both stages and the publish info.
    let definition = fx.ok("get-definition", &["--decode"]);
    let paths: Vec<&str> = definition["definition"]["parts"]
        .as_array()
        .expect("parts")
        .iter()
        .map(|part| part["path"].as_str().expect("path"))
        .collect();
    for expected in [
        "Files/Config/data_agent.json",
        "Files/Config/draft/stage_config.json",
        "Files/Config/draft/lakehouse-tables-SalesLakehouse/datasource.json",
        "Files/Config/draft/lakehouse-tables-SalesLakehouse/fewshots.json",
        "Files/Config/publish_info.json",
        "Files/Config/published/stage_config.json",
        "Files/Config/published/lakehouse-tables-SalesLakehouse/fewshots.json",
    ] {
        assert!(
            paths.contains(&expected),
            "{expected} missing from {paths:?}"
        );
    }

    let reset = fx.run("reset", &["--yes"]);
    assert_eq!(reset.code, 0, "{}", reset.stderr);
    let draft = fx.ok("get-config", &[]);
    let published = fx.ok("get-config", &["--stage", "published"]);
    assert_eq!(without_stage(draft), without_stage(published));
    assert_eq!(
        selected_paths(&fx, "staging"),
        selected_paths(&fx, "published")
    );
    let draft_fewshots = fx.ok("list-fewshots", &["--datasource", "SalesLakehouse"]);
    let published_fewshots = fx.ok(
        "list-fewshots",
        &["--datasource", "SalesLakehouse", "--stage", "published"],
    );
    assert_eq!(draft_fewshots, published_fewshots);
}

#[test]
fn published_reads_of_a_new_agent_say_it_is_not_published() {
    let fx = AgentFixture::new(module_path!());
    let run = fx.run("get-config", &["--stage", "published"]);
    assert_eq!(run.code, 4, "{}", run.stderr);
    assert!(run.stderr.contains("not been published"), "{}", run.stderr);
    let reset = fx.run("reset", &["--yes"]);
    assert_eq!(reset.code, 4, "{}", reset.stderr);
}

#[test]
fn publishing_to_m365_publishes_then_fails_plainly() {
    let fx = AgentFixture::new(module_path!());
    let run = fx.run("publish", &["--to-m365"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let out = run.json();
    assert_eq!(out["published"], true);
    assert_eq!(out["m365"]["published"], false);
    assert!(run.stderr.contains("hint:"), "{}", run.stderr);
    // The publish itself happened.
    let config = fx.run("get-config", &["--stage", "published"]);
    assert_eq!(config.code, 0, "{}", config.stderr);
}

/// The same round trip as a script: the stdlib's `agents::create` sets the agent up from one
/// map, the registry functions do the rest.
const ROUND_TRIP_SCRIPT: &str = r#"
let ws = workspace::show("Demo").id;
let out = agents::create(ws, #{
    name: "Script agent",
    instructions: "Answer in EUR",
    sources: [#{artifact: "SalesLakehouse", tables: ["orders", "customers"], fewshots: ARGS[0]}],
});
let id = out.agent.id;
if out.sources[0].fewshots.added != 2 { throw `uploaded: ${out.sources[0].fewshots}`; }
data_agent::describe_element(ws, id, "SalesLakehouse", "dbo.orders.amount", #{description: "Order total in EUR"});
data_agent::publish(ws, id, #{description: "Sales questions"});
let published = json::stringify(data_agent::get_config(ws, id, #{stage: "published"}).dataSources);
data_agent::update_config(ws, id, #{instructions: "Answer in USD"});
data_agent::select_tables(ws, id, "SalesLakehouse", #{tables: ["products"]});
let still = data_agent::get_config(ws, id, #{stage: "published"});
if still.instructions != "Answer in EUR" { throw `published changed: ${still.instructions}`; }
let selected = |stage| data_agent::list_elements(ws, id, "SalesLakehouse", #{stage: stage})
    .filter(|e| e.selected && e.type == "Table").map(|e| e.path);
if selected.call("staging").len() != 3 { throw "the draft should have three tables"; }
data_agent::reset(ws, id);
let draft = data_agent::get_config(ws, id);
if draft.instructions != "Answer in EUR" { throw `reset left ${draft.instructions}`; }
if json::stringify(draft.dataSources) != published { throw "datasources differ after reset"; }
if json::stringify(selected.call("staging")) != json::stringify(selected.call("published")) {
    throw "selections differ after reset";
}
print("round trip ok");
"#;

#[test]
fn the_configuration_round_trips_from_a_script() {
    let server = Server::session(module_path!());
    let dir = tempfile::tempdir().expect("dir");
    let script = dir.path().join("round_trip.rhai");
    // In the session's copy of Demo.
    let round_trip = ROUND_TRIP_SCRIPT.replace("\"Demo\"", &format!("{:?}", server.demo));
    std::fs::write(&script, round_trip).expect("write");
    let examples = dir.path().join("examples.json");
    std::fs::write(
        &examples,
        r#"[{"question": "How many orders?", "query": "SELECT COUNT(*) FROM orders"},
            {"question": "How many customers?", "query": "SELECT COUNT(*) FROM customers"}]"#,
    )
    .expect("write");
    let run = server.fabsh(&[
        "run",
        &script.to_string_lossy(),
        "--",
        &examples.to_string_lossy(),
    ]);
    assert_eq!(
        run.code, 0,
        "stderr:\n{}\nstdout:\n{}",
        run.stderr, run.stdout
    );
    assert!(run.stdout.contains("round trip ok"), "{}", run.stdout);
}

/// `--datasource` given as an id is looked up while the command's first read is already on
/// its way; when the id is that of the lakehouse rather than of the datasource, the read is
/// made again for the datasource, so both ids give the same answers.
#[test]
fn a_datasource_named_by_its_own_id_or_its_lakehouse_id_gives_the_same_answers() {
    let fx = AgentFixture::new(module_path!());
    let added = fx.add_lakehouse();
    let source_id = added["id"].as_str().expect("datasource id").to_string();
    let lakehouse = fx.server.fabsh(&[
        "item",
        "show",
        "-w",
        &fx.workspace,
        "--id",
        "SalesLakehouse",
        "-q",
        "id",
    ]);
    let lakehouse_id = text(&lakehouse);
    assert_ne!(source_id, lakehouse_id);

    let by_name = fx.ok("list-elements", &["--datasource", "SalesLakehouse"]);
    assert!(by_name.as_array().is_some_and(|rows| !rows.is_empty()));
    for id in [&source_id, &lakehouse_id] {
        assert_eq!(
            fx.ok("list-elements", &["--datasource", id]),
            by_name,
            "{id}"
        );
    }

    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("examples.json");
    std::fs::write(
        &file,
        r#"[{"question": "How many orders are there?", "query": "SELECT COUNT(*) FROM orders"}]"#,
    )
    .expect("write");
    let file = file.to_string_lossy().into_owned();
    let first = fx.ok(
        "upload-fewshots",
        &["--datasource", &lakehouse_id, "--file", &file],
    );
    assert_eq!(first["summary"]["added"], 1, "{first}");
    // The example is found whichever id names the datasource, so nothing is added twice.
    for id in [&lakehouse_id, &source_id] {
        let again = fx.ok("upload-fewshots", &["--datasource", id, "--file", &file]);
        assert_eq!(again["summary"]["unchanged"], 1, "{id}: {again}");
    }
    let listed = fx.ok("list-fewshots", &["--datasource", "SalesLakehouse"]);
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed}");
}
