//! What a person sees at a terminal while fabsh waits: one spinner line, however many
//! long-running operations go on at once, and nothing of it left once the command is done.
//! `script` gives fabsh a terminal 80 columns wide; what it wrote is played on a small screen
//! model (carriage return, line feed, cursor up, erase line), as the terminal would show it.

use crate::deploy::sample;
use crate::support::{Server, bin};
use std::process::Stdio;

/// The rows a terminal `width` columns wide shows after `output`: the control sequences
/// indicatif and fabsh write are followed, colours and modes ignored.
fn screen(output: &str, width: usize) -> Vec<String> {
    let mut rows: Vec<Vec<char>> = vec![Vec::new()];
    let (mut row, mut col) = (0usize, 0usize);
    let mut chars = output.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => col = 0,
            '\n' => {
                row += 1;
                col = 0;
            }
            '\x1b' if chars.peek() == Some(&'[') => {
                chars.next();
                let mut params = String::new();
                let mut end = ' ';
                for next in chars.by_ref() {
                    if next.is_ascii_alphabetic() || next == '~' {
                        end = next;
                        break;
                    }
                    params.push(next);
                }
                let count = params.parse::<usize>().unwrap_or(1).max(1);
                match end {
                    'A' => row = row.saturating_sub(count),
                    'B' => row += count,
                    'G' => col = count - 1,
                    'K' => {
                        if let Some(line) = rows.get_mut(row) {
                            match params.as_str() {
                                "2" => line.clear(),
                                "1" => {
                                    let end = col.min(line.len());
                                    line[..end].fill(' ');
                                }
                                _ => line.truncate(col),
                            }
                        }
                    }
                    'J' => {
                        rows.truncate(row + 1);
                        rows[row].truncate(col);
                    }
                    _ => {}
                }
            }
            c if c.is_control() => {}
            c => {
                if col == width {
                    row += 1;
                    col = 0;
                }
                while rows.len() <= row {
                    rows.push(Vec::new());
                }
                let line = &mut rows[row];
                while line.len() < col {
                    line.push(' ');
                }
                if col < line.len() {
                    line[col] = c;
                } else {
                    line.push(c);
                }
                col += 1;
            }
        }
        while rows.len() <= row {
            rows.push(Vec::new());
        }
    }
    rows.into_iter()
        .map(|line| line.into_iter().collect::<String>().trim_end().to_string())
        .collect()
}

/// `fabsh ARGS` at an 80-column terminal against `server`: its exit code and the raw bytes it
/// wrote (stdout and stderr, as the terminal got them).
fn at_80_columns(server: &Server, args: &str) -> (i32, String) {
    let line = format!("stty cols 80 rows 50; {} {args} >/dev/null", bin());
    let output = server
        .at_terminal(&line)
        .env("TERM", "xterm")
        .stdin(Stdio::null())
        .output()
        .expect("script");
    let shown = String::from_utf8_lossy(&output.stdout).into_owned();
    (output.status.code().unwrap_or(-1), shown)
}

#[test]
fn concurrent_waits_share_one_spinner_line_that_is_gone_when_done() {
    // Every definition read waits on an operation of 300 ms, so a plan of the deployed
    // sample has many going on at once.
    let server = Server::with(&[("lro-ms", "300")]);
    let sample = sample();
    let sample = sample.to_str().expect("path");
    crate::deploy::seed_shortcut_targets(&server, "Demo");
    let deployed = server.fabsh(&[
        "deploy",
        "apply",
        sample,
        "-w",
        "Demo",
        "--environment",
        "PPE",
    ]);
    assert_eq!(deployed.code, 0, "{}", deployed.stderr);

    let (code, shown) = at_80_columns(
        &server,
        &format!("deploy plan '{sample}' -w Demo --environment PPE"),
    );
    assert_eq!(code, 0, "{shown}");
    let label = "deploy plan Demo";
    assert!(
        shown.contains(label),
        "the spinner showed while the plan waited: {shown:?}"
    );
    let rows = screen(&shown, 80);
    let left: Vec<&String> = rows.iter().filter(|row| row.contains(label)).collect();
    assert!(
        left.is_empty(),
        "no spinner line is left once the plan is done, found {}:\n{}",
        left.len(),
        rows.join("\n")
    );
    // The notes the plan writes are all there, each once, as off a terminal.
    let piped = server.fabsh(&[
        "deploy",
        "plan",
        sample,
        "-w",
        "Demo",
        "--environment",
        "PPE",
    ]);
    let notes = |lines: Vec<&str>| {
        lines
            .into_iter()
            .filter(|line| line.starts_with("note: "))
            .count()
    };
    let expected = notes(piped.stderr.lines().collect());
    assert!(expected > 0, "{}", piped.stderr);
    assert_eq!(
        notes(rows.iter().map(String::as_str).collect()),
        expected,
        "{}",
        rows.join("\n")
    );
}

#[test]
fn a_transfer_shows_its_bytes_on_one_line_that_is_gone_when_done() {
    // Each request takes 100 ms more, so an upload of five blocks lasts long enough to draw.
    let server = Server::session_with(module_path!(), &[("latency-ms", "100")]);
    let work = tempfile::tempdir().expect("work");
    let file = work.path().join("twenty.bin");
    std::fs::write(&file, vec![7u8; 20 * 1024 * 1024]).expect("write");
    let (code, shown) = at_80_columns(
        &server,
        &format!(
            "onelake cp '{}' {}/SalesLakehouse/Files/progress/",
            file.display(),
            server.demo
        ),
    );
    assert_eq!(code, 0, "{shown}");
    assert!(
        shown.contains("copying [") && shown.contains("/20.00 MiB"),
        "the bar showed the bytes of the whole transfer: {shown:?}"
    );
    // Drawn within the width: no line of the bar wraps onto the next.
    for drawn in shown
        .split(['\r', '\n'])
        .filter(|part| part.contains("copying ["))
    {
        let visible = screen(drawn, usize::MAX).concat();
        assert!(visible.chars().count() <= 80, "{visible:?}");
    }
    let rows = screen(&shown, 80);
    assert!(
        !rows.iter().any(|row| row.contains("copying [")),
        "no bar is left once the copy is done:\n{}",
        rows.join("\n")
    );
}
