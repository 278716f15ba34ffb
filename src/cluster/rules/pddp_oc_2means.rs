//! `pddp-oc-2means`: PDDP_OC_2MEANS (Zeimpekis & Gallopoulos, section 2): 2-means started from the
//! PDDP_OC split.

use super::{
    Directions, Partition, SplitContext, SplitRule, pddp_2means::refine_two,
    pddp_oc::optimal_cut_split,
};
use crate::cluster::ClusterError;
use crate::cluster::params::Param;
use crate::cluster::registry::{Children, RuleDef};

/// The rule as the registry lists it.
pub(super) static RULE: RuleDef = RuleDef {
    name: "pddp-oc-2means",
    summary: "2-means started from the pddp-oc split",
    source: "Zeimpekis & Gallopoulos, section 2",
    params: &[Param::Sample],
    children: Children::Two,
    preview_symbol: Some('m'),
    refines: Some("pddp-oc"),
    out_of_sample: crate::cluster::assign::OutOfSample::Centroids,
    build: |params| {
        Box::new(PddpOc2Means {
            sample: params.sample,
        })
    },
};

/// The optimal cut along the leading component (Lemma 1), refined by Lloyd's 2-means on the columns.
#[derive(Debug, Clone, Copy)]
pub struct PddpOc2Means {
    /// The `sample` parameter: see [`super::directions_by`].
    pub sample: usize,
}

impl SplitRule for PddpOc2Means {
    fn directions_needed(&self) -> usize {
        1
    }

    fn direction_sample(&self) -> usize {
        self.sample
    }

    fn split_along(
        &self,
        node: &SplitContext,
        directions: &Directions,
    ) -> Result<Partition, ClusterError> {
        let (groups, detail, _) = optimal_cut_split(node, directions)?;
        refine_two(node, &groups, detail)
    }
}
