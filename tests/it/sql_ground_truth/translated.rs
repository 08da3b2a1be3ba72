//! Issue 45: what agents write most after TOP, through `sql query` on local Fabric: the date
//! functions, CAST and CONVERT, CASE over dates, a table the item lacks named in SQL Server's
//! words, a table named like a keyword, decimals with their scale. Expected values come from
//! the demo generator's rules ([`super::demo`]) or from the calendar, never from fabsh.

use super::demo::{self, date};
use super::{cells, server, sql, write};
use serde_json::{Value, json};

/// The one row of `query`'s result.
fn one_row(query: &str) -> Value {
    let out = sql(server(), query, &[]).ok_json();
    assert_eq!(out["rows"].as_array().map(Vec::len), Some(1), "{out}");
    out["rows"][0].clone()
}

#[test]
fn dateadd_and_datediff_answer_from_the_data() {
    let data = demo::generate();
    let last = data.orders.iter().map(|o| o.day).max().expect("orders");
    // The last 30 days of orders, counted back from the last order date.
    let row = one_row(
        "SELECT COUNT_BIG(*) AS n, DATEADD(day, -30, MAX(order_date)) AS since FROM dbo.orders \
         WHERE order_date > DATEADD(day, -30, (SELECT MAX(order_date) FROM dbo.orders))",
    );
    assert_eq!(row["n"], data.orders_on(|day| day + 30 > last), "{row}");
    // ...as a date: the same 10 characters a date column holds.
    let row = one_row("SELECT DATEADD(day, -30, MAX(order_date)) AS since FROM dbo.orders");
    assert_eq!(row["since"], date(last - 30));
    // Orders placed within 100 days of the customer's signup.
    let row = one_row(
        "SELECT COUNT(*) AS n FROM dbo.orders o JOIN dbo.customers c ON c.customer_id = o.customer_id \
         WHERE DATEDIFF(day, c.signup_date, o.order_date) < 100",
    );
    let expected = data
        .orders
        .iter()
        .filter(|o| o.day < data.signups[o.customer - 1] + 100)
        .count();
    assert_eq!(row["n"], expected);
    // Boundaries crossed, as SQL Server counts them, between dates the calendar knows.
    let row = one_row(
        "SELECT DATEDIFF(day, '2024-01-01', '2025-01-01') AS days, \
                DATEDIFF(month, '2024-01-31', '2024-02-01') AS months, \
                DATEDIFF(year, '2024-12-31', '2025-01-01') AS years, \
                DATEDIFF(quarter, '2024-03-31', '2024-04-01') AS quarters, \
                DATEDIFF(week, '2024-01-06', '2024-01-07') AS weeks, \
                DATEADD(month, 1, '2024-01-31') AS month_later, \
                EOMONTH('2025-02-10') AS month_end",
    );
    assert_eq!(
        row,
        json!({"days": 366, "months": 1, "years": 1, "quarters": 1, "weeks": 1,
               "month_later": "2024-02-29", "month_end": "2025-02-28"})
    );
}

#[test]
fn cast_and_convert_to_date_compare_as_dates() {
    let data = demo::generate();
    let day = data.orders[0].day;
    let on_day = data.orders_on(|d| d == day);
    let row = one_row(&format!(
        "SELECT COUNT(*) AS n, MIN(CAST(order_date AS DATE)) AS first_day FROM dbo.orders \
         WHERE CAST(order_date AS DATE) = '{}'",
        date(day)
    ));
    assert_eq!(row["n"], on_day, "{row}");
    assert_eq!(row["first_day"], date(day));
    let row = one_row(&format!(
        "SELECT COUNT(*) AS n FROM dbo.orders WHERE order_date = CONVERT(date, '{} 17:45:00')",
        date(day)
    ));
    assert_eq!(row["n"], on_day);
    let row = one_row(
        "SELECT CAST('2025-06-01 12:30:00' AS DATE) AS d, CAST(order_date AS DATETIME2) AS dt, \
                CAST(order_date AS VARCHAR(7)) AS month FROM dbo.orders WHERE order_id = 1",
    );
    let first = date(data.orders[0].day);
    assert_eq!(
        row,
        json!({"d": "2025-06-01", "dt": format!("{first} 00:00:00"), "month": &first[..7]})
    );
}

#[test]
fn format_and_case_over_dates_group_the_orders() {
    let data = demo::generate();
    let mut by_month: std::collections::BTreeMap<String, usize> = Default::default();
    for order in &data.orders {
        *by_month
            .entry(date(order.day)[..7].to_string())
            .or_default() += 1;
    }
    let out = sql(
        server(),
        "SELECT FORMAT(order_date, 'yyyy-MM') AS month, COUNT_BIG(*) AS n FROM dbo.orders \
         GROUP BY FORMAT(order_date, 'yyyy-MM') ORDER BY month",
        &[],
    )
    .ok_json();
    let months: Vec<Value> = by_month.keys().map(|m| json!(m)).collect();
    let counts: Vec<Value> = by_month.values().map(|n| json!(n)).collect();
    assert_eq!(cells(&out, "month"), months);
    assert_eq!(cells(&out, "n"), counts);
    // CASE over dates: the half year up to 2025-12-31 starts on 2025-06-30 (six months
    // back from the 31st ends on June's last day), and 2024's orders by quarter.
    let row = one_row(
        "SELECT SUM(CASE WHEN order_date >= DATEADD(month, -6, '2025-12-31') THEN 1 ELSE 0 END) AS recent, \
                SUM(CASE WHEN DATEPART(quarter, order_date) = 4 AND YEAR(order_date) = 2024 THEN 1 ELSE 0 END) AS q4 \
         FROM dbo.orders",
    );
    assert_eq!(
        row["recent"],
        data.orders_on(|d| date(d).as_str() >= "2025-06-30")
    );
    assert_eq!(
        row["q4"],
        data.orders_on(|d| ("2024-10-01".."2025-01-01").contains(&date(d).as_str()))
    );
}

#[test]
fn a_table_the_item_lacks_is_named_as_sql_server_names_it() {
    let run = sql(server(), "SELECT TOP 5 * FROM dbo.order", &[]);
    assert_ne!(run.code, 0);
    assert!(
        run.stderr.contains("Invalid object name 'dbo.order'.") && !run.stderr.contains("near"),
        "{}",
        run.stderr
    );
    let run = sql(server(), "SELECT o.amount_eur FROM dbo.orders o", &[]);
    assert!(
        run.code != 0 && run.stderr.contains("Invalid column name 'amount_eur'."),
        "{}",
        run.stderr
    );
    // A CTE is the query's own name, not a missing table.
    let row = one_row(
        "WITH shipped AS (SELECT * FROM dbo.orders WHERE status = 'Shipped') SELECT COUNT(*) AS n FROM shipped",
    );
    assert_eq!(row["n"], demo::generate().orders_with("Shipped"));
}

#[test]
fn a_table_named_like_a_keyword_is_read_as_its_name() {
    let server = server();
    server.create_demo_item("Keyword store", "Warehouse");
    let created = write(server, "Keyword store", "CREATE TABLE dbo.limit (id INT)").ok_json();
    assert_eq!(created["rowsAffected"], 0, "{created}");
    write(
        server,
        "Keyword store",
        "INSERT INTO dbo.limit (id) VALUES (1), (2)",
    )
    .ok_json();
    let out = write(
        server,
        "Keyword store",
        "SELECT id FROM dbo.limit ORDER BY id",
    )
    .ok_json();
    assert_eq!(out["rows"], json!([{"id": 1}, {"id": 2}]), "{out}");
}

#[test]
fn a_decimal_column_keeps_its_scale() {
    let server = server();
    server.create_demo_item("Decimal store", "Warehouse");
    write(
        server,
        "Decimal store",
        "CREATE TABLE dbo.prices (id INT, price DECIMAL(10, 2))",
    )
    .ok_json();
    write(
        server,
        "Decimal store",
        "INSERT INTO dbo.prices (id, price) VALUES (1, 899), (2, 34.5), (3, 0.125)",
    )
    .ok_json();
    let out = write(
        server,
        "Decimal store",
        "SELECT id, price FROM dbo.prices ORDER BY id",
    )
    .ok_json();
    // 0.125 rounds half away from zero into two decimals, as SQL Server stores it.
    assert_eq!(
        out["rows"],
        json!([{"id": 1, "price": "899.00"}, {"id": 2, "price": "34.50"}, {"id": 3, "price": "0.13"}]),
        "{out}"
    );
    // The demo's prices and amounts, DECIMAL(10,2) and DECIMAL(12,2).
    let data = demo::generate();
    let out = sql(
        server,
        "SELECT p.name, p.unit_price, o.amount FROM dbo.orders o JOIN dbo.products p ON p.product_id = o.product_id WHERE o.order_id = 1",
        &[],
    )
    .ok_json();
    let first = &data.orders[0];
    let (name, price) = demo::PRODUCTS[first.product];
    let amount = (price * first.quantity as f64 * 100.0).round() / 100.0;
    assert_eq!(
        out["rows"][0],
        json!({"name": name, "unit_price": format!("{price:.2}"), "amount": format!("{amount:.2}")})
    );
    let out = sql(
        server,
        "SELECT unit_price FROM dbo.products WHERE name IN ('Road Bike 500', 'Chain 11s') ORDER BY product_id",
        &[],
    )
    .ok_json();
    assert_eq!(
        cells(&out, "unit_price"),
        vec![json!("899.00"), json!("34.50")]
    );
}
