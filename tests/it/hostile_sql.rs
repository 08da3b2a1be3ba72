//! Local Fabric's SQL stays inside the lakehouse (issue 26): an agent's query cannot reach
//! SQLite's pragmas or schema (which would show the server's files), and a datasource shows
//! its tables only to a caller who may read them.

use crate::data_agent_query::published;
use crate::support::{Server, principal_token};
use serde_json::Value;

const WHERE: &str = "Where is the store kept?";

#[test]
fn an_agents_query_cannot_reach_sqlites_pragmas_or_schema() {
    let fx = published(
        module_path!(),
        &[
            (WHERE, "SELECT file FROM pragma_database_list"),
            ("What does the schema say?", "SELECT sql FROM sqlite_master"),
            (
                "How many orders are there?",
                "SELECT COUNT(*) FROM dbo.orders",
            ),
        ],
    );
    let data_dir = fx.server.data_dir().display().to_string();
    for question in [WHERE, "What does the schema say?"] {
        let out = fx.ok("query", &["--prompt", question]);
        let answer = out["answer"].as_str().expect("answer");
        assert!(
            !answer.contains(&data_dir) && !answer.contains("CREATE TABLE"),
            "{question}: the answer shows the server's files or schema: {answer}"
        );
        assert!(answer.contains("cannot run here"), "{question}: {answer}");
    }
    // The lakehouse's own tables are still read.
    let orders = fx.ok("query", &["--prompt", "How many orders are there?"]);
    let answer = orders["answer"].as_str().expect("answer");
    assert!(answer.chars().any(|c| c.is_ascii_digit()), "{answer}");
}

fn paths(run: &crate::support::Run) -> Vec<String> {
    run.ok_json()
        .as_array()
        .expect("elements")
        .iter()
        .filter_map(|row| row["path"].as_str().map(String::from))
        .collect()
}

/// An agent in a workspace of its own over Demo's lakehouse, added by the admin (who may
/// read Demo), and a Contributor of the agent's workspace with no role in Demo.
struct OverDemo {
    server: Server,
    agents: String,
    agent: String,
    member: String,
}

fn agent_over_demo() -> OverDemo {
    let server = Server::session(module_path!());
    let created = server
        .fabsh(&["workspace", "create", "--name", &server.own_name("Agents")])
        .ok_json();
    let agents = created["id"].as_str().expect("id").to_string();
    let lakehouse = server.demo_lakehouse();
    let agent: Value = server
        .fabsh(&[
            "data-agent",
            "create",
            "-w",
            &agents,
            "--name",
            "Orders agent",
        ])
        .ok_json();
    let agent = agent["id"].as_str().expect("id").to_string();
    server
        .fabsh(&[
            "data-agent",
            "add-datasource",
            "-w",
            &agents,
            "--id",
            &agent,
            "--artifact",
            "SalesLakehouse",
            "--artifact-workspace",
            lakehouse["workspaceId"].as_str().expect("workspaceId"),
        ])
        .ok_json();
    let member = principal_token(&server, "member", &server.own_name("Agents"), "Contributor");
    OverDemo {
        server,
        agents,
        agent,
        member,
    }
}

#[test]
fn a_datasource_lists_its_tables_only_to_callers_who_may_read_them() {
    let OverDemo {
        server,
        agents,
        agent,
        member,
    } = agent_over_demo();
    let list = [
        "data-agent",
        "list-elements",
        "-w",
        &agents,
        "--id",
        &agent,
        "--datasource",
        "SalesLakehouse",
    ];
    let admin_sees = paths(&server.fabsh(&list));
    assert!(
        admin_sees.iter().any(|path| path.contains("orders")),
        "the admin, who may read Demo, sees its tables: {admin_sees:?}"
    );
    let member_sees = paths(&server.fabsh_as(&member, &list));
    assert!(
        !member_sees
            .iter()
            .any(|path| path.contains("orders") || path.contains("customers")),
        "a caller who may not read Demo lists its tables: {member_sees:?}"
    );
}

/// Every part of a definition as text (payloads decoded), lowercased.
fn definition_text(run: &crate::support::Run) -> String {
    parts_text(&run.ok_json()["definition"]["parts"])
}

/// Each part of `parts` as its path and text (payloads decoded), lowercased.
fn parts_text(parts: &serde_json::Value) -> String {
    use base64::Engine;
    parts
        .as_array()
        .expect("parts")
        .iter()
        .map(|part| {
            let payload = part["payload"].as_str().unwrap_or_default();
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(payload)
                .unwrap_or_else(|_| payload.as_bytes().to_vec());
            format!("{}\n{}", part["path"], String::from_utf8_lossy(&bytes)).to_lowercase()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn an_agents_definition_shows_a_datasources_tables_only_to_callers_who_may_read_them() {
    let OverDemo {
        server,
        agents,
        agent,
        member,
    } = agent_over_demo();
    let get = [
        "data-agent",
        "get-definition",
        "-w",
        &agents,
        "--id",
        &agent,
    ];
    let admin_reads = definition_text(&server.fabsh(&get));
    assert!(
        admin_reads.contains("\"orders\""),
        "the admin, who may read Demo, reads its tables in the definition: {admin_reads}"
    );
    let member_reads = definition_text(&server.fabsh_as(&member, &get));
    assert!(
        member_reads.contains("saleslakehouse"),
        "the member still reads which source the agent uses: {member_reads}"
    );
    assert!(
        !member_reads.contains("\"orders\"") && !member_reads.contains("\"customers\""),
        "a caller who may not read Demo reads its table names in the definition: {member_reads}"
    );
}

/// Every exported part as text (payloads decoded), lowercased.
fn exported_text(run: &crate::support::Run) -> String {
    parts_text(&run.ok_json()["definitionParts"])
}

#[test]
fn a_bulk_export_shows_an_agents_datasource_tables_only_to_callers_who_may_read_them() {
    let OverDemo {
        server,
        agents,
        agent,
        member,
    } = agent_over_demo();
    let body = serde_json::json!({"mode": "Selective", "items": [{"id": agent}]}).to_string();
    let export = [
        "item",
        "bulk-export-definitions",
        "-w",
        &agents,
        "--content",
        &body,
    ];
    let admin_reads = exported_text(&server.fabsh(&export));
    assert!(
        admin_reads.contains("\"orders\""),
        "the admin, who may read Demo, exports its tables: {admin_reads}"
    );
    let member_reads = exported_text(&server.fabsh_as(&member, &export));
    assert!(
        member_reads.contains("saleslakehouse")
            && !member_reads.contains("\"orders\"")
            && !member_reads.contains("\"customers\""),
        "a caller who may not read Demo exports its table names: {member_reads}"
    );
}
