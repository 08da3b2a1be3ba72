//! Tokens go only where they were issued: a profile's sign-in to the endpoint it was made for
//! (and that Fabric cloud's own hosts), `FABSH_TOKEN` to the `FABSH_ENDPOINT` given with it (or
//! the default endpoint), a service principal of the environment, a managed identity and the
//! Azure CLI to the endpoints their issuer's tokens are for. Any other endpoint is refused with
//! exit 3, naming both, before a connection is made: "the other endpoint" is a loopback
//! listener counting connections, and the service's place is taken by one too, as the HTTPS
//! proxy (so no test reaches the network).

use crate::auth::{Session, add_app, fake_azure_cli, workspace_names};
use crate::support::{Home, Run, Server, shared};
use serde_json::{Value, json};
use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::JoinHandle;

/// A loopback listener that accepts and at once closes every connection, counting them.
struct Witness {
    /// `http://127.0.0.1:PORT/v1`.
    endpoint: String,
    origin: String,
    accepted: Arc<AtomicUsize>,
    /// The connections [`Witness::connections`] made itself.
    own: usize,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Witness {
    fn start() -> Witness {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let origin = format!("http://{}", listener.local_addr().expect("addr"));
        let accepted = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (accepted, stop) = (accepted.clone(), stop.clone());
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    accepted.fetch_add(1, Ordering::SeqCst);
                    drop(stream);
                }
            })
        };
        Witness {
            endpoint: format!("{origin}/v1"),
            origin,
            accepted,
            own: 0,
            stop,
            thread: Some(thread),
        }
    }

    /// The connections fabsh made, once it has exited: those it made are queued before the
    /// one opened here, so when this one is closed by the listener, every earlier one has
    /// been counted.
    fn connections(&mut self) -> usize {
        self.own += 1;
        let mut probe = TcpStream::connect(self.origin.trim_start_matches("http://"))
            .expect("connect to the witness");
        let mut rest = Vec::new();
        let _ = probe.read_to_end(&mut rest);
        self.accepted.load(Ordering::SeqCst) - self.own
    }
}

impl Drop for Witness {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.origin.trim_start_matches("http://"));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A session signed in by device code to `server`.
fn signed_in(server: &Server) -> Session<'_> {
    let mut session = Session::new(server);
    let login = session.device_code_login(&[]);
    assert_eq!(login.code, 0, "{}", login.stderr);
    assert_eq!(login.json()["endpoint"], server.endpoint.as_str());
    session
}

/// Writes the token cache as fabsh would (mode 0600 in a 0700 directory).
fn write_cache(session: &Session, cache: &Value) {
    use std::os::unix::fs::PermissionsExt;
    let path = session.cache_path();
    let dir = path.parent().expect("cache dir");
    std::fs::create_dir_all(dir).expect("cache dir");
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    std::fs::write(&path, cache.to_string()).expect("write cache");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
}

fn assert_names_both(stderr: &str, made_for: &str, in_use: &str) {
    assert!(
        stderr.contains(&format!("signed in for {made_for}"))
            && stderr.contains(&format!("not for the endpoint in use, {in_use}")),
        "{stderr}"
    );
}

#[test]
fn a_sign_in_for_one_server_is_refused_at_another_and_nothing_reaches_it() {
    let server = Server::start();
    let mut session = signed_in(&server);
    let mut other = Witness::start();
    session.set("FABSH_ENDPOINT", &other.endpoint);
    let refused = session.run(&["workspace", "list"]);
    assert_eq!(refused.code, 3, "{}", refused.stderr);
    assert_names_both(&refused.stderr, &server.endpoint, &other.endpoint);
    assert!(
        refused
            .stderr
            .contains(&format!("fabsh --endpoint {} auth login", other.endpoint)),
        "{}",
        refused.stderr
    );
    // Nor does `auth token` hand it out for that endpoint.
    let token = session.run(&["auth", "token"]);
    assert_eq!(token.code, 3, "{}", token.stderr);
    assert_eq!(token.stdout, "");
    assert_eq!(
        other.connections(),
        0,
        "nothing may reach the other endpoint"
    );
    // The sign-in still serves the endpoint it was made for.
    session.set("FABSH_ENDPOINT", &server.endpoint);
    assert_eq!(
        workspace_names(&session.run(&["workspace", "list"])),
        ["Demo"]
    );
    session.assert_no_secret_shown();
}

#[test]
fn a_local_sign_in_never_goes_to_the_service() {
    let server = Server::start();
    let mut session = signed_in(&server);
    // The service's place: any connection to an https host goes through this "proxy".
    let mut service = Witness::start();
    session.unset("FABSH_ENDPOINT");
    session.set("HTTPS_PROXY", &service.origin);
    let refused = session.run(&["workspace", "list"]);
    assert_eq!(refused.code, 3, "{}", refused.stderr);
    assert_names_both(
        &refused.stderr,
        &server.endpoint,
        "https://api.fabric.microsoft.com/v1",
    );
    assert!(
        refused.stderr.contains("(the default endpoint)"),
        "{}",
        refused.stderr
    );
    assert_eq!(service.connections(), 0, "nothing may reach the service");
    session.assert_no_secret_shown();
}

#[test]
fn a_sign_in_to_the_service_never_goes_to_another_endpoint() {
    let server = Server::start();
    let mut session = Session::new(&server);
    let mut other = Witness::start();
    session.set("FABSH_ENDPOINT", &other.endpoint);
    let entra_token = "eyJ0eXAiOiJKV1QifQ.entra-access-token-for-fabric.signature";
    session.secret(entra_token);
    let service = "https://api.fabric.microsoft.com/v1";
    // As `auth login` records a sign-in to Entra for the service.
    let login = json!({
        "method": "device-code",
        "refreshToken": "entra-refresh-token-for-fabric",
        "accessToken": entra_token,
        "expiresOn": 4102444800_i64,
        "madeFor": {
            "endpoint": service,
            "authorityHost": "https://login.microsoftonline.com",
            "audience": "https://api.fabric.microsoft.com"
        }
    });
    write_cache(&session, &json!({"profiles": {"default": login}}));
    let refused = session.run(&["workspace", "list"]);
    assert_eq!(refused.code, 3, "{}", refused.stderr);
    assert_names_both(&refused.stderr, service, &other.endpoint);
    assert_eq!(
        other.connections(),
        0,
        "nothing may reach the other endpoint"
    );
    session.assert_no_secret_shown();
}

#[test]
fn a_sign_in_of_an_earlier_version_is_taken_as_made_for_the_service() {
    // Earlier versions recorded no endpoint: their sign-ins went to Entra for the service. One
    // made against local Fabric is therefore refused there, with a request to sign in again.
    let server = Server::start();
    let mut session = signed_in(&server);
    let mut cache = session.cache();
    let entry = cache["profiles"]["default"]
        .as_object_mut()
        .expect("the sign-in");
    assert!(entry.remove("madeFor").is_some(), "the sign-in records it");
    write_cache(&session, &cache);
    let before = server.request_count();
    let refused = session.run(&["workspace", "list"]);
    assert_eq!(refused.code, 3, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("earlier fabsh")
            && refused
                .stderr
                .contains("https://api.fabric.microsoft.com/v1")
            && refused.stderr.contains(&format!(
                "sign in again for {0} with `fabsh --endpoint {0} auth login`",
                server.endpoint
            )),
        "{}",
        refused.stderr
    );
    assert_eq!(server.request_count(), before, "nothing was sent");
    let status = session.run(&["auth", "status"]).ok_json();
    assert_eq!(status["signedIn"], false);
    assert_eq!(status["signedInFor"], "https://api.fabric.microsoft.com/v1");
    // Signing in again records the endpoint, and the sign-in is used there.
    assert_eq!(session.device_code_login(&[]).code, 0);
    assert_eq!(
        workspace_names(&session.run(&["workspace", "list"])),
        ["Demo"]
    );
    session.assert_no_secret_shown();
}

#[test]
fn auth_status_reports_a_sign_in_for_another_endpoint() {
    let server = Server::start();
    let mut session = signed_in(&server);
    let here = session.run(&["auth", "status"]).ok_json();
    assert_eq!(here["signedIn"], true);
    assert_eq!(here["signedInFor"], server.endpoint.as_str());

    let mut other = Witness::start();
    session.set("FABSH_ENDPOINT", &other.endpoint);
    let status = session.run(&["auth", "status"]);
    let answer = status.ok_json();
    assert_eq!(answer["signedIn"], false, "{answer}");
    assert_eq!(answer["signedInFor"], server.endpoint.as_str());
    assert_eq!(answer["endpoint"], other.endpoint.as_str());
    assert_names_both(&status.stderr, &server.endpoint, &other.endpoint);
    let check = session.run(&["auth", "status", "--check"]);
    assert_eq!(check.code, 3, "{}", check.stderr);
    assert_names_both(&check.stderr, &server.endpoint, &other.endpoint);
    assert_eq!(other.connections(), 0);
    session.assert_no_secret_shown();
}

#[test]
fn fabsh_token_goes_only_to_the_endpoint_given_with_it() {
    let server = Server::start();
    let mut other = Witness::start();
    let home = &server.home;
    let set = home.run(&["config", "set", "endpoint", &other.endpoint]);
    assert_eq!(set.code, 0, "{}", set.stderr);
    let token = ("FABSH_TOKEN", server.token.as_str());

    // Given with FABSH_ENDPOINT, the token goes there (which beats the profile's endpoint).
    let with_endpoint = home.run_env(
        &["workspace", "list"],
        &[token, ("FABSH_ENDPOINT", &server.endpoint)],
    );
    assert_eq!(workspace_names(&with_endpoint), ["Demo"]);

    // Alone, it is for the default endpoint: not the profile's.
    let refused = home.run_env(&["workspace", "list"], &[token]);
    assert_eq!(refused.code, 3, "{}", refused.stderr);
    assert!(
        refused.stderr.contains(
            "FABSH_TOKEN is for https://api.fabric.microsoft.com/v1 (the default, as FABSH_ENDPOINT is unset)"
        ) && refused.stderr.contains(&format!(
            "not for the endpoint in use, {} (the endpoint of profile `default`)",
            other.endpoint
        )),
        "{}",
        refused.stderr
    );
    // Nor for an endpoint a flag names instead of the one given with it.
    let flag = home.run_env(
        &["--endpoint", &other.endpoint, "workspace", "list"],
        &[token, ("FABSH_ENDPOINT", &server.endpoint)],
    );
    assert_eq!(flag.code, 3, "{}", flag.stderr);
    assert!(
        flag.stderr.contains(&format!(
            "FABSH_TOKEN is for {} (the FABSH_ENDPOINT given with it)",
            server.endpoint
        )) && flag.stderr.contains("(--endpoint)"),
        "{}",
        flag.stderr
    );
    // FABSH_STORAGE_TOKEN is bound the same way, for the OneLake of the endpoint given with
    // it, and named as itself when refused (a typed path needs no Fabric call first).
    let storage = home.run_env(
        &[
            "--endpoint",
            &other.endpoint,
            "onelake",
            "ls",
            "Demo/SalesLakehouse.Lakehouse/Files",
        ],
        &[
            ("FABSH_STORAGE_TOKEN", "a-storage-token"),
            ("FABSH_ENDPOINT", &server.endpoint),
        ],
    );
    assert_eq!(storage.code, 3, "{}", storage.stderr);
    assert!(
        storage.stderr.contains(&format!(
            "FABSH_STORAGE_TOKEN is for {} (the FABSH_ENDPOINT given with it)",
            server.endpoint
        )) && storage.stderr.contains("or unset FABSH_STORAGE_TOKEN"),
        "{}",
        storage.stderr
    );
    assert_eq!(
        other.connections(),
        0,
        "nothing may reach the other endpoint"
    );

    // `--local` uses local Fabric's own token, whatever the environment holds.
    let local = home.run_env(&["--local", "workspace", "list"], &[token]);
    assert_eq!(workspace_names(&local), ["Demo"]);
    assert_eq!(other.connections(), 0);
}

#[test]
fn a_refresh_goes_back_to_the_authority_that_signed_in() {
    let server = Server::start();
    let mut session = signed_in(&server);
    assert_eq!(
        session.cache()["profiles"]["default"]["madeFor"]["authorityHost"],
        server.origin().as_str()
    );
    // The cached access token is past its expiry, and another authority is configured now.
    let mut cache = session.cache();
    cache["profiles"]["default"]["expiresOn"] = json!(0);
    write_cache(&session, &cache);
    let mut other = Witness::start();
    session.set("FABSH_AUTHORITY_HOST", &other.origin);
    assert_eq!(
        workspace_names(&session.run(&["workspace", "list"])),
        ["Demo"]
    );
    assert_eq!(
        other.connections(),
        0,
        "the refresh token stays with its authority"
    );
    session.assert_no_secret_shown();
}

/// Where Entra's tokens for the public cloud go, as refusals say it.
const PUBLIC_CLOUD: &str = "the endpoints of Fabric's public cloud (https://api.fabric.microsoft.com/v1 and its other hosts)";

/// Asserts that `run` was refused as `source` (with where it gets tokens), whose tokens are for
/// `made_for`, at the endpoint `in_use`.
fn assert_refused(run: &Run, source: &str, made_for: &str, in_use: &str) {
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "{source}; they are for {made_for}, not for the endpoint in use, {in_use} ("
        )) && run.stderr.contains(&format!(
            "sign in for {in_use} with `fabsh --endpoint {in_use} auth login`"
        )),
        "{}",
        run.stderr
    );
}

#[test]
fn a_service_principal_of_the_environment_gets_tokens_for_its_authoritys_endpoints_only() {
    let server = shared(module_path!());
    let app = add_app(
        server,
        &["--name", "binding-ci", "-w", "Demo", "--role", "Viewer"],
    );
    let text = |key: &str| app[key].as_str().expect(key).to_string();
    let mut session = Session::new(server);
    session.secret(&text("clientSecret"));
    session.set("FABSH_TENANT_ID", &text("tenantId"));
    session.set("FABSH_CLIENT_ID", &text("clientId"));
    session.set("FABSH_CLIENT_SECRET", &text("clientSecret"));
    // Local Fabric is the authority: its tokens are for endpoints on its origin.
    let origin = server.origin();
    session.set("FABSH_AUTHORITY_HOST", &origin);
    assert_eq!(
        workspace_names(&session.run(&["workspace", "list"])),
        ["Demo"]
    );

    let mut other = Witness::start();
    session.set("FABSH_ENDPOINT", &other.endpoint);
    let source = |authority: &str| {
        format!(
            "service principal {} (FABSH_CLIENT_* variables) gets tokens from the authority at {authority}",
            text("clientId")
        )
    };
    let refused = session.run(&["workspace", "list"]);
    let at_origin = format!("endpoints at {origin}");
    assert_refused(&refused, &source(&origin), &at_origin, &other.endpoint);
    assert!(
        refused.stderr.contains("or unset FABSH_ENDPOINT"),
        "{}",
        refused.stderr
    );
    let status = session.run(&["auth", "status"]).ok_json();
    assert_eq!(status["signedIn"], false, "{status}");
    assert_eq!(status["signedInFor"], origin.as_str());
    let check = session.run(&["auth", "status", "--check"]);
    assert_refused(&check, &source(&origin), &at_origin, &other.endpoint);
    assert_eq!(
        other.connections(),
        0,
        "nothing may reach the other endpoint"
    );

    // Entra's tokens are for its Fabric cloud, not for another https server.
    let mut service = Witness::start();
    session.unset("FABSH_AUTHORITY_HOST");
    session.set("HTTPS_PROXY", &service.origin);
    let gateway = "https://fabric.contoso.example/v1";
    session.set("FABSH_ENDPOINT", gateway);
    let entra = source("https://login.microsoftonline.com");
    assert_refused(
        &session.run(&["workspace", "list"]),
        &entra,
        PUBLIC_CLOUD,
        gateway,
    );
    assert_eq!(
        service.connections(),
        0,
        "neither the authority nor the endpoint was asked anything"
    );
    session.assert_no_secret_shown();
}

#[test]
fn a_managed_identity_gets_tokens_for_entras_cloud_and_its_own_origin_only() {
    let server = shared(module_path!());
    let identity = add_app(
        server,
        &[
            "--name",
            "binding-web",
            "--managed-identity",
            "-w",
            "Demo",
            "--role",
            "Viewer",
        ],
    );
    let client_id = identity["clientId"].as_str().expect("clientId").to_string();
    let origin = server.origin();
    let msi = format!("{origin}/msi/token");
    let mut session = Session::new(server);
    session.secret(&server.identity_header);
    session.set("IDENTITY_ENDPOINT", &msi);
    session.set("IDENTITY_HEADER", &server.identity_header);
    session.set("FABSH_CLIENT_ID", &client_id);
    // Local Fabric's identity endpoint, and local Fabric as the endpoint: one origin.
    assert_eq!(
        workspace_names(&session.run(&["workspace", "list"])),
        ["Demo"]
    );
    let here = session.run(&["auth", "status"]).ok_json();
    assert_eq!(here["signedIn"], true, "{here}");
    assert_eq!(here["signedInFor"], origin.as_str());

    let mut other = Witness::start();
    session.set("FABSH_ENDPOINT", &other.endpoint);
    let made_for = format!("{PUBLIC_CLOUD} or endpoints at {origin}");
    assert_refused(
        &session.run(&["workspace", "list"]),
        &format!("managed identity {client_id} gets tokens from {msi} (IDENTITY_ENDPOINT)"),
        &made_for,
        &other.endpoint,
    );
    let status = session.run(&["auth", "status"]).ok_json();
    assert_eq!(status["signedIn"], false, "{status}");
    assert_eq!(status["signedInFor"], "https://api.fabric.microsoft.com/v1");

    // The metadata service's shape, chosen by name, likewise.
    session.unset("IDENTITY_ENDPOINT");
    session.unset("IDENTITY_HEADER");
    let imds = format!("{origin}/metadata/identity/oauth2/token");
    session.set("FABSH_IMDS_ENDPOINT", &imds);
    session.set("FABSH_AUTH_METHOD", "managed-identity");
    assert_refused(
        &session.run(&["workspace", "list"]),
        &format!("managed identity {client_id} gets tokens from {imds} (FABSH_IMDS_ENDPOINT)"),
        &made_for,
        &other.endpoint,
    );
    assert_eq!(
        other.connections(),
        0,
        "nothing may reach the other endpoint"
    );
    session.assert_no_secret_shown();
}

#[test]
fn the_azure_cli_gives_tokens_for_its_clouds_endpoints_only() {
    let home = Home::new();
    let token = "eyJ0eXAiOiJKV1QifQ.e30.an-entra-token-from-the-azure-cli";
    let az = fake_azure_cli(home.dir.path(), token);
    // The service's place (any https host), and another server.
    let mut service = Witness::start();
    let mut other = Witness::start();
    let proxy = service.origin.clone();
    let run = |args: &[&str], extra: &[(&str, &str)]| {
        let mut env = vec![("PATH", az.as_str()), ("HTTPS_PROXY", proxy.as_str())];
        env.extend_from_slice(extra);
        let run = home.run_env(args, &env);
        assert!(
            !run.stdout.contains(token) && !run.stderr.contains(token),
            "the token was shown"
        );
        run
    };
    let source = "the Azure CLI gets tokens from Entra";
    let refused = run(
        &["workspace", "list"],
        &[("FABSH_ENDPOINT", &other.endpoint)],
    );
    assert_refused(&refused, source, PUBLIC_CLOUD, &other.endpoint);
    let status = run(&["auth", "status"], &[("FABSH_ENDPOINT", &other.endpoint)]).ok_json();
    assert_eq!(status["signedIn"], false, "{status}");
    assert_eq!(status["source"], "the Azure CLI");
    assert_eq!(status["signedInFor"], "https://api.fabric.microsoft.com/v1");
    // Another Fabric cloud is another Entra's.
    let government = "https://api.fabric.microsoft.us/v1";
    let refused = run(&["--endpoint", government, "workspace", "list"], &[]);
    assert_refused(&refused, source, PUBLIC_CLOUD, government);
    assert!(
        refused.stderr.contains("or leave out --endpoint"),
        "{}",
        refused.stderr
    );
    assert_eq!(
        other.connections(),
        0,
        "nothing may reach the other endpoint"
    );
    assert_eq!(service.connections(), 0, "nor any https host");

    // The public cloud's endpoints get them: the request goes out (to the proxy, which ends it).
    let status = run(&["auth", "status", "--check"], &[]).ok_json();
    assert_eq!(status["signedIn"], true, "{status}");
    assert_eq!(status["signedInFor"], "https://api.fabric.microsoft.com/v1");
    let sent = run(&["workspace", "list"], &[]);
    assert_ne!(sent.code, 0);
    assert!(!sent.stderr.contains("not sent there"), "{}", sent.stderr);
    assert!(service.connections() > 0, "the request went to the service");
    // And a national cloud's, when the authority host set is that cloud's.
    let national = run(
        &["auth", "status", "--check"],
        &[
            ("FABSH_AUTHORITY_HOST", "https://login.microsoftonline.us"),
            ("FABSH_ENDPOINT", government),
        ],
    )
    .ok_json();
    assert_eq!(national["signedInFor"], government);
}
