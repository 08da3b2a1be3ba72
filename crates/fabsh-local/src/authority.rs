//! The token service's own tokens and the client assertions it accepts: refresh tokens,
//! federated (workload identity) tokens from the local OIDC issuer, and certificate-signed
//! assertions checked against the certificates registered on an app. Refresh and federated
//! tokens are signed with the same key as access tokens; their audiences keep each kind from
//! passing for another.

use super::auth::Keys;
use super::state::Shared;
use super::store::principals::Principal;
use super::store::sign_in::{self, CredentialKind};
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::{Deserialize, Serialize};
use sha1::Digest;

/// The `aud` of refresh tokens, so one can never pass for an access token.
const REFRESH_AUDIENCE: &str = "urn:fabsh:local:refresh";
/// The audience Entra expects on federated credentials.
pub(crate) const FEDERATED_AUDIENCE: &str = "api://AzureADTokenExchange";
/// The issuer of local federated tokens; fixed, so tokens survive a restart on another port.
pub(crate) const LOCAL_ISSUER: &str = "urn:fabsh:local:oidc";
/// The `client_assertion_type` of certificate and federated assertions.
pub(crate) const JWT_BEARER: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// What a refresh token carries.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct RefreshClaims {
    aud: String,
    /// The signed-in principal's object id.
    pub sub: String,
    /// The tenant signed in to.
    pub tid: String,
    /// The public client the sign-in was for.
    pub cid: String,
    /// The granted scopes.
    pub scp: String,
    iat: i64,
    exp: i64,
    /// Makes every refresh token distinct, as rotation expects.
    jti: String,
}

/// Why a refresh token was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RefreshRefusal {
    /// Past its lifetime.
    Expired,
    /// Not one of ours, or tampered with.
    Invalid,
}

fn now_secs() -> i64 {
    super::clock::now_nanos() / 1_000_000_000
}

/// A refresh token for a sign-in, valid `ttl_secs` (negative: already expired).
pub(crate) fn issue_refresh(
    keys: &Keys,
    principal: &Principal,
    client_id: &str,
    scope: &str,
    ttl_secs: i64,
) -> String {
    let now = now_secs();
    keys.sign(&RefreshClaims {
        aud: REFRESH_AUDIENCE.into(),
        sub: principal.id.clone(),
        tid: principal.tenant_id.clone(),
        cid: client_id.into(),
        scp: scope.into(),
        iat: now.min(now + ttl_secs),
        exp: now + ttl_secs,
        jti: uuid::Uuid::new_v4().to_string(),
    })
}

/// Checks a refresh token.
pub(crate) fn verify_refresh(keys: &Keys, token: &str) -> Result<RefreshClaims, RefreshRefusal> {
    keys.decode::<RefreshClaims>(token, REFRESH_AUDIENCE)
        .map_err(|err| match err.kind() {
            ErrorKind::ExpiredSignature => RefreshRefusal::Expired,
            _ => RefreshRefusal::Invalid,
        })
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct FederatedClaims {
    iss: String,
    sub: String,
    aud: String,
    iat: i64,
    exp: i64,
}

/// A token from the local OIDC issuer for `subject`, the kind a CI system hands a job.
pub(crate) fn issue_federated(keys: &Keys, subject: &str, ttl_secs: i64) -> String {
    let now = now_secs();
    keys.sign(&FederatedClaims {
        iss: LOCAL_ISSUER.into(),
        sub: subject.into(),
        aud: FEDERATED_AUDIENCE.into(),
        iat: now,
        exp: now + ttl_secs,
    })
}

/// Why an assertion was refused: the AADSTS code and its description.
pub(crate) type Refusal = (u32, String);

/// Entra's refusal when its own store fails: a sign-in whose credentials cannot be read is
/// refused as that, not as one without credentials.
fn store_failed() -> Refusal {
    (
        50000,
        "There was an error issuing a token or an issue with our sign-in service.".to_string(),
    )
}

/// The app a client assertion proves, or why it proves nothing. An assertion naming the
/// server's own key is a federated token of the local issuer; other RSA ones are signed with
/// a registered certificate.
pub(crate) fn verify_assertion(
    state: &Shared,
    app: &Principal,
    assertion: &str,
) -> Result<(), Refusal> {
    let header = jsonwebtoken::decode_header(assertion)
        .map_err(|_| (50027, "JWT token is invalid or malformed.".to_string()))?;
    let ours = header.kid.as_deref() == Some(state.keys.kid());
    match header.alg {
        Algorithm::RS256 if ours => verify_federated(state, app, assertion),
        Algorithm::RS256 | Algorithm::PS256 => verify_certificate(state, app, &header, assertion),
        other => Err((
            5002738,
            format!("Invalid JWT token. '{other:?}' is not a supported signature algorithm."),
        )),
    }
}

fn verify_federated(state: &Shared, app: &Principal, assertion: &str) -> Result<(), Refusal> {
    let claims: FederatedClaims =
        state
            .keys
            .decode(assertion, FEDERATED_AUDIENCE)
            .map_err(|err| match err.kind() {
                ErrorKind::ExpiredSignature | ErrorKind::ImmatureSignature => (
                    700024,
                    "Client assertion is not within its valid time range.".to_string(),
                ),
                _ => (
                    700211,
                    "No matching federated identity record found for presented assertion issuer."
                        .to_string(),
                ),
            })?;
    let subjects = state
        .db
        .read(|c| sign_in::credentials(c, &app.id, CredentialKind::FederatedSubject))
        .map_err(|_| store_failed())?;
    if claims.iss == LOCAL_ISSUER && subjects.iter().any(|s| s == claims.sub.as_bytes()) {
        return Ok(());
    }
    Err((
        70021,
        format!(
            "No matching federated identity record found for presented assertion. Assertion Issuer: '{}'. Assertion Subject: '{}'.",
            claims.iss, claims.sub
        ),
    ))
}

#[derive(Debug, Clone, Deserialize)]
struct AssertionClaims {
    aud: String,
    iss: String,
    sub: String,
}

fn verify_certificate(
    state: &Shared,
    app: &Principal,
    header: &jsonwebtoken::Header,
    assertion: &str,
) -> Result<(), Refusal> {
    let certificates = state
        .db
        .read(|c| sign_in::credentials(c, &app.id, CredentialKind::Certificate))
        .map_err(|_| store_failed())?;
    // An app is found by its client id: one without is no app to sign in as.
    let Some(client_id) = app.client_id.as_deref() else {
        return Err((
            700016,
            format!(
                "Application with identifier '{}' was not found in the directory.",
                app.id
            ),
        ));
    };
    let certificate = certificates
        .iter()
        .find(|der| {
            header.x5t_s256.as_deref() == Some(thumbprint_sha256(der).as_str())
                || header.x5t.as_deref() == Some(thumbprint_sha1(der).as_str())
        })
        .ok_or_else(|| {
            (
                700027,
                format!(
                    "The certificate with identifier used to sign the client assertion is not registered on application. [AppId: {client_id}]"
                ),
            )
        })?;
    let key = decoding_key(certificate).ok_or_else(|| {
        (
            700027,
            "The registered certificate is not an RSA certificate.".to_string(),
        )
    })?;
    let mut validation = Validation::new(header.alg);
    validation.set_required_spec_claims(&["exp", "aud", "iss", "sub"]);
    validation.validate_nbf = true;
    // The audience is the token endpoint as the client addressed it; checked below.
    validation.validate_aud = false;
    let claims = jsonwebtoken::decode::<AssertionClaims>(assertion, &key, &validation)
        .map(|data| data.claims)
        .map_err(|err| match err.kind() {
            ErrorKind::ExpiredSignature | ErrorKind::ImmatureSignature => (
                700024,
                "Client assertion is not within its valid time range.".to_string(),
            ),
            _ => (
                700027,
                "Client assertion contains an invalid signature.".to_string(),
            ),
        })?;
    let tenant_endpoint = format!("/{}/oauth2/v2.0/token", app.tenant_id);
    if !claims.aud.ends_with(&tenant_endpoint) {
        return Err((
            700212,
            format!(
                "No matching federated identity record found for presented assertion audience '{}'.",
                claims.aud
            ),
        ));
    }
    if claims.iss != client_id || claims.sub != client_id {
        return Err((
            700023,
            "Client assertion audience claim does not match Realm issuer.".to_string(),
        ));
    }
    Ok(())
}

/// The DER certificates in a PEM text (other blocks, such as a private key, are skipped).
pub(crate) fn certificates_in_pem(pem: &str) -> Vec<Vec<u8>> {
    x509_parser::pem::Pem::iter_from_buffer(pem.as_bytes())
        .filter_map(Result::ok)
        .filter(|block| block.label == "CERTIFICATE")
        .map(|block| block.contents)
        .collect()
}

/// True when `der` is an X.509 certificate with an RSA key.
pub(crate) fn is_rsa_certificate(der: &[u8]) -> bool {
    decoding_key(der).is_some()
}

fn decoding_key(der: &[u8]) -> Option<DecodingKey> {
    use x509_parser::public_key::PublicKey;
    let (_, certificate) = x509_parser::parse_x509_certificate(der).ok()?;
    match certificate.public_key().parsed().ok()? {
        PublicKey::RSA(rsa) => Some(DecodingKey::from_rsa_raw_components(
            rsa.modulus,
            rsa.exponent,
        )),
        _ => None,
    }
}

/// `x5t#S256`: base64url SHA-256 of the certificate.
fn thumbprint_sha256(der: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(der))
}

/// `x5t`: base64url SHA-1 of the certificate (still what most clients send).
fn thumbprint_sha1(der: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha1::Sha1::digest(der))
}
