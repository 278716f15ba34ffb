//! `kpddp-ocpc`: KPDDP_OCPC (Zeimpekis & Gallopoulos, section 4): PDDP_OCPC's optimal 1-D cut on each
//! of the l kernel principal projections, then orthants around the cuts.

use super::kernel_util::kernel_detail;
use super::kpddp::kernel_directions;
use super::{Directions, Partition, SplitContext, SplitRule, orthant_split};
use crate::cluster::ClusterError;
use crate::cluster::registry::{Children, RuleDef};
use crate::cluster::params::Param;
use crate::cluster::cuts::optimal_cut_1d;
use crate::linalg::kernel::KernelSpec;

/// The rule as the registry lists it.
pub(super) static RULE: RuleDef = RuleDef {
    name: "kpddp-ocpc",
    summary: "the optimal 1-D cut on each of l kernel projections, orthants around the cuts",
    source: "Zeimpekis & Gallopoulos, section 4",
    params: &[Param::Kernel, Param::L],
    children: Children::Orthants,
    preview_symbol: None,
    refines: None,
    out_of_sample: crate::cluster::assign::OutOfSample::KernelProjection,
    build: |params| {
        Box::new(KpddpOcpc {
            kernel: params.kernel.clone(),
            l: params.l,
        })
    },
};

/// The kernel projections of KPDDP(l) (eq. (5), see [`super::kpddp::Kpddp`]), each cut at its optimal 1-D 2-means cut
/// point (as PDDP_OCPC does with the linear projections; Zeimpekis & Gallopoulos only say the variant "extends" to
/// kernels, so pdx does exactly that). The cut is chosen on the unit eigenvector `v_i`, a positive multiple of the
/// projection `sqrt(lambda_i) v_i`, so the split is the same and the recorded cuts are in the units PDDP_OCPC records
/// (those of the unit vector). A direction whose values are all equal gets cut 0.
#[derive(Debug, Clone, PartialEq)]
pub struct KpddpOcpc {
    pub kernel: KernelSpec,
    pub l: usize,
}

impl SplitRule for KpddpOcpc {
    /// Works from the kernel matrix: the (empty) linear directions are not used.
    fn split_along(
        &self,
        node: &SplitContext,
        _directions: &Directions,
    ) -> Result<Partition, ClusterError> {
        let (matrix, directions) = kernel_directions(&self.kernel, node, self.l)?;
        let optimal_cuts = |directions: &[Vec<f64>]| {
            directions
                .iter()
                .map(|v| optimal_cut_1d(v).unwrap_or(0.0))
                .collect()
        };
        let partition = orthant_split(
            node,
            &directions,
            self.l,
            optimal_cuts,
            "the optimal cut on the kernel principal directions",
        )?;
        let detail = kernel_detail(&matrix, node.members, &partition.groups, partition.detail);
        Ok(Partition {
            detail,
            ..partition
        })
    }
}
