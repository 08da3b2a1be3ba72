//! `fabsh auth login|status|logout|token`. Tokens never reach the terminal, except through
//! `auth token` into a pipe (or with `--show`); a secret is never a flag value.

mod login;

use crate::commands::args::Args;
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Needs, Traits,
};
use crate::commands::typed::{Command, FromArgs, handler, typed_args};
use crate::context::Ctx;
use crate::error::{Error, ErrorKind, Result};
use crate::output::Tracer;
use crate::reply::Reply;
use fabsh_api::api::normalize_endpoint;
use fabsh_api::auth::cache::TokenCache;
use fabsh_api::auth::chain;
use fabsh_api::auth::{Method, Secret, TokenProvider, claims};
use fabsh_api::config::Settings;
use serde_json::{Value, json};

/// Sign-ins and the token cache change; nothing is sent to the Fabric API.
const SIGN_IN: Traits = Traits::MUTATE.needs(Needs::Nothing);

/// Every `auth` command.
pub static COMMANDS: &[CommandSpec] = &[login::LOGIN, STATUS, LOGOUT, TOKEN];

const CHECK: ArgSpec = ArgSpec::opt(
    "check",
    ArgKind::Bool,
    "Exit non-zero (3) when not signed in, for scripts",
);
/// `--show` of a command whose result is a secret (`auth token`): print it even to a terminal.
pub const SHOW: ArgSpec = ArgSpec::opt("show", ArgKind::Bool, "Print the token even to a terminal");

const STATUS: CommandSpec = CommandSpec {
    group: "auth",
    name: "status",
    summary: "Show the credential source in effect, its tenant, principal and expiry (never the token)",
    about: "Signed out is an answer, not a failure (signedIn: false, exit 0), unless --check asks \
            for the exit code to tell. The answer is for the endpoint in use: a credential whose \
            tokens are not for it (a sign-in or FABSH_TOKEN for another endpoint; a service \
            principal, managed identity or the Azure CLI whose tokens are for another cloud or \
            server) is signedIn: false, with signedInFor naming where they go.",
    args: &[CHECK],
    traits: Traits::READ.needs(Needs::Nothing),
    columns: &[],
    examples: &[Example {
        command: "auth status",
        about: "where the credentials come from, for whom and until when",
    }],
    handler: Handler::Data(handler::<Status>),
};

const LOGOUT: CommandSpec = CommandSpec {
    group: "auth",
    name: "logout",
    summary: "Forget the profile's cached sign-in and tokens",
    about: "",
    args: &[],
    traits: SIGN_IN.void(),
    columns: &[],
    examples: &[Example {
        command: "auth logout",
        about: "forget the default profile's sign-in; the other credential sources still apply",
    }],
    handler: Handler::Data(handler::<Logout>),
};

const TOKEN: CommandSpec = CommandSpec {
    group: "auth",
    name: "token",
    summary: "Print a bearer token for other tools (only into a pipe, unless --show)",
    about: "",
    args: &[SHOW],
    traits: Traits::READ.needs(Needs::Nothing).secret(),
    columns: &[],
    examples: &[Example {
        command: "auth token --show",
        about: "a token for curl: curl -H \"Authorization: Bearer $(fabsh auth token)\" ...",
    }],
    handler: Handler::Data(handler::<Token>),
};

/// `auth` signs in to endpoints other than the in-process local Fabric, which needs none.
fn not_local(settings: &Settings) -> Result<()> {
    if settings.local {
        return Err(Error::usage(
            "--local signs in as local Fabric's admin by itself; `auth` is for other endpoints",
        )
        .with_hint("run `fabsh local serve` and point FABSH_ENDPOINT at it to sign in to it"));
    }
    Ok(())
}

fn merge(into: &mut Value, from: Value) {
    if let (Value::Object(into), Value::Object(from)) = (into, from) {
        into.extend(from);
    }
}

/// The credential in effect and a token from it.
async fn current(settings: &Settings) -> Result<(chain::Chosen, Secret)> {
    not_local(settings)?;
    let chosen = chain::choose(settings, settings.verbose.then_some(Tracer))?;
    let token = chosen.provider.token(false).await?;
    Ok((chosen, token))
}

typed_args! {
    /// `auth status`.
    struct Status {
        check: bool = CHECK,
    }
}

impl Command for Status {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let settings = ctx.settings();
            not_local(settings)?;
            let chosen = chain::choose(settings, settings.verbose.then_some(Tracer))?;
            if chosen.provider.source() == fabsh_api::auth::NoCredentials.source() {
                let signed_out = json!({
                    "profile": settings.profile_name(),
                    "signedIn": false,
                    "endpoint": settings.endpoint(),
                });
                if self.check {
                    return Err(chosen
                        .provider
                        .token(false)
                        .await
                        .err()
                        .unwrap_or_else(|| Error::auth("not signed in")));
                }
                return Ok(Reply::json(signed_out).with_note(
                    "not signed in: sign in with `fabsh auth login`, set FABSH_TOKEN to a bearer \
                 token, or use `fabsh --local ...` for local Fabric",
                ));
            }
            let mut out = json!({
                "profile": settings.profile_name(),
                "signedIn": true,
                "source": chosen.provider.source(),
                "method": chosen.method.map(Method::as_str),
                "endpoint": normalize_endpoint(&settings.endpoint())?.as_str(),
                "authorityHost": settings.authority_host().0,
            });
            if let Some(bound) = &chosen.bound {
                out["signedInFor"] = json!(bound.made_for());
                if let Some(host) = bound.authority_host() {
                    out["authorityHost"] = json!(host);
                }
                if !bound.holds() {
                    // Not signed in for this endpoint: nothing is asked of the credential.
                    if self.check {
                        return Err(bound.refusal());
                    }
                    out["signedIn"] = json!(false);
                    let refusal = bound.refusal();
                    let mut note = refusal.message.clone();
                    for hint in &refusal.hints {
                        note.push_str(&format!("; {hint}"));
                    }
                    return Ok(Reply::json(out).with_note(note));
                }
            }
            let token = match chosen.provider.token(false).await {
                Ok(token) => token,
                // Signed out (after `auth logout` the profile still names its method), or a
                // sign-in that no longer gives tokens: the same answer as never signed in, with
                // the reason; an error only under --check.
                Err(err) if err.kind == ErrorKind::Auth && !self.check => {
                    out["signedIn"] = json!(false);
                    let mut note = format!("not signed in: {}", err.message);
                    for hint in &err.hints {
                        note.push_str(&format!("; {hint}"));
                    }
                    return Ok(Reply::json(out).with_note(note));
                }
                Err(err) => return Err(err),
            };
            merge(&mut out, claims::describe(token.expose()));
            Ok(Reply::json(out))
        })
    }
}

/// `auth logout`: it takes no flags.
struct Logout;

impl FromArgs for Logout {
    fn from_args(_: &Args) -> Result<Self> {
        Ok(Logout)
    }
}

impl Command for Logout {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let settings = ctx.settings();
            not_local(settings)?;
            let profile = settings.profile_name();
            let note = if TokenCache::open().remove(&profile)? {
                format!("signed out of profile `{profile}`; its cached tokens are gone")
            } else {
                format!("profile `{profile}` was not signed in")
            };
            Ok(Reply::empty().with_note(note))
        })
    }
}

/// `auth token`. Its `--show` is the front ends' to read: they write the token only into a
/// pipe unless it is given (the command's `secret` trait).
struct Token;

impl FromArgs for Token {
    fn from_args(_: &Args) -> Result<Self> {
        Ok(Token)
    }
}

impl Command for Token {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let (_, token) = current(ctx.settings()).await?;
            Ok(Reply::text(format!("{}\n", token.expose())))
        })
    }
}
