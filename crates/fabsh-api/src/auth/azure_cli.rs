//! The Azure CLI as a token source: `az account get-access-token` for the Fabric resource.

use super::{Resource, Secret, TokenSet};
use crate::error::{Error, Result};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

/// The program's name.
const AZ: &str = if cfg!(windows) { "az.cmd" } else { "az" };

/// The `az` on the PATH, if there is one.
pub fn find() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(AZ))
        .find(|candidate| candidate.is_file())
}

/// A token for `resource` from the signed-in Azure CLI; `tenant` asks for that tenant.
pub async fn token(tenant: Option<String>, resource: Resource) -> Result<TokenSet> {
    let program = find().ok_or_else(|| {
        Error::auth("the Azure CLI (az) is not installed")
            .with_hint("install it, or choose another sign-in method")
    })?;
    // The CLI is a Python program taking a second or more; it runs off the async workers.
    let output = tokio::task::spawn_blocking(move || {
        let mut command = Command::new(program);
        command.args([
            "account",
            "get-access-token",
            "--resource",
            resource.uri(),
            "--output",
            "json",
        ]);
        if let Some(tenant) = &tenant {
            command.args(["--tenant", tenant]);
        }
        command.output()
    })
    .await
    .map_err(|err| Error::runtime("running the Azure CLI failed").with_cause(err))?
    .map_err(|err| Error::auth("cannot run the Azure CLI").with_cause(err))?;
    if !output.status.success() {
        let said = String::from_utf8_lossy(&output.stderr);
        let first = said
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("no message");
        return Err(Error::auth("the Azure CLI gave no token")
            .with_cause(first.trim())
            .with_hint("sign in with `az login`"));
    }
    // The answer is all token: nothing of it goes into an error.
    let answer: Value = serde_json::from_slice(&output.stdout)
        .map_err(|_| Error::auth("the Azure CLI's answer is not JSON"))?;
    let access_token = answer["accessToken"]
        .as_str()
        .ok_or_else(|| Error::auth("the Azure CLI's answer has no accessToken"))?;
    // Newer CLIs give `expires_on` in Unix seconds; older ones only a local time, which is
    // treated as five minutes from now so the token is fetched again soon rather than late.
    let expires_on = answer["expires_on"]
        .as_i64()
        .or_else(|| answer["expires_on"].as_str().and_then(|s| s.parse().ok()))
        .unwrap_or_else(|| super::now_secs() + 300);
    Ok(TokenSet {
        access_token: Secret::new(access_token),
        expires_on,
        refresh_token: None,
    })
}
