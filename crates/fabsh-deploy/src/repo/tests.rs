use super::*;
#[cfg(unix)]
use std::os::unix::fs::symlink;

/// The fabric-cicd sample repository, copied as it is into the tests' fixtures.
pub(crate) fn sample_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/fabric-cicd-sample/workspace")
}

#[test]
fn the_sample_has_its_items_folders_and_children() {
    let items = read(&sample_dir()).expect("sample reads");
    assert_eq!(items.len(), 40);
    let nested = items
        .iter()
        .find(|i| i.display_name == "Hello World SubfolderSubfolder")
        .expect("nested notebook");
    assert_eq!(nested.folder, "/subfolder/subfolder");
    let taxi = items
        .iter()
        .find(|i| i.display_name == "TaxiDB")
        .expect("kql database");
    assert_eq!(taxi.item_type, "KQLDatabase");
    let eventhouse = items
        .iter()
        .find(|i| i.display_name == "SampleEventhouse")
        .expect("eventhouse");
    assert_eq!(
        taxi.parent_logical_id.as_deref(),
        Some(eventhouse.logical_id.as_str())
    );
    assert!(
        eventhouse
            .parts
            .iter()
            .all(|p| !p.path.starts_with(".children"))
    );
}

#[test]
fn a_folder_that_is_not_a_repository_is_refused_saying_what_one_is() {
    let root = tempfile::tempdir().expect("temp dir");
    std::fs::write(root.path().join("README.md"), "# notes\n").expect("readme");
    std::fs::create_dir_all(root.path().join("Documents/old")).expect("folders");
    let refusal = read(root.path()).expect_err("no item folder").to_string();
    assert!(
        refusal.contains("not a repository") && refusal.contains("<name>.<Type>"),
        "{refusal}"
    );
    let item = notebook(root.path(), "print(1)\n");
    let refusal = read(&item).expect_err("one item's folder").to_string();
    assert!(
        refusal.contains("one item's folder") && refusal.contains(".platform"),
        "{refusal}"
    );
    assert_eq!(read(root.path()).expect("now a repository").len(), 1);
}

/// Writes under `root` a notebook folder, `Nb.Notebook`, with a `.platform` and one part
/// holding `content`.
pub(crate) fn notebook(root: &Path, content: &str) -> PathBuf {
    let dir = root.join("Nb.Notebook");
    std::fs::create_dir_all(&dir).expect("item dir");
    let platform = serde_json::json!({
        "metadata": {"type": "Notebook", "displayName": "Nb"},
        "config": {"version": "2.0", "logicalId": "00000000-0000-0000-0000-000000000000"},
    });
    std::fs::write(dir.join(".platform"), platform.to_string()).expect(".platform");
    std::fs::write(dir.join("notebook-content.py"), content).expect("part");
    dir
}

/// A repository in a temp dir with one notebook, `Nb.Notebook`, and a folder outside it.
#[cfg(unix)]
struct Crafted {
    root: tempfile::TempDir,
    outside: tempfile::TempDir,
}

#[cfg(unix)]
impl Crafted {
    fn new() -> Crafted {
        let crafted = Crafted {
            root: tempfile::tempdir().expect("temp dir"),
            outside: tempfile::tempdir().expect("temp dir"),
        };
        notebook(crafted.root.path(), "print(1)\n");
        std::fs::write(crafted.outside.path().join("secret.txt"), "s3cret").expect("write");
        crafted
    }

    fn nb(&self) -> PathBuf {
        self.root.path().join("Nb.Notebook")
    }

    /// The message of the error reading the repository gives.
    fn refusal(&self) -> String {
        match read(self.root.path()) {
            Ok(items) => panic!("read {} items", items.len()),
            Err(err) => err.to_string(),
        }
    }
}

#[cfg(unix)]
#[test]
fn links_out_of_the_repository_are_refused_by_name() {
    // A part linked to a file outside, to a device, a linked sub-folder, a linked item folder.
    type Make = fn(&Crafted);
    let cases: [(&str, Make); 4] = [
        ("Nb.Notebook/notebook-content.py", |c| {
            std::fs::remove_file(c.nb().join("notebook-content.py")).expect("rm");
            symlink(
                c.outside.path().join("secret.txt"),
                c.nb().join("notebook-content.py"),
            )
            .expect("link");
        }),
        ("Nb.Notebook/zero.py", |c| {
            symlink("/dev/zero", c.nb().join("zero.py")).expect("link");
        }),
        ("Nb.Notebook/lib", |c| {
            symlink(c.outside.path(), c.nb().join("lib")).expect("link");
        }),
        ("Other.Notebook", |c| {
            let elsewhere = c.outside.path().join("Other.Notebook");
            std::fs::create_dir(&elsewhere).expect("dir");
            std::fs::copy(c.nb().join(".platform"), elsewhere.join(".platform")).expect("copy");
            symlink(&elsewhere, c.root.path().join("Other.Notebook")).expect("link");
        }),
    ];
    for (link, make) in cases {
        let crafted = Crafted::new();
        make(&crafted);
        let message = crafted.refusal();
        assert!(
            message.starts_with(&format!("{link}: a link to "))
                && message.contains("leads out of the repository"),
            "{link}: {message}"
        );
        assert!(!message.contains("s3cret"), "{message}");
    }
}

#[cfg(unix)]
#[test]
fn links_inside_are_followed_and_no_folder_is_read_twice() {
    let crafted = Crafted::new();
    std::fs::create_dir(crafted.root.path().join("shared")).expect("dir");
    std::fs::write(crafted.root.path().join("shared/common.py"), "x = 1\n").expect("write");
    symlink("../shared/common.py", crafted.nb().join("common.py")).expect("link");
    let items = read(crafted.root.path()).expect("a link inside is followed");
    let part = items[0]
        .parts
        .iter()
        .find(|p| p.path == "common.py")
        .expect("linked part");
    assert_eq!(part.bytes, b"x = 1\n");
    // Two links to the item's own folder would make the walk endless.
    symlink(".", crafted.nb().join("a")).expect("link");
    symlink(".", crafted.nb().join("b")).expect("link");
    let message = crafted.refusal();
    assert!(
        message.starts_with("Nb.Notebook/a: leads to a folder read already"),
        "{message}"
    );
}

#[cfg(unix)]
#[test]
fn only_regular_files_within_the_caps_are_read() {
    let crafted = Crafted::new();
    let fifo = crafted.nb().join("pipe.py");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    // Opening a pipe would block until something writes to it: it is refused unopened.
    let message = crafted.refusal();
    assert!(
        message.starts_with("Nb.Notebook/pipe.py: not a regular file (a named pipe)"),
        "{message}"
    );
    std::fs::remove_file(&fifo).expect("rm");
    // A part one byte over what a definition request holds, as a sparse file.
    let big = std::fs::File::create(crafted.nb().join("big.py")).expect("create");
    big.set_len(DEFINITION_BYTES + 1).expect("grow");
    let message = crafted.refusal();
    assert!(
        message.contains("Nb.Notebook/big.py: ")
            && message.contains("more than the 96 MiB one part may hold"),
        "{message}"
    );
    // Two parts that fit alone, but not together in one item's definition.
    big.set_len(DEFINITION_BYTES / 2).expect("shrink");
    let other = std::fs::File::create(crafted.nb().join("big2.py")).expect("create");
    other.set_len(DEFINITION_BYTES / 2).expect("grow");
    let message = crafted.refusal();
    assert!(
        message.contains("its item's files add up to more than the 96 MiB"),
        "{message}"
    );
}

#[test]
fn an_item_name_the_service_refuses_is_refused_before_anything_is_sent() {
    let root = tempfile::tempdir().expect("temp dir");
    let dir = root.path().join("Sales-2024.Lakehouse");
    std::fs::create_dir_all(&dir).expect("item dir");
    // Lakehouse names hold letters, digits and underscores only (fabsh-model's naming).
    let platform = serde_json::json!({
        "metadata": {"type": "Lakehouse", "displayName": "Sales-2024"},
        "config": {"version": "2.0", "logicalId": "00000000-0000-0000-0000-000000000000"},
    });
    std::fs::write(dir.join(".platform"), platform.to_string()).expect(".platform");
    let refusal = match read(root.path()) {
        Ok(items) => panic!("read {} items", items.len()),
        Err(err) => err.to_string(),
    };
    assert!(
        refusal.contains("Sales-2024.Lakehouse/.platform"),
        "{refusal}"
    );
    assert!(
        refusal.contains("metadata.displayName \"Sales-2024\""),
        "{refusal}"
    );
    assert!(refusal.contains("Lakehouse names hold only"), "{refusal}");
}
