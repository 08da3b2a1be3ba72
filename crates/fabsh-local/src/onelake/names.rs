//! Blob names checked before they come near the file system. A name inside a workspace (the
//! container) is `{item}/{Files|Tables}/{path...}`: the item segment is an item id or
//! `Name.Type`, and the rest becomes a path under the item's folder in the data dir, so every
//! segment must be one a file system takes as a plain name: not empty, not `.` or `..`, no
//! control character (NUL among them), at most 255 bytes. Azure refuses such names with 400
//! `InvalidResourceName`, and OneLake refuses anything outside `Files` and `Tables`.

use super::answer::StorageError;

/// The two folders of an item that hold data.
pub(crate) const AREAS: [&str; 2] = ["Files", "Tables"];

/// Longest blob name Azure takes (characters).
const MAX_NAME_CHARS: usize = 1024;
/// Longest segment most file systems take (bytes).
const MAX_SEGMENT_BYTES: usize = 255;

/// How a request names an item: by id, or by `Name.Type` as OneLake's paths do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ItemRef {
    /// An item id (lower-cased).
    Id(String),
    /// A display name and an item type's name, as given.
    Named { name: String, item_type: String },
}

impl ItemRef {
    /// Reads an item segment; `None` when it is neither an id nor `Name.Type`.
    pub(crate) fn parse(segment: &str) -> Option<ItemRef> {
        if uuid::Uuid::parse_str(segment).is_ok() {
            return Some(ItemRef::Id(segment.to_ascii_lowercase()));
        }
        let (name, item_type) = segment.rsplit_once('.')?;
        (!name.is_empty() && !item_type.is_empty()).then(|| ItemRef::Named {
            name: name.to_string(),
            item_type: item_type.to_string(),
        })
    }
}

/// A checked path inside an item: segments joined by `/`, the first `Files` or `Tables`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ItemPath(String);

impl ItemPath {
    /// The path as OneLake names it (`Files/raw/orders.csv`).
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }

    /// Its segments.
    pub(crate) fn segments(&self) -> impl Iterator<Item = &str> {
        self.0.split('/')
    }

    /// True for `Files` or `Tables` itself, which are folders no request may replace.
    pub(crate) fn is_area(&self) -> bool {
        !self.0.contains('/')
    }
}

/// A blob name split into its item segment and its checked path in the item.
pub(crate) fn split_blob(name: &str) -> Result<(String, ItemPath), StorageError> {
    let (item, rest) = name.split_once('/').unwrap_or((name, ""));
    check_segment(item)?;
    Ok((item.to_string(), item_path(rest)?))
}

/// Checks a path inside an item (`Files/...` or `Tables/...`).
pub(crate) fn item_path(path: &str) -> Result<ItemPath, StorageError> {
    if path.chars().count() > MAX_NAME_CHARS {
        return Err(StorageError::invalid_name());
    }
    let mut segments = path.split('/');
    // `split` yields at least one piece (the empty string for an empty path).
    let area = segments.next().unwrap_or("");
    if !AREAS.contains(&area) {
        return Err(StorageError::outside_areas());
    }
    for segment in segments {
        check_segment(segment)?;
    }
    Ok(ItemPath(path.to_string()))
}

/// One segment a file system takes as a plain name.
fn check_segment(segment: &str) -> Result<(), StorageError> {
    let plain = !segment.is_empty()
        && segment != "."
        && segment != ".."
        && segment.len() <= MAX_SEGMENT_BYTES
        && !segment.chars().any(char::is_control);
    if plain {
        Ok(())
    } else {
        Err(StorageError::invalid_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(result: Result<(String, ItemPath), StorageError>) -> &'static str {
        result.err().map_or("ok", |e| e.code())
    }

    #[test]
    fn a_name_splits_into_its_item_and_a_path_under_files_or_tables() {
        let (item, path) = split_blob("Sales.Lakehouse/Files/raw/ordërs 1.csv").expect("valid");
        assert_eq!(item, "Sales.Lakehouse");
        assert_eq!(path.as_str(), "Files/raw/ordërs 1.csv");
        assert!(!path.is_area());
        let (_, tables) = split_blob("x.Lakehouse/Tables").expect("the area itself");
        assert!(tables.is_area());
    }

    #[test]
    fn names_that_could_leave_the_item_folder_are_refused() {
        for bad in [
            "lh.Lakehouse/Files/../../etc/passwd",
            "lh.Lakehouse/Files/./x",
            "lh.Lakehouse/Files//x",
            "lh.Lakehouse/Files/x/",
            "lh.Lakehouse/Files/a\0b",
            "lh.Lakehouse/Files/a\nb",
            "../Files/x",
            "/Files/x",
            "",
        ] {
            assert_eq!(code(split_blob(bad)), "InvalidResourceName", "{bad:?}");
        }
        let long = format!("lh.Lakehouse/Files/{}", "a".repeat(256));
        assert_eq!(code(split_blob(&long)), "InvalidResourceName");
    }

    #[test]
    fn paths_outside_files_and_tables_are_refused() {
        for bad in [
            "lh.Lakehouse",
            "lh.Lakehouse/Other/x",
            "lh.Lakehouse/files/x",
        ] {
            assert_eq!(code(split_blob(bad)), "InvalidUri", "{bad:?}");
        }
    }

    #[test]
    fn an_item_is_named_by_id_or_by_name_and_type() {
        let id = "0C7C0F6E-6D35-4B5B-9E43-6B3E2F0E9A11";
        assert_eq!(
            ItemRef::parse(id),
            Some(ItemRef::Id(id.to_ascii_lowercase()))
        );
        assert_eq!(
            ItemRef::parse("My.Sales.Lakehouse"),
            Some(ItemRef::Named {
                name: "My.Sales".into(),
                item_type: "Lakehouse".into()
            })
        );
        assert_eq!(ItemRef::parse("NoType"), None);
        assert_eq!(ItemRef::parse(".Lakehouse"), None);
    }
}
