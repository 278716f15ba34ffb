//! `bisecting-kmeans`: 2-means from seeded random starts, the best of several trials (Steinbach, Karypis & Kumar's
//! bisecting k-means, the baseline of Zeimpekis & Gallopoulos' experiments).

use super::{Directions, Partition, SplitContext, SplitDetail, SplitRule, require_split};
use crate::cluster::ClusterError;
use crate::cluster::registry::{Children, RuleDef};
use crate::cluster::params::Param;
use crate::cluster::lloyd;
use crate::rng::SplitMix64;

/// The rule as the registry lists it.
pub(super) static RULE: RuleDef = RuleDef {
    name: "bisecting-kmeans",
    summary: "2-means from seeded random starts, the best of trials",
    source: "Steinbach, Karypis & Kumar; the baseline of Zeimpekis & Gallopoulos",
    params: &[Param::Trials, Param::Seed],
    children: Children::Two,
    preview_symbol: None,
    refines: None,
    out_of_sample: crate::cluster::assign::OutOfSample::Centroids,
    build: |params| {
        Box::new(BisectingKmeans {
            trials: params.trials,
            seed: params.seed,
        })
    },
};

/// Each trial seeds 2-means with two distinct members drawn at random (from `seed` and the node id), assigns every
/// member to the nearer, and runs Lloyd's iterations; the trial with the smallest objective wins (the first on
/// ties). Trials whose seeds coincide as vectors (duplicate documents) and leave a group empty are skipped.
#[derive(Debug, Clone, Copy)]
pub struct BisectingKmeans {
    pub trials: usize,
    pub seed: u64,
}

impl SplitRule for BisectingKmeans {
    /// Works from the columns alone: the (empty) directions are not used.
    fn split_along(
        &self,
        node: &SplitContext,
        _directions: &Directions,
    ) -> Result<Partition, ClusterError> {
        let best = best_of_trials(node, 2, self.trials, self.seed)?;
        let groups = super::groups_from_labels(node.members, &best.assignment, 2);
        let detail = SplitDetail {
            iterations: Some(best.iterations),
            ..SplitDetail::default()
        };
        require_split(groups, detail, "2-means")
    }
}

/// The best of `trials` k-means runs from random member seeds.
pub(super) fn best_of_trials(
    node: &SplitContext,
    k: usize,
    trials: usize,
    seed: u64,
) -> Result<lloyd::Grouping, ClusterError> {
    let n = node.members.len();
    if n < k {
        return Err(ClusterError::Degenerate {
            reason: format!("{n} members cannot make {k} groups"),
        });
    }
    let mut generator = SplitMix64::for_stream(seed, node.node_id as u64);
    let mut best: Option<lloyd::Grouping> = None;
    for _ in 0..trials.max(1) {
        let seeds: Vec<usize> = generator
            .distinct(k, n)
            .into_iter()
            .map(|p| node.members[p])
            .collect();
        let start = lloyd::assign_to_seeds(node.data, node.members, &seeds);
        let mut sizes = vec![0usize; k];
        start.iter().for_each(|&g| sizes[g] += 1);
        if sizes.contains(&0) {
            continue;
        }
        let grouping = lloyd::refine(node.data, node.members, node.norms_squared, start, k);
        if best
            .as_ref()
            .is_none_or(|b| grouping.objective < b.objective)
        {
            best = Some(grouping);
        }
    }
    best.ok_or_else(|| ClusterError::Degenerate {
        reason: "every random start left a group empty (the members may be identical)".into(),
    })
}
