//! Where a credential's tokens may go. A profile's sign-in records the endpoint it was made
//! for, and `FABSH_TOKEN` belongs to the `FABSH_ENDPOINT` given with it (or, without one, to
//! the default endpoint). Their tokens go to that endpoint, or to another endpoint of the same
//! Fabric cloud, whose hosts get them anyway through operation links (see
//! [`crate::api::trusted_hosts`]). Any other endpoint is refused before anything is sent, with
//! an error naming both: as `gh` ties a token to its host and `az` to its cloud, a token made
//! for local Fabric never reaches the service, nor an Entra token a server it was not made for.
//!
//! The sources that are not signed in for an endpoint — a service principal of the
//! `FABSH_CLIENT_*` variables, a managed identity, the Azure CLI — are bound by who issues
//! their tokens ([`Bound::source`]): an Entra authority's go to the endpoints of its Fabric
//! cloud, another issuer's (local Fabric, as authority or identity endpoint) to endpoints on
//! its origin.

use super::TokenProvider;
use super::cache::Login;
use super::chain::login_command;
use super::credential::{Acquire, CredentialProvider};
use crate::api::trusted_hosts::{
    FabricCloud, PUBLIC_CLOUD, cloud_of, cloud_of_authority, same_cloud,
};
use crate::api::{DEFAULT_ENDPOINT, normalize_endpoint};
use crate::config::{ENDPOINT_VAR, Origin, Settings, env_text};
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

/// Where a credential's tokens may go.
#[derive(Debug, Clone)]
enum Reach {
    /// One endpoint, and the other endpoints of its Fabric cloud.
    Endpoint(Url),
    /// The https endpoints of one Fabric cloud: the tokens of its Entra authority.
    Cloud(&'static FabricCloud),
    /// Any endpoint on one origin (scheme, host and port): the tokens of an issuer that is not
    /// Entra, such as local Fabric.
    Origin(Url),
}

impl Reach {
    /// Where the tokens of the authority at `host` may go: an Entra authority's to its Fabric
    /// cloud, any other's to its origin.
    fn issued_by(host: &str) -> Result<Reach> {
        let url = Url::parse(host.trim()).map_err(|err| {
            Error::usage(format!("invalid authority host {host:?}: {err}"))
                .with_hint("give a URL such as https://login.microsoftonline.com")
        })?;
        Ok(match cloud_of_authority(&url) {
            Some(cloud) => Reach::Cloud(cloud),
            None => Reach::Origin(url),
        })
    }

    fn serves(&self, in_use: &Url) -> bool {
        match self {
            Reach::Endpoint(made_for) => serves(made_for, in_use),
            Reach::Cloud(cloud) => cloud_of(in_use) == Some(*cloud),
            Reach::Origin(issuer) => issuer.origin() == in_use.origin(),
        }
    }

    /// The endpoint, or the origin, as `auth status` shows it.
    fn text(&self) -> String {
        match self {
            Reach::Endpoint(url) => url.to_string(),
            Reach::Cloud(cloud) => cloud.endpoint.to_string(),
            Reach::Origin(url) => url.origin().ascii_serialization(),
        }
    }

    /// In words, for messages.
    fn describe(&self) -> String {
        match self {
            Reach::Endpoint(url) => url.to_string(),
            Reach::Cloud(cloud) => format!(
                "the endpoints of Fabric's {} cloud ({} and its other hosts)",
                cloud.name, cloud.endpoint
            ),
            Reach::Origin(url) => format!("endpoints at {}", url.origin().ascii_serialization()),
        }
    }
}

/// The Fabric cloud whose Entra the Azure CLI and managed identities get tokens from: the
/// public cloud, unless the authority host set (`FABSH_AUTHORITY_HOST`, a profile's
/// `authority-host`) is a national cloud's. Any other authority host, local Fabric's included,
/// is not theirs: neither asks it for tokens.
fn entra_cloud(settings: &Settings) -> &'static FabricCloud {
    settings
        .lookup("authority-host")
        .and_then(|(host, _)| Url::parse(host.trim()).ok())
        .and_then(|url| cloud_of_authority(&url))
        .unwrap_or(PUBLIC_CLOUD)
}

/// The endpoint requests go to, and what set it (for messages).
#[derive(Debug, Clone)]
pub struct InUse {
    url: Url,
    origin: Origin,
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
            origin,
            set_by,
        })
    }
}

/// Which credential is tied to an endpoint.
#[derive(Debug, Clone)]
enum Credential {
    /// `FABSH_TOKEN`; `given_endpoint` when `FABSH_ENDPOINT` came with it.
    /// A token in an environment variable (`var`: `FABSH_TOKEN`, `FABSH_STORAGE_TOKEN`).
    EnvToken {
        var: &'static str,
        given_endpoint: bool,
    },
    /// A profile's stored sign-in; `recorded` is false for one made before sign-ins recorded
    /// their endpoint.
    SignIn { profile: String, recorded: bool },
    /// A source that gets tokens when asked, not signed in for an endpoint: `source` names it
    /// (`the Azure CLI`), `issuer` says where its tokens come from (`gets tokens from Entra`).
    Source {
        source: String,
        issuer: String,
        profile: String,
    },
}

/// A credential tied to where its tokens may go, and the endpoint in use.
#[derive(Debug, Clone)]
pub struct Bound {
    credential: Credential,
    /// The tokens may go to an endpoint any of these serves.
    made_for: Vec<Reach>,
    /// The authority a sign-in recorded.
    authority_host: Option<String>,
    in_use: InUse,
}

impl Bound {
    /// A token in `var` (`FABSH_TOKEN`, or `FABSH_STORAGE_TOKEN` for the endpoint's OneLake):
    /// for `FABSH_ENDPOINT` when that is set, else for the default endpoint.
    pub fn env_token(in_use: InUse, var: &'static str) -> Result<Bound> {
        let given = env_text(ENDPOINT_VAR);
        let made_for = normalize_endpoint(given.as_deref().unwrap_or(DEFAULT_ENDPOINT))?;
        Ok(Bound {
            credential: Credential::EnvToken {
                var,
                given_endpoint: given.is_some(),
            },
            made_for: vec![Reach::Endpoint(made_for)],
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
            made_for: vec![Reach::Endpoint(made_for)],
            authority_host: login
                .made_for
                .as_ref()
                .and_then(|made_for| made_for.authority_host.clone()),
            in_use,
        })
    }

    /// `provider`, a source not signed in for an endpoint, bound by who issues its tokens:
    /// - a service principal, by its authority: an Entra authority's tokens go to the
    ///   endpoints of its Fabric cloud, another's (local Fabric's) to endpoints on its origin;
    /// - the Azure CLI, by Entra ([`entra_cloud`]);
    /// - a managed identity, by Entra too, and when the environment names its endpoint, also
    ///   to endpoints on that endpoint's origin, where its tokens come from: local Fabric
    ///   answers there as Fabric as well, while App Service's endpoint, also on loopback, gets
    ///   Entra tokens, and the two cannot be told apart by their address.
    pub fn source(
        provider: &CredentialProvider,
        settings: &Settings,
        in_use: InUse,
    ) -> Result<Bound> {
        let (issuer, made_for) = issuer_of(provider.acquire(), entra_cloud(settings))?;
        Ok(Bound {
            credential: Credential::Source {
                source: provider.source().to_string(),
                issuer,
                profile: settings.profile_name(),
            },
            made_for,
            authority_host: None,
            in_use,
        })
    }

    /// Where the tokens go, as `auth status` shows it: the endpoint (or origin) that takes in
    /// the one in use, else the first.
    pub fn made_for(&self) -> String {
        let in_use = &self.in_use.url;
        self.made_for
            .iter()
            .find(|reach| reach.serves(in_use))
            .or(self.made_for.first())
            .map_or_else(String::new, Reach::text)
    }

    /// The authority a sign-in was made at, when it recorded one.
    pub fn authority_host(&self) -> Option<&str> {
        self.authority_host.as_deref()
    }

    /// True when the endpoint in use may get the credential's tokens.
    pub fn holds(&self) -> bool {
        let in_use = &self.in_use.url;
        self.made_for.iter().any(|reach| reach.serves(in_use))
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
        let made_for = self
            .made_for
            .iter()
            .map(Reach::describe)
            .collect::<Vec<_>>()
            .join(" or ");
        match &self.credential {
            Credential::EnvToken {
                var,
                given_endpoint,
            } => {
                let whence = if *given_endpoint {
                    format!("the {ENDPOINT_VAR} given with it")
                } else {
                    format!("the default, as {ENDPOINT_VAR} is unset")
                };
                Error::auth(format!(
                    "{var} is for {made_for} ({whence}), {not_here}; it is not sent there"
                ))
                .with_hint(format!(
                    "a token for {in_use} goes with {ENDPOINT_VAR}={in_use}; or unset {var} to use the profile's sign-in"
                ))
            }
            Credential::SignIn { profile, recorded } => {
                let message = if *recorded {
                    format!(
                        "profile `{profile}` is signed in for {made_for}, {not_here}; its tokens are not sent there"
                    )
                } else {
                    format!(
                        "profile `{profile}` was signed in by an earlier fabsh, which did not record the endpoint; it is taken as signed in for {made_for}, {not_here}"
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
            Credential::Source {
                source,
                issuer,
                profile,
            } => {
                let elsewhere = match self.in_use.origin {
                    Origin::Flag => "leave out --endpoint".to_string(),
                    Origin::Env => format!("unset {ENDPOINT_VAR}"),
                    Origin::Profile | Origin::Default => format!("set {ENDPOINT_VAR}"),
                };
                Error::auth(format!(
                    "{source} {issuer}; they are for {made_for}, {not_here}, and are not sent there"
                ))
                .with_hint(format!(
                    "sign in for {in_use} with `{}`, or {elsewhere} to use an endpoint its tokens are for",
                    login_command_for(profile, in_use)
                ))
            }
        }
    }
}

/// Where `acquire` gets its tokens (for messages) and where they may go ([`Bound::source`]);
/// `entra` is the cloud of the Entra the Azure CLI and managed identities sign in to.
fn issuer_of(acquire: &Acquire, entra: &'static FabricCloud) -> Result<(String, Vec<Reach>)> {
    let entra = Reach::Cloud(entra);
    Ok(match acquire {
        Acquire::Refresh { authority, .. }
        | Acquire::Secret { authority, .. }
        | Acquire::Certificate { authority, .. }
        | Acquire::Federated { authority, .. } => (
            format!("gets tokens from the authority at {}", authority.host()),
            vec![Reach::issued_by(authority.host())?],
        ),
        Acquire::ManagedIdentity { endpoint, .. } => match endpoint.named_by() {
            Some(variable) => {
                let own = Url::parse(endpoint.url()).ok().map(Reach::Origin);
                (
                    format!("gets tokens from {} ({variable})", endpoint.url()),
                    std::iter::once(entra).chain(own).collect(),
                )
            }
            None => (
                "gets tokens from the VM metadata service".to_string(),
                vec![entra],
            ),
        },
        Acquire::AzureCli { .. } => ("gets tokens from Entra".to_string(), vec![entra]),
    })
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
    use crate::auth::Secret;
    use crate::auth::managed_identity::IdentityEndpoint;
    use crate::auth::oauth::Authority;

    fn url(text: &str) -> Url {
        normalize_endpoint(text).expect("endpoint")
    }

    fn serves_text(made_for: &str, in_use: &str) -> bool {
        serves(&url(made_for), &url(in_use))
    }

    /// `text` in use, as `FABSH_ENDPOINT` sets it.
    fn in_use(text: &str) -> InUse {
        InUse {
            url: url(text),
            origin: Origin::Env,
            set_by: ENDPOINT_VAR.into(),
        }
    }

    /// Whether the tokens of `acquire` may go to `endpoint`, `entra` being the configured
    /// cloud of the Azure CLI and managed identities.
    fn takes(acquire: &Acquire, entra: &'static FabricCloud, endpoint: &str) -> bool {
        let (_, made_for) = issuer_of(acquire, entra).expect("issuer");
        made_for.iter().any(|reach| reach.serves(&url(endpoint)))
    }

    fn app_of(authority: &str) -> Acquire {
        Acquire::Secret {
            authority: Authority::new(authority, "tenant", None).expect("authority"),
            client_id: "app".into(),
            secret: Secret::new("secret"),
        }
    }

    fn cloud(authority: &str) -> &'static FabricCloud {
        cloud_of_authority(&Url::parse(authority).expect("url")).expect("an Entra authority")
    }

    const PUBLIC: &str = "https://api.fabric.microsoft.com/v1";
    const GOVERNMENT: &str = "https://api.fabric.microsoft.us/v1";
    const LOCAL: &str = "http://127.0.0.1:8000/v1";

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

    #[test]
    fn an_entra_authoritys_tokens_go_to_its_cloud_and_another_issuers_to_its_origin() {
        let public = app_of("https://login.microsoftonline.com");
        for endpoint in [PUBLIC, "https://api.powerbi.com/v1"] {
            assert!(takes(&public, PUBLIC_CLOUD, endpoint), "{endpoint}");
        }
        for endpoint in [
            GOVERNMENT,
            LOCAL,
            "https://fabric.evil.example/v1",
            "http://api.fabric.microsoft.com/v1",
        ] {
            assert!(!takes(&public, PUBLIC_CLOUD, endpoint), "{endpoint}");
        }
        let government = app_of("https://login.microsoftonline.us");
        assert!(takes(&government, PUBLIC_CLOUD, GOVERNMENT));
        assert!(!takes(&government, PUBLIC_CLOUD, PUBLIC));
        // Local Fabric as authority: any endpoint on its origin, and nothing else.
        let local = app_of("http://127.0.0.1:8000");
        for endpoint in [LOCAL, "http://127.0.0.1:8000/base/v1"] {
            assert!(takes(&local, PUBLIC_CLOUD, endpoint), "{endpoint}");
        }
        for endpoint in [
            "http://127.0.0.1:8001/v1",
            "http://localhost:8000/v1",
            "https://127.0.0.1:8000/v1",
            PUBLIC,
        ] {
            assert!(!takes(&local, PUBLIC_CLOUD, endpoint), "{endpoint}");
        }
    }

    #[test]
    fn the_azure_cli_and_the_vm_identity_get_tokens_of_the_configured_cloud() {
        let government = cloud("https://login.microsoftonline.us");
        let vm = Acquire::ManagedIdentity {
            endpoint: IdentityEndpoint::Imds {
                url: "http://169.254.169.254/metadata/identity/oauth2/token".into(),
            },
            client_id: None,
        };
        for acquire in [Acquire::AzureCli { tenant: None }, vm] {
            assert!(takes(&acquire, PUBLIC_CLOUD, PUBLIC));
            assert!(takes(&acquire, PUBLIC_CLOUD, "https://api.powerbi.com/v1"));
            assert!(!takes(&acquire, PUBLIC_CLOUD, GOVERNMENT));
            assert!(!takes(&acquire, PUBLIC_CLOUD, LOCAL));
            assert!(!takes(&acquire, PUBLIC_CLOUD, "http://169.254.169.254/v1"));
            assert!(takes(&acquire, government, GOVERNMENT));
            assert!(!takes(&acquire, government, PUBLIC));
        }
    }

    #[test]
    fn a_named_identity_endpoint_also_takes_its_own_origin() {
        // App Service's endpoint and local Fabric's alike: on loopback, named by the variable.
        let named = Acquire::ManagedIdentity {
            endpoint: IdentityEndpoint::AppService {
                url: "http://127.0.0.1:41741/msi/token".into(),
                header: Secret::new("header"),
            },
            client_id: None,
        };
        assert!(takes(&named, PUBLIC_CLOUD, PUBLIC));
        assert!(takes(&named, PUBLIC_CLOUD, "http://127.0.0.1:41741/v1"));
        assert!(!takes(&named, PUBLIC_CLOUD, LOCAL));
        assert!(!takes(&named, PUBLIC_CLOUD, GOVERNMENT));
    }

    #[test]
    fn the_configured_cloud_is_a_national_authoritys_only() {
        let with = |authority: Option<&str>| {
            let mut settings = Settings::default();
            if let Some(authority) = authority {
                settings
                    .profile_values
                    .insert("authority-host".into(), authority.into());
            }
            entra_cloud(&settings).name
        };
        assert_eq!(with(None), "public");
        assert_eq!(
            with(Some("https://login.microsoftonline.us")),
            "US Government"
        );
        assert_eq!(with(Some("https://login.chinacloudapi.cn")), "China");
        // Local Fabric as the authority of sign-ins: not where the Azure CLI gets tokens.
        assert_eq!(with(Some("http://127.0.0.1:8000")), "public");
    }

    #[test]
    fn a_source_is_refused_naming_it_where_its_tokens_go_and_the_endpoint_in_use() {
        let (issuer, made_for) =
            issuer_of(&Acquire::AzureCli { tenant: None }, PUBLIC_CLOUD).expect("issuer");
        let bound = Bound {
            credential: Credential::Source {
                source: "the Azure CLI".into(),
                issuer,
                profile: "default".into(),
            },
            made_for,
            authority_host: None,
            in_use: in_use(LOCAL),
        };
        assert!(!bound.holds());
        assert_eq!(bound.made_for(), PUBLIC);
        let refusal = bound.refusal();
        assert_eq!(
            refusal.message,
            format!(
                "the Azure CLI gets tokens from Entra; they are for the endpoints of Fabric's public cloud ({PUBLIC} and its other hosts), not for the endpoint in use, {LOCAL} (FABSH_ENDPOINT), and are not sent there"
            )
        );
        assert_eq!(
            refusal.hints,
            [format!(
                "sign in for {LOCAL} with `fabsh --endpoint {LOCAL} auth login`, or unset FABSH_ENDPOINT to use an endpoint its tokens are for"
            )]
        );
    }
}
