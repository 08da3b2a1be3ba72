//! The files below a folder with what tells them apart without reading them: size and the
//! SHA-256 fabsh keeps in each blob's metadata (`x-ms-meta-fabsh_sha256`, set by
//! [`super::Sending::sha256`]). object_store 0.12's listing drops a blob's metadata and
//! Content-MD5 (its `ObjectMeta` has size, time and ETag only) and never asks for them, so
//! this is List Blobs sent here with `include=metadata`, as the Blob API documents it (through
//! `blob_api`); one request per page of 5000, nothing per file.

use super::{LakePath, OneLake};
use crate::error::{Error, Result};
use serde::Deserialize;
use std::collections::HashMap;

/// The metadata key holding a blob's SHA-256 (hex). Azure metadata names are C#
/// identifiers: letters, digits and `_`, no `-`.
pub const SHA256_KEY: &str = "fabsh_sha256";

/// The SHA-256 of what `content` reads, in the lower-case hex kept under [`SHA256_KEY`].
pub fn sha256_hex(mut content: impl std::io::Read) -> std::io::Result<String> {
    use sha2::Digest;
    let mut hasher = sha2::Sha256::new();
    std::io::copy(&mut content, &mut hasher)?;
    Ok(hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect())
}

/// A file below a folder: its path, size and stored SHA-256 (none when it was written by
/// another tool, or by `onelake cp` in blocks: it hashes only what it sends in one request).
#[derive(Debug, Clone)]
pub struct Stored {
    pub path: LakePath,
    pub size: u64,
    pub sha256: Option<String>,
}

/// List Blobs' answer, the parts read here.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct EnumerationResults {
    next_marker: Option<String>,
    blobs: Blobs,
}

#[derive(Debug, Deserialize)]
struct Blobs {
    #[serde(rename = "Blob", default)]
    blobs: Vec<Blob>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Blob {
    name: String,
    properties: Properties,
    metadata: Option<HashMap<String, String>>,
}

#[derive(Debug, Deserialize)]
struct Properties {
    #[serde(rename = "Content-Length")]
    content_length: u64,
    /// `directory` for a folder of a hierarchical namespace (OneLake's), listed as a blob.
    #[serde(rename = "ResourceType")]
    resource_type: Option<String>,
}

impl OneLake {
    /// Every file below the folder `folder`, at any depth, with its size and stored SHA-256.
    pub async fn files_with_hashes(&self, folder: &LakePath) -> Result<Vec<Stored>> {
        let prefix = format!("{}/", folder.in_workspace());
        let item = format!("{}/", folder.item);
        let mut found = Vec::new();
        let mut marker: Option<String> = None;
        loop {
            let page = self.list_page(folder, &prefix, marker.as_deref()).await?;
            for blob in page.blobs.blobs {
                if blob.properties.resource_type.as_deref() == Some("directory") {
                    continue;
                }
                // A listing names its blobs from the item segment it was asked with.
                let Some(inner) = blob.name.strip_prefix(&item) else {
                    return Err(Error::runtime(format!(
                        "OneLake listed {} under {folder}, outside its item",
                        blob.name
                    )));
                };
                let sha256 = blob
                    .metadata
                    .as_ref()
                    .and_then(|metadata| metadata.get(SHA256_KEY))
                    .filter(|hash| is_sha256_hex(hash))
                    .cloned();
                found.push(Stored {
                    path: folder.at(inner.to_string()),
                    size: blob.properties.content_length,
                    sha256,
                });
            }
            match page.next_marker.filter(|next| !next.is_empty()) {
                Some(next) => marker = Some(next),
                None => return Ok(found),
            }
        }
    }

    /// One page of List Blobs with metadata.
    async fn list_page(
        &self,
        folder: &LakePath,
        prefix: &str,
        marker: Option<&str>,
    ) -> Result<EnumerationResults> {
        let url = self.container_url(folder);
        let mut query = vec![
            ("restype", "container"),
            ("comp", "list"),
            ("include", "metadata"),
            ("prefix", prefix),
        ];
        if let Some(marker) = marker {
            query.push(("marker", marker));
        }
        let answer = self
            .send(
                |client| client.get(&url).query(&query),
                || format!("OneLake: cannot list {folder}"),
            )
            .await?;
        if !answer.status.is_success() {
            return Err(answer.refused("listing", folder));
        }
        quick_xml::de::from_reader(answer.body.as_ref()).map_err(|err| {
            Error::runtime(format!(
                "OneLake: the listing of {folder} is not List Blobs XML"
            ))
            .with_cause(err)
        })
    }
}

/// True for 64 hex digits: a value someone else wrote under the key is not trusted as a hash.
fn is_sha256_hex(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_with_metadata_reads_sizes_hashes_and_the_next_marker() {
        let xml = r#"<?xml version="1.0" encoding="utf-8"?><EnumerationResults ServiceEndpoint="x" ContainerName="ws"><Prefix>lh/Files/</Prefix><Blobs><Blob><Name>lh/Files/a</Name><Properties><Content-Length>3</Content-Length><Content-Type>application/octet-stream</Content-Type><ResourceType>file</ResourceType></Properties><Metadata><fabsh_sha256>ab</fabsh_sha256></Metadata></Blob><BlobPrefix><Name>lh/Files/d/</Name></BlobPrefix><Blob><Name>lh/Files/b</Name><Properties><Content-Length>0</Content-Length></Properties><Metadata /></Blob></Blobs><NextMarker>lh/Files/c</NextMarker></EnumerationResults>"#;
        let page: EnumerationResults = quick_xml::de::from_str(xml).expect("parsed");
        assert_eq!(page.next_marker.as_deref(), Some("lh/Files/c"));
        let blobs = &page.blobs.blobs;
        assert_eq!(blobs.len(), 2);
        assert_eq!(blobs[0].properties.content_length, 3);
        assert_eq!(
            blobs[0]
                .metadata
                .as_ref()
                .and_then(|m| m.get(SHA256_KEY))
                .map(String::as_str),
            Some("ab")
        );
        assert!(blobs[1].metadata.as_ref().is_none_or(HashMap::is_empty));
    }

    #[test]
    fn only_64_hex_digits_count_as_a_hash() {
        assert!(is_sha256_hex(&"a".repeat(64)));
        assert!(!is_sha256_hex(&"a".repeat(63)));
        assert!(!is_sha256_hex(&"g".repeat(64)));
    }
}
