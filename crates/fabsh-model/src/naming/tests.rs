use super::*;

fn refused(rules: &NameRules, name: &str) -> String {
    rules
        .problem(name)
        .unwrap_or_else(|| panic!("{} name {name:?} was taken", rules.of))
}

fn taken(rules: &NameRules, name: &str) {
    assert_eq!(rules.problem(name), None, "{} name {name:?}", rules.of);
}

#[test]
fn workspace_names_are_bounded_and_one_is_reserved() {
    taken(&WORKSPACE, "Sales / EMEA: 2026 (draft)");
    taken(&WORKSPACE, &"w".repeat(256));
    assert!(refused(&WORKSPACE, &"w".repeat(257)).contains("at most 256"));
    assert!(refused(&WORKSPACE, "admin MONITORING").contains("reserved"));
    taken(&WORKSPACE, "Admin monitoring 2");
}

#[test]
fn folder_names_follow_learns_requirements() {
    taken(&FOLDER, "Q3 reports");
    taken(&FOLDER, &"f".repeat(255));
    assert!(refused(&FOLDER, &"f".repeat(256)).contains("at most 255"));
    for bad in [
        "a/b", "a\\b", "..", "v1.2", "a~b", "#1", "a&b", "{x}", "a|b", "\"q\"",
    ] {
        assert!(refused(&FOLDER, bad).contains("may not hold"), "{bad}");
    }
    for control in ["nul\u{0}here", "two\nlines", "tab\there", "c1\u{85}"] {
        assert!(
            refused(&FOLDER, control).contains("control characters"),
            "{control:?}"
        );
    }
    assert!(refused(&FOLDER, " lead").contains("space"));
    assert!(refused(&FOLDER, "trail ").contains("space"));
    assert!(refused(&FOLDER, "Recycler").contains("reserved"));
    taken(&FOLDER, "recycled items");
}

#[test]
fn a_lakehouse_name_is_a_letter_then_letters_digits_and_underscores() {
    let lakehouse = item("lakehouse");
    // The swagger's example names.
    taken(lakehouse, "Lakehouse_1");
    taken(lakehouse, &format!("L{}", "x".repeat(122)));
    assert!(refused(lakehouse, &"L".repeat(124)).contains("at most 123"));
    let dash = refused(lakehouse, "lh-demo");
    assert!(
        dash.contains("letters (A-Z, a-z), digits and '_'") && dash.contains("'-'"),
        "{dash}"
    );
    assert!(refused(lakehouse, "Two words").contains("' '"));
    assert!(refused(lakehouse, "Straße").contains("'ß'"));
    assert!(refused(lakehouse, "_first").contains("begin with a letter"));
    assert!(refused(lakehouse, "1st").contains("begin with a letter"));
    assert!(refused(lakehouse, "a/b").contains("'/'"));
    assert!(refused(lakehouse, "nul\u{0}").contains("U+0000"));
}

#[test]
fn eventhouse_and_kql_database_names_allow_dots_and_hyphens() {
    for item_type in ["Eventhouse", "KQLDatabase"] {
        let rules = item(item_type);
        taken(rules, "Telemetry-2026.v1_raw");
        taken(rules, "Données");
        for bad in ["with space", "a/b", "a:b", "two\nlines"] {
            assert!(
                refused(rules, bad).contains("not allowed"),
                "{item_type} {bad:?}"
            );
        }
    }
}

#[test]
fn app_backend_names_follow_the_swagger() {
    let rules = item("AppBackend");
    taken(rules, "Orders backend v2");
    assert!(refused(rules, &"a".repeat(92)).contains("at most 91"));
    for c in "<>*%&:\\/?#![]=@^\"';()`".chars() {
        assert!(
            refused(rules, &format!("a{c}b")).contains("may not hold"),
            "{c}"
        );
    }
    assert!(refused(rules, "ends.").contains("end with '.'"));
    assert!(refused(rules, "ends ").contains("end with ' '"));
    assert!(refused(rules, "TempDB").contains("reserved"));
}

#[test]
fn sql_database_names_refuse_sql_servers_characters() {
    let rules = item("SQLDatabase");
    taken(rules, "Hello db");
    taken(rules, "orders-2026.v1");
    for c in "![]<>*%&:/?#=@^\"';()".chars() {
        assert!(
            refused(rules, &format!("a{c}b")).contains("may not hold"),
            "{c}"
        );
    }
}

#[test]
fn digital_twin_builder_and_ontology_names_are_words_under_100() {
    for item_type in ["DigitalTwinBuilder", "Ontology"] {
        let rules = item(item_type);
        taken(rules, "Ontology_Sample");
        taken(rules, &format!("a{}", "b".repeat(98)));
        assert!(refused(rules, &"a".repeat(100)).contains("at most 99"));
        assert!(refused(rules, "two words").contains("' '"));
        assert!(refused(rules, "9lives").contains("begin with a letter"));
    }
}

#[test]
fn other_types_take_any_name_the_swagger_does_not_refuse() {
    // The git layout encodes what a directory name cannot hold, so these exist (Learn).
    for name in [
        "a/b",
        "..",
        " padded ",
        "two\nlines",
        "Warehouse 1",
        "v1..2 (draft)",
    ] {
        taken(item("Notebook"), name);
        taken(item("SomeNewType"), name);
    }
    assert!(refused(item("Notebook"), &"n".repeat(257)).contains("at most 256"));
}

#[test]
fn every_documented_type_is_a_known_type_once() {
    let mut seen = std::collections::BTreeSet::new();
    for rules in ITEM_TYPES {
        let known = crate::item_types::find(rules.of).expect("a known type");
        assert_eq!(known.name, rules.of, "the table's spelling");
        assert!(seen.insert(rules.of), "{} twice", rules.of);
    }
}

#[test]
fn a_name_that_fits_every_type_needs_no_type() {
    assert!(fits_every_item_type("Sales_2026"));
    assert!(!fits_every_item_type("Sales 2026"), "not a Lakehouse name");
    assert!(!fits_every_item_type("Sales-2026"), "not a Lakehouse name");
    assert!(!fits_every_item_type(&"a".repeat(300)));
}
