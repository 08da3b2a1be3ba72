//! `item list-external-data-shares | create-external-data-share | show-external-data-share |
//! revoke-external-data-share | delete-external-data-share`: the provider side of external
//! data sharing. Every rule of a new share is checked before anything is sent.

use crate::commands::common::{self, ITEM, WORKSPACE};
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, Traits,
};
use crate::commands::typed::{Command, ItemTarget, Paging, handler, typed_args};
use crate::context::Ctx;
use crate::error::{Error, Result};
use crate::reply::Reply;
use fabsh_api::api::shares;
use fabsh_model::wire::{CreateExternalDataShareRequest, ShareRecipient};
use serde_json::Value;
use std::collections::HashSet;

/// Most paths one share carries.
const MAX_PATHS: usize = 100;
/// Longest user principal name the service takes.
const MAX_EMAIL: usize = 256;
/// The item folders a shared path may start in.
const SHARE_ROOTS: &[&str] = &["Files", "Tables"];

const SHARE_ID: ArgSpec = ArgSpec::req("share-id", ArgKind::Uuid, "External data share id");
const PATHS: ArgSpec = ArgSpec::opt(
    "paths",
    ArgKind::List,
    "Paths to share, comma-separated, each under Files/ or Tables/",
);
const RECIPIENT_TYPE: ArgSpec = ArgSpec::opt(
    "recipient-type",
    ArgKind::Enum(&["User", "ServicePrincipal"]),
    "Who receives the share",
)
.default("User");
const RECIPIENT_EMAIL: ArgSpec = ArgSpec::opt(
    "recipient-email",
    ArgKind::Str,
    "The recipient's user principal name (required for User)",
);
const RECIPIENT_ID: ArgSpec = ArgSpec::opt(
    "recipient-id",
    ArgKind::Uuid,
    "The service principal's (directory object) id (required for ServicePrincipal)",
);
const RECIPIENT_TENANT_ID: ArgSpec = ArgSpec::opt(
    "recipient-tenant-id",
    ArgKind::Uuid,
    "The recipient's tenant (required for ServicePrincipal, optional for User)",
);

pub(super) const LIST_EXTERNAL_DATA_SHARES: CommandSpec = CommandSpec {
    group: "item",
    name: "list-external-data-shares",
    summary: "List an item's external data shares",
    about: "The shares made from this item to other tenants, with their status (Pending, Active, Revoked, InvitationExpired).",
    args: &[WORKSPACE, ITEM],
    traits: Traits::LIST,
    columns: &[
        "id",
        "status",
        "paths",
        "recipient.type",
        "expirationTimeUtc",
    ],
    examples: &[Example {
        command: "item list-external-data-shares -w Demo --id SalesLakehouse",
        about: "the shares of a lakehouse",
    }],
    handler: Handler::Data(handler::<List>),
};

pub(super) const CREATE_EXTERNAL_DATA_SHARE: CommandSpec = CommandSpec {
    group: "item",
    name: "create-external-data-share",
    summary: "Share paths of an item with a user or service principal of another tenant",
    about: "Each path must start with Files/ or Tables/ and name something below that root (1 to 100 paths). A User recipient (the default) needs --recipient-email and may name its tenant; a ServicePrincipal recipient needs --recipient-id and --recipient-tenant-id. All of this is checked before anything is sent. The new share is Pending until the recipient accepts its invitation (the invitation id is the share id).",
    args: &[
        WORKSPACE,
        ITEM,
        PATHS,
        RECIPIENT_TYPE,
        RECIPIENT_EMAIL,
        RECIPIENT_ID,
        RECIPIENT_TENANT_ID,
    ],
    traits: Traits::MUTATE,
    columns: &[],
    examples: &[
        Example {
            command: "item create-external-data-share -w Demo --id SalesLakehouse --paths Tables/orders --recipient-email lisa@fabrikam.com",
            about: "one table with a user",
        },
        Example {
            command: "item create-external-data-share -w Demo --id SalesLakehouse --paths Files/exports --recipient-type ServicePrincipal --recipient-id \"$PARTNER_OBJECT_ID\" --recipient-tenant-id \"$PARTNER_TENANT_ID\"",
            about: "a folder with an app of another tenant",
        },
    ],
    handler: Handler::Data(handler::<Create>),
};

pub(super) const SHOW_EXTERNAL_DATA_SHARE: CommandSpec = CommandSpec {
    group: "item",
    name: "show-external-data-share",
    summary: "Show one external data share",
    about: "",
    args: &[WORKSPACE, ITEM, SHARE_ID],
    traits: Traits::READ,
    columns: &[],
    examples: &[Example {
        command: "item show-external-data-share -w Demo --id SalesLakehouse --share-id \"$SHARE_ID\" -q status",
        about: "its status",
    }],
    handler: Handler::Data(handler::<Show>),
};

pub(super) const REVOKE_EXTERNAL_DATA_SHARE: CommandSpec = CommandSpec {
    group: "item",
    name: "revoke-external-data-share",
    summary: "Revoke an external data share (irreversible)",
    about: "The recipient loses access at once and the share cannot be reactivated; share again to give access back. Prints the share afterwards (status Revoked). Asks for confirmation on a terminal unless --yes.",
    args: &[WORKSPACE, ITEM, SHARE_ID],
    traits: Traits::DESTRUCTIVE,
    columns: &[],
    examples: &[Example {
        command: "item revoke-external-data-share -w Demo --id SalesLakehouse --share-id \"$SHARE_ID\" --yes",
        about: "revoke without asking",
    }],
    handler: Handler::Data(handler::<Revoke>),
};

pub(super) const DELETE_EXTERNAL_DATA_SHARE: CommandSpec = CommandSpec {
    group: "item",
    name: "delete-external-data-share",
    summary: "Delete an external data share",
    about: "Asks for confirmation on a terminal unless --yes.",
    args: &[WORKSPACE, ITEM, SHARE_ID],
    traits: Traits::DESTRUCTIVE.void(),
    columns: &[],
    examples: &[Example {
        command: "item delete-external-data-share -w Demo --id SalesLakehouse --share-id \"$SHARE_ID\" --yes",
        about: "delete without asking",
    }],
    handler: Handler::Data(handler::<Delete>),
};

typed_args! {
    /// `item list-external-data-shares`.
    struct List {
        target: ItemTarget,
        paging: Paging,
    }
}

impl Command for List {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let (workspace, item) = self.target.resolve(&ctx).await?;
            let req = shares::list_req(&workspace, &item);
            common::paged_by(ctx.api(), req, &self.paging).await
        })
    }
}

typed_args! {
    /// One share of an item, by `--share-id` (show, revoke, delete).
    struct OneShare {
        target: ItemTarget,
        share: String = SHARE_ID,
    }
}

typed_args! {
    /// `item show-external-data-share`.
    struct Show {
        share: OneShare,
    }
}

impl Command for Show {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let OneShare { target, share } = self.share;
            let (workspace, item) = target.resolve(&ctx).await?;
            let share: Value = shares::get(ctx.api(), &workspace, &item, &share).await?;
            Ok(Reply::json(share))
        })
    }
}

typed_args! {
    /// `item create-external-data-share`.
    struct Create {
        target: ItemTarget,
        paths: Vec<String> = PATHS,
        recipient: Recipient,
    }
}

impl Command for Create {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let body = self.share_body()?;
            let (workspace, item) = self.target.resolve(&ctx).await?;
            let share = shares::create(ctx.api(), &workspace, &item, &body).await?;
            Ok(Reply::json(share))
        })
    }
}

typed_args! {
    /// `item revoke-external-data-share`.
    struct Revoke {
        share: OneShare,
    }
}

impl Command for Revoke {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let OneShare { target, share } = self.share;
            let (workspace, item) = target.resolve(&ctx).await?;
            shares::revoke(ctx.api(), &workspace, &item, &share).await?;
            let share: Value = shares::get(ctx.api(), &workspace, &item, &share).await?;
            Ok(Reply::json(share))
        })
    }
}

typed_args! {
    /// `item delete-external-data-share`.
    struct Delete {
        share: OneShare,
    }
}

impl Command for Delete {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let OneShare { target, share } = self.share;
            let (workspace, item) = target.resolve(&ctx).await?;
            shares::delete(ctx.api(), &workspace, &item, &share).await?;
            Ok(Reply::empty())
        })
    }
}

impl Create {
    /// The create body `{paths, recipient}` in the shape the live service takes (a recipient
    /// discriminated by `type`; the older `{tenantId, objectId, recipientType}` fails there).
    fn share_body(&self) -> Result<CreateExternalDataShareRequest> {
        Ok(CreateExternalDataShareRequest {
            paths: checked_paths(&self.paths)?,
            recipient: self.recipient.body()?,
        })
    }
}

/// `--paths`: 1 to 100 distinct paths, each below `Files/` or `Tables/`.
fn checked_paths(paths: &[String]) -> Result<Vec<String>> {
    if paths.is_empty() {
        return Err(Error::usage("--paths: give at least one path to share")
            .with_hint("for example --paths Tables/sales,Files/exports"));
    }
    if paths.len() > MAX_PATHS {
        return Err(Error::usage(format!(
            "--paths: {} paths given; a share carries at most {MAX_PATHS}",
            paths.len()
        )));
    }
    let mut seen = HashSet::new();
    for path in paths {
        let (root, rest) = path.split_once('/').unwrap_or((path, ""));
        if !SHARE_ROOTS.contains(&root) {
            return Err(Error::usage(format!(
                "--paths: {path:?} must start with Files/ or Tables/"
            )));
        }
        if rest.trim_matches('/').is_empty() {
            return Err(Error::usage(format!(
                "--paths: {path:?} is the {root} root itself; share a folder, file or table below it"
            )));
        }
        if rest
            .split('/')
            .any(|segment| segment == "." || segment == "..")
        {
            return Err(Error::usage(format!(
                "--paths: {path:?} may not contain `.` or `..`"
            )));
        }
        if !seen.insert(path.as_str()) {
            return Err(Error::usage(format!("--paths: {path:?} is given twice")));
        }
    }
    Ok(paths.to_vec())
}

typed_args! {
    /// `--recipient-*`: who receives a new share.
    struct Recipient {
        // Always given: the flag has a default.
        recipient_type: String = RECIPIENT_TYPE,
        email: Option<String> = RECIPIENT_EMAIL,
        id: Option<String> = RECIPIENT_ID,
        tenant: Option<String> = RECIPIENT_TENANT_ID,
    }
}

impl Recipient {
    /// `{type: User, userPrincipalName, tenantId?}` or
    /// `{type: ServicePrincipal, principalId, tenantId}`.
    fn body(&self) -> Result<ShareRecipient> {
        let email = self.email.as_deref().map(str::trim);
        let id = self.id.as_deref();
        let tenant = self.tenant.as_deref();
        if self.recipient_type == "ServicePrincipal" {
            if email.is_some() {
                return Err(Error::usage(
                    "--recipient-email names a User recipient; a service principal is named by --recipient-id",
                ));
            }
            let id = id.ok_or_else(|| {
                Error::usage("--recipient-id is required for --recipient-type ServicePrincipal")
                    .with_hint("give the service principal's object id in its own tenant")
            })?;
            let tenant = tenant.ok_or_else(|| {
                Error::usage(
                    "--recipient-tenant-id is required for --recipient-type ServicePrincipal",
                )
            })?;
            return Ok(ShareRecipient::service_principal(id, tenant));
        }
        if id.is_some() {
            return Err(Error::usage(
                "--recipient-id is for --recipient-type ServicePrincipal; a User recipient is named by --recipient-email",
            ));
        }
        let email = email.filter(|e| !e.is_empty()).ok_or_else(|| {
            Error::usage("--recipient-email is required for --recipient-type User (the default)")
        })?;
        let length = email.chars().count();
        if length > MAX_EMAIL {
            return Err(Error::usage(format!(
                "--recipient-email is {length} characters; the limit is {MAX_EMAIL}"
            )));
        }
        let looks_like_email = email
            .split_once('@')
            .is_some_and(|(user, domain)| !user.is_empty() && domain.contains('.'))
            && !email.contains(char::is_whitespace);
        if !looks_like_email {
            return Err(Error::usage(format!(
                "--recipient-email: {email:?} is not an email address (user@domain)"
            )));
        }
        Ok(ShareRecipient::user(email, tenant))
    }
}

#[cfg(test)]
mod tests {
    use super::checked_paths;

    fn paths(list: &[&str]) -> Vec<String> {
        list.iter().map(std::string::ToString::to_string).collect()
    }

    #[test]
    fn paths_must_be_below_files_or_tables() {
        assert!(checked_paths(&paths(&["Tables/sales", "Files/a/b.csv"])).is_ok());
        for bad in [
            "files/x",
            "Tables",
            "Tables/",
            "Files//",
            "Other/x",
            "Files/../x",
        ] {
            assert!(checked_paths(&paths(&[bad])).is_err(), "{bad}");
        }
        assert!(checked_paths(&paths(&["Files/a", "Files/a"])).is_err());
        assert!(checked_paths(&[]).is_err());
        let many: Vec<String> = (0..101).map(|i| format!("Files/{i}")).collect();
        assert!(checked_paths(&many).is_err());
    }
}
