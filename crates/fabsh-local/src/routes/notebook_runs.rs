//! A notebook's runs through its own job routes (swagger notebook
//! `BackgroundJobs_RunOnDemandNotebook`, POST `…/notebooks/{id}/jobs/execute/instances`, and
//! `BackgroundJobs_Get_Notebook_Job_Instance_(beta)`, GET
//! `…/jobs/execute/instances/{jobInstanceId}?beta=true`). `execute` is no job type of its
//! own: the run it starts is the notebook's RunNotebook run, the one the generic job API
//! starts (the service's 202 points at the generic `…/items/{id}/jobs/instances/{id}`), so
//! either read answers any of the notebook's runs and each run is one Livy session.

use super::jobs::instance;
use super::target::ItemTarget;
use crate::api_error::ApiError;
use crate::auth::Caller;
use crate::clock::now_nanos;
use crate::respond::Query;
use crate::state::Shared;
use crate::store::jobs::Run;
use crate::store::principals::Role;
use axum::extract::{Path, State};
use axum::response::Response;
use fabsh_model::jobs::JobInstance;
use serde::{Deserialize, Serialize};

/// The route segment of a notebook's own job routes.
const EXECUTE: &str = "execute";

/// The job type a `…/jobs/{jobType}/instances` route starts: a notebook's `execute` is its
/// RunNotebook job; any other segment is the job type it names.
pub(crate) fn route_job_type(item_type: &str, named: &str) -> String {
    if item_type == "Notebook" && named.eq_ignore_ascii_case(EXECUTE) {
        "RunNotebook".to_string()
    } else {
        named.to_string()
    }
}

/// What of a stored run request says where it computes (`executionData.compute`).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredRequest {
    execution_data: Option<ExecutionData>,
}

#[derive(Deserialize)]
struct ExecutionData {
    compute: Option<String>,
}

/// Swagger `NotebookJobInstanceProperties`, of the compute the run asked for.
#[derive(Debug, Serialize)]
#[serde(tag = "compute")]
enum NotebookRunProperties {
    /// `SparkNotebookJobInstanceProperties`: the run's Livy session.
    Spark {
        #[serde(rename = "computeDetails")]
        compute_details: SparkDetails,
    },
    /// `JupyterNotebookJobInstanceProperties`: the Jupyter session.
    Jupyter {
        #[serde(rename = "computeDetails")]
        compute_details: JupyterDetails,
    },
    /// `DataWarehouseNotebookJobInstanceProperties`: nothing local Fabric knows of.
    DataWarehouse {
        #[serde(rename = "computeDetails")]
        compute_details: EmptyDetails,
    },
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct SparkDetails {
    livy_id: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct JupyterDetails {
    activity_id: String,
}

#[derive(Debug, Serialize)]
struct EmptyDetails {}

/// Swagger `NotebookJobInstance`: the `ItemJobInstance` with its `properties`.
#[derive(Debug, Serialize)]
struct NotebookJobInstance {
    #[serde(flatten)]
    instance: JobInstance,
    properties: NotebookRunProperties,
}

fn properties(run: &Run) -> NotebookRunProperties {
    let compute = run
        .request
        .as_deref()
        .and_then(|text| serde_json::from_str::<StoredRequest>(text).ok())
        .and_then(|request| request.execution_data)
        .and_then(|data| data.compute);
    // The session ids are the run's root activity id, as its Livy session's (livy_sessions).
    match compute.as_deref() {
        Some("Jupyter") => NotebookRunProperties::Jupyter {
            compute_details: JupyterDetails {
                activity_id: run.root_activity_id.clone(),
            },
        },
        Some("DataWarehouse") => NotebookRunProperties::DataWarehouse {
            compute_details: EmptyDetails {},
        },
        _ => NotebookRunProperties::Spark {
            compute_details: SparkDetails {
                livy_id: run.root_activity_id.clone(),
            },
        },
    }
}

/// The `{job_type}` and `{instance}` of the route.
#[derive(Deserialize)]
pub(crate) struct ExecutePath {
    job_type: String,
    instance: String,
}

/// GET `…/notebooks/{id}/jobs/execute/instances/{jobInstanceId}?beta=true`: the run, with
/// `Retry-After` while it runs, as the generic read answers it. Only a notebook's `execute`
/// route is served (404 `EntityNotFound` for other segments and types); without
/// `beta=true`, 400 `BetaParameterRequired`.
pub(crate) fn show(
    State(state): State<Shared>,
    caller: Caller,
    target: ItemTarget,
    Path(path): Path<ExecutePath>,
    query: Query,
) -> Result<Response, ApiError> {
    let item = target.open(&state, &caller, Role::Viewer)?;
    if item.item_type != "Notebook" || !path.job_type.eq_ignore_ascii_case(EXECUTE) {
        return Err(ApiError::entity_not_found());
    }
    query.require_beta()?;
    let now = now_nanos();
    let run = super::jobs::current_run(&state, &item.id, &path.instance, now)?;
    let body = NotebookJobInstance {
        instance: instance(&run, now),
        properties: properties(&run),
    };
    Ok(super::jobs::run_answer(&state, &run, now, &body))
}
