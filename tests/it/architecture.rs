//! The crates' boundaries (DESIGN §1): each crate depends only on the crates below it, the
//! layer that talks to Fabric prints nothing, and the model does no I/O. Checked on the
//! manifests and sources as they are, so a dependency added later fails here.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn crate_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates")
        .join(name)
}

/// The names under `[dependencies]` of a crate's manifest (not dev-dependencies).
fn dependencies(name: &str) -> BTreeSet<String> {
    let manifest = std::fs::read_to_string(crate_dir(name).join("Cargo.toml")).expect("manifest");
    let mut in_dependencies = false;
    let mut found = BTreeSet::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_dependencies = line == "[dependencies]";
            continue;
        }
        if in_dependencies && let Some((key, _)) = line.split_once('=') {
            let key = key.trim();
            found.insert(key.split('.').next().unwrap_or(key).to_string());
        }
    }
    assert!(!found.is_empty(), "{name} has no [dependencies] section");
    found
}

/// Every crate of the workspace and the crates of the workspace it may depend on: the arrows
/// of DESIGN §1, pointing one way. The commands (fabsh-client) sit on the layer that talks to
/// Fabric (fabsh-api), which sits on what both sides share; local Fabric depends on the model
/// only, and nothing depends on local Fabric but the binary that starts it.
const ARROWS: &[(&str, &[&str])] = &[
    ("fabsh-model", &[]),
    ("fabsh-http", &["fabsh-model"]),
    ("fabsh-deploy", &["fabsh-model"]),
    ("fabsh-api", &["fabsh-model", "fabsh-http"]),
    (
        "fabsh-client",
        &["fabsh-model", "fabsh-http", "fabsh-deploy", "fabsh-api"],
    ),
    ("fabsh-local", &["fabsh-model"]),
];

/// The workspace's own crates a crate depends on.
fn workspace_dependencies(name: &str) -> BTreeSet<String> {
    dependencies(name)
        .into_iter()
        .filter(|dep| dep.starts_with("fabsh-"))
        .collect()
}

#[test]
fn every_crate_depends_only_on_the_crates_below_it() {
    let crates: BTreeSet<String> = std::fs::read_dir(crate_dir(""))
        .expect("crates/")
        .map(|entry| {
            entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let declared: BTreeSet<String> = ARROWS.iter().map(|(name, _)| name.to_string()).collect();
    assert_eq!(
        crates, declared,
        "a crate without its arrows declared here, or one gone"
    );
    for (name, allowed) in ARROWS {
        let allowed: BTreeSet<String> = allowed
            .iter()
            .map(std::string::ToString::to_string)
            .collect();
        let found = workspace_dependencies(name);
        let extra: Vec<_> = found.difference(&allowed).collect();
        assert!(
            extra.is_empty(),
            "{name} depends on {extra:?}, above or beside it"
        );
    }
}

/// The Rust sources of a crate, by path and text.
fn sources(name: &str) -> Vec<(PathBuf, String)> {
    let mut files = vec![crate_dir(name).join("src")];
    let mut found = Vec::new();
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(
                std::fs::read_dir(&path)
                    .expect("dir")
                    .map(|e| e.expect("entry").path()),
            );
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            let text = std::fs::read_to_string(&path).expect("source");
            found.push((path, text));
        }
    }
    found
}

#[test]
fn the_layer_that_talks_to_fabric_prints_nothing_and_knows_no_commands() {
    let files = sources("fabsh-api");
    assert!(
        files.len() > 30,
        "only {} fabsh-api sources found",
        files.len()
    );
    let forbidden = [
        "print!(",
        "println!(",
        "eprint!(",
        "eprintln!(",
        "std::io::stdout",
        "std::io::stderr",
        "indicatif",
        "fabsh_client",
    ];
    for (path, text) in files {
        for word in forbidden {
            assert!(!text.contains(word), "{} uses {word}", path.display());
        }
    }
    let manifest = dependencies("fabsh-api");
    assert!(!manifest.contains("indicatif"), "fabsh-api draws progress");
}

#[test]
fn the_model_does_no_io() {
    let deps = dependencies("fabsh-model");
    for io in ["tokio", "reqwest", "rusqlite", "axum", "dirs", "fabsh-http"] {
        assert!(!deps.contains(io), "fabsh-model depends on {io}");
    }
    let files = sources("fabsh-model");
    assert!(files.len() > 10, "only {} model sources found", files.len());
    for (path, text) in files {
        for io in ["std::fs", "std::net", "std::process", "std::env", "File::"] {
            assert!(!text.contains(io), "{} uses {io}", path.display());
        }
    }
}
