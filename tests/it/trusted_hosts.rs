//! Links the service gives (here a 202's `Location`) are followed to another host only when
//! the user trusts it with `FABSH_TRUSTED_HOSTS`: behind a gateway, local Fabric's operation
//! links name its own origin, as the real service's name regional hosts (the recordings'
//! `wabi-*-redirect.analysis.windows.net`).

use crate::stub::Stub;
use crate::support::Server;

#[test]
fn operation_links_past_a_gateway_need_the_host_trusted() {
    let server = Server::with(&[("async-ratio", "1"), ("lro-ms", "50")]);
    let gateway = Stub::gateway(&server.origin());
    let upstream = server.origin().trim_start_matches("http://").to_string();
    let args = ["item", "get-definition", "-w", "Demo", "--id", "Welcome"];
    let via_gateway = |trusted: &str| {
        let mut env = vec![("FABSH_ENDPOINT", gateway.endpoint.as_str())];
        if !trusted.is_empty() {
            env.push(("FABSH_TRUSTED_HOSTS", trusted));
        }
        server.fabsh_env(&args, &env)
    };
    let refused = via_gateway("");
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("not sending credentials there")
            && refused.stderr.contains("FABSH_TRUSTED_HOSTS"),
        "{}",
        refused.stderr
    );
    let another_port = via_gateway("127.0.0.1:1");
    assert_eq!(another_port.code, 1, "{}", another_port.stderr);
    let followed = via_gateway(&format!("example.invalid, {upstream}"));
    let definition = followed.ok_json();
    assert!(definition["definition"]["parts"].is_array(), "{definition}");
}
