//! `data-agent query | mcp-url`: ask a published agent a question over MCP, optionally in a
//! thread fabsh keeps, with the run steps and files of its Assistants-compatible surface when
//! the endpoint offers them; and the agent's MCP endpoint.

use super::{AGENT, AgentTarget};
use crate::commands::common::WORKSPACE;
use crate::commands::spec::{
    ArgKind, ArgSpec, CommandSpec, Example, Handler, HandlerFuture, LocalPath, Traits,
};
use crate::commands::typed::{Command, handler, typed_args};
use crate::context::Ctx;
use crate::error::{Error, ErrorKind, Result};
use crate::reply::Reply;
use fabsh_api::agent::{assistants, downloads, mcp, threads};
use fabsh_api::api::data_agents::{Agent, Stage};
use serde_json::{Map, Value, json};
use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::time::Duration;

/// `--stage` of query and evaluate: only the published agent answers.
pub(super) const QUERY_STAGE: ArgSpec = ArgSpec::opt(
    "stage",
    ArgKind::Str,
    "Which agent answers: only production (the published agent) can be queried",
)
.default("production");
/// `--timeout` of query and evaluate.
pub(super) const TIMEOUT: ArgSpec = ArgSpec::opt(
    "timeout",
    ArgKind::Int,
    "Seconds to wait for an answer (per question run)",
)
.at_least(1)
.default("300");
/// `--published-url`: an MCP server to ask instead of the agent's own endpoint.
pub const PUBLISHED_URL: ArgSpec = ArgSpec::opt(
    "published-url",
    ArgKind::Str,
    "Ask this MCP server URL directly (as `mcp-url` prints it)",
);
/// `--show-steps`: the generated queries of each step.
pub(super) const SHOW_STEPS: ArgSpec = ArgSpec::opt(
    "show-steps",
    ArgKind::Bool,
    "Add the run's steps with the SQL/DAX/KQL/GQL they generated (needs the Assistants-compatible endpoint, which the service retired; on local Fabric only with `local serve --legacy-assistants true`)",
);
/// `--keep-thread`: keep the conversation for follow-ups.
pub(super) const KEEP_THREAD: ArgSpec = ArgSpec::opt(
    "keep-thread",
    ArgKind::Bool,
    "Keep this turn in a new local thread and print its threadId",
);
/// `--download-files`: where files the answer references go.
pub(super) const DOWNLOAD_FILES: ArgSpec = ArgSpec::opt(
    "download-files",
    ArgKind::Str,
    "Write the files the answer references into this directory (needs the Assistants-compatible endpoint)",
)
.local(LocalPath::WriteDir);

const PROMPT: ArgSpec = ArgSpec::opt(
    "prompt",
    ArgKind::Str,
    "The question (omitted: read from stdin)",
);
const RAW: ArgSpec = ArgSpec::opt(
    "raw",
    ArgKind::Bool,
    "Add the tool's raw result: every content block and structuredContent",
);
const THREAD_ID: ArgSpec = ArgSpec::opt(
    "thread-id",
    ArgKind::Str,
    "Continue this local thread: the agent gets its earlier turns as context",
);

pub(super) const QUERY: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "query",
    summary: "Ask a published agent a question (MCP), optionally in a thread kept by fabsh",
    about: "Sends the question to the agent's MCP tool (initialize, tools/list, tools/call with userQuestion); without --prompt the question is read from piped stdin. Threads are fabsh's own, one file each in the state dir (mode 0600): --keep-thread starts one, --thread-id continues it. A follow-up sends one question text: \"Earlier in this conversation:\", then a \"Q: <question>\" and \"A: <answer>\" line for each of the last 10 turns (answers cut to 4,000 characters), a blank line, \"Answer this follow-up question in the light of the conversation above:\" and the new question. --show-steps and --download-files ask the agent's Assistants-compatible endpoint, which has run steps and files; the service retired it on 2026-08-26 (local Fabric keeps it with `local serve --legacy-assistants true`), and when it answers any 4xx the answer comes over MCP and stderr says which of steps and files are not available.",
    args: &[
        WORKSPACE,
        AGENT,
        PROMPT,
        PUBLISHED_URL,
        RAW,
        QUERY_STAGE,
        TIMEOUT,
        KEEP_THREAD,
        THREAD_ID,
        SHOW_STEPS,
        DOWNLOAD_FILES,
    ],
    traits: Traits::READ,
    columns: &[],
    examples: &[
        Example {
            command: "data-agent query -w Demo --id \"Sales agent\" --prompt \"How many orders are there?\" --keep-thread",
            about: "ask, keeping the thread for follow-ups",
        },
        Example {
            command: "data-agent query -w Demo --id \"Sales agent\" --thread-id \"$THREAD_ID\" --prompt \"and in Germany?\"",
            about: "a follow-up in that thread",
        },
    ],
    handler: Handler::Data(handler::<Query>),
};

pub(super) const MCP_URL: CommandSpec = CommandSpec {
    group: "data-agent",
    name: "mcp-url",
    summary: "Show the MCP endpoint of a published agent",
    about: "The URL MCP clients (and `query --published-url`) use. The published settings are read to check the agent is published; an unpublished agent is an error (exit 4).",
    args: &[WORKSPACE, AGENT],
    traits: Traits::READ,
    columns: &[],
    examples: &[Example {
        command: "data-agent mcp-url -w Demo --id \"Sales agent\"",
        about: "for an MCP client's configuration",
    }],
    handler: Handler::Data(handler::<McpUrl>),
};

/// Refuses any stage but the published one (`--stage`), before anything is sent.
pub(super) fn check_stage(stage: Option<&str>) -> Result<()> {
    let stage = stage.unwrap_or("production").trim();
    if stage.eq_ignore_ascii_case("production") || stage.eq_ignore_ascii_case("published") {
        return Ok(());
    }
    Err(Error::usage(format!(
        "--stage {stage:?}: only the published agent (production) can be queried"
    ))
    .with_hint("publish the draft with `fabsh data-agent publish`, then query it"))
}

/// `--timeout` as a duration; zero or less is a usage error.
pub(super) fn timeout(secs: Option<i64>) -> Result<Duration> {
    match secs.unwrap_or(300) {
        secs if secs >= 1 => Ok(Duration::from_secs(secs as u64)),
        secs => Err(Error::usage(format!(
            "--timeout must be at least 1 second, got {secs}"
        ))),
    }
}

/// The question: `--prompt`, else piped stdin (a terminal is not read: it would wait).
fn question(prompt: Option<&str>) -> Result<String> {
    let text = match prompt {
        Some(prompt) => prompt.to_string(),
        None if std::io::stdin().is_terminal() => {
            return Err(Error::usage(
                "no question: give --prompt, or pipe the question on stdin",
            ));
        }
        None => {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text).map_err(|err| {
                Error::usage("cannot read the question from stdin").with_cause(err)
            })?;
            text
        }
    };
    let text = text.trim().to_string();
    if text.is_empty() {
        return Err(Error::usage("the question is empty")
            .with_hint("give --prompt, or pipe the question on stdin"));
    }
    Ok(text)
}

/// The endpoint to ask and, unless `--published-url` names one, the agent it belongs to.
async fn target(
    ctx: &Ctx,
    published_url: Option<&str>,
    agent: &AgentTarget,
) -> Result<(String, Option<Agent>)> {
    if let Some(url) = published_url {
        let url = url.trim();
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(Error::usage(format!(
                "--published-url must be an http(s) URL, got {url:?}"
            )));
        }
        return Ok((url.to_string(), None));
    }
    let agent = agent.resolve(ctx).await?;
    Ok((mcp::endpoint_path(&agent.workspace, &agent.id), Some(agent)))
}

typed_args! {
    /// `data-agent query`.
    struct Query {
        target: AgentTarget,
        prompt: Option<String> = PROMPT,
        published_url: Option<String> = PUBLISHED_URL,
        raw: bool = RAW,
        stage: Option<String> = QUERY_STAGE,
        timeout: Option<i64> = TIMEOUT,
        keep_thread: bool = KEEP_THREAD,
        thread_id: Option<String> = THREAD_ID,
        show_steps: bool = SHOW_STEPS,
        download_files: Option<String> = DOWNLOAD_FILES,
    }
}

impl Command for Query {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            check_stage(self.stage.as_deref())?;
            let limit = timeout(self.timeout)?;
            if self.keep_thread && self.thread_id.is_some() {
                return Err(Error::usage(
                "give --keep-thread (start a new thread) or --thread-id (continue one), not both",
            )
            .with_hint("a turn with --thread-id is kept in that thread already"));
            }
            let continued = match &self.thread_id {
                Some(id) => Some(threads::Thread::load(&threads::check_id(id)?)?),
                None => None,
            };
            let downloads = self
                .download_files
                .as_deref()
                .map(downloads::check_dir)
                .transpose()?;
            let question = question(self.prompt.as_deref())?;
            let (url, agent) = target(&ctx, self.published_url.as_deref(), &self.target).await?;
            let mut thread = continued.or_else(|| {
                self.keep_thread
                    .then(|| threads::Thread::new(&self.target.workspace, &self.target.agent, &url))
            });
            let sent = thread
                .as_ref()
                .map_or_else(|| question.clone(), |t| t.prompt(&question));
            let wants_steps = self.show_steps;
            let asked = ask(
                &ctx,
                &url,
                agent.as_ref(),
                &sent,
                wants_steps,
                downloads.as_ref(),
                limit,
            );
            let answered = tokio::time::timeout(limit, asked).await.map_err(|_| {
                Error::new(
                    ErrorKind::Timeout,
                    format!("the agent did not answer within {} s", limit.as_secs()),
                )
                .with_hint("raise --timeout")
            })??;
            let mut out = Map::new();
            out.insert("question".into(), json!(question));
            out.insert("answer".into(), json!(answered.answer));
            out.insert("tool".into(), json!(answered.tool));
            if let Some(thread) = &mut thread {
                thread.push(&question, &answered.answer)?;
                thread.save()?;
                out.insert("threadId".into(), json!(thread.thread_id));
            }
            if wants_steps {
                out.insert(
                    "steps".into(),
                    answered.steps.clone().map_or(Value::Null, Value::Array),
                );
            }
            if downloads.is_some() {
                out.insert(
                    "files".into(),
                    answered.files.clone().map_or(Value::Null, Value::Array),
                );
            }
            let mut notes = Vec::new();
            if let Some(why) = &answered.unavailable {
                let note = unavailable_note(wants_steps, downloads.is_some(), why);
                out.insert("note".into(), json!(note));
                notes.push(note);
            }
            if self.raw {
                out.insert("raw".into(), answered.raw.clone());
            }
            let plain = !wants_steps && downloads.is_none() && !self.raw;
            let thread_id = out
                .get("threadId")
                .and_then(Value::as_str)
                .map(String::from);
            let mut reply = Reply::json(Value::Object(out));
            if plain {
                // At a terminal a person reads the answer; pipes and -o json get the object.
                reply = reply.with_text(format!("{}\n", answered.answer.trim_end()));
                if let Some(id) = thread_id {
                    notes.push(format!(
                        "thread {id}: ask a follow-up with --thread-id {id}"
                    ));
                }
            }
            for note in notes {
                reply = reply.with_note(note);
            }
            Ok(reply)
        })
    }
}

/// Says plainly which of the asked-for extras could not be had, and why: only the agent's
/// Assistants-compatible endpoint (retired by the service) has run steps and files.
fn unavailable_note(wants_steps: bool, wants_files: bool, why: &str) -> String {
    let what = match (wants_steps, wants_files) {
        (true, true) => "--show-steps and --download-files: run steps and files are",
        (true, false) => "--show-steps: run steps are",
        _ => "--download-files: files are",
    };
    format!(
        "{what} not available; only the agent's Assistants-compatible endpoint has them, and it \
         answered: {why}. The answer came over MCP"
    )
}

/// What one question got.
struct Answered {
    answer: String,
    tool: String,
    raw: Value,
    steps: Option<Vec<Value>>,
    files: Option<Vec<Value>>,
    /// Why steps and files could not be had, when they were asked for.
    unavailable: Option<String>,
}

async fn ask(
    ctx: &Ctx,
    url: &str,
    agent: Option<&Agent>,
    sent: &str,
    wants_steps: bool,
    downloads: Option<&PathBuf>,
    limit: Duration,
) -> Result<Answered> {
    let mut unavailable = None;
    if wants_steps || downloads.is_some() {
        let surface = assistants::surface_for(agent, url);
        match surface {
            Some(surface) => match assistants::ask(ctx.api(), &surface, sent).await {
                Ok(run) => {
                    let files = match downloads {
                        Some(dir) => Some(
                            downloads::fetch_all(ctx.api(), &surface, &run.file_ids, dir).await,
                        ),
                        None => None,
                    };
                    return Ok(Answered {
                        answer: run.answer,
                        tool: "assistants".to_string(),
                        raw: run.raw,
                        steps: Some(run.steps),
                        files,
                        unavailable: None,
                    });
                }
                Err(err) if assistants::is_not_offered(&err) => {
                    unavailable = Some(err.message.clone());
                }
                Err(err) => return Err(err),
            },
            None => {
                unavailable = Some("--published-url names no Fabric agent endpoint".to_string());
            }
        }
    }
    let session = mcp::session(ctx.api(), url, limit).await?;
    let raw = mcp::ask(ctx.api(), url, sent, limit).await?;
    Ok(Answered {
        answer: mcp::answer_text(&raw)?,
        tool: session.tool.clone(),
        raw,
        steps: None,
        files: None,
        unavailable,
    })
}

typed_args! {
    /// `data-agent mcp-url`.
    struct McpUrl {
        target: AgentTarget,
    }
}

impl Command for McpUrl {
    fn run(self, ctx: Ctx) -> HandlerFuture {
        Box::pin(async move {
            let agent = self.target.resolve(&ctx).await?;
            let url = format!(
                "{}{}",
                ctx.api().base().as_str().trim_end_matches('/'),
                mcp::endpoint_path(&agent.workspace, &agent.id)
            );
            match agent.settings(ctx.api(), Stage::Published).await {
                Ok(_) => Ok(Reply::json(
                    json!({"id": agent.id, "mcpUrl": url, "published": true}),
                )),
                Err(err) if err.has_code("DataAgentNotPublished") || err.status == Some(404) => {
                    Err(Error::not_found(
                        "the data agent is not published, so it has no MCP endpoint yet",
                    )
                    .with_code("DataAgentNotPublished")
                    .with_hint("publish it with `fabsh data-agent publish`"))
                }
                Err(err) => Err(err),
            }
        })
    }
}
