//! Orthant splits: each member goes to the orthant of its coordinates on l principal directions, around a cut
//! point per direction (PDDP(l) with zero cuts, PDDP_OCPC with the optimal 1-D cuts).

use super::{Directions, Partition, SplitContext, SplitDetail, groups_from_labels, require_split};
use crate::cluster::ClusterError;

/// Orthant of each member: bit i is set when coordinate i lies above `cuts[i]` (PDDP(l), Zeimpekis & Gallopoulos,
/// Table 1; with all cuts 0 it is the sign pattern of the rows of `[v_1 ... v_l]`, with a zero coordinate on the
/// non-positive side as in Theorem 1's `C_1 = {i | rho_i <= 0}`).
pub(crate) fn orthants(directions: &[Vec<f64>], cuts: &[f64], members: usize) -> Vec<usize> {
    (0..members)
        .map(|j| {
            directions
                .iter()
                .zip(cuts)
                .enumerate()
                .fold(0usize, |code, (bit, (v, cut))| {
                    code | (usize::from(v[j] > *cut) << bit)
                })
        })
        .collect()
}

/// PDDP(l)'s split with cut points chosen per direction: the orthant of each member around `cuts` on the `l` leading
/// principal directions (Zeimpekis & Gallopoulos, section 2: PDDP(l) with zero cuts, PDDP_OCPC with the 1-D optimal
/// ones).
pub(crate) fn orthant_split(
    node: &SplitContext,
    directions: &Directions,
    l: usize,
    choose_cuts: impl Fn(&[Vec<f64>]) -> Vec<f64>,
    what: &str,
) -> Result<Partition, ClusterError> {
    let used = l.min(directions.right.len());
    let right = &directions.right[..used];
    let cuts = choose_cuts(right);
    let codes = orthants(right, &cuts, node.members.len());
    let groups = groups_from_labels(node.members, &codes, 1 << used);
    let detail = SplitDetail {
        singular_values: directions.values[..used].to_vec(),
        cuts,
        ..SplitDetail::default()
    };
    require_split(groups, detail, what)
}
