//! `onelake ls | cat | head`: what is at a OneLake path.

use super::{HEAD_BYTES, LINES, LONG, PATH, RECURSIVE, lake_path, not_text};
use crate::commands::spec::HandlerFuture;
use crate::commands::typed::{Command, typed_args};
use crate::context::Ctx;
use crate::error::Error;
use crate::reply::Reply;

typed_args! {
    /// `onelake ls`.
    pub(super) struct Ls {
        path: String = PATH,
        recursive: bool = RECURSIVE,
        long: bool = LONG,
    }
}

impl Command for Ls {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let path = lake_path(&ctx, &self.path, "PATH").await?;
            let mut entries = ctx.onelake()?.list(&path, self.recursive).await?;
            if self.long {
                for entry in &mut entries {
                    entry.name.clone_from(&entry.path);
                }
            }
            Ok(Reply::json(
                serde_json::to_value(entries).map_err(Error::from)?,
            ))
        })
    }
}

typed_args! {
    /// `onelake cat`.
    pub(super) struct Cat {
        path: String = PATH,
    }
}

impl Command for Cat {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let path = lake_path(&ctx, &self.path, "PATH").await?;
            let bytes = ctx.onelake()?.read(&path, None).await?;
            let text = String::from_utf8(bytes).map_err(|_| not_text(&path))?;
            Ok(Reply::text(text))
        })
    }
}

typed_args! {
    /// `onelake head`.
    pub(super) struct Head {
        path: String = PATH,
        lines: Option<i64> = LINES,
    }
}

impl Command for Head {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let path = lake_path(&ctx, &self.path, "PATH").await?;
            let bytes = ctx.onelake()?.read(&path, Some(HEAD_BYTES)).await?;
            // The range may end inside a character: only what is whole is text.
            let text = match std::str::from_utf8(&bytes) {
                Ok(text) => std::borrow::Cow::Borrowed(text),
                // Valid up to there, so nothing is replaced.
                Err(err) if err.error_len().is_none() => {
                    String::from_utf8_lossy(&bytes[..err.valid_up_to()])
                }
                Err(_) => return Err(not_text(&path)),
            };
            let wanted = self
                .lines
                .map_or(10, |n| usize::try_from(n).unwrap_or(usize::MAX));
            let head: String = text.split_inclusive('\n').take(wanted).collect();
            Ok(Reply::text(head))
        })
    }
}
