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

/// The one-to-one matching of groups `a` to groups `b` (member lists, sorted) that keeps the most members
/// together: for each group of `a`, the place of its group in `b` ([`match_shared`] on their shared counts).
pub fn match_groups(a: &[&[usize]], b: &[&[usize]]) -> Vec<Option<usize>> {
    let shared: Vec<Vec<usize>> = a
        .iter()
        .map(|x| b.iter().map(|y| shared_count(x, y)).collect())
        .collect();
    match_shared(&shared, b.len())
}

/// The one-to-one matching of rows to the `columns` columns of `shared` (`shared[i][j]`: the members row group
/// `i` and column group `j` have in common) that keeps the most members on matched pairs (Kuhn-Munkres): for
/// each row, its column, or `None` for the rows left over when there are fewer columns. Among matchings that
/// keep as many, the one with the most rows on their own column (row `i` with column `i`): two partitions of
/// the same members in the same order match in that order.
pub fn match_shared(shared: &[Vec<usize>], columns: usize) -> Vec<Option<usize>> {
    let rows = shared.len();
    if rows == 0 || columns == 0 {
        return vec![None; rows];
    }
    // Kuhn-Munkres needs no more rows than columns: the smaller side goes on the rows.
    let transposed = rows > columns;
    let (short, long) = if transposed {
        (columns, rows)
    } else {
        (rows, columns)
    };
    // Each member counts for more than every nudge toward the diagonal together (at most one per pair, `short`
    // of them): the nudges only choose among the matchings that keep the most members.
    let unit = i64::try_from(short + 1).unwrap_or(i64::MAX);
    let weights = pathfinding::matrix::Matrix::from_fn(short, long, |(i, j)| {
        let (row, column) = if transposed { (j, i) } else { (i, j) };
        let count = shared[row].get(column).copied().unwrap_or(0);
        i64::try_from(count)
            .unwrap_or(i64::MAX)
            .saturating_mul(unit)
            .saturating_add(i64::from(row == column))
    });
    let (_, assignment) = pathfinding::kuhn_munkres::kuhn_munkres(&weights);
    if !transposed {
        return assignment.into_iter().map(Some).collect();
    }
    let mut matching = vec![None; rows];
    for (column, row) in assignment.into_iter().enumerate() {
        matching[row] = Some(column);
    }
    matching
}

#[cfg(test)]
mod tests {
    use super::{match_groups, match_shared, positions_within};

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

    /// Kept in the given order, three pairs keep three members; another matching keeps four, and wins (weighing
    /// each member twice and the diagonal once made the order win: three nudges outweighed one member).
    #[test]
    fn the_matching_keeps_the_most_members_whatever_the_order() {
        let old: [&[usize]; 3] = [&[0, 3, 6], &[1, 4], &[2, 5]];
        let new: [&[usize]; 3] = [&[1, 3], &[2, 4], &[0, 5, 6]];
        assert_eq!(match_groups(&old, &new), vec![Some(2), Some(0), Some(1)]);
    }

    #[test]
    fn ties_keep_the_order_and_a_side_with_more_groups_leaves_some_unmatched() {
        // Every matching keeps as many: the order given.
        assert_eq!(
            match_shared(&[vec![1, 1], vec![1, 1]], 2),
            vec![Some(0), Some(1)]
        );
        // More rows than columns: the row sharing least is left over.
        assert_eq!(
            match_shared(&[vec![5, 0], vec![1, 1], vec![0, 4]], 2),
            vec![Some(0), None, Some(1)]
        );
        // More columns than rows.
        assert_eq!(match_shared(&[vec![0, 1, 7]], 3), vec![Some(2)]);
        assert_eq!(match_shared(&[vec![], vec![]], 0), vec![None, None]);
        assert_eq!(match_shared(&[], 3), Vec::<Option<usize>>::new());
    }
}
