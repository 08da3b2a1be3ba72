//! A service principal's certificate (PEM with the key, or PFX) and the signed client
//! assertion it stands in for a secret with.

use super::Secret;
use crate::error::{Error, Result};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use rsa::pkcs1::{DecodeRsaPrivateKey, EncodeRsaPrivateKey};
use rsa::pkcs8::DecodePrivateKey;
use serde::Serialize;
use sha1::Digest;
use std::path::Path;

/// How long an assertion is valid; Entra accepts up to an hour, a few minutes is plenty.
const ASSERTION_SECONDS: i64 = 600;

/// A loaded certificate: the signing key and the thumbprints that name it.
pub struct Certificate {
    key: EncodingKey,
    x5t: String,
    x5t_s256: String,
}

impl std::fmt::Debug for Certificate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Certificate")
            .field("x5t#S256", &self.x5t_s256)
            .finish_non_exhaustive()
    }
}

#[derive(Serialize)]
struct AssertionClaims<'a> {
    aud: &'a str,
    iss: &'a str,
    sub: &'a str,
    jti: String,
    iat: i64,
    nbf: i64,
    exp: i64,
}

fn unusable(path: &Path, why: impl std::fmt::Display) -> Error {
    Error::usage(format!(
        "cannot use the certificate {}: {why}",
        path.display()
    ))
}

impl Certificate {
    /// Reads a PEM file (certificate and unencrypted private key) or a PFX file.
    pub fn load(path: &Path, password: Option<&Secret>) -> Result<Certificate> {
        let bytes = std::fs::read(path).map_err(|err| unusable(path, err))?;
        let is_pem = bytes.windows(11).any(|w| w == b"-----BEGIN ");
        let (certificate, key) = if is_pem {
            from_pem(path, &bytes)?
        } else {
            from_pfx(path, &bytes, password)?
        };
        let pkcs1 = key
            .to_pkcs1_der()
            .map_err(|err| unusable(path, format!("the key cannot be encoded: {err}")))?;
        Ok(Certificate {
            key: EncodingKey::from_rsa_der(pkcs1.as_bytes()),
            x5t: URL_SAFE_NO_PAD.encode(sha1::Sha1::digest(&certificate)),
            x5t_s256: URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(&certificate)),
        })
    }

    /// A client assertion for `client_id` addressed to the token endpoint `audience`.
    pub fn assertion(&self, client_id: &str, audience: &str) -> Result<Secret> {
        let now = time::OffsetDateTime::now_utc().unix_timestamp();
        let mut header = Header::new(Algorithm::RS256);
        header.x5t = Some(self.x5t.clone());
        header.x5t_s256 = Some(self.x5t_s256.clone());
        let claims = AssertionClaims {
            aud: audience,
            iss: client_id,
            sub: client_id,
            jti: uuid::Uuid::new_v4().to_string(),
            iat: now,
            nbf: now,
            exp: now + ASSERTION_SECONDS,
        };
        jsonwebtoken::encode(&header, &claims, &self.key)
            .map(Secret::new)
            .map_err(|err| Error::runtime("cannot sign the client assertion").with_cause(err))
    }
}

fn from_pem(path: &Path, bytes: &[u8]) -> Result<(Vec<u8>, rsa::RsaPrivateKey)> {
    let mut certificate = None;
    let mut key = None;
    for block in x509_parser::pem::Pem::iter_from_buffer(bytes) {
        let block = block.map_err(|err| unusable(path, format!("bad PEM: {err}")))?;
        match block.label.as_str() {
            "CERTIFICATE" if certificate.is_none() => certificate = Some(block.contents),
            "PRIVATE KEY" => {
                key = Some(
                    rsa::RsaPrivateKey::from_pkcs8_der(&block.contents)
                        .map_err(|_| unusable(path, "the private key is not an RSA key"))?,
                );
            }
            "RSA PRIVATE KEY" => {
                key = Some(
                    rsa::RsaPrivateKey::from_pkcs1_der(&block.contents)
                        .map_err(|_| unusable(path, "the RSA private key cannot be read"))?,
                );
            }
            "ENCRYPTED PRIVATE KEY" => {
                return Err(unusable(path, "the private key is encrypted").with_hint(
                    "use a PFX file with FABSH_CLIENT_CERTIFICATE_PASSWORD, or a PEM with an unencrypted key",
                ));
            }
            _ => {}
        }
    }
    match (certificate, key) {
        (Some(certificate), Some(key)) => Ok((certificate, key)),
        (None, _) => Err(unusable(path, "no CERTIFICATE block")),
        (_, None) => Err(unusable(path, "no PRIVATE KEY block")
            .with_hint("the PEM file must hold both the certificate and its private key")),
    }
}

fn from_pfx(
    path: &Path,
    bytes: &[u8],
    password: Option<&Secret>,
) -> Result<(Vec<u8>, rsa::RsaPrivateKey)> {
    let password = password.map_or("", Secret::expose);
    let store = p12_keystore::KeyStore::from_pkcs12(bytes, password).map_err(|_| {
        unusable(
            path,
            "not a PEM file, and not a PFX file this password opens",
        )
        .with_hint("set the PFX password in FABSH_CLIENT_CERTIFICATE_PASSWORD")
    })?;
    for (_, entry) in store.entries() {
        if let p12_keystore::KeyStoreEntry::PrivateKeyChain(chain) = entry {
            let certificate = chain
                .chain()
                .first()
                .map(|c| c.as_der().to_vec())
                .ok_or_else(|| unusable(path, "the PFX holds a key without its certificate"))?;
            let key = rsa::RsaPrivateKey::from_pkcs8_der(chain.key())
                .map_err(|_| unusable(path, "the PFX key is not an RSA key"))?;
            return Ok((certificate, key));
        }
    }
    Err(unusable(path, "the PFX holds no private key"))
}
