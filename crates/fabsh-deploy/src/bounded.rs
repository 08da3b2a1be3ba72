//! Text that parameterisation makes, bounded: a replacement's output size is counted before
//! the output is built, and a document is written into a buffer that refuses to grow, so a
//! rule that would blow a part up (a 1 MB part with `a` replaced by 1,000 bytes) is refused
//! before memory grows. The bound is one part's: what one definition request holds.

use regex::{NoExpand, Regex};
use serde_json::Value;

/// The most bytes one part may take once parameterised.
pub(crate) const PART_BYTES: u64 = fabsh_model::limits::DEFINITION_BYTES;

/// The output would be larger than the cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooLarge;

/// The size `text` would have with matches covering `matched` bytes, `count` of them,
/// each replaced by `with`, when it is within `cap`.
fn fits(text: &str, count: u64, matched: u64, with: &str, cap: u64) -> Result<(), TooLarge> {
    let size =
        (text.len() as u64 - matched).saturating_add(count.saturating_mul(with.len() as u64));
    if size > cap { Err(TooLarge) } else { Ok(()) }
}

/// `text` with every match of `pattern` replaced by `with` as it is, unless the result would
/// be larger than `cap`.
pub(crate) fn replace_matches(
    text: &str,
    pattern: &Regex,
    with: &str,
    cap: u64,
) -> Result<String, TooLarge> {
    let (count, matched) = pattern
        .find_iter(text)
        .fold((0u64, 0u64), |(count, matched), found| {
            (count + 1, matched + found.len() as u64)
        });
    fits(text, count, matched, with, cap)?;
    Ok(pattern.replace_all(text, NoExpand(with)).into_owned())
}

/// `text` with every occurrence of `find` replaced by `with`, unless the result would be
/// larger than `cap`.
pub(crate) fn replace_text(
    text: &str,
    find: &str,
    with: &str,
    cap: u64,
) -> Result<String, TooLarge> {
    let count = text.matches(find).count() as u64;
    fits(text, count, count * find.len() as u64, with, cap)?;
    Ok(text.replace(find, with))
}

/// A buffer that takes at most `cap` bytes and fails the write that would pass it.
struct Capped {
    bytes: Vec<u8>,
    cap: u64,
}

impl std::io::Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if (self.bytes.len() + buf.len()) as u64 > self.cap {
            return Err(std::io::Error::other("over the cap"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// How a document is written back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// Indented JSON.
    Json,
    Yaml,
}

/// `doc` written as `format`, unless that takes more than `cap` bytes. Indentation can make
/// a deeply nested document many times its compact size, so the writer stops at the cap.
pub(crate) fn write(doc: &Value, format: Format, cap: u64) -> Result<String, TooLarge> {
    let mut out = Capped {
        bytes: Vec::new(),
        cap,
    };
    let written = match format {
        Format::Json => serde_json::to_writer_pretty(&mut out, doc).is_ok(),
        Format::Yaml => serde_yaml_ng::to_writer(&mut out, doc).is_ok(),
    };
    if !written {
        return Err(TooLarge);
    }
    String::from_utf8(out.bytes).map_err(|_| TooLarge)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_is_measured_before_it_is_built() {
        let text = "a".repeat(1000);
        let a = Regex::new("a").expect("pattern");
        let big = "x".repeat(1000);
        assert_eq!(
            replace_matches(&text, &a, &big, 1_000_000),
            Ok(big.repeat(1000))
        );
        assert_eq!(replace_matches(&text, &a, &big, 999_999), Err(TooLarge));
        assert_eq!(replace_text("abab", "b", "$1", 6).as_deref(), Ok("a$1a$1"));
        assert_eq!(replace_text("abab", "b", "ccc", 7), Err(TooLarge));
        // An empty find matches between every character.
        assert_eq!(replace_text("ab", "", "-", 5).as_deref(), Ok("-a-b-"));
        assert_eq!(replace_text("ab", "", "-", 4), Err(TooLarge));
        let deep: Value =
            serde_json::from_str(&format!("{}1{}", "[".repeat(50), "]".repeat(50))).expect("json");
        let pretty = write(&deep, Format::Json, u64::MAX).expect("written");
        assert_eq!(
            write(&deep, Format::Json, pretty.len() as u64 - 1),
            Err(TooLarge)
        );
    }
}
