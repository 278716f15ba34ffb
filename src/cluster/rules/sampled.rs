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
use crate::linalg::{CentredColumns, LinearOperator, norm, normalise_sign, scale};

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
    let length = norm(x);
    if length > 0.0 {
        scale(x, 1.0 / length);
    }
    length
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::params::Params;
    use crate::cluster::rules::{KnownDirections, SPLIT_TOLERANCE, SplitEnv};
    use crate::cluster::{RuleSpec, Tree};
    use crate::linalg::test_util::abs_cos;
    use crate::matrix::DataMatrix;
    use crate::rng::SplitMix64;

    /// Members in the test node: at stride 2 its sample has 12,500, over [`SAMPLED_MIN_SAMPLE`].
    const MEMBERS: usize = 25_000;

    /// `documents` documents in eight topics of decreasing size (document j's topic from j's hash, so that a
    /// stride does not pick one topic), over 800 terms: each topic has 100 terms of its own, drawn often, and
    /// every document a few of the others; weights in (0, 1]. Sparse, a spectrum with a tail, as text has.
    fn topics(documents: usize) -> DataMatrix {
        let terms = 800;
        let mut rng = SplitMix64::new(18);
        let mut triplets = crate::matrix::Triplets::new((terms, documents));
        let shares = [0.25, 0.2, 0.15, 0.12, 0.1, 0.08, 0.06, 0.04];
        for j in 0..documents {
            let mut draw = rng.next_f64();
            let topic = shares
                .iter()
                .position(|&share| {
                    draw -= share;
                    draw < 0.0
                })
                .unwrap_or(shares.len() - 1);
            for i in 0..terms {
                let chance = if i % shares.len() == topic {
                    0.08
                } else {
                    0.01
                };
                if rng.next_f64() < chance {
                    triplets.add_triplet(i, j, 1.0 - rng.next_f64());
                }
            }
        }
        DataMatrix::sparse(
            triplets.to_csc(),
            (0..terms).map(|i| format!("t{i}")).collect(),
        )
    }

    fn context<'a>(
        data: &'a DataMatrix,
        members: &'a [usize],
        norms: &'a [f64],
    ) -> SplitContext<'a> {
        SplitContext {
            data,
            members,
            norms_squared: norms,
            centroid: None,
            node_id: 0,
            start: None,
            env: SplitEnv::default(),
        }
    }

    fn pddp(sample: usize) -> RuleSpec {
        RuleSpec::new(
            "pddp",
            &Params {
                sample,
                ..Params::default()
            },
        )
        .expect("a rule")
    }

    fn split(data: &DataMatrix, rule: &RuleSpec) -> Tree {
        let mut tree = Tree::new(data, (0..data.cols()).collect(), Vec::new());
        tree.split_in(data, 0, rule, SplitEnv::default())
            .expect("splits");
        tree
    }

    #[test]
    fn only_a_large_enough_sample_is_taken() {
        assert_eq!(sampling_stride(1_000_000, 0), None);
        assert_eq!(sampling_stride(1_000_000, 8), Some(8));
        assert_eq!(sampling_stride(1_000_000, 100), Some(100));
        assert_eq!(sampling_stride(1_000_000, 101), None, "9,901 sampled");
        assert_eq!(sampling_stride(2 * SAMPLED_MIN_SAMPLE - 1, 2), Some(2));
        assert_eq!(sampling_stride(2 * SAMPLED_MIN_SAMPLE - 2, 2), None);
        assert_eq!(
            sampling_stride(usize::MAX, 1),
            None,
            "a stride of 1 is no sample"
        );
    }

    #[test]
    fn the_option_is_silent_when_off_and_said_when_on() {
        // Off, the rule reads and is written as before the option existed.
        assert_eq!(pddp(0).text(), "pddp l=1");
        let off = serde_json::to_string(&pddp(0)).expect("serialises");
        assert_eq!(off, r#"{"rule":"pddp","l":1}"#);
        let on = serde_json::to_string(&pddp(8)).expect("serialises");
        assert_eq!(on, r#"{"rule":"pddp","l":1,"sample":8}"#);
        assert_eq!(
            serde_json::from_str::<RuleSpec>(&on).expect("reads"),
            pddp(8)
        );
        let refused = serde_json::from_str::<RuleSpec>(r#"{"rule":"pddp","sample":1}"#);
        assert!(refused.is_err_and(|e| e.to_string().contains("sample = 1")));
        // A split record says when its directions were sampled, and only then.
        let sampled = crate::cluster::rules::SplitDetail {
            sample_stride: Some(8),
            ..Default::default()
        };
        let json = serde_json::to_string(&sampled).expect("serialises");
        assert!(json.contains(r#""sample_stride":8"#), "{json}");
        let exact = serde_json::to_string(&crate::cluster::rules::SplitDetail::default())
            .expect("serialises");
        assert!(!exact.contains("sample"), "{exact}");
        assert!(
            sampled
                .sampling_summary()
                .is_some_and(|s| s.contains("one member in 8"))
        );
        assert_eq!(
            crate::cluster::rules::SplitDetail::default().sampling_summary(),
            None
        );
        // The parameter's description names the threshold.
        assert_eq!(SAMPLED_MIN_SAMPLE, 10_000);
        assert!(
            crate::cluster::Param::Sample
                .describe()
                .contains("at least 10,000 x s")
        );
    }

    #[test]
    fn a_sampled_direction_is_close_to_the_exact_one() {
        let data = topics(MEMBERS);
        let members: Vec<usize> = (0..data.cols()).collect();
        let norms = data.column_norms_squared();
        let node = context(&data, &members, &norms);
        let exact = principal_directions(&node, 2, SPLIT_TOLERANCE).expect("directions");
        let sampled = sampled_directions(&node, 2, SPLIT_TOLERANCE, 2).expect("directions");
        assert_eq!(sampled.sample_stride, Some(2));
        assert_eq!(exact.sample_stride, None);
        assert_eq!(sampled.right[0].len(), MEMBERS);
        assert_eq!(sampled.left[0].len(), data.rows());
        // By Davis and Kahan, the sample's u_1 is off the node's by an angle of at most the size of the
        // difference between the two covariances over the gap to the second value; that difference shrinks as
        // one over the root of the sample (12,500 here) and the gap is a fifth of sigma_1^2, so the angle is
        // a few degrees at most: |cos| above 0.99 (8 degrees). Measured: 0.9990 for v_1, 0.998 for v_2. A
        // direction taken back to the members wrongly (the wrong rows, the sample's centroid) or a random one
        // (|cos| about 1 / sqrt(25,000)) fails it.
        for i in 0..2 {
            let cos = abs_cos(&exact.right[i], &sampled.right[i]);
            assert!(cos > 0.99, "direction {i}: |cos| {cos}");
        }
        // sigma = ||B^T u|| for a unit u is at most sigma_1, and close to it for u close to u_1.
        let (sigma, sigma_1) = (sampled.values[0], exact.values[0]);
        assert!(
            sigma <= sigma_1 * (1.0 + 1e-9) && sigma >= 0.99 * sigma_1,
            "{sigma} {sigma_1}"
        );
        // The same sign convention: the entry of largest magnitude is positive.
        for v in &sampled.right {
            let largest = v
                .iter()
                .copied()
                .fold(0.0_f64, |m, x| if x.abs() > m.abs() { x } else { m });
            assert!(largest > 0.0);
        }
        let following = sampled
            .following
            .as_ref()
            .expect("a start for the children");
        let exact_following = exact.following.as_ref().expect("the exact run's");
        assert!(abs_cos(following, exact_following) > 0.99);
        // Deterministic.
        assert_eq!(
            sampled_directions(&node, 2, SPLIT_TOLERANCE, 2).expect("again"),
            sampled
        );
    }

    #[test]
    fn a_sampled_split_agrees_with_the_exact_one_on_most_members() {
        let data = topics(MEMBERS);
        let (exact, sampled) = (split(&data, &pddp(0)), split(&data, &pddp(2)));
        let groups = |tree: &Tree| -> Vec<Vec<usize>> {
            tree.leaves()
                .iter()
                .map(|&id| tree.node(id).expect("a leaf").members.to_vec())
                .collect()
        };
        let (exact_groups, sampled_groups) = (groups(&exact), groups(&sampled));
        assert_eq!((exact_groups.len(), sampled_groups.len()), (2, 2));
        let shared =
            |a: &[usize], b: &[usize]| a.iter().filter(|j| b.binary_search(j).is_ok()).count();
        let kept = shared(&exact_groups[0], &sampled_groups[0])
            + shared(&exact_groups[1], &sampled_groups[1]);
        let swapped = shared(&exact_groups[0], &sampled_groups[1])
            + shared(&exact_groups[1], &sampled_groups[0]);
        // Only members near the cut can change side, and this node has many there (its topics overlap): 98.5%
        // measured. Sides chosen at random would agree on about half.
        let agree = kept.max(swapped) as f64 / MEMBERS as f64;
        assert!(agree > 0.95, "{agree} of the members on the same side");
        let detail = |tree: &Tree| {
            tree.node(0)
                .and_then(|n| n.split.as_ref())
                .map(|s| s.detail.sample_stride)
        };
        assert_eq!(
            detail(&sampled),
            Some(Some(2)),
            "the split says it was sampled"
        );
        assert_eq!(detail(&exact), Some(None));
    }

    #[test]
    fn sample_zero_and_nodes_under_the_threshold_split_exactly_bit_for_bit() {
        let data = topics(MEMBERS);
        let exact = split(&data, &pddp(0));
        assert_eq!(
            pddp(0),
            RuleSpec::named("pddp").expect("a rule"),
            "0 is the default"
        );
        // At stride 4 the sample would have 6,250 members: the node is split exactly, children's starts and all.
        let under = split(&data, &pddp(4));
        let (exact_root, under_root) = (exact.node(0).expect("root"), under.node(0).expect("root"));
        assert_eq!(exact_root.children, under_root.children);
        for (&a, &b) in exact_root.children.iter().zip(&under_root.children) {
            assert_eq!(
                exact.node(a).map(|n| &n.members),
                under.node(b).map(|n| &n.members)
            );
            assert_eq!(exact.start_guess(a), under.start_guess(b));
        }
        let details = |tree: &Tree| tree.node(0).and_then(|n| n.split.clone()).map(|s| s.detail);
        assert_eq!(details(&exact), details(&under));
        // The same directions as the function every exact split calls.
        let members: Vec<usize> = (0..data.cols()).collect();
        let norms = data.column_norms_squared();
        let node = context(&data, &members, &norms);
        assert_eq!(
            directions_by(&node, 1, SPLIT_TOLERANCE, 0).expect("directions"),
            principal_directions(&node, 1, SPLIT_TOLERANCE).expect("directions")
        );
    }

    #[test]
    fn exact_and_sampled_directions_never_stand_for_each_other() {
        let data = topics(MEMBERS);
        let members: Vec<usize> = (0..data.cols()).collect();
        let norms = data.column_norms_squared();
        let node = context(&data, &members, &norms);
        let exact = KnownDirections::new(
            &node,
            1,
            SPLIT_TOLERANCE,
            principal_directions(&node, 1, SPLIT_TOLERANCE).expect("directions"),
        );
        let sampled = KnownDirections::new(
            &node,
            1,
            SPLIT_TOLERANCE,
            sampled_directions(&node, 1, SPLIT_TOLERANCE, 2).expect("directions"),
        );
        let taken = |known: &KnownDirections, sample| {
            known.for_split(&node, 1, SPLIT_TOLERANCE, sample).is_some()
        };
        assert!(taken(&exact, 0));
        assert!(!taken(&exact, 2), "a sampled split computes its own");
        assert!(
            taken(&exact, 4),
            "stride 4 samples too few here: the split is exact"
        );
        assert!(taken(&sampled, 2));
        assert!(!taken(&sampled, 0), "an exact split computes its own");
        assert!(!taken(&sampled, 3), "another stride");
        assert!(!taken(&sampled, 4));
        // Through a split: with the exact directions known, a sampled split still gives the sampled tree.
        let mut tree = Tree::new(&data, members.clone(), Vec::new());
        let env = SplitEnv {
            known: Some(&exact),
            ..SplitEnv::default()
        };
        tree.split_in(&data, 0, &pddp(2), env).expect("splits");
        assert_eq!(tree, split(&data, &pddp(2)));
    }
}
