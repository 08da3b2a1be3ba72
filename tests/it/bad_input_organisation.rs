//! Bad input to the definition and organisation commands: exit 2, nothing sent.

use crate::bad_input::assert_rejected;
use crate::support::Server;

const WS: &str = "11111111-1111-1111-1111-111111111111";
const ITEM: &str = "22222222-2222-2222-2222-222222222222";

#[test]
fn definition_and_organisation_input_is_checked_before_sending() {
    let server = Server::session(module_path!());
    let dir = tempfile::tempdir().expect("dir");
    let full = dir.path().join("full");
    std::fs::create_dir(&full).expect("dir");
    std::fs::write(full.join("x"), "x").expect("write");
    let full = full.to_string_lossy().into_owned();
    let missing = dir.path().join("missing").to_string_lossy().into_owned();
    let escaping = r#"{"parts":[{"path":"../x.py","payload":"eA=="}]}"#;
    let bad_base64 = r#"{"parts":[{"path":"x.py","payload":"%%%"}]}"#;
    let bad_json_part = r#"{"parts":[{"path":"x.json","payload":"ew=="}]}"#;
    let good = r#"{"parts":[{"path":"x.py","payload":"eA=="}]}"#;
    let update = |extra: &[&'static str]| -> Vec<String> {
        let mut args: Vec<String> = ["item", "update-definition", "-w", WS, "--id", ITEM, "--yes"]
            .iter()
            .map(std::string::ToString::to_string)
            .collect();
        args.extend(extra.iter().map(std::string::ToString::to_string));
        args
    };
    let line = |text: &str| -> Vec<String> { text.split(' ').map(String::from).collect() };
    let cases: Vec<(Vec<String>, &str)> = vec![
        (update(&[]), "one of --file, --definition, --dir"),
        (update(&["--definition", good, "--dir", "."]), "only one of"),
        (
            update(&["--definition", escaping]),
            "are not allowed (UnsafePath)",
        ),
        (update(&["--definition", bad_base64]), "not valid base64"),
        (update(&["--definition", bad_json_part]), "not valid JSON"),
        (
            update(&["--definition", good, "--options", "[1]"]),
            "--options must be a JSON object",
        ),
        (
            update(&["--definition", good, "--update-metadata", "sometimes"]),
            "invalid value",
        ),
        (
            [update(&["--dir"]), vec![missing.clone()]].concat(),
            "cannot read",
        ),
        (
            line(&format!(
                "item get-definition -w {WS} --id {ITEM} --dir {full}"
            )),
            "is not empty",
        ),
        (
            line(&format!(
                "item get-definition -w {WS} --id {ITEM} --dir {missing} --decode"
            )),
            "cannot be used together",
        ),
        (
            line(&format!(
                "item move-to-folder -w {WS} --id {ITEM} --folder-id nope"
            )),
            "--folder-id must be",
        ),
        (
            line(&format!("item apply-tags -w {WS} --id {ITEM}")),
            "--tag-ids",
        ),
        (
            line(&format!(
                "item update-logical-id -w {WS} --id {ITEM} --logical-id 12"
            )),
            "--logical-id must be a GUID",
        ),
        (
            line(&format!(
                "item update-logical-id -w {WS} --id {ITEM} --logical-id 00000000-0000-0000-0000-000000000000"
            )),
            "all-zero",
        ),
        (
            line(&format!("item list-endorsements -w {WS} --type Notebook")),
            "cannot be read",
        ),
        (
            line(&format!(
                "item list-endorsements -w {WS} --endorsement Great"
            )),
            "invalid value",
        ),
        (
            line(&format!("item copy --source-workspace {WS} --id {ITEM}")),
            "--dest-workspace",
        ),
        (
            line(&format!("folder delete -w {WS} --id nope --yes")),
            "--id must be a GUID",
        ),
        (
            line(&format!("folder create -w {WS} --name F --parent-id nope")),
            "--parent-id must be a GUID",
        ),
        (
            line(&format!(
                "folder move -w {WS} --id {ITEM} --target-folder-id nope"
            )),
            "--target-folder-id must be",
        ),
        (
            line(&format!("folder list -w {WS} --recursive maybe")),
            "invalid value",
        ),
    ];
    for (args, says) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_rejected(&server, &args, says);
    }
}
