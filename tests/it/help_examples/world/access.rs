//! Who may do what in the world: a partner app in the second tenant with an external data
//! share made for it, an app of the first tenant with its secret in a file, a signed-in
//! default profile, a prod profile, and a device-code sign-in waiting to be approved.

use super::Builder;
use crate::help_examples::shell::Shell;
use crate::support::{http, principal_with_token};
use fabsh_api::auth::chain::{ANY_ORGANIZATION, PUBLIC_CLIENT_ID};
use serde_json::Value;

impl Builder<'_> {
    pub(super) fn sharing(&mut self) {
        let (partner, token) = principal_with_token(
            self.server,
            "partner-app",
            &[
                "--tenant",
                "second",
                "--workspace",
                "Inbox",
                "--role",
                "Contributor",
            ],
        );
        let object_id = partner["objectId"].as_str().expect("objectId").to_string();
        let tenant = partner["tenantId"].as_str().expect("tenantId").to_string();
        self.partner_token = token;
        let share = self.text(
            &[
                "item",
                "create-external-data-share",
                "-w",
                "Demo",
                "--id",
                "SalesLakehouse",
                "--paths",
                "Tables/orders,Tables/customers",
                "--recipient-type",
                "ServicePrincipal",
                "--recipient-id",
                &object_id,
                "--recipient-tenant-id",
                &tenant,
            ],
            "id",
        );
        let provider = self.text(&["auth", "status"], "tenant");
        self.set("PARTNER_OBJECT_ID", &object_id);
        self.set("PARTNER_TENANT_ID", &tenant);
        self.set("SHARE_ID", &share);
        // What the recipient is sent: the invitation is the share, by id and tenant.
        self.set("INVITATION_ID", &share);
        self.set("PROVIDER_TENANT_ID", &provider);
    }

    pub(super) fn principals_and_sign_ins(&mut self) {
        let app = self.json(&[
            "local",
            "principal",
            "add",
            "--name",
            "deploy-bot",
            "-w",
            "Demo",
            "--role",
            "Contributor",
        ]);
        let field = |key: &str| app[key].as_str().expect(key).to_string();
        self.set("TENANT_ID", &field("tenantId"));
        self.set("CLIENT_ID", &field("clientId"));
        std::fs::write(self.file("secret.txt"), field("clientSecret") + "\n").expect("secret");
        self.ok(&["--profile", "prod", "config", "set", "workspace", "Sales"]);
        // The default profile is signed in, so `auth logout` has a sign-in to forget.
        let shell = Shell {
            root: self.server.home.dir.path().to_path_buf(),
            work: self.work.clone(),
            env: vec![
                ("FABSH_ENDPOINT".into(), self.server.endpoint.clone()),
                ("FABSH_TOKEN".into(), self.server.token.clone()),
            ],
        };
        let login = shell.run_device_code_login("auth login");
        assert_eq!(
            login.code,
            Some(0),
            "building the world: auth login\n{login:?}"
        );
        self.set("USER_CODE", &self.pending_device_code());
    }

    /// A device-code sign-in started and left waiting, as `auth login` leaves one until
    /// the code is entered: what `local approve` approves.
    fn pending_device_code(&self) -> String {
        let form = format!(
            "client_id={PUBLIC_CLIENT_ID}&scope=https%3A%2F%2Fapi.fabric.microsoft.com%2F.default"
        );
        let (status, body) = http(
            &self.server.origin(),
            "POST",
            &format!("/{ANY_ORGANIZATION}/oauth2/v2.0/devicecode"),
            Some(&form),
            &[("Content-Type", "application/x-www-form-urlencoded")],
        );
        assert_eq!(status, 200, "device code: {body}");
        let started: Value = serde_json::from_str(&body).expect("device code JSON");
        started["user_code"]
            .as_str()
            .expect("user_code")
            .to_string()
    }
}
