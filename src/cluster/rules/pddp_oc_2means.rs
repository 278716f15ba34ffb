//! `pddp-oc-2means`: PDDP_OC_2MEANS (Zeimpekis & Gallopoulos, section 2): 2-means started from the
//! PDDP_OC split.

use super::{
    Directions, Partition, SplitContext, SplitRule, pddp_2means::refine_two,
    pddp_oc::optimal_cut_split,
};
use crate::cluster::ClusterError;
use crate::cluster::registry::{Children, RuleDef};

/// The rule as the registry lists it.
pub(super) static RULE: RuleDef = RuleDef {
    name: "pddp-oc-2means",
    summary: "2-means started from the pddp-oc split",
    source: "Zeimpekis & Gallopoulos, section 2",
    params: &[],
    children: Children::Two,
    preview_symbol: Some('m'),
    refines: Some("pddp-oc"),
    build: |_| Box::new(PddpOc2Means),
};

/// The optimal cut along the leading component (Lemma 1), refined by Lloyd's 2-means on the columns.
#[derive(Debug, Clone, Copy)]
pub struct PddpOc2Means;

impl SplitRule for PddpOc2Means {
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
