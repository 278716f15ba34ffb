//! `pddp-oc`: PDDP_OC (Zeimpekis & Gallopoulos, section 2, Lemma 1): the optimal cut along the ordering
//! that the leading principal component induces, under the full k-means objective.

use rayon::prelude::*;

use super::{Directions, ORDER_TOLERANCE, Partition, SplitContext, SplitDetail, SplitRule};
use crate::cluster::ClusterError;
use crate::cluster::params::Param;
use crate::cluster::registry::{Children, RuleDef};
use crate::cluster::cuts::{optimal_cut_along_order, optimal_cut_given_total};

/// The rule as the registry lists it.
pub(super) static RULE: RuleDef = RuleDef {
    name: "pddp-oc",
    summary: "the optimal cut of the columns along the order of the leading direction",
    source: "Zeimpekis & Gallopoulos, section 2, Lemma 1",
    params: &[Param::Sample],
    children: Children::Two,
    preview_symbol: Some('O'),
    refines: None,
    out_of_sample: crate::cluster::assign::OutOfSample::Directions,
    build: |params| {
        Box::new(PddpOc {
            sample: params.sample,
        })
    },
};

/// Order the members by their coordinate on the leading right singular vector `v_1`, then choose among the n - 1
/// prefix / suffix splits of that order the one with the smallest 2-means objective of the columns themselves
/// (not of their projections), computed for all cuts in O(nnz) by Lemma 1's running sums. Equal coordinates are
/// ordered by column index so the order is reproducible. The cut is reported as the midpoint of the two
/// coordinates either side of it.
#[derive(Debug, Clone, Copy)]
pub struct PddpOc {
    /// The `sample` parameter: see [`super::directions_by`].
    pub sample: usize,
}

/// The members sorted by coordinate (ties by column), and the coordinate of each in that order.
pub(super) fn ordered_by(members: &[usize], coordinates: &[f64]) -> (Vec<usize>, Vec<f64>) {
    let mut pairs: Vec<(f64, usize)> = coordinates
        .iter()
        .copied()
        .zip(members.iter().copied())
        .collect();
    // A strict total order (columns are distinct), so the parallel sort gives the one sorted order.
    pairs.par_sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    pairs.into_iter().map(|(x, j)| (j, x)).unzip()
}

/// PDDP_OC's split, shared with PDDP_OC_2MEANS (which refines it).
pub(super) fn optimal_cut_split(
    node: &SplitContext,
    directions: &Directions,
) -> Result<(Vec<Vec<usize>>, SplitDetail, f64), ClusterError> {
    let (order, sorted) = ordered_by(node.members, &directions.right[0]);
    // The sum of the members is n times the centroid the tree keeps for the node.
    let n = node.members.len() as f64;
    let best = match node.centroid {
        Some(centroid) => {
            let total: Vec<f64> = centroid.iter().map(|c| c * n).collect();
            optimal_cut_given_total(node.data, &order, node.norms_squared, &total)
        }
        None => optimal_cut_along_order(node.data, &order, node.norms_squared),
    };
    let mut lower = order[..best.cut].to_vec();
    let mut upper = order[best.cut..].to_vec();
    rayon::join(|| lower.par_sort_unstable(), || upper.par_sort_unstable());
    let detail = SplitDetail {
        singular_values: directions.values[..1].to_vec(),
        cuts: vec![0.5 * (sorted[best.cut - 1] + sorted[best.cut])],
        ..SplitDetail::default()
    };
    Ok((vec![lower, upper], detail, best.objective))
}

impl SplitRule for PddpOc {
    fn directions_needed(&self) -> usize {
        1
    }

    fn direction_sample(&self) -> usize {
        self.sample
    }

    fn direction_tolerance(&self) -> f64 {
        ORDER_TOLERANCE
    }

    fn split_along(
        &self,
        node: &SplitContext,
        directions: &Directions,
    ) -> Result<Partition, ClusterError> {
        let (groups, detail, _) = optimal_cut_split(node, directions)?;
        Ok(Partition::new(groups, detail))
    }
}
