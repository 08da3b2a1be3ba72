//! The job scheduler (swagger platform `JobScheduler_*`): start a run, read, list and cancel
//! runs, and an item's schedules per job type.

use super::ApiClient;
use super::request::Req;
use super::typed::read;
use crate::error::{Error, Result};
use fabsh_http::retry;
use fabsh_model::jobs::{ItemSchedule, JobInstance, RunRequest, ScheduleRequest};
use reqwest::{Method, Url};
use serde_json::Value;
use std::time::Duration;

/// A run the service accepted: where to follow it and when to look first.
#[derive(Debug, Clone)]
pub struct Started {
    pub id: String,
    pub url: Url,
    pub retry_after: Duration,
    /// Local Fabric said the run executes nothing (it only follows the run's lifecycle).
    pub lifecycle_only: bool,
}

fn item_path(workspace: &str, item: &str) -> String {
    format!("/workspaces/{workspace}/items/{item}")
}

/// POST `…/jobs/instances?jobType=T` with the optional body; the 202's `Location` names the
/// run. Under `--dry-run` the request is recorded and `None` comes back.
pub async fn run(
    api: &ApiClient,
    workspace: &str,
    item: &str,
    job_type: &str,
    body: &RunRequest,
) -> Result<Option<Started>> {
    let target = format!("{}/jobs/instances", item_path(workspace, item));
    // No body at all when there is nothing to send, as the swagger's first example.
    let req = if body.is_empty() {
        Req::new(Method::POST, target)
    } else {
        Req::post(
            target,
            serde_json::to_value(body).map_err(|e| Error::runtime(e.to_string()))?,
        )
    };
    let req = req.query("jobType", job_type);
    let resp = api.send(req).await?;
    if api.options().dry_run {
        return Ok(None);
    }
    let location = resp.header("location").ok_or_else(|| {
        Error::runtime(format!(
            "the service accepted the run ({}) but named no job instance to follow",
            resp.status
        ))
    })?;
    let url = api.url_for(location)?;
    // The id only names the run (its URL is what is followed), so a URL without a last
    // segment leaves it empty rather than refusing the run.
    let id = url
        .path_segments()
        .and_then(|mut segments| segments.rfind(|s| !s.is_empty()))
        // A URL without path segments names no instance.
        .unwrap_or_default()
        .to_string();
    Ok(Some(Started {
        id,
        url,
        retry_after: retry::retry_after(&resp.headers).unwrap_or(Duration::ZERO),
        lifecycle_only: resp.header("x-fabsh-local-lifecycle-only") == Some("true"),
    }))
}

/// The URL of one run.
pub fn instance_url(api: &ApiClient, workspace: &str, item: &str, id: &str) -> Result<Url> {
    api.url_for(&format!(
        "{}/jobs/instances/{id}",
        item_path(workspace, item)
    ))
}

/// GET a run by its URL, with the `Retry-After` the service sends while it runs.
pub async fn poll(api: &ApiClient, url: &Url) -> Result<(JobInstance, Option<Duration>)> {
    let resp = api.send(Req::get(url.as_str())).await?;
    let wait = retry::retry_after(&resp.headers);
    Ok((read(resp.json()?, "a job instance")?, wait))
}

/// GET one run.
pub async fn get(api: &ApiClient, workspace: &str, item: &str, id: &str) -> Result<JobInstance> {
    let url = instance_url(api, workspace, item, id)?;
    Ok(poll(api, &url).await?.0)
}

/// The request of the list of an item's runs (paged).
pub fn list_req(workspace: &str, item: &str) -> Req {
    Req::get(format!("{}/jobs/instances", item_path(workspace, item)))
}

/// Every run of an item, all pages.
pub async fn list_all(api: &ApiClient, workspace: &str, item: &str) -> Result<Vec<JobInstance>> {
    api.all_as(list_req(workspace, item), "a job instance")
        .await
}

/// POST `…/jobs/instances/{id}/cancel` (202; the run becomes Cancelled).
pub async fn cancel(api: &ApiClient, workspace: &str, item: &str, id: &str) -> Result<()> {
    let target = format!("{}/jobs/instances/{id}/cancel", item_path(workspace, item));
    api.send(Req::new(Method::POST, target)).await?;
    Ok(())
}

fn schedules_path(workspace: &str, item: &str, job_type: &str) -> String {
    format!("{}/jobs/{job_type}/schedules", item_path(workspace, item))
}

/// The request of the list of an item's schedules of one job type (paged).
pub fn schedules_req(workspace: &str, item: &str, job_type: &str) -> Req {
    Req::get(schedules_path(workspace, item, job_type))
}

fn schedule_body(request: &ScheduleRequest) -> Result<Value> {
    serde_json::to_value(request).map_err(|e| Error::runtime(e.to_string()))
}

/// POST a new schedule; the created one (`None` under `--dry-run`).
pub async fn create_schedule(
    api: &ApiClient,
    workspace: &str,
    item: &str,
    job_type: &str,
    request: &ScheduleRequest,
) -> Result<Option<ItemSchedule>> {
    let req = Req::post(
        schedules_path(workspace, item, job_type),
        schedule_body(request)?,
    );
    let value = api.json(req).await?;
    if api.options().dry_run {
        return Ok(None);
    }
    read(value, "the new schedule").map(Some)
}

/// Every schedule of an item for one job type, all pages.
pub async fn list_schedules(
    api: &ApiClient,
    workspace: &str,
    item: &str,
    job_type: &str,
) -> Result<Vec<ItemSchedule>> {
    api.all_as(schedules_req(workspace, item, job_type), "a schedule")
        .await
}

/// GET one schedule.
pub async fn get_schedule(
    api: &ApiClient,
    workspace: &str,
    item: &str,
    job_type: &str,
    id: &str,
) -> Result<ItemSchedule> {
    let target = format!("{}/{id}", schedules_path(workspace, item, job_type));
    read(api.json(Req::get(target)).await?, "a schedule")
}

/// PATCH a schedule with its whole new settings; the updated one (`None` under `--dry-run`).
pub async fn update_schedule(
    api: &ApiClient,
    workspace: &str,
    item: &str,
    job_type: &str,
    id: &str,
    request: &ScheduleRequest,
) -> Result<Option<ItemSchedule>> {
    let target = format!("{}/{id}", schedules_path(workspace, item, job_type));
    let value = api
        .json(Req::patch(target, schedule_body(request)?))
        .await?;
    if api.options().dry_run {
        return Ok(None);
    }
    read(value, "the updated schedule").map(Some)
}

/// DELETE a schedule.
pub async fn delete_schedule(
    api: &ApiClient,
    workspace: &str,
    item: &str,
    job_type: &str,
    id: &str,
) -> Result<()> {
    let target = format!("{}/{id}", schedules_path(workspace, item, job_type));
    api.send(Req::delete(target)).await?;
    Ok(())
}
