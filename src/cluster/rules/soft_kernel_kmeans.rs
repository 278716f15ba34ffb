//! `soft-kernel-kmeans`: soft kernel k-means with stiffness beta (Kim, Shim & Choi, eqs. (4), (7)-(9)),
//! splitting a node into `k` groups (2 for a bisecting split) on the node's kernel matrix — with the geodesic kernel
//! this is the paper's soft geodesic kernel k-means.
//!
//! Each iteration computes, for every member t and group j, the squared feature-space distance to the group's soft
//! mean by eq. (4), `K_tt - (2 / g_j) sum_l R_jl K_tl + (1 / g_j^2) sum_{n,l} R_jn R_jl K_nl` with
//! `g_j = sum_l R_jl`, then the responsibilities by the softmax (7), `R_jt ∝ exp(-beta ||phi(x_t) - mu_j||^2)`, and
//! the clusters by (8)-(9), `j_t = argmax_j R_jt`. One iteration costs `n^2 k` (the products `K R^T`).
//!
//! Choices where the paper is silent:
//! - Start (Step 1 says "initialize clusters and responsibilities randomly"): k-means++ seeding in feature space
//!   (the first centre a member drawn uniformly, each next one drawn with probability proportional to its squared
//!   feature distance `K_tt + K_cc - 2 K_tc` to the nearest centre so far), every member assigned to its nearest
//!   centre, and the responsibilities set to that hard assignment (0 or 1). The draws come from the rule's seed and
//!   the node id, so a run is reproducible.
//! - One start can end in a poor local optimum (it does on Kim, Shim & Choi's three-newsgroup experiment, and the
//!   Lagrangian (3) tells the poor ones apart; `benches/README.md`), so a split runs [`START_TRIALS`] starts and
//!   keeps the one with the lowest Lagrangian (3), the objective the iteration descends.
//! - The means of (4) use the soft responsibilities R (as (4) is written); the hard clusters (9) are the answer.
//! - Step 4's "until the convergence is achieved": until no responsibility moves by more than
//!   [`RESPONSIBILITY_TOLERANCE`], or after [`MAX_ITERATIONS`] iterations.
//! - A group whose total responsibility underflows to 0 has no mean; its members' responsibilities for it are 0.

use rayon::prelude::*;

use super::{
    Directions, Partition, SplitContext, SplitDetail, SplitRule, groups_from_labels, require_split,
};
use crate::cluster::ClusterError;
use crate::cluster::registry::{Children, RuleDef};
use crate::cluster::params::Param;
use crate::linalg::Gram;
use crate::linalg::kernel::{KernelError, KernelSpec, kernel_matrix};
use crate::progress::{Cancelled, Progress};
use crate::rng::SplitMix64;

/// Starts per split; the one with the lowest Lagrangian (3) wins.
pub const START_TRIALS: usize = 4;
/// Iterations stop after this many even if responsibilities still move.
pub const MAX_ITERATIONS: usize = 300;
/// The iteration has converged when no responsibility changes by more than this.
pub const RESPONSIBILITY_TOLERANCE: f64 = 1e-7;

/// The rule as the registry lists it.
pub(super) static RULE: RuleDef = RuleDef {
    name: "soft-kernel-kmeans",
    summary: "soft kernel k-means with stiffness beta, the best of 4 starts",
    source: "Kim, Shim & Choi, eqs. (4) and (7)-(9)",
    params: &[Param::Kernel, Param::KWay, Param::Beta, Param::Seed],
    children: Children::KWay,
    preview_symbol: None,
    refines: None,
    out_of_sample: crate::cluster::assign::OutOfSample::SoftKernelCentroids,
    build: |params| {
        Box::new(SoftKernelKmeans {
            kernel: params.kernel.clone(),
            k: params.k_way,
            beta: params.beta,
            seed: params.seed,
        })
    },
};

/// Soft kernel k-means splitting a node into `k` groups.
#[derive(Debug, Clone, PartialEq)]
pub struct SoftKernelKmeans {
    pub kernel: KernelSpec,
    /// Groups (2 for a bisecting split).
    pub k: usize,
    /// Stiffness beta of the soft memberships.
    pub beta: f64,
    pub seed: u64,
}

impl SplitRule for SoftKernelKmeans {
    /// Works from the node's kernel matrix: the (empty) directions are not used.
    fn split_along(
        &self,
        node: &SplitContext,
        _directions: &Directions,
    ) -> Result<Partition, ClusterError> {
        // Checked when the parameters were (`Params::check`).
        assert!(self.k >= 2, "at least 2 groups");
        assert!(self.beta.is_finite() && self.beta > 0.0, "a positive stiffness");
        let n = node.members.len();
        if n < self.k {
            return Err(ClusterError::Degenerate {
                reason: format!("{n} members cannot make {} groups", self.k),
            });
        }
        let env = &node.env;
        let kernel = kernel_matrix(
            &self.kernel,
            node.data,
            node.members,
            env.texts,
            env.memory_budget,
            env.progress,
        )?;
        if let Some(progress) = env.progress {
            progress.start_phase(
                "soft kernel k-means",
                (START_TRIALS * MAX_ITERATIONS) as u64,
            );
        }
        let mut generator = SplitMix64::for_stream(self.seed, node.node_id as u64);
        let grouping = best_of_starts(
            &kernel.gram,
            self.k,
            self.beta,
            START_TRIALS,
            &mut generator,
            env.progress,
        )
        .map_err(KernelError::from)?;
        let groups = groups_from_labels(node.members, &grouping.assignment, self.k);
        // The kernel's figures and the children's kernel scatters (which the tree selects the next leaf by) come
        // from the matrix already built.
        let detail = super::kernel_util::kernel_detail(
            &kernel,
            node.members,
            &groups,
            SplitDetail {
                iterations: Some(grouping.iterations),
                ..SplitDetail::default()
            },
        );
        require_split(groups, detail, "soft kernel k-means")
    }
}

/// The outcome of [`soft_kernel_kmeans`].
#[derive(Debug, Clone, PartialEq)]
pub struct SoftGrouping {
    /// `argmax_j R_jt` for each member t (eq. (8)), groups `0..k`; some may be empty.
    pub assignment: Vec<usize>,
    /// Responsibilities, row-major n x k: `responsibilities[t * k + j] = R_jt`.
    pub responsibilities: Vec<f64>,
    pub iterations: usize,
    /// Whether the responsibilities settled before [`MAX_ITERATIONS`].
    pub converged: bool,
    /// The Lagrangian (3) in feature space, `sum_{t,j} R_jt ||phi(x_t) - mu_j||^2 + (1/beta) sum R_jt ln R_jt`, at
    /// the last responsibilities (with the means they were computed from).
    pub objective: f64,
}

/// Soft kernel k-means on a Gram matrix (module doc), drawing its start from `generator`. Progress advances one
/// per iteration and is polled to cancel.
pub fn soft_kernel_kmeans(
    gram: &Gram,
    k: usize,
    beta: f64,
    generator: &mut SplitMix64,
    progress: Option<&Progress>,
) -> Result<SoftGrouping, Cancelled> {
    let n = gram.n();
    let k = k.max(1);
    let mut assignment = kmeans_plus_plus_start(gram, k, generator);
    let mut responsibilities = vec![0.0; n * k];
    for (t, &j) in assignment.iter().enumerate() {
        responsibilities[t * k + j] = 1.0;
    }
    let diagonal = gram.diagonal();
    let mut iterations = 0;
    let mut converged = false;
    let mut objective = f64::INFINITY;
    while iterations < MAX_ITERATIONS {
        if let Some(progress) = progress {
            progress.check()?;
        }
        iterations += 1;
        // K R^T: for each member t and group j, sum_l K_tl R_jl, as dot products of Gram rows with each group's
        // responsibilities laid out contiguously.
        let by_group: Vec<Vec<f64>> = (0..k)
            .map(|j| (0..n).map(|l| responsibilities[l * k + j]).collect())
            .collect();
        let products: Vec<f64> = (0..n)
            .into_par_iter()
            .flat_map_iter(|t| {
                let row = gram.row(t);
                by_group.iter().map(move |weights| dot(row, weights))
            })
            .collect();
        let mut totals = vec![0.0; k];
        let mut quadratic = vec![0.0; k];
        for t in 0..n {
            for j in 0..k {
                let r = responsibilities[t * k + j];
                totals[j] += r;
                quadratic[j] += r * products[t * k + j];
            }
        }
        // Per member: the responsibilities (7) and, with them, its terms of the Lagrangian (3).
        let rows: Vec<(Vec<f64>, f64)> = (0..n)
            .into_par_iter()
            .map(|t| {
                // Eq. (4), then the softmax (7), shifted by the smallest distance so that exp cannot underflow
                // for every group at once.
                let distances: Vec<f64> = (0..k)
                    .map(|j| {
                        if totals[j] > 0.0 {
                            diagonal[t] - 2.0 * products[t * k + j] / totals[j]
                                + quadratic[j] / (totals[j] * totals[j])
                        } else {
                            f64::INFINITY
                        }
                    })
                    .collect();
                let nearest = distances.iter().copied().fold(f64::INFINITY, f64::min);
                let mut weights: Vec<f64> = distances
                    .iter()
                    .map(|&d| {
                        if d.is_finite() {
                            (-beta * (d - nearest)).exp()
                        } else {
                            0.0
                        }
                    })
                    .collect();
                let sum: f64 = weights.iter().sum();
                weights.iter_mut().for_each(|w| *w /= sum);
                let lagrangian: f64 = weights
                    .iter()
                    .zip(&distances)
                    .filter(|(r, _)| **r > 0.0)
                    .map(|(&r, &d)| r * d + r * r.ln() / beta)
                    .sum();
                (weights, lagrangian)
            })
            .collect();
        objective = rows.iter().map(|(_, l)| l).sum();
        let next: Vec<f64> = rows.into_iter().flat_map(|(w, _)| w).collect();
        let change = next
            .iter()
            .zip(&responsibilities)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        responsibilities = next;
        if let Some(progress) = progress {
            progress.advance(1);
        }
        if change <= RESPONSIBILITY_TOLERANCE {
            converged = true;
            break;
        }
    }
    for (t, label) in assignment.iter_mut().enumerate() {
        *label = argmax(&responsibilities[t * k..(t + 1) * k]);
    }
    Ok(SoftGrouping {
        assignment,
        responsibilities,
        iterations,
        converged,
        objective,
    })
}

/// `a . b`, in four running sums so that the loop vectorises.
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut sums = [0.0; 4];
    let (chunks_a, chunks_b) = (a.chunks_exact(4), b.chunks_exact(4));
    let tail: f64 = chunks_a
        .remainder()
        .iter()
        .zip(chunks_b.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in chunks_a.zip(chunks_b) {
        for lane in 0..4 {
            sums[lane] += x[lane] * y[lane];
        }
    }
    sums.iter().sum::<f64>() + tail
}

/// [`soft_kernel_kmeans`] from `trials` starts drawn in turn from `generator`; the lowest Lagrangian wins (the
/// first on ties).
pub fn best_of_starts(
    gram: &Gram,
    k: usize,
    beta: f64,
    trials: usize,
    generator: &mut SplitMix64,
    progress: Option<&Progress>,
) -> Result<SoftGrouping, Cancelled> {
    let mut best: Option<SoftGrouping> = None;
    for _ in 0..trials.max(1) {
        let grouping = soft_kernel_kmeans(gram, k, beta, generator, progress)?;
        if best
            .as_ref()
            .is_none_or(|b| grouping.objective < b.objective)
        {
            best = Some(grouping);
        }
    }
    Ok(best.expect("at least one start"))
}

/// The index of the largest value, the first on ties (eq. (8)).
fn argmax(values: &[f64]) -> usize {
    let mut best = 0;
    for (j, &v) in values.iter().enumerate() {
        if v > values[best] {
            best = j;
        }
    }
    best
}

/// k-means++ seeding in feature space and the nearest-centre assignment (module doc).
fn kmeans_plus_plus_start(gram: &Gram, k: usize, generator: &mut SplitMix64) -> Vec<usize> {
    let n = gram.n();
    if n == 0 {
        return Vec::new();
    }
    let distance =
        |t: usize, c: usize| (gram.get(t, t) + gram.get(c, c) - 2.0 * gram.get(t, c)).max(0.0);
    let mut centres = vec![generator.below(n)];
    let mut nearest: Vec<f64> = (0..n).map(|t| distance(t, centres[0])).collect();
    while centres.len() < k.min(n) {
        let total: f64 = nearest.iter().sum();
        let next = if total > 0.0 {
            let mut target = generator.next_f64() * total;
            let mut chosen = n - 1;
            for (t, &d) in nearest.iter().enumerate() {
                if target < d {
                    chosen = t;
                    break;
                }
                target -= d;
            }
            chosen
        } else {
            // Every member coincides with a centre in feature space: any member not yet chosen.
            (0..n).find(|t| !centres.contains(t)).unwrap_or(0)
        };
        centres.push(next);
        for (t, d) in nearest.iter_mut().enumerate() {
            *d = d.min(distance(t, next));
        }
    }
    (0..n)
        .map(|t| {
            let mut best = 0;
            for (j, &c) in centres.iter().enumerate() {
                if distance(t, c) < distance(t, centres[best]) {
                    best = j;
                }
            }
            best
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::Params;
    use crate::cluster::lloyd;
    use crate::matrix::DataMatrix;
    use nalgebra::DMatrix;

    /// Numeric points as a features x objects matrix.
    fn points(coordinates: &[[f64; 2]]) -> DataMatrix {
        DataMatrix::Dense {
            matrix: DMatrix::from_fn(2, coordinates.len(), |f, o| coordinates[o][f]),
            features: vec!["x".into(), "y".into()],
        }
    }

    fn blobs(seed: u64) -> Vec<[f64; 2]> {
        let mut rng = SplitMix64::new(seed);
        let centres = [[0.0, 0.0], [4.0, 0.5], [1.0, 5.0]];
        (0..90)
            .map(|i| {
                let c = centres[i % 3];
                [c[0] + rng.next_symmetric(), c[1] + rng.next_symmetric()]
            })
            .collect()
    }

    fn linear_gram(data: &DataMatrix, members: &[usize]) -> Gram {
        crate::linalg::kernel::kernel_matrix(
            &KernelSpec::Linear,
            data,
            members,
            None,
            u64::MAX,
            None,
        )
        .expect("kernel")
        .gram
    }

    #[test]
    fn a_stiff_linear_soft_kmeans_follows_lloyd_from_the_same_start() {
        let coordinates = blobs(3);
        let data = points(&coordinates);
        let members: Vec<usize> = (0..coordinates.len()).collect();
        let gram = linear_gram(&data, &members);
        for seed in 0..5 {
            let start = kmeans_plus_plus_start(&gram, 3, &mut SplitMix64::new(seed));
            let soft =
                soft_kernel_kmeans(&gram, 3, 1e6, &mut SplitMix64::new(seed), None).expect("runs");
            let norms = data.column_norms_squared();
            let hard = lloyd::refine(&data, &members, &norms, start, 3);
            assert_eq!(soft.assignment, hard.assignment, "seed {seed}");
        }
    }

    #[test]
    fn responsibilities_are_distributions_and_soften_with_a_small_beta() {
        let coordinates = blobs(4);
        let data = points(&coordinates);
        let members: Vec<usize> = (0..coordinates.len()).collect();
        let gram = linear_gram(&data, &members);
        let soft = soft_kernel_kmeans(&gram, 3, 0.01, &mut SplitMix64::new(1), None).expect("runs");
        for t in 0..members.len() {
            let row = &soft.responsibilities[t * 3..(t + 1) * 3];
            assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            assert!(row.iter().all(|&r| r > 0.0 && r < 1.0));
        }
        let stiff =
            soft_kernel_kmeans(&gram, 3, 10.0, &mut SplitMix64::new(1), None).expect("runs");
        let largest = |g: &SoftGrouping| {
            (0..members.len())
                .map(|t| {
                    g.responsibilities[t * 3..(t + 1) * 3]
                        .iter()
                        .copied()
                        .fold(0.0, f64::max)
                })
                .sum::<f64>()
        };
        assert!(largest(&stiff) > largest(&soft));
    }

    #[test]
    fn the_rule_splits_blobs_and_refuses_bad_options() {
        let coordinates = blobs(5);
        let data = points(&coordinates);
        let members: Vec<usize> = (0..coordinates.len()).collect();
        let norms = data.column_norms_squared();
        let node = SplitContext {
            start: None,
            data: &data,
            members: &members,
            norms_squared: &norms,
            centroid: None,
            node_id: 0,
            env: Default::default(),
        };
        let rule = SoftKernelKmeans {
            kernel: KernelSpec::Gaussian { sigma: None },
            k: 3,
            beta: 5.0,
            seed: 1,
        };
        let partition = rule.split(&node).expect("splits");
        assert_eq!(partition.groups.len(), 3);
        assert!(partition.detail.iterations.is_some_and(|i| i >= 1));
        // The blobs alternate by index; each group must be one blob.
        for group in &partition.groups {
            let blob = group[0] % 3;
            assert!(group.iter().all(|&j| j % 3 == blob), "{group:?}");
        }
        // Out-of-range values never reach the rule: they are refused when the rule is chosen.
        for (param, change) in [
            (Param::Beta, (|p: &mut Params| p.beta = 0.0) as fn(&mut Params)),
            (Param::KWay, |p: &mut Params| p.k_way = 1),
        ] {
            let mut params = Params::default();
            change(&mut params);
            assert!(matches!(
                crate::cluster::RuleSpec::new("soft-kernel-kmeans", &params),
                Err(ClusterError::Param(error)) if error.param == param
            ));
        }
    }

    struct Texts(Vec<String>);

    impl crate::document_texts::DocumentTexts for Texts {
        fn text(&self, column: usize) -> Result<std::borrow::Cow<'_, str>, String> {
            Ok(std::borrow::Cow::Borrowed(&self.0[column]))
        }
    }

    #[test]
    fn the_rule_reads_text_for_a_string_kernel() {
        let texts = Texts(
            (0..12)
                .map(|i| {
                    if i % 2 == 0 {
                        format!("the cat sat on the mat number {i}")
                    } else {
                        format!("quantum flux capacitor {i} overload")
                    }
                })
                .collect(),
        );
        let data = points(&[[0.0, 0.0]; 12]);
        let members: Vec<usize> = (0..12).collect();
        let norms = data.column_norms_squared();
        let rule = SoftKernelKmeans {
            kernel: KernelSpec::Spectrum { n: 3 },
            k: 2,
            beta: 10.0,
            seed: 3,
        };
        let without_text = SplitContext {
            start: None,
            data: &data,
            members: &members,
            norms_squared: &norms,
            centroid: None,
            node_id: 0,
            env: Default::default(),
        };
        assert!(matches!(
            rule.split(&without_text),
            Err(ClusterError::Kernel(KernelError::NeedsText(_)))
        ));
        let node = SplitContext {
            start: None,
            env: super::super::SplitEnv {
                texts: Some(&texts),
                ..Default::default()
            },
            ..without_text
        };
        let partition = rule.split(&node).expect("splits");
        let mut groups = partition.groups;
        groups.sort();
        assert_eq!(
            groups,
            vec![vec![0, 2, 4, 6, 8, 10], vec![1, 3, 5, 7, 9, 11]]
        );
    }
}
