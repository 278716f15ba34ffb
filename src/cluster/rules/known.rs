//! Principal directions computed ahead of a split (by a preview), handed to the split so that it need not compute
//! them again: used only where the split would compute exactly the same ones.

use xxhash_rust::xxh3::Xxh3;

use super::{Directions, SplitContext, sampling_stride};
use crate::cluster::ClusterError;

/// A node's leading principal directions with a record of what they were computed from: a digest of the members
/// and of the Lanczos start, how many directions, the tolerance, and the sample they were approximated from if
/// any ([`Directions::sample_stride`]). [`SplitEnv::known`](super::SplitEnv::known) hands them to a split, which
/// takes them when its rule wants as many directions at the same tolerance and sampling of a node with the same
/// members and start: [`super::directions_by`] would then compute these very directions, bit for bit. They do
/// not record the data matrix: the caller keeps them with the data they were computed on.
#[derive(Debug, Clone, PartialEq)]
pub struct KnownDirections {
    source: u64,
    count: usize,
    tolerance: f64,
    directions: Directions,
}

impl KnownDirections {
    /// `directions`, which [`super::principal_directions`] computed for `node`, `count` of them, to `tolerance`.
    ///
    /// # Panics
    /// If there are not `count` of them, or they are not of `node` (one entry per member).
    pub fn new(node: &SplitContext, count: usize, tolerance: f64, directions: Directions) -> Self {
        assert_eq!(directions.right.len(), count, "{count} directions");
        assert!(
            directions
                .right
                .iter()
                .all(|v| v.len() == node.members.len()),
            "one entry per member"
        );
        KnownDirections {
            source: source_digest(node),
            count,
            tolerance,
            directions,
        }
    }

    /// The directions.
    pub fn directions(&self) -> &Directions {
        &self.directions
    }

    /// The directions, when they are what `node`'s split would compute for `count` directions at `tolerance`
    /// under the `sample` parameter: exact directions never stand for sampled ones, nor the other way round.
    pub(crate) fn for_split(
        &self,
        node: &SplitContext,
        count: usize,
        tolerance: f64,
        sample: usize,
    ) -> Option<&Directions> {
        (self.count == count
            && self.tolerance == tolerance
            && self.directions.sample_stride == sampling_stride(node.members.len(), sample)
            && self.source == source_digest(node))
        .then_some(&self.directions)
    }
}

/// `node`'s leading `count` directions to `tolerance` under the `sample` parameter: those its environment knows
/// ([`SplitEnv::known`](super::SplitEnv::known)) when they are these, else computed ([`super::directions_by`]).
pub fn directions_for_split(
    node: &SplitContext,
    count: usize,
    tolerance: f64,
    sample: usize,
) -> Result<Directions, ClusterError> {
    match node
        .env
        .known
        .and_then(|known| known.for_split(node, count, tolerance, sample))
    {
        Some(directions) => Ok(directions.clone()),
        None => super::directions_by(node, count, tolerance, sample),
    }
}

/// A digest of what a node's directions are computed from besides the data: its members and the run's start.
fn source_digest(node: &SplitContext) -> u64 {
    let mut digest = Xxh3::new();
    digest.update(&(node.members.len() as u64).to_le_bytes());
    digest.update(bytemuck::cast_slice(node.members));
    match node.start {
        Some(start) => {
            digest.update(&[1]);
            digest.update(bytemuck::cast_slice(start));
        }
        None => digest.update(&[0]),
    }
    digest.digest()
}
