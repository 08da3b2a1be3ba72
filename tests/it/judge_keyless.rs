//! A judge on Azure OpenAI without a key: fabsh asks the credential chain for an Entra token
//! for Cognitive Services (`https://cognitiveservices.azure.com/.default`, the scope Azure
//! OpenAI's keyless authentication takes) and sends it as a bearer; with a key it sends
//! `api-key`. The current API is v1 (`/openai/v1/chat/completions`, no api-version, the
//! deployment as `model`); an endpoint naming a deployment keeps a dated api-version.

use crate::auth::add_app;
use crate::data_agent_query::{EXAMPLES, published};
use crate::judge_stub::{self, Judge};
use crate::support::http;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;

/// Azure OpenAI's resource id, the audience of its Entra tokens.
const COGNITIVE_SERVICES: &str = "https://cognitiveservices.azure.com";

fn claims_of(token: &str) -> Value {
    let payload = token.split('.').nth(1).expect("a JWT");
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).expect("base64")).expect("JSON")
}

fn questions_file(dir: &tempfile::TempDir) -> String {
    let path = dir.path().join("questions.json");
    std::fs::write(&path, r#"["How many customers are there?"]"#).expect("write");
    path.to_string_lossy().into_owned()
}

#[test]
fn a_keyless_azure_judge_is_called_with_a_cognitive_services_token() {
    let fx = published(module_path!(), EXAMPLES);
    let dir = tempfile::tempdir().expect("dir");
    let questions = questions_file(&dir);
    let app = add_app(&fx.server, &["--name", "judge-caller"]);
    let text = |key: &str| app[key].as_str().expect(key).to_string();
    let (tenant, client, secret) = (text("tenantId"), text("clientId"), text("clientSecret"));
    let judge = Judge::start();
    let run = fx.run_env(
        "evaluate",
        &[
            "--questions",
            &questions,
            "--llm-endpoint",
            &judge.azure_deployment("judge"),
            "--llm-model",
            "judge",
        ],
        // Fabric is reached with FABSH_TOKEN (a Fabric token only); the judge's token comes
        // from the next source of the chain, this service principal.
        &[
            ("FABSH_TENANT_ID", &tenant),
            ("FABSH_CLIENT_ID", &client),
            ("FABSH_CLIENT_SECRET", &secret),
        ],
    );
    let out = run.ok_json();
    assert_eq!(out["summary"]["errors"], 0, "{}", out["rows"]);
    let seen = judge.seen();
    assert!(!seen.is_empty());
    for request in &seen {
        assert_eq!(request.api_key, None, "no key was given");
        assert!(
            request
                .uri
                .starts_with("/openai/deployments/judge/chat/completions?api-version="),
            "{}",
            request.uri
        );
        let token = request
            .authorization
            .as_deref()
            .and_then(|value| value.strip_prefix("Bearer "))
            .expect("a bearer token");
        let claims = claims_of(token);
        assert_eq!(claims["aud"], COGNITIVE_SERVICES, "{claims}");
        assert_eq!(claims["appid"], client.as_str(), "{claims}");
    }
    // The judge's token is not a Fabric token: the Fabric API refuses it.
    let token = seen[0].authorization.clone().expect("bearer");
    let (status, _) = http(
        &fx.server.origin(),
        "GET",
        "/v1/workspaces",
        None,
        &[("Authorization", &token)],
    );
    assert_eq!(status, 401);
    assert!(!run.stderr.contains(&secret) && !run.stdout.contains(&secret));
}

#[test]
fn a_judge_with_a_key_uses_azure_openai_v1_and_no_credentials_is_explained() {
    let fx = published(module_path!(), EXAMPLES);
    let dir = tempfile::tempdir().expect("dir");
    let questions = questions_file(&dir);
    let judge = Judge::start();
    let evaluate = |endpoint: &str, env: &[(&str, &str)]| {
        let flags = [
            "--questions",
            &questions,
            "--llm-endpoint",
            endpoint,
            "--llm-model",
            "judge-deployment",
        ];
        fx.run_env("evaluate", &flags, env)
    };
    let keyed = evaluate(&judge.azure_v1(), &[("FABSH_LLM_KEY", judge_stub::KEY)]);
    assert_eq!(keyed.ok_json()["summary"]["errors"], 0);
    for request in judge.seen() {
        assert_eq!(request.uri, "/openai/v1/chat/completions");
        assert_eq!(request.api_key.as_deref(), Some(judge_stub::KEY));
        assert_eq!(request.authorization, None);
        assert_eq!(request.body["model"], "judge-deployment");
    }

    // Keyless with nothing in the chain but FABSH_TOKEN (which is Fabric's): every run is a
    // judge failure that says how to give the judge a credential, and no request is sent.
    let before = judge.seen().len();
    let keyless = evaluate(&judge.azure_v1(), &[]);
    assert_eq!(keyless.code, 1, "{}", keyless.stderr);
    let out: Value = serde_json::from_str(&keyless.stdout).expect("JSON");
    let row = &out["rows"][0];
    assert_eq!(row["verdict"], "error", "{row}");
    let said = format!("{row}{}", keyless.stderr);
    assert!(
        said.contains("no Entra token for the judge model"),
        "{said}"
    );
    assert!(said.contains("--llm-key"), "{said}");
    assert_eq!(judge.seen().len(), before);
}
