//! The authority's signing key: an RSA key made once per store and kept in it (so tokens
//! outlive a restart), that signs every token the server issues with RS256, as Entra does,
//! and whose public half is published as a JWK (`routes/discovery.rs`), so that anyone can
//! check a token without a secret. Nothing signed otherwise (HS256 with any secret, `none`)
//! is accepted.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use rsa::pkcs1::{DecodeRsaPrivateKey, EncodeRsaPrivateKey};
use rsa::traits::PublicKeyParts;
use serde::Serialize;
use serde_json::{Value, json};
use sha2::Digest;

/// The size of a new key: Entra's signing keys are RSA 2048 too.
const KEY_BITS: usize = 2048;

/// A new private key (PKCS#1 DER) for a store. A prime search: about 0.15 s in an optimised
/// build, seconds in an unoptimised one (the workspace optimises the big-number crate in dev
/// builds for this), so it is done once per store.
pub(crate) fn generate() -> Result<Vec<u8>, rsa::Error> {
    let key = rsa::RsaPrivateKey::new(&mut rsa::rand_core::OsRng, KEY_BITS)?;
    Ok(key.to_pkcs1_der()?.as_bytes().to_vec())
}

/// Signing and verification keys, from the stored private key.
pub(crate) struct Keys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    /// The key id tokens name in their header and the JWKS lists.
    kid: String,
    /// The published key, `{kty, use, kid, alg, n, e}`.
    jwk: Value,
    validation: Validation,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keys")
            .field("kid", &self.kid)
            .finish_non_exhaustive()
    }
}

/// What every token check asks besides the signature: the audience, an expiry (exact, so
/// that a client's refresh-on-`TokenExpired` path can be tested) and, when the token has
/// one, its not-before time.
fn validation(audience: &str) -> Validation {
    // RS256 only: a token naming another algorithm is refused before its signature is looked
    // at, so the public key can never serve as an HMAC secret.
    let mut validation = Validation::new(Algorithm::RS256);
    validation.set_audience(&[audience]);
    validation.set_required_spec_claims(&["exp", "aud"]);
    validation.validate_nbf = true;
    validation.leeway = 0;
    validation
}

impl Keys {
    /// The keys of a stored private key (PKCS#1 DER).
    pub(crate) fn from_private_der(der: &[u8]) -> Result<Keys, rsa::pkcs1::Error> {
        let private = rsa::RsaPrivateKey::from_pkcs1_der(der)?;
        let (n, e) = (private.n().to_bytes_be(), private.e().to_bytes_be());
        let (n_text, e_text) = (URL_SAFE_NO_PAD.encode(&n), URL_SAFE_NO_PAD.encode(&e));
        let kid = thumbprint(&n_text, &e_text);
        Ok(Keys {
            encoding: EncodingKey::from_rsa_der(der),
            decoding: DecodingKey::from_rsa_raw_components(&n, &e),
            jwk: json!({
                "kty": "RSA",
                "use": "sig",
                "kid": kid,
                "alg": "RS256",
                "n": n_text,
                "e": e_text,
            }),
            kid,
            validation: validation(super::auth::AUDIENCE),
        })
    }

    /// The key id tokens name in their header.
    pub(crate) fn kid(&self) -> &str {
        &self.kid
    }

    /// The public key as a JWK, for the JWKS.
    pub(crate) fn jwk(&self) -> &Value {
        &self.jwk
    }

    /// Signs any claims (access, refresh and federated tokens) with RS256, naming the key.
    pub(crate) fn sign<T: Serialize>(&self, claims: &T) -> String {
        let mut header = Header::new(Algorithm::RS256);
        header.kid = Some(self.kid.clone());
        // The key parsed when these keys were made and the claims are plain structs, so signing
        // cannot fail (and a token that is not signed must never be handed out).
        jsonwebtoken::encode(&header, claims, &self.encoding).expect("RS256 signs the claims")
    }

    /// Checks the signature, expiry, not-before and audience of an access token.
    pub(crate) fn verify<T: serde::de::DeserializeOwned + Clone>(
        &self,
        token: &str,
    ) -> Result<T, jsonwebtoken::errors::Error> {
        jsonwebtoken::decode::<T>(token, &self.decoding, &self.validation).map(|data| data.claims)
    }

    /// Checks the signature, expiry, not-before and `audience` of a token this server signed.
    pub(crate) fn decode<T: serde::de::DeserializeOwned + Clone>(
        &self,
        token: &str,
        audience: &str,
    ) -> Result<T, jsonwebtoken::errors::Error> {
        jsonwebtoken::decode::<T>(token, &self.decoding, &validation(audience))
            .map(|data| data.claims)
    }
}

/// The RFC 7638 thumbprint of an RSA public key: stable for the key, so its `kid` needs no
/// storing and cannot disagree with it.
fn thumbprint(n: &str, e: &str) -> String {
    // The members in lexical order, without white space, as the RFC requires.
    let canonical = format!(r#"{{"e":"{e}","kty":"RSA","n":"{n}"}}"#);
    URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(canonical.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kid_is_the_rfc_7638_thumbprint() {
        // The example of RFC 7638, section 3.1.
        let n = "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw";
        assert_eq!(
            thumbprint(n, "AQAB"),
            "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
        );
    }

    #[test]
    fn tokens_verify_with_their_own_key_only() {
        #[derive(Debug, Clone, Serialize, serde::Deserialize)]
        struct Claims {
            aud: String,
            exp: i64,
        }
        let keys = Keys::from_private_der(&generate().unwrap()).unwrap();
        let other = Keys::from_private_der(&generate().unwrap()).unwrap();
        assert_ne!(keys.kid(), other.kid());
        let claims = Claims {
            aud: "urn:test".into(),
            exp: jsonwebtoken::get_current_timestamp() as i64 + 60,
        };
        let token = keys.sign(&claims);
        let header = jsonwebtoken::decode_header(&token).unwrap();
        assert_eq!(header.alg, Algorithm::RS256);
        assert_eq!(header.kid.as_deref(), Some(keys.kid()));
        assert!(keys.decode::<Claims>(&token, "urn:test").is_ok());
        assert!(keys.decode::<Claims>(&token, "urn:other").is_err());
        assert!(other.decode::<Claims>(&token, "urn:test").is_err());
    }
}
