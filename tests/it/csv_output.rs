//! Issue 31: `-o csv` writes RFC 4180 CSV with a header row, for every list and for
//! `sql query` rows. The CSV is read back by Python's csv module (not by fabsh) and compared
//! with local Fabric's own API listing and with demo data facts.

use crate::support::{self, Server};
use serde_json::Value;
use std::io::Write;
use std::process::{Command, Stdio};

fn server() -> &'static Server {
    support::shared(module_path!())
}

/// Parses CSV text with Python's csv module: a list of records, each a list of fields.
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut child = Command::new("python3")
        .args([
            "-c",
            "import csv, json, sys; print(json.dumps(list(csv.reader(sys.stdin))))",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("write csv");
    let out = child.wait_with_output().expect("python3 output");
    assert!(out.status.success(), "python3 csv failed on:\n{text}");
    serde_json::from_slice(&out.stdout).expect("records as JSON")
}

fn csv_of(args: &[&str]) -> Vec<Vec<String>> {
    let run = server().fabsh(args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    parse_csv(&run.stdout)
}

#[test]
fn item_list_as_csv_has_a_header_and_the_services_items_with_quoting_round_trips() {
    let server = server();
    let tricky = r#"a, "b" notes"#;
    server.create_demo_item(tricky, "Notebook");
    let records = csv_of(&["item", "list", "-w", "Demo", "-o", "csv"]);
    assert_eq!(records[0], ["id", "displayName", "type", "description"]);
    let (status, listing) = server.get_json(&server.demo_path("/items"));
    assert_eq!(status, 200, "{listing}");
    let text = |item: &Value, key: &str| item[key].as_str().unwrap_or_default().to_string();
    let mut expected: Vec<Vec<String>> = listing["value"]
        .as_array()
        .expect("value")
        .iter()
        .map(|item| {
            ["id", "displayName", "type", "description"]
                .iter()
                .map(|key| text(item, key))
                .collect()
        })
        .collect();
    let mut rows = records[1..].to_vec();
    expected.sort();
    rows.sort();
    assert_eq!(rows, expected);
    assert!(
        rows.iter().any(|row| row[1] == tricky),
        "the name with a comma and quotes did not round-trip: {rows:?}"
    );
}

#[test]
fn sql_query_rows_as_csv_carry_the_result_columns() {
    let records = csv_of(&[
        "sql",
        "query",
        "-w",
        "Demo",
        "--item",
        "SalesLakehouse",
        "--sql",
        "SELECT COUNT(*) AS n FROM customers",
        "-o",
        "csv",
    ]);
    // The demo generator makes 240 customers (crates/fabsh-local/src/tables/demo.rs).
    assert_eq!(
        records,
        vec![vec!["n".to_string()], vec!["240".to_string()]]
    );
}
