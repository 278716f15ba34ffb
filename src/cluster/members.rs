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
