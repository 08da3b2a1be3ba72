//! Workspace and item flags take an id or a display name. A name is looked up in the name
//! cache first (see [`super::names`]), whose ids the service confirms before they are used;
//! else it is resolved with one list call, which refreshes the cache. An ambiguous name is
//! an error listing the candidates.
//! Microsoft fab's path form is understood too: `Demo.Workspace`, `Welcome.Notebook` (type
//! suffix in any case) name the workspace `Demo` and the notebook `Welcome`, unless something
//! is literally named so. The API client forgets cached lists after each write that changes
//! them (see [`stale`]).

use super::list_cache::ListCache;
use super::names::ListKey;
use super::names::confirm::Pending;
use super::names::file::Entry;
use super::{ApiClient, folders, items, stale, workspaces};
use crate::error::{Error, ErrorKind, Result};
use fabsh_model::item_types;
use fabsh_model::wire::{Folder, Item, Workspace};
use serde_json::Value;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};

/// The name cache of one process: lists fetched once per key at a time, keys side by side.
#[derive(Default)]
pub struct Resolver {
    /// Whatever other callers cache here (an agent's datasources), as the service sent it.
    lists: ListCache,
    /// The workspace and item listings lookups fetch, keyed as [`stale`] builds the keys.
    workspaces: ListCache<Workspace>,
    items: ListCache<Item>,
    /// The lakehouse picks already told on stderr, so a bulk run says each once.
    told: Mutex<HashSet<String>>,
}

/// One way to read a name as typed: the display name, and the type it must have (fab's
/// `Welcome.Notebook`).
#[derive(Debug, Clone, PartialEq)]
struct Reading {
    name: String,
    item_type: Option<String>,
    /// The folder it must be in (fab's `F.Folder/Welcome.Notebook`); `None`: anywhere.
    folder: Option<String>,
}

impl Reading {
    fn literal(text: &str) -> Reading {
        Reading {
            name: text.to_string(),
            item_type: None,
            folder: None,
        }
    }
}

/// The readings of a workspace name: as typed, then without fab's `.Workspace`.
fn workspace_readings(text: &str) -> Vec<Reading> {
    let mut readings = vec![Reading::literal(text)];
    if let Some(name) = strip_suffix_ignoring_case(text, ".Workspace") {
        readings.push(Reading::literal(name));
    }
    readings
}

/// The readings of an item name: as typed, then, when it ends in `.<known type>`, the name
/// before it, of that type (fab's path form).
fn item_readings(text: &str) -> Vec<Reading> {
    let mut readings = vec![Reading::literal(text)];
    if let Some((name, suffix)) = text.rsplit_once('.')
        && !name.is_empty()
        && let Some(known) = item_types::find(suffix)
    {
        readings.push(Reading {
            name: name.to_string(),
            item_type: Some(known.name.to_string()),
            folder: None,
        });
    }
    readings
}

/// fab's folder path before an item (`F.Folder/Sub.Folder/Welcome.Notebook`): the folder
/// names, outermost first, and the item's part; `None` unless every part before the last
/// ends in `.Folder`.
fn folder_path(text: &str) -> Option<(Vec<&str>, &str)> {
    let (folders, item) = text.rsplit_once('/')?;
    let names = folders
        .split('/')
        .map(|part| strip_suffix_ignoring_case(part, ".Folder"))
        .collect::<Option<Vec<&str>>>()?;
    Some((names, item))
}

fn strip_suffix_ignoring_case<'a>(text: &'a str, suffix: &str) -> Option<&'a str> {
    let cut = text
        .len()
        .checked_sub(suffix.len())
        .filter(|cut| *cut > 0)?;
    (text.is_char_boundary(cut) && text[cut..].eq_ignore_ascii_case(suffix)).then(|| &text[..cut])
}

/// True when `text` is a GUID, so no lookup is needed.
pub fn is_guid(text: &str) -> bool {
    uuid::Uuid::try_parse(text.trim()).is_ok()
}

/// The entry whose display name equals `name`, exactly or else ignoring case (fab's
/// `Name.Type` understood; a lakehouse wins over its SQL endpoint).
pub(crate) fn find_named<T: Named + Clone>(list: &[T], name: &str) -> Option<T> {
    matching(list, name).first().map(|entry| (*entry).clone())
}

impl Resolver {
    /// The id of the workspace named or identified by `text`.
    pub async fn workspace(&self, api: &ApiClient, text: &str) -> Result<String> {
        if is_guid(text) {
            return Ok(text.trim().to_string());
        }
        let readings = workspace_readings(text);
        let key = ListKey::Workspaces;
        if let Some(id) = self.cached_id(api, &key, &readings, None).await? {
            return Ok(id);
        }
        self.workspace_from_listing(api, text).await
    }

    /// The id of the workspace named or identified by `text`, from a listing (which
    /// refreshes the name cache): for checks that must not send a request about a workspace
    /// before knowing it is the right one (an MCP server's confinement).
    pub async fn workspace_from_listing(&self, api: &ApiClient, text: &str) -> Result<String> {
        if is_guid(text) {
            return Ok(text.trim().to_string());
        }
        let readings = workspace_readings(text);
        self.resolve(
            api,
            &self.workspaces,
            stale::workspaces_key(),
            &readings,
            "workspace",
            || api.all_as(workspaces::list_req(), "a workspace"),
        )
        .await
    }

    /// The id of the item named or identified by `text` in `workspace_id`, optionally of one
    /// type only.
    pub async fn item(
        &self,
        api: &ApiClient,
        workspace_id: &str,
        text: &str,
        item_type: Option<&str>,
    ) -> Result<String> {
        if is_guid(text) {
            return Ok(text.trim().to_string());
        }
        let key = stale::items_key(workspace_id, item_type);
        let what = item_type.map_or("item".to_string(), |t| format!("{t} item"));
        let fetch = || async {
            let filter = items::ListFilter {
                item_type: item_type.map(String::from),
                ..Default::default()
            };
            items::list_all(api, workspace_id, &filter).await
        };
        let Some((folders, item)) = folder_path(text) else {
            let readings = item_readings(text);
            let cached = ListKey::items(workspace_id);
            if let Some(id) = self.cached_id(api, &cached, &readings, item_type).await? {
                return Ok(id);
            }
            return self
                .resolve(api, &self.items, key, &readings, &what, fetch)
                .await;
        };
        let folder = folder_at(api, workspace_id, &folders).await?;
        let readings: Vec<Reading> = item_readings(item)
            .into_iter()
            .map(|reading| Reading {
                folder: Some(folder.clone()),
                ..reading
            })
            .collect();
        self.resolve(api, &self.items, key, &readings, &what, fetch)
            .await
            .map_err(|err| match err.kind {
                // The names elsewhere in the workspace are no help here.
                ErrorKind::NotFound => Error::not_found(format!(
                    "no {what} named {item:?} in folder {}",
                    folders.join("/")
                ))
                .with_hint(
                    "`fabsh item list -w <workspace> --folder <folder id>` lists what it holds",
                ),
                _ => err,
            })
    }

    /// The id of the one entry the first reading that matches anything names, from the
    /// listing `fetch` makes (shared by the callers of `key` at the same time).
    async fn resolve<T: Named, F, Fut>(
        &self,
        api: &ApiClient,
        lists: &ListCache<T>,
        key: String,
        readings: &[Reading],
        what: &str,
        fetch: F,
    ) -> Result<String>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Result<Vec<T>>>,
    {
        let list = lists
            .get(&key, fetch, |list| {
                readings.iter().any(|r| !named(list, r).is_empty())
            })
            .await?;
        // The listing is in the name cache now, which later lookups read (and confirm
        // across commands); a copy kept here would be trusted unconfirmed.
        lists.forget(&key);
        let typed = &readings[0].name;
        let Some(candidates) = readings
            .iter()
            .map(|reading| named(list.iter(), reading))
            .find(|candidates| !candidates.is_empty())
        else {
            return Err(not_found(what, typed, &list));
        };
        match without_shadow_children(candidates.clone()).as_slice() {
            [only] => {
                let id = only.id().to_string();
                if candidates.len() > 1 {
                    self.tell_lakehouse_pick(api, typed, &id);
                }
                Ok(id)
            }
            many => Err(ambiguous(what, typed, many)),
        }
    }

    /// The id the name cache holds for the first reading that names anything, when it may
    /// be used: one entry (a lakehouse over its SQL endpoint), listed by this very call, or
    /// else confirmed by the service (see [`super::names::confirm`]) and either named with
    /// its type or listed recently enough to rule out another type of the same name (never
    /// for a destructive command: it lists).
    /// `None`: list.
    async fn cached_id(
        &self,
        api: &ApiClient,
        key: &ListKey,
        readings: &[Reading],
        item_type: Option<&str>,
    ) -> Result<Option<String>> {
        let names = api.names().await?;
        // Only the entries named as asked (in any case) leave the file, so a lookup in a
        // long list allocates for a few.
        let wanted = |name: &str| {
            readings
                .iter()
                .any(|reading| reading.name.eq_ignore_ascii_case(name))
        };
        let found = names.with_list(key, api.call_id(), wanted, |listed| {
            let of_type: Vec<&Entry> = listed
                .entries
                .iter()
                .filter(|entry| item_type.is_none_or(|t| entry.kind().eq_ignore_ascii_case(t)))
                .collect();
            let (reading, candidates) = readings
                .iter()
                .map(|reading| (reading, named(of_type.iter().copied(), reading)))
                .find(|(_, candidates)| !candidates.is_empty())?;
            let [only] = without_shadow_children(candidates.clone())[..] else {
                return None;
            };
            let typed = item_type.is_some() || reading.item_type.is_some();
            let unique = typed || *key == ListKey::Workspaces;
            let fresh = listed.fresh && !api.options().names_listed_now;
            if !(listed.listed_here || fresh || unique) {
                return None;
            }
            let pending = Pending {
                key: key.clone(),
                id: only.id().to_string(),
                name: reading.name.clone(),
                kind: Some(only.kind().to_string()).filter(|kind| !kind.is_empty()),
            };
            Some((pending, listed.listed_here, candidates.len() > 1))
        });
        let Some((pending, listed_here, picked)) = found else {
            return Ok(None);
        };
        let (id, name) = (pending.id.clone(), pending.name.clone());
        if !listed_here && !api.use_cached(pending).await? {
            return Ok(None);
        }
        if picked {
            self.tell_lakehouse_pick(api, &name, &id);
        }
        Ok(Some(id))
    }

    /// Says on stderr, once per name, that a lakehouse was taken over its SQL endpoint.
    fn tell_lakehouse_pick(&self, api: &ApiClient, name: &str, id: &str) {
        let first_time = self
            .told
            .lock()
            .is_ok_and(|mut told| told.insert(id.to_string()));
        if first_time {
            api.progress().note(&format!(
                "{name:?} names a lakehouse and its SQL endpoint; using the lakehouse {id} \
                 (for the endpoint: --type SQLEndpoint or \"{name}.SQLEndpoint\")"
            ));
        }
    }

    /// A list kept for the life of the process under `key` (fetched on first use, once at a
    /// time per key, so concurrent callers share one request); fetched again when `has_wanted`
    /// says the cached copy lacks what the caller looks for, so things created since are found.
    pub async fn cached_list<F, Fut>(
        &self,
        key: String,
        fetch: F,
        has_wanted: impl Fn(&[Value]) -> bool,
    ) -> Result<Arc<Vec<Value>>>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Result<Vec<Value>>>,
    {
        self.lists.get(&key, fetch, has_wanted).await
    }

    /// Drops every cached list whose key starts with `prefix`.
    pub fn forget_prefix(&self, prefix: &str) {
        self.lists.forget_prefix(prefix);
        self.workspaces.forget_prefix(prefix);
        self.items.forget_prefix(prefix);
    }

    /// Drops the cached lists a request that changed something at `path` (under the
    /// endpoint) made stale.
    pub fn forget_after_write(&self, path: &str) {
        for prefix in stale::stale_prefixes(path) {
            self.forget_prefix(&prefix);
        }
    }
}

/// What name matching reads of a list entry: a listed object, or a name cache entry.
pub(crate) trait Named {
    fn id(&self) -> &str;
    fn display_name(&self) -> Option<&str>;
    /// The type, for what has one (items; a workspace's is `Workspace`).
    fn kind(&self) -> Option<&str>;
    /// The folder it sits in, when known.
    fn folder(&self) -> Option<&str>;
}

impl Named for Item {
    fn id(&self) -> &str {
        &self.id
    }
    fn display_name(&self) -> Option<&str> {
        Some(&self.display_name)
    }
    fn kind(&self) -> Option<&str> {
        Some(&self.item_type)
    }
    fn folder(&self) -> Option<&str> {
        self.folder_id.as_deref()
    }
}

impl Named for Workspace {
    fn id(&self) -> &str {
        &self.id
    }
    fn display_name(&self) -> Option<&str> {
        Some(&self.display_name)
    }
    fn kind(&self) -> Option<&str> {
        Some(&self.kind)
    }
    fn folder(&self) -> Option<&str> {
        None
    }
}

impl Named for Folder {
    fn id(&self) -> &str {
        &self.id
    }
    fn display_name(&self) -> Option<&str> {
        Some(&self.display_name)
    }
    fn kind(&self) -> Option<&str> {
        None
    }
    fn folder(&self) -> Option<&str> {
        self.parent_folder_id.as_deref()
    }
}

/// A listed entry read as `T`, beside the JSON it came as: matched as `T`, handed on as sent.
impl<T: Named> Named for (T, Value) {
    fn id(&self) -> &str {
        self.0.id()
    }
    fn display_name(&self) -> Option<&str> {
        self.0.display_name()
    }
    fn kind(&self) -> Option<&str> {
        self.0.kind()
    }
    fn folder(&self) -> Option<&str> {
        self.0.folder()
    }
}

impl Named for Entry {
    fn id(&self) -> &str {
        Entry::id(self)
    }
    fn display_name(&self) -> Option<&str> {
        Some(self.name())
    }
    fn kind(&self) -> Option<&str> {
        Some(Entry::kind(self)).filter(|kind| !kind.is_empty())
    }
    fn folder(&self) -> Option<&str> {
        None
    }
}

/// Entries of the reading's type (if it has one) named exactly as it says, or, when none,
/// named so ignoring case.
fn named<'a, T: Named + 'a>(
    list: impl IntoIterator<Item = &'a T>,
    reading: &Reading,
) -> Vec<&'a T> {
    let name = reading.name.as_str();
    let typed: Vec<&T> = list
        .into_iter()
        .filter(|entry| {
            reading.item_type.as_deref().is_none_or(|wanted| {
                entry
                    .kind()
                    .is_some_and(|kind| kind.eq_ignore_ascii_case(wanted))
            })
        })
        .filter(|entry| {
            reading.folder.as_deref().is_none_or(|folder| {
                entry
                    .folder()
                    .is_some_and(|id| id.eq_ignore_ascii_case(folder))
            })
        })
        .collect();
    let exact: Vec<&T> = typed
        .iter()
        .copied()
        .filter(|entry| entry.display_name() == Some(name))
        .collect();
    if !exact.is_empty() {
        return exact;
    }
    typed
        .into_iter()
        .filter(|entry| {
            entry
                .display_name()
                .is_some_and(|candidate| candidate.eq_ignore_ascii_case(name))
        })
        .collect()
}

/// The id of the folder at the end of `names` (outermost first) in `workspace_id`: each
/// named folder must sit in the one before it, the first at the workspace's root.
async fn folder_at(api: &ApiClient, workspace_id: &str, names: &[&str]) -> Result<String> {
    let all = folders::list_all(api, workspace_id, None, Some(true)).await?;
    let mut parent: Option<String> = None;
    for (depth, name) in names.iter().enumerate() {
        let siblings: Vec<&Folder> = all
            .iter()
            .filter(|folder| {
                folder.parent_folder_id.as_deref().map(str::to_lowercase)
                    == parent.as_deref().map(str::to_lowercase)
            })
            .collect();
        let within = match depth {
            0 => "at the workspace's root".to_string(),
            _ => format!("in {}", names[..depth].join("/")),
        };
        let found = named(siblings.iter().copied(), &Reading::literal(name));
        parent = match found.as_slice() {
            [folder] => Some(folder.id.clone()),
            [] => {
                return Err(
                    Error::not_found(format!("no folder named {name:?} {within}"))
                        .with_hint("`fabsh folder list -w <workspace>` shows the folders"),
                );
            }
            many => return Err(ambiguous("folder", name, many)),
        };
    }
    parent.ok_or_else(|| Error::runtime("a folder without an id"))
}

/// The entries a name stands for: its matches, a lakehouse's SQL endpoint left out.
pub(crate) fn matching<'a, T: Named>(list: &'a [T], name: &str) -> Vec<&'a T> {
    // The first reading that names anything (none may).
    item_readings(name)
        .iter()
        .map(|reading| named(list, reading))
        .find(|candidates| !candidates.is_empty())
        .into_iter()
        .flat_map(without_shadow_children)
        .collect()
}

/// Every lakehouse has a SQL endpoint child of the same name, so making that name an error
/// would make every lakehouse name unusable. A name that matches both means the lakehouse
/// (said on stderr); the endpoint is reachable by id, with `--type SQLEndpoint` or as
/// `Name.SQLEndpoint`. Any other clash of names is an error.
fn without_shadow_children<T: Named>(named: Vec<&T>) -> Vec<&T> {
    let is_child = |entry: &T| entry.kind() == Some("SQLEndpoint");
    if named.len() > 1 && named.iter().any(|entry| !is_child(entry)) {
        named.into_iter().filter(|entry| !is_child(entry)).collect()
    } else {
        named
    }
}

fn not_found<T: Named>(what: &str, name: &str, list: &[T]) -> Error {
    let lower = name.to_lowercase();
    let similar: Vec<&str> = list
        .iter()
        .filter_map(Named::display_name)
        .filter(|candidate| {
            let candidate = candidate.to_lowercase();
            candidate.contains(&lower) || lower.contains(&candidate)
        })
        .take(5)
        .collect();
    let err = Error::not_found(format!("no {what} named {name:?}"));
    let names = list.iter().filter_map(Named::display_name);
    // A typo's nearest name first (`Welcome v2` → `Welcome v3`, `Dmeo` → `Demo`), then
    // names that hold the one given or are held in it.
    if let Some(near) = fabsh_model::edit_distance::closest(name, names) {
        err.with_hint(format!("did you mean {near:?}?"))
    } else if similar.is_empty() {
        err.with_hint("pass an id, or check the name with a list command")
    } else {
        err.with_hint(format!("similar names: {}", similar.join(", ")))
    }
}

fn ambiguous<T: Named>(what: &str, name: &str, matches: &[&T]) -> Error {
    let candidates: Vec<String> = matches
        .iter()
        .map(|entry| {
            let id = entry.id();
            match entry.kind() {
                Some(kind) => format!("{id} ({kind})"),
                None => id.to_string(),
            }
        })
        .collect();
    Error::usage(format!(
        "{} {what}s are named {name:?}: {}",
        matches.len(),
        candidates.join(", ")
    ))
    .with_hint(format!(
        "pass the id, add --type where the command has it, or name the type as fab does: \"{name}.{}\"",
        matches
            .first()
            .and_then(|entry| entry.kind())
            .unwrap_or("Notebook")
    ))
}

#[cfg(test)]
mod tests {
    use super::matching;
    use fabsh_model::wire::Item;
    use serde_json::json;

    #[test]
    fn a_lakehouse_wins_over_its_same_named_sql_endpoint() {
        let item = |id: &str, name: &str, kind: &str| -> Item {
            serde_json::from_value(json!({
                "id": id, "displayName": name, "type": kind, "workspaceId": "w"
            }))
            .expect("an item")
        };
        let list = [
            item("l", "Sales", "Lakehouse"),
            item("s", "Sales", "SQLEndpoint"),
            item("e", "Only", "SQLEndpoint"),
        ];
        let ids = |name| {
            matching(&list, name)
                .iter()
                .map(|e| e.id.as_str())
                .collect::<Vec<_>>()
        };
        assert_eq!(ids("Sales"), ["l"]);
        assert_eq!(ids("sales"), ["l"]);
        assert_eq!(ids("Only"), ["e"], "an endpoint alone is still found");
        assert_eq!(ids("Sales.SQLEndpoint"), ["s"], "fab's path form");
        assert_eq!(ids("sales.lakehouse"), ["l"], "suffix in any case");
    }
}
