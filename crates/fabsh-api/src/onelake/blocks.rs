//! A file larger than one block, sent as blocks that a later run can resume. OneLake, like
//! Azure Blob Storage, keeps a blob's uncommitted blocks for days; an upload that names its
//! blocks the same way each time it sends the same file can ask which are there already
//! (Get Block List) and send only the rest. object_store 0.12's multipart upload cannot: it
//! names blocks at random and has no call for the uncommitted list. So these are the Blob
//! API's own Put Block, Get Block List and Put Block List, sent through `blob_api`.
//!
//! A block's id is a hash of what makes an upload the same one: the destination, the local
//! file's size and modification time, the block size and the block's index. Running the same
//! `onelake cp` again finds its blocks; a file changed since (a new modification time) gets
//! new ids, and the stale blocks are never committed (the service drops them at the commit).

use super::transfer::{CHUNK, Sending};
use super::{LakePath, OneLake};
use crate::error::{Error, Result};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use futures::StreamExt;
use serde::Deserialize;
use sha2::Digest;
use std::collections::HashMap;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// The ids of one upload's blocks: base64 of a hash of the upload and the block's index, all
/// of one length, as Azure requires of a blob's blocks: [`ID_BYTES`] bytes, or the length of
/// the ids staged for the blob already (another tool's, or an older fabsh's, whose blocks
/// Azure keeps for days and would otherwise refuse ours beside).
pub(super) struct BlockIds {
    /// The hash of everything but the index.
    upload: [u8; 32],
    /// Bytes of each id before base64.
    bytes: usize,
}

/// Bytes of a block id before base64 (Azure takes 1 to 64): a whole SHA-256.
const ID_BYTES: usize = 32;
/// The shortest ids staged by another that this upload adopts the length of: shorter ones
/// would make collisions of hashes likely, so ids of the usual length are sent beside them.
const SHORTEST_ADOPTED: usize = 16;

impl BlockIds {
    /// The ids of the upload of a file of `size` bytes last modified at `modified` to `to`.
    /// A file whose modification time is unknown gets ids of its own (a random salt): it is
    /// never resumed, rather than resumed from another file's blocks.
    pub(super) fn new(to: &LakePath, size: u64, modified: Option<SystemTime>) -> BlockIds {
        let when = match modified {
            Some(time) => match time.duration_since(UNIX_EPOCH) {
                Ok(after) => format!("+{}", after.as_nanos()),
                Err(before) => format!("-{}", before.duration().as_nanos()),
            },
            None => format!("unknown {}", uuid::Uuid::new_v4()),
        };
        let mut hasher = sha2::Sha256::new();
        // Fields separated by NUL, which none of them holds; versioned, so another scheme
        // never reads these blocks as its own.
        for field in [
            "fabsh block v1",
            &to.to_string(),
            &size.to_string(),
            &when,
            &CHUNK.to_string(),
        ] {
            hasher.update(field.as_bytes());
            hasher.update([0]);
        }
        BlockIds {
            upload: hasher.finalize().into(),
            bytes: ID_BYTES,
        }
    }

    /// The same ids, as long as `staged` (ids staged for the blob already) when those are of
    /// one length fabsh can hash to.
    pub(super) fn matching<'a>(mut self, mut staged: impl Iterator<Item = &'a str>) -> BlockIds {
        if let Some(bytes) = staged
            .next()
            .and_then(|id| STANDARD.decode(id).ok())
            .map(|id| id.len())
            .filter(|len| (SHORTEST_ADOPTED..=64).contains(len))
        {
            self.bytes = bytes;
        }
        self
    }

    /// The id of block `index`.
    pub(super) fn id(&self, index: u64) -> String {
        // A SHA-256 per 32 bytes wanted, numbered by `round`.
        let mut id = Vec::with_capacity(self.bytes + 32);
        let mut round = 0u8;
        while id.len() < self.bytes {
            let mut hasher = sha2::Sha256::new();
            hasher.update(self.upload);
            hasher.update(index.to_le_bytes());
            hasher.update([round]);
            id.extend_from_slice(&hasher.finalize());
            round += 1;
        }
        id.truncate(self.bytes);
        STANDARD.encode(id)
    }
}

/// The length of block `index` of a file of `size` bytes.
fn block_len(size: u64, index: u64) -> u64 {
    (size - index * CHUNK as u64).min(CHUNK as u64)
}

/// Get Block List's answer.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct BlockList {
    #[serde(default)]
    committed_blocks: Blocks,
    #[serde(default)]
    uncommitted_blocks: Blocks,
}

#[derive(Debug, Default, Deserialize)]
struct Blocks {
    #[serde(rename = "Block", default)]
    blocks: Vec<Block>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Block {
    name: String,
    size: u64,
}

impl OneLake {
    /// Uploads `file` (`from`, of `size` bytes, modified at `modified`) to `to` in blocks of
    /// [`CHUNK`], `how.blocks_at_once` at a time, skipping those staged already, then commits
    /// them: create-only (`If-None-Match: *`) without `how.overwrite`, with `how.sha256` as
    /// metadata. Nothing appears at `to` before the commit; dropping this future before then
    /// leaves the blocks sent for a later run.
    pub(super) async fn upload_blocks(
        &self,
        file: tokio::fs::File,
        from: &Path,
        (size, modified): (u64, Option<SystemTime>),
        to: &LakePath,
        how: &Sending<'_>,
    ) -> Result<u64> {
        let staged = self.staged_blocks(to).await?;
        let ids = BlockIds::new(to, size, modified).matching(staged.keys().map(String::as_str));
        let count = size.div_ceil(CHUNK as u64);
        let mut missing = Vec::new();
        let mut already = 0;
        for index in 0..count {
            let len = block_len(size, index);
            if staged.get(&ids.id(index)) == Some(&len) {
                already += len;
            } else {
                missing.push(index);
            }
        }
        if already > 0 {
            (how.sent)(already);
        }
        // A loop and a named async fn, not stream combinators with closures: a command's
        // future must be Send, which the compiler cannot prove through closures over
        // borrowed futures. A block is read only when fewer than `blocks_at_once` are being
        // sent, so at most that many are in memory.
        let mut file = Some(file.into_std().await);
        let mut in_flight = futures::stream::FuturesUnordered::new();
        for index in missing {
            if in_flight.len() >= how.blocks_at_once.max(1)
                && let Some(done) = in_flight.next().await
            {
                done?;
            }
            let bytes = read_block(&mut file, from, index, block_len(size, index)).await?;
            in_flight.push(self.put_block(to, ids.id(index), bytes, how));
        }
        while let Some(done) = in_flight.next().await {
            done?;
        }
        let listed: Vec<String> = (0..count).map(|index| ids.id(index)).collect();
        self.put_block_list(to, &listed, how).await?;
        Ok(size)
    }

    /// The ids and sizes of the blocks staged for `to` and not committed; none when the
    /// service keeps no list of them (no blob and no blocks, 404) or does not answer the
    /// call (400, 405, 501: then every block is sent, as without resuming).
    async fn staged_blocks(&self, to: &LakePath) -> Result<HashMap<String, u64>> {
        let list = self.block_list(to, "uncommitted").await?;
        Ok(list
            .uncommitted_blocks
            .blocks
            .into_iter()
            .map(|block| (block.name, block.size))
            .collect())
    }

    /// Get Block List of `to`, the `kind` asked for (`uncommitted`, `committed`); empty
    /// when the service keeps none (404) or does not answer the call (400, 405, 501).
    async fn block_list(&self, to: &LakePath, kind: &str) -> Result<BlockList> {
        let url = self.blob_url(to);
        let answer = self
            .send(
                |client| {
                    client
                        .get(&url)
                        .query(&[("comp", "blocklist"), ("blocklisttype", kind)])
                },
                || format!("OneLake: cannot ask which blocks of {to} were sent"),
            )
            .await?;
        match answer.status.as_u16() {
            200 => {}
            400 | 404 | 405 | 501 => return Ok(BlockList::default()),
            _ => return Err(answer.refused("uploading", to)),
        }
        quick_xml::de::from_reader(answer.body.as_ref()).map_err(|err| {
            Error::runtime(format!(
                "OneLake: the block list of {to} is not Get Block List XML"
            ))
            .with_cause(err)
        })
    }

    /// Put Block: `bytes` staged as block `id` of `to`, then counted as sent.
    async fn put_block(
        &self,
        to: &LakePath,
        id: String,
        bytes: bytes::Bytes,
        how: &Sending<'_>,
    ) -> Result<()> {
        let len = bytes.len() as u64;
        let url = self.blob_url(to);
        let answer = self
            .send(
                |client| {
                    client
                        .put(&url)
                        .query(&[("comp", "block"), ("blockid", id.as_str())])
                        .body(bytes.clone())
                },
                || format!("OneLake: cannot send a block of {to}"),
            )
            .await?;
        if !answer.status.is_success() {
            return Err(answer.refused("uploading", to));
        }
        (how.sent)(len);
        Ok(())
    }

    /// Put Block List: the blocks of `list` made the blob `to`, create-only unless
    /// `how.overwrite`; a blob there already is the usage error a single Put Blob gives.
    async fn put_block_list(&self, to: &LakePath, ids: &[String], how: &Sending<'_>) -> Result<()> {
        let mut list = String::with_capacity(40 + ids.len() * 70);
        list.push_str("<?xml version=\"1.0\" encoding=\"utf-8\"?><BlockList>");
        for id in ids {
            // Base64 holds nothing XML escapes.
            list.push_str(&format!("<Latest>{id}</Latest>"));
        }
        list.push_str("</BlockList>");
        let url = self.blob_url(to);
        let list = bytes::Bytes::from(list);
        let answer = self
            .send(
                |client| {
                    let mut request = client
                        .put(&url)
                        .query(&[("comp", "blocklist")])
                        .header("content-type", "application/xml")
                        .body(list.clone());
                    if let Some(sha256) = how.sha256 {
                        request = request.header(
                            format!("x-ms-meta-{}", super::inventory::SHA256_KEY),
                            sha256,
                        );
                    }
                    if !how.overwrite {
                        request = request.header("if-none-match", "*");
                    }
                    request
                },
                || format!("OneLake: cannot commit the blocks of {to}"),
            )
            .await?;
        match answer.status.as_u16() {
            200..=299 => Ok(()),
            // A create-only commit refused because the blob exists: this very upload's, when
            // an earlier attempt committed and its answer was lost (then the blob is made of
            // exactly these blocks, whose ids name this upload), else another's.
            409 | 412 if !how.overwrite => {
                let committed = self.block_list(to, "committed").await?.committed_blocks;
                let ours = committed.blocks.len() == ids.len()
                    && committed
                        .blocks
                        .iter()
                        .zip(ids)
                        .all(|(block, id)| &block.name == id);
                if ours {
                    Ok(())
                } else {
                    Err(super::destination_exists(to))
                }
            }
            _ => Err(answer.refused("uploading", to)),
        }
    }
}

/// Block `index` (`len` bytes) of `file`, read on the blocking pool straight into the buffer
/// that is sent (an async file reads through a buffer of its own, one more copy of each
/// byte). The file is handed there and back; `None` after a read failed.
async fn read_block(
    file: &mut Option<std::fs::File>,
    from: &Path,
    index: u64,
    len: u64,
) -> Result<bytes::Bytes> {
    use std::io::{Read, Seek};
    let local = |err: std::io::Error| {
        Error::runtime(format!("cannot read {}", from.display())).with_cause(err)
    };
    let mut taken = file
        .take()
        .ok_or_else(|| local(std::io::Error::other("an earlier read failed")))?;
    // At most CHUNK, which is a usize.
    let len = usize::try_from(len).unwrap_or(CHUNK);
    // Made here, not on the blocking thread: a block is freed on the thread that sent it,
    // and blocks made on other threads left the allocator's per-thread arenas holding freed
    // blocks (the client's peak memory went from 65 to 101 MiB).
    // Not zeroed first: read_to_end reads into the spare capacity as it is.
    let mut bytes = Vec::with_capacity(len);
    let (taken, bytes) = tokio::task::spawn_blocking(move || {
        taken.seek(std::io::SeekFrom::Start(index * CHUNK as u64))?;
        (&mut taken).take(len as u64).read_to_end(&mut bytes)?;
        if bytes.len() != len {
            return Err(std::io::Error::from(std::io::ErrorKind::UnexpectedEof));
        }
        Ok::<_, std::io::Error>((taken, bytes))
    })
    .await
    .map_err(|err| local(std::io::Error::other(err)))?
    .map_err(local)?;
    *file = Some(taken);
    Ok(bytes.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn lake(path: &str) -> LakePath {
        LakePath::parse(path, "DST").expect("a lake path")
    }

    #[test]
    fn block_ids_name_one_upload_of_one_file_and_have_one_length() {
        let to = lake("ws/lh.Lakehouse/Files/big.bin");
        let at = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let first = BlockIds::new(&to, 10 << 20, Some(at));
        let again = BlockIds::new(&to, 10 << 20, Some(at));
        let ids: Vec<String> = (0..3).map(|i| first.id(i)).collect();
        assert_eq!(ids, (0..3).map(|i| again.id(i)).collect::<Vec<_>>());
        assert_ne!(ids[0], ids[1]);
        let length = ids[0].len();
        for id in (0..50_000).step_by(997).map(|i| first.id(i)) {
            assert_eq!(id.len(), length, "{id}");
            let decoded = STANDARD.decode(&id).expect("base64");
            assert!(decoded.len() <= 64);
        }
        for other in [
            BlockIds::new(&to, 10 << 20, Some(at + Duration::from_nanos(1))),
            BlockIds::new(&to, (10 << 20) + 1, Some(at)),
            BlockIds::new(&lake("ws/lh.Lakehouse/Files/other.bin"), 10 << 20, Some(at)),
            BlockIds::new(&to, 10 << 20, None),
        ] {
            assert_ne!(other.id(0), ids[0]);
            assert_eq!(other.id(0).len(), length);
        }
        assert_ne!(
            BlockIds::new(&to, 10 << 20, None).id(0),
            BlockIds::new(&to, 10 << 20, None).id(0),
            "a file of unknown time is never resumed"
        );
    }

    #[test]
    fn ids_take_the_length_of_those_staged_by_another() {
        let to = lake("ws/lh.Lakehouse/Files/big.bin");
        let ids = || BlockIds::new(&to, 10 << 20, Some(UNIX_EPOCH));
        // object_store's ids: base64 of a 20-character index.
        let theirs = STANDARD.encode(format!("{:20}", 0));
        let matched = ids().matching([theirs.as_str()].into_iter());
        assert_eq!(matched.id(0).len(), theirs.len());
        assert_eq!(matched.id(1).len(), theirs.len());
        assert_ne!(matched.id(0), matched.id(1));
        let long = STANDARD.encode([1u8; 64]);
        assert_eq!(
            ids().matching([long.as_str()].into_iter()).id(3).len(),
            long.len()
        );
        let short = STANDARD.encode("0001");
        assert_eq!(
            ids().matching([short.as_str()].into_iter()).id(0),
            ids().id(0),
            "too short to adopt"
        );
        assert_eq!(ids().matching(std::iter::empty()).id(0), ids().id(0));
    }

    #[test]
    fn the_last_block_holds_the_rest() {
        let chunk = CHUNK as u64;
        assert_eq!(block_len(2 * chunk + 5, 0), chunk);
        assert_eq!(block_len(2 * chunk + 5, 2), 5);
        assert_eq!(block_len(2 * chunk, 1), chunk);
    }

    #[test]
    fn get_block_lists_answer_is_read_with_or_without_uncommitted_blocks() {
        let xml = r#"<?xml version="1.0" encoding="utf-8"?><BlockList><CommittedBlocks /><UncommittedBlocks><Block><Name>QUFB</Name><Size>4194304</Size></Block><Block><Name>QkJC</Name><Size>7</Size></Block></UncommittedBlocks></BlockList>"#;
        let list: BlockList = quick_xml::de::from_str(xml).expect("parsed");
        let blocks: Vec<(&str, u64)> = list
            .uncommitted_blocks
            .blocks
            .iter()
            .map(|b| (b.name.as_str(), b.size))
            .collect();
        assert_eq!(blocks, [("QUFB", 4_194_304), ("QkJC", 7)]);
        let empty: BlockList =
            quick_xml::de::from_str("<BlockList><UncommittedBlocks /></BlockList>")
                .expect("parsed");
        assert!(empty.uncommitted_blocks.blocks.is_empty());
        let none: BlockList = quick_xml::de::from_str("<BlockList />").expect("parsed");
        assert!(none.uncommitted_blocks.blocks.is_empty());
    }
}
