//! Principals (users, service principals, groups) as the service names them: a share's
//! creator, an item's default identity, a workspace role's holder.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `Principal`: who made something, holds a role or acts as an identity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Principal {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// `User`, `ServicePrincipal`, `Group`, ... (open).
    #[serde(rename = "type")]
    pub kind: String,
    /// A user's details.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_details: Option<UserDetails>,
    /// A service principal's details.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_principal_details: Option<ServicePrincipalDetails>,
    /// `groupDetails`, ... as the service adds them.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Principal {
    /// A principal known by its id and type only (a share's creator).
    pub fn of(id: &str, kind: &str) -> Principal {
        Principal {
            id: id.to_string(),
            display_name: None,
            kind: kind.to_string(),
            user_details: None,
            service_principal_details: None,
            extra: Map::new(),
        }
    }
}

/// `PrincipalUserDetails`. The name is sent as `null` when the service has none to give.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserDetails {
    #[serde(default)]
    pub user_principal_name: Option<String>,
}

/// `PrincipalServicePrincipalDetails`: the application behind it (`null` when unknown).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServicePrincipalDetails {
    #[serde(default)]
    pub aad_app_id: Option<String>,
}

/// `WorkspaceRoleAssignment`: a principal's role in a workspace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RoleAssignment {
    pub id: String,
    pub principal: Principal,
    /// `Admin`, `Member`, `Contributor` or `Viewer`.
    pub role: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn principals_keep_their_details_and_nulls() {
        let text = r#"{"id":"p1","principal":{"id":"p1","displayName":"app","type":"ServicePrincipal","servicePrincipalDetails":{"aadAppId":null}},"role":"Admin"}"#;
        let assignment: RoleAssignment = serde_json::from_str(text).unwrap();
        let details = assignment
            .principal
            .service_principal_details
            .as_ref()
            .unwrap();
        assert_eq!(details.aad_app_id, None);
        assert_eq!(serde_json::to_string(&assignment).unwrap(), text);
    }
}
