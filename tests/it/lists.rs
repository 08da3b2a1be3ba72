//! Nothing truncated or hidden without the user knowing: a query's result is what tables and
//! TSV show, a query over one page of many says so, `--limit` caps on purpose, and a script's
//! list is the whole list.

use crate::support::Server;
use serde_json::Value;

/// A server with pages of 2 items, and 5 notebooks beside the demo items.
fn small_pages() -> Server {
    let server = Server::session_with(module_path!(), &[("page-size", "2")]);
    for n in 1..=5 {
        let name = format!("nb{n}");
        let made = server.fabsh(&[
            "item",
            "create",
            "-w",
            &server.demo,
            "--name",
            &name,
            "--type",
            "Notebook",
        ]);
        assert_eq!(made.code, 0, "{}", made.stderr);
    }
    server
}

/// Every item of Demo, as the server lists them (all pages).
fn demo_ids(server: &Server) -> Vec<String> {
    let all = server.fabsh(&[
        "item",
        "list",
        "-w",
        server.demo.as_str(),
        "--all",
        "-o",
        "json",
    ]);
    all.ok_json()
        .as_array()
        .expect("items")
        .iter()
        .map(|item| item["id"].as_str().expect("id").to_string())
        .collect()
}

#[test]
fn a_query_result_is_what_table_and_tsv_show() {
    let server = Server::session(module_path!());
    let names = [
        "item",
        "list",
        "-w",
        server.demo.as_str(),
        "-q",
        "[].displayName",
    ];
    let table = server.fabsh(&[&names[..], &["-o", "table"]].concat());
    assert_eq!(table.code, 0, "{}", table.stderr);
    assert!(table.stdout.contains("Welcome"), "{}", table.stdout);
    let ids = [
        "item",
        "list",
        "-w",
        server.demo.as_str(),
        "-q",
        "[].id",
        "-o",
        "tsv",
    ];
    let tsv = server.fabsh(&ids);
    assert_eq!(tsv.code, 0, "{}", tsv.stderr);
    let listed: Vec<String> = tsv.stdout.lines().map(String::from).collect();
    assert_eq!(
        listed,
        demo_ids(&server),
        "one bare id per line, like `| xargs` wants"
    );
    let pairs = server.fabsh(&[
        "item",
        "list",
        "-w",
        server.demo.as_str(),
        "-o",
        "tsv",
        "-q",
        "[].{n: displayName, t: type}",
    ]);
    assert!(
        pairs.stdout.lines().any(|line| line == "Welcome\tNotebook"),
        "object keys are the columns: {}",
        pairs.stdout
    );
}

#[test]
fn a_query_over_one_page_of_many_warns_and_limit_caps_on_purpose() {
    let server = small_pages();
    let partial = server.fabsh(&["item", "list", "-w", server.demo.as_str(), "-q", "[].id"]);
    assert_eq!(partial.code, 0, "{}", partial.stderr);
    assert_eq!(partial.json().as_array().expect("ids").len(), 2);
    assert!(partial.stderr.contains("warning:"), "{}", partial.stderr);
    assert!(partial.stderr.contains("--all"), "{}", partial.stderr);
    let limited = server.fabsh(&[
        "item",
        "list",
        "-w",
        server.demo.as_str(),
        "--limit",
        "3",
        "-o",
        "json",
    ]);
    let ids: Vec<Value> = limited.ok_json().as_array().expect("items").clone();
    let expected = demo_ids(&server);
    assert_eq!(ids.len(), 3);
    assert_eq!(
        ids[2]["id"],
        expected[2].as_str(),
        "the first 3, across pages"
    );
    assert!(
        !limited.stderr.contains("more results"),
        "{}",
        limited.stderr
    );
    let zero = server.fabsh(&["item", "list", "-w", server.demo.as_str(), "--limit", "0"]);
    assert_eq!(zero.code, 2, "{}", zero.stderr);
    assert!(zero.stderr.contains("--limit"), "{}", zero.stderr);
}

#[test]
fn a_script_list_is_every_page_unless_it_asks_for_less() {
    let server = small_pages();
    let demo = &server.demo;
    let total = demo_ids(&server).len();
    assert!(total > 2);
    let count = |code: &str| -> i64 {
        let run = server.fabsh(&["-e", code]);
        run.ok_json()
            .as_i64()
            .unwrap_or_else(|| panic!("{}", run.stdout))
    };
    assert_eq!(count(&format!("item::list({demo:?}).len()")), total as i64);
    assert_eq!(
        count(&format!("item::list({demo:?}, #{{all: false}}).len()")),
        2
    );
    assert_eq!(
        count(&format!("item::list({demo:?}, #{{limit: 3}}).len()")),
        3
    );
    assert_eq!(
        count(&format!(
            r#"fabsh::run("item list", #{{workspace: {demo:?}}}).len()"#
        )),
        total as i64
    );
    assert_eq!(
        count(&format!(
            r#"fabsh::page("item list", #{{workspace: {demo:?}}}).items.len()"#
        )),
        2
    );
}
