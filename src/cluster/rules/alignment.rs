//! `alignment`: the split that maximises the alignment of the kernel with the labels (Cristianini,
//! Shawe-Taylor & Kandola, section 3.1).

use super::kernel_util::{
    eigen_options, enter_phase, kernel_detail, node_kernel, sweep_order, threshold_split,
};
use super::labels::{label_alignment, member_classes};
use super::{Directions, Partition, SplitContext, SplitDetail, SplitRule, require_split};
use crate::cluster::ClusterError;
use crate::cluster::params::Param;
use crate::cluster::registry::{Children, RuleDef};
use crate::linalg::kernel::KernelSpec;
use crate::linalg::kernel_ops::{CentredEntries, Eigenpairs, leading_eigenpairs};

/// How many leading eigenvectors the split measures against the labels, when the documents have some (the
/// paper's Fig. 1a plots them all; the leading ten show whether the first is the one that follows the labels).
pub const LABELLED_EIGENVECTORS: usize = 10;

/// The rule as the registry lists it.
pub(super) static RULE: RuleDef = RuleDef {
    name: "alignment",
    summary: "the leading eigenvector of the centred normalised kernel, at the threshold of largest alignment",
    source: "Cristianini, Shawe-Taylor & Kandola, section 3.1",
    params: &[Param::Kernel, Param::Normalise],
    children: Children::Two,
    preview_symbol: None,
    refines: None,
    out_of_sample: crate::cluster::assign::OutOfSample::KernelThreshold,
    build: |params| {
        Box::new(Alignment {
            kernel: params.kernel.clone(),
            normalise: params.normalise,
        })
    },
};

/// Cristianini, Shawe-Taylor & Kandola, section 3.1: normalise the node's kernel in feature space (`K_ij / sqrt(K_ii
/// K_jj)`) and centre it (`K - m^{-1} j g' - m^{-1} g j' + m^{-2} (j'Kj) J`, the preprocessing of the paper's
/// experiments), take the leading eigenvector `v` of that matrix `K_c`, and among the labellings `y = sign(v -
/// theta)` (every threshold between two consecutive distinct entries of `v`) choose the one of largest alignment
/// `A(y) = y' K_c y / (m ||K_c||_F)` (Definition 1 with `k_2 = y y'`); the members with `v <= theta` are the first
/// child. Records the achieved alignment and the upper bound `lambda_max / ||K_c||_F` on every labelling's alignment
/// (Courant-Fischer), both for the same `K_c`, and, when the members have labels, the alignment with them of each
/// of the [`LABELLED_EIGENVECTORS`] leading eigenvectors (the paper's Fig. 1a; computed apart from the split, so
/// that the split is the same with or without labels).
///
/// `normalise: false` centres without normalising. The paper's text normalises; on its breast cancer experiment
/// (linear kernel) only the centred kernel without normalising comes near its figure (`docs/references.md`).
///
/// All `m - 1` thresholds are scored in O(m^2) in total: since the rows of `K_c` sum to zero,
/// `y' K_c y = -4 C(S)` with `C(S) = sum_{i in S, j not in S} (K_c)_ij` for the set S below the threshold, and
/// moving member a below it changes `C` by `-(K_c)_aa - 2 sum_{i in S} (K_c)_ai`, one row of `K` per step.
#[derive(Debug, Clone, PartialEq)]
pub struct Alignment {
    pub kernel: KernelSpec,
    pub normalise: bool,
}

/// The leading eigenpair of the node's centred (normalised) kernel `centred`: the vector the split thresholds.
pub(crate) fn leading_pair(centred: &CentredEntries) -> Result<Eigenpairs, ClusterError> {
    Ok(leading_eigenpairs(&centred.operator(), 1, &eigen_options())?)
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
        let centred = CentredEntries::new(gram, self.normalise);
        let frobenius = centred.frobenius();
        let operator = centred.operator();
        let pairs = leading_pair(&centred)?;
        if pairs.values.is_empty() || frobenius <= 0.0 {
            return Err(ClusterError::Degenerate {
                reason: "the members coincide in feature space (the centred kernel is zero)".into(),
            });
        }
        let lambda_max = pairs.values[0];
        let v = &pairs.vectors[0];
        let order = sweep_order(v);
        let (scale, row_sums, total) = (&centred.scale, &centred.row_sums, centred.total);
        let nf = n as f64;

        // w_raw[a] = sum_{i in S} s_i K_ia; then sum_{i in S} (K_c)_ai follows from it, |S| and sum_{i in S} g_i.
        let mut w_raw = vec![0.0; n];
        let mut below_sum_g = 0.0;
        let mut cut = 0.0;
        let mut best: Option<(usize, f64)> = None;
        for (t, &a) in order[..n - 1].iter().enumerate() {
            let size = t as f64;
            let w_a = scale[a] * w_raw[a] - size * row_sums[a] / nf - below_sum_g / nf
                + size * total / (nf * nf);
            cut += -centred.get(a, a) - 2.0 * w_a;
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
        let mut detail = SplitDetail {
            cuts: vec![theta],
            eigenvalues: Some(vec![lambda_max]),
            alignment: Some(alignment),
            alignment_bound: Some(lambda_max / frobenius),
            ..SplitDetail::default()
        };
        if let Some(labels) = node.env.labels {
            let (classes, count) = member_classes(labels, node.members, None);
            if count > 0 {
                enter_phase(node, "eigenvectors against the labels")?;
                let leading = leading_eigenpairs(&operator, LABELLED_EIGENVECTORS, &eigen_options())?;
                let alignments = leading
                    .vectors
                    .iter()
                    .map(|v| label_alignment(v, &classes, count).unwrap_or(0.0))
                    .collect();
                detail.eigenvalues = Some(leading.values);
                detail.label_alignments = Some(alignments);
            }
        }
        let detail = kernel_detail(&matrix, node.members, &groups, detail);
        require_split(groups, detail, "the alignment threshold")
    }
}
