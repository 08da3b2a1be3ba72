//! A page of a list: `{value, continuationToken?, continuationUri?}`, both continuation keys
//! left out on the last page.

use serde::{Deserialize, Serialize};

/// One page of entries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Page<T> {
    pub value: Vec<T>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continuation_token: Option<String>,
    /// The next page's URL (the swagger's `nextLinkName`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continuation_uri: Option<String>,
}

impl<T> Page<T> {
    /// The last (or only) page holding `value`.
    pub fn last(value: Vec<T>) -> Page<T> {
        Page {
            value,
            continuation_token: None,
            continuation_uri: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::Folder;

    #[test]
    fn pages_read_with_or_without_continuation() {
        let last = r#"{"value":[{"id":"f1","displayName":"A","workspaceId":"w1"}]}"#;
        let page: Page<Folder> = serde_json::from_str(last).unwrap();
        assert_eq!(page.value[0].display_name, "A");
        assert_eq!(page.continuation_token, None);
        assert_eq!(serde_json::to_string(&page).unwrap(), last);

        let more = r#"{"value":[],"continuationToken":"t%3D","continuationUri":"https://h/v1/x?continuationToken=t%3D"}"#;
        let page: Page<Folder> = serde_json::from_str(more).unwrap();
        assert_eq!(page.continuation_token.as_deref(), Some("t%3D"));
        assert_eq!(serde_json::to_string(&page).unwrap(), more);
    }
}
