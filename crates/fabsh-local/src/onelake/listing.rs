//! List Blobs' paging over the entries found on disk: names that start with the prefix, in
//! byte order, grouped by the delimiter into `BlobPrefix`es, from the marker on, at most
//! `maxresults`. Folders count as what is under them: with a delimiter, a folder (empty or
//! not) is a prefix, as OneLake's hierarchical namespace lists it; without one, only files
//! are listed. The marker is the first name of the next page (opaque to clients).

use super::files::Meta;
use super::metadata::UserMetadata;
use std::collections::BTreeMap;

/// Most entries a page holds, and the default (Azure's).
pub(crate) const MAX_RESULTS: usize = 5000;

/// A List Blobs request's parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ListQuery {
    /// Names must start with it (`""` for all).
    pub prefix: String,
    /// Groups names into prefixes up to its first occurrence after `prefix`.
    pub delimiter: Option<String>,
    /// Where the page starts (a `NextMarker` given earlier).
    pub marker: Option<String>,
    /// At most this many entries (1..=5000).
    pub max_results: usize,
    /// `include=metadata`: each blob's user metadata is answered with it.
    pub with_metadata: bool,
}

/// A file or folder found, named as listed (relative to the container).
#[derive(Debug, Clone)]
pub(crate) struct Named {
    /// The name in the container (`Sales.Lakehouse/Files/raw/x.csv`).
    pub name: String,
    /// The blob's properties; `None` for a folder.
    pub meta: Option<Meta>,
    /// The blob's user metadata, when the listing asked for it.
    pub metadata: Option<UserMetadata>,
}

/// One entry of a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Listed {
    /// A blob, its properties and (when asked for) its user metadata.
    Blob {
        name: String,
        meta: Meta,
        metadata: Option<UserMetadata>,
    },
    /// A prefix shared by names below it (ends with the delimiter).
    Prefix(String),
}

/// One page of a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Page {
    /// The entries, in order.
    pub listed: Vec<Listed>,
    /// Where the next page starts; `None` on the last.
    pub next_marker: Option<String>,
}

/// The page `query` asks for among `found` (in any order).
pub(crate) fn page(query: &ListQuery, found: Vec<Named>) -> Page {
    let mut keyed: BTreeMap<String, Listed> = BTreeMap::new();
    for entry in found {
        let Some(rest) = entry.name.strip_prefix(query.prefix.as_str()) else {
            continue;
        };
        if let Some(delimiter) = &query.delimiter {
            // A folder is grouped as the names inside it would be.
            let grouped = match entry.meta {
                Some(_) => rest.to_string(),
                None => format!("{rest}/"),
            };
            if let Some(at) = grouped.find(delimiter.as_str()) {
                let key = format!("{}{}", query.prefix, &grouped[..at + delimiter.len()]);
                keyed.entry(key.clone()).or_insert(Listed::Prefix(key));
                continue;
            }
        }
        if let Some(meta) = entry.meta {
            keyed.insert(
                entry.name.clone(),
                Listed::Blob {
                    name: entry.name,
                    meta,
                    metadata: entry.metadata,
                },
            );
        }
    }
    let from = query.marker.clone().unwrap_or_default(); // no marker: from the first name
    let mut rest = keyed.range(from..).map(|(_, listed)| listed.clone());
    let listed: Vec<Listed> = rest.by_ref().take(query.max_results).collect();
    let next_marker = rest.next().map(|next| match next {
        Listed::Blob { name, .. } | Listed::Prefix(name) => name,
    });
    Page {
        listed,
        next_marker,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::UNIX_EPOCH;

    fn file(name: &str) -> Named {
        Named {
            name: name.into(),
            meta: Some(Meta {
                size: 1,
                modified: UNIX_EPOCH,
                etag: "\"0x1\"".into(),
            }),
            metadata: None,
        }
    }

    fn folder(name: &str) -> Named {
        Named {
            name: name.into(),
            meta: None,
            metadata: None,
        }
    }

    fn names(page: &Page) -> Vec<String> {
        page.listed
            .iter()
            .map(|listed| match listed {
                Listed::Blob { name, .. } => name.clone(),
                Listed::Prefix(name) => format!("{name} (prefix)"),
            })
            .collect()
    }

    fn query(prefix: &str, delimiter: Option<&str>, max_results: usize) -> ListQuery {
        ListQuery {
            prefix: prefix.into(),
            delimiter: delimiter.map(str::to_string),
            marker: None,
            max_results,
            with_metadata: false,
        }
    }

    fn tree() -> Vec<Named> {
        vec![
            folder("lh.Lakehouse/Files"),
            folder("lh.Lakehouse/Files/raw"),
            file("lh.Lakehouse/Files/raw/b.csv"),
            file("lh.Lakehouse/Files/raw/a.csv"),
            folder("lh.Lakehouse/Files/empty"),
            file("lh.Lakehouse/Files/top.txt"),
            folder("lh.Lakehouse/Tables"),
        ]
    }

    #[test]
    fn without_a_delimiter_every_file_under_the_prefix_is_listed_in_order() {
        let page = page(&query("lh.Lakehouse/Files/", None, 10), tree());
        assert_eq!(
            names(&page),
            [
                "lh.Lakehouse/Files/raw/a.csv",
                "lh.Lakehouse/Files/raw/b.csv",
                "lh.Lakehouse/Files/top.txt"
            ]
        );
        assert_eq!(page.next_marker, None);
    }

    #[test]
    fn with_a_delimiter_folders_empty_or_not_are_prefixes() {
        let page = page(&query("lh.Lakehouse/Files/", Some("/"), 10), tree());
        assert_eq!(
            names(&page),
            [
                "lh.Lakehouse/Files/empty/ (prefix)",
                "lh.Lakehouse/Files/raw/ (prefix)",
                "lh.Lakehouse/Files/top.txt"
            ]
        );
        let root = page_of_root();
        assert_eq!(
            names(&root),
            [
                "lh.Lakehouse/Files/ (prefix)",
                "lh.Lakehouse/Tables/ (prefix)"
            ]
        );
    }

    fn page_of_root() -> Page {
        page(&query("lh.Lakehouse/", Some("/"), 10), tree())
    }

    #[test]
    fn pages_follow_the_marker_without_repeating_or_skipping() {
        let mut seen = Vec::new();
        let mut marker = None;
        loop {
            let mut q = query("lh.Lakehouse/", None, 1);
            q.marker = marker;
            let page = page(&q, tree());
            seen.extend(names(&page));
            match page.next_marker {
                Some(next) => marker = Some(next),
                None => break,
            }
        }
        assert_eq!(
            seen,
            [
                "lh.Lakehouse/Files/raw/a.csv",
                "lh.Lakehouse/Files/raw/b.csv",
                "lh.Lakehouse/Files/top.txt"
            ]
        );
    }
}
