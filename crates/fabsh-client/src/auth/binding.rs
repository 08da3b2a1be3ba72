//! Where a credential's tokens may go. A profile's sign-in records the endpoint it was made
//! for, and `FABSH_TOKEN` belongs to the `FABSH_ENDPOINT` given with it (or, without one, to
//! the default endpoint). Their tokens go to that endpoint, or to another endpoint of the same
//! Fabric cloud, whose hosts get them anyway through operation links (see
//! [`crate::api::trusted_hosts`]). Any other endpoint is refused before anything is sent, with
//! an error naming both: as `gh` ties a token to its host and `az` to its cloud, a token made
//! for local Fabric never reaches the service, nor an Entra token a server it was not made for.

use super::cache::Login;
use super::chain::login_command;
use crate::api::trusted_hosts::same_cloud;
use crate::api::{DEFAULT_ENDPOINT, normalize_endpoint};
use crate::config::{ENDPOINT_VAR, Origin, Settings, TOKEN_VAR, env_text};
use crate::error::{Error, Result};
use reqwest::Url;
use serde::{Deserialize, Serialize};

/// What a stored sign-in was made for (`madeFor` in the token cache).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MadeFor {
    /// The endpoint in use when signing in, normalized (`https://api.fabric.microsoft.com/v1`).
    pub endpoint: String,
    /// The authority that issued the tokens, for the methods that sign in at one (device
    /// code, service principal): refresh tokens and app credentials go back there only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authority_host: Option<String>,
    /// The resource (Entra audience) the access tokens are for.
    pub audience: String,
}

/// True when a token made for the endpoint `made_for` may be sent to the endpoint `in_use`:
/// the same scheme, host, port and base path, or two https endpoints of one Fabric cloud.
pub(crate) fn serves(made_for: &Url, in_use: &Url) -> bool {
    (made_for.origin() == in_use.origin() && made_for.path() == in_use.path())
        || same_cloud(made_for, in_use)
}

/// The endpoint requests go to, and what set it (for messages).
#[derive(Debug, Clone)]
pub struct InUse {
    url: Url,
    set_by: String,
}

impl InUse {
    /// The endpoint `settings` name: `--endpoint`, `FABSH_ENDPOINT`, the profile's, or the
    /// default.
    pub fn of(settings: &Settings) -> Result<InUse> {
        let (text, origin) = settings
            .lookup("endpoint")
            .unwrap_or_else(|| (DEFAULT_ENDPOINT.to_string(), Origin::Default));
        let set_by = match origin {
            Origin::Flag => "--endpoint".to_string(),
            Origin::Env => ENDPOINT_VAR.to_string(),
            Origin::Profile => format!("the endpoint of profile `{}`", settings.profile_name()),
            Origin::Default => "the default endpoint".to_string(),
        };
        Ok(InUse {
            url: normalize_endpoint(&text)?,
            set_by,
        })
    }
}

/// Which credential is tied to an endpoint.
#[derive(Debug, Clone)]
enum Credential {
    /// `FABSH_TOKEN`; `given_endpoint` when `FABSH_ENDPOINT` came with it.
    EnvToken { given_endpoint: bool },
    /// A profile's stored sign-in; `recorded` is false for one made before sign-ins recorded
    /// their endpoint.
    SignIn { profile: String, recorded: bool },
}

/// A credential tied to one endpoint, and the endpoint in use.
#[derive(Debug, Clone)]
pub struct Bound {
    credential: Credential,
    made_for: Url,
    /// The authority a sign-in recorded.
    authority_host: Option<String>,
    in_use: InUse,
}

impl Bound {
    /// `FABSH_TOKEN`: for `FABSH_ENDPOINT` when that is set, else for the default endpoint.
    pub fn env_token(in_use: InUse) -> Result<Bound> {
        let given = env_text(ENDPOINT_VAR);
        let made_for = normalize_endpoint(given.as_deref().unwrap_or(DEFAULT_ENDPOINT))?;
        Ok(Bound {
            credential: Credential::EnvToken {
                given_endpoint: given.is_some(),
            },
            made_for,
            authority_host: None,
            in_use,
        })
    }

    /// `profile`'s stored sign-in. One without a record was made by a version that signed in
    /// to Entra for the service only, so it is taken as made for the default endpoint.
    pub fn sign_in(profile: &str, login: &Login, in_use: InUse) -> Result<Bound> {
        let recorded = login.made_for.as_ref().map(|made_for| &made_for.endpoint);
        let made_for = normalize_endpoint(recorded.map_or(DEFAULT_ENDPOINT, String::as_str))
            .map_err(|_| {
                Error::auth(format!(
                    "the token cache does not say which endpoint profile `{profile}` signed in for"
                ))
                .with_hint(format!("sign in again with `{}`", login_command(profile)))
            })?;
        Ok(Bound {
            credential: Credential::SignIn {
                profile: profile.to_string(),
                recorded: recorded.is_some(),
            },
            made_for,
            authority_host: login
                .made_for
                .as_ref()
                .and_then(|made_for| made_for.authority_host.clone()),
            in_use,
        })
    }

    /// The endpoint the credential's tokens are for.
    pub fn made_for(&self) -> &Url {
        &self.made_for
    }

    /// The authority a sign-in was made at, when it recorded one.
    pub fn authority_host(&self) -> Option<&str> {
        self.authority_host.as_deref()
    }

    /// True when the endpoint in use may get the credential's tokens.
    pub fn holds(&self) -> bool {
        serves(&self.made_for, &self.in_use.url)
    }

    /// Fails with [`Bound::refusal`] unless the endpoint in use may get the tokens.
    pub fn check(&self) -> Result<()> {
        if self.holds() {
            Ok(())
        } else {
            Err(self.refusal())
        }
    }

    /// Why the tokens are not sent to the endpoint in use, naming both endpoints, and how to
    /// get a credential for the one in use.
    pub fn refusal(&self) -> Error {
        let in_use = &self.in_use.url;
        let not_here = format!(
            "not for the endpoint in use, {in_use} ({})",
            self.in_use.set_by
        );
        match &self.credential {
            Credential::EnvToken { given_endpoint } => {
                let whence = if *given_endpoint {
                    format!("the {ENDPOINT_VAR} given with it")
                } else {
                    format!("the default, as {ENDPOINT_VAR} is unset")
                };
                Error::auth(format!(
                    "{TOKEN_VAR} is for {} ({whence}), {not_here}; it is not sent there",
                    self.made_for
                ))
                .with_hint(format!(
                    "a token for {in_use} goes with {ENDPOINT_VAR}={in_use}; or unset {TOKEN_VAR} to use the profile's sign-in"
                ))
            }
            Credential::SignIn { profile, recorded } => {
                let message = if *recorded {
                    format!(
                        "profile `{profile}` is signed in for {}, {not_here}; its tokens are not sent there",
                        self.made_for
                    )
                } else {
                    format!(
                        "profile `{profile}` was signed in by an earlier fabsh, which did not record the endpoint; it is taken as signed in for {}, {not_here}",
                        self.made_for
                    )
                };
                let login = login_command_for(profile, in_use);
                let hint = if *recorded {
                    format!(
                        "sign in for {in_use} with `{login}` (it replaces this sign-in), or keep both with a profile of its own: `fabsh --profile NAME config set endpoint {in_use}`, then `fabsh --profile NAME auth login`"
                    )
                } else {
                    format!("sign in again for {in_use} with `{login}`")
                };
                Error::auth(message).with_hint(hint)
            }
        }
    }
}

/// `fabsh auth login` for `profile`, at `endpoint`.
fn login_command_for(profile: &str, endpoint: &Url) -> String {
    let login = login_command(profile);
    let rest = login.strip_prefix("fabsh ").unwrap_or(&login);
    format!("fabsh --endpoint {endpoint} {rest}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        normalize_endpoint(text).expect("endpoint")
    }

    fn serves_text(made_for: &str, in_use: &str) -> bool {
        serves(&url(made_for), &url(in_use))
    }

    #[test]
    fn a_token_serves_the_endpoint_it_was_made_for() {
        assert!(serves_text(
            "http://127.0.0.1:8000/v1",
            "http://127.0.0.1:8000/v1"
        ));
        // Written differently, the same endpoint.
        assert!(serves_text(
            "http://127.0.0.1:8000",
            "http://127.0.0.1:8000/v1/"
        ));
        assert!(serves_text(
            "https://gateway.contoso.com:443/fabric/v1",
            "https://GATEWAY.contoso.com/fabric/v1"
        ));
    }

    #[test]
    fn another_port_host_scheme_or_base_path_is_another_endpoint() {
        let local = "http://127.0.0.1:8000/v1";
        assert!(!serves_text(local, "http://127.0.0.1:8001/v1"));
        assert!(!serves_text(local, "http://localhost:8000/v1"));
        assert!(!serves_text(local, "https://127.0.0.1:8000/v1"));
        assert!(!serves_text(local, "https://api.fabric.microsoft.com/v1"));
        assert!(!serves_text("https://api.fabric.microsoft.com/v1", local));
        let gateway = "https://gateway.contoso.com/team-a/v1";
        assert!(!serves_text(
            gateway,
            "https://gateway.contoso.com/team-b/v1"
        ));
    }

    #[test]
    fn endpoints_of_one_fabric_cloud_share_its_tokens() {
        let commercial = "https://api.fabric.microsoft.com/v1";
        // fabric-cicd's default root, where the same token answers (the recordings).
        assert!(serves_text(commercial, "https://api.powerbi.com/v1"));
        assert!(serves_text(
            "https://api.fabric.microsoft.us/v1",
            "https://api.powerbigov.us/v1"
        ));
        // Not across clouds, not to a look-alike, not down to http.
        assert!(!serves_text(
            commercial,
            "https://api.fabric.microsoft.us/v1"
        ));
        assert!(!serves_text(
            commercial,
            "https://api.fabric.microsoft.cn/v1"
        ));
        assert!(!serves_text(
            commercial,
            "https://fabric.microsoft.com.evil.example/v1"
        ));
        assert!(!serves_text(
            commercial,
            "http://api.fabric.microsoft.com/v1"
        ));
    }

    #[test]
    fn a_sign_in_without_a_record_is_for_the_default_endpoint() {
        let login: Login =
            serde_json::from_str(r#"{"method": "device-code", "refreshToken": "r"}"#)
                .expect("an earlier version's entry");
        assert_eq!(login.made_for, None);
        let in_use = |text: &str| InUse {
            url: url(text),
            set_by: ENDPOINT_VAR.into(),
        };
        let bound = Bound::sign_in("default", &login, in_use(DEFAULT_ENDPOINT)).expect("bound");
        assert!(bound.holds());
        let local =
            Bound::sign_in("default", &login, in_use("http://127.0.0.1:8000")).expect("bound");
        assert!(!local.holds());
        let refusal = local.refusal();
        assert!(
            refusal.message.contains("earlier fabsh") && refusal.message.contains(DEFAULT_ENDPOINT),
            "{}",
            refusal.message
        );
        assert!(
            refusal.hints[0].contains("fabsh --endpoint http://127.0.0.1:8000/v1 auth login"),
            "{:?}",
            refusal.hints
        );
    }
}
