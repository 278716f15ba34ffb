//! `pddp-oc-2means`: PDDP_OC_2MEANS (Zeimpekis & Gallopoulos, seed 000 section 2): 2-means started from the
//! PDDP_OC split.

use super::{
    Directions, Partition, SplitContext, SplitRule, pddp_2means::refine_two,
    pddp_oc::optimal_cut_split,
};
use crate::cluster::ClusterError;

/// The optimal cut along the leading component (Lemma 1), refined by Lloyd's 2-means on the columns.
#[derive(Debug, Clone, Copy)]
pub struct PddpOc2Means;

impl SplitRule for PddpOc2Means {
    fn name(&self) -> &'static str {
        "pddp-oc-2means"
    }

    fn directions_needed(&self) -> usize {
        1
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
