//! The demo lakehouse's dataset: customers, products and orders, generated from a fixed seed
//! so every data dir holds the same rows (a few thousand; well under a megabyte).

use rusqlite::{Connection, params};

const CUSTOMERS: usize = 240;
const ORDERS: usize = 3_000;

const FIRST_NAMES: &[&str] = &[
    "Ada", "Bruno", "Chen", "Dara", "Elif", "Femi", "Greta", "Hiro", "Ines", "Jonas", "Kofi",
    "Lena", "Mateo", "Nia", "Oskar", "Priya", "Quinn", "Rosa", "Sami", "Tara",
];
const LAST_NAMES: &[&str] = &[
    "Andersen", "Baptiste", "Costa", "Dubois", "Eriksen", "Fischer", "Garcia", "Haddad", "Ivanova",
    "Jensen", "Kowalski", "Lopez", "Moreau", "Novak", "Okafor", "Petrov",
];
/// (country, cities).
const PLACES: &[(&str, &[&str])] = &[
    ("Denmark", &["Copenhagen", "Aarhus"]),
    ("France", &["Paris", "Lyon", "Lille"]),
    ("Germany", &["Berlin", "Munich", "Hamburg"]),
    ("Netherlands", &["Amsterdam", "Utrecht"]),
    ("Spain", &["Madrid", "Valencia"]),
    ("United Kingdom", &["London", "Leeds"]),
    ("United States", &["Seattle", "Austin", "Boston"]),
];
const SEGMENTS: &[&str] = &["Consumer", "Small Business", "Enterprise"];
/// (category, products with list prices).
const CATALOG: &[(&str, &[(&str, f64)])] = &[
    (
        "Bikes",
        &[
            ("Road Bike 500", 899.0),
            ("Mountain Bike 300", 649.0),
            ("City Bike 100", 429.0),
            ("Kids Bike 20", 189.0),
        ],
    ),
    (
        "Components",
        &[
            ("Chain 11s", 34.5),
            ("Brake Pads", 12.9),
            ("Tubeless Tyre", 49.0),
            ("Pedals Pro", 79.0),
        ],
    ),
    (
        "Clothing",
        &[
            ("Rain Jacket", 119.0),
            ("Cycling Gloves", 24.0),
            ("Jersey", 59.0),
            ("Bib Shorts", 89.0),
        ],
    ),
    (
        "Accessories",
        &[
            ("Helmet", 69.0),
            ("Front Light", 39.0),
            ("Lock", 45.0),
            ("Bottle Cage", 9.5),
            ("Pump", 29.0),
        ],
    ),
];
const STATUSES: &[&str] = &[
    "Delivered",
    "Delivered",
    "Delivered",
    "Shipped",
    "Cancelled",
    "Returned",
];

/// A small linear congruential generator: deterministic and dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// A date `days` after 2024-01-01, as `YYYY-MM-DD`.
fn date(days: usize) -> String {
    let mut days = days as u32;
    let mut year = 2024;
    loop {
        let length = if year % 4 == 0 { 366 } else { 365 };
        if days < length {
            break;
        }
        days -= length;
        year += 1;
    }
    let leap = year % 4 == 0;
    let months = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    let mut month = 0;
    while days >= months[month] {
        days -= months[month];
        month += 1;
    }
    format!("{year:04}-{:02}-{:02}", month + 1, days + 1)
}

/// Creates and fills the tables and the view in one transaction.
pub(super) fn write(conn: &mut Connection) -> rusqlite::Result<()> {
    let tx = conn.transaction()?;
    tx.execute_batch(
        "CREATE TABLE customers (customer_id bigint PRIMARY KEY, name varchar, email varchar,
                                 country varchar, city varchar, segment varchar, signup_date date);
         CREATE TABLE products (product_id bigint PRIMARY KEY, name varchar, category varchar,
                                unit_price decimal(10,2));
         CREATE TABLE orders (order_id bigint PRIMARY KEY, customer_id bigint, product_id bigint,
                              order_date date, quantity int, unit_price decimal(10,2),
                              amount decimal(12,2), status varchar);
         CREATE VIEW sales_by_country AS
             SELECT c.country AS country, COUNT(*) AS order_count,
                    ROUND(SUM(o.amount), 2) AS total_amount
               FROM orders o JOIN customers c ON c.customer_id = o.customer_id
              WHERE o.status <> 'Cancelled'
              GROUP BY c.country;",
    )?;
    let mut rng = Rng(20_240_101);
    let mut products: Vec<f64> = Vec::new();
    {
        let mut insert = tx.prepare("INSERT INTO products VALUES (?1, ?2, ?3, ?4)")?;
        for (category, items) in CATALOG {
            for (name, price) in *items {
                products.push(*price);
                insert.execute(params![products.len() as i64, name, category, price])?;
            }
        }
    }
    {
        let mut insert = tx.prepare("INSERT INTO customers VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")?;
        for id in 1..=CUSTOMERS {
            let first = rng.pick(FIRST_NAMES);
            let last = rng.pick(LAST_NAMES);
            let (country, cities) = rng.pick(PLACES);
            let email = format!(
                "{}.{}{id}@example.com",
                first.to_lowercase(),
                last.to_lowercase()
            );
            insert.execute(params![
                id as i64,
                format!("{first} {last}"),
                email,
                country,
                rng.pick(cities),
                rng.pick(SEGMENTS),
                date(rng.below(365)),
            ])?;
        }
    }
    {
        let mut insert =
            tx.prepare("INSERT INTO orders VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")?;
        for id in 1..=ORDERS {
            let product = rng.below(products.len());
            let quantity = 1 + rng.below(4) as i64;
            let price = products[product];
            insert.execute(params![
                id as i64,
                1 + rng.below(CUSTOMERS) as i64,
                product as i64 + 1,
                date(90 + rng.below(640)),
                quantity,
                price,
                (price * quantity as f64 * 100.0).round() / 100.0,
                rng.pick(STATUSES),
            ])?;
        }
    }
    tx.commit()
}

#[cfg(test)]
mod tests {
    use super::date;

    #[test]
    fn dates_count_from_new_year_2024() {
        assert_eq!(date(0), "2024-01-01");
        assert_eq!(date(59), "2024-02-29");
        assert_eq!(date(366), "2025-01-01");
    }
}
