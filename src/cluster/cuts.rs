//! Cut points along an ordering: the optimal 2-means cut of the columns themselves (Lemma 1 of Zeimpekis &
//! Gallopoulos), the optimal 1-D 2-means cut of a projection (PDDP_OCPC), and the largest gap (PDGP, Abbey et al.,
//! Definition 4).

use rayon::prelude::*;

use crate::matrix::DataMatrix;

/// The position that splits `order` into `order[..cut]` and `order[cut..]` (1 <= cut < n), and the k-means
/// objective of that split.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrderCut {
    pub cut: usize,
    pub objective: f64,
}

/// Lemma 1 (Zeimpekis & Gallopoulos, section 2): the 2-means objective of every prefix / suffix split of
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
/// (equal to the sum up to rounding, which moves the objectives by rounding only). `total` has one entry per row
/// of `data`.
pub fn optimal_cut_given_total(
    data: &DataMatrix,
    order: &[usize],
    norms_squared: &[f64],
    total: &[f64],
) -> OrderCut {
    assert_eq!(total.len(), data.rows(), "one total per row of the data");
    let nnz: usize = order.iter().map(|&j| data.column(j).nnz()).sum();
    sweep(
        data,
        order,
        norms_squared,
        total,
        nnz >= TWO_ENDED_MIN_NNZ && order.len() >= 4,
    )
}

/// Orders with at least this many stored entries are swept from both ends at once (see [`sweep`]).
const TWO_ENDED_MIN_NNZ: usize = 50_000;

/// The sweep of [`optimal_cut_given_total`]. `two_ended`: the first half of the cuts from the front (running sum
/// `S` of the left group) and the second half from the back (running sum `R` of the right group) side by side, each
/// with its own dense running sum. Each end also needs the other group's norm: the front updates `||T - S||^2`
/// with `S2.a = T.a - S1.a` as in Lemma 1; the back takes `||T - R||^2 = ||T||^2 - 2 T.R + ||R||^2`, with `T.R`
/// the running sum of the `T.a` computed up front. The sequential loop is the largest part of `pddp-oc`'s time
/// besides its Lanczos run, and running it from two ends side by side cut its share of a `pddp-oc` tree from
/// 14-15% to 10-11% on 20 Newsgroups (`benches/README.md`). The figures are the
/// same up to rounding, and so is the cut unless two cuts' objectives tie to rounding (the trees of 20 Newsgroups
/// come out bit for bit the same).
fn sweep(
    data: &DataMatrix,
    order: &[usize],
    norms_squared: &[f64],
    total: &[f64],
    two_ended: bool,
) -> OrderCut {
    let n = order.len();
    debug_assert!(n >= 2);
    let m = data.rows();
    let total_norm_sq: f64 = total.iter().map(|v| v * v).sum();
    // `T.a` for every column does not depend on the sweep: computed up front on all cores, it leaves the sweep one
    // dot product and one update per column.
    let with_total: Vec<f64> = order
        .par_iter()
        .with_min_len(256)
        .map(|&j| data.column(j).dot(total))
        .collect();
    let sum_norms: f64 = order.iter().map(|&j| norms_squared[j]).sum();
    let objective_at = |cut: usize, left_norm_sq: f64, right_norm_sq: f64| {
        sum_norms - left_norm_sq.max(0.0) / cut as f64 - right_norm_sq.max(0.0) / (n - cut) as f64
    };
    // The cuts 1..=front_cuts from the front; ties keep the earliest.
    let front = |front_cuts: usize| {
        let start = Running {
            before: 0,
            prefix: vec![0.0; m],
            prefix_norm_sq: 0.0,
            suffix_norm_sq: total_norm_sq,
        };
        sweep_front(
            data,
            &order[..front_cuts],
            norms_squared,
            &with_total,
            start,
            objective_at,
        )
    };
    if !two_ended {
        return front(n - 1);
    }
    let front_cuts = (n - 1) / 2;
    // The cuts n-1 down to front_cuts+1 from the back: the right group grows one column at a time.
    let back = || {
        let mut suffix = vec![0.0; m];
        let mut suffix_norm_sq = 0.0;
        let mut total_with_suffix = 0.0;
        let mut best = OrderCut {
            cut: n - 1,
            objective: f64::INFINITY,
        };
        for cut in (front_cuts + 1..n).rev() {
            let j = order[cut];
            let with_suffix = data.column(j).dot_then_add(&mut suffix);
            suffix_norm_sq += 2.0 * with_suffix + norms_squared[j];
            total_with_suffix += with_total[cut];
            let prefix_norm_sq = total_norm_sq - 2.0 * total_with_suffix + suffix_norm_sq;
            let objective = objective_at(cut, prefix_norm_sq, suffix_norm_sq);
            // Visited from the back: on a tie the earlier cut, seen later, wins.
            if objective <= best.objective {
                best = OrderCut { cut, objective };
            }
        }
        best
    };
    let (front_best, back_best) = rayon::join(|| front(front_cuts), back);
    if back_best.objective < front_best.objective {
        back_best
    } else {
        front_best
    }
}

/// Where a front sweep starts: after `before` columns of the order, whose sum is `prefix`, with `||prefix||^2`
/// and `||T - prefix||^2`.
struct Running {
    before: usize,
    prefix: Vec<f64>,
    prefix_norm_sq: f64,
    suffix_norm_sq: f64,
}

/// The front sweep of Lemma 1 over `columns` (the next columns of the order) from `start`: the cut after each,
/// `with_total` holding `T . a` for each; ties keep the earliest.
fn sweep_front(
    data: &DataMatrix,
    columns: &[usize],
    norms_squared: &[f64],
    with_total: &[f64],
    start: Running,
    objective_at: impl Fn(usize, f64, f64) -> f64,
) -> OrderCut {
    let Running {
        before,
        mut prefix,
        mut prefix_norm_sq,
        mut suffix_norm_sq,
    } = start;
    let mut best = OrderCut {
        cut: before + 1,
        objective: f64::INFINITY,
    };
    for (position, (&j, &with_total)) in columns.iter().zip(with_total).enumerate() {
        let with_prefix = data.column(j).dot_then_add(&mut prefix);
        let with_suffix = with_total - with_prefix;
        prefix_norm_sq += 2.0 * with_prefix + norms_squared[j];
        suffix_norm_sq += -2.0 * with_suffix + norms_squared[j];
        let objective = objective_at(before + position + 1, prefix_norm_sq, suffix_norm_sq);
        if objective < best.objective {
            best = OrderCut {
                cut: before + position + 1,
                objective,
            };
        }
    }
    best
}

/// The node a segment of the sweep belongs to: its size `n`, the sum `total` of its columns and `sum_norms`,
/// the sum of their squared norms.
#[derive(Debug, Clone, Copy)]
pub struct SweptNode<'a> {
    pub n: usize,
    pub total: &'a [f64],
    pub sum_norms: f64,
}

/// Lemma 1's sweep over one segment of a node's order, for a node whose columns are spread over machines: the
/// order is cut into consecutive segments, each machine sweeps the one whose columns it gathered, from the sum
/// of the columns before it (`prefix`, `before` of them), and the best of the segments' best cuts (the earliest
/// among equal objectives) is [`optimal_cut_given_total`]'s, up to the rounding of where each running sum
/// starts. `columns` are the segment's columns of `data`, in order; the cuts are after each of them (global
/// positions `before + 1 ..`), but never after the node's last column. `None` when the segment has no cut.
///
/// # Panics
/// If `prefix` or `node.total` does not have one entry per row of `data`, or the segment reaches past the node.
pub fn optimal_cut_in_segment(
    data: &DataMatrix,
    columns: &[usize],
    before: usize,
    prefix: &[f64],
    node: SweptNode,
) -> Option<OrderCut> {
    assert_eq!(prefix.len(), data.rows(), "one prefix entry per row");
    assert_eq!(node.total.len(), data.rows(), "one total per row");
    assert!(
        before + columns.len() <= node.n,
        "the segment lies within the node"
    );
    let cuts = columns.len().min((node.n - 1).saturating_sub(before));
    if cuts == 0 {
        return None;
    }
    let columns = &columns[..cuts];
    let norms_squared = data.column_norms_squared();
    let with_total: Vec<f64> = columns
        .iter()
        .map(|&j| data.column(j).dot(node.total))
        .collect();
    let prefix_norm_sq: f64 = prefix.iter().map(|v| v * v).sum();
    let suffix_norm_sq: f64 = node
        .total
        .iter()
        .zip(prefix)
        .map(|(t, p)| (t - p) * (t - p))
        .sum();
    let n = node.n;
    let objective_at = |cut: usize, left_norm_sq: f64, right_norm_sq: f64| {
        node.sum_norms
            - left_norm_sq.max(0.0) / cut as f64
            - right_norm_sq.max(0.0) / (n - cut) as f64
    };
    let start = Running {
        before,
        prefix: prefix.to_vec(),
        prefix_norm_sq,
        suffix_norm_sq,
    };
    Some(sweep_front(
        data,
        columns,
        &norms_squared,
        &with_total,
        start,
        objective_at,
    ))
}

/// The optimal 2-means cut of one-dimensional values (PDDP_OCPC, Zeimpekis & Gallopoulos, section 2: "sort the
/// elements of v_1 and examine all possible partitions", each in constant time from prefix sums). Returns the cut
/// value, halfway between the last value of the lower group and the first of the upper, so that `x <= cut` is the
/// lower group. `None` when all values are equal (no cut separates anything).
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

/// The largest gap of the sorted values, ignoring a fringe of `tau / 2` of the points at each end (PDGP, Abbey et
/// al., Definition 4 and section 4.2.1). Returns the cut value halfway across the gap (`x <= cut` is the lower
/// group).
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
    fn two_ended_sweep_finds_the_cut_of_the_one_ended_sweep() {
        let (mut from_front, mut from_back) = (0, 0);
        for seed in 0..16 {
            let data = crate::linalg::test_util::random_sparse(120, 90, 0.08, seed);
            let norms = data.column_norms_squared();
            let order: Vec<usize> = (0..90).map(|i| (i * 37 + seed as usize) % 90).collect();
            let total: Vec<f64> = data.centroid(&order).iter().map(|c| c * 90.0).collect();
            let one = sweep(&data, &order, &norms, &total, false);
            let two = sweep(&data, &order, &norms, &total, true);
            assert_eq!(one.cut, two.cut, "seed {seed}");
            assert!((one.objective - two.objective).abs() <= 1e-10 * one.objective);
            if two.cut <= 89 / 2 {
                from_front += 1;
            } else {
                from_back += 1;
            }
        }
        // Both ends found the best cut in some of the cases.
        assert!(
            from_front > 0 && from_back > 0,
            "{from_front} / {from_back}"
        );
        // Four columns: one cut from the front, two from the back.
        let data = crate::linalg::test_util::random_sparse(30, 4, 0.3, 9);
        let norms = data.column_norms_squared();
        let order = [2, 0, 3, 1];
        let total: Vec<f64> = data.centroid(&order).iter().map(|c| c * 4.0).collect();
        assert_eq!(
            sweep(&data, &order, &norms, &total, false).cut,
            sweep(&data, &order, &norms, &total, true).cut
        );
    }

    #[test]
    fn segments_swept_from_their_prefixes_find_the_whole_sweep_s_cut() {
        for seed in 0..12 {
            let n = 90;
            let data = crate::linalg::test_util::random_sparse(120, n, 0.08, seed);
            let norms = data.column_norms_squared();
            let order: Vec<usize> = (0..n).map(|i| (i * 37 + seed as usize) % n).collect();
            let total: Vec<f64> = data.centroid(&order).iter().map(|c| c * n as f64).collect();
            let whole = sweep(&data, &order, &norms, &total, false);
            let node = SweptNode {
                n,
                total: &total,
                sum_norms: order.iter().map(|&j| norms[j]).sum(),
            };
            for segments in [1, 2, 3, 7, n] {
                let length = n.div_ceil(segments);
                let mut prefix = vec![0.0; data.rows()];
                let mut best: Option<OrderCut> = None;
                for (index, segment) in order.chunks(length).enumerate() {
                    let found =
                        optimal_cut_in_segment(&data, segment, index * length, &prefix, node);
                    if let Some(found) = found
                        && best.is_none_or(|best| found.objective < best.objective)
                    {
                        best = Some(found);
                    }
                    for &j in segment {
                        data.column(j).add_to(&mut prefix, 1.0);
                    }
                }
                let best = best.expect("a cut");
                assert_eq!(best.cut, whole.cut, "seed {seed}, {segments} segments");
                assert!((best.objective - whole.objective).abs() <= 1e-10 * whole.objective);
            }
        }
        // The last column of the node is never a cut: a segment holding only it has none.
        let data = crate::linalg::test_util::random_sparse(30, 4, 0.3, 9);
        let total: Vec<f64> = data
            .centroid(&[0, 1, 2, 3])
            .iter()
            .map(|c| c * 4.0)
            .collect();
        let node = SweptNode {
            n: 4,
            total: &total,
            sum_norms: 1.0,
        };
        assert_eq!(optimal_cut_in_segment(&data, &[3], 3, &total, node), None);
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
