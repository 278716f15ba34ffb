//! `kmeans`: plain k-means splitting a node `k` ways (Lloyd's algorithm from random member seeds), for comparison
//! with the divisive rules (Zeimpekis & Gallopoulos compare PDDP and its variants against k-means).

use super::{
    Directions, Partition, SplitContext, SplitDetail, SplitRule, bisecting_kmeans::best_of_trials,
    require_split,
};
use crate::cluster::ClusterError;
use crate::cluster::registry::{Children, RuleDef};
use crate::cluster::params::Param;

/// The rule as the registry lists it.
pub(super) static RULE: RuleDef = RuleDef {
    name: "kmeans",
    summary: "k-means splitting a node k-way (by default into as many groups as leaves: flat k-means)",
    source: "Lloyd; for comparison",
    params: &[Param::KWay, Param::Trials, Param::Seed],
    children: Children::Flat,
    preview_symbol: None,
    refines: None,
    out_of_sample: crate::cluster::assign::OutOfSample::Centroids,
    build: |params| {
        Box::new(Kmeans {
            k: params.k_way,
            trials: params.trials,
            seed: params.seed,
        })
    },
};

/// k-means with `k` groups: each trial draws `k` distinct members as seeds (from `seed` and the node id), assigns
/// every member to its nearest seed and runs Lloyd's iterations; the best of `trials` wins.
#[derive(Debug, Clone, Copy)]
pub struct Kmeans {
    pub k: usize,
    pub trials: usize,
    pub seed: u64,
}

impl SplitRule for Kmeans {
    /// Works from the columns alone: the (empty) directions are not used.
    fn split_along(
        &self,
        node: &SplitContext,
        _directions: &Directions,
    ) -> Result<Partition, ClusterError> {
        let best = best_of_trials(node, self.k, self.trials, self.seed)?;
        let groups = super::groups_from_labels(node.members, &best.assignment, self.k);
        let detail = SplitDetail {
            iterations: Some(best.iterations),
            ..SplitDetail::default()
        };
        require_split(groups, detail, "k-means")
    }
}
