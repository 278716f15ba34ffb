//! `alignment`: the split that maximises the alignment of the kernel with the labels (Cristianini,
//! Shawe-Taylor & Kandola, section 3.1).

use rayon::prelude::*;

use super::kernel_util::{
    eigen_options, enter_phase, kernel_detail, node_kernel, sweep_order, threshold_split,
};
use super::{Directions, Partition, SplitContext, SplitDetail, SplitRule, require_split};
use crate::cluster::ClusterError;
use crate::cluster::registry::{Children, RuleDef};
use crate::cluster::params::Param;
use crate::linalg::kernel::KernelSpec;
use crate::linalg::kernel_ops::{GramOperator, leading_eigenpairs};

/// The rule as the registry lists it.
pub(super) static RULE: RuleDef = RuleDef {
    name: "alignment",
    summary: "the leading eigenvector of the centred normalised kernel, at the threshold of largest alignment",
    source: "Cristianini, Shawe-Taylor & Kandola, section 3.1",
    params: &[Param::Kernel],
    children: Children::Two,
    preview_symbol: None,
    refines: None,
    build: |params| {
        Box::new(Alignment {
            kernel: params.kernel.clone(),
        })
    },
};

/// Cristianini, Shawe-Taylor & Kandola, section 3.1: normalise the node's kernel in feature space (`K_ij / sqrt(K_ii
/// K_jj)`) and centre it (`K - m^{-1} j g' - m^{-1} g j' + m^{-2} (j'Kj) J`, the preprocessing of the paper's
/// experiments), take the leading eigenvector `v` of that matrix `K_c`, and among the labellings `y = sign(v -
/// theta)` (every threshold between two consecutive distinct entries of `v`) choose the one of largest alignment
/// `A(y) = y' K_c y / (m ||K_c||_F)` (Definition 1 with `k_2 = y y'`); the members with `v <= theta` are the first
/// child. Records the achieved alignment and the upper bound `lambda_max / ||K_c||_F` on every labelling's alignment
/// (Courant-Fischer), both for the same `K_c`.
///
/// All `m - 1` thresholds are scored in O(m^2) in total: since the rows of `K_c` sum to zero,
/// `y' K_c y = -4 C(S)` with `C(S) = sum_{i in S, j not in S} (K_c)_ij` for the set S below the threshold, and
/// moving member a below it changes `C` by `-(K_c)_aa - 2 sum_{i in S} (K_c)_ai`, one row of `K` per step.
#[derive(Debug, Clone, PartialEq)]
pub struct Alignment {
    pub kernel: KernelSpec,
}

impl SplitRule for Alignment {
    /// Works from the kernel matrix: the (empty) linear directions are not used.
    fn split_along(
        &self,
        node: &SplitContext,
        _directions: &Directions,
    ) -> Result<Partition, ClusterError> {
        let matrix = node_kernel(&self.kernel, node)?;
        enter_phase(node, "eigenvectors")?;
        let gram = &matrix.gram;
        let n = gram.n();
        let scale: Vec<f64> = gram
            .diagonal()
            .iter()
            .map(|&v| if v > 0.0 { 1.0 / v.sqrt() } else { 0.0 })
            .collect();
        // g_i: row sums of the normalised kernel; total: their sum.
        let row_sums: Vec<f64> = (0..n)
            .into_par_iter()
            .map(|i| {
                let row = gram.row(i);
                scale[i] * row.iter().zip(&scale).map(|(k, s)| k * s).sum::<f64>()
            })
            .collect();
        let total: f64 = row_sums.iter().sum();
        let nf = n as f64;
        let centred = |i: usize, j: usize| {
            scale[i] * scale[j] * gram.get(i, j) - row_sums[i] / nf - row_sums[j] / nf
                + total / (nf * nf)
        };
        // Row sums in parallel, added in row order: a parallel sum would combine them in whatever order the
        // threads finish, and the last bit of the reported alignment would change from run to run.
        let squared_rows: Vec<f64> = (0..n)
            .into_par_iter()
            .map(|i| (0..n).map(|j| centred(i, j).powi(2)).sum::<f64>())
            .collect();
        let frobenius = squared_rows.iter().sum::<f64>().sqrt();
        let operator = GramOperator::normalised_centred(gram);
        let pairs = leading_eigenpairs(&operator, 1, &eigen_options())?;
        if pairs.values.is_empty() || frobenius <= 0.0 {
            return Err(ClusterError::Degenerate {
                reason: "the members coincide in feature space (the centred kernel is zero)".into(),
            });
        }
        let lambda_max = pairs.values[0];
        let v = &pairs.vectors[0];
        let order = sweep_order(v);

        // w_raw[a] = sum_{i in S} s_i K_ia; then sum_{i in S} (K_c)_ai follows from it, |S| and sum_{i in S} g_i.
        let mut w_raw = vec![0.0; n];
        let mut below_sum_g = 0.0;
        let mut cut = 0.0;
        let mut best: Option<(usize, f64)> = None;
        for (t, &a) in order[..n - 1].iter().enumerate() {
            let size = t as f64;
            let w_a = scale[a] * w_raw[a] - size * row_sums[a] / nf - below_sum_g / nf
                + size * total / (nf * nf);
            cut += -centred(a, a) - 2.0 * w_a;
            let row = gram.row(a);
            let s_a = scale[a];
            w_raw.iter_mut().zip(row).for_each(|(w, k)| *w += s_a * k);
            below_sum_g += row_sums[a];
            // A threshold lies strictly between two distinct values of v.
            if v[a] == v[order[t + 1]] {
                continue;
            }
            let alignment = -4.0 * cut / (nf * frobenius);
            if best.is_none_or(|(_, b)| alignment > b) {
                best = Some((t + 1, alignment));
            }
        }
        let Some((cut_at, alignment)) = best else {
            return Err(ClusterError::Degenerate {
                reason: "the leading eigenvector of the kernel is constant".into(),
            });
        };
        let (theta, groups) = threshold_split(node, v, &order, cut_at);
        let detail = SplitDetail {
            cuts: vec![theta],
            eigenvalues: Some(vec![lambda_max]),
            alignment: Some(alignment),
            alignment_bound: Some(lambda_max / frobenius),
            ..SplitDetail::default()
        };
        let detail = kernel_detail(&matrix, node.members, &groups, detail);
        require_split(groups, detail, "the alignment threshold")
    }
}
