//! `pddp-ocpc`: PDDP_OCPC (Zeimpekis & Gallopoulos, section 2): the optimal 1-D 2-means cut point on
//! each of the l leading principal directions, then PDDP(l)'s orthants around the shifted origin.

use super::{Directions, Partition, SplitContext, SplitRule, orthant_split};
use crate::cluster::ClusterError;
use crate::cluster::registry::{Children, RuleDef};
use crate::cluster::params::Param;
use crate::cluster::cuts::optimal_cut_1d;

/// The rule as the registry lists it.
pub(super) static RULE: RuleDef = RuleDef {
    name: "pddp-ocpc",
    summary: "the optimal 1-D 2-means cut on each of l directions, orthants around the cut points",
    source: "Zeimpekis & Gallopoulos, section 2",
    params: &[Param::L, Param::Sample],
    children: Children::Orthants,
    preview_symbol: Some('C'),
    refines: None,
    out_of_sample: crate::cluster::assign::OutOfSample::Directions,
    build: |params| {
        Box::new(PddpOcpc {
            l: params.l,
            sample: params.sample,
        })
    },
};

/// For each leading right singular vector `v_i`, the cut `zeta_i` that minimises the 2-means objective of its
/// elements (found exactly by sorting them and scanning the n - 1 cuts with prefix sums); members are then
/// classified by the orthant of `v - z`, `z = [zeta_1 ... zeta_l]`. A direction whose values are all equal gets
/// cut 0 (it then separates nothing).
#[derive(Debug, Clone, Copy)]
pub struct PddpOcpc {
    pub l: usize,
    /// The `sample` parameter: see [`super::directions_by`].
    pub sample: usize,
}

impl SplitRule for PddpOcpc {
    fn directions_needed(&self) -> usize {
        self.l
    }

    fn direction_sample(&self) -> usize {
        self.sample
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
