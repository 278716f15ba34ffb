//! `kpddp-2means`: KPDDP_2MEANS (Zeimpekis & Gallopoulos, section 4): kernel 2-means started from the
//! KPDDP split.

use super::kernel_kmeans::refine;
use super::kernel_util::{centred_eigenpairs, enter_phase, kernel_detail, node_kernel};
use super::{Directions, Partition, SplitContext, SplitDetail, SplitRule, require_split};
use crate::cluster::ClusterError;
use crate::cluster::registry::{Children, RuleDef};
use crate::cluster::params::Param;
use crate::linalg::kernel::KernelSpec;

/// The rule as the registry lists it.
pub(super) static RULE: RuleDef = RuleDef {
    name: "kpddp-2means",
    summary: "kernel 2-means started from the KPDDP split",
    source: "Zeimpekis & Gallopoulos, section 4",
    params: &[Param::Kernel],
    children: Children::Two,
    preview_symbol: None,
    refines: None,
    out_of_sample: crate::cluster::assign::OutOfSample::KernelCentroids,
    build: |params| {
        Box::new(Kpddp2Means {
            kernel: params.kernel.clone(),
        })
    },
};

/// The KPDDP(1) split (the sign of the leading eigenvector of the centred Gram matrix, non-positive side first;
/// see [`super::kpddp::Kpddp`]) is the start of kernel 2-means ([`refine`]) on the same kernel matrix, as PDDP_2MEANS
/// starts 2-means from PDDP: the objective never rises above the KPDDP split's, and there is no random start.
#[derive(Debug, Clone, PartialEq)]
pub struct Kpddp2Means {
    pub kernel: KernelSpec,
}

impl SplitRule for Kpddp2Means {
    /// Works from the kernel matrix: the (empty) linear directions are not used.
    fn split_along(
        &self,
        node: &SplitContext,
        _directions: &Directions,
    ) -> Result<Partition, ClusterError> {
        let matrix = node_kernel(&self.kernel, node)?;
        enter_phase(node, "eigenvectors")?;
        let pairs = centred_eigenpairs(&matrix.gram, 1)?;
        let start: Vec<usize> = pairs.vectors[0]
            .iter()
            .map(|&v| usize::from(v > 0.0))
            .collect();
        if start.iter().all(|&g| g == start[0]) {
            return Err(ClusterError::Degenerate {
                reason: "the sign of the kernel principal direction puts every member on one side"
                    .into(),
            });
        }
        let grouping = refine(&matrix.gram, start, 2);
        let groups = super::groups_from_labels(node.members, &grouping.assignment, 2);
        let detail = SplitDetail {
            singular_values: vec![pairs.values[0].sqrt()],
            cuts: vec![0.0],
            iterations: Some(grouping.iterations),
            start_objective: Some(grouping.start_objective),
            ..SplitDetail::default()
        };
        let detail = kernel_detail(&matrix, node.members, &groups, detail);
        require_split(groups, detail, "kernel 2-means")
    }
}
