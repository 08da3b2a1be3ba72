//! The follow-up conversation format. A published agent's MCP tool takes one question text,
//! so a follow-up carries its conversation in that text: the earlier turns as `Q:`/`A:`
//! lines, then the new question. The client writes it ([`write`]) from the threads it keeps;
//! local Fabric writes it from an Assistants thread and reads it back ([`Conversation::parse`])
//! to answer.

use super::similarity::{content_words, overlap};

/// How many earlier turns a follow-up carries.
pub const CONTEXT_TURNS: usize = 10;
/// How much of each earlier answer a follow-up carries.
pub const CONTEXT_ANSWER_CHARS: usize = 4000;

const LEAD_IN: &str = "Earlier in this conversation:";
const FOLLOW_UP: &str = "Answer this follow-up question in the light of the conversation above:";

/// The question text for `question` after the `earlier` turns (question, answer), oldest
/// first: the question alone when there are none.
pub fn write<'a>(earlier: impl IntoIterator<Item = (&'a str, &'a str)>, question: &str) -> String {
    let earlier: Vec<(&str, &str)> = earlier.into_iter().collect();
    if earlier.is_empty() {
        return question.to_string();
    }
    let recent = &earlier[earlier.len().saturating_sub(CONTEXT_TURNS)..];
    let mut text = format!("{LEAD_IN}\n");
    for (asked, answered) in recent {
        let answer: String = answered.chars().take(CONTEXT_ANSWER_CHARS).collect();
        text.push_str(&format!("Q: {asked}\nA: {answer}\n"));
    }
    text.push_str(&format!("\n{FOLLOW_UP}\n{question}"));
    text
}

/// A question and the conversation before it.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversation {
    /// The question to answer.
    pub question: String,
    /// Earlier questions, oldest first.
    pub earlier: Vec<String>,
}

impl Conversation {
    /// Splits a text into the question (its last paragraph, without a lead-in line ending in
    /// `:`) and the earlier `Q:` lines.
    pub fn parse(text: &str) -> Conversation {
        let text = text.trim();
        let earlier: Vec<String> = text
            .lines()
            .filter_map(|line| line.trim().strip_prefix("Q:"))
            .map(|q| q.trim().to_string())
            .collect();
        if earlier.is_empty() {
            return Conversation {
                question: text.to_string(),
                earlier,
            };
        }
        let last = text.rsplit("\n\n").next().unwrap_or(text);
        let lines: Vec<&str> = last.lines().collect();
        let body = match lines.split_first() {
            Some((first, rest)) if first.trim_end().ends_with(':') && !rest.is_empty() => {
                rest.join("\n")
            }
            _ => last.to_string(),
        };
        Conversation {
            question: body.trim().to_string(),
            earlier,
        }
    }

    /// How close (0..1) a few-shot question is: to the question alone, or to the question
    /// read with the one before it (a follow-up such as "and in Germany?").
    pub fn closeness(&self, example: &str) -> f64 {
        let example = content_words(example);
        let alone = overlap(&content_words(&self.question), &example);
        let with_context = self.earlier.last().map_or(0.0, |previous| {
            let mut words = content_words(previous);
            words.extend(content_words(&self.question));
            overlap(&words, &example)
        });
        alone.max(with_context)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_follow_up_carries_the_earlier_turns() {
        assert_eq!(write([], "How many?"), "How many?");
        let text = write([("Revenue in 2023?", "46,117.30")], "and for 2024?");
        assert_eq!(
            text,
            "Earlier in this conversation:\nQ: Revenue in 2023?\nA: 46,117.30\n\nAnswer this follow-up question in the light of the conversation above:\nand for 2024?"
        );
    }

    #[test]
    fn only_the_recent_turns_and_the_start_of_long_answers_are_carried() {
        let long = "x".repeat(CONTEXT_ANSWER_CHARS + 10);
        let turns: Vec<(String, &str)> = (0..CONTEXT_TURNS + 2)
            .map(|n| (format!("question {n}"), long.as_str()))
            .collect();
        let text = write(turns.iter().map(|(q, a)| (q.as_str(), *a)), "now?");
        assert!(!text.contains("Q: question 1\n"));
        assert!(text.contains("Q: question 2\n"));
        assert!(!text.contains(&"x".repeat(CONTEXT_ANSWER_CHARS + 1)));
    }

    #[test]
    fn what_is_written_parses_back() {
        let plain = Conversation::parse("How many orders?");
        assert_eq!(
            (plain.question.as_str(), plain.earlier.len()),
            ("How many orders?", 0)
        );
        let text = write(
            [("How many customers are there?", "200")],
            "and in Germany?",
        );
        let follow = Conversation::parse(&text);
        assert_eq!(follow.question, "and in Germany?");
        assert_eq!(follow.earlier, vec!["How many customers are there?"]);
    }

    #[test]
    fn a_follow_up_is_read_with_the_question_before_it() {
        let example = "How many customers live in Germany?";
        let follow = Conversation::parse(&write(
            [("How many customers are there?", "200")],
            "and in Germany?",
        ));
        let alone = Conversation::parse("and in Germany?");
        assert!(follow.closeness(example) > alone.closeness(example));
        assert!(follow.closeness(example) >= 0.6);
    }
}
