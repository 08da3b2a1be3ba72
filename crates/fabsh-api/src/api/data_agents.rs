//! Data-agent requests (`/workspaces/{ws}/dataAgents`): the item itself, its definition, and
//! the preview configuration API — settings, datasources, elements, few-shots, publish and
//! reset — for the draft (`staging/...`) and the published stage.

use super::typed::read_each;
use super::{ApiClient, Created, LroOutcome, Req};
use crate::error::{Error, Result};
use fabsh_model::wire::{CreateTypedItemRequest, Item, UpdateItemRequest};
use serde_json::{Value, json};

/// Which configuration a read is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The draft the configuration API edits (`staging/...`).
    Staging,
    /// What the agent answers with (un-prefixed routes).
    Published,
}

impl Stage {
    /// From `--stage` (`staging` or `published`).
    pub fn parse(text: Option<&str>) -> Stage {
        match text {
            Some(text) if text.eq_ignore_ascii_case("published") => Stage::Published,
            _ => Stage::Staging,
        }
    }

    /// The name users write.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Staging => "staging",
            Stage::Published => "published",
        }
    }

    fn prefix(self) -> &'static str {
        match self {
            Stage::Staging => "/staging",
            Stage::Published => "",
        }
    }
}

/// One agent of one workspace: builds its paths.
#[derive(Debug, Clone)]
pub struct Agent {
    /// Workspace id.
    pub workspace: String,
    /// Agent id.
    pub id: String,
}

impl Agent {
    /// The agent's item path.
    pub fn path(&self) -> String {
        format!("/workspaces/{}/dataAgents/{}", self.workspace, self.id)
    }

    /// GET the agent (`properties.publishedDescription` once published).
    pub async fn get(&self, api: &ApiClient) -> Result<Value> {
        api.json(Req::get(self.path())).await
    }

    /// PATCH the agent's name and/or description.
    pub async fn update(&self, api: &ApiClient, request: &UpdateItemRequest) -> Result<Value> {
        let body = super::items::body_of(request)?;
        api.json(Req::patch(self.path(), body)).await
    }

    /// DELETE the agent: soft by default, permanently with `hard`.
    pub async fn delete(&self, api: &ApiClient, hard: bool) -> Result<()> {
        let req = Req::delete(self.path()).query_opt("hardDelete", hard.then_some("true"));
        api.send(req).await?;
        Ok(())
    }

    fn datasources(&self, stage: Stage) -> String {
        format!("{}{}/datasources", self.path(), stage.prefix())
    }

    fn datasource(&self, stage: Stage, datasource: &str) -> String {
        format!("{}/{datasource}", self.datasources(stage))
    }

    /// GET settings (`aiInstructions`, `experimental`) of a stage.
    pub async fn settings(&self, api: &ApiClient, stage: Stage) -> Result<Value> {
        api.json(Req::get(format!(
            "{}{}/settings",
            self.path(),
            stage.prefix()
        )))
        .await
    }

    /// PATCH the draft settings (partial).
    pub async fn patch_settings(&self, api: &ApiClient, body: Value) -> Result<Value> {
        api.json(Req::patch(
            format!("{}/staging/settings", self.path()),
            body,
        ))
        .await
    }

    /// The list request of a stage's datasources.
    pub fn datasources_req(&self, stage: Stage) -> Req {
        Req::get(self.datasources(stage))
    }

    /// One datasource of a stage.
    pub async fn datasource_get(
        &self,
        api: &ApiClient,
        stage: Stage,
        datasource: &str,
    ) -> Result<Value> {
        api.json(Req::get(self.datasource(stage, datasource))).await
    }

    /// Adds a datasource (an LRO while its schema is discovered), never twice: a lost answer
    /// is checked against the list by the referenced item before the create is sent again.
    pub async fn datasource_create(&self, api: &ApiClient, body: Value) -> Result<Created> {
        // fabsh builds every datasource body with its item reference: a lost answer is looked
        // for by it, so a body without one is not sent.
        let item = fabsh_model::agent::sources::referenced_item(&body)
            .ok_or_else(|| Error::runtime("a datasource to add names no item to read"))?
            .to_string();
        let req = Req::post(self.datasources(Stage::Staging), body);
        api.create_checked(req, || self.draft_datasource_reading(api, &item))
            .await
    }

    /// The draft datasource that reads `item`, if there is one (at most one per item).
    pub async fn draft_datasource_reading(
        &self,
        api: &ApiClient,
        item: &str,
    ) -> Result<Option<Value>> {
        let all = api.all(self.datasources_req(Stage::Staging)).await?;
        Ok(all.into_iter().find(|ds| {
            fabsh_model::agent::sources::referenced_item(ds)
                .is_some_and(|id| id.eq_ignore_ascii_case(item))
        }))
    }

    /// PATCH a draft datasource (`instructions`, `description`).
    pub async fn datasource_patch(
        &self,
        api: &ApiClient,
        datasource: &str,
        body: Value,
    ) -> Result<Value> {
        let req = Req::patch(self.datasource(Stage::Staging, datasource), body);
        api.json(req).await
    }

    /// DELETE a draft datasource.
    pub async fn datasource_delete(&self, api: &ApiClient, datasource: &str) -> Result<()> {
        api.send(Req::delete(self.datasource(Stage::Staging, datasource)))
            .await?;
        Ok(())
    }

    /// The list request of one level of the element tree (`root` = the parent's id).
    pub fn elements_req(&self, stage: Stage, datasource: &str, root: Option<&str>) -> Req {
        Req::get(format!("{}/elements", self.datasource(stage, datasource)))
            .query_opt("rootId", root)
    }

    /// PATCH one draft element (`isSelected`, `description`).
    pub async fn element_patch(
        &self,
        api: &ApiClient,
        datasource: &str,
        element: &str,
        body: Value,
    ) -> Result<Value> {
        let path = format!("{}/elements", self.datasource(Stage::Staging, datasource));
        api.json(Req::patch(path, body).query("id", element)).await
    }

    /// DELETE one draft element (only those gone from the live schema).
    pub async fn element_delete(
        &self,
        api: &ApiClient,
        datasource: &str,
        element: &str,
    ) -> Result<()> {
        let path = format!("{}/elements", self.datasource(Stage::Staging, datasource));
        api.send(Req::delete(path).query("id", element)).await?;
        Ok(())
    }

    /// The list request of a datasource's few-shots.
    pub fn fewshots_req(&self, stage: Stage, datasource: &str) -> Req {
        Req::get(format!("{}/fewshots", self.datasource(stage, datasource)))
    }

    fn fewshot(&self, stage: Stage, datasource: &str, fewshot: &str) -> String {
        format!("{}/fewshots/{fewshot}", self.datasource(stage, datasource))
    }

    /// One few-shot of a stage.
    pub async fn fewshot_get(
        &self,
        api: &ApiClient,
        stage: Stage,
        datasource: &str,
        fewshot: &str,
    ) -> Result<Value> {
        api.json(Req::get(self.fewshot(stage, datasource, fewshot)))
            .await
    }

    /// Adds a few-shot to the draft (201 with `validationStatus: Validating`).
    pub async fn fewshot_create(
        &self,
        api: &ApiClient,
        datasource: &str,
        question: &str,
        query: &str,
    ) -> Result<Value> {
        let path = format!("{}/fewshots", self.datasource(Stage::Staging, datasource));
        api.json(Req::post(
            path,
            json!({"question": question, "query": query}),
        ))
        .await
    }

    /// PATCH a draft few-shot (`question`, `query`).
    pub async fn fewshot_patch(
        &self,
        api: &ApiClient,
        datasource: &str,
        fewshot: &str,
        body: Value,
    ) -> Result<Value> {
        let req = Req::patch(self.fewshot(Stage::Staging, datasource, fewshot), body);
        api.json(req).await
    }

    /// DELETE a draft few-shot.
    pub async fn fewshot_delete(
        &self,
        api: &ApiClient,
        datasource: &str,
        fewshot: &str,
    ) -> Result<()> {
        let req = Req::delete(self.fewshot(Stage::Staging, datasource, fewshot));
        api.send(req).await?;
        Ok(())
    }

    /// Removes every draft few-shot of a datasource.
    pub async fn fewshots_delete_all(&self, api: &ApiClient, datasource: &str) -> Result<()> {
        let path = format!(
            "{}/fewshots/deleteAll",
            self.datasource(Stage::Staging, datasource)
        );
        // Deleting everything twice leaves the same state, so a retry is harmless.
        api.send(Req::post(path, json!({})).idempotent()).await?;
        Ok(())
    }

    /// Promotes the draft to the published stage; answers `{publishedDescription}`.
    /// Items_PublishDataAgent is declared 200-only, but Fabric's long-running calls may answer
    /// 202 on any call, so the answer goes through the LRO path; an operation that ends
    /// without a result leaves the description to be read from the agent
    /// (`properties.publishedDescription`).
    pub async fn publish(&self, api: &ApiClient, description: Option<&str>) -> Result<Value> {
        let body = match description {
            Some(text) => json!({"publishedDescription": text}),
            None => json!({}),
        };
        let req = Req::post(format!("{}/staging/publish", self.path()), body).idempotent();
        match api.lro(req).await? {
            LroOutcome::Done(Value::Null) => Ok(published_answer(&self.get(api).await?)),
            outcome => Ok(outcome.into_value()),
        }
    }

    /// Discards the draft's unpublished changes.
    pub async fn reset(&self, api: &ApiClient) -> Result<()> {
        let req = Req::post(format!("{}/staging/reset", self.path()), json!({})).idempotent();
        api.send(req).await?;
        Ok(())
    }
}

/// The publish answer (`PublishDataAgentResponse`) that an agent's item (`GetDataAgent`:
/// `properties.publishedDescription`) implies.
pub fn published_answer(agent: &Value) -> Value {
    json!({"publishedDescription": agent["properties"]["publishedDescription"]})
}

/// The list request of a workspace's agents.
pub fn list_req(workspace: &str) -> Req {
    Req::get(format!("/workspaces/{workspace}/dataAgents"))
}

/// Creates an agent, never twice (names are unique per type in a workspace).
pub async fn create(
    api: &ApiClient,
    workspace: &str,
    request: &CreateTypedItemRequest,
) -> Result<Created> {
    let name = &request.display_name;
    let body = super::items::body_of(request)?;
    let req = Req::post(format!("/workspaces/{workspace}/dataAgents"), body);
    api.create_checked(req, || async {
        let listed = read_each::<Item>(api.all(list_req(workspace)).await?, "a data agent")?;
        Ok(super::resolve::find_named(&listed, name).map(|(_, json)| json))
    })
    .await
}
