//! A chat-completions client for a language model: the judge of `evaluate` and
//! `validate-fewshots`, and local Fabric's NL-to-SQL. Two endpoint shapes: an Azure OpenAI
//! resource URL, or an OpenAI-compatible base URL (`{endpoint}/chat/completions`, key as a
//! bearer, model in the body). Azure OpenAI is reached through its v1 API
//! (`{endpoint}/openai/v1/chat/completions`, the deployment as the model, no api-version),
//! or through a dated api-version (`{endpoint}/openai/deployments/{model}/chat/completions`)
//! when one is given or the endpoint names a deployment. Its key goes in `api-key`; without a
//! key, an Entra token for Cognitive Services (from the caller's credential chain, see
//! [`EntraTokens`]) goes in `Authorization`. Answers are asked for as JSON and read
//! leniently. 429 and 5xx answers are retried. Keys and tokens are [`Secret`]s: sent in a
//! header and nowhere else.

use crate::retry;
use crate::{Error, ErrorKind};
use fabsh_model::Secret;
use fabsh_model::agent::language_model::{JsonChat, JsonReply};
use reqwest::Url;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

/// The judge endpoint variable.
pub const ENDPOINT_VAR: &str = "FABSH_LLM_ENDPOINT";
/// The judge key variable.
pub const KEY_VAR: &str = "FABSH_LLM_KEY";
/// The judge model (Azure: deployment) variable.
pub const MODEL_VAR: &str = "FABSH_LLM_MODEL";
/// The Azure OpenAI API used unless told: the versionless v1 API (GA since August 2025).
pub const DEFAULT_API_VERSION: &str = "v1";
/// The latest dated GA api-version, for endpoints that name a deployment: those paths have
/// no v1 form.
pub const LATEST_DATED_API_VERSION: &str = "2024-10-21";
/// The refusal of an Azure OpenAI endpoint that names no deployment.
const NO_DEPLOYMENT: &str =
    "an Azure OpenAI endpoint needs the deployment: give --llm-model (or FABSH_LLM_MODEL)";

/// Attempts per completion when the model answers 429 or 5xx.
const MAX_ATTEMPTS: u32 = 5;

type Result<T, E = Error> = std::result::Result<T, E>;

/// A variable's value, unless it is unset or blank.
fn env_text(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .filter(|value| !value.trim().is_empty())
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Invalid, message)
}

fn failed(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Failed, message)
}

/// Where a keyless Azure OpenAI model's bearer tokens come from: Entra tokens for the
/// Cognitive Services resource, from whatever credential the caller signs in with.
pub trait EntraTokens: Send + Sync {
    /// A token for the next request.
    fn token(&self) -> Pin<Box<dyn Future<Output = Result<Secret>> + Send + '_>>;
}

/// Where a model is and how to reach it.
#[derive(Debug, Clone)]
pub struct LlmConfig {
    /// An Azure OpenAI resource URL or an OpenAI-compatible base URL.
    pub endpoint: Url,
    /// The key, if the endpoint needs one.
    pub key: Option<Secret>,
    /// The model (Azure: the deployment name).
    pub model: Option<String>,
    /// The Azure OpenAI API version: `v1`, or a dated one (`2024-10-21`).
    pub api_version: String,
}

impl LlmConfig {
    /// From flag values falling back to `FABSH_LLM_*`; `None` when no endpoint is set. A bad
    /// URL, or an Azure endpoint without a deployment, is a usage error.
    pub fn resolve(
        endpoint: Option<&str>,
        key: Option<&str>,
        model: Option<&str>,
        api_version: Option<&str>,
    ) -> Result<Option<LlmConfig>> {
        let given = |flag: Option<&str>, var: &str| {
            flag.map(str::to_string)
                .filter(|text| !text.trim().is_empty())
                .or_else(|| env_text(var))
        };
        let Some(endpoint) = given(endpoint, ENDPOINT_VAR) else {
            return Ok(None);
        };
        let url = Url::parse(endpoint.trim())
            .ok()
            .filter(|url| matches!(url.scheme(), "http" | "https"))
            .ok_or_else(|| invalid(format!("--llm-endpoint {endpoint:?} is not an http(s) URL")))?;
        let config = LlmConfig {
            endpoint: url,
            key: given(key, KEY_VAR).map(Secret::new),
            model: given(model, MODEL_VAR),
            api_version: api_version.unwrap_or(DEFAULT_API_VERSION).to_string(),
        };
        if config.is_azure() && config.model.is_none() && !config.names_deployment() {
            return Err(invalid(NO_DEPLOYMENT));
        }
        Ok(Some(config))
    }

    /// From `FABSH_LLM_*` alone (local Fabric's model); a bad value is reported, not fatal.
    pub fn from_env() -> std::result::Result<Option<LlmConfig>, String> {
        Self::resolve(None, None, None, None).map_err(|err| err.to_string())
    }

    /// Whether requests need an Entra token: an Azure OpenAI endpoint given no key.
    pub fn needs_entra(&self) -> bool {
        self.is_azure() && self.key.is_none()
    }

    /// An Azure host, or a path only Azure OpenAI has (a deployment, or its v1 API).
    fn is_azure(&self) -> bool {
        self.endpoint
            .host_str()
            .is_some_and(|host| host.ends_with(".azure.com"))
            || self.names_deployment()
            || self.endpoint.path().contains("/openai/v1/")
    }

    fn names_deployment(&self) -> bool {
        self.endpoint.path().contains("/openai/deployments/")
    }

    /// The chat-completions URL.
    pub fn chat_url(&self) -> Result<Url> {
        let base = self.endpoint.as_str().trim_end_matches('/');
        let v1 = self.api_version == DEFAULT_API_VERSION;
        let text = if base.ends_with("/chat/completions") {
            base.to_string()
        } else if self.names_deployment() {
            format!("{base}/chat/completions")
        } else if self.is_azure() && v1 {
            format!("{base}/openai/v1/chat/completions")
        } else if self.is_azure() {
            // A judge always names its model (it is checked when configured); a configuration
            // built without one has no deployment URL.
            let Some(model) = self.model.as_deref() else {
                return Err(invalid(NO_DEPLOYMENT));
            };
            format!("{base}/openai/deployments/{model}/chat/completions")
        } else {
            format!("{base}/chat/completions")
        };
        let mut url = Url::parse(&text)
            .map_err(|err| invalid(format!("bad model endpoint {text}: {err}")))?;
        let dated = self.is_azure() && !url.path().contains("/openai/v1/");
        if dated && !url.query_pairs().any(|(key, _)| key == "api-version") {
            let version = if v1 {
                LATEST_DATED_API_VERSION
            } else {
                &self.api_version
            };
            url.query_pairs_mut().append_pair("api-version", version);
        }
        Ok(url)
    }

    /// How the model is named in output: the model, else the endpoint's host.
    pub fn label(&self) -> String {
        self.model
            .clone()
            .unwrap_or_else(|| self.endpoint.host_str().unwrap_or("model").to_string())
    }
}

/// A client for one model.
#[derive(Clone, Debug)]
pub struct LlmClient {
    http: reqwest::Client,
    config: LlmConfig,
    url: Url,
    entra: Option<Arc<dyn EntraTokens>>,
}

impl std::fmt::Debug for dyn EntraTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EntraTokens")
    }
}

/// What local Fabric's agents ask of a model (they see only the message of a failure).
impl JsonChat for LlmClient {
    fn chat_json<'a>(&'a self, system: &'a str, user: &'a str) -> JsonReply<'a> {
        Box::pin(async move {
            LlmClient::chat_json(self, system, user)
                .await
                .map_err(|err| err.problem.message)
        })
    }
}

impl LlmClient {
    /// A client; the URL is worked out now so a bad one fails before any work.
    pub fn new(config: LlmConfig) -> Result<LlmClient> {
        let http = crate::client(config.endpoint.scheme() == "http")?;
        let url = config.chat_url()?;
        Ok(LlmClient {
            http,
            config,
            url,
            entra: None,
        })
    }

    /// The client sending `tokens`' Entra tokens when its configuration has no key.
    pub fn with_entra(mut self, tokens: Arc<dyn EntraTokens>) -> LlmClient {
        self.entra = Some(tokens);
        self
    }

    /// The model's configuration.
    pub fn config(&self) -> &LlmConfig {
        &self.config
    }

    /// Asks for a JSON object: `system` says what to do, `user` holds the material. The reply
    /// is read leniently (code fences, text around the object).
    /// Temperature 0 (for steady verdicts) is sent only to models that take it: reasoning
    /// models (o-series, gpt-5.x) answer 400 to any temperature but their default. An Azure
    /// deployment's name need not say what model it runs, so a 400 that names
    /// `temperature` is answered by asking once more without it.
    pub async fn chat_json(&self, system: &str, user: &str) -> Result<Value> {
        let mut body = ChatRequest {
            messages: [
                ChatMessage {
                    role: "system",
                    content: system,
                },
                ChatMessage {
                    role: "user",
                    content: user,
                },
            ],
            response_format: ResponseFormat {
                kind: "json_object",
            },
            model: self.config.model.as_deref(),
            temperature: takes_temperature(self.config.model.as_deref()).then_some(0),
        };
        let reply = match self.send(&body).await? {
            Answer::Reply(reply) => reply,
            Answer::Refused { status, text }
                if status == 400 && body.temperature.is_some() && refuses_temperature(&text) =>
            {
                body.temperature = None;
                self.send(&body).await?.into_reply(self)?
            }
            refused => refused.into_reply(self)?,
        };
        let content = serde_json::from_value::<ChatReply>(reply)
            .ok()
            .and_then(|reply| reply.choices.into_iter().next())
            .and_then(|choice| choice.message.content)
            .ok_or_else(|| failed("the model's reply has no message content"))?;
        let content = content.as_str();
        json_object_in(content).ok_or_else(|| {
            failed("the model did not answer with a JSON object")
                .with_cause(content.chars().take(200).collect::<String>())
        })
    }

    /// Posts `body`, retrying 429, 5xx and lost connections; any other answer is returned.
    async fn send(&self, body: &ChatRequest<'_>) -> Result<Answer> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let mut request = self
                .http
                .post(self.url.clone())
                .timeout(Duration::from_secs(120))
                .json(body);
            if let Some(key) = &self.config.key {
                request = if self.config.is_azure() {
                    request.header("api-key", key.expose())
                } else {
                    request.bearer_auth(key.expose())
                };
            } else if let Some(tokens) = &self.entra {
                request = request.bearer_auth(tokens.token().await?.expose());
            }
            let (status, wait, text) = match request.send().await {
                Ok(response) => {
                    let status = response.status().as_u16();
                    let wait = retry::retry_after(response.headers());
                    match response.text().await {
                        Ok(text) => (status, wait, self.redacted(text)),
                        // A body cut off on the way is a lost connection: retried like one.
                        Err(_) if attempt < MAX_ATTEMPTS => {
                            tokio::time::sleep(retry::backoff(attempt)).await;
                            continue;
                        }
                        Err(err) => {
                            return Err(failed(format!(
                                "the model at {} answered {status}, but its body could not be read",
                                self.host()
                            ))
                            .with_cause(err.without_url()));
                        }
                    }
                }
                Err(err) if attempt < MAX_ATTEMPTS => {
                    let _ = err;
                    tokio::time::sleep(retry::backoff(attempt)).await;
                    continue;
                }
                Err(err) => {
                    return Err(
                        failed(format!("the model at {} did not answer", self.host()))
                            .with_cause(err.without_url()),
                    );
                }
            };
            match status {
                200..=299 => {
                    return serde_json::from_str(&text)
                        .map(Answer::Reply)
                        .map_err(|err| {
                            failed("the model answered with invalid JSON").with_cause(err)
                        });
                }
                429 | 500..=599 if attempt < MAX_ATTEMPTS => {
                    tokio::time::sleep(wait.unwrap_or_else(|| retry::backoff(attempt))).await;
                }
                _ => return Ok(Answer::Refused { status, text }),
            }
        }
    }

    /// The error for a refusal the caller did not handle.
    fn refusal(&self, status: u16, text: &str) -> Error {
        let message = error_of(text)
            .and_then(|error| error.message)
            .unwrap_or_else(|| text.chars().take(200).collect());
        let kind = if matches!(status, 401 | 403) {
            ErrorKind::Auth
        } else {
            ErrorKind::Refused
        };
        Error::new(
            kind,
            format!("the model at {} answered {status}: {message}", self.host()),
        )
        .with_hint(if self.entra.is_some() && self.config.key.is_none() {
            "without --llm-key the judge is called with your Entra sign-in: it needs the Cognitive Services OpenAI User role on the resource, or give --llm-key"
        } else {
            "check --llm-endpoint, --llm-key and --llm-model (or FABSH_LLM_*)"
        })
    }

    /// `text` (what the model sent back) without the key or any bearer token in it: an
    /// error that quotes the key would otherwise carry it into messages and stored rows.
    fn redacted(&self, text: String) -> String {
        let text = match &self.config.key {
            Some(key) if !key.expose().is_empty() => text.replace(key.expose(), REDACTED),
            _ => text,
        };
        redact_bearer_tokens(&text)
    }

    fn host(&self) -> String {
        self.url.host_str().unwrap_or("?").to_string()
    }
}

/// What the model answered: a reply, or a refusal (a status that is not retried).
enum Answer {
    Reply(Value),
    Refused { status: u16, text: String },
}

impl Answer {
    fn into_reply(self, client: &LlmClient) -> Result<Value> {
        match self {
            Answer::Reply(reply) => Ok(reply),
            Answer::Refused { status, text } => Err(client.refusal(status, &text)),
        }
    }
}

const REDACTED: &str = "(redacted)";

/// `text` with the credential after each `Bearer ` replaced (credentials are long; a
/// shorter word after it is prose: "Bearer auth").
pub fn redact_bearer_tokens(text: &str) -> String {
    const SCHEME: &str = "Bearer ";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(SCHEME) {
        let start = at + SCHEME.len();
        out.push_str(&rest[..start]);
        let token_len = rest[start..]
            .find(|c: char| c.is_whitespace() || "\\\"',;".contains(c))
            .unwrap_or(rest.len() - start);
        if token_len >= 16 {
            out.push_str(REDACTED);
            rest = &rest[start + token_len..];
        } else {
            rest = &rest[start..];
        }
    }
    out.push_str(rest);
    out
}

/// The `error` object of an OpenAI-style error body.
fn error_of(text: &str) -> Option<ErrorDetail> {
    serde_json::from_str::<ErrorBody>(text).ok()?.error
}

/// Whether a model of this name takes a temperature other than its default: reasoning
/// models (`o1`, `o3-mini`, `o4-mini`, `gpt-5`, `gpt-5.1`, ...) do not.
pub fn takes_temperature(model: Option<&str>) -> bool {
    let Some(model) = model else {
        return true;
    };
    let name = model.trim().to_ascii_lowercase();
    // The name after the last `/`, if any.
    let name = name
        .rsplit_once('/')
        .map_or(name.as_str(), |(_, last)| last);
    let o_series = name
        .strip_prefix('o')
        .is_some_and(|rest| rest.chars().next().is_some_and(|c| c.is_ascii_digit()));
    !(o_series || name.starts_with("gpt-5"))
}

/// Whether a 400's body refuses the `temperature` parameter (OpenAI and Azure OpenAI say so
/// in `error.param`, or at least in `error.message`).
fn refuses_temperature(text: &str) -> bool {
    error_of(text).is_some_and(|error| {
        error.param.as_ref().and_then(Value::as_str) == Some("temperature")
            || error
                .message
                .is_some_and(|message| message.contains("temperature"))
    })
}

/// The first JSON object in a model's reply: the whole text, a fenced block, or the first
/// balanced `{...}` in it.
pub fn json_object_in(text: &str) -> Option<Value> {
    let trimmed = text.trim();
    if let Ok(value @ Value::Object(_)) = serde_json::from_str(trimmed) {
        return Some(value);
    }
    let bytes = trimmed.as_bytes();
    let start = trimmed.find('{')?;
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (at, &b) in bytes.iter().enumerate().skip(start) {
        match b {
            _ if escaped => escaped = false,
            b'\\' if in_string => escaped = true,
            b'"' => in_string = !in_string,
            b'{' if !in_string => depth += 1,
            b'}' if !in_string => {
                depth -= 1;
                if depth == 0 {
                    return serde_json::from_str(&trimmed[start..=at]).ok();
                }
            }
            _ => {}
        }
    }
    None
}

/// A chat completions request: the prompt and the question, a JSON object asked for.
#[derive(Serialize)]
struct ChatRequest<'a> {
    messages: [ChatMessage<'a>; 2],
    response_format: ResponseFormat,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<u8>,
}

#[derive(Serialize)]
struct ChatMessage<'a> {
    role: &'a str,
    content: &'a str,
}

#[derive(Serialize)]
struct ResponseFormat {
    #[serde(rename = "type")]
    kind: &'static str,
}

/// What is read of a reply: the first choice's message content. Anything else the model's
/// service says is not needed; a reply of another shape has no content.
#[derive(Deserialize)]
struct ChatReply {
    #[serde(default)]
    choices: Vec<Choice>,
}

#[derive(Deserialize)]
struct Choice {
    message: ChoiceMessage,
}

#[derive(Deserialize)]
struct ChoiceMessage {
    content: Option<String>,
}

/// An OpenAI-style error body, `{error: {message, param, ...}}`.
#[derive(Deserialize)]
struct ErrorBody {
    error: Option<ErrorDetail>,
}

#[derive(Deserialize)]
struct ErrorDetail {
    #[serde(default)]
    message: Option<String>,
    /// The parameter refused: a name, or whatever else a service puts there.
    #[serde(default)]
    param: Option<Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn config(endpoint: &str, model: Option<&str>) -> LlmConfig {
        LlmConfig {
            endpoint: Url::parse(endpoint).expect("url"),
            key: None,
            model: model.map(String::from),
            api_version: DEFAULT_API_VERSION.into(),
        }
    }

    #[test]
    fn azure_and_openai_compatible_urls() {
        // Azure OpenAI's v1 API: no api-version, the deployment in the body.
        let azure = config("https://res.openai.azure.com/", Some("gpt4o"));
        assert_eq!(
            azure.chat_url().expect("url").as_str(),
            "https://res.openai.azure.com/openai/v1/chat/completions"
        );
        let dated = LlmConfig {
            api_version: "2024-10-21".into(),
            ..azure.clone()
        };
        assert_eq!(
            dated.chat_url().expect("url").as_str(),
            "https://res.openai.azure.com/openai/deployments/gpt4o/chat/completions?api-version=2024-10-21"
        );
        let deployment = config(
            "https://res.openai.azure.com/openai/deployments/judge",
            None,
        );
        assert_eq!(
            deployment.chat_url().expect("url").as_str(),
            "https://res.openai.azure.com/openai/deployments/judge/chat/completions?api-version=2024-10-21"
        );
        let open = config("http://127.0.0.1:9/v1", Some("m"));
        assert_eq!(
            open.chat_url().expect("url").as_str(),
            "http://127.0.0.1:9/v1/chat/completions"
        );
    }

    #[test]
    fn bearer_tokens_are_redacted() {
        assert_eq!(
            redact_bearer_tokens(
                "was Bearer abc.def.ghi.jkl.mno, then \"Bearer xyz0123456789abcdef\""
            ),
            "was Bearer (redacted), then \"Bearer (redacted)\""
        );
        assert_eq!(redact_bearer_tokens("Bearer auth"), "Bearer auth");
    }

    #[test]
    fn reasoning_models_get_no_temperature() {
        for model in [
            "o1",
            "o3-mini",
            "o4-mini",
            "gpt-5",
            "gpt-5.1",
            "openai/gpt-5-mini",
        ] {
            assert!(!takes_temperature(Some(model)), "{model}");
        }
        for model in ["gpt-4o", "gpt-4.1-mini", "llama3", "omni-judge"] {
            assert!(takes_temperature(Some(model)), "{model}");
        }
        assert!(takes_temperature(None));
        let refusal = r#"{"error": {"message": "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.", "type": "invalid_request_error", "param": "temperature", "code": "unsupported_value"}}"#;
        assert!(refuses_temperature(refusal));
        assert!(!refuses_temperature(r#"{"error": {"message": "bad key"}}"#));
    }

    #[test]
    fn replies_are_read_leniently() {
        assert_eq!(json_object_in("{\"a\":1}"), Some(json!({"a": 1})));
        let fenced =
            "Sure:\n```json\n{\"verdict\": \"yes\", \"rationale\": \"a {b} \\\"c\\\"\"}\n```";
        assert_eq!(json_object_in(fenced).expect("object")["verdict"], "yes");
        assert_eq!(json_object_in("no json"), None);
    }
}
