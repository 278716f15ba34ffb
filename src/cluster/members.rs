//! Member lists: a node's members are the matrix columns it holds, in ascending order. What is computed on such
//! lists alone, with no tree and no rule, lives here, below both: the tree calls the rules (to split a node) and
//! so may not be called back by them, and a helper the rules need as much as the tree belongs to neither. Both
//! import from here, and the layers inside `cluster` keep pointing one way (tree, then rules, then this).

/// Where each entry of `subset` stands in `superset`, both ascending, in one merge pass; `None` when an entry is
/// missing from `superset`.
pub(super) fn positions_within(subset: &[usize], superset: &[usize]) -> Option<Vec<usize>> {
    let mut positions = Vec::with_capacity(subset.len());
    let mut position = 0;
    for &value in subset {
        while superset.get(position).is_some_and(|&s| s < value) {
            position += 1;
        }
        if superset.get(position) != Some(&value) {
            return None;
        }
        positions.push(position);
    }
    Some(positions)
}

/// How many members two member lists (sorted) have in common.
pub fn shared_count(a: &[usize], b: &[usize]) -> usize {
    let (mut i, mut j, mut shared) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    shared
}

#[cfg(test)]
mod tests {
    use super::positions_within;

    #[test]
    fn positions_within_finds_a_sorted_subset_or_reports_a_stranger() {
        assert_eq!(
            positions_within(&[2, 5, 9], &[1, 2, 3, 5, 8, 9]),
            Some(vec![1, 3, 5])
        );
        assert_eq!(positions_within(&[], &[1, 2]), Some(vec![]));
        assert_eq!(positions_within(&[2, 4], &[1, 2, 3, 5]), None);
        assert_eq!(positions_within(&[7], &[1, 2]), None);
    }
}
