//! Bad input to `query`, `evaluate` and `validate-fewshots`: exit 2 and nothing sent.

use crate::bad_input::assert_rejected;
use crate::support::Server;

const WS: &str = "11111111-1111-1111-1111-111111111111";
const AGENT: &str = "22222222-2222-2222-2222-222222222222";

#[test]
fn query_and_evaluation_input_is_checked_before_sending() {
    let server = Server::session(module_path!());
    let dir = tempfile::tempdir().expect("dir");
    let path = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        path.to_string_lossy().into_owned()
    };
    let questions = path("questions.json", r#"["How many orders?"]"#);
    let malformed = path("bad.json", "[\n\"ok\",\n{\"expected\": \"1\"},\n42\n]");
    let critic = path("critic.txt", "Q={query}");
    let not_a_dir = path("plain.txt", "x");
    let query = |rest: &[&'static str]| {
        let mut args = vec!["data-agent", "query", "-w", WS, "--id", AGENT];
        args.extend_from_slice(rest);
        args
    };
    let evaluate = |rest: &[&str]| {
        let mut args: Vec<String> = [
            "data-agent",
            "evaluate",
            "-w",
            WS,
            "--id",
            AGENT,
            "--questions",
            &questions,
        ]
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
        args.extend(rest.iter().map(std::string::ToString::to_string));
        args
    };
    let string_cases: Vec<(Vec<String>, &str)> = vec![
        (
            evaluate(&["--critic-prompt", "Q={query}"]),
            "needs a judge model",
        ),
        (
            evaluate(&[
                "--critic-prompt",
                "x",
                "--critic-prompt-file",
                &critic,
                "--llm-endpoint",
                "http://127.0.0.1:9",
            ]),
            "cannot be used together",
        ),
        (
            evaluate(&["--output-file", "results.txt"]),
            "must end in .csv, .json or .html",
        ),
        (evaluate(&["--min-pass-rate", "2"]), "from 0 to 1"),
        (
            evaluate(&["--repeats", "0"]),
            "--repeats must be at least 1",
        ),
        (
            evaluate(&["--concurrency", "0"]),
            "--concurrency must be at least 1",
        ),
        (
            evaluate(&["--stage", "staging"]),
            "only the published agent",
        ),
        (
            evaluate(&["--llm-endpoint", "not a url"]),
            "not an http(s) URL",
        ),
        (
            evaluate(&["--llm-endpoint", "http://127.0.0.1:9/v1"]),
            "--llm-endpoint needs --llm-model",
        ),
        (
            evaluate(&[
                "--llm-endpoint",
                "http://127.0.0.1:9/v1",
                "--llm-model",
                "m",
                "--llm-key",
                "@no-such-key-file",
            ]),
            "--llm-key: cannot read no-such-key-file",
        ),
        (
            [
                "data-agent",
                "evaluate",
                "-w",
                WS,
                "--id",
                AGENT,
                "--questions",
                &malformed,
            ]
            .iter()
            .map(std::string::ToString::to_string)
            .collect(),
            "line 3",
        ),
        (
            [
                "data-agent",
                "validate-fewshots",
                "-w",
                WS,
                "--id",
                AGENT,
                "--datasource",
                "x",
                "--llm-endpoint",
                "ftp://x",
            ]
            .iter()
            .map(std::string::ToString::to_string)
            .collect(),
            "not an http(s) URL",
        ),
        (
            query(&["--prompt", "x"])
                .into_iter()
                .map(String::from)
                .chain(["--download-files".to_string(), not_a_dir.clone()])
                .collect(),
            "is not a directory",
        ),
    ];
    for (args, says) in &string_cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_rejected(&server, &args, says);
    }
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            query(&["--prompt", "x", "--stage", "staging"]),
            "only the published agent (production)",
        ),
        (
            query(&["--prompt", "x", "--timeout", "0"]),
            "--timeout must be at least 1",
        ),
        (
            query(&["--prompt", "x", "--thread-id", "../../etc/passwd"]),
            "--thread-id must be",
        ),
        (
            // A thread is a local file: one that is not there is bad input too.
            query(&[
                "--prompt",
                "x",
                "--thread-id",
                "7d0c9a52-3f61-4c2e-9a8b-5e4f3d2c1b0a",
            ]),
            "--thread-id: no thread",
        ),
        (
            query(&["--prompt", "x", "--published-url", "ftp://example"]),
            "must be an http(s) URL",
        ),
        (query(&[]), "the question is empty"),
    ];
    for (args, says) in cases {
        assert_rejected(&server, &args, says);
    }
    // Every malformed row is named.
    let run = server.fabsh(&[
        "data-agent",
        "evaluate",
        "-w",
        WS,
        "--id",
        AGENT,
        "--questions",
        &malformed,
    ]);
    assert!(
        run.stderr.contains("line 3") && run.stderr.contains("line 4"),
        "{}",
        run.stderr
    );
}
