//! `--stdlib DIR` and `FABSH_STDLIB` replace built-in stdlib modules and add new ones, for
//! scripts, for the commands that run stdlib functions, and in `fabsh docs`.

use crate::support::{Home, Server};

fn stdlib_dir(home: &Home) -> String {
    let dir = home.dir.path().join("my-stdlib");
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(
        dir.join("util.rhai"),
        "/// Says where it came from.\nfn origin() { \"my util\" }\n",
    )
    .expect("util.rhai");
    std::fs::write(
        dir.join("extra-tools.rhai"),
        "/// Doubles.\nfn double(x) { x * 2 }\n",
    )
    .expect("extra-tools.rhai");
    // A bulk module that reports no results: the command must notice.
    std::fs::write(
        dir.join("bulk.rhai"),
        "fn create(ws, items, opts) { #{summary: #{}, results: []} }\n",
    )
    .expect("bulk.rhai");
    dir.to_string_lossy().into_owned()
}

#[test]
fn the_flag_and_the_variable_replace_and_add_modules() {
    let home = Home::new();
    let dir = stdlib_dir(&home);
    let run = home.run(&[
        "--stdlib",
        &dir,
        "-e",
        "`${util::origin()} ${extra_tools::double(21)}`",
    ]);
    assert_eq!(run.stdout, "my util 42\n", "{}", run.stderr);
    let run = home.run_env(&["-e", "util::origin()"], &[("FABSH_STDLIB", &dir)]);
    assert_eq!(run.stdout, "my util\n", "{}", run.stderr);
    // The built-in util is gone: its functions are not there (a call of an unknown
    // function is a usage error).
    let run = home.run(&["--stdlib", &dir, "-e", "util::pp(1)"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr.contains("no function util::pp"),
        "{}",
        run.stderr
    );

    let docs = home.run(&["--stdlib", &dir, "docs"]);
    assert!(
        docs.stdout.contains("#### `extra_tools::double(x)`"),
        "{}",
        docs.stdout
    );
    assert!(docs.stdout.contains("Says where it came from."));
}

#[test]
fn commands_run_the_replacement_and_check_its_results() {
    let server = Server::session(module_path!());
    let dir = stdlib_dir(&server.home);
    let run = server.fabsh(&[
        "--stdlib",
        &dir,
        "item",
        "bulk-create",
        "-w",
        server.demo.as_str(),
        "--content",
        r#"[{"displayName":"a","type":"Notebook"}]"#,
    ]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stderr
            .contains("the stdlib returned 0 results for 1 items"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_broken_stdlib_file_is_a_usage_error_naming_it() {
    let home = Home::new();
    let dir = home.dir.path().join("broken");
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("util.rhai"), "fn oops( {").expect("write");
    let run = home.run(&["--stdlib", &dir.to_string_lossy(), "-e", "1"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("util.rhai"), "{}", run.stderr);
}

/// A stdlib function a command runs prints to stderr: its output is the command's reply, and
/// for `mcp serve` stdout is the protocol.
#[test]
fn a_stdlib_function_run_by_a_command_prints_beside_its_output() {
    let server = Server::session(module_path!());
    let dir = server.home.dir.path().join("chatty-stdlib");
    std::fs::create_dir_all(&dir).expect("dir");
    let builtin = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("stdlib/bulk.rhai"),
    )
    .expect("stdlib/bulk.rhai");
    let opening = "fn create(workspace, items, opts) {";
    assert!(builtin.contains(opening), "the built-in bulk::create moved");
    let chatty = builtin.replacen(
        opening,
        &format!("{opening}\n    print(\"creating from my stdlib\");"),
        1,
    );
    std::fs::write(dir.join("bulk.rhai"), chatty).expect("bulk.rhai");
    let dir = dir.to_string_lossy().into_owned();
    let run = server.fabsh(&[
        "--stdlib",
        &dir,
        "item",
        "bulk-create",
        "-w",
        server.demo.as_str(),
        "--content",
        r#"[{"displayName": "Chatty", "type": "Notebook"}]"#,
        "-o",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let reply: serde_json::Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|err| panic!("stdout is not the JSON reply ({err}):\n{}", run.stdout));
    assert_eq!(reply["summary"]["succeeded"], 1, "{reply}");
    assert!(
        run.stderr.contains("creating from my stdlib"),
        "{}",
        run.stderr
    );
}
