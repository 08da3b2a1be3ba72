//! A committed data file put in its block list's order where it lies. A client sends a file's
//! blocks in order but several at once, so they can reach the data file a little out of order
//! (the second block reserving its range just before the first): a commit then finds the
//! listed blocks filling the file exactly, but not in the listed order. Rather than copying
//! the whole file for that, each stretch whose blocks are out of order (its "window": the
//! fewest consecutive listed blocks that lie exactly in the stretch they are listed for) is
//! rewritten in place, through a scratch file; the bytes already where they belong stay.

use super::answer::StorageError;
use super::files::Temporary;
use super::staged::Block;
use std::io::{Read as _, Seek, SeekFrom};
use std::ops::Range;
use std::path::Path;

/// A stretch of the file to rewrite: where it starts, and its blocks (a range of the list).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Window {
    start: u64,
    blocks: Range<usize>,
}

/// Whether `listed` fill `[0, total)` exactly: each byte of the file in one listed block, so
/// the file holds nothing else and no block is listed twice.
pub(super) fn fill(listed: &[Block], total: u64) -> bool {
    let mut ranges: Vec<(u64, u64)> = listed.iter().map(|b| (b.offset, b.len)).collect();
    ranges.sort_unstable();
    let mut at = 0;
    for (offset, len) in ranges {
        if offset != at {
            return false;
        }
        at += len;
    }
    at == total
}

/// The windows to rewrite so that `listed`, which [`fill`] the file, lie in list order.
pub(super) fn windows(listed: &[Block]) -> Vec<Window> {
    let mut windows = Vec::new();
    let (mut first, mut start, mut end) = (0, 0u64, 0u64);
    let (mut lowest, mut highest) = (u64::MAX, 0u64);
    for (i, block) in listed.iter().enumerate() {
        lowest = lowest.min(block.offset);
        highest = highest.max(block.offset + block.len);
        end += block.len;
        // The blocks first..=i lie somewhere in [lowest, highest) and add up to end - start
        // bytes; as no two overlap, they lie exactly in [start, end) when these meet.
        if lowest == start && highest == end {
            if i > first || block.offset != start {
                windows.push(Window {
                    start,
                    blocks: first..i + 1,
                });
            }
            (first, start) = (i + 1, end);
            (lowest, highest) = (u64::MAX, 0);
        }
    }
    windows
}

/// The bytes the windows rewrite.
pub(super) fn moved(listed: &[Block], windows: &[Window]) -> u64 {
    windows
        .iter()
        .flat_map(|window| &listed[window.blocks.clone()])
        .map(|block| block.len)
        .sum()
}

/// Rewrites each window of the file at `path` in list order: its blocks copied in that order
/// into a scratch file beside it, then back over the window. Blocking.
pub(super) fn apply(path: &Path, listed: &[Block], windows: &[Window]) -> Result<(), StorageError> {
    if windows.is_empty() {
        return Ok(());
    }
    let scratch_path = path.with_extension("reorder");
    let mut scratch = crate::private_files::rewrite(&scratch_path)?;
    let mut scratch_read = std::fs::File::open(&scratch_path)?;
    let _scratch = Temporary::new(scratch_path);
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)?;
    for window in windows {
        scratch.set_len(0)?;
        scratch.rewind()?;
        let mut len = 0;
        for block in &listed[window.blocks.clone()] {
            file.seek(SeekFrom::Start(block.offset))?;
            len += std::io::copy(&mut (&mut file).take(block.len), &mut scratch)?;
        }
        scratch_read.rewind()?;
        file.seek(SeekFrom::Start(window.start))?;
        std::io::copy(&mut (&mut scratch_read).take(len), &mut file)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks of the given lengths, named by their list position, at the given offsets.
    fn blocks(placed: &[(u64, u64)]) -> Vec<Block> {
        placed
            .iter()
            .enumerate()
            .map(|(i, &(offset, len))| Block {
                key: i.to_string(),
                offset,
                len,
            })
            .collect()
    }

    #[test]
    fn only_the_stretches_out_of_order_are_rewritten() {
        // List order 0..5 of lengths 4,4,4,4,2; arrived as 1,0,2,4,3 (the short last block
        // before the one listed before it).
        let listed = blocks(&[(4, 4), (0, 4), (8, 4), (14, 4), (12, 2)]);
        assert!(fill(&listed, 18));
        let windows = windows(&listed);
        assert_eq!(
            windows,
            vec![
                Window {
                    start: 0,
                    blocks: 0..2
                },
                Window {
                    start: 12,
                    blocks: 3..5
                }
            ]
        );
        assert_eq!(moved(&listed, &windows), 14);
        assert!(super::windows(&blocks(&[(0, 4), (4, 1)])).is_empty());
    }

    #[test]
    fn a_list_that_does_not_fill_the_file_exactly_is_not_reordered() {
        assert!(!fill(&blocks(&[(0, 4), (0, 4)]), 8), "listed twice");
        assert!(!fill(&blocks(&[(0, 4), (8, 4)]), 12), "a gap");
        assert!(!fill(&blocks(&[(0, 4)]), 8), "more in the file");
    }

    #[test]
    fn rewritten_windows_put_the_bytes_in_list_order() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("data");
        // Arrived: "BB" "AAA" "CC" "EE" "D"; listed A, B, C, D, E.
        std::fs::write(&path, b"BBAAACCEED").expect("write");
        let listed = blocks(&[(2, 3), (0, 2), (5, 2), (9, 1), (7, 2)]);
        assert!(fill(&listed, 10));
        apply(&path, &listed, &windows(&listed)).expect("apply");
        assert_eq!(std::fs::read(&path).expect("read"), b"AAABBCCDEE");
        assert!(!path.with_extension("reorder").exists(), "scratch removed");
    }
}
