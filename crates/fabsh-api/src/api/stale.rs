//! The keys of the cached lists that name lookups use, and which of them a write makes stale.
//! The API client forgets them after every request that changed (or may have changed)
//! something, so handlers never have to remember to.

/// The key of the workspace list.
pub fn workspaces_key() -> String {
    "workspaces".to_string()
}

/// The key of a workspace's item list, of one type or (`None`) of all.
pub fn items_key(workspace: &str, item_type: Option<&str>) -> String {
    format!("{}{}", items_prefix(workspace), item_type.unwrap_or(""))
}

/// The key of an agent's datasource list in one stage (`staging`, `published`).
pub fn datasources_key(workspace: &str, agent: &str, stage: &str) -> String {
    format!("{}{stage}", datasources_prefix(workspace, agent))
}

fn items_prefix(workspace: &str) -> String {
    format!("items:{}/", workspace.to_lowercase())
}

fn datasources_prefix(workspace: &str, agent: &str) -> String {
    format!("{}{}/", datasources_in(workspace), agent.to_lowercase())
}

fn datasources_in(workspace: &str) -> String {
    format!("datasources:{}/", workspace.to_lowercase())
}

/// The key prefixes a request that changes something at `path` (under the endpoint, e.g.
/// `/workspaces/{ws}/items/{id}`) makes stale. Forgetting more than needed only costs a list
/// request later, so the rules are broad where a miss would leave a stale name:
///
/// - `/workspaces` (a create) and `/workspaces/{ws}` (rename, delete): the workspace list,
///   and on the latter everything cached inside the workspace;
/// - `/workspaces/{ws}/{collection}` (a create of an item, agent, folder...) and
///   `/workspaces/{ws}/{collection}/{id}` (rename, delete, bulk item work): its item lists,
///   and the datasources of that id;
/// - `.../{id}/updateDefinition`: the item lists (the name may change) and the datasources
///   (an agent's definition holds them);
/// - an agent's draft datasources (`.../{id}/staging/datasources[/{ds}]`), publish and
///   reset: the agent's datasource lists. Few-shot and element writes change none of these
///   lists, so an upload of many few-shots keeps its one lookup.
pub fn stale_prefixes(path: &str) -> Vec<String> {
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    match segments.as_slice() {
        ["workspaces"] => vec![workspaces_key()],
        ["workspaces", ws] => vec![workspaces_key(), items_prefix(ws), datasources_in(ws)],
        ["workspaces", ws, _collection] => vec![items_prefix(ws)],
        ["workspaces", ws, _collection, id]
        | ["workspaces", ws, _collection, id, "updateDefinition"] => {
            vec![items_prefix(ws), datasources_prefix(ws, id)]
        }
        [
            "workspaces",
            ws,
            _,
            id,
            "staging",
            "datasources" | "publish" | "reset",
        ]
        | ["workspaces", ws, _, id, "staging", "datasources", _] => {
            vec![datasources_prefix(ws, id)]
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether a write to `path` makes the list under `key` stale.
    fn stales(path: &str, key: &str) -> bool {
        stale_prefixes(path)
            .iter()
            .any(|prefix| key.starts_with(prefix.as_str()))
    }

    #[test]
    fn writes_make_the_lists_they_change_stale_and_no_others() {
        let all_items = items_key("W1", None);
        let notebooks = items_key("W1", Some("Notebook"));
        let other_workspace = items_key("W2", None);
        let draft = datasources_key("W1", "A1", "staging");
        let published = datasources_key("W1", "a1", "published");
        let workspaces = workspaces_key();

        assert!(stales("/workspaces", &workspaces));
        assert!(!stales("/workspaces", &all_items));
        for path in ["/workspaces/w1", "workspaces/W1/"] {
            assert!(stales(path, &workspaces), "{path}");
            assert!(stales(path, &notebooks) && stales(path, &draft), "{path}");
            assert!(!stales(path, &other_workspace), "{path}");
        }

        for path in [
            "/workspaces/w1/items",
            "/workspaces/w1/dataAgents",
            "/workspaces/w1/notebooks",
            "/workspaces/w1/items/i1",
            "/workspaces/w1/dataAgents/a1",
            "/workspaces/w1/items/bulkImportDefinitions",
            "/workspaces/w1/items/i1/updateDefinition",
        ] {
            assert!(
                stales(path, &all_items) && stales(path, &notebooks),
                "{path}"
            );
            assert!(!stales(path, &other_workspace), "{path}");
            assert!(!stales(path, &workspaces), "{path}");
        }
        assert!(stales("/workspaces/w1/dataAgents/a1", &draft));
        assert!(stales(
            "/workspaces/w1/items/a1/updateDefinition",
            &published
        ));
        assert!(!stales("/workspaces/w1/items/i1", &draft));

        let agent = "/workspaces/w1/dataAgents/a1";
        for rest in [
            "/staging/datasources",
            "/staging/datasources/d1",
            "/staging/publish",
            "/staging/reset",
        ] {
            let path = format!("{agent}{rest}");
            assert!(stales(&path, &draft) && stales(&path, &published), "{path}");
            assert!(!stales(&path, &all_items), "{path}");
        }
        for rest in [
            "/staging/datasources/d1/fewshots",
            "/staging/datasources/d1/fewshots/f1",
            "/staging/datasources/d1/elements",
            "/staging/settings",
            "/move",
        ] {
            assert!(
                stale_prefixes(&format!("{agent}{rest}")).is_empty(),
                "{rest}"
            );
        }
        assert!(stale_prefixes("/mcp/workspaces/w1/dataagents/a1/agent").is_empty());
    }
}
