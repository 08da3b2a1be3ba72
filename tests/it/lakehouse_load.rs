//! `lakehouse load-table` against local Fabric (issue 47): CSV files under a lakehouse's Files
//! become a table through the load-table operation (swagger lakehouse `Tables_LoadTable`, a
//! 202 and its operation), and `sql query` sees the rows at once. What is compared is what the
//! test wrote (its CSV rows, counted and summed here), never fabsh's other output. A lakehouse
//! with schemas loads through the schema route, as the plain one is refused there
//! (`UnsupportedOperationForSchemasEnabledLakehouse`, fabric-cli issues 182 and 279).

use crate::support::{Server, http, principal_token};
use serde_json::{Value, json};

/// Orders as the test writes them: `rows` lines under a header, a quantity of 1 to 9 each.
fn orders_csv(rows: usize) -> (String, i64) {
    let mut text = String::from("order_id,customer,quantity,note\n");
    let mut quantities = 0;
    for i in 0..rows {
        let quantity = i64::try_from(i % 9 + 1).expect("small");
        quantities += quantity;
        // Every fifth note is empty: a NULL, still a row.
        let note = if i % 5 == 0 { "" } else { "ok" };
        text.push_str(&format!("{},c{},{quantity},{note}\n", 1000 + i, i % 7));
    }
    (text, quantities)
}

/// `SELECT ...` on the item, its single row.
fn one_row(server: &Server, item: &str, sql: &str) -> Value {
    let run = server.fabsh(&[
        "sql",
        "query",
        "-w",
        &server.demo,
        "--item",
        item,
        "--sql",
        sql,
    ]);
    run.ok_json()["rows"][0].clone()
}

/// A raw POST of `body` to the API `path` with `bearer`: the status and the JSON answered
/// (null when none).
fn post(server: &Server, bearer: &str, path: &str, body: &Value) -> (u16, Value) {
    let (status, answer) = http(
        &server.origin(),
        "POST",
        path,
        Some(&body.to_string()),
        &[
            ("Authorization", bearer),
            ("Content-Type", "application/json"),
        ],
    );
    (status, serde_json::from_str(&answer).unwrap_or(Value::Null))
}

fn load(server: &Server, item: &str, extra: &[&str]) -> crate::support::Run {
    let mut args = vec![
        "lakehouse",
        "load-table",
        "-w",
        &server.demo,
        "--item",
        item,
    ];
    args.extend_from_slice(extra);
    server.fabsh(&args)
}

#[test]
fn a_csv_from_here_is_uploaded_and_loaded_and_sql_counts_its_rows() {
    let server = Server::session(module_path!());
    let work = tempfile::tempdir().expect("work");
    let (csv, quantities) = orders_csv(137);
    let file = work.path().join("new_orders.csv");
    std::fs::write(&file, &csv).expect("write");
    let rows = i64::try_from(csv.lines().count() - 1).expect("count");

    let loaded = load(
        &server,
        "SalesLakehouse",
        &[
            "--table",
            "new_orders",
            "--from-local",
            &file.to_string_lossy(),
        ],
    )
    .ok_json();
    assert_eq!(loaded["table"], "new_orders", "{loaded}");
    assert_eq!(loaded["from"], "Files/new_orders.csv", "{loaded}");
    let counted = one_row(
        &server,
        "SalesLakehouse",
        "SELECT COUNT(*) AS n, SUM(quantity) AS q, COUNT(note) AS notes FROM new_orders",
    );
    assert_eq!(counted["n"], json!(rows), "{counted}");
    assert_eq!(counted["q"], json!(quantities), "{counted}");
    assert_eq!(counted["notes"], json!(rows - (rows + 4) / 5), "{counted}");
    // The load went through the operation the service runs: a POST answered 202, then polled.
    let log = server.requests();
    let load_call = log["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .find(|r| {
            r["path"]
                .as_str()
                .is_some_and(|p| p.ends_with("/tables/new_orders/load"))
        })
        .cloned()
        .expect("the load request");
    assert_eq!(load_call["method"], "POST", "{load_call}");
    assert_eq!(load_call["status"], 202, "{load_call}");

    // Again, from the uploaded file: append adds the rows, overwrite replaces the table.
    load(
        &server,
        "SalesLakehouse",
        &["--table", "new_orders", "--from", "Files/new_orders.csv"],
    )
    .ok_json();
    let doubled = one_row(
        &server,
        "SalesLakehouse",
        "SELECT COUNT(*) AS n FROM new_orders",
    );
    assert_eq!(doubled["n"], json!(2 * rows), "{doubled}");
    let refused = load(
        &server,
        "SalesLakehouse",
        &[
            "--table",
            "new_orders",
            "--from",
            "Files/new_orders.csv",
            "--mode",
            "overwrite",
        ],
    );
    assert_eq!(
        refused.code, 2,
        "overwrite without consent: {}",
        refused.stderr
    );
    load(
        &server,
        "SalesLakehouse",
        &[
            "--table",
            "new_orders",
            "--from",
            "Files/new_orders.csv",
            "--mode",
            "overwrite",
            "--yes",
        ],
    )
    .ok_json();
    let replaced = one_row(
        &server,
        "SalesLakehouse",
        "SELECT COUNT(*) AS n FROM new_orders",
    );
    assert_eq!(replaced["n"], json!(rows), "{replaced}");

    // The file is there now: uploading over it needs --overwrite.
    let again = load(
        &server,
        "SalesLakehouse",
        &[
            "--table",
            "new_orders",
            "--from-local",
            &file.to_string_lossy(),
        ],
    );
    assert_eq!(again.code, 2, "{}", again.stderr);
    assert!(again.stderr.contains("--overwrite"), "{}", again.stderr);
}

#[test]
fn a_folder_of_headerless_files_loads_with_its_delimiter_and_depth() {
    let server = Server::session(module_path!());
    let work = tempfile::tempdir().expect("work");
    let parts = work.path().join("parts");
    let write = |name: &str, rows: &[(i64, &str)]| {
        let path = parts.join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        let text: String = rows.iter().map(|(n, s)| format!("{n};{s}\n")).collect();
        std::fs::write(path, text).expect("write");
    };
    write("a.csv", &[(1, "x"), (2, "y")]);
    write("b.CSV", &[(30, "z")]);
    write("deeper/c.csv", &[(400, "w"), (5000, "v")]);
    write("notes.txt", &[(99_999, "not a csv")]);
    let lake = format!("{}/SalesLakehouse/Files/parts", server.demo);
    server
        .fabsh(&[
            "onelake",
            "cp",
            &parts.to_string_lossy(),
            &lake,
            "--recursive",
        ])
        .ok_json();
    let flags = |table: &'static str, recursive: bool| {
        let mut flags = vec![
            "--table",
            table,
            "--from",
            "Files/parts",
            "--format",
            "csv",
            "--header",
            "false",
            "--delimiter",
            ";",
        ];
        if recursive {
            flags.push("--recursive");
        }
        flags
    };
    load(&server, "SalesLakehouse", &flags("parts_top", false)).ok_json();
    load(&server, "SalesLakehouse", &flags("parts_all", true)).ok_json();
    // Without a header the columns are named as Spark names them.
    let top = one_row(
        &server,
        "SalesLakehouse",
        "SELECT COUNT(*) AS n, SUM(_c0) AS s FROM parts_top",
    );
    assert_eq!(
        top,
        json!({"n": 3, "s": 33}),
        "the top folder's .csv files only"
    );
    let all = one_row(
        &server,
        "SalesLakehouse",
        "SELECT COUNT(*) AS n, SUM(_c0) AS s FROM parts_all",
    );
    assert_eq!(
        all,
        json!({"n": 5, "s": 5433}),
        "every .csv file below the folder"
    );
}

#[test]
fn a_lakehouse_with_schemas_loads_through_the_schema_route() {
    let server = Server::session(module_path!());
    let auth = server.bearer();
    // A lakehouse's name holds no `-` (fabsh-model's naming), which a session's suffix has.
    let name = server.own_name("SchemaLake").replace('-', "_");
    let body = json!({"displayName": name, "creationPayload": {"enableSchemas": true}});
    let (status, created) = post(&server, &auth, &server.demo_path("/lakehouses"), &body);
    assert!(status == 201 || status == 202, "{status} {created}");
    let lakehouse = server
        .fabsh(&[
            "item",
            "show",
            &format!("{}/{name}", server.demo),
            "-q",
            "id",
        ])
        .ok_json();
    let lakehouse = lakehouse.as_str().expect("id").to_string();
    // The swagger's GetLakehouseWithSchema example: the default schema in the properties.
    let (_, got) = server.get_json(&server.demo_path(&format!("/lakehouses/{lakehouse}")));
    assert_eq!(got["properties"]["defaultSchema"], "dbo", "{got}");

    // Before any load its SQL endpoint is an empty database: no tables listed, none to read.
    let listed = server
        .fabsh(&["sql", "tables", "-w", &server.demo, "--item", &name])
        .ok_json();
    assert_eq!(listed, json!([]), "{listed}");
    let missing = server.fabsh(&[
        "sql",
        "query",
        "-w",
        &server.demo,
        "--item",
        &name,
        "--sql",
        "SELECT * FROM orders",
    ]);
    assert!(
        missing.stderr.contains("Invalid object name 'orders'"),
        "{}",
        missing.stderr
    );

    let work = tempfile::tempdir().expect("work");
    let (csv, quantities) = orders_csv(12);
    let file = work.path().join("o.csv");
    std::fs::write(&file, &csv).expect("write");
    let loaded = load(
        &server,
        &name,
        &["--table", "orders", "--from-local", &file.to_string_lossy()],
    )
    .ok_json();
    assert_eq!(loaded["table"], "dbo.orders", "{loaded}");
    let paths = server.request_paths();
    assert!(
        paths.iter().any(|p| p.ends_with(&format!(
            "/lakehouses/{lakehouse}/schemas/dbo/tables/orders/load"
        ))),
        "{paths:?}"
    );
    let counted = one_row(
        &server,
        &name,
        "SELECT COUNT(*) AS n, SUM(quantity) AS q FROM dbo.orders",
    );
    assert_eq!(counted, json!({"n": 12, "q": quantities}));

    // The routes made before schemas are refused there, as the service refuses them.
    let plain = json!({"relativePath": "Files/o.csv", "pathType": "File"});
    let route = format!("/lakehouses/{lakehouse}/tables/orders/load");
    let (status, answer) = post(&server, &auth, &server.demo_path(&route), &plain);
    assert_eq!(status, 400, "{answer}");
    assert_eq!(
        answer["errorCode"],
        "UnsupportedOperationForSchemasEnabledLakehouse"
    );
    let (status, listed) =
        server.get_json(&server.demo_path(&format!("/lakehouses/{lakehouse}/tables")));
    assert_eq!(status, 400, "{listed}");
    assert_eq!(
        listed["errorCode"],
        "UnsupportedOperationForSchemasEnabledLakehouse"
    );
}

#[test]
fn a_viewer_cannot_load_a_table() {
    let server = Server::session(module_path!());
    let work = tempfile::tempdir().expect("work");
    std::fs::write(work.path().join("v.csv"), "a\n1\n").expect("write");
    server
        .fabsh(&[
            "onelake",
            "cp",
            &work.path().join("v.csv").to_string_lossy(),
            &format!("{}/SalesLakehouse/Files/v.csv", server.demo),
        ])
        .ok_json();
    let viewer = principal_token(&server, "load viewer", &server.demo, "Viewer");
    let lakehouse = server.demo_item_id("Lakehouse");
    let body = json!({
        "relativePath": "Files/v.csv", "pathType": "File", "mode": "Overwrite",
        "formatOptions": {"format": "Csv", "header": true}
    });
    let route = format!("/lakehouses/{lakehouse}/tables/viewer_table/load");
    let bearer = format!("Bearer {viewer}");
    let (status, answer) = post(&server, &bearer, &server.demo_path(&route), &body);
    assert_eq!(status, 403, "{answer}");
    let run = server.fabsh(&[
        "sql",
        "query",
        "-w",
        &server.demo,
        "--item",
        "SalesLakehouse",
        "--sql",
        "SELECT COUNT(*) AS n FROM viewer_table",
    ]);
    assert_ne!(run.code, 0, "the Viewer's table exists: {}", run.stdout);
}

#[test]
fn bad_input_is_refused_before_anything_is_sent() {
    let server = Server::session(module_path!());
    let work = tempfile::tempdir().expect("work");
    let missing = work.path().join("missing.csv");
    let missing = missing.to_string_lossy();
    let count = || {
        let storage = server.storage_requests()["count"].as_u64().expect("count");
        server.request_count() + storage
    };
    let before = count();
    for (flags, code, names) in [
        (
            &["--table", "a-b", "--from", "Files/x.csv"][..],
            2,
            "--table",
        ),
        (&["--table", "123", "--from", "Files/x.csv"], 2, "--table"),
        (&["--table", "t", "--from", "Tables/x.csv"], 2, "--from"),
        (&["--table", "t", "--from", "Files/../x.csv"], 2, "--from"),
        (&["--table", "t"], 2, "--from"),
        (
            &["--table", "t", "--from", "Files/x.csv", "--delimiter", "("],
            2,
            "--delimiter",
        ),
        (&["--table", "t", "--from", "Files/raw"], 2, "--format"),
        (
            &["--table", "t", "--from", "Files/x.csv", "--mode", "merge"],
            2,
            "--mode",
        ),
        (
            &["--table", "t", "--from-local", &*missing],
            4,
            "--from-local",
        ),
    ] {
        let run = load(&server, "SalesLakehouse", flags);
        assert_eq!(run.code, code, "{flags:?}: {}", run.stderr);
        assert!(run.stderr.contains(names), "{flags:?}: {}", run.stderr);
    }
    assert_eq!(count(), before, "a request was sent");
    // A file that is not there is found missing before the load is asked for.
    let run = load(
        &server,
        "SalesLakehouse",
        &["--table", "t", "--from", "Files/none.csv"],
    );
    assert_eq!(run.code, 4, "{}", run.stderr);
    assert!(
        !server.request_paths().iter().any(|p| p.ends_with("/load")),
        "a load was asked for"
    );
}

/// Writes a Parquet file of `rows` orders (snappy, as Spark writes them): an id, a customer
/// and an amount that is null every fourth row. Returns the sum of the ids and of the amounts.
fn write_orders_parquet(path: &std::path::Path, rows: i64) -> (i64, f64) {
    use parquet::basic::Compression;
    use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;
    use std::sync::Arc;

    let schema = parse_message_type(
        "message orders { REQUIRED INT64 order_id; REQUIRED BYTE_ARRAY customer (UTF8); OPTIONAL DOUBLE amount; }",
    )
    .expect("schema");
    let properties = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .build();
    let file = std::fs::File::create(path).expect("create");
    let mut writer =
        SerializedFileWriter::new(file, Arc::new(schema), Arc::new(properties)).expect("writer");
    let ids: Vec<i64> = (1..=rows).collect();
    let customers: Vec<ByteArray> = ids
        .iter()
        .map(|id| ByteArray::from(format!("customer {}", id % 5).as_str()))
        .collect();
    let present: Vec<i16> = ids.iter().map(|id| i16::from(id % 4 != 0)).collect();
    let amounts: Vec<f64> = ids
        .iter()
        .filter(|id| *id % 4 != 0)
        .map(|id| *id as f64 * 1.5)
        .collect();
    let mut group = writer.next_row_group().expect("row group");
    let mut column = group.next_column().expect("column").expect("order_id");
    column
        .typed::<Int64Type>()
        .write_batch(&ids, None, None)
        .expect("ids");
    column.close().expect("close");
    let mut column = group.next_column().expect("column").expect("customer");
    column
        .typed::<ByteArrayType>()
        .write_batch(&customers, None, None)
        .expect("customers");
    column.close().expect("close");
    let mut column = group.next_column().expect("column").expect("amount");
    column
        .typed::<DoubleType>()
        .write_batch(&amounts, Some(&present), None)
        .expect("amounts");
    column.close().expect("close");
    group.close().expect("close group");
    writer.close().expect("close file");
    (ids.iter().sum(), amounts.iter().sum())
}

#[test]
fn a_parquet_file_loads_with_its_nulls_and_types() {
    let server = Server::session(module_path!());
    let work = tempfile::tempdir().expect("work");
    let file = work.path().join("orders.parquet");
    let (ids, amounts) = write_orders_parquet(&file, 40);
    let loaded = load(
        &server,
        "SalesLakehouse",
        &[
            "--table",
            "parquet_orders",
            "--from-local",
            &file.to_string_lossy(),
            "--from",
            "Files/pq/",
        ],
    )
    .ok_json();
    assert_eq!(loaded["from"], "Files/pq/orders.parquet", "{loaded}");
    let counted = one_row(
        &server,
        "SalesLakehouse",
        "SELECT COUNT(*) AS n, SUM(order_id) AS ids, COUNT(amount) AS amounts, SUM(amount) AS total, \
         COUNT(DISTINCT customer) AS customers FROM parquet_orders",
    );
    assert_eq!(counted["n"], 40, "{counted}");
    assert_eq!(counted["ids"], json!(ids), "{counted}");
    assert_eq!(
        counted["amounts"], 30,
        "every fourth amount is null: {counted}"
    );
    assert_eq!(counted["total"].as_f64(), Some(amounts), "{counted}");
    assert_eq!(counted["customers"], 5, "{counted}");
}
