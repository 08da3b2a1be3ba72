//! The crates' boundaries (DESIGN §1): the client and local Fabric never depend on each
//! other, what they share depends on neither, and the model does no I/O. Checked on the
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

#[test]
fn the_client_and_local_fabric_never_depend_on_each_other() {
    let client = dependencies("fabsh-client");
    let local = dependencies("fabsh-local");
    // fabsh-http is the client side's outbound HTTP: local Fabric is handed a model through
    // the model's trait instead of reaching for it.
    for client_side in ["fabsh-client", "fabsh-http"] {
        assert!(
            !local.contains(client_side),
            "fabsh-local depends on {client_side}"
        );
    }
    assert!(
        !client.contains("fabsh-local"),
        "fabsh-client depends on fabsh-local"
    );
    let http = dependencies("fabsh-http");
    assert!(
        !http.contains("fabsh-local"),
        "fabsh-http depends on fabsh-local"
    );
    assert!(
        client.contains("fabsh-http"),
        "fabsh-client no longer uses fabsh-http"
    );
    // What both sides share depends on neither and is used by both.
    let model = dependencies("fabsh-model");
    for side in ["fabsh-client", "fabsh-local", "fabsh-http"] {
        assert!(!model.contains(side), "fabsh-model depends on {side}");
    }
    for side in [&client, &local] {
        assert!(
            side.contains("fabsh-model"),
            "a side no longer uses fabsh-model"
        );
    }
}

#[test]
fn the_model_does_no_io() {
    let deps = dependencies("fabsh-model");
    for io in ["tokio", "reqwest", "rusqlite", "axum", "dirs", "fabsh-http"] {
        assert!(!deps.contains(io), "fabsh-model depends on {io}");
    }
    let mut files = vec![crate_dir("fabsh-model").join("src")];
    let mut checked = 0;
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(
                std::fs::read_dir(&path)
                    .expect("dir")
                    .map(|e| e.expect("entry").path()),
            );
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("source");
        for io in ["std::fs", "std::net", "std::process", "std::env", "File::"] {
            assert!(!text.contains(io), "{} uses {io}", path.display());
        }
        checked += 1;
    }
    assert!(checked > 10, "only {checked} model sources found");
}
