//! The display names the service refuses, as one table: the workspace's, the folder's, and
//! each item type's that documents rules of its own. fabsh checks a name against it before
//! sending a create or a rename (exit 2, naming the flag), and local Fabric refuses what it
//! refuses, as the service would.
//!
//! Only documented rules are here. The swagger (microsoft/fabric-rest-api-specs, commit
//! 4a7d6e4) says of most item types only that "the display name must follow naming rules
//! according to item type"; where neither it nor the type's Learn page states a rule, a name
//! is taken as it is. Learn's git-integration page ("Git integration source code format",
//! Directory name) says items' names may hold characters a directory name cannot, and leading
//! or trailing spaces and dots, which git integration then encodes: so `/`, `..`, a line break
//! or NUL are refused for folders (whose rules name them) and the types that allow only
//! certain characters, not for every item.

mod table;
#[cfg(test)]
mod tests;

pub use table::{FOLDER, ITEM_TYPES, OTHER_ITEMS, WORKSPACE};

/// What counts as a letter or a digit for a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Letters {
    /// `A`–`Z`, `a`–`z` and `0`–`9` only (the rule spells them out).
    Ascii,
    /// Any Unicode letter or digit (the rule says "letters" or "alphanumeric" and no more).
    Any,
}

impl Letters {
    fn letter(self, c: char) -> bool {
        match self {
            Letters::Ascii => c.is_ascii_alphabetic(),
            Letters::Any => c.is_alphabetic(),
        }
    }

    fn letter_or_digit(self, c: char) -> bool {
        match self {
            Letters::Ascii => c.is_ascii_alphanumeric(),
            Letters::Any => c.is_alphanumeric(),
        }
    }
}

/// The only characters a name may hold, when a rule lists them: letters, digits and `also`.
#[derive(Debug, Clone, Copy)]
pub struct Alphabet {
    /// What counts as a letter or digit.
    pub letters: Letters,
    /// The other characters allowed.
    pub also: &'static str,
}

impl Alphabet {
    fn allows(&self, c: char) -> bool {
        self.letters.letter_or_digit(c) || self.also.contains(c)
    }

    /// The characters, as a rule's message names them.
    fn described(&self) -> String {
        let letters = match self.letters {
            Letters::Ascii => "letters (A-Z, a-z), digits",
            Letters::Any => "letters, digits",
        };
        let others: Vec<String> = self.also.chars().map(|c| format!("'{c}'")).collect();
        match others.as_slice() {
            [] => letters.to_string(),
            [one] => format!("{letters} and {one}"),
            [rest @ .., last] => format!("{letters}, {} and {last}", rest.join(", ")),
        }
    }
}

/// What the service accepts as the display name of one kind of thing; every field that is
/// not its default comes from the source its row in [`table`] cites.
#[derive(Debug, Clone, Copy)]
pub struct NameRules {
    /// Whose names these are, as a message names them: an item type, `workspace`, `folder`.
    pub of: &'static str,
    /// The most characters a name may have.
    pub max_chars: usize,
    /// The only characters allowed, when the rule lists them.
    pub alphabet: Option<Alphabet>,
    /// Whether the first character must be a letter (of the alphabet's kind).
    pub starts_with_letter: bool,
    /// Characters a name may not hold.
    pub forbidden: &'static str,
    /// Whether C0 and C1 control codes (U+0000–U+001F, U+0080–U+009F) are refused.
    pub no_control_codes: bool,
    /// Whether a space may not begin or end the name.
    pub no_edge_spaces: bool,
    /// Characters a name may not end with.
    pub no_trailing: &'static str,
    /// Names that are taken by the system, compared ignoring case.
    pub reserved: &'static [&'static str],
}

impl NameRules {
    /// A kind of thing whose names only have a length limit.
    pub(crate) const fn up_to(of: &'static str, max_chars: usize) -> NameRules {
        NameRules {
            of,
            max_chars,
            alphabet: None,
            starts_with_letter: false,
            forbidden: "",
            no_control_codes: false,
            no_edge_spaces: false,
            no_trailing: "",
            reserved: &[],
        }
    }

    /// The rule `name` breaks, said so that a person can fix the name; `None` when the
    /// service takes it. Emptiness is the callers' (a required field), not a naming rule.
    pub fn problem(&self, name: &str) -> Option<String> {
        let of = self.of;
        let length = name.chars().count();
        if length > self.max_chars {
            return Some(format!(
                "{of} names have at most {} characters; this one has {length}",
                self.max_chars
            ));
        }
        if self.no_control_codes
            && let Some(c) = name.chars().find(|&c| is_control_code(c))
        {
            return Some(format!(
                "{of} names may not hold control characters ({})",
                shown(c)
            ));
        }
        if let Some(alphabet) = &self.alphabet
            && let Some(c) = name.chars().find(|&c| !alphabet.allows(c))
        {
            return Some(format!(
                "{of} names hold only {}; {} is not allowed",
                alphabet.described(),
                shown(c)
            ));
        }
        if let Some(c) = name.chars().find(|&c| self.forbidden.contains(c)) {
            return Some(format!(
                "{of} names may not hold {}; none of {} is allowed",
                shown(c),
                self.forbidden
            ));
        }
        if self.starts_with_letter {
            let letters = self.alphabet.map_or(Letters::Any, |a| a.letters);
            if !name.chars().next().is_some_and(|c| letters.letter(c)) {
                return Some(format!("{of} names begin with a letter"));
            }
        }
        if self.no_edge_spaces && (name.starts_with(' ') || name.ends_with(' ')) {
            return Some(format!("{of} names may not begin or end with a space"));
        }
        if let Some(c) = name
            .chars()
            .last()
            .filter(|&c| self.no_trailing.contains(c))
        {
            return Some(format!("{of} names may not end with {}", shown(c)));
        }
        if let Some(taken) = self
            .reserved
            .iter()
            .find(|taken| taken.eq_ignore_ascii_case(name))
        {
            return Some(format!("'{taken}' is a reserved {of} name"));
        }
        None
    }
}

/// C0 and C1 control codes, as the folder rules name them.
fn is_control_code(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{1f}' | '\u{80}'..='\u{9f}')
}

/// A character as a message shows it: quoted, or by code point when it would not print.
fn shown(c: char) -> String {
    if c.is_control() || c.is_whitespace() && c != ' ' {
        format!("U+{:04X}", u32::from(c))
    } else {
        format!("'{c}'")
    }
}

/// The rules for names of items of `item_type` (any case): its own row, or the rules every
/// other type has.
pub fn item(item_type: &str) -> &'static NameRules {
    ITEM_TYPES
        .iter()
        .find(|rules| rules.of.eq_ignore_ascii_case(item_type.trim()))
        .unwrap_or(&OTHER_ITEMS)
}

/// Whether `name` is a name the service takes for an item of any type: when it is, a rename
/// needs no look at the item's type first.
pub fn fits_every_item_type(name: &str) -> bool {
    OTHER_ITEMS.problem(name).is_none()
        && ITEM_TYPES.iter().all(|rules| rules.problem(name).is_none())
}
