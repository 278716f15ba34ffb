//! Which members a Preview's scatter plot draws: all of them for a node of up to [`SCATTER_POINTS`], else a fixed
//! seeded sample of that many, chosen once when the plot's coordinates arrive, so that no frame walks a huge node.

use crate::dataset::Dataset;
use crate::rng::SplitMix64;

/// The most points a scatter plot draws (a 160x48 terminal's plot has about 25,000 Braille dots).
pub(crate) const SCATTER_POINTS: usize = 5_000;

/// The sample's seed: the same node gives the same sample, run after run.
const SAMPLE_SEED: u64 = 0x5ca7_7e12;

/// The members a scatter plot draws and what its legend counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ScatterSample {
    /// Positions in the node's member list (and in the preview's coordinates), increasing.
    pub positions: Vec<usize>,
    /// How many members the node has: more than `positions.len()` when the plot is a sample.
    pub members: usize,
    /// Members per label, of all the node's members (the legend's order), the last slot for those without one.
    pub label_counts: Vec<usize>,
}

impl ScatterSample {
    /// The sample of `members` (a node's, in order) to draw, with every member's label counted for the legend.
    pub(crate) fn of(data: &Dataset, members: &[usize]) -> ScatterSample {
        let label_count = data.label_names.len();
        let mut label_counts = vec![0usize; label_count + 1];
        for &j in members {
            let slot = data
                .documents
                .get(j)
                .and_then(|d| d.label)
                .map_or(label_count, |l| (l as usize).min(label_count));
            label_counts[slot] += 1;
        }
        let positions = if members.len() <= SCATTER_POINTS {
            (0..members.len()).collect()
        } else {
            let mut drawn = SplitMix64::new(SAMPLE_SEED).distinct(SCATTER_POINTS, members.len());
            drawn.sort_unstable();
            drawn
        };
        ScatterSample {
            positions,
            members: members.len(),
            label_counts,
        }
    }

    /// True when the plot draws fewer points than the node has members.
    pub(crate) fn sampled(&self) -> bool {
        self.positions.len() < self.members
    }
}
