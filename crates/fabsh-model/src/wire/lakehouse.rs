//! A lakehouse's own objects (swagger `lakehouse/definitions.json`): its `properties` as its
//! per-type collection answers them, and the request of the load-table operation
//! (`Tables_LoadTable`, `Tables_Load_Schema_Table_(beta)`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `LakehouseProperties`: where its files and tables are, and its default schema when
/// schemas are enabled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LakehouseProperties {
    pub one_lake_tables_path: String,
    pub one_lake_files_path: String,
    /// "Returned only for schema enabled lakehouse".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_schema: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `LoadTableRequest`: which file or folder under `Files` becomes the table, and how.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadTableRequest {
    /// `Files/...`.
    pub relative_path: String,
    pub path_type: PathType,
    /// Of the files a folder load takes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_extension: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<LoadMode>,
    /// Whether a folder load takes the files of its sub-folders too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recursive: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format_options: Option<FileFormatOptions>,
}

/// `PathType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PathType {
    File,
    Folder,
}

/// `ModeType`: what a load does to a table that exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum LoadMode {
    Overwrite,
    Append,
}

/// `FileFormatOptions`, told apart by `format`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "format")]
pub enum FileFormatOptions {
    Csv {
        /// Whether the first line names the columns.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        header: Option<bool>,
        /// Up to 8 characters, none of `()[]{}'"`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        delimiter: Option<String>,
    },
    Parquet,
}

/// Whether `name` is a table name the load-table operation takes (the swagger's
/// `^(?=[0-9]*[a-zA-Z_])[a-zA-Z0-9_]{1,256}$`: letters, digits and `_`, not digits only).
pub fn valid_table_name(name: &str) -> bool {
    (1..=256).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !name.bytes().all(|b| b.is_ascii_digit())
}

/// Whether `name` is a schema name (`^[a-zA-Z0-9_]{1,128}$`).
pub fn valid_schema_name(name: &str) -> bool {
    (1..=128).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Whether `path` is a `relativePath` the load-table operation takes (the swagger's
/// `^Files(\/[\p{L}\w]{1}([ \p{L}\w\.-]*[\p{L}\w\.-]{1})*)*$`): `Files`, then segments of
/// letters, digits, `_`, spaces, `.` and `-` that start with a letter, digit or `_` and do
/// not end with a space.
pub fn valid_relative_path(path: &str) -> bool {
    let Some(rest) = path.strip_prefix("Files") else {
        return false;
    };
    if rest.is_empty() {
        return true;
    }
    let Some(rest) = rest.strip_prefix('/') else {
        return false;
    };
    let word = |c: char| c.is_alphanumeric() || c == '_';
    rest.split('/').all(|segment| {
        segment.chars().next().is_some_and(word)
            && !segment.ends_with(' ')
            && segment
                .chars()
                .all(|c| word(c) || matches!(c, ' ' | '.' | '-'))
    })
}

/// Whether `delimiter` is a CSV delimiter the operation takes (up to 8 characters, none of
/// `()[]{}'"`).
pub fn valid_delimiter(delimiter: &str) -> bool {
    delimiter.chars().count() <= 8 && !delimiter.contains(['(', ')', '[', ']', '{', '}', '\'', '"'])
}

/// Whether `extension` is a `fileExtension` (`^[a-zA-Z0-9_-]{1,16}$`).
pub fn valid_file_extension(extension: &str) -> bool {
    (1..=16).contains(&extension.len())
        && extension
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_swagger_example_reads_and_writes_back_the_same() {
        // LoadTableOperation.json's request (microsoft/fabric-rest-api-specs).
        let example = json!({
            "relativePath": "Files/abc/abc123.csv",
            "pathType": "File",
            "mode": "Overwrite",
            "recursive": false,
            "formatOptions": {"format": "Csv", "header": true, "delimiter": ","}
        });
        let request: LoadTableRequest = serde_json::from_value(example.clone()).expect("read");
        assert_eq!(request.path_type, PathType::File);
        assert_eq!(
            request.format_options,
            Some(FileFormatOptions::Csv {
                header: Some(true),
                delimiter: Some(",".into())
            })
        );
        assert_eq!(serde_json::to_value(&request).expect("write"), example);
    }

    #[test]
    fn names_and_paths_follow_the_swaggers_patterns() {
        for good in ["orders", "_t", "1abc", "a1_b"] {
            assert!(valid_table_name(good), "{good}");
        }
        for bad in ["", "123", "a-b", "a.b", "a b", &"a".repeat(257)] {
            assert!(!valid_table_name(bad), "{bad}");
        }
        for good in [
            "Files",
            "Files/abc/abc123.csv",
            "Files/raw data/ordërs-1.csv",
            "Files/_x/a",
        ] {
            assert!(valid_relative_path(good), "{good}");
        }
        for bad in [
            "Tables/orders",
            "files/x.csv",
            "Files/",
            "Files//x",
            "Files/../x",
            "Files/.hidden",
            "Files/x /y",
            "Files/a?b",
            "/Files/x",
        ] {
            assert!(!valid_relative_path(bad), "{bad}");
        }
        assert!(valid_delimiter(",") && valid_delimiter("\t") && valid_delimiter("||"));
        assert!(!valid_delimiter("(") && !valid_delimiter("123456789"));
        assert!(valid_file_extension("csv") && !valid_file_extension(".csv"));
        assert!(valid_schema_name("dbo") && !valid_schema_name("sales.x"));
    }
}
