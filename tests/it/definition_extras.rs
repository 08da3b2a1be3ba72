//! A folder of parts sends only what the item type's definition uses: notes, editor backups
//! and hidden files are refused, each named, unless `--allow-extra`; `item create --dir`
//! reads a folder as `update-definition --dir` does.

use crate::bad_input::assert_rejected;
use crate::definitions::{decoded, get_definition};
use crate::support::Server;
use std::path::Path;

/// Welcome's definition as files under `dir` (its .platform names the type, Notebook).
fn export_welcome(server: &Server, dir: &Path) {
    let dir = dir.to_string_lossy();
    let args = [
        "item",
        "get-definition",
        "-w",
        server.demo.as_str(),
        "--id",
        "Welcome",
        "--dir",
        &dir,
    ];
    assert_eq!(server.fabsh(&args).code, 0);
}

#[test]
fn update_definition_refuses_files_the_notebook_does_not_use_unless_allowed() {
    let server = Server::session(module_path!());
    let work = tempfile::tempdir().expect("dir");
    let dir = work.path().join("welcome");
    export_welcome(&server, &dir);
    std::fs::write(dir.join("notebook-content.py"), "# edited\n").expect("edit");
    for (name, text) in [
        ("notes.txt", "remember to ask"),
        ("notebook-content.py~", "# old"),
        (".notebook-content.py.swp", "swap"),
    ] {
        std::fs::write(dir.join(name), text).expect("extra");
    }
    let folder = dir.to_string_lossy().into_owned();
    let update = [
        "item",
        "update-definition",
        "-w",
        server.demo.as_str(),
        "--id",
        "Welcome",
        "--yes",
        "--dir",
        &folder,
    ];
    for says in [
        "--dir: 3 of the files in",
        "not part of a Notebook definition",
        ".notebook-content.py.swp, notebook-content.py~, notes.txt",
        "--allow-extra",
    ] {
        assert_rejected(&server, &update, says);
    }
    let unchanged = get_definition(&server, "Welcome", &[]);
    assert_ne!(decoded(&unchanged, "notebook-content.py"), "# edited\n");

    let allowed = [&update[..], &["--allow-extra"]].concat();
    let run = server.fabsh(&allowed);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let after = get_definition(&server, "Welcome", &[]);
    assert_eq!(decoded(&after, "notebook-content.py"), "# edited\n");
    assert_eq!(decoded(&after, "notes.txt"), "remember to ask");
}

#[test]
fn allow_extra_goes_only_with_dir() {
    let server = Server::session(module_path!());
    let definition = r#"{"parts":[{"path":"notebook-content.py","payload":"IyBoaQ==","payloadType":"InlineBase64"}]}"#;
    assert_rejected(
        &server,
        &[
            "item",
            "create",
            "-w",
            server.demo.as_str(),
            "--name",
            "n",
            "--type",
            "Notebook",
            "--definition",
            definition,
            "--allow-extra",
        ],
        "--allow-extra only applies to --dir",
    );
    assert_rejected(
        &server,
        &[
            "item",
            "create",
            "-w",
            server.demo.as_str(),
            "--name",
            "n",
            "--type",
            "Notebook",
            "--definition",
            definition,
            "--dir",
            "somewhere",
        ],
        "give only one of --definition, --dir",
    );
}

#[test]
fn create_reads_a_folder_held_against_its_type() {
    let server = Server::session(module_path!());
    let work = tempfile::tempdir().expect("dir");
    let dir = work.path().join("source");
    std::fs::create_dir(&dir).expect("dir");
    std::fs::write(dir.join("notebook-content.py"), "# from a folder\n").expect("write");
    std::fs::write(dir.join("TODO"), "later").expect("write");
    let folder = dir.to_string_lossy().into_owned();
    let create = [
        "item",
        "create",
        "-w",
        server.demo.as_str(),
        "--name",
        "From folder",
        "--type",
        "Notebook",
        "--dir",
        &folder,
    ];
    assert_rejected(&server, &create, "TODO");
    assert_rejected(&server, &create, "not part of a Notebook definition");

    std::fs::remove_file(dir.join("TODO")).expect("remove");
    let created = server.fabsh(&create).ok_json();
    assert_eq!(created["displayName"], "From folder");
    let definition = get_definition(&server, "From folder", &[]);
    assert_eq!(
        decoded(&definition, "notebook-content.py"),
        "# from a folder\n"
    );
}
