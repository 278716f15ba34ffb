//! Lloyd iterations of k-means on a node's columns, the refinement step of every "2means" rule and the engine of
//! (bisecting) k-means. Distances use `||a - c||^2 = ||a||^2 - 2 a.c + ||c||^2`, so each pass costs the node's
//! non-zeros times k, and the columns are never densified; centroids are dense m-vectors.

use rayon::prelude::*;

use crate::matrix::DataMatrix;

/// Iterations stop after this many passes even if points still move (they rarely need more than a few dozen).
pub const MAX_ITERATIONS: usize = 100;

/// Columns per parallel task in the assignment step; a fixed size keeps the work split the same on every run.
const ASSIGN_CHUNK: usize = 512;

/// A k-way grouping of a node's members and its k-means objective.
#[derive(Debug, Clone, PartialEq)]
pub struct Grouping {
    /// Group of each member, in member order.
    pub assignment: Vec<usize>,
    /// Sum over groups of the scatter `sum ||a - c_g||^2`.
    pub objective: f64,
    /// The objective of the grouping the iterations started from.
    pub start_objective: f64,
    pub iterations: usize,
}

/// Run Lloyd's iterations from `start` (a group per member, groups `0..k`, none empty) until no member moves.
///
/// A member moves only to a strictly nearer centroid (ties keep it where it is), so the objective never rises
/// above the start's and the iteration cannot cycle. If a step would empty a group, the iteration stops at the
/// grouping before that step: a k-way rule must not return fewer than k groups.
///
/// Each group keeps the running sum of its columns, updated by the members that move (so a late pass, where few
/// members move, costs little beyond the distances), and the objective is `sum ||a||^2 - sum_g ||S_g||^2 / n_g`.
/// With two groups one dot product per member decides: `||a - c_0||^2 - ||a - c_1||^2 = ||c_0||^2 - ||c_1||^2 -
/// 2 a.(c_0 - c_1)`, and a member whose sign cannot have changed since it was last computed is not computed
/// again (see `LastDecision`): the same decisions at a fraction of the cost in the later passes.
pub fn refine(
    data: &DataMatrix,
    members: &[usize],
    norms_squared: &[f64],
    start: Vec<usize>,
    k: usize,
) -> Grouping {
    refine_with(data, members, norms_squared, start, k, true)
}

/// [`refine`], with the two-group pruning on or off (off only to check, in tests, that it changes nothing).
fn refine_with(
    data: &DataMatrix,
    members: &[usize],
    norms_squared: &[f64],
    start: Vec<usize>,
    k: usize,
    prune: bool,
) -> Grouping {
    let m = data.rows();
    let mut assignment = start;
    let mut sums = vec![vec![0.0; m]; k];
    let mut sizes = vec![0usize; k];
    for (&j, &g) in members.iter().zip(&assignment) {
        data.column(j).add_to(&mut sums[g], 1.0);
        sizes[g] += 1;
    }
    let sum_norms: f64 = members.iter().map(|&j| norms_squared[j]).sum();
    let objective_of = |sums: &[Vec<f64>], sizes: &[usize]| -> f64 {
        let explained: f64 = sums
            .iter()
            .zip(sizes)
            .filter(|(_, size)| **size > 0)
            .map(|(s, &size)| s.iter().map(|v| v * v).sum::<f64>() / size as f64)
            .sum();
        (sum_norms - explained).max(0.0)
    };
    let start_objective = objective_of(&sums, &sizes);
    let mut current = start_objective;
    // k = 2 needs only the centroids' difference and norms (one pass over the rows, below); more groups need
    // the centroids themselves.
    let mut centres = vec![vec![0.0; m]; if k == 2 { 0 } else { k }];
    let mut difference = vec![0.0; if k == 2 { m } else { 0 }];
    // Two groups: each member's last computed decision value, and how far the centroids have moved since.
    let mut decisions = vec![LastDecision::default(); if k == 2 { members.len() } else { 0 }];
    let member_norms: Vec<f64> = if k == 2 {
        members.iter().map(|&j| norms_squared[j].sqrt()).collect()
    } else {
        Vec::new()
    };
    let mut drift = Drift::default();
    let mut previous_offset: Option<f64> = None;
    let mut iterations = 0;
    while iterations < MAX_ITERATIONS {
        let scales: Vec<f64> = sizes.iter().map(|&size| 1.0 / size as f64).collect();
        let centre_norms: Vec<f64> = if k == 2 {
            let (mut norm_0, mut norm_1) = (0.0, 0.0);
            let (mut moved, mut difference_norm) = (0.0, 0.0);
            for ((d, s_0), s_1) in difference.iter_mut().zip(&sums[0]).zip(&sums[1]) {
                let (c_0, c_1) = (s_0 * scales[0], s_1 * scales[1]);
                norm_0 += c_0 * c_0;
                norm_1 += c_1 * c_1;
                let new = c_0 - c_1;
                moved += (new - *d) * (new - *d);
                difference_norm += new * new;
                *d = new;
            }
            let offset = norm_0 - norm_1;
            if let Some(previous) = previous_offset {
                drift.offset += (offset - previous).abs();
                drift.difference += moved.sqrt();
            }
            previous_offset = Some(offset);
            drift.difference_norm = difference_norm.sqrt();
            drift.norms = norm_0 + norm_1;
            vec![norm_0, norm_1]
        } else {
            for ((centre, sum), &scale) in centres.iter_mut().zip(&sums).zip(&scales) {
                centre.iter_mut().zip(sum).for_each(|(c, s)| *c = s * scale);
            }
            centres
                .iter()
                .map(|c| c.iter().map(|v| v * v).sum())
                .collect()
        };
        let offset = if k == 2 {
            centre_norms[0] - centre_norms[1]
        } else {
            0.0
        };
        let next: Vec<usize> = if k == 2 {
            members
                .par_chunks(ASSIGN_CHUNK)
                .zip(assignment.par_chunks(ASSIGN_CHUNK))
                .zip(decisions.par_chunks_mut(ASSIGN_CHUNK))
                .zip(member_norms.par_chunks(ASSIGN_CHUNK))
                .flat_map_iter(|(((chunk, groups), last), norms)| {
                    chunk
                        .iter()
                        .zip(groups)
                        .zip(last.iter_mut())
                        .zip(norms)
                        .map(|(((&j, &group), last), &norm)| {
                            let known = if prune {
                                last.current(&drift, norm)
                            } else {
                                None
                            };
                            let d = known.unwrap_or_else(|| {
                                let d = offset - 2.0 * data.column(j).dot(&difference);
                                *last = LastDecision::computed(d, &drift, norm);
                                d
                            });
                            if d < 0.0 {
                                0
                            } else if d > 0.0 {
                                1
                            } else {
                                group
                            }
                        })
                        .collect::<Vec<_>>()
                })
                .collect()
        } else {
            members
                .par_chunks(ASSIGN_CHUNK)
                .zip(assignment.par_chunks(ASSIGN_CHUNK))
                .flat_map_iter(|(chunk, groups)| {
                    chunk
                        .iter()
                        .zip(groups)
                        .map(|(&j, &group)| nearest(data, j, group, &centres, &centre_norms))
                        .collect::<Vec<_>>()
                })
                .collect()
        };
        let moves: Vec<usize> = (0..members.len())
            .filter(|&p| next[p] != assignment[p])
            .collect();
        if moves.is_empty() {
            break;
        }
        let mut next_sizes = sizes.clone();
        for &p in &moves {
            next_sizes[assignment[p]] -= 1;
            next_sizes[next[p]] += 1;
        }
        if next_sizes.contains(&0) {
            break;
        }
        // The sums are updated in place: if the step is refused below, the iteration ends and they are not
        // read again (the result is the assignment and objective from before the step).
        for &p in &moves {
            let column = data.column(members[p]);
            column.add_to(&mut sums[assignment[p]], -1.0);
            column.add_to(&mut sums[next[p]], 1.0);
        }
        let next_objective = objective_of(&sums, &next_sizes);
        iterations += 1;
        // Exact arithmetic never raises the objective here; rounding on a flat landscape could, so stop rather
        // than accept a worse grouping.
        if next_objective > current {
            break;
        }
        assignment = next;
        sizes = next_sizes;
        current = next_objective;
    }
    Grouping {
        assignment,
        objective: current,
        start_objective,
        iterations,
    }
}

/// How far the two centroids have moved since the first pass (`offset`: the sum of the changes of
/// `||c_0||^2 - ||c_1||^2`; `difference`: the sum of the lengths of the changes of `c_0 - c_1`), and the current
/// pass's `||c_0||^2 + ||c_1||^2` and `||c_0 - c_1||`, which scale the rounding of a decision value.
#[derive(Debug, Clone, Copy, Default)]
struct Drift {
    offset: f64,
    difference: f64,
    norms: f64,
    difference_norm: f64,
}

/// A member's decision value `d = ||c_0||^2 - ||c_1||^2 - 2 a.(c_0 - c_1)` (group 0 when negative, 1 when
/// positive) when it was last computed, with the drift at that time and the value's rounding scale.
///
/// Between two passes `d` changes by at most `|change of the offset| + 2 ||a|| ||change of c_0 - c_1||`
/// (Cauchy-Schwarz), so while the drift since the last computation is smaller than `|d|` (with a margin far
/// above the rounding of either value) the sign, hence the decision, cannot have changed, and the dot product
/// is skipped: the pruning of Hamerly's k-means, in the form the two-group decision takes (it saves about 40% of
/// these dot products on 20 Newsgroups; `benches/README.md`). The decisions are exactly those of computing every
/// value (the margin makes sure), so the result is the same bits.
#[derive(Debug, Clone, Copy, Default)]
struct LastDecision {
    value: f64,
    offset: f64,
    difference: f64,
    error_scale: f64,
}

/// The relative margin for rounding: a decision value is a sum of at most as many rounded terms as there are
/// rows, each within `eps` of its scale; 1e-9 is far above `57,606 eps` (the largest vocabulary here).
const ROUNDING_MARGIN: f64 = 1e-9;

impl LastDecision {
    fn error_scale(drift: &Drift, norm: f64) -> f64 {
        drift.norms + 2.0 * norm * drift.difference_norm
    }

    fn computed(value: f64, drift: &Drift, norm: f64) -> Self {
        LastDecision {
            value,
            offset: drift.offset,
            difference: drift.difference,
            error_scale: Self::error_scale(drift, norm),
        }
    }

    /// The last value, if its sign still holds now for a member of norm `norm`; `None` when it must be
    /// computed again (always on the first pass, where the value is 0).
    fn current(&self, drift: &Drift, norm: f64) -> Option<f64> {
        let reach =
            (drift.offset - self.offset) + 2.0 * norm * (drift.difference - self.difference);
        let margin = ROUNDING_MARGIN * (reach + self.error_scale + Self::error_scale(drift, norm));
        (self.value.abs() > reach + margin).then_some(self.value)
    }
}

/// The group whose centroid is strictly nearest to column `j`, preferring its current group on ties.
#[inline]
fn nearest(
    data: &DataMatrix,
    j: usize,
    current: usize,
    centres: &[Vec<f64>],
    centre_norms: &[f64],
) -> usize {
    let column = data.column(j);
    let distance = |g: usize| centre_norms[g] - 2.0 * column.dot(&centres[g]);
    let mut best = current;
    let mut best_distance = distance(current);
    for g in 0..centres.len() {
        if g == current {
            continue;
        }
        let d = distance(g);
        if d < best_distance {
            best = g;
            best_distance = d;
        }
    }
    best
}

/// Assign every member to its nearest seed column (the start of a random-restart k-means): groups `0..seeds.len()`.
pub fn assign_to_seeds(data: &DataMatrix, members: &[usize], seeds: &[usize]) -> Vec<usize> {
    let centres: Vec<Vec<f64>> = seeds
        .iter()
        .map(|&s| {
            let mut c = vec![0.0; data.rows()];
            data.column(s).add_to(&mut c, 1.0);
            c
        })
        .collect();
    let centre_norms: Vec<f64> = centres
        .iter()
        .map(|c| c.iter().map(|v| v * v).sum())
        .collect();
    members
        .par_chunks(ASSIGN_CHUNK)
        .flat_map_iter(|chunk| {
            chunk
                .iter()
                .map(|&j| nearest(data, j, 0, &centres, &centre_norms))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::test_util::random_sparse;
    use crate::rng::SplitMix64;

    #[test]
    fn pruned_two_group_passes_decide_exactly_as_computing_every_member() {
        let mut iterations_seen = 0;
        for seed in 0..12 {
            let data = random_sparse(300, 400, 0.05, seed);
            let norms = data.column_norms_squared();
            let members: Vec<usize> = (0..400).filter(|j| j % 7 != 3).collect();
            let mut rng = SplitMix64::new(seed + 100);
            let start: Vec<usize> = members
                .iter()
                .map(|_| (rng.next_u64() % 2) as usize)
                .collect();
            let pruned = refine(&data, &members, &norms, start.clone(), 2);
            let oracle = refine_with(&data, &members, &norms, start, 2, false);
            assert_eq!(pruned, oracle, "seed {seed}");
            iterations_seen += pruned.iterations;
        }
        // Random starts need several passes, so the pruning had passes to act on.
        assert!(iterations_seen >= 24, "{iterations_seen} passes in all");
    }
}
