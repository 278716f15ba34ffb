//! `pddp-ocpc`: PDDP_OCPC (Zeimpekis & Gallopoulos, seed 000 section 2): the optimal 1-D 2-means cut point on
//! each of the l leading principal directions, then PDDP(l)'s orthants around the shifted origin.

use super::{Directions, Partition, SplitContext, SplitRule, orthant_split};
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

    fn directions_needed(&self) -> usize {
        self.l
    }

    fn split_along(
        &self,
        node: &SplitContext,
        directions: &Directions,
    ) -> Result<Partition, ClusterError> {
        let optimal_cuts = |directions: &[Vec<f64>]| {
            directions
                .iter()
                .map(|v| optimal_cut_1d(v).unwrap_or(0.0))
                .collect()
        };
        orthant_split(
            node,
            directions,
            self.l,
            optimal_cuts,
            "the optimal cut on the principal directions",
        )
    }
}
