//! The walk over a parsed statement that makes it SQLite's: every rewrite of [`super`] in
//! the order the tree asks for them.

use super::names::Known;
use crate::tables::TableInfo;
use sqlparser::ast::{
    Expr, Ident, LimitClause, ObjectName, ObjectNamePart, Query, SetExpr, Statement, TableFactor,
    TopQuantity, Value, ValueWithSpan, VisitMut, VisitorMut,
};
use std::ops::ControlFlow;

/// The one statement in `statements` rewritten for SQLite, over the item's `tables` (the
/// objects it may name, and the rows of `INFORMATION_SCHEMA`), or why it is not run.
pub(crate) fn rewritten(
    mut statements: Vec<Statement>,
    tables: &[TableInfo],
) -> Result<String, String> {
    let mut walk = ForSqlite {
        schema: tables,
        known: Known::new(tables),
    };
    if let ControlFlow::Break(why) = statements.visit(&mut walk) {
        return Err(why);
    }
    match statements.first() {
        Some(statement) => Ok(statement.to_string()),
        None => Err("the statement is empty".to_string()),
    }
}

/// The rewrites SQLite needs.
struct ForSqlite<'a> {
    /// The item's tables, for `INFORMATION_SCHEMA`.
    schema: &'a [TableInfo],
    /// The objects the statement may name.
    known: Known<'a>,
}

impl VisitorMut for ForSqlite<'_> {
    type Break = String;

    fn pre_visit_statement(&mut self, statement: &mut Statement) -> ControlFlow<String> {
        // The table a CREATE TABLE makes is named before it exists.
        if let Statement::CreateTable(create) = statement
            && let Some(name) = create.name.0.last().and_then(|part| part.as_ident())
        {
            self.known.define(&name.value);
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &mut TableFactor) -> ControlFlow<String> {
        match super::table_factor(factor, self.schema) {
            Err(why) => ControlFlow::Break(why),
            Ok(None) => ControlFlow::Continue(()),
            Ok(Some(view)) => {
                let alias = match factor {
                    TableFactor::Table { alias, .. } => alias.take(),
                    _ => None,
                };
                *factor = TableFactor::Derived {
                    lateral: false,
                    subquery: Box::new(view),
                    alias,
                    sample: None,
                };
                ControlFlow::Continue(())
            }
        }
    }

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<String> {
        // A query's CTEs are named before its body, and before their own bodies (a
        // recursive one reads itself), all of which are visited after this.
        if let Some(with) = &query.with {
            for cte in &with.cte_tables {
                self.known.define(&cte.alias.name.value);
            }
        }
        match super::check_query(query) {
            Ok(()) => ControlFlow::Continue(()),
            Err(why) => ControlFlow::Break(why),
        }
    }

    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<String> {
        match super::translate_call(expr) {
            Ok(()) => ControlFlow::Continue(()),
            Err(why) => ControlFlow::Break(why),
        }
    }

    fn pre_visit_relation(&mut self, relation: &mut ObjectName) -> ControlFlow<String> {
        if let Err(why) = self.known.check(relation) {
            return ControlFlow::Break(why);
        }
        // SQLite has one schema; `dbo.orders` and `[lakehouse].[dbo].[orders]` mean `orders`.
        if relation.0.len() > 1 {
            relation.0.drain(..relation.0.len() - 1);
        }
        // Quoted, so that a table named like one of SQLite's keywords (`limit`, `order`) is
        // read as the name it is.
        if let Some(ObjectNamePart::Identifier(ident)) = relation.0.last_mut()
            && ident.quote_style.is_none()
        {
            ident.quote_style = Some('"');
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_ident(&mut self, ident: &mut Ident) -> ControlFlow<String> {
        // sqlparser prints `[a]]b]` (the name `a]b`) back as `[a]b]`, which SQLite reads as
        // `[a]` then `b]`. A double-quoted identifier is printed with its quotes doubled.
        if ident.quote_style == Some('[') {
            ident.quote_style = Some('"');
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_value(&mut self, value: &mut ValueWithSpan) -> ControlFlow<String> {
        // `N'text'` is T-SQL's Unicode string; every SQLite string is one.
        if let Value::NationalStringLiteral(text) = &mut value.value {
            value.value = Value::SingleQuotedString(std::mem::take(text));
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<String> {
        if let Expr::CompoundIdentifier(parts) = expr
            && parts.len() > 2
        {
            let keep: Vec<Ident> = parts[parts.len() - 2..].to_vec();
            *parts = keep;
        }
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, query: &mut Query) -> ControlFlow<String> {
        if let SetExpr::Select(select) = query.body.as_mut()
            && let Some(top) = select.top.take()
        {
            let limit = match top.quantity {
                Some(TopQuantity::Constant(n)) => {
                    Some(Expr::value(Value::Number(n.to_string(), false)))
                }
                Some(TopQuantity::Expr(expr)) => Some(expr),
                None => None,
            };
            if query.limit_clause.is_none() {
                query.limit_clause = Some(LimitClause::LimitOffset {
                    limit,
                    offset: None,
                    limit_by: Vec::new(),
                });
            }
        }
        ControlFlow::Continue(())
    }
}
