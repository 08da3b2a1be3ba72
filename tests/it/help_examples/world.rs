//! The world every help example starts from: the seeded Demo workspace plus what the
//! examples name (workspaces, items, folders, a published data agent, an external data share
//! with a partner app in the second tenant, a sign-in, a pending device code, two recorded
//! evaluation runs of the agent), the files they
//! read, and the ids they take as shell variables. It is built once by running fabsh against
//! a `local serve`, which is then stopped; each example runs on a copy of it.

mod access;
mod agent;

use super::files;
use crate::judge_stub::{self, Judge};
use crate::support::{Home, Server};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The prepared world: a home whose `fabric/` is local Fabric's store and whose `work/` is
/// the directory the examples run in.
pub(super) struct World {
    home: Home,
    /// The variables the examples use, as a user would have set them.
    pub vars: Vec<(String, String)>,
    /// A token of the partner app, the recipient of the world's external data share.
    pub partner_token: String,
}

impl World {
    /// Builds the world; `judge` stands in for the judge model of `--llm-endpoint`.
    pub(super) fn build(judge: &Judge) -> World {
        // Runs started while the world is built last a day, so JOB_RUN_ID is still running when
        // `job cancel` is given it.
        let server = Server::with(&[("job-ms", "86400000")]);
        let mut builder = Builder::new(&server);
        builder.build(judge);
        let Builder {
            vars,
            partner_token,
            ..
        } = builder;
        // A clean stop closes the store, so its files can be copied as they are.
        let (home, _) = server.interrupt();
        World {
            home,
            vars,
            partner_token,
        }
    }

    /// A fresh copy of the world, for one example.
    pub(super) fn copy(&self) -> Home {
        let home = Home::new();
        copy_dir(self.home.dir.path(), home.dir.path());
        home
    }
}

/// The store of a world (or of a copy of one).
pub(super) fn data_dir(root: &Path) -> PathBuf {
    root.join("fabric")
}

/// The directory the examples run in.
pub(super) fn work_dir(root: &Path) -> PathBuf {
    root.join("work")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create dir");
    // The copy keeps each directory's mode too: local Fabric refuses a store dir others can read.
    let mode = std::fs::metadata(from).expect("dir mode").permissions();
    std::fs::set_permissions(to, mode).expect("set dir mode");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("dir entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            // fs::copy keeps the mode: the token cache and threads stay private (0600).
            std::fs::copy(entry.path(), &target).expect("copy file");
        }
    }
}

struct Builder<'a> {
    server: &'a Server,
    work: PathBuf,
    vars: Vec<(String, String)>,
    partner_token: String,
}

impl<'a> Builder<'a> {
    fn new(server: &'a Server) -> Builder<'a> {
        let work = work_dir(server.home.dir.path());
        std::fs::create_dir_all(&work).expect("work dir");
        Builder {
            server,
            work,
            vars: Vec::new(),
            partner_token: String::new(),
        }
    }

    /// Runs fabsh against the world's server and returns what it printed.
    fn ok(&self, args: &[&str]) -> String {
        let run = self.server.fabsh(args);
        assert_eq!(
            run.code, 0,
            "building the world: fabsh {args:?}\n{}",
            run.stderr
        );
        run.stdout
    }

    /// Runs fabsh and returns its output as JSON.
    fn json(&self, args: &[&str]) -> Value {
        serde_json::from_str(&self.ok(args)).expect("JSON output")
    }

    /// Runs fabsh with `-q QUERY` and returns the string it selects.
    fn text(&self, args: &[&str], query: &str) -> String {
        let mut all = args.to_vec();
        all.extend(["-q", query]);
        let value = self.json(&all);
        value
            .as_str()
            .unwrap_or_else(|| panic!("{query} of {args:?} is not text: {value}"))
            .to_string()
    }

    /// A file in the work dir, by name.
    fn file(&self, name: &str) -> String {
        self.work.join(name).to_string_lossy().into_owned()
    }

    fn set(&mut self, name: &str, value: &str) {
        self.vars.push((name.to_string(), value.to_string()));
    }

    fn build(&mut self, judge: &Judge) {
        self.workspaces_and_items();
        self.definitions();
        self.data_agent();
        self.sharing();
        self.principals_and_sign_ins();
        files::write(&self.work);
        self.onelake();
        self.deployment();
        self.evaluations();
        self.jobs();
        self.set("AZURE_OPENAI_ENDPOINT", judge.endpoint());
        self.set("FABSH_LLM_KEY", judge_stub::KEY);
    }

    /// Release holds the sample repository as `deploy apply` put it there, so a plan against
    /// it has nothing to do; `release.plan` is that plan, saved.
    fn deployment(&mut self) {
        self.ok(&["workspace", "create", "--name", "Release"]);
        crate::deploy::seed_shortcut_targets(self.server, "Release");
        let config = self.file("deploy.yml");
        let deploy = |command: &str| {
            vec![
                "deploy".to_string(),
                command.to_string(),
                "--config".into(),
                config.clone(),
                "-w".into(),
                "Release".into(),
                "--environment".into(),
                "PROD".into(),
            ]
        };
        let apply = deploy("apply");
        self.ok(&apply.iter().map(String::as_str).collect::<Vec<_>>());
        let mut plan = deploy("plan");
        plan.extend(["--out".into(), self.file("release.plan")]);
        self.ok(&plan.iter().map(String::as_str).collect::<Vec<_>>());
    }

    /// JOB_RUN_ID: a run of Welcome still going; SCHEDULE_ID: a schedule of Welcome.
    /// A file in the demo lakehouse's `Files/raw`, for the `onelake` examples.
    fn onelake(&mut self) {
        let returns = self.file("returns.csv");
        self.ok(&["onelake", "cp", &returns, "Demo/SalesLakehouse/Files/raw/"]);
    }

    fn jobs(&mut self) {
        let run = self.text(&["job", "run", "Demo/Welcome", "--no-wait"], "id");
        self.set("JOB_RUN_ID", &run);
        let schedule = self.text(
            &[
                "schedule",
                "create",
                "Demo/Welcome",
                "--type",
                "Daily",
                "--times",
                "06:00",
                "--start",
                "2025-01-01T00:00:00Z",
                "--end",
                "2030-01-01T00:00:00Z",
            ],
            "id",
        );
        self.set("SCHEDULE_ID", &schedule);
    }

    fn workspaces_and_items(&mut self) {
        // Sales receives copies and moves, Staging imports, Inbox accepts the share, Scratch
        // is there to be deleted. (Marketing is what `workspace create` makes.)
        for name in ["Sales", "Staging", "Inbox", "Scratch"] {
            self.ok(&["workspace", "create", "--name", name]);
        }
        // `deploy apply -w Staging` deploys the sample, whose shortcuts need their data.
        crate::deploy::seed_shortcut_targets(self.server, "Staging");
        let workspace = self.text(&["workspace", "show", "-w", "Demo"], "id");
        self.set("WORKSPACE_ID", &workspace);
        // Draft is for `item delete`, n1..n3 for `item bulk-delete`.
        self.ok(&[
            "item", "create", "-w", "Demo", "--name", "Draft", "--type", "Notebook",
        ]);
        let notebooks = json!([
            {"displayName": "n1", "type": "Notebook"},
            {"displayName": "n2", "type": "Notebook"},
            {"displayName": "n3", "type": "Notebook"},
        ]);
        let created = self.json(&[
            "item",
            "bulk-create",
            "-w",
            "Demo",
            "--content",
            &notebooks.to_string(),
            "-q",
            "results[].id",
        ]);
        // FOLDER_ID is a folder inside another, so `folder move` to the root moves it.
        let archive = self.text(
            &["folder", "create", "-w", "Demo", "--name", "Archive"],
            "id",
        );
        let folder = self.text(
            &[
                "folder",
                "create",
                "-w",
                "Demo",
                "--name",
                "2024",
                "--parent-id",
                &archive,
            ],
            "id",
        );
        self.set("FOLDER_ID", &folder);
        let moved = json!({"items": [created[0], created[1]], "targetFolderId": folder});
        std::fs::write(self.file("move.json"), moved.to_string()).expect("move.json");
        let tag = self.text(&["tag", "list"], "[?displayName=='Finance'] | [0].id");
        self.set("TAG_ID", &tag);
    }

    fn definitions(&mut self) {
        let welcome = self.text(&["item", "show", "-w", "Demo", "--id", "Welcome"], "id");
        let dir = self.file("welcome");
        self.ok(&[
            "item",
            "get-definition",
            "-w",
            "Demo",
            "--id",
            "Welcome",
            "--dir",
            &dir,
        ]);
        std::fs::copy(
            self.work.join("welcome/notebook-content.py"),
            self.work.join("notebook-content.py"),
        )
        .expect("notebook-content.py");
        // Only the source part: the .platform part would give the new item Welcome's
        // logical id, which is taken.
        let source = self.ok(&[
            "item",
            "get-definition",
            "-w",
            "Demo",
            "--id",
            "Welcome",
            "-q",
            "{parts: definition.parts[?path=='notebook-content.py']}",
        ]);
        std::fs::write(self.file("notebook.json"), source).expect("notebook.json");
        let report = self.ok(&[
            "item",
            "get-definition",
            "-w",
            "Demo",
            "--id",
            "Sales Report",
        ]);
        std::fs::write(self.file("report.json"), report).expect("report.json");
        let selection = json!({"mode": "Selective", "items": [{"id": welcome}]});
        std::fs::write(self.file("selection.json"), selection.to_string()).expect("selection");
        let export = self.ok(&["item", "bulk-export-definitions", "-w", "Demo"]);
        std::fs::write(self.file("export.json"), export).expect("export.json");
        let dir = self.file("demo-export");
        self.ok(&[
            "item",
            "bulk-export-definitions",
            "-w",
            "Demo",
            "--dir",
            &dir,
        ]);
    }
}
