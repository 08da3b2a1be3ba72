//! A result cell as JSON. SQLite stores a `DECIMAL(12,2)` value as an integer or a float and
//! forgets its scale, so `899.00` would come back as `899`; SQL Server's result keeps the
//! scale its column declares. A column declared `DECIMAL(p,s)`, `NUMERIC(p,s)`, `MONEY` or
//! `SMALLMONEY` is therefore given with its scale, as a string: the one JSON form whose
//! trailing zeros (and every digit of a 38-digit decimal) survive a JSON reader.

use rusqlite::types::ValueRef;
use serde_json::{Value, json};

/// The scale of a column's declared type when it is an exact decimal type, as SQL Server
/// gives it: `DECIMAL` and `DECIMAL(p)` have scale 0, `MONEY` has 4.
pub(super) fn scale_of(declared: Option<&str>) -> Option<u32> {
    let declared = declared?.trim().to_ascii_lowercase();
    let (name, arguments) = match declared.split_once('(') {
        Some((name, rest)) => (name.trim(), Some(rest.strip_suffix(')')?)),
        None => (declared.as_str(), None),
    };
    match (name, arguments) {
        ("money" | "smallmoney", None) => Some(4),
        ("decimal" | "numeric" | "dec", None) => Some(0),
        ("decimal" | "numeric" | "dec", Some(arguments)) => match arguments.split_once(',') {
            Some((_, scale)) => scale.trim().parse().ok(),
            None => Some(0),
        },
        _ => None,
    }
}

/// A cell as JSON: numbers as numbers, text as strings, a blob by its size; in a column of
/// `scale` (see [`scale_of`]), a number as a string with that many decimals.
pub(super) fn json_of(value: ValueRef<'_>, scale: Option<u32>) -> Value {
    match (value, scale) {
        (ValueRef::Integer(n), Some(scale)) => json!(with_scale(&n.to_string(), scale)),
        (ValueRef::Real(x), Some(scale)) if x.is_finite() => {
            json!(with_scale(&x.to_string(), scale))
        }
        (ValueRef::Null, _) => Value::Null,
        (ValueRef::Integer(n), _) => json!(n),
        (ValueRef::Real(x), _) => json!(x),
        (ValueRef::Text(bytes), _) => json!(String::from_utf8_lossy(bytes)),
        (ValueRef::Blob(bytes), _) => json!(format!("<{} bytes>", bytes.len())),
    }
}

/// `number` (plain decimal digits, maybe signed, maybe with a fraction: as Rust prints an
/// integer or a finite float) with exactly `scale` decimals, rounded half away from zero as
/// SQL Server rounds a value into a decimal column.
fn with_scale(number: &str, scale: u32) -> String {
    let scale = scale as usize;
    let (negative, digits) = match number.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, number),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let mut kept: Vec<u8> = whole.bytes().collect();
    kept.extend(fraction.bytes().chain(std::iter::repeat(b'0')).take(scale));
    if fraction
        .as_bytes()
        .get(scale)
        .is_some_and(|next| *next >= b'5')
    {
        round_up(&mut kept);
    }
    let point = kept.len() - scale;
    let (whole, fraction) = kept.split_at(point);
    let mut text = String::new();
    // A decimal has no negative zero.
    if negative && kept.iter().any(|digit| *digit != b'0') {
        text.push('-');
    }
    text.push_str(&String::from_utf8_lossy(whole));
    if scale > 0 {
        text.push('.');
        text.push_str(&String::from_utf8_lossy(fraction));
    }
    text
}

/// Adds one to the last of `digits` (ASCII), carrying; a carry past the first adds a digit.
fn round_up(digits: &mut Vec<u8>) {
    for digit in digits.iter_mut().rev() {
        if *digit == b'9' {
            *digit = b'0';
        } else {
            *digit += 1;
            return;
        }
    }
    digits.insert(0, b'1');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_decimal_types_have_their_scale() {
        for (declared, scale) in [
            (Some("decimal(10,2)"), Some(2)),
            (Some("DECIMAL(12, 4)"), Some(4)),
            (Some("numeric(18)"), Some(0)),
            (Some("dec"), Some(0)),
            (Some("MONEY"), Some(4)),
            (Some("decimals"), None),
            (Some("bigint"), None),
            (Some("float"), None),
            (None, None),
        ] {
            assert_eq!(scale_of(declared), scale, "{declared:?}");
        }
    }

    #[test]
    fn a_decimal_cell_keeps_its_scale() {
        for (value, scale, expected) in [
            (ValueRef::Integer(899), 2, "899.00"),
            (ValueRef::Real(34.5), 2, "34.50"),
            (ValueRef::Real(12.9), 2, "12.90"),
            (ValueRef::Real(0.125), 2, "0.13"),
            (ValueRef::Real(-0.125), 2, "-0.13"),
            (ValueRef::Real(9.995), 2, "10.00"),
            (ValueRef::Real(-0.001), 2, "0.00"),
            (ValueRef::Real(2.5), 0, "3"),
            (ValueRef::Integer(-7), 0, "-7"),
            (ValueRef::Real(1e-7), 4, "0.0000"),
        ] {
            assert_eq!(json_of(value, Some(scale)), json!(expected), "{value:?}");
        }
        assert_eq!(json_of(ValueRef::Null, Some(2)), Value::Null);
        assert_eq!(json_of(ValueRef::Text(b"n/a"), Some(2)), json!("n/a"));
        assert_eq!(json_of(ValueRef::Integer(899), None), json!(899));
    }
}
