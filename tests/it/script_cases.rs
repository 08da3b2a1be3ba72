//! Data-driven script cases: each `tests/scripts/NAME.rhai` runs with `fabsh run` against a
//! fresh local Fabric. Its stdout must equal `NAME.out`; when `NAME.err` exists its stderr
//! must equal that too; the exit code must be the one a `// exit: N` line names (default 0).
//! `// knob: flag=value` lines set the server's fault knobs and an `// args: ...` line the
//! script's ARGS. `FABSH_UPDATE_SNAPSHOTS=1 cargo test script_cases` rewrites the expected files.

use crate::support::Server;
use std::path::{Path, PathBuf};

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts")
}

/// The directives of a case: `// name: value` lines.
fn directives<'a>(source: &'a str, name: &str) -> Vec<&'a str> {
    let prefix = format!("// {name}:");
    source
        .lines()
        .filter_map(|line| line.trim().strip_prefix(prefix.as_str()))
        .map(str::trim)
        .collect()
}

/// Words split on whitespace, with double quotes grouping.
fn words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in text.chars() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

fn run_case(script: &Path) -> Vec<String> {
    let name = script.file_name().unwrap().to_string_lossy().into_owned();
    let source = std::fs::read_to_string(script).unwrap();
    let knobs: Vec<(String, String)> = directives(&source, "knob")
        .iter()
        .map(|knob| {
            let (flag, value) = knob.split_once('=').expect("knob: flag=value");
            (flag.trim().to_string(), value.trim().to_string())
        })
        .collect();
    let knob_refs: Vec<(&str, &str)> = knobs
        .iter()
        .map(|(flag, value)| (flag.as_str(), value.as_str()))
        .collect();
    let server = Server::with(&knob_refs);
    let expected_code: i32 = directives(&source, "exit")
        .first()
        .map_or(0, |code| code.parse().expect("exit: N"));
    let mut args = vec!["run".to_string(), name.clone(), "--".into()];
    args.extend(
        directives(&source, "args")
            .iter()
            .flat_map(|line| words(line)),
    );
    let case_tmp = server.home.dir.path().join("case");
    std::fs::create_dir_all(&case_tmp).unwrap();
    let mut command = server.command(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let output = command
        .current_dir(cases_dir())
        .env("CASE_TMP", &case_tmp)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run fabsh");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let code = output.status.code().unwrap_or(-1);
    let out_path = script.with_extension("out");
    let err_path = script.with_extension("err");
    if std::env::var_os("FABSH_UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&out_path, &stdout).unwrap();
        if code != 0 {
            std::fs::write(&err_path, &stderr).unwrap();
        }
    }
    let mut problems = Vec::new();
    if code != expected_code {
        problems.push(format!(
            "{name}: exit {code}, expected {expected_code}\nstderr:\n{stderr}"
        ));
    }
    match std::fs::read_to_string(&out_path) {
        Ok(expected) if expected == stdout => {}
        Ok(expected) => problems.push(format!(
            "{name}: stdout differs\n--- expected\n{expected}--- got\n{stdout}--- stderr\n{stderr}"
        )),
        Err(_) => problems.push(format!("{name}: no {}", out_path.display())),
    }
    if let Ok(expected) = std::fs::read_to_string(&err_path)
        && expected != stderr
    {
        problems.push(format!(
            "{name}: stderr differs\n--- expected\n{expected}--- got\n{stderr}"
        ));
    }
    problems
}

#[test]
fn every_script_case_prints_what_it_expects() {
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(cases_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rhai"))
        .collect();
    scripts.sort();
    assert!(scripts.len() >= 8, "the cases are missing");
    let problems: Vec<String> = scripts.iter().flat_map(|script| run_case(script)).collect();
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn a_missing_script_or_a_bad_eval_is_a_usage_error() {
    let home = crate::support::Home::new();
    let run = home.run(&["run", "no-such-script.rhai"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("cannot read no-such-script.rhai"),
        "{}",
        run.stderr
    );
    let run = home.run(&["-e", "let x = ;"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("<-e>:1:"), "{}", run.stderr);
    let run = home.run(&["-e", "1", "item", "list"]);
    assert_eq!(run.code, 2);
}

#[test]
fn scripts_use_the_configured_default_workspace() {
    let server = Server::session(module_path!());
    let run = server.fabsh_env(
        &[
            "-e",
            "item::list(#{type: \"Notebook\"}).map(|item| item.displayName)",
        ],
        &[("FABSH_WORKSPACE", server.demo.as_str())],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json(), serde_json::json!(["Welcome"]));
}
