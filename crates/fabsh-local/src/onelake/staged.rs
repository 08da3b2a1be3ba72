//! A blob's staged blocks (Put Block), kept until a Put Block List commits them or the blob is
//! replaced or deleted, as Azure keeps a blob's uncommitted blocks (an upload that never
//! commits keeps them for the client that resumes it, until the item goes).
//!
//! They are written one after another, as they come, into one data file per blob
//! (`staging/blocks/<sha256 of the path>/data`), with an index of where each lies (`…/index`,
//! a line per block: hex of its id, offset, length; a later line for an id replaces an earlier
//! one, as a block sent again replaces the first). Why one file: a client sends a file's blocks
//! in order, so a commit naming them finds the blob already whole, renames the data file into
//! place and each byte is written once (blocks sent at once that came a little out of order
//! are put back in order where they lie, `reorder`). A list over blocks sent twice or cut off,
//! or far from the order they came in, is copied range by range into a new file.
//!
//! A Put Block reserves its range from its declared length before reading the body, so blocks
//! sent at once write apart, and is indexed only once its whole body came: a block cut off
//! mid-request is never listed. Reservations are kept per blob in [`Reservations`] with a
//! generation: discarding a blob's blocks (a commit, a replacing write, a delete) ends it, and a
//! block still arriving then is dropped instead of being indexed into the next generation's file.

use super::Target;
use super::answer::StorageError;
use super::files::{self, Temporary};
use super::reorder;
use axum::http::StatusCode;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use std::collections::HashMap;
use std::io::{Read as _, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Longest block id, decoded (Azure's limit).
const MAX_BLOCK_ID_BYTES: usize = 64;

/// The ranges reserved in each blob's data file (`AppState::onelake_staging`).
#[derive(Debug, Default)]
pub(crate) struct Reservations {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    next_generation: u64,
    blobs: HashMap<PathBuf, Reserved>,
}

/// A blob's reservations: its generation and the end of the last range reserved.
#[derive(Debug, Clone, Copy)]
struct Reserved {
    generation: u64,
    end: u64,
}

/// A block's key: the hex of its decoded id; 400 for an id that is not base64 of 1 to 64
/// bytes.
pub(super) fn block_key(id: &str) -> Result<String, StorageError> {
    let decoded = STANDARD
        .decode(id)
        .ok()
        .filter(|bytes| !bytes.is_empty() && bytes.len() <= MAX_BLOCK_ID_BYTES)
        .ok_or_else(|| StorageError::invalid_query("blockid", id))?;
    Ok(decoded.iter().map(|b| format!("{b:02x}")).collect())
}

/// The folder of a blob's staged blocks.
fn blob_dir(target: &Target) -> PathBuf {
    target.dirs.of_blob("blocks", target.path.as_str())
}

fn data_file(dir: &Path) -> PathBuf {
    dir.join("data")
}

fn index_file(dir: &Path) -> PathBuf {
    dir.join("index")
}

/// Where an arriving block goes: the data file, opened, and the range reserved in it.
pub(super) struct Slot {
    pub(super) file: std::fs::File,
    pub(super) offset: u64,
    dir: PathBuf,
    generation: u64,
    key: String,
    len: u64,
}

/// Reserves `len` bytes at the end of the blob's data file for block `key`. Blocking.
pub(super) fn reserve(
    reservations: &Reservations,
    target: &Target,
    key: String,
    len: u64,
) -> Result<Slot, StorageError> {
    let dir = blob_dir(target);
    let path = data_file(&dir);
    let mut inner = crate::locks::lock(&reservations.inner);
    let fresh = !path.exists();
    files::make_parents(&path)?;
    let file = crate::private_files::update(&path)?;
    let on_disk = file.metadata()?.len();
    let Inner {
        next_generation,
        blobs,
    } = &mut *inner;
    // A data file made anew means the blob's blocks went with its item or folder, whatever
    // was reserved before: a new generation.
    let reserved = match blobs.get_mut(&dir) {
        Some(reserved) if !fresh => reserved,
        _ => {
            *next_generation += 1;
            blobs.insert(
                dir.clone(),
                Reserved {
                    generation: *next_generation,
                    end: on_disk,
                },
            );
            blobs.get_mut(&dir).expect("just inserted")
        }
    };
    let offset = reserved.end.max(on_disk);
    reserved.end = offset + len;
    Ok(Slot {
        file,
        offset,
        generation: reserved.generation,
        dir,
        key,
        len,
    })
}

/// Indexes the block whose body `slot` received whole, unless the blob's blocks were
/// discarded meanwhile. Blocking.
pub(super) fn record(reservations: &Reservations, slot: Slot) -> Result<(), StorageError> {
    let inner = crate::locks::lock(&reservations.inner);
    let current = inner
        .blobs
        .get(&slot.dir)
        .is_some_and(|reserved| reserved.generation == slot.generation);
    if !current {
        return Ok(());
    }
    let line = format!("{} {} {}\n", slot.key, slot.offset, slot.len);
    crate::private_files::append(&index_file(&slot.dir))?.write_all(line.as_bytes())?;
    Ok(())
}

/// Drops the blob's staged blocks (none staged is fine). Blocking.
pub(super) fn discard(reservations: &Reservations, target: &Target) {
    let dir = blob_dir(target);
    let mut inner = crate::locks::lock(&reservations.inner);
    inner.blobs.remove(&dir);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A staged block: its key, offset in the data file and length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Block {
    pub(super) key: String,
    pub(super) offset: u64,
    pub(super) len: u64,
}

/// The staged blocks of the blob in `dir`, in the order they came, each id once (its last
/// arrival).
fn indexed(dir: &Path) -> Result<Vec<Block>, StorageError> {
    let text = match std::fs::read_to_string(index_file(dir)) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(err.into()),
    };
    // Each id's last line wins, in the order of those lines; a map of where each id's line
    // is keeps this linear over the 50,000 blocks a blob may have.
    let mut lines: Vec<Option<Block>> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::new();
    for line in text.lines() {
        let mut fields = line.split(' ');
        let (Some(key), Some(offset), Some(len)) = (fields.next(), fields.next(), fields.next())
        else {
            continue; // a line cut short by a crash: that block is not staged
        };
        let (Ok(offset), Ok(len)) = (offset.parse(), len.parse()) else {
            continue;
        };
        if let Some(earlier) = at.insert(key, lines.len()) {
            lines[earlier] = None;
        }
        lines.push(Some(Block {
            key: key.to_string(),
            offset,
            len,
        }));
    }
    Ok(lines.into_iter().flatten().collect())
}

/// The blob's staged blocks, ids in base64, in the order they came. Blocking.
pub(super) fn listed(target: &Target) -> Result<Vec<(String, u64)>, StorageError> {
    Ok(indexed(&blob_dir(target))?
        .into_iter()
        .filter_map(|block| Some((STANDARD.encode(unhex(&block.key)?), block.len)))
        .collect())
}

/// The bytes of lower-case hex text.
fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// 400 `InvalidBlockList`.
pub(super) fn invalid_block_list(why: &str) -> StorageError {
    StorageError::new(
        StatusCode::BAD_REQUEST,
        "InvalidBlockList",
        format!("The specified block list is invalid: {why}"),
    )
}

/// What a commit of a block list finds staged.
pub(super) enum Assembly {
    /// The data file held the listed blocks and nothing else: renamed to the file asked for
    /// and put in the listed order where it lies (`reorder`), the blob's staging dropped.
    Whole(Temporary),
    /// The listed blocks' ranges in the data file, to copy.
    Ranges(Vec<Block>),
}

/// The staged blocks `keys` name, in order: the data file itself, renamed to `into`, when it
/// holds exactly them (in that order, or nearly) with no block still arriving; otherwise
/// their ranges.
/// 400 `InvalidBlockList` when one was not staged. Blocking; called with the commit lock held
/// and the commit's conditions met, so that the blocks are taken only by a commit that
/// succeeds.
pub(super) fn assemble(
    reservations: &Reservations,
    target: &Target,
    keys: &[String],
    into: PathBuf,
) -> Result<(Assembly, Vec<u64>), StorageError> {
    let dir = blob_dir(target);
    let mut inner = crate::locks::lock(&reservations.inner);
    let staged: HashMap<String, Block> = indexed(&dir)?
        .into_iter()
        .map(|block| (block.key.clone(), block))
        .collect();
    let mut listed = Vec::with_capacity(keys.len());
    for key in keys {
        let block = staged
            .get(key)
            .ok_or_else(|| invalid_block_list("a listed block was not staged"))?;
        listed.push(block.clone());
    }
    let lengths: Vec<u64> = listed.iter().map(|block| block.len).collect();
    let total: u64 = lengths.iter().sum();
    let data = data_file(&dir);
    let on_disk = match std::fs::metadata(&data) {
        Ok(meta) => meta.len(),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => 0,
        Err(err) => return Err(err.into()),
    };
    // Nothing reserved beyond the listed blocks: no block is still being written into the file.
    let reserved_end = inner
        .blobs
        .get(&dir)
        .map_or(on_disk, |reserved| reserved.end);
    let whole = on_disk == total && reserved_end == total && total > 0;
    if whole && reorder::fill(&listed, total) {
        let windows = reorder::windows(&listed);
        // Rewriting a window writes its bytes twice; past half the file, one copy of it all
        // writes less.
        if reorder::moved(&listed, &windows) * 2 <= total {
            files::make_parents(&into)?;
            std::fs::rename(&data, &into)?;
            let file = Temporary::new(into);
            inner.blobs.remove(&dir);
            let _ = std::fs::remove_dir_all(&dir);
            drop(inner);
            reorder::apply(file.path(), &listed, &windows)?;
            return Ok((Assembly::Whole(file), lengths));
        }
    }
    Ok((Assembly::Ranges(listed), lengths))
}

/// The blocks' ranges of the blob's data file copied, in order, into a new file at `into`.
/// Blocking.
pub(super) fn copy(
    target: &Target,
    blocks: &[Block],
    into: PathBuf,
) -> Result<Temporary, StorageError> {
    files::make_parents(&into)?;
    let mut out = crate::private_files::rewrite(&into)?;
    let staged = Temporary::new(into);
    if blocks.is_empty() {
        return Ok(staged);
    }
    let mut data = match std::fs::File::open(data_file(&blob_dir(target))) {
        Ok(file) => file,
        // Discarded by a commit or delete since the blocks were listed.
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Err(invalid_block_list("a listed block was not staged"));
        }
        Err(err) => return Err(err.into()),
    };
    for block in blocks {
        data.seek(SeekFrom::Start(block.offset))?;
        let copied = std::io::copy(&mut (&mut data).take(block.len), &mut out)?;
        if copied != block.len {
            return Err(invalid_block_list("a listed block was not staged"));
        }
    }
    Ok(staged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::onelake::files::ItemDirs;
    use crate::onelake::names::item_path;

    fn target(dir: &Path) -> Target {
        Target {
            path: item_path("Files/a.bin").expect("path"),
            dirs: ItemDirs::of(dir, "ws", "item"),
        }
    }

    /// Stages `body` as block `name` through a reservation, as Put Block does.
    fn stage(reservations: &Reservations, target: &Target, name: &str, body: &[u8]) {
        let key = block_key(&STANDARD.encode(name)).expect("key");
        let mut slot = reserve(reservations, target, key, body.len() as u64).expect("reserve");
        slot.file.seek(SeekFrom::Start(slot.offset)).expect("seek");
        slot.file.write_all(body).expect("write");
        record(reservations, slot).expect("record");
    }

    fn keys(names: &[&str]) -> Vec<String> {
        names
            .iter()
            .map(|name| block_key(&STANDARD.encode(name)).expect("key"))
            .collect()
    }

    #[test]
    fn block_ids_must_be_base64_of_one_to_64_bytes() {
        assert_eq!(block_key(&STANDARD.encode("ab")).ok(), Some("6162".into()));
        assert!(block_key("not base64!").is_err());
        assert!(block_key("").is_err());
        assert!(block_key(&STANDARD.encode([7u8; 65])).is_err());
        assert_eq!(unhex("00ff10"), Some(vec![0, 255, 16]));
        assert_eq!(unhex("abc"), None);
    }

    #[test]
    fn blocks_committed_in_the_order_they_came_are_the_data_file_itself() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (reservations, target) = (Reservations::default(), target(dir.path()));
        stage(&reservations, &target, "a", b"one ");
        stage(&reservations, &target, "b", b"two");
        let listed = listed(&target).expect("listed");
        assert_eq!(
            listed,
            vec![(STANDARD.encode("a"), 4), (STANDARD.encode("b"), 3)]
        );
        let into = dir.path().join("out");
        let (assembly, lengths) =
            assemble(&reservations, &target, &keys(&["a", "b"]), into.clone()).expect("whole");
        assert_eq!(lengths, vec![4, 3]);
        assert!(
            matches!(assembly, Assembly::Whole(_)),
            "renamed, not copied"
        );
        assert_eq!(std::fs::read(&into).expect("read"), b"one two");
        assert!(
            self::listed(&target).expect("listed").is_empty(),
            "staging dropped"
        );
    }

    #[test]
    fn blocks_that_came_out_of_order_are_put_in_order_in_the_data_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (reservations, target) = (Reservations::default(), target(dir.path()));
        for (name, body) in [("b", "two "), ("a", "one "), ("c", "three "), ("d", "four")] {
            stage(&reservations, &target, name, body.as_bytes());
        }
        let into = dir.path().join("out");
        let (assembly, _) =
            assemble(&reservations, &target, &keys(&["a", "b", "c", "d"]), into).expect("whole");
        let Assembly::Whole(file) = assembly else {
            panic!("one pair out of order: reordered in place, not copied");
        };
        assert_eq!(
            std::fs::read(file.path()).expect("read"),
            b"one two three four"
        );
        assert!(
            listed(&target).expect("listed").is_empty(),
            "staging dropped"
        );
    }

    #[test]
    fn blocks_in_another_order_or_sent_twice_are_copied_and_stay_staged() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (reservations, target) = (Reservations::default(), target(dir.path()));
        stage(&reservations, &target, "a", b"one ");
        stage(&reservations, &target, "b", b"two");
        stage(&reservations, &target, "a", b"ONE ");
        let (assembly, _) = assemble(
            &reservations,
            &target,
            &keys(&["b", "a", "b"]),
            dir.path().join("x"),
        )
        .expect("ranges");
        let Assembly::Ranges(blocks) = assembly else {
            panic!("out of order: copied");
        };
        let joined = copy(&target, &blocks, dir.path().join("out")).expect("copy");
        assert_eq!(std::fs::read(joined.path()).expect("read"), b"twoONE two");
        assert_eq!(self::listed(&target).expect("listed").len(), 2);
        let missing = assemble(&reservations, &target, &keys(&["c"]), dir.path().join("y"));
        assert_eq!(missing.err().map(|e| e.code()), Some("InvalidBlockList"));
    }

    #[test]
    fn a_block_still_arriving_keeps_the_data_file_from_being_taken() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (reservations, target) = (Reservations::default(), target(dir.path()));
        stage(&reservations, &target, "a", b"one");
        let arriving = reserve(&reservations, &target, keys(&["b"]).remove(0), 10).expect("b");
        let (assembly, _) =
            assemble(&reservations, &target, &keys(&["a"]), dir.path().join("o")).expect("ranges");
        assert!(matches!(assembly, Assembly::Ranges(_)), "copied around it");
        discard(&reservations, &target);
        record(&reservations, arriving).expect("dropped quietly");
        assert!(
            listed(&target).expect("listed").is_empty(),
            "not indexed after a discard"
        );
    }
}
