//! Where links from the service may take the bearer token. Operation, result and next-page
//! links are followed only to the endpoint's own origin, to the hosts of the Fabric cloud the
//! endpoint belongs to (a 202's `Location` is often a regional host such as
//! `wabi-west-europe-redirect.analysis.windows.net`, per the recordings), or to hosts the user
//! names in `FABSH_TRUSTED_HOSTS`. Never from https down to http.

use reqwest::Url;

/// The variable naming more hosts links may go to: comma-separated `host`, `host:port`, or
/// `.suffix` (any host ending so).
pub const TRUSTED_HOSTS_VAR: &str = "FABSH_TRUSTED_HOSTS";

/// A Fabric cloud: its API endpoint, the hosts of its services and the Entra authority that
/// issues its tokens.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct FabricCloud {
    /// What messages call it.
    pub name: &'static str,
    /// Its Fabric API endpoint.
    pub endpoint: &'static str,
    /// Its OneLake's Blob API endpoint (global; workspaces also answer regional ones).
    pub onelake: &'static str,
    /// The hosts of its Entra authority (https, port 443).
    authorities: &'static [&'static str],
    /// The host suffixes of its services: the API, Power BI and the regional redirect hosts
    /// LROs poll on.
    suffixes: &'static [&'static str],
}

/// The Fabric clouds. The national clouds' Fabric API hosts are `api.fabric.microsoft.us` (US
/// Government) and `api.fabric.microsoft.cn` (China, 21Vianet), beside their Power BI hosts
/// (`api.powerbigov.us`, `api.high.powerbigov.us`, `api.mil.powerbigov.us`; `api.powerbi.cn`)
/// and Analysis Services resources (`analysis.usgovcloudapi.net`, `analysis.chinacloudapi.cn`);
/// their Entra authorities are `login.microsoftonline.us` and `login.chinacloudapi.cn` (with
/// `login.partner.microsoftonline.cn`), the public cloud's `login.microsoftonline.com` and its
/// older names.
const FABRIC_CLOUDS: &[FabricCloud] = &[
    FabricCloud {
        name: "public",
        endpoint: "https://api.fabric.microsoft.com/v1",
        onelake: "https://onelake.blob.fabric.microsoft.com",
        authorities: &[
            "login.microsoftonline.com",
            "login.microsoft.com",
            "login.windows.net",
        ],
        suffixes: &[
            ".fabric.microsoft.com",
            ".powerbi.com",
            ".analysis.windows.net",
            ".pbidedicated.windows.net",
        ],
    },
    FabricCloud {
        name: "US Government",
        endpoint: "https://api.fabric.microsoft.us/v1",
        onelake: "https://onelake.blob.fabric.microsoft.us",
        authorities: &["login.microsoftonline.us"],
        suffixes: &[
            ".fabric.microsoft.us",
            ".powerbigov.us",
            ".analysis.usgovcloudapi.net",
        ],
    },
    FabricCloud {
        name: "China",
        endpoint: "https://api.fabric.microsoft.cn/v1",
        onelake: "https://onelake.blob.fabric.microsoft.cn",
        authorities: &["login.chinacloudapi.cn", "login.partner.microsoftonline.cn"],
        suffixes: &[
            ".fabric.microsoft.cn",
            ".powerbi.cn",
            ".analysis.chinacloudapi.cn",
        ],
    },
];

/// The public cloud, whose Entra the Azure CLI and managed identities sign in to unless the
/// configuration names another.
pub(crate) const PUBLIC_CLOUD: &FabricCloud = &FABRIC_CLOUDS[0];

/// Whether `url` is on this machine (`127.0.0.1` and its range, `[::1]`, `localhost`).
pub fn is_loopback(url: &Url) -> bool {
    match url.host_str() {
        Some(host) if host.eq_ignore_ascii_case("localhost") => true,
        Some(host) => host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback()),
        None => false,
    }
}

/// One `FABSH_TRUSTED_HOSTS` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    /// A host, on any port.
    Host(String),
    /// A host on one port.
    HostPort(String, u16),
    /// Every host ending with this (it starts with a dot).
    Suffix(String),
}

impl Entry {
    fn parse(text: &str) -> Option<Entry> {
        let text = text.trim().trim_end_matches('.').to_ascii_lowercase();
        let text = text.strip_prefix('*').unwrap_or(&text);
        if text.is_empty() || text == "." {
            return None;
        }
        if text.starts_with('.') {
            return Some(Entry::Suffix(text.to_string()));
        }
        match text.rsplit_once(':') {
            Some((host, port)) if !host.is_empty() && !host.contains(':') => port
                .parse()
                .ok()
                .map(|port| Entry::HostPort(host.into(), port)),
            _ => Some(Entry::Host(text.to_string())),
        }
    }

    fn admits(&self, host: &str, port: Option<u16>) -> bool {
        match self {
            Entry::Host(name) => host == name,
            Entry::HostPort(name, wanted) => host == name && port == Some(*wanted),
            Entry::Suffix(suffix) => host.ends_with(suffix.as_str()),
        }
    }
}

/// The hosts links may go to, besides the endpoint's origin and its Fabric cloud.
#[derive(Debug, Clone, Default)]
pub struct TrustedHosts {
    extra: Vec<Entry>,
}

impl TrustedHosts {
    /// From a `FABSH_TRUSTED_HOSTS` value; blank entries are skipped.
    pub fn parse(list: &str) -> TrustedHosts {
        TrustedHosts {
            extra: list.split(',').filter_map(Entry::parse).collect(),
        }
    }

    /// From `FABSH_TRUSTED_HOSTS`, if set.
    pub fn from_env() -> TrustedHosts {
        crate::config::env_text(TRUSTED_HOSTS_VAR)
            .map(|list| Self::parse(&list))
            // No FABSH_TRUSTED_HOSTS: only the built-in hosts are trusted.
            .unwrap_or_default()
    }

    /// True when a link to `url`, given by the service at `base`, may carry the token.
    pub fn allows(&self, base: &Url, url: &Url) -> bool {
        if url.origin() == base.origin() {
            return true;
        }
        if base.scheme() == "https" && url.scheme() != "https" {
            return false;
        }
        let Some(host) = url.host_str().map(str::to_ascii_lowercase) else {
            return false;
        };
        let port = url.port_or_known_default();
        self.extra.iter().any(|entry| entry.admits(&host, port)) || same_cloud(base, url)
    }
}

/// True when both URLs are https on hosts of one Fabric cloud.
pub(crate) fn same_cloud(a: &Url, b: &Url) -> bool {
    cloud_of(a).is_some_and(|cloud| cloud_of(b) == Some(cloud))
}

/// The Fabric cloud an https URL's host belongs to.
pub(crate) fn cloud_of(url: &Url) -> Option<&'static FabricCloud> {
    if url.scheme() != "https" {
        return None;
    }
    let host = url.host_str()?.to_ascii_lowercase();
    FABRIC_CLOUDS
        .iter()
        .find(|cloud| cloud.suffixes.iter().any(|suffix| host.ends_with(suffix)))
}

/// The Fabric cloud whose Entra authority is at `url` (https on port 443, one of its hosts
/// exactly), or `None` for any other authority.
pub(crate) fn cloud_of_authority(url: &Url) -> Option<&'static FabricCloud> {
    if url.scheme() != "https" || url.port().is_some() {
        return None;
    }
    let host = url.host_str()?.to_ascii_lowercase();
    FABRIC_CLOUDS
        .iter()
        .find(|cloud| cloud.authorities.contains(&host.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).expect("url")
    }

    #[test]
    fn links_stay_within_the_endpoints_fabric_cloud() {
        let none = TrustedHosts::default();
        let commercial = url("https://api.fabric.microsoft.com/v1");
        // The 202 Location host of the recordings (export__test_export_item_success.yaml).
        let regional =
            url("https://wabi-west-europe-redirect.analysis.windows.net/v1/operations/x");
        assert!(none.allows(&commercial, &regional));
        let gov = url("https://api.fabric.microsoft.us/v1");
        let gov_redirect =
            url("https://wabi-us-gov-virginia-redirect.analysis.usgovcloudapi.net/v1/operations/x");
        assert!(none.allows(&gov, &gov_redirect));
        assert!(none.allows(&gov, &url("https://api.high.powerbigov.us/v1/operations/x")));
        let china = url("https://api.fabric.microsoft.cn/v1");
        assert!(none.allows(&china, &url("https://api.powerbi.cn/v1/operations/x")));
        // No hop between clouds, nor to a look-alike, nor down to http.
        assert!(!none.allows(&commercial, &gov_redirect));
        assert!(!none.allows(&gov, &regional));
        assert!(!none.allows(
            &commercial,
            &url("https://fabric.microsoft.com.evil.example/x")
        ));
        assert!(!none.allows(&commercial, &url("http://api.fabric.microsoft.com/v1/x")));
    }

    #[test]
    fn named_hosts_are_trusted_too() {
        let trusted = TrustedHosts::parse(" gateway.contoso.com , .corp.example,127.0.0.1:9000,");
        let base = url("https://gateway.contoso.com/fabric/v1");
        assert!(trusted.allows(&base, &url("https://ops.corp.example/v1/operations/x")));
        let local = url("http://127.0.0.1:8000/v1");
        assert!(trusted.allows(&local, &url("http://127.0.0.1:9000/v1/operations/x")));
        assert!(!trusted.allows(&local, &url("http://127.0.0.1:9001/v1/operations/x")));
        assert!(!trusted.allows(&base, &url("http://ops.corp.example/v1/operations/x")));
        assert!(!TrustedHosts::default().allows(&base, &url("https://ops.corp.example/x")));
    }

    #[test]
    fn an_entra_authority_belongs_to_its_cloud_and_no_other_host_does() {
        let cloud = |text: &str| cloud_of_authority(&url(text)).map(|cloud| cloud.name);
        assert_eq!(cloud("https://login.microsoftonline.com"), Some("public"));
        assert_eq!(cloud("https://LOGIN.microsoftonline.com/"), Some("public"));
        assert_eq!(
            cloud("https://login.microsoftonline.us"),
            Some("US Government")
        );
        assert_eq!(cloud("https://login.chinacloudapi.cn"), Some("China"));
        // Not over http, on another port, or under a look-alike or sub-domain.
        assert_eq!(cloud("http://login.microsoftonline.com"), None);
        assert_eq!(cloud("https://login.microsoftonline.com:8443"), None);
        assert_eq!(
            cloud("https://login.microsoftonline.com.evil.example"),
            None
        );
        assert_eq!(cloud("https://evil.login.microsoftonline.com"), None);
        assert_eq!(cloud("http://127.0.0.1:8000"), None);
        // Each cloud's endpoint is one of its own hosts; the public one is fabsh's default.
        for each in FABRIC_CLOUDS {
            assert_eq!(cloud_of(&url(each.endpoint)), Some(each), "{}", each.name);
        }
        assert_eq!(PUBLIC_CLOUD.endpoint, crate::api::DEFAULT_ENDPOINT);
    }
}
