//! `onelake ls | cp | cat | head | mv | rm | sync`: files in lakehouses and other items'
//! OneLake storage, on the service and on local Fabric ([`fabsh_api::onelake`]). A path is
//! written as fabsh users write items (`Demo/SalesLakehouse/Files/raw`,
//! `Demo.Workspace/SalesLakehouse.Lakehouse/...`) or as an `abfss://` or `https://onelake...`
//! URL; `cp` and `sync` take any other argument as a local path (`./Demo/LH/Files/x` is
//! local). This file is the registry's part; each command's handler is in its own file.

mod copy;
mod paths;
mod read;
mod rm;
mod run;
mod sync;

use super::spec::{ArgKind, ArgSpec, CommandSpec, Example, Handler, LocalPath, Traits};
use super::typed::handler;
use paths::{below, lake_path, local_files, local_under, not_text, slashed};
pub(crate) use run::DEFAULT_FILES_AT_ONCE;

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
.local(LocalPath::ReadDir)
.or_onelake();
/// `DST` of `cp`.
const DST: ArgSpec = ArgSpec::positional(
    "dst",
    ArgKind::Str,
    "Where to: a local path or a OneLake path; ending in / (or an existing local folder), into it",
)
.local(LocalPath::WriteDir)
.or_onelake();
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

/// `--concurrency` of `cp`, `mv` and `sync`.
const CONCURRENCY: ArgSpec = ArgSpec::opt(
    "concurrency",
    ArgKind::Int,
    "How many files to copy at once; a large file sent alone goes as that many blocks at once",
)
.range(1, 64)
.default("4");
/// `SRC` of `sync`.
const SYNC_SRC: ArgSpec = ArgSpec::positional(
    "src",
    ArgKind::Str,
    "The folder to copy from: a local folder, or a OneLake folder",
)
.local(LocalPath::ReadDir)
.or_onelake();
/// `DST` of `sync`.
const SYNC_DST: ArgSpec = ArgSpec::positional(
    "dst",
    ArgKind::Str,
    "The folder to make like it: a OneLake folder, or a local folder",
)
.local(LocalPath::WriteDir)
.or_onelake();
/// `--delete` of `sync`.
const DELETE: ArgSpec = ArgSpec::opt(
    "delete",
    ArgKind::Bool,
    "Also delete files at the destination that the source does not have (asks first unless --yes)",
)
.destructive();

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
        handler: Handler::Data(handler::<read::Ls>),
    },
    CommandSpec {
        group: "onelake",
        name: "cp",
        summary: "Copy files between this machine and OneLake, or within OneLake",
        about: "Uploads a local file (or, with --recursive, a folder) to OneLake, downloads a OneLake file (or folder) here, or copies within OneLake. Files are streamed in 4 MiB blocks, four files or blocks at a time (--concurrency: a file sent alone has its four blocks going at once), never read whole into memory; an upload becomes visible only when complete, and a download is written to a temporary file renamed into place, so nothing half-written is left. A file that exists at the destination is replaced only with --overwrite. Each file's outcome is reported; when some fail, the others are still copied and the exit code is 5. Ctrl-C stops the copy: files in flight are left out whole, each row says what became of its file, and the exit code is 130. An interrupted upload of a file larger than 4 MiB resumes when the same command runs again: the blocks OneLake holds already are not sent again, unless the local file changed since.",
        args: &[SRC, DST, RECURSIVE, OVERWRITE, CONCURRENCY],
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
        handler: Handler::Data(handler::<copy::Cp>),
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
        handler: Handler::Data(handler::<read::Cat>),
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
        handler: Handler::Data(handler::<read::Head>),
    },
    CommandSpec {
        group: "onelake",
        name: "mv",
        summary: "Move OneLake files: copy, then delete the source once the copy is whole",
        about: "As `onelake cp` between OneLake paths, then deletes each source file whose copy succeeded. A source whose copy failed is kept.",
        args: &[SRC_LAKE, DST_LAKE, RECURSIVE, OVERWRITE, CONCURRENCY],
        traits: Traits::DESTRUCTIVE.unpaged_list(),
        columns: &["from", "to", "bytes", "status"],
        examples: &[Example {
            command: "onelake mv Demo/SalesLakehouse/Files/raw Demo/SalesLakehouse/Files/archive -r --yes",
            about: "move a folder",
        }],
        handler: Handler::Data(handler::<copy::Mv>),
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
        handler: Handler::Data(handler::<rm::Rm>),
    },
    CommandSpec {
        group: "onelake",
        name: "sync",
        summary: "Make a folder like another: upload or download what is new or changed",
        about: "Between a local folder and a OneLake folder, either way. A file is sent when the destination lacks it, when sizes differ, or when sizes agree and the SHA-256 of its content differs; what is compared comes from one listing of the OneLake folder (fabsh keeps each file's SHA-256 in the blob's metadata when sync uploads it, and when `onelake cp` sends a file of up to 4 MiB), so an unchanged tree costs only listing requests. A OneLake file without a stored SHA-256 (written by another tool, or a larger one by `onelake cp`) counts as changed when sizes agree: it is sent once, and then carries one. Files at the destination that the source lacks are deleted only with --delete (which asks first unless --yes). Under --dry-run, the rows are the plan and nothing is written. Each file's outcome is reported; when some fail the exit code is 5; Ctrl-C stops the sync and the exit code is 130.",
        args: &[SYNC_SRC, SYNC_DST, DELETE, CONCURRENCY],
        traits: Traits::MUTATE.unpaged_list(),
        columns: &["path", "action", "bytes", "status"],
        examples: &[
            Example {
                command: "onelake sync ./raw Demo/SalesLakehouse/Files/raw",
                about: "upload what changed in a local folder",
            },
            Example {
                command: "onelake sync Demo/SalesLakehouse/Files/raw ./raw --delete --yes",
                about: "make a local copy, removing files gone from OneLake",
            },
        ],
        handler: Handler::Data(handler::<sync::Sync>),
    },
];
