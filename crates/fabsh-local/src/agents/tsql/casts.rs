//! `CAST(x AS type)` and `CONVERT(type, x)` in SQLite's words. SQLite's own CAST knows its
//! storage classes, not T-SQL's types: it would make `CAST('2024-01-02' AS DATE)` the number
//! 2024 and leave `CAST(1.234 AS DECIMAL(10,2))` unrounded. So each T-SQL type is given its
//! SQL Server meaning here, and a type with none (`BIT`, `DATETIMEOFFSET`, binary types...) is
//! refused by name, as are `TRY_CAST`, `TRY_CONVERT` and `CONVERT`'s style argument.

use super::untranslatable;
use sqlparser::ast::{CastKind, CharacterLength, DataType, ExactNumberInfo, Expr, TimezoneInfo};

/// The length SQL Server gives `VARCHAR` and `CHAR` without one in a CAST or CONVERT.
const DEFAULT_TEXT_LENGTH: u64 = 30;

/// The SQLite expression for a CAST or CONVERT (`Ok(None)` for any other expression), or
/// why it is refused.
pub(super) fn translate(expr: &Expr) -> Result<Option<String>, String> {
    match expr {
        Expr::Cast {
            kind,
            expr,
            data_type,
            format,
        } => {
            if !matches!(kind, CastKind::Cast | CastKind::DoubleColon) {
                return Err(untranslatable("TRY_CAST"));
            }
            if format.is_some() {
                return Err(untranslatable("CAST ... FORMAT"));
            }
            let named = || format!("CAST(... AS {data_type})");
            converted(data_type, &expr.to_string())
                .map(Some)
                .ok_or_else(|| untranslatable(&named()))
        }
        Expr::Convert {
            is_try,
            expr,
            data_type,
            charset,
            styles,
            ..
        } => {
            if *is_try {
                return Err(untranslatable("TRY_CONVERT"));
            }
            // A style says how a date or number is written as text, and how text is read:
            // which applies depends on the value's type, which SQLite's text does not carry.
            if !styles.is_empty() {
                return Err(untranslatable("CONVERT with a style (its third argument)"));
            }
            let (Some(data_type), None) = (data_type, charset) else {
                return Err(untranslatable("CONVERT ... USING"));
            };
            let named = || format!("CONVERT({data_type}, ...)");
            converted(data_type, &expr.to_string())
                .map(Some)
                .ok_or_else(|| untranslatable(&named()))
        }
        _ => Ok(None),
    }
}

/// `value` (SQLite text) as the T-SQL type `data_type`, or `None` for a type with no
/// SQLite equal.
fn converted(data_type: &DataType, value: &str) -> Option<String> {
    Some(match data_type {
        DataType::Date => format!("date({value})"),
        DataType::Datetime(_) => datetime(value),
        DataType::Time(_, TimezoneInfo::None) => {
            without_zero_fraction(&format!("strftime('%H:%M:%f', {value})"))
        }
        DataType::Varchar(length)
        | DataType::Nvarchar(length)
        | DataType::CharacterVarying(length)
        | DataType::CharVarying(length) => match length {
            Some(CharacterLength::Max) => format!("CAST({value} AS TEXT)"),
            Some(CharacterLength::IntegerLength { length, .. }) => varying(value, *length),
            None => varying(value, DEFAULT_TEXT_LENGTH),
        },
        DataType::Char(length) | DataType::Character(length) => match length {
            Some(CharacterLength::Max) => return None,
            Some(CharacterLength::IntegerLength { length, .. }) => fixed(value, *length),
            None => fixed(value, DEFAULT_TEXT_LENGTH),
        },
        DataType::Text => format!("CAST({value} AS TEXT)"),
        DataType::Decimal(info) | DataType::Numeric(info) | DataType::Dec(info) => match info {
            ExactNumberInfo::PrecisionAndScale(_, scale) if *scale > 0 => {
                format!("round({value}, {scale})")
            }
            _ => format!("CAST(round({value}) AS INTEGER)"),
        },
        DataType::TinyInt(_)
        | DataType::SmallInt(_)
        | DataType::Int(_)
        | DataType::Integer(_)
        | DataType::BigInt(_) => format!("CAST({value} AS INTEGER)"),
        DataType::Float(_) | DataType::Real | DataType::Double(_) | DataType::DoublePrecision => {
            format!("CAST({value} AS REAL)")
        }
        DataType::Custom(name, args) => {
            let [part] = name.0.as_slice() else {
                return None;
            };
            let ident = part.as_ident()?;
            match (ident.value.to_ascii_uppercase().as_str(), args.as_slice()) {
                ("DATETIME2", _) => datetime(value),
                // Rounded to the minute: 30 seconds and more round up.
                ("SMALLDATETIME", []) => {
                    format!("strftime('%Y-%m-%d %H:%M:00', {value}, '+30 seconds')")
                }
                ("MONEY" | "SMALLMONEY", []) => format!("round({value}, 4)"),
                ("NCHAR", []) => fixed(value, DEFAULT_TEXT_LENGTH),
                ("NCHAR", [length]) => fixed(value, length.parse().ok()?),
                _ => return None,
            }
        }
        _ => return None,
    })
}

/// A datetime, with its fraction of a second when it has one.
fn datetime(value: &str) -> String {
    without_zero_fraction(&format!("strftime('%Y-%m-%d %H:%M:%f', {value})"))
}

/// `time` (text ending in `SS.fff`) without the zeros that end its fraction, nor the point
/// when nothing is left after it: `10:00:00.500` is `10:00:00.5`, `10:00:00.000` is
/// `10:00:00`.
fn without_zero_fraction(time: &str) -> String {
    format!("rtrim(rtrim({time}, '0'), '.')")
}

/// `VARCHAR(n)`: the text cut to `n` characters, as SQL Server cuts it.
fn varying(value: &str, length: u64) -> String {
    format!("substr(CAST({value} AS TEXT), 1, {length})")
}

/// `CHAR(n)`: the text cut or padded with spaces to `n` characters (NULL stays NULL).
fn fixed(value: &str, length: u64) -> String {
    let spaces = " ".repeat(usize::try_from(length).unwrap_or(usize::MAX).min(8_000));
    format!("substr(CAST({value} AS TEXT) || '{spaces}', 1, {length})")
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::types::Value;

    /// The first expression of `SELECT {expr}`, translated, run on SQLite.
    fn run(expr: &str) -> Result<Value, String> {
        let statements = fabsh_model::sql::parse(&format!("SELECT {expr}"), "query")?;
        let sqlparser::ast::Statement::Query(query) = &statements[0] else {
            panic!("a query");
        };
        let sqlparser::ast::SetExpr::Select(select) = query.body.as_ref() else {
            panic!("a select");
        };
        let sqlparser::ast::SelectItem::UnnamedExpr(expr) = &select.projection[0] else {
            panic!("an expression");
        };
        let sql = translate(expr)?.expect("a cast");
        rusqlite::Connection::open_in_memory()
            .expect("db")
            .query_row(&format!("SELECT {sql}"), [], |row| row.get(0))
            .map_err(|err| format!("{sql}: {err}"))
    }

    fn text(value: &str) -> Value {
        Value::Text(value.to_string())
    }

    #[test]
    fn casts_give_t_sql_types_their_meaning() {
        for (expr, expected) in [
            ("CAST('2024-01-02' AS DATE)", text("2024-01-02")),
            ("CAST('2024-01-02 10:30:00' AS DATE)", text("2024-01-02")),
            ("CONVERT(date, '2024-01-02T10:30:00')", text("2024-01-02")),
            (
                "CAST('2024-01-02' AS DATETIME)",
                text("2024-01-02 00:00:00"),
            ),
            (
                "CAST('2024-01-02 10:30:00.250' AS DATETIME2)",
                text("2024-01-02 10:30:00.25"),
            ),
            (
                "CAST('2024-01-02 10:30:30' AS SMALLDATETIME)",
                text("2024-01-02 10:31:00"),
            ),
            ("CAST('2024-01-02 10:30:00' AS TIME)", text("10:30:00")),
            ("CAST('abcdef' AS VARCHAR(3))", text("abc")),
            ("CONVERT(NVARCHAR(MAX), 12)", text("12")),
            ("CAST('ab' AS CHAR(4))", text("ab  ")),
            ("CAST(1.234 AS DECIMAL(10,2))", Value::Real(1.23)),
            ("CAST(2.5 AS NUMERIC)", Value::Integer(3)),
            ("CAST(2.7 AS INT)", Value::Integer(2)),
            ("CONVERT(FLOAT, '2.5')", Value::Real(2.5)),
            ("CAST(NULL AS DATE)", Value::Null),
            ("CAST(NULL AS CHAR(2))", Value::Null),
        ] {
            assert_eq!(run(expr), Ok(expected), "{expr}");
        }
        for (expr, named) in [
            ("CAST(1 AS BIT)", "CAST(... AS BIT)"),
            ("CAST(x AS DATETIMEOFFSET)", "CAST(... AS DATETIMEOFFSET)"),
            (
                "CONVERT(UNIQUEIDENTIFIER, x)",
                "CONVERT(UNIQUEIDENTIFIER, ...)",
            ),
            ("CONVERT(VARCHAR(10), x, 120)", "CONVERT with a style"),
            ("TRY_CAST(x AS DATE)", "TRY_CAST"),
            ("TRY_CONVERT(INT, x)", "TRY_CONVERT"),
        ] {
            let why = run(expr).expect_err(expr);
            assert!(why.contains(named), "{expr}: {why}");
        }
    }
}
