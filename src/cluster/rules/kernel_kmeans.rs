//! `kernel-kmeans`: kernel k-means (Schölkopf et al.; Zeimpekis & Gallopoulos, section 4, "Kernel k-means"), in the
//! matrix form of Gkotsopoulou & Monge ("Kernel K-means": `F = K Z (-2 L)`, `g_j = (sum G_j) l_jj^2`), bisecting or
//! k-way, from seeded random starts, the best of several trials. The Lloyd iterations here are also the refinement
//! step of `kpddp-2means`.

use rayon::prelude::*;

use super::kernel_util::{check_cancelled, enter_phase, kernel_detail, node_kernel};
use super::{Directions, Partition, SplitContext, SplitDetail, SplitRule, require_split};
use crate::cluster::ClusterError;
use crate::cluster::registry::{Children, RuleDef};
use crate::cluster::params::Param;
use crate::cluster::lloyd::MAX_ITERATIONS;
use crate::linalg::Gram;
use crate::linalg::kernel::KernelSpec;
use crate::rng::SplitMix64;

/// The rule as the registry lists it.
pub(super) static RULE: RuleDef = RuleDef {
    name: "kernel-kmeans",
    summary: "kernel k-means in matrix form, the best of trials seeded starts",
    source: "Gkotsopoulou & Monge, \"Kernel K-means\"",
    params: &[Param::Kernel, Param::KWay, Param::Trials, Param::Seed],
    children: Children::KWay,
    preview_symbol: None,
    refines: None,
    out_of_sample: crate::cluster::assign::OutOfSample::KernelCentroids,
    build: |params| {
        Box::new(KernelKmeans {
            kernel: params.kernel.clone(),
            k: params.k_way,
            trials: params.trials,
            seed: params.seed,
        })
    },
};

/// Kernel k-means with `k` groups: each trial draws `k` distinct members as seeds (from `seed` and the node id,
/// the same draws as `kmeans`), assigns every member to the nearest seed in feature space
/// (`K_ss - 2 K_is`, ties to the lowest seed) and runs [`refine`]; the trial of smallest feature-space
/// objective wins (the first on ties). With the linear kernel this is `kmeans` (`bisecting-kmeans` for k = 2)
/// step for step, up to rounding.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelKmeans {
    pub kernel: KernelSpec,
    pub k: usize,
    pub trials: usize,
    pub seed: u64,
}

/// A k-way grouping of a node's members found in feature space.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelGrouping {
    /// Group of each member (position in the Gram matrix).
    pub assignment: Vec<usize>,
    /// `sum_g sum_{i in g} ||phi_i - c_g||^2 = trace K - sum_g (e^T K_g e) / n_g`.
    pub objective: f64,
    /// The objective of the grouping the iterations started from.
    pub start_objective: f64,
    pub iterations: usize,
}

/// Gkotsopoulou & Monge's matrix form, kept up to date as members move: `R = K Z` (n x k, `R_ig = sum_{l in g}
/// K_il`), the group sums `sum G_g = sum_{i in g} R_ig` and sizes `|pi_g| = 1 / l_gg`. The distance of member i to
/// centroid g is `K_ii + F_ig + g_g` with `F = R (-2 L)` and `g_g = (sum G_g) l_gg^2`.
struct GroupSums {
    k: usize,
    /// Row-major n x k.
    r: Vec<f64>,
    totals: Vec<f64>,
    sizes: Vec<usize>,
}

impl GroupSums {
    fn new(gram: &Gram, assignment: &[usize], k: usize) -> GroupSums {
        let n = gram.n();
        let mut r = vec![0.0; n * k];
        r.par_chunks_mut(k.max(1))
            .enumerate()
            .for_each(|(i, row_sums)| {
                for (&value, &g) in gram.row(i).iter().zip(assignment) {
                    row_sums[g] += value;
                }
            });
        let mut sizes = vec![0usize; k];
        assignment.iter().for_each(|&g| sizes[g] += 1);
        let mut sums = GroupSums {
            k,
            r,
            totals: vec![0.0; k],
            sizes,
        };
        sums.recompute_totals(assignment);
        sums
    }

    fn recompute_totals(&mut self, assignment: &[usize]) {
        self.totals = vec![0.0; self.k];
        for (i, &g) in assignment.iter().enumerate() {
            self.totals[g] += self.r[i * self.k + g];
        }
    }

    /// `trace K - sum_g (sum G_g) / |pi_g|`.
    fn objective(&self, trace: f64) -> f64 {
        let explained: f64 = self
            .totals
            .iter()
            .zip(&self.sizes)
            .filter(|(_, size)| **size > 0)
            .map(|(total, &size)| total / size as f64)
            .sum();
        (trace - explained).max(0.0)
    }

    /// `F_ig + g_g` (the distance without the constant `K_ii`).
    fn distance(&self, i: usize, g: usize) -> f64 {
        let size = self.sizes[g] as f64;
        -2.0 * self.r[i * self.k + g] / size + self.totals[g] / (size * size)
    }

    /// The group of strictly smallest distance for member i, preferring `current` on ties.
    fn nearest(&self, i: usize, current: usize) -> usize {
        let mut best = current;
        let mut best_distance = self.distance(i, current);
        for g in 0..self.k {
            if g == current {
                continue;
            }
            let d = self.distance(i, g);
            if d < best_distance {
                best = g;
                best_distance = d;
            }
        }
        best
    }
}

/// Kernel Lloyd iterations from `start` (a group per member, groups `0..k`, none empty) until no member moves: each
/// pass assigns every member to its nearest centroid in feature space (Gkotsopoulou & Monge: `argmin_j F_ij + g_j`),
/// moving only to a strictly nearer one; it stops when a pass would empty a group (keeping the grouping before it),
/// when the objective would rise (rounding on a flat landscape) or after
/// [`MAX_ITERATIONS`], exactly as [`crate::cluster::lloyd::refine`] does in input space. Each move updates
/// `R = K Z` by one row of `K` per changed group, so a late pass with few moves costs little beyond the
/// distances.
pub fn refine(gram: &Gram, start: Vec<usize>, k: usize) -> KernelGrouping {
    let n = gram.n();
    let trace: f64 = (0..n).map(|i| gram.get(i, i)).sum();
    let mut assignment = start;
    let mut sums = GroupSums::new(gram, &assignment, k);
    let start_objective = sums.objective(trace);
    let mut current = start_objective;
    let mut iterations = 0;
    while iterations < MAX_ITERATIONS {
        let next: Vec<usize> = (0..n)
            .into_par_iter()
            .map(|i| sums.nearest(i, assignment[i]))
            .collect();
        let moves: Vec<usize> = (0..n).filter(|&i| next[i] != assignment[i]).collect();
        if moves.is_empty() {
            break;
        }
        let mut next_sizes = sums.sizes.clone();
        for &p in &moves {
            next_sizes[assignment[p]] -= 1;
            next_sizes[next[p]] += 1;
        }
        if next_sizes.contains(&0) {
            break;
        }
        let mut r = sums.r.clone();
        // R_ig changes for every i when member p leaves g or joins it: K_ip is subtracted or added (K symmetric,
        // so column p is row p).
        r.par_chunks_mut(k).enumerate().for_each(|(i, row_sums)| {
            let row = gram.row(i);
            for &p in &moves {
                row_sums[assignment[p]] -= row[p];
                row_sums[next[p]] += row[p];
            }
        });
        let mut candidate = GroupSums {
            k,
            r,
            totals: Vec::new(),
            sizes: next_sizes,
        };
        candidate.recompute_totals(&next);
        let next_objective = candidate.objective(trace);
        iterations += 1;
        if next_objective > current {
            break;
        }
        assignment = next;
        sums = candidate;
        current = next_objective;
    }
    KernelGrouping {
        assignment,
        objective: current,
        start_objective,
        iterations,
    }
}

/// Every member to its nearest seed in feature space (`||phi_i - phi_s||^2 = K_ii + K_ss - 2 K_is`; `K_ii` is
/// common), ties to the lowest seed index: groups `0..seeds.len()`. `seeds` are positions.
pub fn assign_to_seeds(gram: &Gram, seeds: &[usize]) -> Vec<usize> {
    (0..gram.n())
        .into_par_iter()
        .map(|i| {
            let row = gram.row(i);
            let distance = |g: usize| gram.get(seeds[g], seeds[g]) - 2.0 * row[seeds[g]];
            let mut best = 0;
            let mut best_distance = distance(0);
            for g in 1..seeds.len() {
                let d = distance(g);
                if d < best_distance {
                    best = g;
                    best_distance = d;
                }
            }
            best
        })
        .collect()
}

/// The best of `trials` kernel k-means runs from random member seeds drawn from `seed` and the node id.
pub(super) fn best_of_trials(
    gram: &Gram,
    node: &SplitContext,
    k: usize,
    trials: usize,
    seed: u64,
) -> Result<KernelGrouping, ClusterError> {
    let n = gram.n();
    if n < k {
        return Err(ClusterError::Degenerate {
            reason: format!("{n} members cannot make {k} groups"),
        });
    }
    let mut generator = SplitMix64::for_stream(seed, node.node_id as u64);
    let mut best: Option<KernelGrouping> = None;
    for _ in 0..trials.max(1) {
        check_cancelled(node)?;
        let seeds = generator.distinct(k, n);
        let start = assign_to_seeds(gram, &seeds);
        let mut sizes = vec![0usize; k];
        start.iter().for_each(|&g| sizes[g] += 1);
        if sizes.contains(&0) {
            continue;
        }
        let grouping = refine(gram, start, k);
        if best
            .as_ref()
            .is_none_or(|b| grouping.objective < b.objective)
        {
            best = Some(grouping);
        }
    }
    best.ok_or_else(|| ClusterError::Degenerate {
        reason: "every random start left a group empty (the members may coincide in feature space)"
            .into(),
    })
}

impl SplitRule for KernelKmeans {
    /// Works from the kernel matrix: the (empty) linear directions are not used.
    fn split_along(
        &self,
        node: &SplitContext,
        _directions: &Directions,
    ) -> Result<Partition, ClusterError> {
        let matrix = node_kernel(&self.kernel, node)?;
        enter_phase(node, "kernel k-means")?;
        let best = best_of_trials(&matrix.gram, node, self.k, self.trials, self.seed)?;
        let groups = super::groups_from_labels(node.members, &best.assignment, self.k);
        let detail = SplitDetail {
            iterations: Some(best.iterations),
            ..SplitDetail::default()
        };
        let detail = kernel_detail(&matrix, node.members, &groups, detail);
        require_split(groups, detail, "kernel k-means")
    }
}
