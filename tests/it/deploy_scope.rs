//! `deploy`'s scope filters, as fabric-cicd's: `--types`, `--items` and `--exclude`, or
//! config.yml's `core.item_types_in_scope`, `publish.items_to_include` and
//! `publish.folder_exclude_regex`, on fabric-cicd's sample. Expected values come from the
//! sample's own `.platform` files and the workspace's listing.

use crate::deploy::{copy_dir, deployed_part, id_of, new_workspace, sample};
use crate::deploy_fidelity::{applied, assert_refused, deploy, names};
use crate::support::shared;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A writable copy of the sample (`<dir>/workspace`).
pub(crate) fn sample_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let repo = dir.path().join("workspace");
    copy_dir(&sample(), &repo);
    (dir, repo)
}

/// The display names of the sample's items of `item_type`, from their `.platform` files.
fn sample_names(item_type: &str) -> Vec<String> {
    fn walk(dir: &Path, item_type: &str, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
            let path = entry.path();
            let Ok(text) = std::fs::read_to_string(path.join(".platform")) else {
                if path.is_dir() {
                    walk(&path, item_type, out);
                }
                continue;
            };
            let platform: Value = serde_json::from_str(&text).expect(".platform");
            if platform["metadata"]["type"] == item_type {
                out.push(
                    platform["metadata"]["displayName"]
                        .as_str()
                        .expect("name")
                        .into(),
                );
            }
        }
    }
    let mut out = Vec::new();
    walk(&sample(), item_type, &mut out);
    out.sort();
    out
}

#[test]
fn scope_flags_deploy_only_the_items_they_name() {
    let server = shared(module_path!());
    let (_dir, repo) = sample_copy();
    let workspace = new_workspace(server, "fidelity-scope");
    // Example Notebook's rules name a lakehouse and an eventhouse, which --types leaves out.
    applied(
        server,
        &repo,
        &workspace,
        &["--types", "notebook", "--exclude", "^Example "],
    );
    let mut notebooks = sample_names("Notebook");
    notebooks.retain(|n| n != "Example Notebook");
    assert_eq!(names(server, &workspace), notebooks);

    // The pipeline alone: its reference to Hello World (a logical id) is the workspace's.
    applied(
        server,
        &repo,
        &workspace,
        &["--items", "run hello world.datapipeline"],
    );
    let mut expected = notebooks.clone();
    expected.push("Run Hello World".into());
    expected.sort();
    assert_eq!(names(server, &workspace), expected);
    let notebook = id_of(server, &workspace, "Hello World", "Notebook");
    let pipeline = id_of(server, &workspace, "Run Hello World", "DataPipeline");
    let content = deployed_part(server, &workspace, &pipeline, "pipeline-content.json");
    assert!(content.contains(&notebook), "{content}");

    // The repository's items left out are no orphans: one row, nothing to do.
    let planned = deploy(
        server,
        "plan",
        &repo,
        &workspace,
        &["--types", "Notebook", "--items", "Hello World.Notebook"],
    );
    assert_eq!(planned.code, 0, "{}\n{}", planned.stderr, planned.stdout);
    let rows = planned.json()["items"].clone();
    assert_eq!(rows.as_array().expect("rows").len(), 1, "{rows:#}");
    assert_eq!(rows[0]["displayName"], "Hello World");

    // Left out and not in the workspace: a reference to it is refused, nothing sent.
    let other = new_workspace(server, "fidelity-scope-missing");
    let refused = deploy(
        server,
        "apply",
        &repo,
        &other,
        &["--items", "Run Hello World.DataPipeline"],
    );
    assert_refused(
        &refused,
        server,
        &other,
        "refers to Hello World.Notebook, which this run does not deploy (out of scope) and the target workspace does not hold",
    );
}

#[test]
fn scope_settings_of_config_yml_deploy_only_the_items_they_name() {
    let server = shared(module_path!());
    let (dir, _repo) = sample_copy();
    let config = dir.path().join("deploy.yml");
    std::fs::write(
        &config,
        "core:\n  repository_directory: workspace\n  item_types_in_scope: [Notebook, DataPipeline]\npublish:\n  items_to_include:\n    PROD: [\"Hello World.Notebook\", \"Run Hello World.DataPipeline\", \"Hello World Subfolder.Notebook\"]\n  folder_exclude_regex: \"^/subfolder$\"\n",
    )
    .expect("deploy.yml");
    let config = config.display().to_string();
    let workspace = new_workspace(server, "fidelity-scope-config");
    let run = server.fabsh(&[
        "deploy",
        "apply",
        "--config",
        &config,
        "-w",
        &workspace,
        "--environment",
        "PROD",
        "-o",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}\n{}", run.stderr, run.stdout);
    // Hello World Subfolder is in /subfolder, which folder_exclude_regex leaves out.
    assert_eq!(
        names(server, &workspace),
        ["Hello World", "Run Hello World"]
    );
    assert!(
        run.stderr
            .contains("its folder /subfolder matched publish.folder_exclude_regex"),
        "{}",
        run.stderr
    );
}
