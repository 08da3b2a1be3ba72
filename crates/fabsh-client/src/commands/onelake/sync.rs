//! `onelake sync SRC DST`: a folder made like another, between this machine and OneLake.
//! What is compared is what one listing of the OneLake folder says (size, and the SHA-256
//! sync stores with each upload) against the local files' sizes and, only where sizes agree,
//! their SHA-256: an unchanged tree costs the listing requests and nothing per file.

use super::run::{Run, failed_status, files_at_once, outcome};
use super::{CONCURRENCY, DELETE, SYNC_DST, SYNC_SRC, below, lake_path, local_files, slashed};
use crate::commands::spec::HandlerFuture;
use crate::commands::typed::{Command, typed_args};
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::reply::Reply;
use fabsh_api::onelake::{LakePath, OneLake, Stored};
use futures::{StreamExt, TryStreamExt};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

typed_args! {
    /// `onelake sync`.
    pub(super) struct Sync {
        src: String = SYNC_SRC,
        dst: String = SYNC_DST,
        delete: bool = DELETE,
        concurrency: Option<i64> = CONCURRENCY,
    }
}

/// What sync does to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Upload,
    Download,
    Delete,
    Unchanged,
}

impl Action {
    fn name(self) -> &'static str {
        match self {
            Action::Upload => "upload",
            Action::Download => "download",
            Action::Delete => "delete",
            Action::Unchanged => "unchanged",
        }
    }
}

/// One file of the plan: where it is relative to both folders, on each side, and what is
/// done to it. `lake` is where the file is (or goes) in OneLake, `local` here.
struct Step {
    relative: String,
    action: Action,
    bytes: u64,
    local: PathBuf,
    lake: LakePath,
    /// The local file's SHA-256, when planning computed it (an upload stores it).
    sha256: Option<String>,
}

impl Step {
    fn row(&self, status: &str) -> Value {
        json!({
            "path": self.relative,
            "action": self.action.name(),
            "bytes": self.bytes,
            "status": status,
        })
    }
}

/// A local file below the local folder: its path and size.
struct Local {
    path: PathBuf,
    size: u64,
}

impl Command for Sync {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let at_once = files_at_once(self.concurrency);
            let from_lake = LakePath::is_written_as_lake(&self.src);
            let to_lake = LakePath::is_written_as_lake(&self.dst);
            let lake = ctx.onelake()?;
            let (steps, kept) = match (from_lake, to_lake) {
                (false, true) => self.plan_upload(&ctx, &lake, at_once).await?,
                (true, false) => self.plan_download(&ctx, &lake, at_once).await?,
                _ => {
                    return Err(Error::usage(format!(
                        "sync goes between a local folder and a OneLake folder; {:?} and {:?} are {}",
                        self.src,
                        self.dst,
                        if from_lake { "both OneLake paths" } else { "both local" }
                    ))
                    .with_hint("write OneLake paths as WORKSPACE/ITEM/Files/... or an abfss:// URL; for OneLake to OneLake use `onelake cp`"));
                }
            };
            let reply = if ctx.api().options().dry_run {
                // Writes go through object_store, not the HTTP layer that records a dry run's
                // requests: the plan is said here, and nothing is sent.
                let planned: Vec<Value> = steps
                    .iter()
                    .map(|step| step.row(planned_status(step.action)))
                    .collect();
                Reply::json(json!(planned)).with_dry_run_items(json!(planned))
            } else {
                carry_out(&ctx, &lake, &steps, at_once, to_lake).await
            };
            Ok(match kept {
                0 => reply,
                n => reply.with_note(format!(
                    "{n} file(s) at the destination are not in the source and were kept; --delete removes them"
                )),
            })
        })
    }
}

/// The status of a step that is not carried out (a dry run, or nothing to do).
fn planned_status(action: Action) -> &'static str {
    match action {
        Action::Unchanged => "in sync",
        _ => "planned",
    }
}

impl Sync {
    /// Local folder to OneLake: the steps, and how many extra OneLake files are kept.
    async fn plan_upload(
        &self,
        ctx: &Ctx,
        lake: &OneLake,
        at_once: usize,
    ) -> Result<(Vec<Step>, usize)> {
        let src = PathBuf::from(&self.src);
        let dst = lake_path(ctx, &self.dst, "DST").await?;
        if dst.inner.is_empty() {
            return Err(Error::usage(format!(
                "DST: {dst} is an item; sync into a folder of it (Files/...)"
            )));
        }
        let local = local_folder(&src, "SRC")?;
        let mut remote: BTreeMap<String, Stored> = lake
            .files_with_hashes(&dst)
            .await?
            .into_iter()
            .map(|stored| (below(&dst, &stored.path).to_string(), stored))
            .collect();
        let mut pending = Vec::new();
        for (relative, file) in local {
            let there = remote.remove(&relative);
            let lake_file = there.as_ref().map_or_else(
                || dst.at(format!("{}/{relative}", dst.inner)),
                |stored| stored.path.clone(),
            );
            let compare =
                there.and_then(|stored| stored.sha256.filter(|_| stored.size == file.size));
            pending.push((relative, file, lake_file, compare));
        }
        let mut steps = decide(pending, Action::Upload, at_once).await?;
        let kept = self.extras(
            &mut steps,
            remote.into_iter().map(|(relative, stored)| {
                let local = src.join(&relative);
                (relative, stored.size, local, stored.path)
            }),
        );
        Ok((steps, kept))
    }

    /// OneLake folder to a local folder: the steps, and how many extra local files are kept.
    async fn plan_download(
        &self,
        ctx: &Ctx,
        lake: &OneLake,
        at_once: usize,
    ) -> Result<(Vec<Step>, usize)> {
        let src = lake_path(ctx, &self.src, "SRC").await?;
        let dst = PathBuf::from(&self.dst);
        if src.inner.is_empty() {
            return Err(Error::usage(format!(
                "SRC: {src} is an item; sync from a folder of it (Files/...)"
            )));
        }
        let remote = lake.files_with_hashes(&src).await?;
        if remote.is_empty() {
            // A mistyped folder must not read as "everything here is extra" under --delete.
            return Err(Error::not_found(format!(
                "SRC: {src} holds no files in OneLake"
            )));
        }
        let mut local = if dst.exists() {
            local_folder(&dst, "DST")?
        } else {
            BTreeMap::new()
        };
        let mut pending = Vec::new();
        for stored in remote {
            let relative = below(&src, &stored.path).to_string();
            let here = local.remove(&relative);
            let compare = match &here {
                Some(file) if file.size == stored.size => stored.sha256.clone(),
                _ => None,
            };
            let file = Local {
                path: super::local_under(&dst, &relative),
                size: stored.size,
            };
            pending.push((
                relative,
                file,
                stored.path,
                compare.filter(|_| here.is_some()),
            ));
        }
        let mut steps = decide(pending, Action::Download, at_once).await?;
        let kept = self.extras(
            &mut steps,
            local.into_iter().map(|(relative, file)| {
                let lake_file = src.at(format!("{}/{relative}", src.inner));
                (relative, file.size, file.path, lake_file)
            }),
        );
        Ok((steps, kept))
    }

    /// Adds a delete step per extra destination file with `--delete`; else counts them.
    fn extras(
        &self,
        steps: &mut Vec<Step>,
        extra: impl Iterator<Item = (String, u64, PathBuf, LakePath)>,
    ) -> usize {
        let mut kept = 0;
        for (relative, bytes, local, lake) in extra {
            if !self.delete {
                kept += 1;
                continue;
            }
            steps.push(Step {
                relative,
                action: Action::Delete,
                bytes,
                local,
                lake,
                sha256: None,
            });
        }
        steps.sort_by(|a, b| a.relative.cmp(&b.relative));
        kept
    }
}

/// Each file's step: `send` (upload or download) unless a hash to compare with was found
/// (sizes agree and the OneLake side stored one) and the local file's hash equals it. The
/// local hashes are computed `at_once` files at a time.
async fn decide(
    pending: Vec<(String, Local, LakePath, Option<String>)>,
    send: Action,
    at_once: usize,
) -> Result<Vec<Step>> {
    futures::stream::iter(pending)
        .map(|(relative, file, lake, stored_hash)| async move {
            let (action, sha256) = match stored_hash {
                Some(stored) => {
                    let here = sha256_of(file.path.clone()).await?;
                    let action = if here.eq_ignore_ascii_case(&stored) {
                        Action::Unchanged
                    } else {
                        send
                    };
                    (action, Some(here))
                }
                None => (send, None),
            };
            Ok::<Step, Error>(Step {
                relative,
                action,
                bytes: file.size,
                local: file.path,
                lake,
                sha256,
            })
        })
        .buffered(at_once)
        .try_collect()
        .await
}

/// Carries out the steps that do something, `at_once` at a time; a row per file. `to_lake`:
/// OneLake is the destination (a delete step deletes there, else here).
async fn carry_out(
    ctx: &Ctx,
    lake: &OneLake,
    steps: &[Step],
    at_once: usize,
    to_lake: bool,
) -> Reply {
    let work: Vec<&Step> = steps
        .iter()
        .filter(|step| step.action != Action::Unchanged)
        .collect();
    let sent: u64 = work
        .iter()
        .filter(|step| step.action != Action::Delete)
        .map(|step| step.bytes)
        .sum();
    let run = Run::new(ctx, work.len(), Some(sent), at_once, "syncing");
    let run = &run;
    let one = async |step: &&Step| {
        let counted = |bytes: u64| run.bytes(bytes);
        match step.action {
            Action::Upload => {
                let sha256 = match &step.sha256 {
                    Some(known) => known.clone(),
                    None => sha256_of(step.local.clone()).await?,
                };
                let sending = run.sending(true, Some(&sha256), &counted);
                lake.upload(&step.local, &step.lake, &sending).await?;
            }
            Action::Download => {
                lake.download(&step.lake, &step.local, true, &counted)
                    .await?;
            }
            Action::Delete if to_lake => lake.delete(&step.lake).await?,
            Action::Delete => tokio::fs::remove_file(&step.local).await.map_err(|err| {
                Error::runtime(format!("cannot delete {}", step.local.display())).with_cause(err)
            })?,
            Action::Unchanged => {}
        }
        Ok(step.row("done"))
    };
    let failure = |step: &&Step, err: &Error| {
        let mut row = step.row(failed_status(err));
        row["error"] = json!(err.message);
        row
    };
    let (done, errors) = run.each(&work, work.iter().map(one), failure).await;
    // Every step's row in plan order: the work's own, the unchanged ones as they are.
    let mut done = done.into_iter();
    let rows: Vec<Value> = steps
        .iter()
        .map(|step| match step.action {
            Action::Unchanged => step.row(planned_status(step.action)),
            _ => done.next().unwrap_or_else(|| step.row("failed")),
        })
        .collect();
    outcome(ctx, rows, errors.len(), work.len(), "synced")
}

/// The regular files below the local folder `dir` (the argument `what`), by their path
/// relative to it; a missing folder is not found (exit 4), a file is refused (exit 2).
fn local_folder(dir: &Path, what: &str) -> Result<BTreeMap<String, Local>> {
    let meta = std::fs::metadata(dir).map_err(|err| {
        Error::not_found(format!("{what}: {} cannot be read", dir.display())).with_cause(err)
    })?;
    if !meta.is_dir() {
        return Err(Error::usage(format!(
            "{what}: {} is not a folder; sync takes folders",
            dir.display()
        ))
        .with_hint("copy one file with `fabsh onelake cp`"));
    }
    let mut files = BTreeMap::new();
    for path in local_files(dir)? {
        let relative = path
            .strip_prefix(dir)
            .map_err(|_| Error::runtime("a file outside the folder"))?;
        let size = std::fs::metadata(&path)
            .map_err(|err| {
                Error::runtime(format!("cannot read {}", path.display())).with_cause(err)
            })?
            .len();
        files.insert(slashed(relative), Local { path, size });
    }
    Ok(files)
}

/// The SHA-256 (lower-case hex) of a local file's content, read off the async threads.
async fn sha256_of(path: PathBuf) -> Result<String> {
    tokio::task::spawn_blocking(move || {
        let unreadable =
            |err| Error::runtime(format!("cannot read {}", path.display())).with_cause(err);
        let file = std::fs::File::open(&path).map_err(unreadable)?;
        fabsh_api::onelake::sha256_hex(file).map_err(unreadable)
    })
    .await
    .map_err(|err| Error::runtime("hashing a file stopped").with_cause(err))?
}
