//! `pddp-ocpc`: PDDP_OCPC (Zeimpekis & Gallopoulos, seed 000 section 2): the optimal 1-D 2-means cut point on
//! each of the l leading principal directions, then PDDP(l)'s orthants around the shifted origin.

use super::{
    Partition, SplitContext, SplitDetail, SplitRule, groups_from_labels, orthants,
    principal_directions, require_split,
};
use crate::cluster::ClusterError;
use crate::cluster::cuts::optimal_cut_1d;

/// For each leading right singular vector `v_i`, the cut `zeta_i` that minimises the 2-means objective of its
/// elements (found exactly by sorting them and scanning the n - 1 cuts with prefix sums); members are then
/// classified by the orthant of `v - z`, `z = [zeta_1 ... zeta_l]`. A direction whose values are all equal gets
/// cut 0 (it then separates nothing).
#[derive(Debug, Clone, Copy)]
pub struct PddpOcpc {
    pub l: usize,
}

impl SplitRule for PddpOcpc {
    fn name(&self) -> &'static str {
        "pddp-ocpc"
    }

    fn split(&self, node: &SplitContext) -> Result<Partition, ClusterError> {
        let directions = principal_directions(node, self.l)?;
        let cuts: Vec<f64> = directions
            .right
            .iter()
            .map(|v| optimal_cut_1d(v).unwrap_or(0.0))
            .collect();
        let codes = orthants(&directions.right, &cuts, node.members.len());
        let groups = groups_from_labels(node.members, &codes, 1 << directions.right.len());
        let detail = SplitDetail {
            singular_values: directions.values,
            cuts,
            ..SplitDetail::default()
        };
        require_split(
            groups,
            detail,
            "the optimal cut on the principal directions",
        )
    }
}
