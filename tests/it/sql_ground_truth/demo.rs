//! The demo dataset, regenerated from the generator's rules (its seed, its draw order, its
//! catalog and its calendar: crates/fabsh-local/src/tables/demo.rs).

pub(super) const CUSTOMERS: usize = 240;
pub(super) const ORDERS: usize = 3_000;
const FIRST_NAMES: usize = 20;
const LAST_NAMES: usize = 16;
const PLACES: &[(&str, usize)] = &[
    ("Denmark", 2),
    ("France", 3),
    ("Germany", 3),
    ("Netherlands", 2),
    ("Spain", 2),
    ("United Kingdom", 2),
    ("United States", 3),
];
const SEGMENTS: usize = 3;
/// The catalog's products with their list prices, in product id order.
pub(super) const PRODUCTS: &[(&str, f64)] = &[
    ("Road Bike 500", 899.0),
    ("Mountain Bike 300", 649.0),
    ("City Bike 100", 429.0),
    ("Kids Bike 20", 189.0),
    ("Chain 11s", 34.5),
    ("Brake Pads", 12.9),
    ("Tubeless Tyre", 49.0),
    ("Pedals Pro", 79.0),
    ("Rain Jacket", 119.0),
    ("Cycling Gloves", 24.0),
    ("Jersey", 59.0),
    ("Bib Shorts", 89.0),
    ("Helmet", 69.0),
    ("Front Light", 39.0),
    ("Lock", 45.0),
    ("Bottle Cage", 9.5),
    ("Pump", 29.0),
];
const STATUSES: &[&str] = &[
    "Delivered",
    "Delivered",
    "Delivered",
    "Shipped",
    "Cancelled",
    "Returned",
];
/// Orders are dated this many days after 2024-01-01 at the earliest.
const FIRST_ORDER_DAY: usize = 90;
/// ... over this many days.
const ORDER_DAYS: usize = 640;
/// Customers signed up over this many days from 2024-01-01.
const SIGNUP_DAYS: usize = 365;

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
}

pub(super) struct Order {
    pub customer: usize,
    pub status: &'static str,
    /// The product's index in [`PRODUCTS`] (its id - 1).
    pub product: usize,
    pub quantity: usize,
    /// The day it was placed, in days after 2024-01-01.
    pub day: usize,
}

pub(super) struct Data {
    /// Each customer's country, by id - 1.
    pub countries: Vec<&'static str>,
    /// Each customer's signup day (days after 2024-01-01), by id - 1.
    pub signups: Vec<usize>,
    pub orders: Vec<Order>,
}

pub(super) fn generate() -> Data {
    let mut rng = Rng(20_240_101);
    let mut countries = Vec::new();
    let mut signups = Vec::new();
    for _ in 0..CUSTOMERS {
        rng.below(FIRST_NAMES);
        rng.below(LAST_NAMES);
        let (country, cities) = PLACES[rng.below(PLACES.len())];
        rng.below(cities);
        rng.below(SEGMENTS);
        signups.push(rng.below(SIGNUP_DAYS));
        countries.push(country);
    }
    let mut orders = Vec::new();
    for _ in 0..ORDERS {
        let product = rng.below(PRODUCTS.len());
        let quantity = 1 + rng.below(4);
        let customer = 1 + rng.below(CUSTOMERS);
        let day = FIRST_ORDER_DAY + rng.below(ORDER_DAYS);
        let status = STATUSES[rng.below(STATUSES.len())];
        orders.push(Order {
            customer,
            status,
            product,
            quantity,
            day,
        });
    }
    Data {
        countries,
        signups,
        orders,
    }
}

/// The date `days` after 2024-01-01, as `YYYY-MM-DD` (the generator's calendar: the years
/// it covers are 2024, a leap year, and 2025).
pub(super) fn date(days: usize) -> String {
    let mut days = days;
    let mut year = 2024;
    loop {
        let length = if year % 4 == 0 { 366 } else { 365 };
        if days < length {
            break;
        }
        days -= length;
        year += 1;
    }
    let february = if year % 4 == 0 { 29 } else { 28 };
    let months = [31, february, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let mut month = 0;
    while days >= months[month] {
        days -= months[month];
        month += 1;
    }
    format!("{year:04}-{:02}-{:02}", month + 1, days + 1)
}

impl Data {
    pub(super) fn customers_in(&self, country: &str) -> usize {
        self.countries.iter().filter(|c| **c == country).count()
    }

    pub(super) fn orders_with(&self, status: &str) -> usize {
        self.orders.iter().filter(|o| o.status == status).count()
    }

    /// Orders per country, most first (ties by name).
    pub(super) fn orders_by_country(&self) -> Vec<(&'static str, usize)> {
        let mut counts: std::collections::BTreeMap<&str, usize> = Default::default();
        for order in &self.orders {
            *counts
                .entry(self.countries[order.customer - 1])
                .or_default() += 1;
        }
        let mut list: Vec<(&str, usize)> = counts.into_iter().collect();
        list.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        list
    }

    /// Orders whose day `keep` accepts.
    pub(super) fn orders_on(&self, keep: impl Fn(usize) -> bool) -> usize {
        self.orders.iter().filter(|order| keep(order.day)).count()
    }
}

#[test]
fn the_calendar_is_the_generators() {
    assert_eq!(date(0), "2024-01-01");
    assert_eq!(date(FIRST_ORDER_DAY), "2024-03-31");
    assert_eq!(date(366), "2025-01-01");
    assert_eq!(date(FIRST_ORDER_DAY + ORDER_DAYS - 1), "2025-12-30");
}
