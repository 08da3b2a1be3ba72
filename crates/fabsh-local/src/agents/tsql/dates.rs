//! T-SQL's date functions in SQLite's words: `DATEADD`, `DATEDIFF` (and `DATEDIFF_BIG`),
//! `DATEPART`, `EOMONTH`, and `FORMAT` of a date with a numeric pattern. Each is translated
//! only for the date parts and patterns where SQLite gives SQL Server's answer; any other is
//! refused, naming it.
//!
//! Dates are SQLite text (`YYYY-MM-DD`, `YYYY-MM-DD HH:MM:SS[.fff]`), as the item's tables
//! hold them. SQLite has no date type, so `DATEADD` keeps its input's kind by its length: a
//! 10-character date stays a date, a datetime stays a datetime, as SQL Server's result takes
//! the type of its input.

use super::untranslatable;
use sqlparser::ast::Expr;

/// A date part, by any of the names and abbreviations SQL Server takes for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Year,
    Quarter,
    Month,
    DayOfYear,
    Day,
    Week,
    Weekday,
    Hour,
    Minute,
    Second,
    IsoWeek,
}

fn part_of(word: &str) -> Option<Part> {
    Some(match word.to_ascii_lowercase().as_str() {
        "year" | "yy" | "yyyy" => Part::Year,
        "quarter" | "qq" | "q" => Part::Quarter,
        "month" | "mm" | "m" => Part::Month,
        "dayofyear" | "dy" | "y" => Part::DayOfYear,
        "day" | "dd" | "d" => Part::Day,
        "week" | "wk" | "ww" => Part::Week,
        "weekday" | "dw" | "w" => Part::Weekday,
        "hour" | "hh" => Part::Hour,
        "minute" | "mi" | "n" => Part::Minute,
        "second" | "ss" | "s" => Part::Second,
        "iso_week" | "isowk" | "isoww" => Part::IsoWeek,
        _ => return None,
    })
}

/// The date part a call names in its first argument (an unquoted word, as SQL Server takes
/// it), with the word as written for a refusal.
fn part_argument(arg: &Expr) -> Option<(Option<Part>, String)> {
    match arg {
        Expr::Identifier(ident) if ident.quote_style.is_none() => {
            Some((part_of(&ident.value), ident.value.clone()))
        }
        _ => None,
    }
}

/// The SQLite expression for a call of the date function `name` (upper case) with `args`
/// (each as SQLite text, already translated, beside its tree), `None` when `name` is none of
/// them, or why it is refused.
pub(super) fn translate(name: &str, args: &[(&Expr, String)]) -> Option<Result<String, String>> {
    let refused = |what: &str| Some(Err(untranslatable(what)));
    match (name, args) {
        ("DATEADD", [(part, _), (_, number), (_, date)]) => {
            let Some((part, word)) = part_argument(part) else {
                return refused("DATEADD() without a date part word");
            };
            match part.and_then(|part| date_add(part, number, date)) {
                Some(sql) => Some(Ok(sql)),
                None => refused(&format!("DATEADD({word}, ...)")),
            }
        }
        ("DATEDIFF" | "DATEDIFF_BIG", [(part, _), (_, start), (_, end)]) => {
            let Some((part, word)) = part_argument(part) else {
                return refused(&format!("{name}() without a date part word"));
            };
            match part.and_then(|part| date_diff(part, start, end)) {
                Some(sql) => Some(Ok(sql)),
                None => refused(&format!("{name}({word}, ...)")),
            }
        }
        ("DATEPART", [(part, _), (_, date)]) => {
            let Some((part, word)) = part_argument(part) else {
                return refused("DATEPART() without a date part word");
            };
            match part.and_then(|part| date_part(part, date)) {
                Some(sql) => Some(Ok(sql)),
                None => refused(&format!("DATEPART({word}, ...)")),
            }
        }
        ("EOMONTH", [(_, date)]) => Some(Ok(format!(
            "date({date}, 'start of month', '+1 months', '-1 days')"
        ))),
        ("EOMONTH", [(_, date), (_, months)]) => Some(Ok(format!(
            "date({date}, 'start of month', (CAST({months} AS INTEGER) + 1) || ' months', '-1 days')"
        ))),
        ("FORMAT", [(_, value), (pattern, _)]) => Some(format(value, pattern)),
        ("FORMAT", [_, _, _]) => refused("FORMAT() with a culture argument"),
        ("DATEADD" | "DATEDIFF" | "DATEDIFF_BIG" | "DATEPART" | "EOMONTH" | "FORMAT", _) => {
            Some(Err(format!(
                "{name}() takes other arguments than these; check the call"
            )))
        }
        _ => None,
    }
}

/// `DATEADD(part, number, date)`: the number is truncated to an integer as SQL Server does;
/// months and years that land past the end of a month end on its last day (`floor`), as SQL
/// Server's do (2024-01-31 plus a month is 2024-02-29). `None` for a part it has no exact
/// translation for.
fn date_add(part: Part, number: &str, date: &str) -> Option<String> {
    let whole = format!("CAST({number} AS INTEGER)");
    let (modifier, time_part) = match part {
        Part::Year => (format!("{whole} || ' years'"), false),
        Part::Quarter => (format!("({whole} * 3) || ' months'"), false),
        Part::Month => (format!("{whole} || ' months'"), false),
        Part::Week => (format!("({whole} * 7) || ' days'"), false),
        Part::Day | Part::DayOfYear | Part::Weekday => (format!("{whole} || ' days'"), false),
        Part::Hour => (format!("{whole} || ' hours'"), true),
        Part::Minute => (format!("{whole} || ' minutes'"), true),
        Part::Second => (format!("{whole} || ' seconds'"), true),
        Part::IsoWeek => return None,
    };
    // The result is as long as the input: a date stays a date, a datetime keeps its
    // fraction of a second. A time part makes a date a datetime (SQL Server refuses a time
    // part on a date; here the answer is at least not cut to the day).
    let shortest = if time_part { 19 } else { 10 };
    Some(format!(
        "substr(strftime('%Y-%m-%d %H:%M:%f', {date}, {modifier}, 'floor'), 1, max(length({date}), {shortest}))"
    ))
}

/// `DATEDIFF(part, start, end)`: the number of `part` boundaries crossed from `start` to
/// `end`, as SQL Server counts them (2024-12-31 to 2025-01-01 is one year; a week boundary
/// is a Sunday, whatever `DATEFIRST` says).
fn date_diff(part: Part, start: &str, end: &str) -> Option<String> {
    let field = |format: &str, date: &str| format!("CAST(strftime('{format}', {date}) AS INTEGER)");
    // Each side truncated to the part, as seconds since 1970: their difference is an exact
    // multiple of the part's length, before 1970 too.
    let seconds_between = |truncate: &dyn Fn(&str) -> String, length: u32| {
        format!(
            "((unixepoch({}) - unixepoch({})) / {length})",
            truncate(end),
            truncate(start)
        )
    };
    Some(match part {
        Part::Year => format!("({} - {})", field("%Y", end), field("%Y", start)),
        Part::Quarter => {
            let quarter = |date: &str| {
                format!(
                    "({} * 4 + ({} - 1) / 3)",
                    field("%Y", date),
                    field("%m", date)
                )
            };
            format!("({} - {})", quarter(end), quarter(start))
        }
        Part::Month => {
            let month =
                |date: &str| format!("({} * 12 + {})", field("%Y", date), field("%m", date));
            format!("({} - {})", month(end), month(start))
        }
        Part::Day | Part::DayOfYear | Part::Weekday => {
            seconds_between(&|date| format!("{date}, 'start of day'"), 86_400)
        }
        // The Sunday on or before each day.
        Part::Week => seconds_between(
            &|date| format!("{date}, 'start of day', '-6 days', 'weekday 0'"),
            604_800,
        ),
        Part::Hour => seconds_between(
            &|date| format!("strftime('%Y-%m-%d %H:00:00', {date})"),
            3_600,
        ),
        Part::Minute => {
            seconds_between(&|date| format!("strftime('%Y-%m-%d %H:%M:00', {date})"), 60)
        }
        Part::Second => {
            seconds_between(&|date| format!("strftime('%Y-%m-%d %H:%M:%S', {date})"), 1)
        }
        Part::IsoWeek => return None,
    })
}

/// `DATEPART(part, date)` as an integer. The weekday and the week number depend on the
/// session's `DATEFIRST`, which local Fabric does not know: refused.
fn date_part(part: Part, date: &str) -> Option<String> {
    let field = |format: &str| format!("CAST(strftime('{format}', {date}) AS INTEGER)");
    Some(match part {
        Part::Year => field("%Y"),
        Part::Quarter => format!("(({} + 2) / 3)", field("%m")),
        Part::Month => field("%m"),
        Part::DayOfYear => field("%j"),
        Part::Day => field("%d"),
        Part::Hour => field("%H"),
        Part::Minute => field("%M"),
        Part::Second => field("%S"),
        Part::IsoWeek => field("%V"),
        Part::Week | Part::Weekday => return None,
    })
}

/// `FORMAT(date, 'pattern')` for a pattern of numeric fields (`yyyy`, `MM`, `dd`, `HH`,
/// `mm`, `ss`) and separators, which read the same in every culture; names of months or
/// days, 12-hour clocks and number formats are refused.
fn format(value: &str, pattern: &Expr) -> Result<String, String> {
    let Some(text) = string_literal(pattern) else {
        return Err(untranslatable(
            "FORMAT() with a pattern that is not a literal",
        ));
    };
    let refused = || untranslatable(&format!("FORMAT() with the pattern '{text}'"));
    let mut strftime = String::new();
    let chars: Vec<char> = text.chars().collect();
    let mut at = 0;
    while at < chars.len() {
        let letter = chars[at];
        let run = chars[at..].iter().take_while(|c| **c == letter).count();
        let field = match (letter, run) {
            ('y', 4) => "%Y",
            ('M', 2) => "%m",
            ('d', 2) => "%d",
            ('H', 2) => "%H",
            ('m', 2) => "%M",
            ('s', 2) => "%S",
            ('-' | '/' | ':' | ' ' | '.' | 'T' | '_', _) => {
                strftime.extend(std::iter::repeat_n(letter, run));
                at += run;
                continue;
            }
            _ => return Err(refused()),
        };
        strftime.push_str(field);
        at += run;
    }
    Ok(format!("strftime('{strftime}', {value})"))
}

fn string_literal(expr: &Expr) -> Option<&str> {
    use sqlparser::ast::Value;
    match expr {
        Expr::Value(value) => match &value.value {
            Value::SingleQuotedString(text) | Value::NationalStringLiteral(text) => Some(text),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::Connection;

    /// `expr` with `args` (SQLite text) translated and run on SQLite.
    fn run(name: &str, args: &[&str]) -> Result<rusqlite::types::Value, String> {
        let trees: Vec<Expr> = args
            .iter()
            .map(|arg| super::super::parse_expr(arg).expect("argument"))
            .collect();
        let pairs: Vec<(&Expr, String)> = trees
            .iter()
            .zip(args)
            .map(|(tree, text)| (tree, text.to_string()))
            .collect();
        let sql = translate(name, &pairs).expect("a date function")?;
        Connection::open_in_memory()
            .expect("db")
            .query_row(&format!("SELECT {sql}"), [], |row| row.get(0))
            .map_err(|err| format!("{sql}: {err}"))
    }

    fn text(name: &str, args: &[&str]) -> String {
        match run(name, args) {
            Ok(rusqlite::types::Value::Text(text)) => text,
            other => panic!("{name}({args:?}): {other:?}"),
        }
    }

    fn number(name: &str, args: &[&str]) -> i64 {
        match run(name, args) {
            Ok(rusqlite::types::Value::Integer(n)) => n,
            other => panic!("{name}({args:?}): {other:?}"),
        }
    }

    #[test]
    fn dateadd_keeps_a_date_a_date_and_ends_months_as_sql_server_does() {
        for (part, n, date, expected) in [
            ("day", "-30", "'2025-12-30'", "2025-11-30"),
            ("dd", "1.9", "'2024-02-28'", "2024-02-29"),
            ("month", "1", "'2024-01-31'", "2024-02-29"),
            ("mm", "-1", "'2024-03-31'", "2024-02-29"),
            ("year", "1", "'2024-02-29'", "2025-02-28"),
            ("quarter", "1", "'2024-11-30'", "2025-02-28"),
            ("week", "2", "'2024-12-25'", "2025-01-08"),
            ("dayofyear", "1", "'2024-12-31'", "2025-01-01"),
            ("weekday", "-1", "'2024-01-01'", "2023-12-31"),
            ("day", "1", "'2024-01-31 23:30:00'", "2024-02-01 23:30:00"),
            (
                "month",
                "1",
                "'2024-01-31 10:00:00.5'",
                "2024-02-29 10:00:00.5",
            ),
            ("hour", "25", "'2024-01-31 10:00:00'", "2024-02-01 11:00:00"),
            (
                "minute",
                "-90",
                "'2024-01-01 00:30:00'",
                "2023-12-31 23:00:00",
            ),
            ("second", "30", "'2024-01-01'", "2024-01-01 00:00:30"),
        ] {
            assert_eq!(
                text("DATEADD", &[part, n, date]),
                expected,
                "{part} {n} {date}"
            );
        }
        assert_eq!(
            run("DATEADD", &["day", "NULL", "'2024-01-01'"]),
            Ok(rusqlite::types::Value::Null)
        );
        for part in ["millisecond", "ns", "iso_week", "fortnight"] {
            let why = run("DATEADD", &[part, "1", "'2024-01-01'"]).expect_err(part);
            assert!(why.contains(&format!("DATEADD({part}, ...)")), "{why}");
        }
    }

    #[test]
    fn datediff_counts_the_boundaries_crossed() {
        for (part, start, end, expected) in [
            ("year", "'2024-12-31'", "'2025-01-01'", 1),
            ("yy", "'2025-01-01'", "'2024-12-31 23:59:59'", -1),
            ("quarter", "'2024-03-31'", "'2024-04-01'", 1),
            ("quarter", "'2024-01-01'", "'2025-12-31'", 7),
            ("month", "'2024-01-31'", "'2024-02-01'", 1),
            ("month", "'2024-03-01'", "'2023-12-31'", -3),
            ("day", "'2024-01-01'", "'2025-01-01'", 366),
            ("day", "'2024-01-01 23:59:59'", "'2024-01-02 00:00:00'", 1),
            ("day", "'1969-12-31 12:00:00'", "'1970-01-01'", 1),
            ("dy", "'2024-01-02'", "'2024-01-01'", -1),
            // 2024-01-06 is a Saturday, 2024-01-07 a Sunday.
            ("week", "'2024-01-06'", "'2024-01-07'", 1),
            ("week", "'2024-01-07'", "'2024-01-13'", 0),
            ("wk", "'2024-01-01'", "'2024-03-01'", 8),
            ("week", "'1969-12-27'", "'1970-01-04'", 2),
            ("hour", "'2024-01-01 10:59:59'", "'2024-01-01 11:00:00'", 1),
            (
                "minute",
                "'2024-01-01 10:00:59'",
                "'2024-01-01 10:01:00'",
                1,
            ),
            (
                "second",
                "'2024-01-01 10:00:00.9'",
                "'2024-01-01 10:00:01.1'",
                1,
            ),
            ("hour", "'1969-12-31 23:30:00'", "'1970-01-01 00:10:00'", 1),
        ] {
            assert_eq!(
                number("DATEDIFF", &[part, start, end]),
                expected,
                "{part} {start} {end}"
            );
        }
        assert_eq!(
            number("DATEDIFF_BIG", &["day", "'2024-01-01'", "'2024-01-31'"]),
            30
        );
        let why = run("DATEDIFF", &["ms", "'2024-01-01'", "'2024-01-02'"]).expect_err("ms");
        assert!(why.contains("DATEDIFF(ms, ...)"), "{why}");
    }

    #[test]
    fn datepart_eomonth_and_format_give_sql_servers_fields() {
        for (part, expected) in [
            ("year", 2024),
            ("quarter", 3),
            ("month", 8),
            ("dayofyear", 223),
            ("day", 10),
            ("hour", 13),
            ("mi", 5),
            ("ss", 9),
            ("iso_week", 32),
        ] {
            assert_eq!(
                number("DATEPART", &[part, "'2024-08-10 13:05:09'"]),
                expected,
                "{part}"
            );
        }
        for part in ["weekday", "week"] {
            let why = run("DATEPART", &[part, "'2024-08-10'"]).expect_err(part);
            assert!(why.contains(&format!("DATEPART({part}, ...)")), "{why}");
        }
        assert_eq!(text("EOMONTH", &["'2024-02-10'"]), "2024-02-29");
        assert_eq!(text("EOMONTH", &["'2024-01-31'", "-2"]), "2023-11-30");
        assert_eq!(
            text(
                "FORMAT",
                &["'2024-08-10 13:05:09'", "'yyyy-MM-dd HH:mm:ss'"]
            ),
            "2024-08-10 13:05:09"
        );
        assert_eq!(text("FORMAT", &["'2024-08-10'", "N'yyyyMM'"]), "202408");
        assert_eq!(
            text("FORMAT", &["'2024-08-10'", "'dd/MM/yyyy'"]),
            "10/08/2024"
        );
        for pattern in ["'MMMM yyyy'", "'N2'", "'yy-MM'", "'d'", "'hh:mm tt'"] {
            let why = run("FORMAT", &["'2024-08-10'", pattern]).expect_err(pattern);
            assert!(why.contains("FORMAT() with the pattern"), "{why}");
        }
        let why = run("FORMAT", &["'2024-08-10'", "'yyyy'", "'de-DE'"]).expect_err("culture");
        assert!(why.contains("culture"), "{why}");
    }
}
