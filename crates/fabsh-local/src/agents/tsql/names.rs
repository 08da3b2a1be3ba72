//! Names as SQL Server reports them. A table or view the item does not have is refused before
//! SQLite sees the query, in SQL Server's words and with the name as the user wrote it
//! (`Invalid object name 'dbo.order'.`), not as SQLite's complaint about the translation; and
//! SQLite's own "no such table" and "no such column" are put in the same words.

use super::untranslatable;
use crate::tables::TableInfo;
use sqlparser::ast::ObjectName;
use std::collections::HashSet;

/// The objects a statement may name: the item's tables and views, and the names the
/// statement itself defines (its common table expressions, the table it creates).
pub(super) struct Known<'a> {
    tables: &'a [TableInfo],
    /// Defined by the statement, lower case. A CTE's name is known to the whole statement,
    /// not only within its scope: a name used outside it then reaches SQLite, whose error is
    /// put in SQL Server's words all the same ([`in_t_sql_words`]).
    defined: HashSet<String>,
}

impl<'a> Known<'a> {
    /// The item's `tables`, before the statement defines any.
    pub(super) fn new(tables: &'a [TableInfo]) -> Known<'a> {
        Known {
            tables,
            defined: HashSet::new(),
        }
    }

    /// `name` is defined by the statement.
    pub(super) fn define(&mut self, name: &str) {
        self.defined.insert(name.to_ascii_lowercase());
    }

    /// Refuses a relation that is none of the known objects. SQLite's own objects (its
    /// schema table, the `pragma_` functions) are left to the authorizer, which refuses them
    /// as beyond the item's tables; the catalog views of `sys` are named as untranslatable.
    pub(super) fn check(&self, relation: &ObjectName) -> Result<(), String> {
        let parts: Vec<&str> = relation
            .0
            .iter()
            .filter_map(|part| part.as_ident().map(|ident| ident.value.as_str()))
            .collect();
        let Some((name, qualifiers)) = parts.split_last() else {
            return Ok(());
        };
        let lower = name.to_ascii_lowercase();
        if lower.starts_with("sqlite_") || lower.starts_with("pragma_") {
            return Ok(());
        }
        if qualifiers
            .last()
            .is_some_and(|schema| schema.eq_ignore_ascii_case("sys"))
        {
            return Err(untranslatable(&format!("the catalog view sys.{name}")));
        }
        // Compared as SQLite compares names (ASCII case aside), as the authorizer does.
        let known = self.defined.contains(&lower)
            || self
                .tables
                .iter()
                .any(|table| table.name.eq_ignore_ascii_case(name));
        if known {
            Ok(())
        } else {
            Err(invalid_object(&parts.join(".")))
        }
    }
}

/// SQL Server's message for a table or view that is not there.
fn invalid_object(name: &str) -> String {
    format!("Invalid object name '{name}'.")
}

/// A SQLite error in SQL Server's words, when it is one they have.
pub(crate) fn in_t_sql_words(err: &rusqlite::Error) -> Option<String> {
    match err {
        rusqlite::Error::SqliteFailure(_, Some(message))
        | rusqlite::Error::SqlInputError { msg: message, .. } => message_in_t_sql_words(message),
        _ => None,
    }
}

/// SQLite's error `message` (without the SQL it quotes) in SQL Server's words.
fn message_in_t_sql_words(message: &str) -> Option<String> {
    if let Some(name) = message.strip_prefix("no such table: ") {
        return Some(invalid_object(name.strip_prefix("main.").unwrap_or(name)));
    }
    let column = message.strip_prefix("no such column: ")?;
    // SQL Server names the column alone, without the table or alias it was asked of.
    let column = column.rsplit('.').next().unwrap_or(column);
    Some(format!("Invalid column name '{column}'."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlites_errors_are_put_in_sql_servers_words() {
        assert_eq!(
            message_in_t_sql_words("no such table: main.order").as_deref(),
            Some("Invalid object name 'order'.")
        );
        assert_eq!(
            message_in_t_sql_words("no such column: o.amount_eur").as_deref(),
            Some("Invalid column name 'amount_eur'.")
        );
        assert_eq!(message_in_t_sql_words("near \"x\": syntax error"), None);
    }
}
