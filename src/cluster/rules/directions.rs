//! A node's leading principal directions, the input of every PDDP-family rule: computed by Lanczos on the
//! Gram operator of the implicitly centred node matrix, to a tolerance the rule chooses, from a start that saves
//! steps.

use super::SplitContext;
use crate::cluster::ClusterError;
use crate::cluster::members::positions_within;
use crate::linalg::{self, CentredColumns, KnownSummary, LanczosOptions, LinearOperator};
use crate::matrix::DataMatrix;

/// Lanczos tolerance for split directions (relative residual). A direction only decides signs and an ordering,
/// so it needs far less than full precision: at this tolerance the signs are those of a tight one, for far fewer
/// steps, where a looser one already flips documents (`benches/README.md` has the figures). Every linear rule but
/// `pddp-oc` uses it (see [`ORDER_TOLERANCE`]); the test `loose_tolerance_splits_like_a_tight_one` checks, rule by
/// rule, that each split of a 20 Newsgroups tree is the one a tight tolerance gives.
pub const SPLIT_TOLERANCE: f64 = 1e-5;

/// Lanczos tolerance for `pddp-oc`, whose cut is the best of all the cuts along the order of the coordinates
/// (Lemma 1), not a sign: where two far apart cuts have nearly the same objective, a change in the coordinates
/// far below what could flip a sign can move it. This is the loosest tolerance at which every split of a 20-leaf
/// `pddp-oc` tree of 20 Newsgroups is the tight one (`benches/README.md`). `pddp-oc-2means`, `pddp-ocpc` and
/// `pdgp` give the tight splits at [`SPLIT_TOLERANCE`] (2-means absorbs a one-document difference; the other two
/// cut by the coordinates' values, where those near ties do not arise).
pub const ORDER_TOLERANCE: f64 = 1e-7;

/// The leading `l` principal directions of a node: singular values, right singular vectors (one coordinate per
/// member, in member order) and left singular vectors (one entry per row of the data) of the implicitly centred
/// node matrix `A_p - c e^T` (Zeimpekis & Gallopoulos, section 2). Member j's coordinate on direction i is
/// `u_i^T (a_j - c) = sigma_i v_i[j]`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Directions {
    pub values: Vec<f64>,
    pub right: Vec<Vec<f64>>,
    pub left: Vec<Vec<f64>>,
    /// An estimate of the next right singular vector (unconverged; see
    /// [`crate::linalg::SingularTriplets::following`]), when the solver had one.
    pub following: Option<Vec<f64>>,
    /// The stride of the sample the directions were approximated from ([`super::sampled_directions`]); `None`
    /// for the node's own directions.
    pub sample_stride: Option<usize>,
}

/// A node of at least this many members that has no start from its parent (the root) starts from
/// [`sample_start`].
const SAMPLE_START_MIN_MEMBERS: usize = 8_000;

/// A node of at least this many members starts from the sample's left vector itself ([`sample_left`]). On a
/// smaller node, taking the sample's vector through all the members and back (`B B^T u`: [`sample_start`], then
/// the solver's `B x`) saves about a step, which pays for the trip; from a sample this large it saves none, and
/// the trip is a product's worth of reads for nothing (`benches/README.md` has the step counts).
const SAMPLE_LEFT_MIN_MEMBERS: usize = 100_000;

/// Every this-many-th member makes the sample.
const SAMPLE_STRIDE: usize = 32;

/// Relative residual at which the sample's run stops for [`sample_start`]: its vector only has to point the
/// full run roughly the right way, since the trip through all the members sharpens it.
const SAMPLE_TOLERANCE: f64 = 0.1;

/// Relative residual at which the sample's run stops when its left vector is the full run's first as it is
/// ([`node_start`]): with nothing to sharpen it, the looser [`SAMPLE_TOLERANCE`] costs the full run a step.
const SAMPLE_LEFT_TOLERANCE: f64 = 0.01;

/// Where the Lanczos run of a node with no start from its parent begins, by its size. A large node starts from
/// the leading left singular vector of a sample of its members (every 32nd), run to a relative residual of
/// 0.01, which the Gram solver takes as its first vector without reading the node. A middling one starts from
/// that vector, run to 0.1, taken through all the members and back (one `B^T u` here, one `B x` in the
/// solver). A small one starts from the solver's own pseudo-random vector. Returns the right-side start and the
/// left-side one ([`LanczosOptions::start`], [`LanczosOptions::left_start`]); at most one is set.
pub fn node_start(
    data: &DataMatrix,
    members: &[usize],
    operator: &CentredColumns,
) -> (Option<Vec<f64>>, Option<Vec<f64>>) {
    if members.len() >= SAMPLE_LEFT_MIN_MEMBERS {
        (
            None,
            sample_left(data, members, operator, SAMPLE_LEFT_TOLERANCE),
        )
    } else if members.len() >= SAMPLE_START_MIN_MEMBERS {
        (sample_start(data, members, operator), None)
    } else {
        (None, None)
    }
}

/// The leading left singular vector of the centred matrix of a sample of the members (every `SAMPLE_STRIDE`-th,
/// so the same every time), run to `tolerance`, on the rows of the node's `operator`. Its terms-side direction
/// is what a sample estimates well: the sample's documents share the node's vocabulary. `None` when the sample
/// gives no direction (e.g. identical columns), or its rows are not among the node's.
fn sample_left(
    data: &DataMatrix,
    members: &[usize],
    operator: &CentredColumns,
    tolerance: f64,
) -> Option<Vec<f64>> {
    let sample: Vec<usize> = members.iter().step_by(SAMPLE_STRIDE).copied().collect();
    let sample_operator = CentredColumns::compact(data, &sample);
    let options = LanczosOptions::with_tolerance(tolerance);
    let triplets = linalg::leading_singular_auto(&sample_operator, 1, &options).ok()?;
    let sample_left = triplets.left.first()?;
    let mut left = vec![0.0; operator.rows()];
    match (operator.active_rows(), sample_operator.active_rows()) {
        (Some(rows), Some(sample_rows)) => {
            // The sample's rows are among the node's, since its columns are.
            for (position, &value) in positions_within(sample_rows, rows)?
                .into_iter()
                .zip(sample_left)
            {
                left[position] = value;
            }
        }
        (None, None) if sample_left.len() == left.len() => left.copy_from_slice(sample_left),
        _ => return None,
    }
    Some(left)
}

/// A start for the Lanczos run of a large node with none from its parent: the sample's left vector
/// ([`sample_left`], to [`SAMPLE_TOLERANCE`]) taken back to all the members by one product, `B^T u` (which is
/// `sigma_1 v_1` when `u` is the node's own `u_1`). A start changes how many steps the run takes and, at a
/// near-tie, which of two nearly equal splits it finds (see [`crate::cluster::Tree::start_guess`]); this one
/// saves the root a third of its steps for a short run on a thirty-second of the members (`benches/README.md`).
/// Children do better from their parent's next direction.
fn sample_start(
    data: &DataMatrix,
    members: &[usize],
    operator: &CentredColumns,
) -> Option<Vec<f64>> {
    let left = sample_left(data, members, operator, SAMPLE_TOLERANCE)?;
    let mut start = vec![0.0; members.len()];
    operator.apply_transpose(&left, &mut start);
    Some(start)
}

/// The node's leading `l` principal directions, computed to the Lanczos `tolerance` (a rule's
/// [`super::SplitRule::direction_tolerance`]).
pub fn principal_directions(
    node: &SplitContext,
    l: usize,
    tolerance: f64,
) -> Result<Directions, ClusterError> {
    let operator = node_operator(node);
    directions_on(node, &operator, l, tolerance)
}

/// [`principal_directions`] on the node's `operator` ([`node_operator`]), for a caller that has it already.
pub(super) fn directions_on(
    node: &SplitContext,
    operator: &CentredColumns,
    l: usize,
    tolerance: f64,
) -> Result<Directions, ClusterError> {
    if let Some(start) = node.start {
        assert_eq!(
            start.len(),
            node.members.len(),
            "one start entry per member"
        );
    }
    let (start, left_start) = match node.start {
        Some(start) => (Some(start.to_vec()), None),
        None => node_start(node.data, node.members, operator),
    };
    let options = LanczosOptions {
        tolerance,
        start,
        left_start,
        interrupt: node.env.progress,
        ..LanczosOptions::default()
    };
    directions_of(node, operator, l, &options)
}

/// The node's leading `l` principal directions to `tolerance`, refined from `known`, its leading right singular
/// vector (one entry per member) to a looser tolerance: the Lanczos run starts from it alone
/// ([`LanczosOptions::refine`]), so it takes only the steps between the two tolerances. For the rows of a preview
/// whose rules need a stricter tolerance than its first direction.
///
/// # Panics
/// If `known` does not have one entry per member.
pub fn refined_directions(
    node: &SplitContext,
    l: usize,
    tolerance: f64,
    known: &[f64],
) -> Result<Directions, ClusterError> {
    assert_eq!(known.len(), node.members.len(), "one entry per member");
    let operator = node_operator(node);
    let options = LanczosOptions {
        tolerance,
        start: Some(known.to_vec()),
        refine: true,
        interrupt: node.env.progress,
        ..LanczosOptions::default()
    };
    directions_of(node, &operator, l, &options)
}

/// The centred operator of `node`'s members over the node's own terms only: deep nodes use a small share of a
/// large vocabulary, and every Lanczos step does vector work proportional to the operator's rows.
pub(super) fn node_operator<'a>(node: &SplitContext<'a>) -> CentredColumns<'a> {
    let summary = node.centroid.map(|centroid| KnownSummary {
        centroid,
        norms_squared: node.norms_squared,
    });
    CentredColumns::compact_of(node.data, node.members, summary)
}

/// The leading `l` principal directions of `node` on its `operator`, by the solver that suits its size.
fn directions_of(
    node: &SplitContext,
    operator: &CentredColumns,
    l: usize,
    options: &LanczosOptions,
) -> Result<Directions, ClusterError> {
    // Lanczos on the Gram operator of the node's row side reads the node once per step where Golub-Kahan reads it
    // twice; small nodes take the exact dense method either way.
    let triplets = if operator.rows().min(operator.cols()) <= linalg::DENSE_LIMIT {
        linalg::leading_singular_dense(operator, l)?
    } else {
        linalg::leading_singular_gram(operator, l, options)?
    };
    if triplets.values.is_empty() || triplets.values[0] <= 0.0 {
        return Err(ClusterError::Degenerate {
            reason: "the node's columns are all equal (no principal direction)".into(),
        });
    }
    // The operator works on the node's own rows; put the left vectors back in the data's row space.
    let rows = node.data.rows();
    let left = match operator.active_rows() {
        Some(active) => triplets
            .left
            .iter()
            .map(|compact| {
                let mut full = vec![0.0; rows];
                for (&row, &value) in active.iter().zip(compact) {
                    full[row] = value;
                }
                full
            })
            .collect(),
        None => triplets.left,
    };
    Ok(Directions {
        values: triplets.values,
        right: triplets.right,
        left,
        following: triplets.following,
        sample_stride: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::test_util::abs_cos;
    use crate::rng::SplitMix64;

    /// Documents in ten topics of decreasing size (the document's index modulo 55 picks topic t for 10 - t of
    /// every 55), over 600 terms: each topic has 60 frequent terms of its own (those equal to it modulo 10, so
    /// that a misplaced row lands in another topic), every document also a few random terms, with weights in
    /// (0, 1] like term weights. A spectrum with a tail, as text has.
    fn topics(documents: usize, seed: u64) -> DataMatrix {
        let terms = 600;
        let mut rng = SplitMix64::new(seed);
        let mut triplets = crate::matrix::Triplets::new((terms, documents));
        for j in 0..documents {
            let mut slot = j % 55;
            let mut topic = 0;
            while slot >= 10 - topic {
                slot -= 10 - topic;
                topic += 1;
            }
            for i in 0..terms {
                let chance = if i % 10 == topic { 0.2 } else { 0.02 };
                if rng.next_f64() < chance {
                    triplets.add_triplet(i, j, 1.0 - rng.next_f64());
                }
            }
            triplets.add_triplet(topic, j, 1.0);
        }
        DataMatrix::sparse(
            triplets.to_csc(),
            (0..terms).map(|i| format!("t{i}")).collect(),
        )
    }

    #[test]
    fn the_sample_left_vector_starts_the_gram_run_without_a_trip_through_the_members() {
        // What a node of SAMPLE_LEFT_MIN_MEMBERS and more starts from, on a smaller node: the same direction as
        // from the solver's own start, in fewer steps.
        let data = topics(SAMPLE_START_MIN_MEMBERS + 10, 41);
        let members: Vec<usize> = (0..data.cols()).collect();
        let operator = CentredColumns::compact(&data, &members);
        let left = sample_left(&data, &members, &operator, SAMPLE_LEFT_TOLERANCE).expect("a start");
        assert_eq!(left.len(), operator.rows());
        let run = |left_start: Option<Vec<f64>>| {
            let options = LanczosOptions {
                tolerance: SPLIT_TOLERANCE,
                left_start,
                ..LanczosOptions::default()
            };
            linalg::leading_singular_gram(&operator, 1, &options).expect("converges")
        };
        let (sampled, plain) = (run(Some(left)), run(None));
        assert!(sampled.converged && plain.converged);
        assert!(abs_cos(&sampled.right[0], &plain.right[0]) >= 1.0 - 1e-8);
        assert!(
            sampled.iterations < plain.iterations,
            "{} steps from the sample, {} from a random start",
            sampled.iterations,
            plain.iterations
        );
    }

    #[test]
    fn a_sample_start_saves_steps_but_not_the_answer() {
        let data = topics(SAMPLE_START_MIN_MEMBERS + 10, 41);
        let members: Vec<usize> = (0..data.cols()).collect();
        let operator = CentredColumns::compact(&data, &members);
        let start = sample_start(&data, &members, &operator).expect("a start");
        assert_eq!(start.len(), members.len());
        let run = |start: Option<Vec<f64>>| {
            let options = LanczosOptions {
                tolerance: 1e-10,
                start,
                ..LanczosOptions::default()
            };
            linalg::leading_singular(&operator, 1, &options).expect("converges")
        };
        let (sampled, plain) = (run(Some(start.clone())), run(None));
        assert!(sampled.converged && plain.converged);
        assert!(
            abs_cos(&sampled.right[0], &plain.right[0]) >= 1.0 - 1e-10,
            "same direction"
        );
        assert!(
            sampled.iterations < plain.iterations,
            "{} steps from the sample, {} from a random start",
            sampled.iterations,
            plain.iterations
        );
        // The start is B^T u for a unit u, so no longer than sigma_1; and it points roughly along v_1 (0.84
        // here), where a random vector of this length would manage about 0.01.
        let norm = start.iter().map(|x| x * x).sum::<f64>().sqrt();
        assert!(norm <= sampled.values[0] * (1.0 + 1e-9));
        assert!(
            abs_cos(&start, &sampled.right[0]) > 0.5,
            "points the right way"
        );
    }
}
