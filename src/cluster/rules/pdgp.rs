//! `pdgp`: Principal Direction Gap Partitioning (Abbey et al., section 4, Definition 4).

use super::{Directions, Partition, SplitContext, SplitDetail, SplitRule, require_split};
use crate::cluster::ClusterError;
use crate::cluster::registry::{Children, RuleDef};
use crate::cluster::params::Param;
use crate::cluster::cuts::largest_gap;

/// The rule as the registry lists it.
pub(super) static RULE: RuleDef = RuleDef {
    name: "pdgp",
    summary: "the largest gap of the sorted leading projections, ignoring tau/2 at each end",
    source: "Abbey et al., Definition 4",
    params: &[Param::Tau, Param::Sample],
    children: Children::Two,
    preview_symbol: Some('G'),
    refines: None,
    out_of_sample: crate::cluster::assign::OutOfSample::Directions,
    build: |params| {
        Box::new(Pdgp {
            tau: params.tau,
            sample: params.sample,
        })
    },
};

/// Sort the leading right singular vector of the centred node matrix and cut at its largest gap, ignoring
/// `tau / 2` of the points at each end (the "fringe tolerance", default 0.2: 10% per end, so no split is more
/// lopsided than 9:1 unless the node is tiny). The lower side comes first.
#[derive(Debug, Clone, Copy)]
pub struct Pdgp {
    pub tau: f64,
    /// The `sample` parameter: see [`super::directions_by`].
    pub sample: usize,
}

impl SplitRule for Pdgp {
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
        let v = &directions.right[0];
        let Some(cut) = largest_gap(v, self.tau) else {
            return Err(ClusterError::Degenerate {
                reason: "every projection is equal, so there is no gap".into(),
            });
        };
        let (mut lower, mut upper) = (Vec::new(), Vec::new());
        for (&j, &x) in node.members.iter().zip(v) {
            if x <= cut {
                lower.push(j)
            } else {
                upper.push(j)
            }
        }
        let groups: Vec<Vec<usize>> = [lower, upper]
            .into_iter()
            .filter(|g| !g.is_empty())
            .collect();
        let detail = SplitDetail {
            singular_values: directions.values[..1].to_vec(),
            cuts: vec![cut],
            ..SplitDetail::default()
        };
        require_split(groups, detail, "the largest gap")
    }
}
