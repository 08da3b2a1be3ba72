//! Bearer tokens, the token endpoint, roles.

use super::{inline, start};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

#[tokio::test]
async fn requests_without_or_with_a_bad_token_get_401() {
    let env = start(inline()).await;
    let missing = env.send_as(None, Method::GET, "/workspaces", None).await;
    assert_eq!(missing.status, StatusCode::UNAUTHORIZED);
    assert_eq!(missing.error_code(), "Unauthorized");
    assert!(
        missing
            .header("www-authenticate")
            .unwrap()
            .starts_with("Bearer")
    );
    let garbage = env
        .send_as(Some("not-a-jwt"), Method::GET, "/workspaces", None)
        .await;
    assert_eq!(garbage.status, StatusCode::UNAUTHORIZED);
    assert_eq!(garbage.error_code(), "Unauthorized");
    // A token signed by another server's key is not accepted here.
    let other = start(inline()).await;
    let foreign = env
        .send_as(Some(&other.token), Method::GET, "/workspaces", None)
        .await;
    assert_eq!(foreign.status, StatusCode::UNAUTHORIZED);
    assert_eq!(foreign.error_code(), "Unauthorized");
}

#[tokio::test]
async fn an_expired_token_gets_token_expired() {
    let env = start(inline()).await;
    let issued = env
        .post(
            &format!("{}/_local/tokens", env.origin()),
            json!({"expiresInSeconds": -60}),
        )
        .await;
    assert_eq!(issued.status, StatusCode::OK);
    let expired = issued.json()["access_token"].as_str().unwrap().to_string();
    let reply = env
        .send_as(Some(&expired), Method::GET, "/workspaces", None)
        .await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    assert_eq!(reply.error_code(), "TokenExpired");
    assert!(reply.header("www-authenticate").is_some());
}

#[tokio::test]
async fn a_viewer_reads_but_cannot_change_anything() {
    let env = start(inline()).await;
    let ws = env.demo().await;
    let (_, token) = env
        .principal_token("reader", Some("Demo"), Some("Viewer"))
        .await;
    let list = env
        .send_as(
            Some(&token),
            Method::GET,
            &format!("/workspaces/{ws}/items"),
            None,
        )
        .await;
    assert_eq!(list.status, StatusCode::OK);
    let first = list.json()["value"][0]["id"].as_str().unwrap().to_string();
    let create = env
        .send_as(
            Some(&token),
            Method::POST,
            &format!("/workspaces/{ws}/items"),
            Some(json!({"displayName": "nope", "type": "Notebook"})),
        )
        .await;
    assert_eq!(create.status, StatusCode::FORBIDDEN);
    assert_eq!(create.error_code(), "InsufficientWorkspaceRole");
    let rename = env
        .send_as(
            Some(&token),
            Method::PATCH,
            &format!("/workspaces/{ws}/items/{first}"),
            Some(json!({"displayName": "renamed"})),
        )
        .await;
    assert_eq!(rename.status, StatusCode::FORBIDDEN);
    let delete = env
        .send_as(
            Some(&token),
            Method::DELETE,
            &format!("/workspaces/{ws}/items/{first}"),
            None,
        )
        .await;
    assert_eq!(delete.status, StatusCode::FORBIDDEN);
    let after = env.get(&format!("/workspaces/{ws}/items/{first}")).await;
    assert_eq!(after.status, StatusCode::OK, "nothing was deleted");
}

#[tokio::test]
async fn only_an_admin_hard_deletes() {
    let env = start(inline()).await;
    let ws = env.demo().await;
    let (_, token) = env
        .principal_token("builder", Some(&ws), Some("Contributor"))
        .await;
    let items = format!("/workspaces/{ws}/items");
    let mut ids = Vec::new();
    for name in ["a", "b"] {
        let reply = env
            .send_as(
                Some(&token),
                Method::POST,
                &items,
                Some(json!({"displayName": name, "type": "Notebook"})),
            )
            .await;
        assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.text);
        ids.push(reply.json()["id"].as_str().unwrap().to_string());
    }
    let hard = env
        .send_as(
            Some(&token),
            Method::DELETE,
            &format!("{items}/{}?hardDelete=true", ids[0]),
            None,
        )
        .await;
    assert_eq!(hard.status, StatusCode::FORBIDDEN);
    assert_eq!(hard.error_code(), "InsufficientWorkspaceRole");
    let soft = env
        .send_as(
            Some(&token),
            Method::DELETE,
            &format!("{items}/{}", ids[1]),
            None,
        )
        .await;
    assert_eq!(soft.status, StatusCode::OK);
    let admin_hard = env
        .delete(&format!("{items}/{}?hardDelete=true", ids[0]))
        .await;
    assert_eq!(admin_hard.status, StatusCode::OK);
}

#[tokio::test]
async fn callers_without_a_role_and_removed_principals_are_refused() {
    let env = start(inline()).await;
    let ws = env.demo().await;
    let (creds, token) = env.principal_token("outsider", None, None).await;
    let reply = env
        .send_as(
            Some(&token),
            Method::GET,
            &format!("/workspaces/{ws}/items"),
            None,
        )
        .await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    assert_eq!(reply.error_code(), "InsufficientPrivileges");
    let mine = env
        .send_as(Some(&token), Method::GET, "/workspaces", None)
        .await;
    assert_eq!(mine.json()["value"], json!([]));
    fabsh_local::admin::remove_principal(env.dir.path(), creds["objectId"].as_str().unwrap())
        .unwrap();
    let gone = env
        .send_as(Some(&token), Method::GET, "/workspaces", None)
        .await;
    assert_eq!(gone.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn the_token_endpoint_speaks_entra_errors() {
    let env = start(inline()).await;
    let creds = fabsh_local::admin::add_principal(env.dir.path(), "svc", None, None).unwrap();
    let tenant = creds["tenantId"].as_str().unwrap();
    let url = format!("{}/{tenant}/oauth2/v2.0/token", env.origin());
    let post = |form: Vec<(&'static str, String)>| {
        let request = env.http.post(&url).form(&form);
        async move {
            let response = request.send().await.unwrap();
            (response.status(), response.json::<Value>().await.unwrap())
        }
    };
    let client_id = creds["clientId"].as_str().unwrap().to_string();
    let scope = "https://api.fabric.microsoft.com/.default".to_string();
    let (status, body) = post(vec![
        ("grant_type", "client_credentials".into()),
        ("client_id", client_id.clone()),
        ("client_secret", "wrong".into()),
        ("scope", scope.clone()),
    ])
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body["error"], "invalid_client");
    assert!(
        body["error_description"]
            .as_str()
            .unwrap()
            .starts_with("AADSTS7000215: Invalid client secret provided.")
    );
    let (status, body) = post(vec![("grant_type", "password".into()), ("scope", scope)]).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["error"], "unsupported_grant_type");
}

#[tokio::test]
async fn role_assignments_grant_and_revoke_access() {
    let env = start(inline()).await;
    let ws = env.workspace("Shared").await;
    let (creds, token) = env.principal_token("teammate", None, None).await;
    let object_id = creds["objectId"].as_str().unwrap();
    let path = format!("/workspaces/{ws}/roleAssignments");
    let added = env
        .post(
            &path,
            json!({"principal": {"id": object_id, "type": "ServicePrincipal"}, "role": "Member"}),
        )
        .await;
    assert_eq!(added.status, StatusCode::CREATED, "{}", added.text);
    assert_eq!(
        added.json()["principal"]["servicePrincipalDetails"]["aadAppId"],
        creds["clientId"]
    );
    let again = env
        .post(
            &path,
            json!({"principal": {"id": object_id, "type": "ServicePrincipal"}, "role": "Viewer"}),
        )
        .await;
    assert_eq!(again.status, StatusCode::CONFLICT);
    let listed = env.get(&path).await.json();
    assert_eq!(
        listed["value"].as_array().unwrap().len(),
        2,
        "admin and teammate"
    );
    let as_member = env
        .send_as(
            Some(&token),
            Method::GET,
            &format!("/workspaces/{ws}"),
            None,
        )
        .await;
    assert_eq!(as_member.status, StatusCode::OK);
    // A member may not manage roles.
    let by_member = env
        .send_as(
            Some(&token),
            Method::DELETE,
            &format!("{path}/{object_id}"),
            None,
        )
        .await;
    assert_eq!(by_member.status, StatusCode::FORBIDDEN);
    assert_eq!(
        env.delete(&format!("{path}/{object_id}")).await.status,
        StatusCode::OK
    );
    let revoked = env
        .send_as(
            Some(&token),
            Method::GET,
            &format!("/workspaces/{ws}"),
            None,
        )
        .await;
    assert_eq!(revoked.status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn local_admin_routes_need_the_admin() {
    let env = start(inline()).await;
    let principals = format!("{}/_local/principals", env.origin());
    let created = env
        .post(
            &principals,
            json!({"name": "ci", "workspace": "Demo", "role": "Viewer"}),
        )
        .await;
    assert_eq!(created.status, StatusCode::CREATED);
    for key in [
        "tenantId",
        "clientId",
        "clientSecret",
        "objectId",
        "displayName",
    ] {
        assert!(created.json()[key].is_string(), "{key}");
    }
    let listed = env.get(&principals).await.json();
    let ci = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["displayName"] == "ci")
        .unwrap();
    assert_eq!(ci["roles"][0]["role"], "Viewer");
    assert!(ci.get("clientSecret").is_none());
    let (_, token) = env.principal_token("other", None, None).await;
    let refused = env
        .send_as(Some(&token), Method::GET, &principals, None)
        .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert_eq!(
        env.delete(&format!("{principals}/ci")).await.status,
        StatusCode::OK
    );
}
