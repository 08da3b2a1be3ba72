//! Outbound HTTP that fabsh's client and local Fabric share: the one way fabsh builds an HTTP
//! client, when to send a request again, and a chat-completions client for a language model
//! (the client's judge, local Fabric's NL-to-SQL).

pub mod chat;
mod error;
pub mod retry;

pub use error::{Error, ErrorKind};

use std::time::Duration;

/// The HTTP client every request of fabsh goes through (API, sign-in, managed identity,
/// models). `plain_http_only` skips loading the system's trust store.
pub fn client(plain_http_only: bool) -> Result<reqwest::Client, Error> {
    // The ring provider is the only one compiled in; installing it twice is harmless.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut builder = reqwest::Client::builder();
    if plain_http_only {
        // A plain-HTTP endpoint (local Fabric) needs no trust store; loading the system's
        // certificates would cost more than the rest of a command's start-up.
        builder = builder.tls_certs_only(Vec::new());
    }
    builder
        // Never follow redirects: a redirect could carry the bearer token elsewhere.
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(Duration::from_secs(15))
        .timeout(Duration::from_secs(300))
        .user_agent(concat!("fabsh/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|err| {
            Error::new(
                ErrorKind::Failed,
                format!("cannot build the HTTP client: {err}"),
            )
        })
}
