//! Every command × every kind of bad input, generated from the registry so a new command or
//! flag is covered without touching this file: a missing required flag, an empty value, a
//! malformed GUID, bad JSON, an unreadable file, a misspelt item type. Each must exit 2
//! naming the flag, and local Fabric must see no request at all (DESIGN §5).

use crate::support::{Run, Server};
use fabsh::commands::REGISTRY;
use fabsh_client::commands::common::effective_args;
use fabsh_client::commands::{ArgKind, ArgSpec, CommandSpec};
use std::path::Path;
use std::process::Stdio;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Runs at once: the runs are short and mostly wait on process start.
const PARALLEL_RUNS: usize = 4;

/// One bad command line and the flag its refusal must name.
struct Case {
    args: Vec<String>,
    /// `--id`, or `PATH` for a positional.
    names: String,
    what: &'static str,
}

/// Files the cases point at.
struct Fixtures {
    readable: String,
    missing: String,
    folder: String,
}

/// The GUID of case `index`: every id and name a case gives is its own, so a request that
/// slips through can be traced back to the case in the server's log.
fn case_guid(index: usize) -> String {
    format!("00000000-0000-4000-8000-{index:012}")
}

/// A value that passes the flag's own checks.
fn good_value(arg: &ArgSpec, guid: &str, files: &Fixtures) -> String {
    match arg.kind {
        ArgKind::Str | ArgKind::Secret => "x".into(),
        ArgKind::Ref | ArgKind::Uuid | ArgKind::UuidPrefix => guid.into(),
        ArgKind::Int => "1".into(),
        ArgKind::Bool => "true".into(),
        ArgKind::Enum(choices) => choices[0].into(),
        ArgKind::Json => "{}".into(),
        ArgKind::File => files.readable.clone(),
        ArgKind::List => "a".into(),
        ArgKind::ItemType => "Notebook".into(),
    }
}

/// How a refusal names the flag: `--id`, or `PATH` for a positional (its usage-line name,
/// `WORKSPACE/ITEM`, when it declares one).
fn shown_name(arg: &ArgSpec) -> String {
    if arg.positional {
        arg.value_name
            .map_or_else(|| arg.long.to_uppercase(), String::from)
    } else {
        format!("--{}", arg.long)
    }
}

/// The command line of `spec` with every required flag given a good value except `skip`,
/// `bad` given as `value`; destructive commands get `--yes`, so consent is not what refuses.
fn command_line(
    spec: &'static CommandSpec,
    target: &ArgSpec,
    bad: Option<&str>,
    guid: &str,
    files: &Fixtures,
) -> Vec<String> {
    let mut words: Vec<String> = spec.path().split(' ').map(String::from).collect();
    let mut flags = Vec::new();
    for arg in effective_args(spec) {
        let is_target = arg.long == target.long;
        let value = match (is_target, bad) {
            (true, Some(bad)) => bad.to_string(),
            (true, None) => continue,
            (false, _) if arg.required && arg.default.is_none() && !arg.trailing => {
                good_value(arg, guid, files)
            }
            (false, _) => continue,
        };
        if arg.positional {
            words.push(value);
        } else {
            flags.push(format!("--{}", arg.long));
            flags.push(value);
        }
    }
    if spec.traits.destructive && target.long != "yes" {
        flags.push("--yes".into());
    }
    words.extend(flags);
    words
}

/// The positional after which nothing else is given (so leaving it out shifts nothing).
fn is_last_positional(spec: &'static CommandSpec, arg: &ArgSpec) -> bool {
    let positionals: Vec<_> = effective_args(spec)
        .into_iter()
        .filter(|a| a.positional && !a.trailing)
        .collect();
    positionals.last().is_some_and(|last| last.long == arg.long)
}

/// The bad values of one flag, by what makes them bad.
fn bad_values(arg: &ArgSpec, files: &Fixtures) -> Vec<(&'static str, String)> {
    let mut bad = Vec::new();
    if !arg.allows_empty {
        bad.push(("an empty value", String::new()));
        bad.push(("a blank value", "  ".into()));
    }
    match arg.kind {
        ArgKind::Uuid => bad.push(("a malformed GUID", "not-a-guid".into())),
        ArgKind::UuidPrefix => bad.push(("too little of a GUID to begin one", "0000".into())),
        ArgKind::ItemType => bad.push(("a near miss of a known item type", "Notebok".into())),
        ArgKind::Json => {
            bad.push(("bad JSON", "{\"a\":".into()));
            bad.push(("an unreadable @file", format!("@{}", files.missing)));
            bad.push(("a folder as @file", format!("@{}", files.folder)));
            bad.push(("a device as @file", "@/dev/zero".into()));
        }
        ArgKind::File => {
            bad.push(("an unreadable file", files.missing.clone()));
            bad.push(("a folder as file", files.folder.clone()));
            bad.push(("a device as file", "/dev/zero".into()));
        }
        ArgKind::Secret => {
            bad.push(("an unreadable @file", format!("@{}", files.missing)));
            bad.push(("a device as @file", "@/dev/zero".into()));
        }
        ArgKind::List if !arg.allows_empty => bad.push(("a list of only commas", ",,,".into())),
        ArgKind::Int => {
            bad.push(("not a number", "abc".into()));
            // Every count and duration is at least 1 or at least 0: -1 is never one.
            bad.push(("a negative number", "-1".into()));
            let (min, max) = arg
                .range
                .expect("every whole-number flag declares its range");
            if min - 1 != -1 {
                bad.push(("a number below its range", (min - 1).to_string()));
            }
            if max != i64::MAX {
                bad.push(("a number above its range", (max + 1).to_string()));
            }
        }
        _ => {}
    }
    bad
}

fn all_cases(files: &Fixtures) -> Vec<Case> {
    let mut cases = Vec::new();
    for spec in REGISTRY.all() {
        for arg in effective_args(spec) {
            if arg.trailing {
                continue;
            }
            let guid = case_guid(cases.len());
            let missing = arg.required && arg.default.is_none();
            if missing && (!arg.positional || is_last_positional(spec, arg)) {
                cases.push(Case {
                    args: command_line(spec, arg, None, &guid, files),
                    names: shown_name(arg),
                    what: "a missing required flag",
                });
            }
            for (what, value) in bad_values(arg, files) {
                let guid = case_guid(cases.len());
                cases.push(Case {
                    args: command_line(spec, arg, Some(&value), &guid, files),
                    names: shown_name(arg),
                    what,
                });
            }
        }
    }
    cases
}

/// How long a case may run before it counts as hanging: a bound against a command that
/// waits forever on bad input (a FIFO, a server started on an empty address), far above what
/// a refusal takes.
const HANG_BOUND: Duration = Duration::from_secs(120);

/// Runs case `index` in `scratch` (also its current dir, so whatever a case wrongly writes
/// lands there), output captured in files; a case still running after [`HANG_BOUND`] is
/// killed and reported.
fn run_case(server: &Server, case: &Case, index: usize, scratch: &Path) -> Result<Run, String> {
    let args: Vec<&str> = case.args.iter().map(String::as_str).collect();
    let out_path = scratch.join(format!("{index}.out"));
    let err_path = scratch.join(format!("{index}.err"));
    let create = |path: &Path| std::fs::File::create(path).expect("output file");
    let mut child = server
        .command(&args)
        .current_dir(scratch.join("cwd"))
        .stdin(Stdio::null())
        .stdout(create(&out_path))
        .stderr(create(&err_path))
        .spawn()
        .expect("run fabsh");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > HANG_BOUND {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "{} ({}): still running after {HANG_BOUND:?}; killed",
                case.args.join(" "),
                case.what
            ));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let read = |path: &Path| std::fs::read_to_string(path).unwrap_or_default();
    Ok(Run {
        code: status.code().unwrap_or(-1),
        stdout: read(&out_path),
        stderr: read(&err_path),
    })
}

/// Why a finished case is wrong, if it is.
fn problem(case: &Case, run: &Run) -> Option<String> {
    let line = case.args.join(" ");
    if run.code != 2 {
        return Some(format!(
            "{} ({}): exit {} instead of 2; stderr: {}",
            line,
            case.what,
            run.code,
            run.stderr.trim()
        ));
    }
    if !run.stderr.contains(&case.names) {
        return Some(format!(
            "{} ({}): the refusal does not name {}: {}",
            line,
            case.what,
            case.names,
            run.stderr.trim()
        ));
    }
    None
}

#[test]
fn every_command_refuses_bad_input_naming_the_flag_before_sending_anything() {
    let server = Server::session(module_path!());
    let dir = tempfile::tempdir().expect("dir");
    let readable = dir.path().join("readable.json");
    std::fs::write(&readable, "{}").expect("write");
    let cwd = dir.path().join("cwd");
    std::fs::create_dir(&cwd).expect("cwd");
    let files = Fixtures {
        readable: readable.to_string_lossy().into_owned(),
        missing: dir.path().join("missing").to_string_lossy().into_owned(),
        folder: dir.path().to_string_lossy().into_owned(),
    };
    let cases = all_cases(&files);
    let before = server.request_count();

    let problems = Mutex::new(Vec::new());
    let next = Mutex::new(0usize);
    std::thread::scope(|scope| {
        for _ in 0..PARALLEL_RUNS {
            scope.spawn(|| {
                loop {
                    let index = {
                        let mut next = next.lock().expect("lock");
                        *next += 1;
                        *next - 1
                    };
                    let Some(case) = cases.get(index) else { break };
                    let found = match run_case(&server, case, index, dir.path()) {
                        Ok(run) => problem(case, &run),
                        Err(hang) => Some(hang),
                    };
                    if let Some(problem) = found {
                        problems.lock().expect("lock").push(problem);
                    }
                }
            });
        }
    });

    let mut problems = problems.into_inner().expect("problems");
    let log = server.requests();
    let sent = server.request_count() - before;
    if sent > 0 {
        let requests = log["requests"].as_array().expect("requests");
        for request in &requests[requests.len().saturating_sub(sent as usize)..] {
            let path = request["path"].as_str().unwrap_or_default();
            let case = (0..cases.len())
                .find(|index| path.contains(&case_guid(*index)))
                .map_or("?".to_string(), |index| cases[index].args.join(" "));
            problems.push(format!("sent {} {path} (from: {case})", request["method"]));
        }
    }
    for kind in [
        "a missing required flag",
        "an empty value",
        "a malformed GUID",
        "bad JSON",
        "an unreadable file",
    ] {
        assert!(
            cases.iter().any(|case| case.what == kind),
            "the registry gave no case of {kind}"
        );
    }
    for stray in std::fs::read_dir(&cwd).expect("cwd") {
        let name = stray.expect("entry").file_name();
        problems.push(format!("a case wrote {name:?} into the current dir"));
    }
    problems.sort();
    assert!(
        problems.is_empty(),
        "{} of {} cases went wrong:\n{}",
        problems.len(),
        cases.len(),
        problems.join("\n")
    );
}
