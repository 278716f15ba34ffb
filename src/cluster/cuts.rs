//! Cut points along an ordering: the optimal 2-means cut of the columns themselves (Lemma 1 of seed 000), the
//! optimal 1-D 2-means cut of a projection (PDDP_OCPC), and the largest gap (PDGP, seed 003 Definition 4).

use rayon::prelude::*;

use crate::matrix::DataMatrix;

/// The position that splits `order` into `order[..cut]` and `order[cut..]` (1 <= cut < n), and the k-means
/// objective of that split.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrderCut {
    pub cut: usize,
    pub objective: f64,
}

/// Lemma 1 (Zeimpekis & Gallopoulos, seed 000, section 2): the 2-means objective of every prefix / suffix split of
/// the columns taken in `order`, by running sums, in O(nnz) time and O(m) memory.
///
/// With `S1` the sum of the first l columns and `S2 = T - S1` the rest, the objective is
/// `s = sum ||a||^2 - ||S1||^2 / l - ||S2||^2 / (n - l)` (the proof's `l ||c1||^2 = ||S1||^2 / l`). Moving column
/// `a` across updates `||S1 + a||^2 = ||S1||^2 + 2 S1.a + ||a||^2` and `||S2 - a||^2 = ||S2||^2 - 2 S2.a + ||a||^2`,
/// where `S2.a = T.a - S1.a`: one sparse dot product with the dense running sum per step, so the sweep costs the
/// node's non-zeros. Ties keep the earliest cut. `order` needs at least two columns.
pub fn optimal_cut_along_order(
    data: &DataMatrix,
    order: &[usize],
    norms_squared: &[f64],
) -> OrderCut {
    let mut total = vec![0.0; data.rows()];
    for &j in order {
        data.column(j).add_to(&mut total, 1.0);
    }
    optimal_cut_given_total(data, order, norms_squared, &total)
}

/// [`optimal_cut_along_order`] given `total`, the sum of the ordered columns: `n c` for a node of n columns and
/// centroid c, which a tree already has, so that the sweep needs no pass of its own to add the columns up
/// (equal to the sum up to rounding, which moves the objectives by rounding only). A `total` of the wrong length
/// is ignored and the sum computed.
pub fn optimal_cut_given_total(
    data: &DataMatrix,
    order: &[usize],
    norms_squared: &[f64],
    total: &[f64],
) -> OrderCut {
    if total.len() != data.rows() {
        return optimal_cut_along_order(data, order, norms_squared);
    }
    let n = order.len();
    debug_assert!(n >= 2);
    let m = data.rows();
    let total_norm_sq: f64 = total.iter().map(|v| v * v).sum();
    // `T.a` for every column does not depend on the sweep: computed up front on all cores, it leaves the sweep one
    // dot product and one update per column.
    let with_total: Vec<f64> = order[..n - 1]
        .par_iter()
        .with_min_len(256)
        .map(|&j| data.column(j).dot(total))
        .collect();
    let sum_norms: f64 = order.iter().map(|&j| norms_squared[j]).sum();

    let mut prefix = vec![0.0; m];
    let mut prefix_norm_sq = 0.0;
    let mut suffix_norm_sq = total_norm_sq;
    let mut best = OrderCut {
        cut: 1,
        objective: f64::INFINITY,
    };
    for (position, (&j, &with_total)) in order[..n - 1].iter().zip(&with_total).enumerate() {
        let with_prefix = data.column(j).dot_then_add(&mut prefix);
        let with_suffix = with_total - with_prefix;
        prefix_norm_sq += 2.0 * with_prefix + norms_squared[j];
        suffix_norm_sq += -2.0 * with_suffix + norms_squared[j];
        let left = (position + 1) as f64;
        let right = (n - position - 1) as f64;
        let objective = sum_norms - prefix_norm_sq / left - suffix_norm_sq.max(0.0) / right;
        if objective < best.objective {
            best = OrderCut {
                cut: position + 1,
                objective,
            };
        }
    }
    best
}

/// The optimal 2-means cut of one-dimensional values (PDDP_OCPC, seed 000 section 2: "sort the elements of v_1
/// and examine all possible partitions", each in constant time from prefix sums). Returns the cut value, halfway
/// between the last value of the lower group and the first of the upper, so that `x <= cut` is the lower group.
/// `None` when all values are equal (no cut separates anything).
pub fn optimal_cut_1d(values: &[f64]) -> Option<f64> {
    let n = values.len();
    if n < 2 {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let total: f64 = sorted.iter().sum();
    let mut prefix = 0.0;
    let mut best: Option<(usize, f64)> = None;
    for l in 1..n {
        prefix += sorted[l - 1];
        // Splitting between equal values would not separate them; skip such positions.
        if sorted[l - 1] == sorted[l] {
            continue;
        }
        let suffix = total - prefix;
        // sum x^2 is common to every cut; maximise the between-group part instead of minimising the objective.
        let between = prefix * prefix / l as f64 + suffix * suffix / (n - l) as f64;
        if best.is_none_or(|(_, b)| between > b) {
            best = Some((l, between));
        }
    }
    best.map(|(l, _)| 0.5 * (sorted[l - 1] + sorted[l]))
}

/// The largest gap of the sorted values, ignoring a fringe of `tau / 2` of the points at each end (PDGP, seed 003
/// Definition 4 and section 4.2.1). Returns the cut value halfway across the gap (`x <= cut` is the lower group).
///
/// Definition 4 as printed says "the maximum value of s occurs at s_k"; the text around it (split "at the
/// largest gap between the points") makes clear that k is where the largest difference `s_{k+1} - s_k` is, which
/// is what pdx uses. The fringe is `floor(tau n / 2)` points per end; when it leaves no gap to choose (tiny
/// nodes), the fringe is dropped. `None` when all values are equal.
pub fn largest_gap(values: &[f64], tau: f64) -> Option<f64> {
    let n = values.len();
    if n < 2 {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let fringe = ((tau * n as f64) / 2.0).floor() as usize;
    let gap_range = |fringe: usize| {
        // Gap i lies between sorted[i] and sorted[i + 1]; both sides keep at least `fringe` points.
        let last = (n - 1).checked_sub(fringe + 1)?;
        (fringe <= last).then_some(fringe..=last)
    };
    let range = gap_range(fringe).or_else(|| gap_range(0))?;
    let mut best: Option<(usize, f64)> = None;
    for i in range {
        let gap = sorted[i + 1] - sorted[i];
        if gap > 0.0 && best.is_none_or(|(_, b)| gap > b) {
            best = Some((i, gap));
        }
    }
    best.map(|(i, _)| 0.5 * (sorted[i] + sorted[i + 1]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_dimensional_cut_separates_two_clumps() {
        let cut = optimal_cut_1d(&[0.0, 0.1, 0.2, 5.0, 5.1]).expect("cut");
        assert!((cut - 2.6).abs() < 1e-12);
        assert_eq!(optimal_cut_1d(&[1.0, 1.0, 1.0]), None);
    }

    #[test]
    fn gap_ignores_the_fringe() {
        // Ten points; the largest gap (between 9 and 100) is in the fringe (the last point) with tau = 0.2,
        // so the next largest inside, between 4 and 8, is chosen.
        let values = [0.0, 1.0, 2.0, 3.0, 4.0, 8.0, 8.5, 9.0, 9.0, 100.0];
        assert_eq!(largest_gap(&values, 0.2), Some(6.0));
        // Without a fringe, the outlier gap wins.
        assert_eq!(largest_gap(&values, 0.0), Some(54.5));
    }
}
