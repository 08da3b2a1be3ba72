//! Tables for people: compact (a header once, no rules between rows, one line per row),
//! identifiers never wrapped and cut only when the free text would be unreadable (GUIDs then
//! show 8 characters) at 80 columns while free text shrinks, `-o wide` whole,
//! help with real value names and pasteable examples. The ids and descriptions checked are
//! the server's, from List Items (`GET /v1/workspaces/{workspaceId}/items` in the Fabric REST
//! swagger) over raw HTTP, or text the test planted.

use crate::data_agent_query::{EXAMPLES, published};
use crate::support::{Server, http};
use serde_json::Value;

/// Demo's items as the server lists them.
fn demo_items(server: &Server) -> Vec<Value> {
    let auth = server.bearer();
    let headers = [("Authorization", auth.as_str())];
    let (_, body) = http(&server.origin(), "GET", "/v1/workspaces", None, &headers);
    let workspaces: Value = serde_json::from_str(&body).expect("JSON");
    let demo = workspaces["value"]
        .as_array()
        .expect("value")
        .iter()
        .find(|ws| ws["displayName"] == server.demo.as_str())
        .and_then(|ws| ws["id"].as_str())
        .expect(server.demo.as_str())
        .to_string();
    let path = format!("/v1/workspaces/{demo}/items");
    let (_, body) = http(&server.origin(), "GET", &path, None, &headers);
    let items: Value = serde_json::from_str(&body).expect("JSON");
    items["value"].as_array().expect("value").clone()
}

/// A server whose Demo has a dozen more notebooks with long descriptions.
fn crowded() -> Server {
    let server = Server::session(module_path!());
    for n in 1..=12 {
        let name = format!("Notebook number {n}");
        let description = format!(
            "Notebook {n} of a bulk run, with a description long enough to need cutting at 80 columns"
        );
        let made = server.fabsh(&[
            "item",
            "create",
            server.demo.as_str(),
            "--name",
            &name,
            "--type",
            "Notebook",
            "--description",
            &description,
        ]);
        assert_eq!(made.code, 0, "{}", made.stderr);
    }
    server
}

#[test]
fn a_table_at_80_columns_is_compact_puts_the_id_last_and_keeps_every_guid_whole() {
    let server = crowded();
    let items = demo_items(&server);
    let run = server.fabsh_env(
        &["item", "list", server.demo.as_str(), "-o", "table"],
        &[("COLUMNS", "80")],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines.len(),
        items.len() + 1,
        "a header and one line per item:\n{}",
        run.stdout
    );
    // Narrow tables put the id last, so names and types come first and stay readable.
    assert!(lines[0].trim_end().ends_with("id"), "{}", lines[0]);
    assert!(!lines[0].starts_with("id"), "{}", lines[0]);
    for line in &lines {
        assert!(line.chars().count() <= 80, "{line:?} is wider than 80");
        assert!(
            !line.chars().all(|c| "─═-+| ".contains(c)),
            "a rule line: {line:?}"
        );
    }
    for item in &items {
        let id = item["id"].as_str().expect("id");
        let row = lines
            .iter()
            .find(|line| line.trim_end().ends_with(id))
            .unwrap_or_else(|| panic!("{id} whole at a line's end:\n{}", run.stdout));
        let kind = item["type"].as_str().expect("type");
        assert!(row.contains(kind), "{kind} whole in {row:?}");
        // Names of up to 15 characters (the seed's SalesLakehouse, Sales Model) fit: the
        // description shrinks first.
        let name = item["displayName"].as_str().expect("name");
        if name.chars().count() <= 15 {
            assert!(row.contains(name), "{name} whole in {row:?}");
        }
    }
    assert!(run.stdout.contains('…'), "long descriptions are cut with …");
}

#[test]
fn wide_shows_every_column_whole() {
    let server = crowded();
    let run = server.fabsh_env(
        &["item", "list", server.demo.as_str(), "-o", "wide"],
        &[("COLUMNS", "80")],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    for item in demo_items(&server) {
        for key in ["id", "displayName", "description"] {
            let text = item[key].as_str().unwrap_or_default();
            assert!(
                run.stdout.contains(text),
                "{text:?} whole in:\n{}",
                run.stdout
            );
        }
    }
    assert!(!run.stdout.contains('…'));
}

#[test]
fn validate_fewshots_shows_the_questions_of_an_issue() {
    let planted = "How many orders are there";
    let mut examples = EXAMPLES.to_vec();
    examples.push((planted, "SELECT COUNT(*) FROM dbo.orders"));
    let fx = published(module_path!(), &examples);
    let run = fx.server.fabsh_env(
        &[
            "data-agent",
            "validate-fewshots",
            format!("{}/Sales agent", fx.server.demo).as_str(),
            "--datasource",
            "SalesLakehouse",
            "--stage",
            "published",
            "-o",
            "wide",
        ],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let header = run.stdout.lines().next().expect("header");
    for column in ["severity", "type", "questions", "suggestion"] {
        assert!(header.contains(column), "{column} in {header:?}");
    }
    assert!(run.stdout.contains(planted), "{}", run.stdout);
}

#[test]
fn help_names_values_and_examples_paste_as_one_command() {
    let server = Server::session(module_path!());
    let evaluate = server.fabsh(&["data-agent", "evaluate", "--help"]);
    assert_eq!(evaluate.code, 0, "{}", evaluate.stderr);
    for name in [
        "--min-pass-rate <RATE>",
        "--output-file <FILE>",
        "--questions <FILE>",
    ] {
        assert!(
            evaluate.stdout.contains(name),
            "{name} in:\n{}",
            evaluate.stdout
        );
    }
    let definition = server.fabsh(&["item", "get-definition", "--help"]);
    assert!(
        definition.stdout.contains("--dir <DIR>"),
        "{}",
        definition.stdout
    );
    assert!(
        definition.stdout.contains("[WORKSPACE/ITEM]"),
        "{}",
        definition.stdout
    );
    for help in [&evaluate.stdout, &definition.stdout] {
        assert!(!help.contains("Traits:"), "traits in words:\n{help}");
        // After "Examples:", each example is a `# what` line, then its command, every line
        // of which but the last ends with a backslash.
        let examples = help.split("Examples:").nth(1).expect("examples");
        let mut lines = examples
            .lines()
            .filter(|line| !line.trim().is_empty())
            .peekable();
        while let Some(about) = lines.next() {
            assert!(about.trim_start().starts_with("# "), "{about:?}");
            let mut command = Vec::new();
            while let Some(line) = lines.next_if(|line| !line.trim_start().starts_with("# ")) {
                command.push(line);
            }
            assert!(command[0].trim_start().starts_with("fabsh "), "{command:?}");
            for line in &command[..command.len() - 1] {
                assert!(line.ends_with(" \\"), "{line:?} does not continue");
            }
            assert!(!command[command.len() - 1].ends_with('\\'));
        }
    }
}

#[test]
fn no_color_applies_to_usage_errors() {
    let server = Server::session(module_path!());
    let run = server.fabsh_env(
        &["--no-color", "item", "show", "--bogus"],
        &[("CLICOLOR_FORCE", "1")],
    );
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--bogus"), "{}", run.stderr);
    assert!(!run.stderr.contains('\u{1b}'), "{:?}", run.stderr);
}

#[test]
fn evaluate_shows_what_the_agent_answered_on_a_failed_question() {
    let fx = published(module_path!(), EXAMPLES);
    let question = "How many customers are there?";
    let answered = fx.ok("query", &["--prompt", question]);
    let answer = answered["answer"].as_str().expect("answer");
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("questions.json");
    // An expectation no answer meets, so the question fails.
    let text = format!(r#"[{{"question": "{question}", "expected": "no such number 0.123"}}]"#);
    std::fs::write(&file, text).expect("write");
    let run = fx.run(
        "evaluate",
        &["--questions", &file.to_string_lossy(), "-o", "wide"],
    );
    let header = run.stdout.lines().next().expect("header");
    assert!(header.contains("failedAnswer"), "{header:?}");
    let row = run
        .stdout
        .lines()
        .find(|line| line.starts_with(question))
        .unwrap_or_else(|| panic!("{question} in:\n{}", run.stdout));
    let first_line = answer.lines().next().expect("a line");
    assert!(row.contains(first_line.trim()), "{first_line:?} in {row:?}");
}

#[test]
fn a_cut_cell_keeps_as_much_of_its_text_as_fits() {
    let server = Server::session(module_path!());
    let name = "Quarterly revenue reconciliation notebook";
    let made = server.fabsh(&[
        "item",
        "create",
        server.demo.as_str(),
        "--name",
        name,
        "--type",
        "Notebook",
        "-q",
        "id",
    ]);
    let id = made.ok_json().as_str().expect("id").to_string();
    let run = server.fabsh_env(
        &["item", "list", server.demo.as_str(), "-o", "table"],
        &[("COLUMNS", "80")],
    );
    let row = run
        .stdout
        .lines()
        .find(|line| line.trim_end().ends_with(&id))
        .unwrap_or_else(|| panic!("{id} in\n{}", run.stdout));
    // The seed's longest name (SalesLakehouse) fits whole, so the column is at least that
    // wide: the name is cut there, mid-word, not back at the last space ("Quarterly…").
    let shown = (14..name.len())
        .rev()
        .map(|keep| format!("{}…", &name[..keep]))
        .find(|cut| row.contains(cut.as_str()));
    assert!(shown.is_some(), "the name cut short: {row:?}");
}

#[test]
fn a_failed_answer_belongs_to_its_own_question_when_two_share_a_text() {
    let fx = published(module_path!(), EXAMPLES);
    let question = "How many customers are there?";
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("questions.json");
    // The demo dataset has 240 customers: the first expectation holds, the second cannot.
    let text = format!(
        r#"[{{"question": "{question}", "expected": "240"}},
            {{"question": "{question}", "expected": "no such number 0.123"}}]"#
    );
    std::fs::write(&file, text).expect("write");
    let run = fx.run(
        "evaluate",
        &["--questions", &file.to_string_lossy(), "-o", "json"],
    );
    let out: Value = serde_json::from_str(&run.stdout).expect("json");
    let questions = out["questions"].as_array().expect("questions");
    assert_eq!(questions[0]["passed"], 1, "{out}");
    assert!(questions[0].get("failedAnswer").is_none(), "{out}");
    let failed = questions[1]["failedAnswer"].as_str().expect("failedAnswer");
    assert!(failed.contains("240"), "{failed:?}");
}

#[test]
fn a_table_too_narrow_for_its_text_shows_short_guids_and_wide_shows_them_whole() {
    // A job list has five free-text columns beside the run's id: at 80 columns, ids whole
    // would leave each about six characters ("Comp…"), so the id gives way instead.
    let server = crate::support::shared(module_path!());
    let run = server.fabsh(&["job", "run", "Demo/Welcome", "--no-wait", "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let id = run.json()["id"].as_str().expect("run id").to_string();
    let listed = server.fabsh_env(
        &["job", "list", "Demo/Welcome", "-o", "table"],
        &[("COLUMNS", "80")],
    );
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    let row = listed
        .stdout
        .lines()
        .find(|line| line.contains(&id[..8]))
        .unwrap_or_else(|| panic!("the run in:\n{}", listed.stdout));
    assert!(row.chars().count() <= 80, "{row:?} is wider than 80");
    assert!(
        row.trim_end().ends_with(&format!("{}…", &id[..8])),
        "{row:?}"
    );
    assert!(!listed.stdout.contains(&id), "{}", listed.stdout);
    assert!(row.starts_with("RunNotebook "), "{row:?}");
    let status = ["NotStarted", "InProgress", "Completed"]
        .iter()
        .any(|status| row.contains(&format!(" {status} ")));
    assert!(status, "a whole status in {row:?}");
    let wide = server.fabsh_env(
        &["job", "list", "Demo/Welcome", "-o", "wide"],
        &[("COLUMNS", "80")],
    );
    assert!(wide.stdout.contains(&id), "{}", wide.stdout);
    // The id as the table shows it, `…` and all, names the run.
    let short = row.split_whitespace().last().expect("the id cell");
    let shown = server
        .fabsh(&["job", "show", "Demo/Welcome", "--instance", short])
        .ok_json();
    assert_eq!(shown["id"], id.as_str(), "{shown}");
    // A beginning no run has is not found; one that cannot begin a GUID is refused first.
    let unknown = if id.starts_with('0') {
        "ffffffff"
    } else {
        "00000000"
    };
    let none = server.fabsh(&["job", "show", "Demo/Welcome", "--instance", unknown]);
    assert_eq!(none.code, 4, "{}", none.stderr);
    assert!(none.stderr.contains("job list"), "{}", none.stderr);
    let bad = server.fabsh(&["job", "show", "Demo/Welcome", "--instance", "42f8"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(
        bad.stderr.contains("--instance must be a GUID"),
        "{}",
        bad.stderr
    );
}
