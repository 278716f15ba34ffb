//! Approximate principal directions for very large nodes, an option (the `sample` parameter): the directions of
//! a sample of the node, every `s`-th member, taken back to every member by one pass over the whole node.
//!
//! Why it works: a direction's terms side, `u_i`, is what a sample estimates well, since the sample's documents
//! share the node's vocabulary and topics in the same proportions; each member's coordinate then comes from the
//! whole node, `B^T u_i`, exactly as the solver makes its right vectors from its left ones. What it costs: the
//! Lanczos run reads `1/s` of the node per step, and the products that follow read the whole node once per
//! direction (and once for the children's start). What it changes: the split is along the sample's direction,
//! not the node's, so members near the cut can fall on the other side; `benches/README.md` measures how many.

use super::directions::{directions_on, node_operator, principal_directions};
use super::{Directions, SplitContext};
use crate::cluster::ClusterError;
use crate::cluster::params::SAMPLED_MIN_SAMPLE;
use crate::linalg::{CentredColumns, LinearOperator, normalise_sign};

/// The stride at which a node of `members` members has its directions sampled under the `sample` parameter:
/// `None` (exact directions) for 0, and for a node whose sample would have fewer than [`SAMPLED_MIN_SAMPLE`]
/// members.
pub fn sampling_stride(members: usize, sample: usize) -> Option<usize> {
    (sample >= 2 && members.div_ceil(sample) >= SAMPLED_MIN_SAMPLE).then_some(sample)
}

/// The node's leading `l` principal directions as the `sample` parameter asks: exact
/// ([`principal_directions`]) unless [`sampling_stride`] gives a stride, then [`sampled_directions`].
pub fn directions_by(
    node: &SplitContext,
    l: usize,
    tolerance: f64,
    sample: usize,
) -> Result<Directions, ClusterError> {
    match sampling_stride(node.members.len(), sample) {
        Some(stride) => sampled_directions(node, l, tolerance, stride),
        None => principal_directions(node, l, tolerance),
    }
}

/// The node's leading `l` principal directions approximated from every `stride`-th member: the sample's own
/// directions to `tolerance` (from the node's start restricted to the sample, if it has one), then for each
/// left vector `u_i` of the sample, `sigma_i = ||B^T u_i||` and `v_i = B^T u_i / sigma_i` with the node's own
/// centred operator `B`, under the solver's sign convention; the left vectors are the sample's. The children's
/// start is the sample's next Ritz vector taken to the whole node the same way. Deterministic: the same
/// members and start give the same bits.
///
/// # Panics
/// If `stride` is below 2 (a stride of 1 is the node itself), or the start does not have one entry per member.
pub fn sampled_directions(
    node: &SplitContext,
    l: usize,
    tolerance: f64,
    stride: usize,
) -> Result<Directions, ClusterError> {
    assert!(stride >= 2, "a sample leaves members out");
    let sample: Vec<usize> = node.members.iter().step_by(stride).copied().collect();
    let sample_start: Option<Vec<f64>> = node.start.map(|start| {
        assert_eq!(
            start.len(),
            node.members.len(),
            "one start entry per member"
        );
        start.iter().step_by(stride).copied().collect()
    });
    // The sample's own centroid: the tree keeps none for it.
    let sample_node = SplitContext {
        members: &sample,
        centroid: None,
        start: sample_start.as_deref(),
        ..*node
    };
    let sample_operator = node_operator(&sample_node);
    let of_sample = directions_on(&sample_node, &sample_operator, l, tolerance)?;

    let operator = node_operator(node);
    let mut directions = Directions {
        sample_stride: Some(stride),
        ..Directions::default()
    };
    for mut left in of_sample.left {
        let mut right = over_members(&operator, &left);
        let sigma = unit(&mut right);
        if sigma <= 0.0 {
            break;
        }
        normalise_sign(&mut right, &mut left);
        directions.values.push(sigma);
        directions.right.push(right);
        directions.left.push(left);
    }
    if directions.values.is_empty() {
        return Err(ClusterError::Degenerate {
            reason: "the node's columns are all equal along the sample's direction".into(),
        });
    }
    // The sample's next right Ritz vector f: its left vector is B_s f up to scale (one product on the sample).
    directions.following = of_sample.following.map(|following| {
        let mut compact = vec![0.0; sample_operator.rows()];
        sample_operator.apply(&following, &mut compact);
        let mut right = over_members(
            &operator,
            &in_data_rows(&sample_operator, &compact, node.data.rows()),
        );
        unit(&mut right);
        right
    });
    Ok(directions)
}

/// `B^T u` for `u` over the data's rows: one entry per member of `operator`'s node.
fn over_members(operator: &CentredColumns, left: &[f64]) -> Vec<f64> {
    let compact: Vec<f64> = match operator.active_rows() {
        Some(rows) => rows.iter().map(|&row| left[row]).collect(),
        None => left.to_vec(),
    };
    let mut right = vec![0.0; operator.cols()];
    operator.apply_transpose(&compact, &mut right);
    right
}

/// A vector over `operator`'s rows put back in the data's `rows` rows.
fn in_data_rows(operator: &CentredColumns, compact: &[f64], rows: usize) -> Vec<f64> {
    match operator.active_rows() {
        Some(active) => {
            let mut full = vec![0.0; rows];
            for (&row, &value) in active.iter().zip(compact) {
                full[row] = value;
            }
            full
        }
        None => compact.to_vec(),
    }
}

/// Scale `x` to unit length, returning its length before (0 leaves it as it is).
fn unit(x: &mut [f64]) -> f64 {
    let length = x.iter().map(|v| v * v).sum::<f64>().sqrt();
    if length > 0.0 {
        x.iter_mut().for_each(|v| *v /= length);
    }
    length
}
