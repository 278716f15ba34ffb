//! `kpddp`: KPDDP(l), kernel PDDP (Zeimpekis & Gallopoulos, section 4, Table 2).

use super::kernel_util::{centred_eigenpairs, enter_phase, kernel_detail, node_kernel};
use super::{Directions, Partition, SplitContext, SplitRule, orthant_split};
use crate::cluster::ClusterError;
use crate::cluster::registry::{Children, RuleDef};
use crate::cluster::params::Param;
use crate::linalg::kernel::{KernelMatrix, KernelSpec};

/// The rule as the registry lists it.
pub(super) static RULE: RuleDef = RuleDef {
    name: "kpddp",
    summary: "the orthants of the l leading eigenvectors of the centred kernel matrix",
    source: "Zeimpekis & Gallopoulos, section 4 and Table 2",
    params: &[Param::Kernel, Param::L],
    children: Children::Orthants,
    preview_symbol: None,
    refines: None,
    out_of_sample: crate::cluster::assign::OutOfSample::KernelProjection,
    build: |params| {
        Box::new(Kpddp {
            kernel: params.kernel.clone(),
            l: params.l,
        })
    },
};

/// KPDDP(l), Zeimpekis & Gallopoulos, Table 2: form the node's Gram matrix `K`, take the `l` leading eigenpairs
/// `(lambda_i, y_i)` of the centred Gram matrix `K^ = (I - P) K (I - P)` (eqs. (3)-(4)), normalise
/// `||y_i|| = 1 / sqrt(lambda_i)` (eq. (2)), and put each member in the orthant given by the signs of its
/// projection coefficients `Y_l^T K^` (eq. (5)); up to 2^l children.
///
/// With `v_i` the unit eigenvector, eq. (2) gives `y_i = v_i / sqrt(lambda_i)` and the projections of eq. (5) are
/// `y_i^T K^ = lambda_i y_i^T = sqrt(lambda_i) v_i^T`: the signs are those of `v_i`, and `sqrt(lambda_i)` is the
/// i-th singular value of the centred node matrix in feature space. With the linear kernel `K^ = B^T B`, so this
/// is PDDP(l) exactly (the recorded values are then PDDP's singular values).
///
/// Reading of the paper: Table 2 defines `K^(p)` from `phi(a_j - c)`, the points centred in input space before
/// the map, then centres again in feature space (eq. (4)). pdx builds `K` from the points as they are and
/// centres in feature space only (eq. (3)), which is KPCA of the node; for the Gaussian kernel (translation
/// invariant) and the linear kernel the two readings coincide, for the polynomial kernel they differ, and only the
/// feature-space centring also makes sense for kernels with no input space (string kernels). Node selection by
/// the kernel scatter of eq. (6) is done by the tree ([`crate::cluster::Tree::grow_in`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Kpddp {
    pub kernel: KernelSpec,
    pub l: usize,
}

/// The node's kernel matrix and KPDDP's directions: `values` the feature-space singular values
/// `sqrt(lambda_i)`, `right` the unit eigenvectors `v_i` of the centred Gram matrix (no left vectors: they live
/// in feature space).
pub(super) fn kernel_directions(
    kernel: &KernelSpec,
    node: &SplitContext,
    l: usize,
) -> Result<(KernelMatrix, Directions), ClusterError> {
    let matrix = node_kernel(kernel, node)?;
    enter_phase(node, "eigenvectors")?;
    let pairs = centred_eigenpairs(&matrix.gram, l)?;
    let directions = Directions {
        values: pairs.values.iter().map(|v| v.sqrt()).collect(),
        right: pairs.vectors,
        left: Vec::new(),
        following: None,
        sample_stride: None,
    };
    Ok((matrix, directions))
}

impl SplitRule for Kpddp {
    /// Works from the kernel matrix: the (empty) linear directions are not used.
    fn split_along(
        &self,
        node: &SplitContext,
        _directions: &Directions,
    ) -> Result<Partition, ClusterError> {
        let (matrix, directions) = kernel_directions(&self.kernel, node, self.l)?;
        let zero_cuts = |directions: &[Vec<f64>]| vec![0.0; directions.len()];
        let partition = orthant_split(
            node,
            &directions,
            self.l,
            zero_cuts,
            "the sign of the kernel principal direction",
        )?;
        let detail = kernel_detail(&matrix, node.members, &partition.groups, partition.detail);
        Ok(Partition {
            detail,
            ..partition
        })
    }
}
