//! External data shares (swagger `ExternalDataShare*`): a share of an item's OneLake paths with
//! another tenant, and on the recipient's side its invitation and the shortcuts accepting it
//! makes.

use super::Principal;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `ExternalDataShare`: a share as created, listed and read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExternalDataShare {
    pub id: String,
    /// `Files/...` and `Tables/...` paths of the item.
    pub paths: Vec<String>,
    pub creator_principal: Principal,
    pub recipient: ShareRecipient,
    /// `Pending`, `Active`, `Revoked` or `InvitationExpired` (open).
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expiration_time_utc: Option<String>,
    pub workspace_id: String,
    pub item_id: String,
    /// Where the recipient accepts it; absent once it cannot be accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invitation_url: Option<String>,
    /// The tenant that accepted it, once one has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted_by_tenant_id: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ExternalDataShareRecipient`, discriminated by `type`: a `User` by `userPrincipalName`
/// (tenant optional) or a `ServicePrincipal` by `principalId` and `tenantId`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShareRecipient {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_principal_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub principal_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant_id: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ShareRecipient {
    /// A user, by their principal name.
    pub fn user(user_principal_name: &str, tenant_id: Option<&str>) -> ShareRecipient {
        ShareRecipient {
            kind: "User".to_string(),
            user_principal_name: Some(user_principal_name.to_string()),
            principal_id: None,
            tenant_id: tenant_id.map(str::to_string),
            extra: Map::new(),
        }
    }

    /// A service principal, by its object id in its own tenant.
    pub fn service_principal(principal_id: &str, tenant_id: &str) -> ShareRecipient {
        ShareRecipient {
            kind: "ServicePrincipal".to_string(),
            user_principal_name: None,
            principal_id: Some(principal_id.to_string()),
            tenant_id: Some(tenant_id.to_string()),
            extra: Map::new(),
        }
    }
}

/// `CreateExternalDataShareRequest`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateExternalDataShareRequest {
    pub paths: Vec<String>,
    pub recipient: ShareRecipient,
}

/// `ExternalDataShareInvitationDetails`: what an invitation offers, as its recipient reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShareInvitation {
    pub provider_tenant_details: ProviderTenantDetails,
    pub paths_details: Vec<SharedPathDetails>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ProviderTenantDetails`: the tenant that shared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderTenantDetails {
    pub tenant_id: String,
    pub display_name: String,
    pub verified_domain_name: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `ExternalDataSharePathDetails`: one shared path, by its id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SharedPathDetails {
    pub path_id: String,
    /// `Folder` or `Table`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The folder's or table's name; a client names a shortcut for a path without one itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `AcceptExternalDataShareInvitationRequest`: where the shortcuts go.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AcceptInvitationRequest {
    pub provider_tenant_id: String,
    pub workspace_id: String,
    pub item_id: String,
    pub payload: ShortcutCreationPayload,
}

/// The accept request's `payload` of `payloadType` `ShortcutCreation`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShortcutCreationPayload {
    pub payload_type: String,
    /// `Files` or `Tables` (and below): where in the item the shortcuts are made.
    pub path: String,
    pub create_shortcut_requests: Vec<ShortcutRequest>,
}

/// One shortcut to make, for one shared path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShortcutRequest {
    pub path_id: String,
    pub shortcut_name: String,
}

/// A shortcut an accepted invitation made (the answer is a page of them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AcceptedShortcut {
    pub workspace_id: String,
    pub item_id: String,
    pub path: String,
    pub name: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_share_round_trips() {
        // recordings/fabric-cli/ls__test_ls_external_data_shares_success.yaml
        let text = r#"{"id":"ee58d0b0","paths":["Files/images/taxi_zone_map_bronx.jpg"],"creatorPrincipal":{"id":"00000000-0000-0000-0000-000000000001","type":"User"},"recipient":{"type":"User","userPrincipalName":"lisa@fabrikam.com","tenantId":"c51dc03f"},"status":"Pending","expirationTimeUtc":"2026-07-26T04:53:55.93","workspaceId":"7db38657","itemId":"b9422854","invitationUrl":"mock_invitation_url"}"#;
        let share: ExternalDataShare = serde_json::from_str(text).unwrap();
        assert_eq!(
            share.recipient,
            ShareRecipient::user("lisa@fabrikam.com", Some("c51dc03f"))
        );
        assert_eq!(
            share.creator_principal,
            Principal::of("00000000-0000-0000-0000-000000000001", "User")
        );
        assert_eq!(share.accepted_by_tenant_id, None);
        assert_eq!(serde_json::to_string(&share).unwrap(), text);
    }

    #[test]
    fn recipients_serialize_as_the_service_takes_them() {
        let sp = ShareRecipient::service_principal("p1", "t1");
        assert_eq!(
            serde_json::to_string(&sp).unwrap(),
            r#"{"type":"ServicePrincipal","principalId":"p1","tenantId":"t1"}"#
        );
        let user = ShareRecipient::user("a@b.c", None);
        assert_eq!(
            serde_json::to_string(&user).unwrap(),
            r#"{"type":"User","userPrincipalName":"a@b.c"}"#
        );
    }

    #[test]
    fn invitations_and_accepts_round_trip() {
        let text = r#"{"providerTenantDetails":{"tenantId":"t1","displayName":"Contoso","verifiedDomainName":"contoso.onmicrosoft.com"},"pathsDetails":[{"pathId":"p1","type":"Table","name":"sales"}]}"#;
        let invitation: ShareInvitation = serde_json::from_str(text).unwrap();
        assert_eq!(invitation.paths_details[0].kind, "Table");
        assert_eq!(serde_json::to_string(&invitation).unwrap(), text);

        let accept = AcceptInvitationRequest {
            provider_tenant_id: "t1".into(),
            workspace_id: "w1".into(),
            item_id: "i1".into(),
            payload: ShortcutCreationPayload {
                payload_type: "ShortcutCreation".into(),
                path: "Tables".into(),
                create_shortcut_requests: vec![ShortcutRequest {
                    path_id: "p1".into(),
                    shortcut_name: "sales".into(),
                }],
            },
        };
        assert_eq!(
            serde_json::to_string(&accept).unwrap(),
            r#"{"providerTenantId":"t1","workspaceId":"w1","itemId":"i1","payload":{"payloadType":"ShortcutCreation","path":"Tables","createShortcutRequests":[{"pathId":"p1","shortcutName":"sales"}]}}"#
        );
    }
}
