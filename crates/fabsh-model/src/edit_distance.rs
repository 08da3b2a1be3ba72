//! How many single-character insertions, deletions, substitutions and swaps of two
//! neighbours turn one text into another (optimal string alignment), for "did you mean"
//! suggestions: `itme` and `Dmeo` are one slip of the fingers from `item` and `Demo`.

/// The edit distance between `a` and `b`, by characters; swapping two neighbouring
/// characters is one edit.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows of the table: two back (for swaps), the last, and the one being filled.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut last: Vec<usize> = (0..=b.len()).collect();
    let mut row: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        row[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (last[j - 1] + cost).min(row[j - 1] + 1).min(last[j] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(before[j - 2] + 1);
            }
            row[j] = best;
        }
        std::mem::swap(&mut before, &mut last);
        std::mem::swap(&mut last, &mut row);
    }
    last[b.len()]
}

/// The candidate closest to `given` (ignoring case) when it is close enough to be a typo:
/// one edit for short names, one more for every six characters. An exact match (bar case)
/// is not a suggestion; ties go to the first candidate.
pub fn closest<'a>(given: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = given.to_lowercase();
    let allowed = 1 + lower.chars().count() / 6;
    candidates
        .into_iter()
        .map(|candidate| (edit_distance(&lower, &candidate.to_lowercase()), candidate))
        .filter(|(distance, _)| (1..=allowed).contains(distance))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

#[cfg(test)]
mod tests {
    use super::{closest, edit_distance};

    #[test]
    fn closest_suggests_only_near_misses() {
        assert_eq!(closest("Dmo", ["Demo", "Staging"]), Some("Demo"));
        assert_eq!(
            closest("workspce", ["item", "workspace"]),
            Some("workspace")
        );
        assert_eq!(closest("Sales", ["Demo"]), None);
        assert_eq!(closest("demo", ["Demo"]), None);
        // A swap of two neighbours is one slip.
        assert_eq!(closest("itme", ["item", "workspace"]), Some("item"));
        assert_eq!(closest("Dmeo", ["Demo", "Staging"]), Some("Demo"));
    }

    #[test]
    fn counts_single_character_edits() {
        assert_eq!(edit_distance("Notebok", "Notebook"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
