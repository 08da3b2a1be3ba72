//! Bad input to the share, invitation and bulk commands: exit 2 with the flag named, nothing
//! sent.

use crate::bad_input::assert_rejected;
use crate::support::Server;

const GUID: &str = "6a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";

#[test]
fn every_share_rule_is_checked_before_sending() {
    let server = Server::session(module_path!());
    let base = [
        "item",
        "create-external-data-share",
        "-w",
        GUID,
        "--id",
        GUID,
    ];
    let email = ["--recipient-email", "lisa@fabrikam.com"];
    let many = (0..101)
        .map(|i| format!("Files/f{i}"))
        .collect::<Vec<_>>()
        .join(",");
    let long_email = format!("{}@fabrikam.com", "x".repeat(250));
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (email.to_vec(), "--paths: give at least one path"),
        (
            [&["--paths", "Data/x"][..], &email].concat(),
            "must start with Files/ or Tables/",
        ),
        (
            [&["--paths", "files/x"][..], &email].concat(),
            "must start with Files/ or Tables/",
        ),
        (
            [&["--paths", "Files/"][..], &email].concat(),
            "is the Files root itself",
        ),
        (
            [&["--paths", "Tables"][..], &email].concat(),
            "is the Tables root itself",
        ),
        (
            [&["--paths", "Files/a/../b"][..], &email].concat(),
            "may not contain",
        ),
        (
            [&["--paths", "Files/a,Files/a"][..], &email].concat(),
            "is given twice",
        ),
        (
            [&["--paths", many.as_str()][..], &email].concat(),
            "at most 100",
        ),
        (
            vec!["--paths", "Files/a"],
            "--recipient-email is required for --recipient-type User",
        ),
        (
            vec!["--paths", "Files/a", "--recipient-email", "lisa"],
            "is not an email address",
        ),
        (
            vec!["--paths", "Files/a", "--recipient-email", &long_email],
            "the limit is 256",
        ),
        (
            [&["--paths", "Files/a", "--recipient-id", GUID][..], &email].concat(),
            "--recipient-id is for --recipient-type ServicePrincipal",
        ),
        (
            vec!["--paths", "Files/a", "--recipient-type", "Group"],
            "invalid value",
        ),
        (
            vec![
                "--paths",
                "Files/a",
                "--recipient-type",
                "ServicePrincipal",
                "--recipient-tenant-id",
                GUID,
            ],
            "--recipient-id is required for --recipient-type ServicePrincipal",
        ),
        (
            vec![
                "--paths",
                "Files/a",
                "--recipient-type",
                "ServicePrincipal",
                "--recipient-id",
                GUID,
            ],
            "--recipient-tenant-id is required for --recipient-type ServicePrincipal",
        ),
        (
            [
                &[
                    "--paths",
                    "Files/a",
                    "--recipient-type",
                    "ServicePrincipal",
                    "--recipient-id",
                    GUID,
                    "--recipient-tenant-id",
                    GUID,
                ][..],
                &email,
            ]
            .concat(),
            "--recipient-email names a User recipient",
        ),
        (
            vec![
                "--paths",
                "Files/a",
                "--recipient-type",
                "ServicePrincipal",
                "--recipient-id",
                "app",
                "--recipient-tenant-id",
                GUID,
            ],
            "--recipient-id must be a GUID",
        ),
        (
            [
                &["--paths", "Files/a", "--recipient-tenant-id", "contoso"][..],
                &email,
            ]
            .concat(),
            "--recipient-tenant-id must be a GUID",
        ),
    ];
    for (flags, says) in cases {
        assert_rejected(&server, &[&base[..], &flags].concat(), says);
    }
    let others: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![
                "item",
                "show-external-data-share",
                "-w",
                GUID,
                "--id",
                GUID,
                "--share-id",
                "s1",
            ],
            "--share-id must be a GUID",
        ),
        (
            vec![
                "item",
                "revoke-external-data-share",
                "-w",
                GUID,
                "--id",
                GUID,
                "--share-id",
                "s1",
                "--yes",
            ],
            "--share-id must be a GUID",
        ),
        (
            vec![
                "item",
                "get-invitation",
                "--invitation-id",
                GUID,
                "--provider-tenant-id",
                "x",
            ],
            "--provider-tenant-id must be a GUID",
        ),
        (
            vec![
                "item",
                "accept-invitation",
                "--invitation-id",
                GUID,
                "-w",
                GUID,
                "--name",
                "In",
            ],
            "--provider-tenant-id is required when --invitation-id is a bare id",
        ),
        (
            vec![
                "item",
                "accept-invitation",
                "--invitation-id",
                "nope",
                "-w",
                GUID,
                "--name",
                "In",
            ],
            "--invitation-id must be an invitation id",
        ),
    ];
    for (args, says) in others {
        assert_rejected(&server, &args, says);
    }
}

#[test]
fn bulk_input_is_checked_before_sending() {
    let server = Server::session(module_path!());
    let dir = tempfile::tempdir().expect("dir");
    let stray = dir.path().join("stray");
    std::fs::create_dir_all(stray.join("A.Notebook")).expect("dir");
    std::fs::write(stray.join("A.Notebook/notebook-content.py"), "x").expect("write");
    let stray = stray.to_string_lossy().into_owned();
    let full = dir.path().join("full");
    std::fs::create_dir(&full).expect("dir");
    std::fs::write(full.join("x"), "x").expect("write");
    let full = full.to_string_lossy().into_owned();
    fn args<'a>(command: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
        let mut args = vec!["item", command, "-w", GUID];
        args.extend_from_slice(extra);
        args
    }
    let export = |extra| args("bulk-export-definitions", extra);
    let import = |extra| args("bulk-import-definitions", extra);
    let no_platform = r#"{"definitionParts":[{"path":"/A.Notebook/x.py","payload":"eA=="}]}"#;
    let relative = r#"{"definitionParts":[{"path":"A.Notebook/.platform","payload":"e30="}]}"#;
    let escaping = r#"{"definitionParts":[{"path":"/../A/.platform","payload":"e30="}]}"#;
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            export(&["--content", r#"{"mode":"Some"}"#]),
            "mode must be All or Selective",
        ),
        (
            export(&["--content", r#"{"mode":"Selective"}"#]),
            "mode Selective needs `items`",
        ),
        (
            export(&["--content", r#"{"mode":"Selective","items":[{"id":"x"}]}"#]),
            "with a GUID",
        ),
        (export(&["--content", "[]"]), "must be a JSON object"),
        (export(&["--dir", &full]), "is not empty"),
        (import(&[]), "one of --file, --content, --dir"),
        (
            import(&["--content", no_platform, "--dir", &full]),
            "only one of",
        ),
        (import(&["--dir", &stray]), "holds no item folder"),
        (
            import(&["--content", no_platform]),
            "no part is a .platform",
        ),
        (import(&["--content", relative]), "must start with /"),
        (import(&["--content", escaping]), "are not allowed"),
        (
            import(&["--content", no_platform, "--item-options", r#"{"a":1}"#]),
            "--item-options must be a JSON array",
        ),
        (
            import(&[
                "--content",
                no_platform,
                "--item-options",
                r#"[{"logicalId":"x"}]"#,
            ]),
            "is not a logical id",
        ),
        (
            import(&[
                "--content",
                no_platform,
                "--allow-pairing-by-name",
                "perhaps",
            ]),
            "invalid value",
        ),
        (
            vec!["item", "bulk-move", "-w", GUID],
            "give the body with --file or --content",
        ),
        (
            vec![
                "item",
                "bulk-move",
                "-w",
                GUID,
                "--content",
                r#"{"items":["x"]}"#,
            ],
            "must be item ids",
        ),
        (
            vec![
                "item",
                "bulk-move",
                "-w",
                GUID,
                "--content",
                r#"{"items":["6a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"],"targetFolderId":"f"}"#,
            ],
            "targetFolderId must be a folder id",
        ),
        (
            vec![
                "item",
                "assign-identity",
                "-w",
                GUID,
                "--id",
                GUID,
                "--assignment-type",
                "Other",
            ],
            "invalid value",
        ),
    ];
    for (args, says) in cases {
        assert_rejected(&server, &args, says);
    }
}
