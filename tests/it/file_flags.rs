//! A flag that names a file reads a regular file within the flag's size cap, checked before
//! anything is read or sent (issue 43): `/dev/zero` or a file larger than what the service
//! takes is refused naming the flag, in a process whose memory is capped, with nothing sent
//! to the endpoint (a loopback listener that must receive no connection).

use crate::support::{Home, Run, Trap};
use std::process::Stdio;

/// Address space a refusing fabsh stays well within; a read of `/dev/zero` passes it in
/// about a second.
const MEMORY_KIB: u64 = 2 << 20;

fn run_capped(home: &Home, trap: &Trap, args: &[&str]) -> Run {
    let endpoint = format!("{}/v1", trap.origin());
    let output = home
        .command_with_memory(MEMORY_KIB, args)
        .env("FABSH_ENDPOINT", &endpoint)
        .env("FABSH_TOKEN", "not-a-real-token")
        .stdin(Stdio::null())
        .output()
        .expect("run fabsh");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Each file flag with `FILE` where the file goes, and the flag the error must name.
const FILE_FLAGS: &[(&[&str], &str)] = &[
    (&["api", "POST", "/workspaces", "--body", "@FILE"], "--body"),
    (
        &[
            "item",
            "create",
            "-w",
            "Demo",
            "--name",
            "N",
            "--type",
            "Notebook",
            "--definition",
            "@FILE",
        ],
        "--definition",
    ),
    (
        &[
            "job",
            "run",
            "-w",
            "Demo",
            "--id",
            "Welcome",
            "--parameters",
            "@FILE",
        ],
        "--parameters",
    ),
    (
        &[
            "sql",
            "query",
            "-w",
            "Demo",
            "--item",
            "SalesLakehouse",
            "--file",
            "FILE",
        ],
        "--file",
    ),
    (
        &[
            "data-agent",
            "evaluate",
            "-w",
            "Demo",
            "--id",
            "A",
            "--questions",
            "FILE",
        ],
        "--questions",
    ),
    (
        &[
            "data-agent",
            "evaluate",
            "-w",
            "Demo",
            "--id",
            "A",
            "--questions",
            "QUESTIONS",
            "--llm-endpoint",
            "http://127.0.0.1:9/v1",
            "--llm-key",
            "@FILE",
        ],
        "--llm-key",
    ),
];

fn with_file<'a>(args: &[&'a str], file: &'a str, questions: &'a str) -> Vec<&'a str> {
    args.iter()
        .map(|arg| match *arg {
            "FILE" => file,
            "@FILE" => file,
            "QUESTIONS" => questions,
            other => other,
        })
        .collect()
}

#[test]
fn a_device_or_an_oversized_file_is_refused_before_anything_is_read_or_sent() {
    let home = Home::new();
    let trap = Trap::start();
    let questions = home.dir.path().join("questions.csv");
    std::fs::write(&questions, "question,expected_answer\nHow many?,3\n").expect("write");
    let questions = questions.display().to_string();
    // Sparse: larger than any cap, and no disk space taken.
    let huge = home.dir.path().join("huge.json");
    let file = std::fs::File::create(&huge).expect("create");
    file.set_len(fabsh_model::limits::REQUEST_BODY + 1)
        .expect("sparse file");
    let huge = huge.display().to_string();
    for (args, flag) in FILE_FLAGS {
        for (file, why) in [
            ("/dev/zero", "not a regular file"),
            (huge.as_str(), "more than"),
        ] {
            let at = format!("@{file}");
            let given = if args.contains(&"@FILE") { &at } else { file };
            let run = run_capped(&home, &trap, &with_file(args, given, &questions));
            assert_eq!(run.code, 2, "{args:?} with {file}: {}", run.stderr);
            assert!(
                run.stderr.contains(flag) && run.stderr.contains(why),
                "{args:?} with {file}: {}",
                run.stderr
            );
        }
    }
    trap.assert_untouched();
}
