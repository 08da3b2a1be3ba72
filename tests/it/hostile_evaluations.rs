//! What `data-agent evaluate` writes and keeps, under hostile conditions (issue 26, "Say
//! exactly what happened, and lose nothing"): output files are not replaced without
//! `--force`, and the evaluation store is refused, naming the file, when others can read it,
//! when it is damaged or when it was emptied, instead of being used or recreated silently.

use crate::data_agent_evaluate::questions;
use crate::data_agent_query::{EXAMPLES, published};
use crate::data_agents::AgentFixture;
use crate::evaluations::evaluate;
use crate::support::Run;
use std::path::PathBuf;

fn store(fx: &AgentFixture) -> PathBuf {
    fx.server
        .home
        .dir
        .path()
        .join("data/fabsh/evaluations.sqlite3")
}

fn list(fx: &AgentFixture) -> Run {
    fx.server.fabsh(&[
        "data-agent",
        "evaluations",
        "list",
        "-w",
        &fx.workspace,
        "--id",
        &fx.agent,
    ])
}

#[test]
fn evaluate_refuses_to_replace_its_output_files_without_force() {
    let fx = published(module_path!(), EXAMPLES);
    let dir = tempfile::tempdir().expect("dir");
    let file = questions(&fx, &dir);
    let results = dir.path().join("results.csv");
    let junit = dir.path().join("results.xml");
    for (flag, path) in [("--output-file", &results), ("--junit", &junit)] {
        std::fs::write(path, "an earlier run's results\n").expect("write");
        let before = fx.server.request_count();
        let run = evaluate(
            &fx,
            &file,
            &[flag, path.to_str().expect("path"), "--no-save"],
        );
        assert_eq!(run.code, 2, "{flag}: {}", run.stderr);
        assert!(
            run.stderr.contains(flag)
                && run.stderr.contains(&path.display().to_string())
                && run.stderr.contains("--force"),
            "{flag}: the refusal names the flag, the file and --force: {}",
            run.stderr
        );
        assert_eq!(
            fx.server.request_count(),
            before,
            "{flag}: sent requests first"
        );
        assert_eq!(
            std::fs::read_to_string(path).expect("read"),
            "an earlier run's results\n",
            "{flag}: the file was replaced"
        );
    }
    let forced = evaluate(
        &fx,
        &file,
        &[
            "--output-file",
            results.to_str().expect("path"),
            "--junit",
            junit.to_str().expect("path"),
            "--force",
            "--no-save",
        ],
    );
    forced.ok_json();
    let csv = std::fs::read_to_string(&results).expect("read");
    assert!(csv.starts_with("question,"), "not replaced: {csv}");
    let xml = std::fs::read_to_string(&junit).expect("read");
    assert!(xml.contains("<testsuite"), "not replaced: {xml}");
}

#[cfg(unix)]
#[test]
fn an_evaluation_store_others_can_read_is_refused_as_local_serve_refuses_its_store() {
    use std::os::unix::fs::PermissionsExt;
    let fx = AgentFixture::new(module_path!());
    list(&fx).ok_json();
    let path = store(&fx);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    std::fs::set_permissions(
        path.parent().expect("folder"),
        std::fs::Permissions::from_mode(0o755),
    )
    .expect("chmod");
    let run = list(&fx);
    assert_eq!(run.code, 2, "{}\n{}", run.stderr, run.stdout);
    assert!(
        run.stderr.contains("refusing the evaluation store")
            && run.stderr.contains("lets other users read it")
            && run.stderr.contains("chmod -R go-rwx"),
        "{}",
        run.stderr
    );
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(
        dir.path().join("q.json"),
        r#"["How many orders are there?"]"#,
    )
    .expect("write");
    let run = evaluate(&fx, &dir.path().join("q.json"), &[]);
    assert_eq!(run.code, 2, "evaluate used the store: {}", run.stderr);
}

#[test]
fn a_damaged_evaluation_store_is_named_with_the_ways_around_it() {
    let fx = AgentFixture::new(module_path!());
    list(&fx).ok_json();
    let path = store(&fx);
    std::fs::write(&path, "this was never a database ".repeat(200)).expect("write");
    let run = list(&fx);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let shown = path.display().to_string();
    for needed in [shown.as_str(), "--no-save", "mv "] {
        assert!(
            run.stderr.contains(needed),
            "the error lacks {needed:?}: {}",
            run.stderr
        );
    }
}

#[test]
fn a_damaged_page_inside_the_evaluation_store_is_named_with_the_ways_around_it() {
    let fx = AgentFixture::new(module_path!());
    list(&fx).ok_json();
    let path = store(&fx);
    // The first page (header and schema) stays whole, so the store opens; every other page
    // (the tables and their indexes) is damaged, which shows only when a query reads one.
    let page_size: i64 = rusqlite::Connection::open(&path)
        .expect("open the store")
        .query_row("PRAGMA page_size", [], |row| row.get(0))
        .expect("page size");
    let page_size = page_size as usize;
    let mut bytes = std::fs::read(&path).expect("the store");
    assert!(
        bytes.len() > page_size,
        "the store has pages past the first"
    );
    bytes[page_size..].fill(0xA5);
    std::fs::write(&path, bytes).expect("damage");
    let run = list(&fx);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let shown = path.display().to_string();
    for needed in [shown.as_str(), "--no-save", "mv "] {
        assert!(
            run.stderr.contains(needed),
            "the error lacks {needed:?}: {}",
            run.stderr
        );
    }
}

#[test]
fn an_emptied_evaluation_store_is_refused_not_recreated() {
    let fx = AgentFixture::new(module_path!());
    list(&fx).ok_json();
    let path = store(&fx);
    std::fs::write(&path, "").expect("truncate");
    let run = list(&fx);
    assert_eq!(run.code, 1, "{}\n{}", run.stderr, run.stdout);
    assert!(
        run.stderr.contains(&path.display().to_string()) && run.stderr.contains("0 bytes"),
        "{}",
        run.stderr
    );
    assert_eq!(
        std::fs::metadata(&path).expect("store").len(),
        0,
        "the emptied store was recreated"
    );
}
