//! What a workspace-scoped route is about, read once from its path: the workspace
//! (`{ws}`), and for item routes the item (`{collection}/{item}`, with the type a per-type
//! collection implies). Every handler opens the same way — normalise the ids, check the
//! caller's role in the workspace, load the item of the implied type — so that opening lives
//! here and nowhere else.

use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::respond::norm;
use crate::state::Shared;
use crate::store::items::{self, Item};
use crate::store::principals::Role;
use axum::extract::{FromRequestParts, RawPathParams};
use axum::http::request::Parts;
use fabsh_model::item_types::{self, ItemType};
use rusqlite::Connection;

/// The `{ws}` of a route, normalised.
#[derive(Debug, Clone)]
pub(super) struct WorkspaceTarget {
    pub ws: String,
}

/// A resource under a workspace that is not an item (a folder, a role assignment): `{ws}`
/// and the route's other id (`{folder}`, `{principal}`), both normalised.
#[derive(Debug, Clone)]
pub(super) struct ChildTarget {
    pub ws: String,
    pub id: String,
}

/// The `{ws}/{collection}` of an item list or create route.
#[derive(Debug, Clone)]
pub(super) struct CollectionTarget {
    pub ws: String,
    /// The collection segment as sent (`items`, `notebooks`, ...).
    pub collection: String,
    /// The type a per-type collection implies; `None` under `/items`.
    pub implied: Option<&'static ItemType>,
}

/// The item of a `/workspaces/{ws}/{collection}/{item}/...` route.
#[derive(Debug, Clone)]
pub(crate) struct ItemTarget {
    pub ws: String,
    pub id: String,
    /// The collection segment as sent (`items`, `notebooks`, ...).
    pub collection: String,
    /// The type a per-type collection implies; `None` under `/items`.
    pub implied: Option<&'static ItemType>,
}

/// The type a collection segment implies: `None` for `items`, 404 for an unknown segment.
/// Case does not matter (`/Notebooks`, `/dataagents`), as on the service.
fn implied_type(collection: &str) -> Result<Option<&'static ItemType>, ApiError> {
    if collection.eq_ignore_ascii_case("items") {
        return Ok(None);
    }
    item_types::by_collection(collection)
        .map(Some)
        .ok_or_else(ApiError::entity_not_found)
}

/// The named path parameters of a request, by name.
async fn path_params(parts: &mut Parts, state: &Shared) -> Result<Vec<(String, String)>, ApiError> {
    let params = RawPathParams::from_request_parts(parts, state)
        .await
        .map_err(|_| ApiError::entity_not_found())?;
    Ok(params
        .iter()
        .map(|(name, value)| (name.to_string(), value.to_string()))
        .collect())
}

fn param<'a>(params: &'a [(String, String)], name: &str) -> Result<&'a str, ApiError> {
    params
        .iter()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.as_str())
        .ok_or_else(ApiError::entity_not_found)
}

impl FromRequestParts<Shared> for WorkspaceTarget {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &Shared) -> Result<Self, ApiError> {
        let params = path_params(parts, state).await?;
        Ok(WorkspaceTarget {
            ws: norm(param(&params, "ws")?),
        })
    }
}

impl FromRequestParts<Shared> for ChildTarget {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &Shared) -> Result<Self, ApiError> {
        let params = path_params(parts, state).await?;
        let id = params
            .iter()
            .find(|(name, _)| name != "ws")
            .map(|(_, value)| norm(value))
            .ok_or_else(ApiError::entity_not_found)?;
        Ok(ChildTarget {
            ws: norm(param(&params, "ws")?),
            id,
        })
    }
}

impl CollectionTarget {
    fn from_params(params: &[(String, String)]) -> Result<Self, ApiError> {
        let collection = param(params, "collection")?.to_string();
        Ok(CollectionTarget {
            ws: norm(param(params, "ws")?),
            implied: implied_type(&collection)?,
            collection,
        })
    }
}

impl FromRequestParts<Shared> for CollectionTarget {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &Shared) -> Result<Self, ApiError> {
        CollectionTarget::from_params(&path_params(parts, state).await?)
    }
}

impl FromRequestParts<Shared> for ItemTarget {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &Shared) -> Result<Self, ApiError> {
        let params = path_params(parts, state).await?;
        let CollectionTarget {
            ws,
            collection,
            implied,
        } = CollectionTarget::from_params(&params)?;
        Ok(ItemTarget {
            ws,
            id: norm(param(&params, "item")?),
            collection,
            implied,
        })
    }
}

impl ItemTarget {
    /// An item a request body names (by workspace and id, normalised), as under `/items`:
    /// any type.
    pub(crate) fn named(ws: &str, id: &str) -> ItemTarget {
        ItemTarget {
            ws: norm(ws),
            id: norm(id),
            collection: "items".to_string(),
            implied: None,
        }
    }

    /// Refuses (404 `EntityNotFound`, as for a route the service does not have) a route the
    /// service serves only under the per-type collection of `item_type`
    /// (`/lakehouses/{id}/tables`, not `/items/{id}/tables` nor `/notebooks/{id}/tables`).
    pub(crate) fn require_collection_of(&self, item_type: &str) -> Result<(), ApiError> {
        if self
            .implied
            .is_some_and(|implied| implied.name == item_type)
        {
            Ok(())
        } else {
            Err(ApiError::entity_not_found())
        }
    }

    /// Checks that the caller holds at least `role` in the workspace, then loads the item.
    pub(crate) fn open(
        &self,
        state: &Shared,
        caller: &Caller,
        role: Role,
    ) -> Result<Item, ApiError> {
        caller.workspace(state, &self.ws, role)?;
        self.load(state)
    }

    /// The item, if it lives in the workspace and is of the implied type (else 404
    /// `ItemNotFound`), without an access check.
    pub(crate) fn load(&self, state: &Shared) -> Result<Item, ApiError> {
        state.db.read(|conn| self.get(conn))
    }

    /// [`ItemTarget::load`] on a connection, for reads and writes in a transaction.
    pub(crate) fn get(&self, conn: &Connection) -> Result<Item, ApiError> {
        items::get(conn, &self.ws, &self.id)?
            .filter(|item| self.implied.is_none_or(|t| t.name == item.item_type))
            .ok_or_else(|| ApiError::item_not_found(&self.id))
    }
}
