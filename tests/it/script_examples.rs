//! Every script in `scripts/` runs cleanly against local Fabric.

use crate::support::Server;
use std::path::Path;

#[test]
fn every_example_script_runs() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts");
    let mut scripts: Vec<_> = std::fs::read_dir(&dir)
        .expect("scripts/")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rhai"))
        .collect();
    scripts.sort();
    assert!(!scripts.is_empty());
    for script in scripts {
        let server = Server::session(module_path!());
        let path = script.to_string_lossy().into_owned();
        let run = server.fabsh(&["run", &path]);
        assert_eq!(
            run.code, 0,
            "{path} failed:\nstdout:\n{}\nstderr:\n{}",
            run.stdout, run.stderr
        );
        assert!(!run.stdout.is_empty(), "{path} printed nothing");
    }
}

#[test]
fn the_tour_runs_in_process_with_local() {
    let home = crate::support::Home::new();
    let tour = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/tour.rhai");
    let run = home.run(&["--local", "run", &tour.to_string_lossy()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("Backend: local"), "{}", run.stdout);
    assert!(run.stdout.contains("2 examples added"), "{}", run.stdout);
    assert!(run.stdout.contains("The answer is"), "{}", run.stdout);
    // The right count passes and the wrong one fails, graded after few-shots were uploaded
    // in the same engine (each stdlib module's helpers stay its own).
    assert!(run.stdout.contains("pass rate 50.0%"), "{}", run.stdout);
    assert!(run.stdout.contains("5 of 5 deleted"), "{}", run.stdout);
}
