//! `pddp-2means`: PDDP_2MEANS (Zeimpekis & Gallopoulos, section 2, after Theorem 1): 2-means on the
//! node's columns started from the PDDP split.

use super::{Directions, Partition, SplitContext, SplitRule, pddp::Pddp, require_split};
use crate::cluster::ClusterError;
use crate::cluster::params::Param;
use crate::cluster::registry::{Children, RuleDef};
use crate::cluster::lloyd;

/// The rule as the registry lists it.
pub(super) static RULE: RuleDef = RuleDef {
    name: "pddp-2means",
    summary: "2-means on the columns, started from the PDDP split",
    source: "Zeimpekis & Gallopoulos, section 2",
    params: &[Param::Sample],
    children: Children::Two,
    preview_symbol: Some('M'),
    refines: Some("pddp"),
    out_of_sample: crate::cluster::assign::OutOfSample::Centroids,
    build: |params| {
        Box::new(Pddp2Means {
            sample: params.sample,
        })
    },
};

/// Start 2-means from PDDP's sign split (initial centroids `c_1`, `c_2` are the means of the non-positive and
/// positive sides of `v_1`, which removes k-means' random start) and run Lloyd's iterations on the columns until
/// no member moves. The objective never rises above the PDDP split's.
#[derive(Debug, Clone, Copy)]
pub struct Pddp2Means {
    /// The `sample` parameter: see [`super::directions_by`].
    pub sample: usize,
}

/// Lloyd's 2-means on the node from a two-group start, keeping the start's objective in the detail.
pub(super) fn refine_two(
    node: &SplitContext,
    start: &[Vec<usize>],
    mut detail: super::SplitDetail,
) -> Result<Partition, ClusterError> {
    let mut assignment = vec![0usize; node.members.len()];
    // Members are sorted, and so is each start group: a binary search finds each member's group.
    for (position, &j) in node.members.iter().enumerate() {
        assignment[position] = usize::from(start[0].binary_search(&j).is_err());
    }
    let grouping = lloyd::refine(node.data, node.members, node.norms_squared, assignment, 2);
    detail.start_objective = Some(grouping.start_objective);
    detail.iterations = Some(grouping.iterations);
    let groups = super::groups_from_labels(node.members, &grouping.assignment, 2);
    require_split(groups, detail, "2-means")
}

impl SplitRule for Pddp2Means {
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
        let start = Pddp {
            l: 1,
            sample: self.sample,
        }
        .split_along(node, directions)?;
        refine_two(node, &start.groups, start.detail)
    }
}
