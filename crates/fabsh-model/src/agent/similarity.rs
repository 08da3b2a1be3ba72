//! How alike two questions (or two answers) are, without a model: text normalised (case,
//! punctuation, spacing), then content words compared by overlap. Local Fabric uses it to find
//! the few-shot closest to a question; `validate-fewshots` to find near-duplicates; the
//! deterministic grader to compare answers.

use std::collections::BTreeSet;

/// Words that carry no meaning of their own in a question about data.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "at", "by", "can", "did", "do", "does", "for", "from", "give", "has",
    "have", "how", "i", "in", "is", "it", "list", "many", "me", "much", "of", "on", "or", "please",
    "show", "tell", "that", "the", "there", "their", "them", "these", "this", "those", "to", "was",
    "we", "were", "what", "which", "who", "with", "you", "our", "my", "all",
];

/// Lower case, every run of characters other than letters and digits one space, trimmed.
/// Decimal points and thousands separators inside numbers are kept (`46,117.30`).
pub fn normalize(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for (at, &c) in chars.iter().enumerate() {
        let inside_number = matches!(c, '.' | ',')
            && at > 0
            && chars[at - 1].is_ascii_digit()
            && chars.get(at + 1).is_some_and(char::is_ascii_digit);
        if c.is_alphanumeric() || inside_number {
            if pending_space && !out.is_empty() {
                out.push(' ');
            }
            pending_space = false;
            out.extend(c.to_lowercase());
        } else {
            pending_space = true;
        }
    }
    out
}

/// The content words of a text: normalised, stop words dropped, each once.
pub fn content_words(text: &str) -> BTreeSet<String> {
    normalize(text)
        .split(' ')
        .filter(|word| !word.is_empty() && !STOP_WORDS.contains(word))
        .map(|word| word.trim_end_matches('s').to_string())
        .filter(|word| !word.is_empty())
        .collect()
}

/// Overlap of two word sets, 0.0 to 1.0 (Dice: twice the shared words over both counts).
pub fn overlap(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let shared = a.intersection(b).count() as f64;
    2.0 * shared / (a.len() + b.len()) as f64
}

/// How alike two texts are, 0.0 to 1.0.
pub fn similarity(a: &str, b: &str) -> f64 {
    overlap(&content_words(a), &content_words(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalising_keeps_numbers_whole() {
        assert_eq!(
            normalize("  Total: 46,117.30 EUR!! "),
            "total 46,117.30 eur"
        );
        assert_eq!(normalize("Hello,world."), "hello world");
    }

    #[test]
    fn rephrasings_score_high_and_other_questions_low() {
        let close = similarity("How many orders are there?", "how many orders?");
        assert!(close > 0.99, "{close}");
        let plural = similarity("Revenue by country", "revenues per country");
        assert!(plural > 0.6, "{plural}");
        let other = similarity(
            "How many customers live in Germany?",
            "Average order amount",
        );
        assert!(other < 0.2, "{other}");
    }
}
