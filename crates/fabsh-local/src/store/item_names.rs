//! The file's own guard on item names: unique per type among a workspace's live items, except
//! for the types whose names the service lets repeat
//! ([`fabsh_model::item_types::names_unique`]).

/// Migration step: the unique index leaves out the types whose names repeat (a partial index
/// names them as constants: the test below holds it to the model's table), and a plain index
/// keeps lookups by name fast for every type, since a query naming its type by a parameter
/// cannot use the partial one.
pub(crate) const MIGRATION: &str = r"
DROP INDEX IF EXISTS items_live_name;
CREATE UNIQUE INDEX items_live_unique_name
    ON items(workspace_id, type, display_name COLLATE NOCASE)
    WHERE deleted_at IS NULL
      AND type NOT IN ('DigitalTwinBuilder', 'Eventhouse', 'SemanticModel');
CREATE INDEX items_live_name
    ON items(workspace_id, type, display_name COLLATE NOCASE) WHERE deleted_at IS NULL;
";

#[cfg(test)]
mod tests {
    use super::MIGRATION;
    use fabsh_model::item_types::{ITEM_TYPES, names_unique};

    #[test]
    fn the_index_leaves_out_exactly_the_types_whose_names_repeat() {
        let left_out = MIGRATION
            .split_once("NOT IN (")
            .and_then(|(_, rest)| rest.split_once(')'))
            .map(|(list, _)| list)
            .expect("the list of types left out");
        for item_type in ITEM_TYPES {
            let named = left_out.contains(&format!("'{}'", item_type.name));
            assert_eq!(named, !names_unique(item_type.name), "{}", item_type.name);
        }
        assert_eq!(
            left_out.matches('\'').count() / 2,
            ITEM_TYPES.iter().filter(|t| !names_unique(t.name)).count()
        );
    }
}
