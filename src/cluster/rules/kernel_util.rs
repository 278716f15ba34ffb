//! What the kernel rules share: the node's kernel matrix (built once per split, within the memory budget),
//! member positions of groups, the figures every kernel split reports, and the non-negativity check of the
//! Laplacian rules.

use super::{SplitContext, SplitDetail};
use crate::cluster::ClusterError;
use crate::linalg::kernel::{KernelMatrix, KernelSpec, kernel_matrix};
use crate::linalg::kernel_ops::{Eigenpairs, GramOperator, leading_eigenpairs};
use crate::linalg::{Gram, LanczosOptions};

/// Lanczos tolerance of the kernel rules' eigenvectors, the same as PDDP's ([`super::SPLIT_TOLERANCE`]): a
/// vector only decides signs, an ordering or a k-means start.
pub(super) fn eigen_options() -> LanczosOptions<'static> {
    LanczosOptions::with_tolerance(super::SPLIT_TOLERANCE)
}

/// The node's kernel matrix under `kernel`, with the split's texts, budget and progress.
pub(super) fn node_kernel(
    kernel: &KernelSpec,
    node: &SplitContext,
) -> Result<KernelMatrix, ClusterError> {
    if let Some(progress) = node.env.progress {
        progress.start_phase(&format!("{kernel} kernel matrix"), 0);
    }
    Ok(kernel_matrix(
        kernel,
        node.data,
        node.members,
        node.env.texts,
        node.env.memory_budget,
        node.env.progress,
    )?)
}

/// Report the next phase of a kernel split (after the matrix, whose rows [`kernel_matrix`] reports), failing if
/// the user cancelled meanwhile.
pub(super) fn enter_phase(node: &SplitContext, phase: &str) -> Result<(), ClusterError> {
    check_cancelled(node)?;
    if let Some(progress) = node.env.progress {
        progress.start_phase(phase, 0);
    }
    Ok(())
}

/// Fail with [`ClusterError::Kernel`]'s cancellation when the user cancelled.
pub(super) fn check_cancelled(node: &SplitContext) -> Result<(), ClusterError> {
    if let Some(progress) = node.env.progress {
        progress
            .check()
            .map_err(crate::linalg::kernel::KernelError::from)?;
    }
    Ok(())
}

/// Positions (into the node's members) of each group's columns; members and groups are sorted.
pub(super) fn positions(members: &[usize], groups: &[Vec<usize>]) -> Vec<Vec<usize>> {
    groups
        .iter()
        .map(|group| {
            group
                .iter()
                .filter_map(|j| members.binary_search(j).ok())
                .collect()
        })
        .collect()
}

/// The kernel figures of a split: the matrix's sigma / components / c*, the node's kernel scatter and its
/// children's (Zeimpekis & Gallopoulos, eq. (6), each from its principal submatrix of `K`).
pub(super) fn kernel_detail(
    matrix: &KernelMatrix,
    members: &[usize],
    groups: &[Vec<usize>],
    detail: SplitDetail,
) -> SplitDetail {
    let children = positions(members, groups)
        .iter()
        .map(|p| submatrix_scatter(&matrix.gram, p))
        .collect();
    SplitDetail {
        kernel_sigma: matrix.sigma,
        kernel_sigma_curve: matrix.sigma_curve.clone(),
        kernel_components: matrix.components,
        kernel_c_star: matrix.c_star,
        kernel_scatter: Some(matrix.gram.feature_scatter()),
        child_kernel_scatters: Some(children),
        ..detail
    }
}

/// Eq. (6) of Zeimpekis & Gallopoulos on the principal submatrix at `positions`, `trace - e^T K e / n` (the printed
/// (6) has `2 ||K e||_1 / n`, but its own derivation ends in `+ e^T K e / n - 2 e^T K e / n`; pdx uses the
/// derivation, which with a linear kernel is the scatter `s_p` of PDDP), without copying the submatrix.
pub(super) fn submatrix_scatter(gram: &Gram, positions: &[usize]) -> f64 {
    if positions.is_empty() {
        return 0.0;
    }
    let trace: f64 = positions.iter().map(|&i| gram.get(i, i)).sum();
    let total: f64 = positions
        .iter()
        .map(|&i| {
            let row = gram.row(i);
            positions.iter().map(|&j| row[j]).sum::<f64>()
        })
        .sum();
    (trace - total / positions.len() as f64).max(0.0)
}

/// The leading `count` eigenpairs of the centred Gram matrix `(I - P) K (I - P)` (Zeimpekis & Gallopoulos, eqs.
/// (3)-(4)), or why there are none.
pub(crate) fn centred_eigenpairs(gram: &Gram, count: usize) -> Result<Eigenpairs, ClusterError> {
    let pairs = leading_eigenpairs(&GramOperator::centred(gram), count, &eigen_options())?;
    if pairs.values.is_empty() {
        return Err(ClusterError::Degenerate {
            reason: "the members coincide in feature space (the centred kernel matrix is zero)"
                .into(),
        });
    }
    Ok(pairs)
}

/// The Laplacian rules (Gkotsopoulou & Monge; Cristianini, Shawe-Taylor & Kandola, section 3.2) read `K` as the
/// weights of a graph, which must not be negative: refuse a matrix with a negative entry, naming the kernel.
pub(super) fn require_non_negative(
    gram: &Gram,
    kernel: &KernelSpec,
    rule: &'static str,
    node: &SplitContext,
) -> Result<(), ClusterError> {
    let smallest = gram.values().iter().copied().fold(f64::INFINITY, f64::min);
    if smallest < 0.0 {
        return Err(ClusterError::NegativeSimilarity {
            node: node.node_id,
            rule,
            kernel: kernel.to_string(),
            smallest,
        });
    }
    Ok(())
}

/// Positions `0..n` in increasing order of `v` (ties by position): the order in which a threshold sweep along an
/// eigenvector (alignment, cut cost; Cristianini, Shawe-Taylor & Kandola) moves members below the threshold.
pub(super) fn sweep_order(v: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&a, &b| v[a].total_cmp(&v[b]).then(a.cmp(&b)));
    order
}

/// The threshold halfway between the `cut_at`-th and the next value of `v` along `order`, and the node's two
/// groups either side of it (members with `v <= theta` first).
pub(super) fn threshold_split(
    node: &SplitContext,
    v: &[f64],
    order: &[usize],
    cut_at: usize,
) -> (f64, Vec<Vec<usize>>) {
    let theta = 0.5 * (v[order[cut_at - 1]] + v[order[cut_at]]);
    let labels: Vec<usize> = v.iter().map(|&x| usize::from(x > theta)).collect();
    (theta, super::groups_from_labels(node.members, &labels, 2))
}
