//! The sign-in methods a profile can name.

use serde::{Deserialize, Serialize};

/// How a profile signs in (`auth-method`, set by `auth login`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// A user, through the device-code flow; the refresh token is cached.
    DeviceCode,
    /// An app with a secret, a certificate or a federated token.
    ServicePrincipal,
    /// The managed identity of the machine (VM metadata service or App Service).
    ManagedIdentity,
    /// Whoever is signed in to the Azure CLI.
    AzureCli,
}

impl Method {
    /// The names accepted in profiles and `FABSH_AUTH_METHOD`.
    pub const NAMES: &'static [&'static str] = &[
        "device-code",
        "service-principal",
        "managed-identity",
        "azure-cli",
    ];

    /// Parses a method name.
    pub fn parse(text: &str) -> Option<Method> {
        Some(match text.trim().to_ascii_lowercase().as_str() {
            "device-code" => Method::DeviceCode,
            "service-principal" => Method::ServicePrincipal,
            "managed-identity" => Method::ManagedIdentity,
            "azure-cli" => Method::AzureCli,
            _ => return None,
        })
    }

    /// The method's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::DeviceCode => "device-code",
            Method::ServicePrincipal => "service-principal",
            Method::ManagedIdentity => "managed-identity",
            Method::AzureCli => "azure-cli",
        }
    }
}
