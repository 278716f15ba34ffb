//! `spectral`: spectral clustering of a node with the kernel matrix as similarity matrix (Gkotsopoulou & Monge,
//! "Spectral clustering"), with the unnormalised, symmetric or random-walk Laplacian.

use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

use super::bisecting_kmeans::best_of_trials;
use super::kernel_util::{
    eigen_options, enter_phase, kernel_detail, node_kernel, require_non_negative,
};
use super::{Directions, Partition, SplitContext, SplitDetail, SplitEnv, SplitRule, require_split};
use crate::choice::Choice;
use crate::cluster::ClusterError;
use crate::cluster::registry::{Children, RuleDef};
use crate::cluster::params::Param;
use crate::linalg::Gram;
use crate::linalg::kernel::KernelSpec;
use crate::linalg::kernel_ops::{
    GramOperator, degrees, laplacian_shift, leading_eigenpairs_deflated,
};
use crate::matrix::DataMatrix;

/// Which graph Laplacian spectral clustering takes its eigenvectors from (Gkotsopoulou & Monge).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Laplacian {
    /// `L = D - S`.
    Unnormalized,
    /// `L_sym = I - D^{-1/2} S D^{-1/2}`.
    Sym,
    /// `L_rw = I - D^{-1} S`, the one Gkotsopoulou & Monge use (after von Luxburg).
    #[default]
    Rw,
}

impl Choice for Laplacian {
    const ALL: &'static [Self] = &[Laplacian::Rw, Laplacian::Sym, Laplacian::Unnormalized];

    fn name(self) -> &'static str {
        match self {
            Laplacian::Unnormalized => "unnormalized",
            Laplacian::Sym => "sym",
            Laplacian::Rw => "rw",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Laplacian::Unnormalized => "L = D - K",
            Laplacian::Sym => "L_sym = I - D^-1/2 K D^-1/2",
            Laplacian::Rw => "L_rw = I - D^-1 K",
        }
    }
}

/// The rule as the registry lists it.
pub(super) static RULE: RuleDef = RuleDef {
    name: "spectral",
    summary: "k-means on the eigenvectors of the chosen graph Laplacian of the kernel matrix",
    source: "Gkotsopoulou & Monge, \"Spectral clustering\"",
    params: &[
        Param::Kernel,
        Param::KWay,
        Param::Laplacian,
        Param::Trials,
        Param::Seed,
    ],
    children: Children::KWay,
    preview_symbol: None,
    refines: None,
    out_of_sample: crate::cluster::assign::OutOfSample::LaplacianEmbedding,
    build: |params| {
        Box::new(Spectral {
            kernel: params.kernel.clone(),
            k: params.k_way,
            laplacian: params.laplacian,
            trials: params.trials,
            seed: params.seed,
        })
    },
};

/// Gkotsopoulou & Monge: with the node's kernel matrix as similarity matrix `S` (entrywise non-negative: a node whose
/// kernel matrix has a negative entry is refused, naming the kernel), degrees `d_i = sum_j S_ij`, take the first
/// (smallest) `k` eigenvectors of the chosen Laplacian and cluster the members' rows of that n x k matrix into `k`
/// groups with k-means (seeded random starts, the best of `trials`, as `kmeans`). The seed clusters "these
/// eigenvectors themselves", so rows are used as they are (no row normalisation).
///
/// Eigenvectors by Lanczos on a shifted operator whose leading eigenvectors are the wanted smallest ones:
/// `c I - L` for `L` (`c` above its largest eigenvalue, by Gershgorin), `D^{-1/2} S D^{-1/2} + I = 2 I - L_sym`
/// for `L_sym`; `L_rw` has the eigenvalues of `L_sym` with eigenvectors `D^{-1/2} v` (`L_rw u = lambda u` iff
/// `L_sym D^{1/2} u = lambda D^{1/2} u`). Both shifted operators are PSD for a non-negative `K`, so their
/// singular vectors are their eigenvectors; the vectors are found one by one with deflation
/// (`linalg::kernel_ops::leading_eigenpairs_deflated`) so that a node whose graph falls apart into several components (the
/// eigenvalue 0, repeated) gets all of them. A member of degree 0 gets coordinates 0.
#[derive(Debug, Clone, PartialEq)]
pub struct Spectral {
    pub kernel: KernelSpec,
    pub k: usize,
    pub laplacian: Laplacian,
    pub trials: usize,
    pub seed: u64,
}

/// A Laplacian's eigenvalues, their eigenvectors (one entry per member) and the degrees of the graph.
pub(crate) type Embedding = (Vec<f64>, Vec<Vec<f64>>, Vec<f64>);

/// The first (smallest) `k` eigenvalues of `laplacian` of the similarity matrix `gram` and their eigenvectors (one
/// entry per member; for `L_rw`, `D^{-1/2}` times `L_sym`'s), and the degrees: the embedding the split clusters.
pub(crate) fn laplacian_embedding(
    gram: &Gram,
    k: usize,
    laplacian: Laplacian,
) -> Result<Embedding, ClusterError> {
    let degree = degrees(gram);
    let (eigenvalues, vectors) = match laplacian {
        Laplacian::Unnormalized => {
            let shift = laplacian_shift(&degree);
            let operator = GramOperator::shifted_laplacian(gram, &degree, shift, false);
            let pairs = leading_eigenpairs_deflated(&operator, k, &eigen_options())?;
            let values = pairs.values.iter().map(|v| (shift - v).max(0.0)).collect();
            (values, pairs.vectors)
        }
        Laplacian::Sym | Laplacian::Rw => {
            let operator = GramOperator::shifted_normalised_affinity(gram, &degree);
            let pairs = leading_eigenpairs_deflated(&operator, k, &eigen_options())?;
            let values: Vec<f64> = pairs.values.iter().map(|v| (2.0 - v).max(0.0)).collect();
            let vectors = if laplacian == Laplacian::Rw {
                pairs
                    .vectors
                    .into_iter()
                    .map(|v| {
                        v.iter()
                            .zip(&degree)
                            .map(|(x, &d)| if d > 0.0 { x / d.sqrt() } else { 0.0 })
                            .collect()
                    })
                    .collect()
            } else {
                pairs.vectors
            };
            (values, vectors)
        }
    };
    Ok((eigenvalues, vectors, degree))
}

impl SplitRule for Spectral {
    /// Works from the kernel matrix: the (empty) linear directions are not used.
    fn split_along(
        &self,
        node: &SplitContext,
        _directions: &Directions,
    ) -> Result<Partition, ClusterError> {
        let n = node.members.len();
        if n < self.k {
            return Err(ClusterError::Degenerate {
                reason: format!("{n} members cannot make {} groups", self.k),
            });
        }
        let matrix = node_kernel(&self.kernel, node)?;
        let gram = &matrix.gram;
        require_non_negative(gram, &self.kernel, RULE.name, node)?;
        enter_phase(node, "eigenvectors")?;
        let (eigenvalues, vectors, _) = laplacian_embedding(gram, self.k, self.laplacian)?;
        if vectors.is_empty() {
            return Err(ClusterError::Degenerate {
                reason: "the Laplacian has no eigenvector to embed the members with".into(),
            });
        }
        // The embedding: one column per member, one row per eigenvector.
        let dims = vectors.len();
        let embedding = DataMatrix::Dense {
            matrix: DMatrix::from_fn(dims, n, |r, c| vectors[r][c]),
            features: (1..=dims).map(|i| format!("u{i}")).collect(),
        };
        let positions: Vec<usize> = (0..n).collect();
        let norms = embedding.column_norms_squared();
        let embedded = SplitContext {
            start: None,
            data: &embedding,
            members: &positions,
            norms_squared: &norms,
            centroid: None,
            node_id: node.node_id,
            env: SplitEnv::default(),
        };
        let best = best_of_trials(&embedded, self.k, self.trials, self.seed)?;
        let groups = super::groups_from_labels(node.members, &best.assignment, self.k);
        let detail = SplitDetail {
            iterations: Some(best.iterations),
            eigenvalues: Some(eigenvalues),
            ..SplitDetail::default()
        };
        let detail = kernel_detail(&matrix, node.members, &groups, detail);
        require_split(groups, detail, "k-means on the Laplacian eigenvectors")
    }
}
