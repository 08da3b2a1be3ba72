//! The HTTP surface: Fabric's `/v1` API, the Entra-style token and device-code endpoints,
//! the managed-identity endpoints, and `/_local/*` test and admin routes (the local admin's
//! only). Nothing is answered for a host the server does not serve (`hosts`).
//!
//! Handlers are synchronous functions served with `blocking(...)`: they use the store, so they
//! run on tokio's blocking pool (`crate::blocking` says why). The few that also wait for
//! something else (the MCP answer, a run's background task) are async and hand their store
//! work over themselves.

mod agent_assistants;
mod agent_config;
mod agent_elements;
mod agent_fewshots;
mod agent_mcp;
mod agent_sources;
mod bulk;
mod capacities;
mod definitions;
mod deploy_reads;
mod device_code;
mod discovery;
mod folders;
mod invitations;
mod item_create;
mod item_links;
mod items;
pub(crate) mod jobs;
mod lakehouse_load;
mod lakehouse_tables;
mod livy_filters;
mod livy_sessions;
mod local_admin;
mod managed_identity;
mod mlv_definitions;
mod notebook_runs;
mod operations;
mod powerbi;
mod role_assignments;
mod schedules;
mod shares;
mod shortcuts;
mod sql_endpoint;
mod sql_restorable;
mod tags;
mod target;
mod token;
mod trailing_slash;
mod workspace_identity;
mod workspaces;

use super::api_error::ApiError;
use super::blocking::blocking;
use super::bodies;
use super::hosts;
use super::middleware;
use super::state::Shared;
use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, patch, post};

/// The complete router with its layers.
pub(crate) fn router(state: Shared) -> Router {
    // Per-type collections (`/notebooks`, `/dataAgents`, ...) share the `/items` handlers: the
    // `{collection}` segment is resolved against the item type table, static segments
    // (`folders`, `roleAssignments`) take precedence.
    let api = Router::new()
        .route(
            "/v1/workspaces",
            get(blocking(workspaces::list)).post(blocking(workspaces::create)),
        )
        .route(
            "/v1/workspaces/{ws}",
            get(blocking(workspaces::show))
                .patch(blocking(workspaces::update))
                .delete(blocking(workspaces::remove)),
        )
        .route(
            "/v1/workspaces/{ws}/provisionIdentity",
            post(blocking(workspace_identity::handler(
                workspace_identity::provision,
            ))),
        )
        .route(
            "/v1/workspaces/{ws}/deprovisionIdentity",
            post(blocking(workspace_identity::handler(
                workspace_identity::deprovision,
            ))),
        )
        .route(
            "/v1/workspaces/{ws}/assignToCapacity",
            post(blocking(capacities::assign)),
        )
        .route(
            "/v1/workspaces/{ws}/unassignFromCapacity",
            post(blocking(capacities::unassign)),
        )
        .route("/v1/capacities", get(blocking(capacities::list)))
        .route("/v1/capacities/{id}", get(blocking(capacities::show)))
        .route(
            "/v1/workspaces/{ws}/applyTags",
            post(blocking(workspaces::apply_tags)),
        )
        .route(
            "/v1/workspaces/{ws}/unapplyTags",
            post(blocking(workspaces::unapply_tags)),
        )
        .route(
            "/v1/workspaces/{ws}/roleAssignments",
            get(blocking(role_assignments::list)).post(blocking(role_assignments::add)),
        )
        .route(
            "/v1/workspaces/{ws}/roleAssignments/{principal}",
            get(blocking(role_assignments::show))
                .patch(blocking(role_assignments::update))
                .delete(blocking(role_assignments::remove)),
        )
        .route(
            "/v1/workspaces/{ws}/folders",
            get(blocking(folders::list)).post(blocking(folders::create)),
        )
        .route(
            "/v1/workspaces/{ws}/folders/{folder}",
            get(blocking(folders::show))
                .patch(blocking(folders::rename))
                .delete(blocking(folders::remove)),
        )
        .route(
            "/v1/workspaces/{ws}/folders/{folder}/move",
            post(blocking(folders::move_folder)),
        )
        .route(
            "/v1/workspaces/{ws}/items/bulkExportDefinitions",
            post(blocking(bulk::export)),
        )
        .route(
            "/v1/workspaces/{ws}/items/bulkImportDefinitions",
            post(blocking(bulk::import)),
        )
        .route(
            "/v1/workspaces/{ws}/items/bulkMove",
            post(blocking(bulk::move_items)),
        )
        .route(
            "/v1/workspaces/{ws}/sqlDatabases/restorableDeletedDatabases",
            get(blocking(sql_restorable::list)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}",
            get(blocking(items::list)).post(blocking(item_create::create)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}",
            get(blocking(items::show))
                .patch(blocking(items::update))
                .delete(blocking(items::remove)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/getDefinition",
            post(blocking(definitions::get_definition)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/updateDefinition",
            post(blocking(definitions::update_definition)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/move",
            post(blocking(items::move_item)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/shortcuts",
            get(blocking(shortcuts::list)).post(blocking(shortcuts::create)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/shortcuts/bulkCreate",
            post(blocking(shortcuts::bulk_create)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/shortcuts/{*rest}",
            get(blocking(shortcuts::show)).delete(blocking(shortcuts::remove)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/tables",
            get(blocking(lakehouse_tables::list)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/tables/{table}/load",
            post(blocking(lakehouse_load::load)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/schemas/{schema}/tables/{table}/load",
            post(blocking(lakehouse_load::load_in_schema)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/jobs/instances",
            get(blocking(jobs::list)).post(blocking(jobs::run)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/jobs/instances/{instance}",
            get(blocking(jobs::show)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/jobs/instances/{instance}/cancel",
            post(blocking(jobs::cancel)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/jobs/{job_type}/instances",
            post(blocking(jobs::run)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/jobs/{job_type}/instances/{instance}",
            get(blocking(notebook_runs::show)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/livySessions",
            get(blocking(livy_sessions::list_item)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/livySessions/{livy}",
            get(blocking(livy_sessions::show_item)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/mlvexecutiondefinitions",
            get(blocking(mlv_definitions::list)).post(blocking(mlv_definitions::create)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/mlvexecutiondefinitions/{definition}",
            get(blocking(mlv_definitions::show))
                .patch(blocking(mlv_definitions::update))
                .delete(blocking(mlv_definitions::remove)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/jobs/{job_type}/schedules",
            get(blocking(schedules::list)).post(blocking(schedules::create)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/jobs/{job_type}/schedules/{schedule}",
            get(blocking(schedules::show))
                .patch(blocking(schedules::update))
                .delete(blocking(schedules::remove)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/bindConnection",
            post(blocking(deploy_reads::bind_connection)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/connections",
            get(blocking(item_links::connections)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/relations/{direction}",
            get(blocking(item_links::relations)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/logicalId",
            patch(blocking(item_links::update_logical_id)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/applyTags",
            post(blocking(item_links::apply_tags)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/unapplyTags",
            post(blocking(item_links::unapply_tags)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/identities/default/assign",
            post(blocking(bulk::assign_identity)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/externalDataShares",
            get(blocking(shares::list)).post(blocking(shares::create)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/externalDataShares/{share}",
            get(blocking(shares::show)).delete(blocking(shares::remove)),
        )
        .route(
            "/v1/workspaces/{ws}/{collection}/{item}/externalDataShares/{share}/revoke",
            post(blocking(shares::revoke)),
        )
        .route(
            "/v1/externalDataShares/invitations/{invitation}",
            get(blocking(invitations::show)),
        )
        .route(
            "/v1/externalDataShares/invitations/{invitation}/accept",
            post(blocking(invitations::accept)),
        )
        .route(
            "/v1/connections",
            get(blocking(deploy_reads::list_connections)),
        )
        .route(
            "/v1/workspaces/{ws}/spark/pools",
            get(blocking(deploy_reads::list_spark_pools)),
        )
        .route(
            "/v1/workspaces/{ws}/spark/livySessions",
            get(blocking(livy_sessions::list_workspace)),
        )
        .route("/v1/tags", get(blocking(tags::list)))
        .route("/v1/admin/tags", get(blocking(tags::list)))
        .route(
            "/v1.0/myorg/groups/{ws}/{collection}",
            get(blocking(powerbi::list)),
        )
        .merge(data_agent_routes())
        .merge(assistant_routes(&state))
        .route(
            "/v1/mcp/workspaces/{ws}/dataagents/{id}/agent",
            post(agent_mcp::handle),
        )
        .route(
            "/v1/mcp/dataPlane/workspaces/{ws}/items/{id}/sqlEndpoint",
            post(sql_endpoint::handle),
        )
        .route("/v1/operations/{op}", get(blocking(operations::state)))
        .route(
            "/v1/operations/{op}/result",
            get(blocking(operations::result)),
        )
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            middleware::faults,
        ));

    let routed = Router::new()
        .merge(api)
        // Token endpoint: no faults, no bearer (it is where bearers come from).
        .route("/{tenant}/oauth2/v2.0/token", post(blocking(token::issue)))
        .route(
            "/{tenant}/oauth2/v2.0/devicecode",
            post(blocking(device_code::start)),
        )
        // Where MSAL and token validators find the authority's endpoints and keys.
        .route(
            "/{tenant}/v2.0/.well-known/openid-configuration",
            get(blocking(discovery::openid_configuration)),
        )
        .route("/discovery/v2.0/keys", get(discovery::keys))
        .route(
            "/{tenant}/discovery/v2.0/keys",
            get(blocking(discovery::tenant_keys)),
        )
        .route(
            "/{tenant}/oauth2/v2.0/authorize",
            get(device_code::login_page),
        )
        // Managed identity: the VM metadata service's path and App Service's.
        .route(
            "/metadata/identity/oauth2/token",
            get(blocking(managed_identity::imds)),
        )
        .route("/msi/token", get(blocking(managed_identity::app_service)))
        // What a browser opens during a device-code sign-in: the one `/_local` page open to all.
        .route("/_local/devicelogin", get(device_code::login_page))
        // Proves which store the server opened, to a client about to send it a secret.
        .route(
            "/_local/identity",
            get(blocking(crate::server_identity::answer)),
        )
        .merge(local_admin_routes(state.clone()))
        // OneLake's Blob API: its own tokens and error shapes, none of the API's faults (a lost
        // answer has its own knob).
        .merge(crate::onelake::routes(&state))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        // Bodies are read by `bodies` within their own caps; this one only bounds an axum
        // extractor a handler might use instead.
        .layer(DefaultBodyLimit::max(bodies::API_LIMIT))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            hosts::guard,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            middleware::common,
        ))
        .with_state(state);
    // Outside the routed router, so the trimmed path is the one routed.
    Router::new()
        .fallback_service(routed)
        .layer(axum::middleware::map_request(trailing_slash::trim))
}

/// `/_local/*` test and admin routes, for the local admin's token only: they show every
/// caller's requests, mint tokens, add principals. One layer checks, so a route added here
/// cannot forget to.
fn local_admin_routes(state: Shared) -> Router<Shared> {
    Router::new()
        .route(
            "/_local/devicecodes/approve",
            post(blocking(device_code::approve)),
        )
        .route(
            "/_local/demo-workspaces",
            post(blocking(local_admin::demo_copy)),
        )
        .route(
            "/_local/federated-tokens",
            post(blocking(local_admin::issue_federated_token)),
        )
        .route("/_local/requests", get(blocking(local_admin::requests)))
        .route(
            "/_local/jobs/{id}/request",
            get(blocking(jobs::run_request_body)),
        )
        .route("/_local/shutdown", post(blocking(local_admin::shutdown)))
        .route("/_local/tenants", get(blocking(local_admin::tenants)))
        .route(
            "/_local/principals",
            get(blocking(local_admin::list_principals)).post(blocking(local_admin::add_principal)),
        )
        .route(
            "/_local/principals/{key}",
            delete(blocking(local_admin::remove_principal)),
        )
        .route("/_local/tokens", post(blocking(local_admin::issue_token)))
        .route("/_local/tables", post(blocking(local_admin::load_table)))
        .route_layer(axum::middleware::from_fn_with_state(
            state,
            local_admin::admin_only,
        ))
}

/// The data-agent configuration API: `staging/...` for the draft, the same paths without
/// `staging` for the published copy (read-only). The `{collection}` segment must be
/// `dataAgents`; the handlers check it.
fn data_agent_routes() -> Router<Shared> {
    const AGENT: &str = "/v1/workspaces/{ws}/{collection}/{item}";
    let ds = |stage: &str, rest: &str| format!("{AGENT}{stage}/datasources/{{ds}}{rest}");
    let mut router = Router::new()
        .route(
            &format!("{AGENT}/staging/settings"),
            get(blocking(agent_config::get_settings)).patch(blocking(agent_config::patch_settings)),
        )
        .route(
            &format!("{AGENT}/settings"),
            get(blocking(agent_config::get_settings)),
        )
        .route(
            &format!("{AGENT}/staging/publish"),
            post(blocking(deploy_reads::staging_publish)),
        )
        .route(
            &format!("{AGENT}/staging/reset"),
            post(blocking(agent_config::reset)),
        )
        .route(
            &format!("{AGENT}/staging/datasources"),
            get(blocking(agent_sources::list)).post(blocking(agent_sources::create)),
        )
        .route(
            &format!("{AGENT}/datasources"),
            get(blocking(agent_sources::list)),
        )
        .route(
            &ds("/staging", ""),
            get(blocking(agent_sources::show))
                .patch(blocking(agent_sources::update))
                .delete(blocking(agent_sources::remove)),
        )
        .route(
            &ds("/staging", "/elements"),
            get(blocking(agent_elements::list))
                .patch(blocking(agent_elements::update))
                .delete(blocking(agent_elements::remove)),
        )
        .route(
            &ds("/staging", "/fewshots"),
            get(blocking(agent_fewshots::list)).post(blocking(agent_fewshots::create)),
        )
        .route(
            &ds("/staging", "/fewshots/deleteAll"),
            post(blocking(agent_fewshots::remove_all)),
        )
        .route(
            &ds("/staging", "/fewshots/{fs}"),
            get(blocking(agent_fewshots::show))
                .patch(blocking(agent_fewshots::update))
                .delete(blocking(agent_fewshots::remove)),
        );
    for (rest, handler) in [
        ("", get(blocking(agent_sources::show))),
        ("/elements", get(blocking(agent_elements::list))),
        ("/fewshots", get(blocking(agent_fewshots::list))),
        ("/fewshots/{fs}", get(blocking(agent_fewshots::show))),
    ] {
        router = router.route(&ds("", rest), handler);
    }
    router
}

/// A published agent's Assistants-compatible surface (`{collection}` must be `dataagents`),
/// retired by the service; served only with the `legacy-assistants` knob.
fn assistant_routes(state: &Shared) -> Router<Shared> {
    const BASE: &str = "/v1/workspaces/{ws}/{collection}/{item}/aiassistant/openai";
    let at = |rest: &str| format!("{BASE}/{rest}");
    Router::new()
        .route(
            &at("assistants"),
            post(blocking(agent_assistants::create_assistant)),
        )
        .route(
            &at("threads"),
            post(blocking(agent_assistants::create_thread)),
        )
        .route(
            &at("threads/{thread}"),
            delete(blocking(agent_assistants::delete_thread)),
        )
        .route(
            &at("threads/{thread}/messages"),
            get(blocking(agent_assistants::list_messages))
                .post(blocking(agent_assistants::create_message)),
        )
        .route(
            &at("threads/{thread}/runs"),
            post(agent_assistants::create_run),
        )
        .route(
            &at("threads/{thread}/runs/{run}"),
            get(blocking(agent_assistants::show_run)),
        )
        .route(
            &at("threads/{thread}/runs/{run}/steps"),
            get(blocking(agent_assistants::list_steps)),
        )
        .route(
            &at("files/{file}"),
            get(blocking(agent_assistants::show_file)),
        )
        .route(
            &at("files/{file}/content"),
            get(blocking(agent_assistants::file_content)),
        )
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            agent_assistants::unless_retired,
        ))
}

async fn not_found() -> Response {
    ApiError::entity_not_found().into_response()
}

async fn method_not_allowed() -> Response {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "MethodNotAllowed",
        "The HTTP method is not supported for this resource",
    )
    .into_response()
}
