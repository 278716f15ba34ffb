//! `cut-cost`: the split along the second eigenvector of the Laplacian with the threshold of least cut cost
//! (Cristianini, Shawe-Taylor & Kandola, section 3.2).

use rayon::prelude::*;

use super::kernel_util::{
    eigen_options, enter_phase, kernel_detail, node_kernel, require_non_negative, sweep_order,
    threshold_split,
};
use super::{Directions, Partition, SplitContext, SplitDetail, SplitRule, require_split};
use crate::cluster::ClusterError;
use crate::cluster::registry::{Children, RuleDef};
use crate::cluster::params::Param;
use crate::linalg::kernel::KernelSpec;
use crate::linalg::kernel_ops::{GramOperator, degrees, laplacian_shift, leading_eigenpairs};

/// The rule as the registry lists it.
pub(super) static RULE: RuleDef = RuleDef {
    name: "cut-cost",
    summary: "the second eigenvector of L = D - K, at the threshold of least ratio cut",
    source: "Cristianini, Shawe-Taylor & Kandola, section 3.2",
    params: &[Param::Kernel],
    children: Children::Two,
    preview_symbol: None,
    refines: None,
    build: |params| {
        Box::new(CutCost {
            kernel: params.kernel.clone(),
        })
    },
};

/// Cristianini, Shawe-Taylor & Kandola, section 3.2: with `L = D - K` (`d_i = sum_j K_ij`), take the eigenvector `v`
/// of the smallest non-zero eigenvalue `lambda` (the second; the first is 0 with eigenvector `j`), order the members
/// by it and threshold it; records the cut cost `C(y) = sum_{y_i != y_j} K_ij / (m ||K||_F)` (Definition 2) of the
/// split and the lower bound `lambda / (2 ||K||_F)`. The kernel must be entrywise non-negative (it is a graph's
/// weights): a node whose kernel matrix has a negative entry is refused, naming the kernel.
///
/// Reading of the paper: it poses the problem as minimising the cut cost "subject to the division being even",
/// relaxes evenness to `sum_i y_i = 0`, and its bound holds for even divisions (for one with mean label
/// `ybar` the same Rayleigh-quotient argument gives `C(y) >= (1 - ybar^2) lambda / (2 ||K||_F)`). Scanning the
/// thresholds for the smallest raw cut cost drops that constraint, and on a non-negative kernel it always cuts off
/// the single least-connected member (the cut shrinks with the smaller side). pdx keeps the paper's constraint
/// in the only form a threshold scan can: it picks the threshold whose cut cost is smallest *relative to its
/// lower bound*, `C(y) / (1 - ybar^2)` (which orders even divisions exactly as the cut cost does, and is the
/// ratio cut of graph partitioning). The recorded cut cost is `C(y)` itself.
///
/// The eigenvector comes from Lanczos on `c I - L` restricted to the complement of `j` (`L j = 0`, so `L` keeps
/// that complement), whose leading eigenvector is `v`, with `c` above `L`'s largest eigenvalue (Gershgorin);
/// all thresholds are scored in O(m^2) with one row of `K` per step.
#[derive(Debug, Clone, PartialEq)]
pub struct CutCost {
    pub kernel: KernelSpec,
}

impl SplitRule for CutCost {
    /// Works from the kernel matrix: the (empty) linear directions are not used.
    fn split_along(
        &self,
        node: &SplitContext,
        _directions: &Directions,
    ) -> Result<Partition, ClusterError> {
        let matrix = node_kernel(&self.kernel, node)?;
        let gram = &matrix.gram;
        require_non_negative(gram, &self.kernel, RULE.name, node)?;
        enter_phase(node, "eigenvectors")?;
        let n = gram.n();
        let degree = degrees(gram);
        let shift = laplacian_shift(&degree);
        let operator = GramOperator::shifted_laplacian(gram, &degree, shift, true);
        let pairs = leading_eigenpairs(&operator, 1, &eigen_options())?;
        let frobenius = gram.frobenius_norm();
        if pairs.values.is_empty() || frobenius <= 0.0 {
            return Err(ClusterError::Degenerate {
                reason: "the kernel matrix is zero: no graph to cut".into(),
            });
        }
        let lambda = (shift - pairs.values[0]).max(0.0);
        let v = &pairs.vectors[0];
        let order = sweep_order(v);

        // within[a] = sum_{i in S} K_ia for the set S below the threshold; cut = sum_{i in S, j not in S} K_ij.
        let mut within = vec![0.0; n];
        let mut cut = 0.0;
        let nf = n as f64;
        let mut best: Option<(usize, f64, f64)> = None;
        for (t, &a) in order[..n - 1].iter().enumerate() {
            cut += degree[a] - gram.get(a, a) - 2.0 * within[a];
            within
                .par_iter_mut()
                .zip(gram.row(a))
                .for_each(|(w, k)| *w += k);
            if v[a] == v[order[t + 1]] {
                continue;
            }
            let below = (t + 1) as f64;
            // Ordered pairs: each unordered cut pair counts twice in sum_{y_i != y_j}.
            let cut_cost = 2.0 * cut.max(0.0) / (nf * frobenius);
            let balance = 4.0 * below * (nf - below) / (nf * nf);
            let relative = cut_cost / balance;
            if best.is_none_or(|(_, _, b)| relative < b) {
                best = Some((t + 1, cut_cost, relative));
            }
        }
        let Some((cut_at, cut_cost, _)) = best else {
            return Err(ClusterError::Degenerate {
                reason: "the Laplacian's second eigenvector is constant".into(),
            });
        };
        let (theta, groups) = threshold_split(node, v, &order, cut_at);
        let detail = SplitDetail {
            cuts: vec![theta],
            eigenvalues: Some(vec![lambda]),
            cut_cost: Some(cut_cost),
            cut_cost_bound: Some(lambda / (2.0 * frobenius)),
            ..SplitDetail::default()
        };
        let detail = kernel_detail(&matrix, node.members, &groups, detail);
        require_split(groups, detail, "the cut-cost threshold")
    }
}
