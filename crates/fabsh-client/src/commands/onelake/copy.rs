//! `onelake cp | mv`: files copied between this machine and OneLake, or within OneLake.

use super::run::{Run, failed_status, files_at_once, outcome};
use super::{
    CONCURRENCY, DST_LAKE, OVERWRITE, RECURSIVE, SRC_LAKE, below, lake_path, local_files,
    local_under, slashed,
};
use super::{DST, SRC};
use crate::commands::spec::HandlerFuture;
use crate::commands::typed::{Command, typed_args};
use crate::context::Ctx;
use crate::error::{Error, ErrorKind, Result};
use crate::reply::Reply;
use fabsh_api::onelake::{LakePath, OneLake, check_upload_size, destination_exists};
use futures::{StreamExt, TryStreamExt};
use serde_json::json;
use std::path::PathBuf;

typed_args! {
    /// `onelake mv`.
    pub(super) struct Mv {
        src: String = SRC_LAKE,
        dst: String = DST_LAKE,
        recursive: bool = RECURSIVE,
        overwrite: bool = OVERWRITE,
        concurrency: Option<i64> = CONCURRENCY,
    }
}

impl Command for Mv {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let copy = Cp {
                src: self.src,
                dst: self.dst,
                recursive: self.recursive,
                overwrite: self.overwrite,
                concurrency: self.concurrency,
            };
            let pairs = copy.within(&ctx).await?;
            transfer(&ctx, &pairs, &copy, Then::DeleteSource).await
        })
    }
}

typed_args! {
    /// `onelake cp`.
    pub(super) struct Cp {
        src: String = SRC,
        dst: String = DST,
        recursive: bool = RECURSIVE,
        overwrite: bool = OVERWRITE,
        concurrency: Option<i64> = CONCURRENCY,
    }
}

impl Command for Cp {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let from_lake = LakePath::is_written_as_lake(&self.src);
            let to_lake = LakePath::is_written_as_lake(&self.dst);
            if !from_lake && !to_lake {
                return Err(Error::usage(format!(
                    "neither {:?} nor {:?} is a OneLake path",
                    self.src, self.dst
                ))
                .with_hint("write OneLake paths as WORKSPACE/ITEM/Files/... or an abfss:// URL"));
            }
            let pairs = match (from_lake, to_lake) {
                (false, true) => self.uploads(&ctx).await?,
                (true, false) => self.downloads(&ctx).await?,
                _ => self.within(&ctx).await?,
            };
            transfer(&ctx, &pairs, &self, Then::Keep).await
        })
    }
}

/// One file to copy.
enum Pair {
    Up(PathBuf, LakePath),
    Down(LakePath, PathBuf),
    Within(LakePath, LakePath),
}

impl Pair {
    fn source_text(&self) -> String {
        match self {
            Pair::Up(local, _) => local.display().to_string(),
            Pair::Down(lake, _) | Pair::Within(lake, _) => lake.to_string(),
        }
    }

    fn destination_text(&self) -> String {
        match self {
            Pair::Down(_, local) => local.display().to_string(),
            Pair::Up(_, lake) | Pair::Within(_, lake) => lake.to_string(),
        }
    }

    async fn run(&self, lake: &OneLake, overwrite: bool, run: &Run) -> Result<u64> {
        let counted = |bytes: u64| run.bytes(bytes);
        let sending = run.sending(overwrite, None, &counted);
        match self {
            Pair::Up(from, to) => lake.upload(from, to, &sending).await,
            Pair::Down(from, to) => lake.download(from, to, overwrite, &counted).await,
            Pair::Within(from, to) => {
                // Through a temporary file here: the two may be in different workspaces. The
                // folder goes when this is done or dropped.
                let scratch = tempfile::tempdir().map_err(|err| {
                    Error::runtime("cannot make a temporary folder").with_cause(err)
                })?;
                let file = scratch.path().join("file");
                // The bar counts what reaches the destination: the second leg.
                lake.download(from, &file, true, &|_| {}).await?;
                lake.upload(&file, to, &sending).await
            }
        }
    }
}

impl Cp {
    /// Local files to OneLake.
    async fn uploads(&self, ctx: &Ctx) -> Result<Vec<Pair>> {
        let src = PathBuf::from(&self.src);
        let dst = lake_path(ctx, &self.dst, "DST").await?;
        if dst.inner.is_empty() {
            return Err(Error::usage(format!(
                "DST: {dst} is an item; copy into its Files/ folder"
            )));
        }
        let meta = std::fs::metadata(&src).map_err(|err| {
            Error::not_found(format!("SRC: {} cannot be read", src.display())).with_cause(err)
        })?;
        if meta.is_dir() {
            if !self.recursive {
                return Err(Error::usage(format!("SRC: {} is a folder", src.display()))
                    .with_hint("give --recursive to copy every file below it"));
            }
            let mut pairs = Vec::new();
            for file in local_files(&src)? {
                let relative = file
                    .strip_prefix(&src)
                    .map_err(|_| Error::runtime("a file outside the folder"))?;
                let inner = format!("{}/{}", dst.inner, slashed(relative));
                pairs.push(Pair::Up(file, dst.at(inner)));
            }
            return Ok(pairs);
        }
        let to = match (self.dst.ends_with('/'), src.file_name()) {
            (true, Some(name)) => dst.at(format!("{}/{}", dst.inner, name.to_string_lossy())),
            (true, None) => {
                return Err(Error::usage(format!(
                    "SRC: {} names no file",
                    src.display()
                )));
            }
            (false, _) => dst,
        };
        Ok(vec![Pair::Up(src, to)])
    }

    /// OneLake files to this machine.
    async fn downloads(&self, ctx: &Ctx) -> Result<Vec<Pair>> {
        let src = lake_path(ctx, &self.src, "SRC").await?;
        let dst = PathBuf::from(&self.dst);
        let lake = ctx.onelake()?;
        if self.recursive {
            let files = lake.files_below(&src).await?;
            return Ok(files
                .into_iter()
                .map(|file| {
                    let to = local_under(&dst, below(&src, &file));
                    Pair::Down(file, to)
                })
                .collect());
        }
        let into = self.dst.ends_with('/') || dst.is_dir();
        let to = match (into, src.file_name()) {
            (true, Some(name)) => dst.join(name),
            _ => dst,
        };
        Ok(vec![Pair::Down(src, to)])
    }

    /// OneLake files to other OneLake paths.
    async fn within(&self, ctx: &Ctx) -> Result<Vec<Pair>> {
        let src = lake_path(ctx, &self.src, "SRC").await?;
        let dst = lake_path(ctx, &self.dst, "DST").await?;
        if self.recursive {
            let files = ctx.onelake()?.files_below(&src).await?;
            return Ok(files
                .into_iter()
                .map(|file| {
                    let to = dst.at(format!("{}/{}", dst.inner, below(&src, &file)));
                    Pair::Within(file, to)
                })
                .collect());
        }
        let to = match (self.dst.ends_with('/'), src.file_name()) {
            (true, Some(name)) => dst.at(format!("{}/{name}", dst.inner)),
            _ => dst,
        };
        Ok(vec![Pair::Within(src, to)])
    }
}

/// What becomes of a source once its copy is whole.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Then {
    Keep,
    DeleteSource,
}

/// Copies every pair (a destination that exists refused first, unless `--overwrite`),
/// `--concurrency` files at once, then deletes each source whose copy is whole when moving.
/// One file gets its own error and exit code; of many, each has its row, and exit 5 says some
/// failed (130: Ctrl-C stopped the copy). Under `--dry-run` nothing is written: the rows say
/// what would be copied.
async fn transfer(ctx: &Ctx, pairs: &[Pair], how: &Cp, then: Then) -> Result<Reply> {
    let lake = ctx.onelake()?;
    let lake = &*lake;
    let total = bytes_to_send(pairs)?;
    if !how.overwrite {
        refuse_existing(lake, pairs).await?;
    }
    let (doing, done) = match then {
        Then::Keep => ("copying", "copied"),
        Then::DeleteSource => ("moving", "moved"),
    };
    let row = |pair: &Pair, bytes: Option<u64>, status: &str| {
        json!({
            "from": pair.source_text(),
            "to": pair.destination_text(),
            "bytes": bytes,
            "status": status,
        })
    };
    if ctx.api().options().dry_run {
        // object_store's writes do not pass through the HTTP layer that records a dry run's
        // requests: the plan is said here, and nothing is sent.
        let planned: Vec<_> = pairs
            .iter()
            .map(|pair| row(pair, None, "planned"))
            .collect();
        return Ok(Reply::json(json!(planned)).with_dry_run_items(json!(planned)));
    }
    let run = Run::new(
        ctx,
        pairs.len(),
        total,
        files_at_once(how.concurrency),
        doing,
    );
    let run = &run;
    let one = async |pair: &Pair| {
        let bytes = pair.run(lake, how.overwrite, run).await?;
        if let (Then::DeleteSource, Pair::Within(source, _)) = (then, pair) {
            lake.delete(source).await?;
        }
        Ok::<u64, Error>(bytes)
    };
    let copied = async |pair: &Pair| Ok(row(pair, Some(one(pair).await?), done));
    let failure = |pair: &Pair, err: &Error| {
        let mut failure = row(pair, None, failed_status(err));
        failure["error"] = json!(err.message);
        failure
    };
    let (rows, errors) = run.each(pairs, pairs.iter().map(copied), failure).await;
    if let ([_], [err]) = (pairs, errors.as_slice())
        && err.kind != ErrorKind::Cancelled
    {
        // One file: its own error, with its own exit code.
        return Err(err.clone());
    }
    Ok(outcome(ctx, rows, errors.len(), pairs.len(), done))
}

/// Refuses (exit 2, before anything is written) when a destination exists.
async fn refuse_existing(lake: &OneLake, pairs: &[Pair]) -> Result<()> {
    let on_lake = pairs.iter().filter_map(|pair| match pair {
        Pair::Up(_, to) | Pair::Within(_, to) => Some(to),
        Pair::Down(..) => None,
    });
    let taken = files_in_folders_of(lake, on_lake).await?;
    let existing: Vec<String> = pairs
        .iter()
        .filter(|pair| match pair {
            Pair::Down(_, local) => local.exists(),
            Pair::Up(_, to) | Pair::Within(_, to) => taken.contains(&to.to_string()),
        })
        .map(Pair::destination_text)
        .collect();
    match existing.as_slice() {
        [] => Ok(()),
        [one] => Err(destination_exists(one)),
        [first, ..] => Err(Error::usage(format!(
            "{} destinations exist, {first} first",
            existing.len()
        ))
        .with_hint("give --overwrite to replace them; nothing was copied")),
    }
}

/// The files (shown as paths) in the folders that hold `paths`: one listing per folder, a
/// few at once, rather than a request per path.
async fn files_in_folders_of(
    lake: &OneLake,
    paths: impl Iterator<Item = &LakePath>,
) -> Result<std::collections::HashSet<String>> {
    let mut folders: Vec<LakePath> = paths
        .map(|path| {
            let parent = path.inner.rsplit_once('/').map_or("", |(parent, _)| parent);
            path.at(parent.to_string())
        })
        .collect();
    folders.sort_by_key(LakePath::to_string);
    folders.dedup();
    // A loop, not `map` with a closure: the handler's future must be Send, which the
    // compiler cannot prove through a closure over borrowed futures.
    let mut lists = Vec::new();
    for folder in &folders {
        lists.push(lake.list(folder, false));
    }
    let listings: Vec<Vec<fabsh_api::onelake::Entry>> = futures::stream::iter(lists)
        .buffer_unordered(FOLDERS_AT_ONCE)
        .try_collect()
        .await?;
    Ok(listings
        .into_iter()
        .flatten()
        .filter(|entry| entry.kind == "file")
        .map(|entry| entry.path)
        .collect())
}

/// Folders listed at once when checking destinations.
const FOLDERS_AT_ONCE: usize = 8;

/// The bytes the pairs move, when known without asking OneLake (an upload's files are here);
/// a file too large for OneLake stops the copy here, before anything is sent.
fn bytes_to_send(pairs: &[Pair]) -> Result<Option<u64>> {
    let mut total = Some(0u64);
    for pair in pairs {
        let size = match pair {
            Pair::Up(local, _) => std::fs::metadata(local).ok().map(|meta| meta.len()),
            Pair::Down(..) | Pair::Within(..) => None,
        };
        if let (Pair::Up(local, _), Some(size)) = (pair, size) {
            check_upload_size(local, size)?;
        }
        total = total.zip(size).map(|(sum, size)| sum + size);
    }
    Ok(total)
}
