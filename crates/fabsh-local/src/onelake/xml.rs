//! The XML of the Blob API: error bodies, List Blobs' `EnumerationResults`, the block list
//! a Put Block List sends and the one Get Block List answers. Written by hand (a few fixed shapes, every text escaped) and read
//! with quick-xml, whose reader copes with what a client may send (declarations, comments,
//! entities, whitespace).

use super::conditions::http_date;
use super::listing::{ListQuery, Listed, Page};
use quick_xml::escape::escape;
use quick_xml::events::Event;

const DECLARATION: &str = "<?xml version=\"1.0\" encoding=\"utf-8\"?>";

/// `<Error><Code>…</Code><Message>…</Message></Error>`.
pub(crate) fn error(code: &str, message: &str) -> String {
    format!(
        "{DECLARATION}<Error><Code>{}</Code><Message>{}</Message></Error>",
        escape(code),
        escape(message)
    )
}

/// A List Blobs answer: the query echoed, then each blob with its properties and each
/// prefix, then `NextMarker` (empty on the last page, as Azure sends it).
pub(crate) fn enumeration(
    service_endpoint: &str,
    container: &str,
    query: &ListQuery,
    page: &Page,
) -> String {
    let mut out = String::with_capacity(256 + page.listed.len() * 400);
    out.push_str(DECLARATION);
    out.push_str(&format!(
        "<EnumerationResults ServiceEndpoint=\"{}\" ContainerName=\"{}\">",
        escape(service_endpoint),
        escape(container)
    ));
    if !query.prefix.is_empty() {
        out.push_str(&format!("<Prefix>{}</Prefix>", escape(&query.prefix)));
    }
    if let Some(marker) = &query.marker {
        out.push_str(&format!("<Marker>{}</Marker>", escape(marker)));
    }
    out.push_str(&format!("<MaxResults>{}</MaxResults>", query.max_results));
    if let Some(delimiter) = &query.delimiter {
        out.push_str(&format!("<Delimiter>{}</Delimiter>", escape(delimiter)));
    }
    out.push_str("<Blobs>");
    for listed in &page.listed {
        match listed {
            Listed::Blob {
                name,
                meta,
                metadata,
            } => {
                let modified = http_date(meta.modified);
                out.push_str(&format!(
                    "<Blob><Name>{}</Name><Properties>\
                     <Creation-Time>{modified}</Creation-Time>\
                     <Last-Modified>{modified}</Last-Modified>\
                     <Etag>{}</Etag>\
                     <Content-Length>{}</Content-Length>\
                     <Content-Type>{}</Content-Type>\
                     <BlobType>BlockBlob</BlobType>\
                     <LeaseStatus>unlocked</LeaseStatus>\
                     <LeaseState>available</LeaseState>\
                     <ResourceType>file</ResourceType>\
                     <ServerEncrypted>true</ServerEncrypted>\
                     </Properties>",
                    escape(name),
                    escape(&meta.etag),
                    meta.size,
                    super::files::CONTENT_TYPE,
                ));
                // Names are identifiers (checked when stored), so they are element names.
                if let Some(metadata) = metadata {
                    out.push_str("<Metadata>");
                    for (key, value) in metadata {
                        out.push_str(&format!("<{key}>{}</{key}>", escape(value)));
                    }
                    out.push_str("</Metadata>");
                }
                out.push_str("<OrMetadata /></Blob>");
            }
            Listed::Prefix(name) => {
                out.push_str(&format!(
                    "<BlobPrefix><Name>{}</Name></BlobPrefix>",
                    escape(name)
                ));
            }
        }
    }
    out.push_str("</Blobs>");
    match &page.next_marker {
        Some(marker) => out.push_str(&format!("<NextMarker>{}</NextMarker>", escape(marker))),
        None => out.push_str("<NextMarker />"),
    }
    out.push_str("</EnumerationResults>");
    out
}

/// A Get Block List answer: `<BlockList>` with `<CommittedBlocks>` and
/// `<UncommittedBlocks>`, each of the lists asked for (`None`: not asked), every block a
/// `<Block><Name>id</Name><Size>bytes</Size></Block>`, as Azure answers.
pub(crate) fn block_list_answer(
    committed: Option<&[(String, u64)]>,
    uncommitted: Option<&[(String, u64)]>,
) -> String {
    let mut out = String::from(DECLARATION);
    out.push_str("<BlockList>");
    for (element, blocks) in [
        ("CommittedBlocks", committed),
        ("UncommittedBlocks", uncommitted),
    ] {
        let Some(blocks) = blocks else { continue };
        out.push_str(&format!("<{element}>"));
        for (id, size) in blocks {
            out.push_str(&format!(
                "<Block><Name>{}</Name><Size>{size}</Size></Block>",
                escape(id)
            ));
        }
        out.push_str(&format!("</{element}>"));
    }
    out.push_str("</BlockList>");
    out
}

/// Which list a block of a Put Block List is looked up in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlockSource {
    /// The blob's committed blocks.
    Committed,
    /// The blocks staged since.
    Uncommitted,
    /// The staged block if there is one, else the committed one.
    Latest,
}

/// One entry of a Put Block List: where to look the block up, and its id (base64).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BlockRef {
    pub source: BlockSource,
    pub id: String,
}

/// The entries of a `<BlockList>` body in order, or `None` when it is not one.
pub(crate) fn block_list(body: &[u8]) -> Option<Vec<BlockRef>> {
    let mut reader = quick_xml::Reader::from_reader(body);
    reader.config_mut().trim_text(true);
    let mut blocks = Vec::new();
    let mut depth = 0usize;
    let mut open: Option<BlockSource> = None;
    let mut text = String::new();
    let mut saw_list = false;
    loop {
        match reader.read_event().ok()? {
            Event::Start(start) => {
                depth += 1;
                let name = start.name();
                match (depth, name.as_ref()) {
                    (1, b"BlockList") => saw_list = true,
                    (2, b"Committed") => open = Some(BlockSource::Committed),
                    (2, b"Uncommitted") => open = Some(BlockSource::Uncommitted),
                    (2, b"Latest") => open = Some(BlockSource::Latest),
                    _ => return None,
                }
                text.clear();
            }
            Event::Text(content) => {
                open?;
                text.push_str(&content.decode().ok()?);
            }
            Event::GeneralRef(reference) => {
                open?;
                if let Some(ch) = reference.resolve_char_ref().ok()? {
                    text.push(ch);
                } else {
                    let name = reference.decode().ok()?;
                    text.push_str(quick_xml::escape::resolve_predefined_entity(&name)?);
                }
            }
            Event::End(_) => {
                if depth == 2 {
                    let source = open.take()?;
                    blocks.push(BlockRef {
                        source,
                        id: text.trim().to_string(),
                    });
                }
                depth = depth.checked_sub(1)?;
            }
            Event::Empty(_) | Event::CData(_) => return None,
            Event::Eof => break,
            Event::Decl(_) | Event::Comment(_) | Event::PI(_) | Event::DocType(_) => {}
        }
    }
    (saw_list && depth == 0).then_some(blocks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::onelake::files::Meta;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn an_error_body_escapes_its_text() {
        assert_eq!(
            error("BlobNotFound", "no <blob> & more"),
            "<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>BlobNotFound</Code>\
             <Message>no &lt;blob&gt; &amp; more</Message></Error>"
        );
    }

    #[test]
    fn the_block_list_object_store_sends_is_read_in_order() {
        let body = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<BlockList>\n\
                    \t<Uncommitted>MDAx</Uncommitted>\n\t<Latest>MDAy</Latest>\n\
                    <!-- a comment --><Committed>a+b/&#61;&#61;</Committed></BlockList>";
        let blocks = block_list(body.as_bytes()).expect("a block list");
        let ids: Vec<(BlockSource, &str)> =
            blocks.iter().map(|b| (b.source, b.id.as_str())).collect();
        assert_eq!(
            ids,
            [
                (BlockSource::Uncommitted, "MDAx"),
                (BlockSource::Latest, "MDAy"),
                (BlockSource::Committed, "a+b/=="),
            ]
        );
    }

    #[test]
    fn a_block_list_answer_has_azures_element_names() {
        // Get Block List's documented answer: BlockList > CommittedBlocks|UncommittedBlocks
        // > Block > Name, Size.
        let committed = [("QUFB".to_string(), 4_194_304)];
        let staged = [("QkJC".to_string(), 7), ("Q0ND".to_string(), 1)];
        assert_eq!(
            block_list_answer(Some(&committed), Some(&staged)),
            "<?xml version=\"1.0\" encoding=\"utf-8\"?><BlockList>\
             <CommittedBlocks><Block><Name>QUFB</Name><Size>4194304</Size></Block></CommittedBlocks>\
             <UncommittedBlocks><Block><Name>QkJC</Name><Size>7</Size></Block>\
             <Block><Name>Q0ND</Name><Size>1</Size></Block></UncommittedBlocks></BlockList>"
        );
        assert_eq!(
            block_list_answer(None, Some(&[])),
            "<?xml version=\"1.0\" encoding=\"utf-8\"?><BlockList><UncommittedBlocks></UncommittedBlocks></BlockList>"
        );
    }

    #[test]
    fn what_is_not_a_block_list_is_refused() {
        for bad in [
            "",
            "<Other/>",
            "<BlockList><Uncommitted>a</Uncommitted>",
            "<BlockList><Nested><Latest>a</Latest></Nested></BlockList>",
            "<BlockList><Latest/></BlockList>",
            "not xml at all",
        ] {
            assert_eq!(block_list(bad.as_bytes()), None, "{bad}");
        }
        assert_eq!(block_list(b"<BlockList></BlockList>"), Some(vec![]));
    }

    #[test]
    fn a_listing_has_the_shape_of_azures() {
        let meta = Meta {
            size: 3,
            modified: UNIX_EPOCH + Duration::from_secs(1_700_000_000),
            etag: "\"0x1\"".into(),
        };
        let query = ListQuery {
            prefix: "lh.Lakehouse/Files/".into(),
            delimiter: Some("/".into()),
            marker: None,
            max_results: 5000,
            with_metadata: true,
        };
        let page = Page {
            listed: vec![
                Listed::Prefix("lh.Lakehouse/Files/a&b/".into()),
                Listed::Blob {
                    name: "lh.Lakehouse/Files/x.csv".into(),
                    meta,
                    metadata: Some([("fabsh_sha256".to_string(), "ab".to_string())].into()),
                },
            ],
            next_marker: None,
        };
        let text = enumeration("http://h/onelake/", "ws", &query, &page);
        assert!(
            text.contains("<Prefix>lh.Lakehouse/Files/</Prefix>"),
            "{text}"
        );
        assert!(
            text.contains("<BlobPrefix><Name>lh.Lakehouse/Files/a&amp;b/</Name></BlobPrefix>"),
            "{text}"
        );
        assert!(
            text.contains("<Last-Modified>Tue, 14 Nov 2023 22:13:20 GMT</Last-Modified>"),
            "{text}"
        );
        assert!(
            text.contains("<Content-Length>3</Content-Length>"),
            "{text}"
        );
        assert!(
            text.contains("<Metadata><fabsh_sha256>ab</fabsh_sha256></Metadata>"),
            "{text}"
        );
        assert!(
            text.ends_with("<NextMarker /></EnumerationResults>"),
            "{text}"
        );
    }
}
