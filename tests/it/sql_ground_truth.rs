//! Issue 31: T-SQL through the SQL endpoint of the demo lakehouse (`sql query`, `sql tables`),
//! reference queries as the expected answers of evaluations, and few-shot queries run against
//! the data. Every expected value is computed here from the demo generator's documented rules
//! (240 customers, 3,000 orders, its seed and draw order: crates/fabsh-local/src/tables/demo.rs),
//! never by asking fabsh.

use crate::data_agents::{AgentFixture, SharedAgent};
use crate::support::{self, Server, principal_token};
use serde_json::Value;

mod demo;
mod translated;

/// The server the tests of this file (and of its modules) share.
fn server() -> &'static Server {
    support::shared(module_path!())
}

fn sql(server: &Server, query: &str, rest: &[&str]) -> support::Run {
    let mut args = vec![
        "sql",
        "query",
        "-w",
        server.demo.as_str(),
        "--item",
        "SalesLakehouse",
        "--sql",
        query,
        "-o",
        "json",
    ];
    args.extend_from_slice(rest);
    server.fabsh(&args)
}

fn cells(out: &Value, column: &str) -> Vec<Value> {
    out["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|row| row[column].clone())
        .collect()
}

#[test]
fn a_select_through_sql_query_returns_the_demo_rows() {
    let data = demo::generate();
    let out = sql(
        server(),
        "SELECT (SELECT COUNT(*) FROM customers) AS customers, (SELECT COUNT(*) FROM orders) AS orders, (SELECT COUNT(*) FROM customers WHERE country = 'Germany') AS germany",
        &[],
    )
    .ok_json();
    assert_eq!(
        out["columns"],
        serde_json::json!(["customers", "orders", "germany"])
    );
    assert_eq!(out["rows"][0]["customers"], demo::CUSTOMERS);
    assert_eq!(out["rows"][0]["orders"], demo::ORDERS);
    assert_eq!(out["rows"][0]["germany"], data.customers_in("Germany"));
    assert_eq!(out["truncated"], false);
    // --max-rows keeps that many and says the rest was left out, on stderr and in the JSON.
    let run = sql(
        server(),
        "SELECT order_id FROM orders",
        &["--max-rows", "7"],
    );
    let out = run.ok_json();
    assert_eq!(
        (out["rowCount"].as_u64(), &out["truncated"]),
        (Some(7), &Value::Bool(true))
    );
    assert!(run.stderr.contains("truncated"), "{}", run.stderr);
}

#[test]
fn a_sessions_copy_of_demo_holds_the_seeded_items_and_the_demo_dataset() {
    let session = Server::session(module_path!());
    let listed = session
        .fabsh(&[
            "item",
            "list",
            "-w",
            &session.demo,
            "-q",
            "[].[displayName, type]",
        ])
        .ok_json();
    let mut listed: Vec<(String, String)> =
        serde_json::from_value(listed).expect("name and type pairs");
    listed.sort();
    let seeded = [
        ("Sales Model", "SemanticModel"),
        ("Sales Report", "Report"),
        ("SalesLakehouse", "Lakehouse"),
        ("SalesLakehouse", "SQLEndpoint"),
        ("Welcome", "Notebook"),
    ];
    assert_eq!(
        listed,
        seeded.map(|(name, kind)| (name.to_string(), kind.to_string()))
    );
    let data = demo::generate();
    let out = sql(
        &session,
        "SELECT (SELECT COUNT(*) FROM orders) AS orders, (SELECT COUNT(*) FROM customers WHERE country = 'Germany') AS germany",
        &[],
    )
    .ok_json();
    assert_eq!(out["rows"][0]["orders"], demo::ORDERS);
    assert_eq!(out["rows"][0]["germany"], data.customers_in("Germany"));
    // The session's request log holds what it sent, and not what another caller sent.
    let demo_id = server().demo_path("");
    let copy_id = session.demo_path("");
    let log = session.requests();
    let paths: Vec<&str> = log["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .filter_map(|r| r["path"].as_str())
        .collect();
    assert!(paths.iter().any(|p| p.starts_with(&copy_id)), "{paths:?}");
    assert!(!paths.iter().any(|p| p.starts_with(&demo_id)), "{paths:?}");
    assert_eq!(log["count"].as_u64(), Some(paths.len() as u64), "{log}");
}

#[test]
fn a_write_is_refused_offline_without_allow_writes() {
    // The workspace does not exist: had anything been sent, the answer would be not found.
    let offline = |statement: &str| {
        server().fabsh(&[
            "sql",
            "query",
            "-w",
            "NoSuchWorkspace",
            "--item",
            "X",
            "--sql",
            statement,
        ])
    };
    let run = offline("DELETE FROM dbo.orders");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("DELETE") && run.stderr.contains("--allow-writes"),
        "{}",
        run.stderr
    );
    // `SELECT ... INTO` parses as a query but creates a table: a write too.
    let into = offline("SELECT name INTO dbo.copy FROM dbo.customers");
    assert_eq!(into.code, 2, "{}", into.stderr);
    assert!(into.stderr.contains("SELECT INTO"), "{}", into.stderr);
    // A reference query of an evaluation never writes: the file is refused, with the row's
    // line, before the agent is looked up.
    let dir = tempfile::tempdir().expect("dir");
    let questions = dir.path().join("questions.json");
    std::fs::write(
        &questions,
        r#"[{"question": "How many orders?", "expected_sql": "SELECT COUNT(*) FROM dbo.orders"},
 {"question": "Gone?", "expected_sql": "DELETE FROM dbo.orders"}]"#,
    )
    .expect("write");
    let evaluated = server().fabsh(&[
        "data-agent",
        "evaluate",
        "-w",
        "NoSuchWorkspace",
        "--id",
        "X",
        "--questions",
        &questions.to_string_lossy(),
    ]);
    assert_eq!(evaluated.code, 2, "{}", evaluated.stderr);
    assert!(
        evaluated.stderr.contains("line 2") && evaluated.stderr.contains("DELETE"),
        "{}",
        evaluated.stderr
    );
    // And the data is untouched.
    let out = sql(server(), "SELECT COUNT(*) AS n FROM orders", &[]).ok_json();
    assert_eq!(out["rows"][0]["n"], demo::ORDERS);
}

/// The requests local Fabric logged to `item`'s SQL endpoint.
fn endpoint_requests(server: &Server, item: &str) -> usize {
    server
        .request_paths()
        .iter()
        .filter(|path| path.contains(&format!("/items/{item}/sqlEndpoint")))
        .count()
}

#[test]
fn a_write_behind_a_cte_is_refused_with_nothing_sent() {
    // A session: its request log holds its own requests only.
    let server = &Server::session(module_path!());
    let warehouse = server.create_demo_item("CTE store", "Warehouse");
    write(server, "CTE store", "CREATE TABLE dbo.kept (id INT)").ok_json();
    write(
        server,
        "CTE store",
        "INSERT INTO dbo.kept (id) VALUES (1), (2)",
    )
    .ok_json();
    let sent = endpoint_requests(server, &warehouse);
    for (statement, word) in [
        ("WITH x AS (SELECT 1 AS a) DELETE FROM dbo.kept", "DELETE"),
        (
            "WITH x AS (SELECT 3 AS a) INSERT INTO dbo.kept (id) SELECT a FROM x",
            "INSERT",
        ),
        (
            "WITH x AS (SELECT 1 AS a) UPDATE dbo.kept SET id = 9",
            "UPDATE",
        ),
    ] {
        let run = server.fabsh(&[
            "sql",
            "query",
            "-w",
            server.demo.as_str(),
            "--item",
            "CTE store",
            "--sql",
            statement,
        ]);
        assert_eq!(run.code, 2, "{statement}: {}", run.stderr);
        assert!(
            run.stderr.contains(word) && run.stderr.contains("--allow-writes"),
            "{statement}: {}",
            run.stderr
        );
    }
    // The read-only MCP server's sql_query tool refuses it the same way.
    crate::mcp::runtime().block_on(async {
        let (client, _) = crate::mcp::connect(server, &[]).await;
        let result = crate::mcp::call(
            &client,
            "sql_query",
            serde_json::json!({
                "workspace": server.demo.as_str(),
                "item": "CTE store",
                "sql": "WITH x AS (SELECT 1 AS a) DELETE FROM dbo.kept",
            }),
        )
        .await;
        let error = crate::mcp::error_map(&result);
        assert!(
            error["message"]
                .as_str()
                .is_some_and(|m| m.contains("DELETE")),
            "{error}"
        );
        client.cancel().await.expect("close");
    });
    assert_eq!(
        endpoint_requests(server, &warehouse),
        sent,
        "a refused statement reached the SQL endpoint"
    );
    let out = write(server, "CTE store", "SELECT id FROM dbo.kept ORDER BY id").ok_json();
    assert_eq!(out["rows"], serde_json::json!([{"id": 1}, {"id": 2}]));
}

/// `sql query` with `--allow-writes` on `item`, as JSON.
fn write(server: &Server, item: &str, statement: &str) -> support::Run {
    server.fabsh(&[
        "sql",
        "query",
        "-w",
        server.demo.as_str(),
        "--item",
        item,
        "--sql",
        statement,
        "--allow-writes",
        "-o",
        "json",
    ])
}

#[test]
fn a_warehouse_takes_writes_that_read_back() {
    let server = server();
    server.create_demo_item("SQL store", "Warehouse");
    let created = write(
        server,
        "SQL store",
        "CREATE TABLE [dbo].[sales] (id INT, region VARCHAR(20), amount DECIMAL(10, 2))",
    )
    .ok_json();
    assert_eq!(created["rowsAffected"], 0, "{created}");
    let inserted = write(
        server,
        "SQL store",
        "INSERT INTO dbo.sales (id, region, amount) VALUES (1, 'North', 10.5), (2, 'South', 20), (3, 'North', 4)",
    )
    .ok_json();
    assert_eq!(inserted["rowsAffected"], 3, "{inserted}");
    let updated = write(
        server,
        "SQL store",
        "UPDATE dbo.sales SET amount = amount * 2 WHERE region = 'South'",
    )
    .ok_json();
    assert_eq!(updated["rowsAffected"], 1);
    let deleted = write(server, "SQL store", "DELETE FROM dbo.sales WHERE id = 3").ok_json();
    assert_eq!(deleted["rowsAffected"], 1);
    // 10.5 North, 40 South (20 doubled); row 3 is gone.
    let out = server
        .fabsh(&[
            "sql",
            "query",
            "-w",
            "Demo",
            "--item",
            "SQL store",
            "--sql",
            "SELECT TOP 5 region, ISNULL(SUM(amount), 0) AS total, COUNT_BIG(*) AS n FROM dbo.sales GROUP BY region ORDER BY region",
            "-o",
            "json",
        ])
        .ok_json();
    assert_eq!(
        out["rows"],
        serde_json::json!([
            {"region": "North", "total": 10.5, "n": 1},
            {"region": "South", "total": 40, "n": 1}
        ]),
        "{out}"
    );
    // A statement outside the four is named and not run.
    let dropped = write(server, "SQL store", "DROP TABLE dbo.sales");
    assert_ne!(dropped.code, 0);
    assert!(dropped.stderr.contains("DROP TABLE"), "{}", dropped.stderr);
    let copied = write(
        server,
        "SQL store",
        "SELECT region INTO dbo.copy FROM dbo.sales",
    );
    assert_ne!(copied.code, 0);
    assert!(copied.stderr.contains("SELECT INTO"), "{}", copied.stderr);
    // A Viewer reads the warehouse but may not change it.
    let viewer = principal_token(server, "sql-viewer", "Demo", "Viewer");
    let as_viewer = |statement: &str, rest: &[&str]| {
        let mut args = vec![
            "sql",
            "query",
            "-w",
            "Demo",
            "--item",
            "SQL store",
            "--sql",
            statement,
            "-o",
            "json",
        ];
        args.extend_from_slice(rest);
        server.fabsh_as(&viewer, &args)
    };
    let refused = as_viewer("DELETE FROM dbo.sales", &["--allow-writes"]);
    assert_ne!(refused.code, 0);
    assert!(
        refused.stderr.contains("permission was denied"),
        "{}",
        refused.stderr
    );
    let read = as_viewer("SELECT COUNT(*) AS n FROM dbo.sales", &[]).ok_json();
    assert_eq!(read["rows"][0]["n"], 2);
}

#[test]
fn a_write_to_a_lakehouse_is_refused_as_the_service_does() {
    let run = write(
        server(),
        "SalesLakehouse",
        "DELETE FROM dbo.orders WHERE 1 = 1",
    );
    assert_ne!(run.code, 0);
    assert!(
        run.stderr.contains("DELETE") && run.stderr.contains("read-only"),
        "{}",
        run.stderr
    );
    let out = sql(server(), "SELECT COUNT(*) AS n FROM orders", &[]).ok_json();
    assert_eq!(out["rows"][0]["n"], demo::ORDERS);
}

#[test]
fn t_sql_constructs_are_translated() {
    let data = demo::generate();
    let by_country = data.orders_by_country();
    let out = sql(
        server(),
        "SELECT TOP 3 [c].[country], COUNT_BIG(*) AS orders FROM [dbo].[orders] AS o JOIN dbo.customers c ON c.customer_id = o.customer_id GROUP BY c.country ORDER BY orders DESC, c.country",
        &[],
    )
    .ok_json();
    let expected: Vec<Value> = by_country[..3]
        .iter()
        .map(|(c, _)| Value::from(*c))
        .collect();
    assert_eq!(cells(&out, "country"), expected);
    let counts: Vec<Value> = by_country[..3]
        .iter()
        .map(|(_, n)| Value::from(*n))
        .collect();
    assert_eq!(cells(&out, "orders"), counts);
    let out = sql(
        server(),
        "SELECT ISNULL(MAX(CASE WHEN status = 'nothing' THEN 1 END), 42) AS fallback, LEN('Shipped') AS len, COUNT_BIG(*) AS shipped FROM dbo.orders WHERE status = 'Shipped' AND YEAR(order_date) >= 2024 AND order_date <= GETDATE()",
        &[],
    )
    .ok_json();
    assert_eq!(out["rows"][0]["fallback"], 42);
    assert_eq!(out["rows"][0]["len"], 7);
    assert_eq!(out["rows"][0]["shipped"], data.orders_with("Shipped"));
    // `]]` inside brackets is one `]` of the name (T-SQL's escape), never the end of it.
    let out = sql(
        server(),
        "SELECT COUNT_BIG(*) AS [n]] FROM orders; --] FROM [dbo].[orders]",
        &[],
    )
    .ok_json();
    assert_eq!(out["columns"], serde_json::json!(["n] FROM orders; --"]));
    assert_eq!(out["rows"][0]["n] FROM orders; --"], demo::ORDERS);
    // The schema, as INFORMATION_SCHEMA gives it.
    let tables = server()
        .fabsh(&[
            "sql",
            "tables",
            "-w",
            "Demo",
            "--item",
            "SalesLakehouse",
            "-o",
            "json",
        ])
        .ok_json();
    let orders: Vec<&str> = tables
        .as_array()
        .expect("rows")
        .iter()
        .filter(|row| row["table"] == "orders")
        .map(|row| row["column"].as_str().expect("column"))
        .collect();
    assert_eq!(
        orders,
        [
            "order_id",
            "customer_id",
            "product_id",
            "order_date",
            "quantity",
            "unit_price",
            "amount",
            "status"
        ]
    );
}

#[test]
fn an_untranslatable_construct_is_named_in_the_error() {
    // What has no exact SQLite equal is refused, naming the part, style or pattern that
    // has none.
    for (query, construct) in [
        (
            "SELECT DATEDIFF(millisecond, order_date, GETDATE()) FROM dbo.orders",
            "DATEDIFF(millisecond, ...)",
        ),
        (
            "SELECT CONVERT(VARCHAR(10), order_date, 103) FROM dbo.orders",
            "CONVERT with a style",
        ),
        (
            "SELECT FORMAT(order_date, 'MMMM yyyy') FROM dbo.orders",
            "FORMAT() with the pattern 'MMMM yyyy'",
        ),
        (
            "SELECT DATEPART(weekday, order_date) FROM dbo.orders",
            "DATEPART(weekday, ...)",
        ),
    ] {
        let run = sql(server(), query, &[]);
        assert!(
            run.code != 0 && run.stderr.contains(construct),
            "{query}: {}",
            run.stderr
        );
    }
    let run = sql(
        server(),
        "SELECT * FROM dbo.orders o CROSS APPLY dbo.customers c",
        &[],
    );
    assert!(
        run.code != 0 && run.stderr.contains("CROSS APPLY"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_principal_without_access_to_the_workspace_is_refused() {
    let server = server();
    let workspace = server
        .fabsh(&["workspace", "show", "-w", "Demo", "-q", "id"])
        .ok_json();
    let lakehouse = server.demo_lakehouse();
    let (workspace, item) = (
        workspace.as_str().expect("id").to_string(),
        lakehouse["id"].as_str().expect("id").to_string(),
    );
    server
        .fabsh(&["workspace", "create", "--name", "SQL elsewhere"])
        .ok_json();
    let outsider = principal_token(server, "sql-outsider", "SQL elsewhere", "Contributor");
    let run = server.fabsh_as(
        &outsider,
        &[
            "sql",
            "query",
            "-w",
            &workspace,
            "--item",
            &item,
            "--sql",
            "SELECT COUNT(*) FROM orders",
        ],
    );
    assert_ne!(run.code, 0);
    assert!(run.stdout.trim().is_empty(), "{}", run.stdout);
    assert!(
        run.stderr.contains("InsufficientPrivileges"),
        "{}",
        run.stderr
    );
}

/// An agent over the demo lakehouse on the shared server, with `examples`, published.
fn published(name: &str, examples: &[(&str, &str)]) -> SharedAgent {
    let fx = AgentFixture::on_shared(server(), name);
    fx.add_lakehouse();
    fx.ok(
        "select-tables",
        &[
            "--datasource",
            "SalesLakehouse",
            "--tables",
            "orders,customers",
        ],
    );
    for (question, sql) in examples {
        fx.ok(
            "add-fewshot",
            &[
                "--datasource",
                "SalesLakehouse",
                "--question",
                question,
                "--sql",
                sql,
            ],
        );
    }
    fx.ok("publish", &["--description", "Sales questions"]);
    fx
}

fn evaluate(fx: &SharedAgent, questions: &str, extra: &[&str]) -> support::Run {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("questions.json");
    std::fs::write(&path, questions).expect("write");
    let path = path.to_string_lossy().into_owned();
    let mut args = vec![
        "data-agent",
        "evaluate",
        "-w",
        &fx.workspace,
        "--id",
        &fx.agent,
        "--questions",
        &path,
        "--no-save",
        "-o",
        "json",
    ];
    args.extend_from_slice(extra);
    fx.server.fabsh(&args)
}

fn row<'a>(out: &'a Value, question: &str) -> Vec<&'a Value> {
    out["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter(|row| row["question"] == question)
        .collect()
}

#[test]
fn expected_sql_grades_values_lists_and_tables_right_and_wrong() {
    let fx = published(
        "Reference agent",
        &[
            (
                "How many orders are there?",
                "SELECT COUNT(*) FROM dbo.orders",
            ),
            (
                "Top 3 customers by name",
                "SELECT TOP 3 name, country FROM customers ORDER BY name",
            ),
        ],
    );
    // Right and wrong references for each shape; repeats ask the agent twice, the references
    // still run once each.
    let questions = r#"[
        {"question": "How many orders are there?", "expected_sql": "SELECT COUNT_BIG(*) FROM dbo.orders"},
        {"question": "How many orders are there? (wrong)", "expected_sql": "SELECT COUNT(*) FROM dbo.customers"},
        {"question": "Top 3 customers by name", "expected_sql": "SELECT TOP 3 name FROM customers ORDER BY name"},
        {"question": "Top 3 customers by name (wrong)", "expected_sql": "SELECT TOP 3 name FROM customers ORDER BY name DESC"},
        {"question": "Top 3 customers by name (table)", "expected_sql": "SELECT TOP 3 name, country FROM customers ORDER BY name"}
    ]"#;
    let out = evaluate(&fx, questions, &["--repeats", "2", "--concurrency", "4"]).json();
    let verdict = |question: &str| -> Vec<(String, String)> {
        row(&out, question)
            .iter()
            .map(|r| {
                (
                    r["verdict"].as_str().unwrap_or_default().to_string(),
                    r["rule"].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect()
    };
    let twice = |verdict: &str, rule: &str| vec![(verdict.to_string(), rule.to_string()); 2];
    assert_eq!(
        verdict("How many orders are there?"),
        twice("yes", "result_value"),
        "{out}"
    );
    assert_eq!(
        verdict("How many orders are there? (wrong)"),
        twice("no", "result_value")
    );
    assert_eq!(
        verdict("Top 3 customers by name"),
        twice("yes", "result_list")
    );
    assert_eq!(
        verdict("Top 3 customers by name (wrong)"),
        twice("no", "result_list")
    );
    assert_eq!(
        verdict("Top 3 customers by name (table)"),
        twice("yes", "result_table")
    );
    // The row records the query and its result; the expected answer is the result's.
    let first = row(&out, "How many orders are there?")[0];
    assert_eq!(first["expectedSql"], "SELECT COUNT_BIG(*) FROM dbo.orders");
    assert_eq!(first["expectedResult"]["rows"][0][0], demo::ORDERS);
    assert_eq!(first["expected"], demo::ORDERS.to_string());
    let wrong = row(&out, "How many orders are there? (wrong)")[0];
    assert_eq!(wrong["expected"], demo::CUSTOMERS.to_string());
}

#[test]
fn a_failing_or_empty_reference_query_makes_the_question_an_error() {
    let fx = published(
        "Failing reference agent",
        &[(
            "How many orders are there?",
            "SELECT COUNT(*) FROM dbo.orders",
        )],
    );
    let questions = r#"[
        {"question": "How many orders are there?", "expected_sql": "SELECT COUNT(*) FROM dbo.no_such_table"},
        {"question": "How many orders are there? (none)", "expected_sql": "SELECT SUM(amount) FROM dbo.orders WHERE status = 'shipped'"},
        {"question": "How many orders are there? (right)", "expected_sql": "SELECT COUNT(*) FROM dbo.orders"}
    ]"#;
    let dir = tempfile::tempdir().expect("dir");
    let page = dir.path().join("report.html");
    let run = evaluate(&fx, questions, &["--output-file", &page.to_string_lossy()]);
    let out = run.json();
    let failed = row(&out, "How many orders are there?")[0];
    assert_eq!(
        (&failed["verdict"], &failed["rule"]),
        (&Value::from("error"), &Value::from("reference_failed")),
        "{out}"
    );
    assert!(
        failed["error"]
            .as_str()
            .expect("error")
            .contains("no_such_table"),
        "{failed}"
    );
    let empty = row(&out, "How many orders are there? (none)")[0];
    assert_eq!(empty["verdict"], "error");
    assert!(
        empty["error"]
            .as_str()
            .expect("error")
            .contains("returned nothing"),
        "{empty}"
    );
    // The question with a working reference is graded as usual.
    let right = row(&out, "How many orders are there? (right)")[0];
    assert_eq!(right["expected"], demo::ORDERS.to_string(), "{right}");
    assert_eq!(right["verdict"], "yes", "{right}");
    assert_eq!(out["summary"]["passed"], 1);
    assert_eq!(out["summary"]["errors"], 2);
    // Runs left without an expected answer make the exit code 1, as ungraded runs do, and the
    // message names the first failure.
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("2 of 3 runs have no expected answer")
            && run.stderr.contains("no_such_table")
            && run.stderr.contains("fabsh sql query"),
        "{}",
        run.stderr
    );
    // The page: such a question is not graded (neither passed nor failed), and its card shows
    // the reference query and says there is no expected answer.
    let html = std::fs::read_to_string(&page).expect("report page");
    let outcome = |question: &str| {
        let at = html.find(&format!("{question}</th>")).expect(question);
        let cell = html[at..].split("data-outcome=\"").nth(1).expect("cell");
        cell[..cell.find('"').expect("quote")].to_string()
    };
    assert_eq!(outcome("How many orders are there? (none)"), "unclear");
    assert_eq!(outcome("How many orders are there? (right)"), "pass");
    assert!(
        html.contains("<pre class=\"expected\">(none)</pre>"),
        "{html}"
    );
    assert!(
        html.contains("SELECT COUNT(*) FROM dbo.no_such_table"),
        "{html}"
    );
}

#[test]
fn a_fewshot_whose_query_finds_nothing_is_reported_as_empty_result() {
    let fx = AgentFixture::on_shared(server(), "Few-shot data agent");
    fx.add_lakehouse();
    let shipped = "SELECT SUM(amount) FROM dbo.orders WHERE status = 'shipped'";
    fx.ok(
        "add-fewshot",
        &[
            "--datasource",
            "SalesLakehouse",
            "--question",
            "What is the value of shipped orders?",
            "--sql",
            shipped,
        ],
    );
    fx.ok(
        "add-fewshot",
        &[
            "--datasource",
            "SalesLakehouse",
            "--question",
            "How many orders are there?",
            "--sql",
            "SELECT COUNT(*) FROM dbo.orders",
        ],
    );
    let out = fx.ok("validate-fewshots", &["--datasource", "SalesLakehouse"]);
    let issues: Vec<&Value> = out["issues"]
        .as_array()
        .expect("issues")
        .iter()
        .filter(|issue| issue["type"] == "empty_result")
        .collect();
    assert_eq!(issues.len(), 1, "{out}");
    assert_eq!(
        issues[0]["questions"],
        serde_json::json!(["What is the value of shipped orders?"])
    );
    assert_ne!(out["overallQuality"], "good");
    // The data says Shipped: the same query with the right case is not empty.
    let data = demo::generate();
    assert!(data.orders_with("Shipped") > 0 && data.orders_with("shipped") == 0);
    // --no-run skips the check.
    let skipped = fx.ok(
        "validate-fewshots",
        &["--datasource", "SalesLakehouse", "--no-run"],
    );
    assert!(
        !skipped["issues"]
            .as_array()
            .expect("issues")
            .iter()
            .any(|i| i["type"] == "empty_result"),
        "{skipped}"
    );
}
