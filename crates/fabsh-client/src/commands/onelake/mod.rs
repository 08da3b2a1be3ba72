//! `onelake ls | cp | cat | rm`: files in lakehouses and other items' OneLake storage, on the
//! service and on local Fabric ([`fabsh_api::onelake`]). A path is written as fabsh users
//! write items (`Demo/SalesLakehouse/Files/raw`, `Demo.Workspace/SalesLakehouse.Lakehouse/...`)
//! or as an `abfss://` or `https://onelake...` URL; `cp` takes any other argument as a local
//! path (`./Demo/LH/Files/x` is local).

use super::spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, LocalPath, Traits,
};
use super::typed::{Command, handler, typed_args};
use crate::context::Ctx;
use crate::error::{Error, ErrorKind, Result};
use crate::reply::Reply;
use fabsh_api::onelake::{LakePath, OneLake};
use futures::StreamExt;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// `PATH`: a OneLake path.
const PATH: ArgSpec = ArgSpec::positional(
    "path",
    ArgKind::Str,
    "WORKSPACE/ITEM/Files/... (or .Workspace/.Type names, or an abfss:// or https://onelake... URL)",
);
/// `SRC` of `cp`.
const SRC: ArgSpec = ArgSpec::positional(
    "src",
    ArgKind::Str,
    "What to copy: a local file or folder, or a OneLake path",
)
.local(LocalPath::ReadDir);
/// `DST` of `cp`.
const DST: ArgSpec = ArgSpec::positional(
    "dst",
    ArgKind::Str,
    "Where to: a local path or a OneLake path; ending in / (or an existing local folder), into it",
)
.local(LocalPath::WriteDir);
/// `SRC` of `mv`.
const SRC_LAKE: ArgSpec =
    ArgSpec::positional("src", ArgKind::Str, "The OneLake file or folder to move");
/// `DST` of `mv`.
const DST_LAKE: ArgSpec = ArgSpec::positional(
    "dst",
    ArgKind::Str,
    "Where to in OneLake; ending in /, into it",
);
/// `--recursive`.
const RECURSIVE: ArgSpec = ArgSpec::opt(
    "recursive",
    ArgKind::Bool,
    "Every file below the folder, at any depth",
)
.short('r');
/// `--long`.
const LONG: ArgSpec = ArgSpec::opt(
    "long",
    ArgKind::Bool,
    "Show each entry's whole path instead of its name",
)
.short('l');
/// `--lines` of `head`.
const LINES: ArgSpec = ArgSpec::opt("lines", ArgKind::Int, "How many lines to print")
    .short('n')
    .range(1, 100_000)
    .default("10");
/// The most `head` reads of a file: its first lines are in there, or the lines are too long
/// to be worth printing whole.
const HEAD_BYTES: u64 = 1024 * 1024;

/// `--overwrite`.
const OVERWRITE: ArgSpec = ArgSpec::opt(
    "overwrite",
    ArgKind::Bool,
    "Replace files that exist at the destination (without it, an existing file stops the copy before anything is sent)",
);

/// The `onelake` commands.
pub static COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        group: "onelake",
        name: "ls",
        summary: "List the files and folders at a OneLake path",
        about: "Folders first, then files with their size and time of change; --recursive lists every file below the path. A path that is a file lists that file.",
        args: &[PATH, RECURSIVE, LONG],
        traits: Traits::READ.unpaged_list(),
        columns: &["kind", "size", "modified", "name"],
        examples: &[
            Example {
                command: "onelake ls Demo/SalesLakehouse/Files",
                about: "the lakehouse's top-level files and folders",
            },
            Example {
                command: "onelake ls Demo.Workspace/SalesLakehouse.Lakehouse/Files --recursive",
                about: "every file below Files",
            },
        ],
        handler: Handler::Data(handler::<Ls>),
    },
    CommandSpec {
        group: "onelake",
        name: "cp",
        summary: "Copy files between this machine and OneLake, or within OneLake",
        about: "Uploads a local file (or, with --recursive, a folder) to OneLake, downloads a OneLake file (or folder) here, or copies within OneLake. Files are streamed in 4 MiB blocks, four files at a time, never read whole into memory; an upload becomes visible only when complete, and a download is written to a temporary file renamed into place, so nothing half-written is left. A file that exists at the destination is replaced only with --overwrite. Each file's outcome is reported; when some fail, the others are still copied and the exit code is 5.",
        args: &[SRC, DST, RECURSIVE, OVERWRITE],
        traits: Traits::MUTATE.unpaged_list(),
        columns: &["from", "to", "bytes", "status"],
        examples: &[
            Example {
                command: "onelake cp ./returns.csv Demo/SalesLakehouse/Files/incoming/",
                about: "upload a file into a folder",
            },
            Example {
                command: "onelake cp Demo/SalesLakehouse/Files/raw ./raw --recursive",
                about: "download a folder",
            },
        ],
        handler: Handler::Data(handler::<Cp>),
    },
    CommandSpec {
        group: "onelake",
        name: "cat",
        summary: "Print a OneLake text file",
        about: "Prints the file as it is; a file that is not UTF-8 text is refused (download it with `onelake cp`).",
        args: &[PATH],
        traits: Traits::READ,
        columns: &[],
        examples: &[Example {
            command: "onelake cat Demo/SalesLakehouse/Files/raw/returns.csv",
            about: "print a CSV file",
        }],
        handler: Handler::Data(handler::<Cat>),
    },
    CommandSpec {
        group: "onelake",
        name: "head",
        summary: "Print the first lines of a OneLake text file",
        about: "Reads at most the file's first MiB (a ranged read), never the whole file.",
        args: &[PATH, LINES],
        traits: Traits::READ,
        columns: &[],
        examples: &[Example {
            command: "onelake head Demo/SalesLakehouse/Files/raw/returns.csv -n 3",
            about: "the header and two rows",
        }],
        handler: Handler::Data(handler::<Head>),
    },
    CommandSpec {
        group: "onelake",
        name: "mv",
        summary: "Move OneLake files: copy, then delete the source once the copy is whole",
        about: "As `onelake cp` between OneLake paths, then deletes each source file whose copy succeeded. A source whose copy failed is kept.",
        args: &[SRC_LAKE, DST_LAKE, RECURSIVE, OVERWRITE],
        traits: Traits::DESTRUCTIVE.unpaged_list(),
        columns: &["from", "to", "bytes", "status"],
        examples: &[Example {
            command: "onelake mv Demo/SalesLakehouse/Files/raw Demo/SalesLakehouse/Files/archive -r --yes",
            about: "move a folder",
        }],
        handler: Handler::Data(handler::<Mv>),
    },
    CommandSpec {
        group: "onelake",
        name: "rm",
        summary: "Delete a OneLake file, or with --recursive every file below a folder",
        about: "Asks first unless --yes. Each file's outcome is reported; when some fail, the exit code is 5.",
        args: &[PATH, RECURSIVE],
        traits: Traits::DESTRUCTIVE.unpaged_list(),
        columns: &["path", "status"],
        examples: &[Example {
            command: "onelake rm Demo/SalesLakehouse/Files/raw --recursive --yes",
            about: "delete a folder's files",
        }],
        handler: Handler::Data(handler::<Rm>),
    },
];

typed_args! {
    /// `onelake ls`.
    struct Ls {
        path: String = PATH,
        recursive: bool = RECURSIVE,
        long: bool = LONG,
    }
}

impl Command for Ls {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let path = lake_path(&ctx, &self.path, "PATH").await?;
            let mut entries = ctx.onelake()?.list(&path, self.recursive).await?;
            if self.long {
                for entry in &mut entries {
                    entry.name.clone_from(&entry.path);
                }
            }
            Ok(Reply::json(
                serde_json::to_value(entries).map_err(Error::from)?,
            ))
        })
    }
}

typed_args! {
    /// `onelake cat`.
    struct Cat {
        path: String = PATH,
    }
}

impl Command for Cat {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let path = lake_path(&ctx, &self.path, "PATH").await?;
            let bytes = ctx.onelake()?.read(&path, None).await?;
            let text = String::from_utf8(bytes).map_err(|_| not_text(&path))?;
            Ok(Reply::text(text))
        })
    }
}

typed_args! {
    /// `onelake head`.
    struct Head {
        path: String = PATH,
        lines: Option<i64> = LINES,
    }
}

impl Command for Head {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let path = lake_path(&ctx, &self.path, "PATH").await?;
            let bytes = ctx.onelake()?.read(&path, Some(HEAD_BYTES)).await?;
            // The range may end inside a character: only what is whole is text.
            let text = match std::str::from_utf8(&bytes) {
                Ok(text) => std::borrow::Cow::Borrowed(text),
                // Valid up to there, so nothing is replaced.
                Err(err) if err.error_len().is_none() => {
                    String::from_utf8_lossy(&bytes[..err.valid_up_to()])
                }
                Err(_) => return Err(not_text(&path)),
            };
            let wanted = self
                .lines
                .map_or(10, |n| usize::try_from(n).unwrap_or(usize::MAX));
            let head: String = text.split_inclusive('\n').take(wanted).collect();
            Ok(Reply::text(head))
        })
    }
}

typed_args! {
    /// `onelake mv`.
    struct Mv {
        src: String = SRC_LAKE,
        dst: String = DST_LAKE,
        recursive: bool = RECURSIVE,
        overwrite: bool = OVERWRITE,
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
            };
            let pairs = copy.within(&ctx).await?;
            transfer(&*ctx.onelake()?, &pairs, copy.overwrite, Then::DeleteSource).await
        })
    }
}

typed_args! {
    /// `onelake rm`.
    struct Rm {
        path: String = PATH,
        recursive: bool = RECURSIVE,
    }
}

impl Command for Rm {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let path = lake_path(&ctx, &self.path, "PATH").await?;
            if path.inner.is_empty() {
                return Err(Error::usage(format!(
                    "PATH: {path} is an item; onelake rm deletes files in it"
                ))
                .with_hint("to delete the item, use `fabsh item delete`"));
            }
            let lake = ctx.onelake()?;
            let files: Vec<LakePath> = if self.recursive {
                lake.files_below(&path).await?
            } else if lake.exists(&path).await? {
                vec![path.clone()]
            } else if lake.list(&path, false).await?.is_empty() {
                return Err(Error::not_found(format!(
                    "{path} does not exist in OneLake"
                )));
            } else {
                return Err(Error::usage(format!("PATH: {path} is a folder"))
                    .with_hint("give --recursive to delete every file below it"));
            };
            let delete = async |file: &LakePath| {
                lake.delete(file).await?;
                Ok(json!({"path": file.to_string(), "status": "deleted"}))
            };
            let failure = |file: &LakePath, err: &Error| json!({"path": file.to_string(), "status": "failed", "error": err.message});
            Ok(each(&files, files.iter().map(delete), failure, "deleted").await)
        })
    }
}

typed_args! {
    /// `onelake cp`.
    struct Cp {
        src: String = SRC,
        dst: String = DST,
        recursive: bool = RECURSIVE,
        overwrite: bool = OVERWRITE,
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
            transfer(&*ctx.onelake()?, &pairs, self.overwrite, Then::Keep).await
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

    async fn run(&self, lake: &OneLake, overwrite: bool) -> Result<u64> {
        match self {
            Pair::Up(from, to) => lake.upload(from, to, overwrite).await,
            Pair::Down(from, to) => lake.download(from, to, overwrite).await,
            Pair::Within(from, to) => {
                // Through a temporary file here: the two may be in different workspaces.
                let scratch = tempfile::tempdir().map_err(|err| {
                    Error::runtime("cannot make a temporary folder").with_cause(err)
                })?;
                let file = scratch.path().join("file");
                lake.download(from, &file, true).await?;
                lake.upload(&file, to, overwrite).await
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

/// Files copied at once (each upload has its own blocks in flight too, so this bounds memory).
const FILES_IN_FLIGHT: usize = 4;

/// What becomes of a source once its copy is whole.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Then {
    Keep,
    DeleteSource,
}

/// Copies every pair (a destination that exists refused first, unless `overwrite`), then
/// deletes each source whose copy is whole when moving. One file gets its own error and exit
/// code; of many, each has its row, and exit 5 says some failed.
async fn transfer(lake: &OneLake, pairs: &[Pair], overwrite: bool, then: Then) -> Result<Reply> {
    if !overwrite {
        refuse_existing(lake, pairs).await?;
    }
    let done = match then {
        Then::Keep => "copied",
        Then::DeleteSource => "moved",
    };
    let one = async |pair: &Pair| {
        let bytes = pair.run(lake, overwrite).await?;
        if let (Then::DeleteSource, Pair::Within(source, _)) = (then, pair) {
            lake.delete(source).await?;
        }
        Ok::<u64, Error>(bytes)
    };
    let row = |pair: &Pair, bytes: Option<u64>, status: &str| {
        json!({
            "from": pair.source_text(),
            "to": pair.destination_text(),
            "bytes": bytes,
            "status": status,
        })
    };
    let copied = async |pair: &Pair| Ok(row(pair, Some(one(pair).await?), done));
    if let [pair] = pairs {
        // One file: its own error, with its own exit code.
        return Ok(Reply::json(json!([copied(pair).await?])));
    }
    let failure = |pair: &Pair, err: &Error| {
        let mut failure = row(pair, None, "failed");
        failure["error"] = json!(err.message);
        failure
    };
    Ok(each(pairs, pairs.iter().map(copied), failure, done).await)
}

/// Runs the work of every item (`work`, one future per item, in their order),
/// [`FILES_IN_FLIGHT`] at a time: a row per item, in that order, its own or `failure`'s; exit
/// 5 when some failed, the others done all the same.
async fn each<T>(
    items: &[T],
    work: impl Iterator<Item = impl Future<Output = Result<Value>>>,
    failure: impl Fn(&T, &Error) -> Value,
    done: &str,
) -> Reply {
    let outcomes: Vec<Result<Value>> = futures::stream::iter(work)
        .buffered(FILES_IN_FLIGHT)
        .collect()
        .await;
    let mut failed = 0usize;
    let rows = items
        .iter()
        .zip(outcomes)
        .map(|(item, outcome)| {
            outcome.unwrap_or_else(|err| {
                failed += 1;
                failure(item, &err)
            })
        })
        .collect();
    outcome(rows, failed, items.len(), done)
}

/// Refuses (exit 2, before anything is written) when a destination exists.
async fn refuse_existing(lake: &OneLake, pairs: &[Pair]) -> Result<()> {
    let mut existing = Vec::new();
    for pair in pairs {
        let exists = match pair {
            Pair::Down(_, local) => local.exists(),
            Pair::Up(_, to) | Pair::Within(_, to) => lake.exists(to).await?,
        };
        if exists {
            existing.push(pair.destination_text());
        }
    }
    match existing.as_slice() {
        [] => Ok(()),
        [one] => {
            Err(Error::usage(format!("{one} exists")).with_hint("give --overwrite to replace it"))
        }
        [first, ..] => Err(Error::usage(format!(
            "{} destinations exist, {first} first",
            existing.len()
        ))
        .with_hint("give --overwrite to replace them; nothing was copied")),
    }
}

/// The rows, and exit 5 when some of `total` failed.
fn outcome(rows: Vec<Value>, failed: usize, total: usize, done: &str) -> Reply {
    let reply = Reply::json(Value::Array(rows));
    if failed == 0 {
        return reply;
    }
    reply.with_failure(Error::new(
        ErrorKind::Partial,
        format!("{failed} of {total} file(s) not {done}"),
    ))
}

/// `text` as a OneLake path, its item's type found when only a name was given (OneLake names
/// items `Name.Type`, or by id).
async fn lake_path(ctx: &Ctx, text: &str, what: &str) -> Result<LakePath> {
    let mut path = LakePath::parse(text, what)?;
    let typed = path.item.contains('.') || uuid::Uuid::parse_str(&path.item).is_ok();
    if !typed {
        let workspace = ctx.workspace_id(&path.workspace).await?;
        path.item = ctx.item_id(&workspace, &path.item, None).await?;
        path.workspace = workspace;
    }
    Ok(path)
}

/// Where `file`, listed below the folder `folder`, is relative to it (`sub/a.csv`).
fn below<'a>(folder: &LakePath, file: &'a LakePath) -> &'a str {
    file.inner
        .strip_prefix(&folder.inner)
        .map_or(file.inner.as_str(), |rest| rest.trim_start_matches('/'))
}

/// The refusal of a file `cat` and `head` cannot print.
fn not_text(path: &LakePath) -> Error {
    Error::usage(format!("{path} is not UTF-8 text"))
        .with_hint(format!("download it with `fabsh onelake cp {path} .`"))
}

/// A relative path with `/` between its segments.
fn slashed(relative: &Path) -> String {
    relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// `relative` (`/`-separated, from OneLake) under the local folder `dir`; `..` and absolute
/// segments never leave it (OneLake refuses them, and a path is checked again here).
fn local_under(dir: &Path, relative: &str) -> PathBuf {
    relative
        .split('/')
        .filter(|segment| !segment.is_empty() && *segment != "." && *segment != "..")
        .fold(dir.to_path_buf(), |path, segment| path.join(segment))
}

/// Every regular file below `dir`, in name order; symbolic links are not followed.
fn local_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let read = std::fs::read_dir(&folder).map_err(|err| {
            Error::runtime(format!("cannot read {}", folder.display())).with_cause(err)
        })?;
        for entry in read {
            let entry =
                entry.map_err(|err| Error::runtime("cannot read a folder").with_cause(err))?;
            let kind = entry
                .file_type()
                .map_err(|err| Error::runtime("cannot read a folder").with_cause(err))?;
            if kind.is_dir() {
                folders.push(entry.path());
            } else if kind.is_file() {
                files.push(entry.path());
            }
        }
    }
    files.sort();
    Ok(files)
}
