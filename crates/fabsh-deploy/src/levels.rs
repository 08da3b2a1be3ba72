//! Dependency levels: an item comes after every item it refers to (by logical id, `$items`
//! variable, a report's model path, an Eventhouse's child), so items of one level can be
//! deployed concurrently once the levels before are done.

use std::collections::BTreeSet;

/// The level of each item (0 for items that refer to nothing), and the items whose
/// references formed a cycle (their cyclic references are ignored).
pub fn levels(references: &[BTreeSet<usize>]) -> (Vec<u32>, Vec<usize>) {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        New,
        Visiting,
        Done,
    }
    fn visit(
        n: usize,
        refs: &[BTreeSet<usize>],
        state: &mut [State],
        level: &mut [u32],
        cyclic: &mut Vec<usize>,
    ) {
        state[n] = State::Visiting;
        let mut mine = 0;
        for &r in &refs[n] {
            if r == n || r >= refs.len() {
                continue;
            }
            match state[r] {
                State::Visiting => {
                    cyclic.push(n);
                    continue;
                }
                State::New => visit(r, refs, state, level, cyclic),
                State::Done => {}
            }
            mine = mine.max(level[r] + 1);
        }
        level[n] = mine;
        state[n] = State::Done;
    }
    let mut state = vec![State::New; references.len()];
    let mut level = vec![0; references.len()];
    let mut cyclic = Vec::new();
    for n in 0..references.len() {
        if state[n] == State::New {
            visit(n, references, &mut state, &mut level, &mut cyclic);
        }
    }
    cyclic.sort_unstable();
    cyclic.dedup();
    (level, cyclic)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_comes_after_what_it_refers_to() {
        let refs = vec![
            BTreeSet::from([1]),
            BTreeSet::new(),
            BTreeSet::from([0, 1]),
            BTreeSet::from([4]),
            BTreeSet::from([3]),
        ];
        let (levels, cyclic) = levels(&refs);
        assert_eq!(&levels[..3], &[1, 0, 2]);
        assert_eq!(cyclic.len(), 1);
    }
}
