//! The authority's keys: tokens are RS256 with a `kid` the published JWKS holds, the OIDC
//! discovery document has what MSAL reads, and nothing else passes for a token (an HMAC
//! signature with the store's old key or with the public key, `alg: none`).

use super::{inline, start, start_in};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// GET an absolute URL without a token: (status, JSON body).
async fn fetch(http: &reqwest::Client, url: &str) -> (StatusCode, Value) {
    let response = http.get(url).send().await.expect("sent");
    let status = response.status();
    let text = response.text().await.expect("body");
    let body = serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"));
    (status, body)
}

/// A token's claims, as the server signed them.
fn claims_of(token: &str) -> Value {
    let payload = token.split('.').nth(1).expect("a JWT");
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).expect("base64")).expect("JSON")
}

#[tokio::test]
async fn the_discovery_document_has_what_msal_reads() {
    let env = start(inline()).await;
    let origin = env.origin();
    let tenant = claims_of(&env.token)["tid"]
        .as_str()
        .expect("tid")
        .to_string();
    let url = format!("{origin}/{tenant}/v2.0/.well-known/openid-configuration");
    let (status, doc) = fetch(&env.http, &url).await;
    assert_eq!(status, StatusCode::OK, "{doc}");
    let base = format!("{origin}/{tenant}");
    assert_eq!(doc["issuer"], format!("{base}/v2.0"));
    assert_eq!(
        doc["authorization_endpoint"],
        format!("{base}/oauth2/v2.0/authorize")
    );
    assert_eq!(doc["token_endpoint"], format!("{base}/oauth2/v2.0/token"));
    assert_eq!(
        doc["device_authorization_endpoint"],
        format!("{base}/oauth2/v2.0/devicecode")
    );
    assert_eq!(doc["jwks_uri"], format!("{base}/discovery/v2.0/keys"));
    assert_eq!(
        doc["id_token_signing_alg_values_supported"],
        json!(["RS256"])
    );
    assert_eq!(doc["subject_types_supported"], json!(["pairwise"]));
    for list in [
        "response_types_supported",
        "response_modes_supported",
        "scopes_supported",
        "token_endpoint_auth_methods_supported",
        "claims_supported",
    ] {
        assert!(
            doc[list].as_array().is_some_and(|l| !l.is_empty()),
            "{list}: {doc}"
        );
    }
    for method in ["client_secret_post", "private_key_jwt"] {
        assert!(
            doc["token_endpoint_auth_methods_supported"]
                .as_array()
                .unwrap()
                .contains(&json!(method)),
            "{method}: {doc}"
        );
    }
    assert!(
        doc["scopes_supported"]
            .as_array()
            .unwrap()
            .contains(&json!("offline_access"))
    );

    // `common`, as Entra answers it: the endpoints keep `common`, the issuer names no tenant.
    let (status, common) = fetch(
        &env.http,
        &format!("{origin}/common/v2.0/.well-known/openid-configuration"),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{common}");
    assert_eq!(
        common["token_endpoint"],
        format!("{origin}/common/oauth2/v2.0/token")
    );
    assert_eq!(common["issuer"], format!("{origin}/{{tenantid}}/v2.0"));
    // An unknown tenant is refused as the token endpoint refuses it.
    let unknown = uuid::Uuid::new_v4();
    let (status, refused) = fetch(
        &env.http,
        &format!("{origin}/{unknown}/v2.0/.well-known/openid-configuration"),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
    assert_eq!(refused["error"], "invalid_request");
}

#[tokio::test]
async fn tokens_are_rs256_and_verify_against_the_published_keys() {
    let env = start(inline()).await;
    let origin = env.origin();
    let (status, keys) = fetch(&env.http, &format!("{origin}/discovery/v2.0/keys")).await;
    assert_eq!(status, StatusCode::OK, "{keys}");
    let (_, common_keys) = fetch(&env.http, &format!("{origin}/common/discovery/v2.0/keys")).await;
    assert_eq!(keys, common_keys);
    let set: JwkSet = serde_json::from_value(keys.clone()).expect("a JWK set");
    let key = &keys["keys"][0];
    assert_eq!(key["kty"], "RSA", "{keys}");
    assert_eq!(key["use"], "sig", "{keys}");
    assert!(key.get("d").is_none(), "no private part: {keys}");

    let (_, app_token) = env.principal_token("keys-app", None, None).await;
    for token in [env.token.as_str(), app_token.as_str()] {
        let header = jsonwebtoken::decode_header(token).expect("a JWT header");
        assert_eq!(header.alg, Algorithm::RS256);
        let kid = header.kid.expect("a kid");
        let jwk = set.find(&kid).expect("the kid is published");
        let mut validation = Validation::new(Algorithm::RS256);
        validation.set_audience(&["https://api.fabric.microsoft.com"]);
        let decoded = jsonwebtoken::decode::<Value>(
            token,
            &DecodingKey::from_jwk(jwk).expect("an RSA key"),
            &validation,
        )
        .expect("the signature verifies with the published key");
        assert_eq!(decoded.claims["aud"], "https://api.fabric.microsoft.com");
    }

    // The key is kept: a restart on the same store publishes the same key, and old tokens
    // still work.
    let token = env.token.clone();
    let dir = env.dir;
    env.server.shutdown().await;
    let again = start_in(dir.path(), inline()).await;
    let origin = again.base_url().trim_end_matches("/v1").to_string();
    let (_, after) = fetch(&env.http, &format!("{origin}/discovery/v2.0/keys")).await;
    assert_eq!(after, keys);
    let reply = env
        .http
        .get(format!("{origin}/v1/workspaces"))
        .bearer_auth(&token)
        .send()
        .await
        .expect("sent");
    assert_eq!(reply.status(), StatusCode::OK);
}

/// A token for the admin with these claims, signed by `key` with `alg`.
fn forged(claims: &Value, alg: Algorithm, key: &EncodingKey) -> String {
    jsonwebtoken::encode(&Header::new(alg), claims, key).expect("signed")
}

#[tokio::test]
async fn only_tokens_signed_with_the_private_key_are_accepted() {
    let env = start(inline()).await;
    let claims = claims_of(&env.token);
    let jwks = reqwest::get(format!("{}/discovery/v2.0/keys", env.origin()))
        .await
        .expect("sent")
        .json::<Value>()
        .await
        .expect("JSON");
    let n = URL_SAFE_NO_PAD
        .decode(jwks["keys"][0]["n"].as_str().expect("n"))
        .expect("base64");
    let e = URL_SAFE_NO_PAD
        .decode(jwks["keys"][0]["e"].as_str().expect("e"))
        .expect("base64");
    let public = rsa::RsaPublicKey::new(
        rsa::BigUint::from_bytes_be(&n),
        rsa::BigUint::from_bytes_be(&e),
    )
    .expect("an RSA public key");
    // The classic confusion: the public key, in any of its usual encodings, as an HMAC secret.
    let mut secrets: Vec<Vec<u8>> = vec![n.clone()];
    {
        use rsa::pkcs1::{EncodeRsaPublicKey, LineEnding};
        use rsa::pkcs8::EncodePublicKey;
        secrets.push(public.to_pkcs1_der().expect("der").as_bytes().to_vec());
        secrets.push(public.to_public_key_der().expect("der").as_bytes().to_vec());
        secrets.push(
            public
                .to_pkcs1_pem(LineEnding::LF)
                .expect("pem")
                .into_bytes(),
        );
        secrets.push(
            public
                .to_public_key_pem(LineEnding::LF)
                .expect("pem")
                .into_bytes(),
        );
    }
    let mut refused = Vec::new();
    for secret in &secrets {
        refused.push(forged(
            &claims,
            Algorithm::HS256,
            &EncodingKey::from_secret(secret),
        ));
    }
    // Unsigned.
    let body = URL_SAFE_NO_PAD.encode(claims.to_string());
    for header in [r#"{"alg":"none","typ":"JWT"}"#, r#"{"alg":"None"}"#] {
        let head = URL_SAFE_NO_PAD.encode(header);
        refused.push(format!("{head}.{body}."));
        refused.push(format!("{head}.{body}"));
    }
    for token in &refused {
        let reply = env
            .send_as(Some(token), Method::GET, "/workspaces", None)
            .await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{token}");
        assert_eq!(reply.error_code(), "Unauthorized");
    }
}

#[tokio::test]
async fn a_store_from_before_rs256_gets_a_key_and_forgets_its_hmac_secret() {
    let dir = super::store_dir();
    let server = start_in(dir.path(), inline()).await;
    let admin = claims_of(&server.admin_token());
    server.shutdown().await;
    // What an older version kept: a 32-byte HMAC secret under `signing_key`.
    let store = dir.path().join("local-fabric.sqlite3");
    let secret = [7u8; 32];
    {
        let conn = rusqlite::Connection::open(&store).unwrap();
        conn.execute(
            "INSERT INTO meta (key, value) VALUES ('signing_key', ?1)
             ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [&secret[..]],
        )
        .unwrap();
    }
    let old = forged(&admin, Algorithm::HS256, &EncodingKey::from_secret(&secret));
    let server = start_in(dir.path(), inline()).await;
    let http = reqwest::Client::new();
    let reply = http
        .get(format!("{}/workspaces", server.base_url()))
        .bearer_auth(&old)
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), StatusCode::UNAUTHORIZED);
    let fresh = http
        .get(format!("{}/workspaces", server.base_url()))
        .bearer_auth(server.admin_token())
        .send()
        .await
        .unwrap();
    assert_eq!(fresh.status(), StatusCode::OK);
    let conn = rusqlite::Connection::open(&store).unwrap();
    let kept: i64 = conn
        .query_row(
            "SELECT count(*) FROM meta WHERE key = 'signing_key'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(kept, 0, "the HMAC secret is gone from the store");
}
