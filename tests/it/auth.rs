//! Sign-in end to end against local Fabric: every credential source, the chain's order, the
//! token cache, profiles. Each test records everything fabsh printed and checks at the end
//! that no token or secret is in it.

mod apps;
mod chain;
mod device_code;
mod managed_identity;
mod profiles;

use crate::support::{Run, Server, http};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// The fixtures directory of these tests.
pub(crate) fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/auth")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// Runs fabsh as a client of one server without `FABSH_TOKEN`, keeping every output.
pub(crate) struct Session<'a> {
    pub server: &'a Server,
    env: Vec<(String, String)>,
    outputs: Vec<String>,
    secrets: Vec<String>,
}

impl<'a> Session<'a> {
    /// A session whose commands see `FABSH_ENDPOINT` and nothing else of the server.
    pub(crate) fn new(server: &'a Server) -> Session<'a> {
        Session {
            server,
            env: vec![("FABSH_ENDPOINT".into(), server.endpoint.clone())],
            outputs: Vec::new(),
            secrets: vec![server.token.clone()],
        }
    }

    /// Sets a variable for every later command.
    pub(crate) fn set(&mut self, key: &str, value: &str) {
        self.env.retain(|(k, _)| k != key);
        self.env.push((key.into(), value.into()));
    }

    /// Leaves a variable out of every later command.
    pub(crate) fn unset(&mut self, key: &str) {
        self.env.retain(|(k, _)| k != key);
    }

    /// Remembers a secret that must never show.
    pub(crate) fn secret(&mut self, secret: &str) {
        self.secrets.push(secret.to_string());
    }

    fn env_with<'b>(&'b self, extra: &'b [(&'b str, &'b str)]) -> Vec<(&'b str, &'b str)> {
        let mut env: Vec<(&str, &str)> = self
            .env
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        env.extend_from_slice(extra);
        env
    }

    /// Runs fabsh and records its output.
    pub(crate) fn run(&mut self, args: &[&str]) -> Run {
        self.run_env(args, &[])
    }

    /// Runs fabsh with extra variables and records its output.
    pub(crate) fn run_env(&mut self, args: &[&str], extra: &[(&str, &str)]) -> Run {
        let run = self.server.home.run_env(args, &self.env_with(extra));
        self.record(&run);
        run
    }

    /// Runs fabsh with `input` on stdin.
    pub(crate) fn run_with_stdin(&mut self, args: &[&str], input: &str) -> Run {
        use std::io::Write;
        let mut command = self.server.home.command(args);
        command
            .envs(self.env_with(&[]))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("run fabsh");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input.as_bytes())
            .expect("write stdin");
        let output = child.wait_with_output().expect("wait");
        let run = Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        };
        self.record(&run);
        run
    }

    fn record(&mut self, run: &Run) {
        self.outputs.push(run.stdout.clone());
        self.outputs.push(run.stderr.clone());
    }

    /// `auth login` by device code, approved from a second process with `local approve`.
    pub(crate) fn device_code_login(&mut self, extra_args: &[&str]) -> Run {
        let mut args = extra_args.to_vec();
        args.extend(["auth", "login"]);
        let mut child = self
            .server
            .home
            .command(&args)
            .envs(self.env_with(&[]))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start auth login");
        let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
        let mut prompt = String::new();
        let code = loop {
            let mut line = String::new();
            if stderr.read_line(&mut line).expect("read stderr") == 0 {
                let _ = child.kill();
                panic!("auth login ended without a code:\n{prompt}");
            }
            prompt.push_str(&line);
            if let Some((_, rest)) = line.split_once("enter the code ") {
                break rest.split_whitespace().next().expect("a code").to_string();
            }
        };
        // The approver talks to the running server with the admin token.
        let approved = self.server.fabsh(&["local", "approve", &code]);
        if approved.code != 0 {
            let _ = child.kill();
            panic!("approve failed: {}", approved.stderr);
        }
        let mut rest = String::new();
        stderr.read_to_string(&mut rest).expect("read stderr");
        let output = child.wait_with_output().expect("wait for auth login");
        let run = Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: prompt + rest.as_str(),
        };
        self.record(&run);
        run
    }

    /// The token cache file of this home.
    pub(crate) fn cache_path(&self) -> PathBuf {
        self.server.home.dir.path().join("state/fabsh/tokens.json")
    }

    /// The cache as JSON (`{profiles: {name: login}}`).
    pub(crate) fn cache(&self) -> Value {
        let text = std::fs::read_to_string(self.cache_path()).expect("token cache");
        serde_json::from_str(&text).expect("cache JSON")
    }

    /// Asserts that nothing fabsh printed holds a token or secret: the ones given, and every
    /// token in the cache as it is now.
    pub(crate) fn assert_no_secret_shown(&mut self) {
        if self.cache_path().exists() {
            collect_secrets(&self.cache(), &mut self.secrets);
        }
        for secret in self.secrets.iter().filter(|s| s.len() >= 16) {
            for output in &self.outputs {
                assert!(
                    !output.contains(secret.as_str()),
                    "a secret was printed:\n{output}"
                );
            }
        }
    }
}

fn collect_secrets(value: &Value, into: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                match (key.as_str(), inner) {
                    ("accessToken" | "refreshToken" | "clientSecret", Value::String(s)) => {
                        into.push(s.clone());
                    }
                    _ => collect_secrets(inner, into),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_secrets(v, into)),
        _ => {}
    }
}

/// A directory in `home` holding a stand-in `az` that prints `token` the way `az account
/// get-access-token` does: the PATH of a run that should find it.
pub(crate) fn fake_azure_cli(home: &Path, token: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let dir = home.join("fake-az");
    std::fs::create_dir_all(&dir).unwrap();
    let script = format!(
        "#!/bin/sh\necho '{{\"accessToken\": \"{token}\", \"expires_on\": 4102444800, \"tokenType\": \"Bearer\"}}'\n"
    );
    let az = dir.join("az");
    std::fs::write(&az, script).unwrap();
    std::fs::set_permissions(&az, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir.to_string_lossy().into_owned()
}

/// A new service principal's credentials, made through the running server; a session's is
/// named as its own ([`Server::own_name`]).
pub(crate) fn add_app(server: &Server, args: &[&str]) -> Value {
    let mut all: Vec<String> = ["local", "principal", "add"].map(String::from).to_vec();
    let mut named = false;
    for arg in args {
        all.push(if named {
            server.own_name(arg)
        } else {
            (*arg).to_string()
        });
        named = *arg == "--name";
    }
    let all: Vec<&str> = all.iter().map(String::as_str).collect();
    server.fabsh(&all).ok_json()
}

/// A federated token of local Fabric's OIDC issuer for `subject`.
pub(crate) fn federated_token(server: &Server, subject: &str) -> String {
    let auth = format!("Bearer {}", server.token);
    let (status, body) = http(
        &server.origin(),
        "POST",
        "/_local/federated-tokens",
        Some(&format!("{{\"subject\": \"{subject}\"}}")),
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/json"),
        ],
    );
    assert_eq!(status, 200, "{body}");
    let body: Value = serde_json::from_str(&body).expect("JSON");
    body["token"].as_str().expect("token").to_string()
}

/// The display names of the workspaces a run listed.
pub(crate) fn workspace_names(run: &Run) -> Vec<String> {
    run.ok_json()
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|w| w["displayName"].as_str().map(str::to_string))
        .collect()
}
