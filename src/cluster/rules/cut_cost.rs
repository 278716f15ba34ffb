//! `cut-cost`: the split along the second eigenvector of the Laplacian with the threshold of least cut cost
//! (Cristianini, Shawe-Taylor & Kandola, section 3.2).

use super::cut_scan::{ScanSettings, Shown, best_threshold};
use super::kernel_util::{
    eigen_options, enter_phase, kernel_detail, node_kernel, require_non_negative, sweep_order,
    threshold_split,
};
use super::labels::{member_classes, revealed};
use super::{Directions, Partition, SplitContext, SplitDetail, SplitRule, require_split};
use crate::cluster::ClusterError;
use crate::cluster::params::Param;
use crate::cluster::registry::{Children, RuleDef};
use crate::linalg::Gram;
use crate::linalg::kernel::KernelSpec;
use crate::linalg::kernel_ops::{GramOperator, degrees, laplacian_shift, leading_eigenpairs};

pub use super::cut_scan::CutScan;

/// The rule as the registry lists it.
pub(super) static RULE: RuleDef = RuleDef {
    name: "cut-cost",
    summary: "the second eigenvector of L = D - K, at the threshold of least cut cost (sides of at least min-side)",
    source: "Cristianini, Shawe-Taylor & Kandola, section 3.2",
    params: &[
        Param::Kernel,
        Param::CutScan,
        Param::MinSide,
        Param::PartialLabels,
        Param::C0,
        Param::Seed,
    ],
    children: Children::Two,
    preview_symbol: None,
    refines: None,
    out_of_sample: crate::cluster::assign::OutOfSample::LaplacianThreshold,
    build: |params| {
        Box::new(CutCost {
            kernel: params.kernel.clone(),
            scan: params.cut_scan,
            min_side: params.min_side,
            partial_labels: params.partial_labels,
            c0: params.c0,
            seed: params.seed,
        })
    },
};

/// Cristianini, Shawe-Taylor & Kandola, section 3.2: with `L = D - K` (`d_i = sum_j K_ij`), take the eigenvector `v`
/// of the smallest non-zero eigenvalue `lambda` (the second; the first is 0 with eigenvector `j`), order the members
/// by it and threshold it; records the cut cost `C(y) = sum_{y_i != y_j} K_ij / (m ||K||_F)` (Definition 2) of the
/// split, the lower bound `lambda / (2 ||K||_F)` of an even split, and the bound `(1 - ybar^2) lambda / (2
/// ||K||_F)` for the split's own sizes (mean label `ybar`). The kernel must be entrywise non-negative (it is a
/// graph's weights): a node whose kernel matrix has a negative entry is refused, naming the kernel.
///
/// Reading of the paper: it poses the problem as minimising the cut cost "subject to the division being even",
/// relaxes evenness to `sum_i y_i = 0`, and chooses the threshold of least cut cost. Over every threshold that
/// always cuts off the single least-connected member (the cut shrinks with the smaller side), so the scan keeps
/// the paper's constraint as a bound: thresholds leaving fewer than `min_side` of the members on a side are not
/// considered; `scan` says what is minimised over the others ([`CutScan`]). The defaults (the least cut cost,
/// sides of at least 15%) are the reading closest to the paper's figures (`docs/references.md`).
///
/// Transduction (end of section 3.2): with `partial_labels > 0`, that share of the collection's labels is shown
/// (drawn by `seed`, the same documents for every node), and the threshold is chosen by the cut measured on `KP
/// = K + C0 M` (see the `cut_scan` module); the eigenvector still comes from `K`, and the recorded cut cost is
/// `K`'s.
///
/// The eigenvector comes from Lanczos on `c I - L` restricted to the complement of `j` (`L j = 0`, so `L` keeps
/// that complement), whose leading eigenvector is `v`, with `c` above `L`'s largest eigenvalue (Gershgorin).
#[derive(Debug, Clone, PartialEq)]
pub struct CutCost {
    pub kernel: KernelSpec,
    pub scan: CutScan,
    /// The smallest side, as a share of the node, in [0, 0.5).
    pub min_side: f64,
    /// The share of the collection's labels shown, in [0, 1].
    pub partial_labels: f64,
    /// The weight of the shown labels.
    pub c0: f64,
    /// Which labels are shown.
    pub seed: u64,
}

/// The second smallest eigenvalue of `L = D - K` (`degree` the row sums of `gram`) and its eigenvector, the one the
/// split thresholds; `None` when there is none (a zero kernel matrix).
pub(crate) fn second_eigenpair(
    gram: &Gram,
    degree: &[f64],
) -> Result<Option<(f64, Vec<f64>)>, ClusterError> {
    let shift = laplacian_shift(degree);
    let operator = GramOperator::shifted_laplacian(gram, degree, shift, true);
    let mut pairs = leading_eigenpairs(&operator, 1, &eigen_options())?;
    Ok(match (pairs.values.first(), pairs.vectors.pop()) {
        (Some(&value), Some(vector)) => Some(((shift - value).max(0.0), vector)),
        _ => None,
    })
}

impl SplitRule for CutCost {
    /// Works from the kernel matrix: the (empty) linear directions are not used.
    fn split_along(
        &self,
        node: &SplitContext,
        _directions: &Directions,
    ) -> Result<Partition, ClusterError> {
        assert!(
            (0.0..0.5).contains(&self.min_side) && (0.0..=1.0).contains(&self.partial_labels),
            "checked parameters"
        );
        let matrix = node_kernel(&self.kernel, node)?;
        let gram = &matrix.gram;
        require_non_negative(gram, &self.kernel, RULE.name, node)?;
        enter_phase(node, "eigenvectors")?;
        let n = gram.n();
        let degree = degrees(gram);
        let frobenius = gram.frobenius_norm();
        let second = second_eigenpair(gram, &degree)?;
        let Some((lambda, v)) = second.filter(|_| frobenius > 0.0) else {
            return Err(ClusterError::Degenerate {
                reason: "the kernel matrix is zero: no graph to cut".into(),
            });
        };
        let v = &v;
        let order = sweep_order(v);

        let shown = self.shown_classes(node);
        let settings = ScanSettings {
            scan: self.scan,
            min_side: self.min_side,
            shown: shown.as_ref().map(|(classes, count)| Shown {
                classes,
                count: *count,
                c0: self.c0,
            }),
        };
        let Some(chosen) = best_threshold(gram, &degree, v, &order, &settings) else {
            return Err(ClusterError::Degenerate {
                reason: "no threshold between distinct values of the Laplacian's second eigenvector leaves \
                         min-side of the members on each side"
                    .into(),
            });
        };
        let nf = n as f64;
        let even_bound = lambda / (2.0 * frobenius);
        let mean_label = (nf - 2.0 * chosen.cut_at as f64) / nf;
        let (theta, groups) = threshold_split(node, v, &order, chosen.cut_at);
        let detail = SplitDetail {
            cuts: vec![theta],
            eigenvalues: Some(vec![lambda]),
            cut_cost: Some(chosen.cut / (nf * frobenius)),
            cut_cost_bound: Some(even_bound),
            cut_cost_split_bound: Some((1.0 - mean_label * mean_label) * even_bound),
            known_labels: shown.map(|(classes, _)| classes.iter().flatten().count()),
            ..SplitDetail::default()
        };
        let detail = kernel_detail(&matrix, node.members, &groups, detail);
        require_split(groups, detail, "the cut-cost threshold")
    }
}

impl CutCost {
    /// The shown labels' classes by member position and their count, when the rule is to show some and the
    /// documents have labels.
    fn shown_classes(&self, node: &SplitContext) -> Option<(Vec<Option<usize>>, usize)> {
        if self.partial_labels <= 0.0 {
            return None;
        }
        let labels = node.env.labels?;
        let shown = revealed(labels, node.data.cols(), self.partial_labels, self.seed);
        Some(member_classes(labels, node.members, Some(&shown)))
    }
}
