//! The world's data agent: Sales agent over the demo lakehouse, with tables, few-shots and
//! instructions, published; a thread of one question; and a draft that still lists a table
//! the lakehouse no longer has.

use super::Builder;
use crate::help_examples::files;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

impl Builder<'_> {
    pub(super) fn data_agent(&mut self) {
        let id = self.text(
            &[
                "data-agent",
                "create",
                "-w",
                "Demo",
                "--name",
                "Sales agent",
            ],
            "id",
        );
        self.set("AGENT_ID", &id);
        self.ok(&agent("add-datasource", &["--artifact", "SalesLakehouse"]));
        let source = ["--datasource", "SalesLakehouse"];
        let tables = [&source[..], &["--tables", "orders,customers"]].concat();
        self.ok(&agent("select-tables", &tables));
        let mut fewshot_ids = Vec::new();
        for (question, sql) in files::FEWSHOTS {
            let add = [&source[..], &["--question", question, "--sql", sql]].concat();
            fewshot_ids.push(self.text(&agent("add-fewshot", &add), "id"));
        }
        self.set("FEWSHOT_ID", &fewshot_ids[0]);
        let instructions = ["--instructions", "Answer with the number first."];
        self.ok(&agent("update-config", &instructions));
        let description = [
            "--description",
            "Answers questions about orders and customers",
        ];
        self.ok(&agent("publish", &description));
        let definition = self.ok(&agent("get-definition", &[]));
        std::fs::write(self.file("agent.json"), definition).expect("agent.json");
        let ask = ["--prompt", "How many orders are there?", "--keep-thread"];
        let thread = self.text(&agent("query", &ask), "threadId");
        self.set("THREAD_ID", &thread);
        // After publishing, so the draft differs from what is published (`reset` undoes it).
        self.dropped_table();
    }

    /// Two recorded evaluation runs of the agent, BASE_RUN_ID before RUN_ID, for the
    /// `data-agent evaluations` examples (which take them as shell variables, as ids are new
    /// on every run).
    pub(super) fn evaluations(&mut self) {
        let questions = self.file("questions.json");
        let evaluate = agent("evaluate", &["--questions", &questions]);
        let base = self.text(&evaluate, "summary.runId");
        self.set("BASE_RUN_ID", &base);
        let run = self.text(&evaluate, "summary.runId");
        self.set("RUN_ID", &run);
    }

    /// A table the draft still lists but the lakehouse no longer has (what
    /// `delete-element` removes), made as a user would meet it: the definition names it.
    fn dropped_table(&mut self) {
        let definition = self.json(&agent("get-definition", &["--decode"]));
        let parts = definition["definition"]["parts"].as_array().expect("parts");
        let part = parts
            .iter()
            .find(|p| {
                p["path"]
                    .as_str()
                    .is_some_and(|p| p.ends_with("datasource.json"))
            })
            .expect("the datasource part");
        let text = part["decodedPayload"].as_str().expect("decoded");
        let mut datasource: Value = serde_json::from_str(text).expect("datasource JSON");
        let tables = &mut datasource["elements"][0]["children"][0]["children"][0]["children"];
        tables.as_array_mut().expect("tables").push(json!({
            "id": null, "is_selected": true, "display_name": "legacy_orders",
            "type": "lakehouse_tables.table", "description": null, "children": []
        }));
        let changed = json!({"parts": [{
            "path": part["path"],
            "payload": STANDARD.encode(datasource.to_string()),
            "payloadType": "InlineBase64",
        }]});
        self.ok(&agent(
            "update-definition",
            &["--content", &changed.to_string()],
        ));
        let query = "[?path=='dbo.legacy_orders'] | [0].id";
        let element = self.text(
            &agent("list-elements", &["--datasource", "SalesLakehouse"]),
            query,
        );
        self.set("ELEMENT_ID", &element);
    }
}

/// `data-agent COMMAND -w Demo --id "Sales agent"` and the rest.
fn agent<'s>(command: &'s str, rest: &[&'s str]) -> Vec<&'s str> {
    let mut args = vec!["data-agent", command, "-w", "Demo", "--id", "Sales agent"];
    args.extend_from_slice(rest);
    args
}
