//! Grading an answer against a reference query's result set (`expected_sql`) without a model.
//! The shape of the result picks the rule, which names itself in the grade:
//!
//! - `result_value`: one cell. A number must be in the answer within the tolerance (thousands
//!   separators ignored; a share like 0.125 may be written 12.5%); text must be in it.
//! - `result_list`: one column of several rows. Every value must be in the answer; when the
//!   query orders its rows (ORDER BY), in that order.
//! - `result_table`: several columns. Every value must be in the answer, in any order; a table
//!   of more than [`MAX_TABLE_CELLS`] cells is too large to read back from prose: unclear.
//!
//! NULL cells are not asked for. An empty answer is `no_answer`; a result with nothing in it
//! is not graded here (the evaluation makes such a question an error).

use super::grade::{Grade, Verdict};
use super::similarity::normalize;
use crate::sql::ResultSet;
use serde_json::Value;

/// The most cells a table answer is checked for.
pub const MAX_TABLE_CELLS: usize = 200;

/// One word of the normalised answer, with its number if it is one.
struct Word {
    text: String,
    number: Option<f64>,
}

fn words_of(answer: &str) -> Vec<Word> {
    normalize(answer)
        .split(' ')
        .filter(|word| !word.is_empty())
        .map(|word| {
            let digits: String = word.chars().filter(|c| *c != ',').collect();
            let number = digits
                .parse::<f64>()
                .ok()
                .filter(|n| n.is_finite() && word.starts_with(|c: char| c.is_ascii_digit()));
            Word {
                text: word.to_string(),
                number,
            }
        })
        .collect()
}

fn close(a: f64, b: f64, tolerance: f64) -> bool {
    (a - b).abs() <= tolerance * a.abs().max(b.abs()).max(1.0)
}

/// A cell's number, if it is one (a number, or text that reads as one).
fn cell_number(cell: &Value) -> Option<f64> {
    match cell {
        Value::Number(n) => n.as_f64(),
        Value::String(text) => text.trim().replace(',', "").parse::<f64>().ok(),
        _ => None,
    }
}

fn cell_text(cell: &Value) -> String {
    match cell {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// Where in `words` the cell is said (the index of its first word), if it is. A negative
/// number is found by its magnitude (normalising drops the sign).
fn find(words: &[Word], cell: &Value, tolerance: f64) -> Option<usize> {
    if let Some(want) = cell_number(cell) {
        let magnitude = want.abs();
        let as_percent = (magnitude <= 1.0).then_some(magnitude * 100.0);
        return words.iter().position(|word| {
            word.number.is_some_and(|got| {
                close(magnitude, got, tolerance)
                    || as_percent.is_some_and(|percent| close(percent, got, tolerance))
            })
        });
    }
    let wanted: Vec<String> = normalize(&cell_text(cell))
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(String::from)
        .collect();
    if wanted.is_empty() {
        return None;
    }
    (0..words.len().saturating_sub(wanted.len() - 1)).find(|&at| {
        wanted
            .iter()
            .enumerate()
            .all(|(offset, want)| words[at + offset].text == *want)
    })
}

/// Grades `answer` against `result` (the reference query's rows; `ordered` when its query has
/// ORDER BY), numbers equal within `tolerance` (relative).
pub fn grade_result(result: &ResultSet, ordered: bool, answer: &str, tolerance: f64) -> Grade {
    let grade = |verdict, rule: &str, rationale: String| Grade {
        verdict,
        rule: rule.to_string(),
        rationale,
    };
    if answer.trim().is_empty() {
        return grade(Verdict::No, "no_answer", "the answer is empty".into());
    }
    let words = words_of(answer);
    let single_column = result.columns.len() <= 1 || result.rows.iter().all(|r| r.len() <= 1);
    let cells: Vec<&Value> = result
        .rows
        .iter()
        .flatten()
        .filter(|cell| !cell.is_null())
        .collect();
    let (rule, ordered) = match (cells.len(), single_column) {
        (0, _) => {
            return grade(
                Verdict::Unclear,
                "no_expected",
                "the reference query returned nothing to compare with".into(),
            );
        }
        (1, _) => ("result_value", false),
        (_, true) => ("result_list", ordered),
        (n, false) if n > MAX_TABLE_CELLS => {
            return grade(
                Verdict::Unclear,
                "result_table",
                format!(
                    "the reference result has {n} values, more than the {MAX_TABLE_CELLS} an answer is checked for"
                ),
            );
        }
        _ => ("result_table", false),
    };
    let mut missing = Vec::new();
    let mut positions = Vec::new();
    for cell in &cells {
        match find(&words, cell, tolerance) {
            Some(at) => positions.push(at),
            None => missing.push(cell_text(cell)),
        }
    }
    if !missing.is_empty() {
        let shown: Vec<String> = missing.iter().take(5).cloned().collect();
        let more = missing.len().saturating_sub(shown.len());
        let tail = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        return grade(
            Verdict::No,
            rule,
            format!("the answer lacks {}{tail}", shown.join(", ")),
        );
    }
    if ordered && positions.windows(2).any(|pair| pair[0] > pair[1]) {
        return grade(
            Verdict::No,
            rule,
            "the answer has every value but not in the order the query sorts them".into(),
        );
    }
    let rationale = match rule {
        "result_value" => "the answer gives the reference value",
        "result_list" if ordered => "the answer gives every value of the reference list, in order",
        "result_list" => "the answer gives every value of the reference list",
        _ => "the answer gives every value of the reference table",
    };
    grade(Verdict::Yes, rule, rationale.into())
}

/// The result set as text for a judge or a report: a single value as it is, else one line
/// per row with its cells separated by ` | `, the header first.
pub fn result_text(result: &ResultSet) -> String {
    if let [row] = result.rows.as_slice()
        && let [cell] = row.as_slice()
    {
        return cell_text(cell);
    }
    let mut lines = vec![result.columns.join(" | ")];
    lines.extend(result.rows.iter().map(|row| {
        row.iter()
            .map(|cell| match cell {
                Value::Null => "NULL".to_string(),
                other => cell_text(other),
            })
            .collect::<Vec<_>>()
            .join(" | ")
    }));
    if result.truncated {
        lines.push("(more rows not shown)".into());
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn set(columns: &[&str], rows: Vec<Vec<Value>>) -> ResultSet {
        ResultSet {
            columns: columns
                .iter()
                .map(std::string::ToString::to_string)
                .collect(),
            rows,
            truncated: false,
            rows_affected: None,
        }
    }

    #[test]
    fn single_values_allow_separators_rounding_and_percentages() {
        let total = set(&["total"], vec![vec![json!(46117.3)]]);
        let yes = grade_result(&total, false, "Revenue was 46,117 EUR.", 0.005);
        assert_eq!(
            (yes.verdict, yes.rule.as_str()),
            (Verdict::Yes, "result_value")
        );
        assert_eq!(
            grade_result(&total, false, "About 47,500.", 0.005).verdict,
            Verdict::No
        );
        let share = set(&["share"], vec![vec![json!(0.125)]]);
        assert_eq!(
            grade_result(&share, false, "12.5% of orders", 0.005).verdict,
            Verdict::Yes
        );
        let name = set(&["country"], vec![vec![json!("United Kingdom")]]);
        assert_eq!(
            grade_result(&name, false, "It is the united kingdom.", 0.005).verdict,
            Verdict::Yes
        );
    }

    #[test]
    fn lists_keep_their_order_only_when_sorted() {
        let list = set(&["c"], vec![vec![json!("Spain")], vec![json!("France")]]);
        assert_eq!(
            grade_result(&list, false, "France and Spain", 0.0).verdict,
            Verdict::Yes
        );
        let sorted = grade_result(&list, true, "France and Spain", 0.0);
        assert_eq!(
            (sorted.verdict, sorted.rule.as_str()),
            (Verdict::No, "result_list")
        );
        assert_eq!(
            grade_result(&list, true, "Spain, then France", 0.0).verdict,
            Verdict::Yes
        );
        assert_eq!(
            grade_result(&list, false, "Spain only", 0.0).verdict,
            Verdict::No
        );
    }

    #[test]
    fn tables_need_every_value() {
        let table = set(
            &["country", "orders"],
            vec![
                vec![json!("Spain"), json!(1200)],
                vec![json!("France"), json!(950)],
            ],
        );
        let yes = grade_result(
            &table,
            false,
            "France: 950 orders; Spain: 1,200 orders",
            0.0,
        );
        assert_eq!(
            (yes.verdict, yes.rule.as_str()),
            (Verdict::Yes, "result_table")
        );
        assert_eq!(
            grade_result(&table, false, "France: 950; Spain: 1,300", 0.0).verdict,
            Verdict::No
        );
        assert_eq!(
            result_text(&table),
            "country | orders\nSpain | 1200\nFrance | 950"
        );
    }
}
