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
/// 2 a.(c_0 - c_1)`.
pub fn refine(
    data: &DataMatrix,
    members: &[usize],
    norms_squared: &[f64],
    start: Vec<usize>,
    k: usize,
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
    let mut centres = vec![vec![0.0; m]; k];
    let mut difference = vec![0.0; if k == 2 { m } else { 0 }];
    let mut iterations = 0;
    while iterations < MAX_ITERATIONS {
        for ((centre, sum), &size) in centres.iter_mut().zip(&sums).zip(&sizes) {
            let scale = 1.0 / size as f64;
            centre.iter_mut().zip(sum).for_each(|(c, s)| *c = s * scale);
        }
        let centre_norms: Vec<f64> = centres
            .iter()
            .map(|c| c.iter().map(|v| v * v).sum())
            .collect();
        if k == 2 {
            difference
                .iter_mut()
                .zip(centres[0].iter().zip(&centres[1]))
                .for_each(|(d, (a, b))| *d = a - b);
        }
        let offset = if k == 2 {
            centre_norms[0] - centre_norms[1]
        } else {
            0.0
        };
        let next: Vec<usize> = members
            .par_chunks(ASSIGN_CHUNK)
            .zip(assignment.par_chunks(ASSIGN_CHUNK))
            .flat_map_iter(|(chunk, groups)| {
                chunk
                    .iter()
                    .zip(groups)
                    .map(|(&j, &group)| {
                        if k == 2 {
                            let d = offset - 2.0 * data.column(j).dot(&difference);
                            if d < 0.0 {
                                0
                            } else if d > 0.0 {
                                1
                            } else {
                                group
                            }
                        } else {
                            nearest(data, j, group, &centres, &centre_norms)
                        }
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
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
        let mut next_sums = sums.clone();
        for &p in &moves {
            let column = data.column(members[p]);
            column.add_to(&mut next_sums[assignment[p]], -1.0);
            column.add_to(&mut next_sums[next[p]], 1.0);
        }
        let next_objective = objective_of(&next_sums, &next_sizes);
        iterations += 1;
        // Exact arithmetic never raises the objective here; rounding on a flat landscape could, so stop rather
        // than accept a worse grouping.
        if next_objective > current {
            break;
        }
        assignment = next;
        sums = next_sums;
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
