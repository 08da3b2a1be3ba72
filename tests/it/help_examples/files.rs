//! The files the help examples name that the world does not get from fabsh itself: inputs a
//! user writes by hand (item lists, instructions, few-shot and question files, a CSV table)
//! and the repository's scripts.

use serde_json::json;
use std::path::Path;

/// The world agent's few-shot examples; the first is `FEWSHOT_ID`. The demo data is
/// generated from a fixed seed, so their answers are known: 3000, 240 and 354.
pub(super) const FEWSHOTS: [(&str, &str); 3] = [
    ("How many orders are there?", "SELECT COUNT(*) FROM orders"),
    (
        "How many customers are there?",
        "SELECT COUNT(*) FROM customers",
    ),
    (
        "How many orders are there in Germany?",
        "SELECT COUNT(*) FROM orders o JOIN customers c ON o.customer_id = c.customer_id WHERE c.country = 'Germany'",
    ),
];

/// Writes the hand-made files into the work dir.
pub(super) fn write(work: &Path) {
    let items = json!([
        {"displayName": "Ingest", "type": "Notebook"},
        {"displayName": "Transform", "type": "Notebook"},
        {"displayName": "Landing", "type": "Lakehouse"},
    ]);
    let questions = json!([
        {"question": "How many orders are there?", "expected": "3000"},
        {"question": "How many customers are there?", "expected": "240"},
        {"question": "How many orders are there in Germany?", "expected": "354"},
    ]);
    let files = [
        ("items.json", items.to_string()),
        ("questions.json", questions.to_string()),
        (
            "questions.csv",
            "question,expected\nHow many orders are there?,3000\nHow many customers are there?,240\n"
                .to_string(),
        ),
        (
            "maintenance.json",
            json!({"tableName": "orders", "optimizeSettings": {"vOrder": true}}).to_string(),
        ),
        (
            "instructions.md",
            "Answer with the number first, then one sentence.\nAmounts are in EUR.\n".to_string(),
        ),
        (
            "examples.csv",
            "question,query\n\"How many products are there?\",\"SELECT COUNT(*) FROM products\"\n\"How many orders were cancelled?\",\"SELECT COUNT(*) FROM orders WHERE status = 'Cancelled'\"\n"
                .to_string(),
        ),
        (
            "report.sql",
            "SELECT TOP 5 status, COUNT_BIG(*) AS orders FROM dbo.orders GROUP BY status ORDER BY orders DESC\n".to_string(),
        ),
        (
            "returns.csv",
            "return_id,order_id,reason,refund\n1,10,Damaged,49.5\n2,11,Wrong size,24\n".to_string(),
        ),
    ];
    for (name, text) in files {
        std::fs::write(work.join(name), text).expect("write a work file");
    }
    // The local folder the `onelake sync` example uploads.
    std::fs::create_dir_all(work.join("raw")).expect("make raw/");
    std::fs::write(work.join("raw/orders.csv"), "order_id,amount\n10,49.5\n")
        .expect("write raw/orders.csv");
    // The deploy examples read fabric-cicd's sample repository and a config that leaves out
    // the one notebook whose parameters need an Eventhouse query URI.
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fabric-cicd-sample/workspace"),
        &work.join("workspace"),
    );
    std::fs::write(
        work.join("deploy.yml"),
        "core:\n  repository_directory: workspace\npublish:\n  exclude_regex: \"^Example Notebook$\"\n",
    )
    .expect("write deploy.yml");
    // `fabsh --local run scripts/tour.rhai` names the script as the README does, from the
    // repository root; the work dir gets the same layout.
    let scripts = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts");
    std::fs::create_dir_all(work.join("scripts")).expect("scripts dir");
    for entry in std::fs::read_dir(scripts).expect("scripts") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), work.join("scripts").join(entry.file_name()))
            .expect("copy a script");
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create dir");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}
