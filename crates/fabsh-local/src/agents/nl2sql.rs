//! NL-to-SQL with a language model, for local Fabric's agents when the server was given one
//! (the binary makes it from `FABSH_LLM_*`): the model gets the published instructions, the selected tables of each
//! SQL datasource with their columns and descriptions, the closest few-shots and the
//! conversation, and answers with one query or a reason it cannot.

use fabsh_model::agent::conversation::Conversation;
use fabsh_model::agent::definition::{ElementDoc, FewShotDoc, SourceFolder, StageDoc};
use fabsh_model::agent::language_model::JsonChat;
use fabsh_model::agent::sources;

/// Few-shots shown to the model (the service retrieves about four).
const EXAMPLES_SHOWN: usize = 4;

const SYSTEM: &str = "You are a data agent. Write one read-only T-SQL query that answers the user's question using only the tables listed. Reply with one JSON object and nothing else: {\"datasource\": \"<datasource name>\", \"sql\": \"<query>\"}, or {\"cannot_answer\": \"<why>\"} when the tables cannot answer it.";

/// What the model proposed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Proposal {
    /// A query to run on a datasource: the one the model named, else the first SQL one
    /// (`None` when the model named none and the agent has none).
    Query { source: Option<String>, sql: String },
    /// Why it cannot be answered.
    Cannot(String),
}

/// Asks the model for a query answering the conversation's question.
pub(crate) async fn write_query(
    model: &dyn JsonChat,
    published: &StageDoc,
    conversation: &Conversation,
    ranked: &[(f64, &SourceFolder, &FewShotDoc)],
) -> Result<Proposal, String> {
    let prompt = prompt(published, conversation, ranked);
    let reply = model.chat_json(SYSTEM, &prompt).await?;
    if let Some(why) = reply["cannot_answer"].as_str() {
        return Ok(Proposal::Cannot(why.to_string()));
    }
    let Some(sql) = reply["sql"]
        .as_str()
        .map(str::trim)
        .filter(|sql| !sql.is_empty())
    else {
        return Err("the model's reply has no sql".to_string());
    };
    let source = reply["datasource"].as_str().map(String::from).or_else(|| {
        sql_sources(published)
            .next()
            .map(|s| s.datasource.display_name.clone())
    });
    Ok(Proposal::Query {
        source,
        sql: sql.to_string(),
    })
}

fn sql_sources(published: &StageDoc) -> impl Iterator<Item = &SourceFolder> {
    published
        .sources
        .iter()
        .filter(|s| sources::by_definition_type(&s.datasource.kind).is_some_and(|kind| kind.sql))
}

/// The material the model is given.
pub(crate) fn prompt(
    published: &StageDoc,
    conversation: &Conversation,
    ranked: &[(f64, &SourceFolder, &FewShotDoc)],
) -> String {
    let mut text = String::new();
    if let Some(instructions) = published.config["aiInstructions"]
        .as_str()
        .filter(|i| !i.trim().is_empty())
    {
        text.push_str(&format!("Agent instructions: {instructions}\n\n"));
    }
    for source in sql_sources(published) {
        let doc = &source.datasource;
        text.push_str(&format!("Datasource {}", doc.display_name));
        if let Some(instructions) = doc.instructions.as_deref().filter(|i| !i.trim().is_empty()) {
            text.push_str(&format!(" (instructions: {instructions})"));
        }
        text.push_str(":\n");
        let mut tables = Vec::new();
        selected_tables(&doc.elements, &mut tables);
        for table in tables {
            let columns: Vec<String> = table
                .children
                .iter()
                .map(|c| {
                    let mut column = format!(
                        "{} {}",
                        c.display_name,
                        c.data_type.as_deref().unwrap_or("")
                    );
                    if let Some(description) = &c.description {
                        column.push_str(&format!(" -- {description}"));
                    }
                    column.trim().to_string()
                })
                .collect();
            text.push_str(&format!(
                "  table dbo.{} ({})",
                table.display_name,
                columns.join(", ")
            ));
            if let Some(description) = &table.description {
                text.push_str(&format!(" -- {description}"));
            }
            text.push('\n');
        }
    }
    let examples: Vec<&(f64, &SourceFolder, &FewShotDoc)> =
        ranked.iter().take(EXAMPLES_SHOWN).collect();
    if !examples.is_empty() {
        text.push_str("\nExamples:\n");
        for (_, source, example) in examples {
            text.push_str(&format!(
                "  Q: {}\n  SQL ({}): {}\n",
                example.question,
                source.datasource.display_name,
                example.query.as_deref().unwrap_or("")
            ));
        }
    }
    if !conversation.earlier.is_empty() {
        text.push_str("\nEarlier questions in this conversation:\n");
        for question in &conversation.earlier {
            text.push_str(&format!("  {question}\n"));
        }
    }
    text.push_str(&format!("\nQuestion: {}\n", conversation.question));
    text
}

/// The selected tables and views of a tree, with their columns.
fn selected_tables<'a>(elements: &'a [ElementDoc], out: &mut Vec<&'a ElementDoc>) {
    for element in elements {
        let is_table = element.kind.ends_with(".table") || element.kind.ends_with(".view");
        if is_table && element.is_selected {
            out.push(element);
        } else {
            selected_tables(&element.children, out);
        }
    }
}
