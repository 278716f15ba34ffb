//! The preview's tests: previews against real splits, the second coordinates, the sides.

use super::*;
use nalgebra::DMatrix;

fn checked_defaults() -> CheckedParams {
    Params::default().check().expect("valid defaults")
}

/// Two clumps on the x axis, (0..4, 0) and (10..13, 0), plus a little y.
pub(super) fn clumps() -> DataMatrix {
    let xs = [0.0, 1.0, 2.0, 3.0, 10.0, 11.0, 12.0];
    let mut values = Vec::new();
    for (i, x) in xs.iter().enumerate() {
        values.push(*x);
        values.push(if i % 2 == 0 { 0.1 } else { -0.1 });
    }
    DataMatrix::Dense {
        matrix: DMatrix::from_column_slice(2, xs.len(), &values),
        features: vec!["x".into(), "y".into()],
    }
}

/// `second` agrees with `joint` entry by entry to `within` of the largest coordinate.
/// The root of `tree` really split by `rule`: the tree after, and its children's sizes, to hold a preview's row
/// against.
fn real_split(tree: &Tree, data: &DataMatrix, rule: &RuleSpec) -> (Tree, Vec<usize>) {
    let mut real = tree.clone();
    let children = real.split(data, 0, rule).expect("splits");
    let sizes = children
        .iter()
        .map(|&c| real.node(c).expect("child").size())
        .collect();
    (real, sizes)
}

fn assert_close(second: &[f64], joint: &[f64], within: f64) {
    assert_eq!(second.len(), joint.len());
    let scale = joint.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    for (j, (a, b)) in second.iter().zip(joint).enumerate() {
        assert!(
            (a - b).abs() <= within * scale,
            "member {j}: {a} deflated, {b} joint"
        );
    }
}

#[test]
fn the_second_coordinates_alone_are_the_full_previews() {
    let data = clumps();
    let tree = Tree::new(&data, (0..7).collect(), Vec::new());
    let rules = compared_rules(&checked_defaults());
    let first = preview(&tree, &data, 0, &rules, None, false, None).expect("previews");
    let full = preview(&tree, &data, 0, &rules, None, true, None).expect("previews");
    let second = second_coordinates(&tree, &data, 0, &first)
        .expect("a direction")
        .expect("two directions");
    assert_close(&second, full.second.as_deref().expect("two"), 1e-9);
    assert!(second_coordinates(&tree, &data, 9, &first).is_err());
}

/// Documents in `topics` topics over 400 terms, each topic with frequent terms of its own and every document
/// a few others: large enough on both sides for Lanczos rather than the dense solver.
fn sparse_topics(documents: usize, topics: usize) -> DataMatrix {
    let terms = 400;
    let mut rng = crate::rng::SplitMix64::new(7);
    let mut triplets = crate::matrix::Triplets::new((terms, documents));
    for j in 0..documents {
        let topic = j % topics;
        for i in 0..terms {
            let chance = if i % topics == topic { 0.15 } else { 0.02 };
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

#[test]
fn the_deflated_second_direction_is_the_joint_runs() {
    let data = sparse_topics(1_500, 5);
    let tree = Tree::new(&data, (0..data.cols()).collect(), Vec::new());
    let rules = compared_rules(&checked_defaults());
    let first = preview(&tree, &data, 0, &rules, None, false, None).expect("previews");
    assert!(
        first
            .known
            .as_ref()
            .is_some_and(|k| k.directions().following.is_some()),
        "a Lanczos run keeps its next Ritz vector"
    );
    let joint = preview(&tree, &data, 0, &rules, None, true, None).expect("previews");
    let second = second_coordinates(&tree, &data, 0, &first)
        .expect("a direction")
        .expect("two directions");
    assert_close(&second, joint.second.as_deref().expect("two"), 1e-4);
    // The same input gives the same coordinates, bit for bit.
    let again = second_coordinates(&tree, &data, 0, &first).expect("a direction");
    assert_eq!(again.as_deref(), Some(second.as_slice()));
}

#[test]
fn every_rule_previewed_matches_its_real_split() {
    let data = clumps();
    let tree = Tree::new(&data, (0..7).collect(), Vec::new());
    let labels: Vec<Option<u32>> = vec![
        Some(0),
        Some(0),
        Some(0),
        Some(0),
        Some(1),
        Some(1),
        Some(1),
    ];
    let rules = compared_rules(&checked_defaults());
    let preview =
        preview(&tree, &data, 0, &rules, Some((&labels, 2)), true, None).expect("previews");
    assert_eq!(preview.coordinates.len(), 7);
    assert!(preview.second.is_some());
    for rule_preview in &preview.rules {
        let (real, sizes) = real_split(&tree, &data, &rule_preview.rule);
        let outcome = rule_preview.split().expect("splits");
        assert_eq!(outcome.child_sizes, sizes, "{}", rule_preview.rule.name());
        assert!((outcome.objective_after - real.objective()).abs() < 1e-9);
        // The clumps are the labels: every rule here separates them perfectly.
        assert_eq!(
            outcome.entropy_after,
            Some(0.0),
            "{}",
            rule_preview.rule.name()
        );
        // Every cut falls between the clumps' coordinates.
        let cut = rule_preview.cut.expect("a cut");
        let (low, high): (Vec<f64>, Vec<f64>) =
            preview.coordinates.iter().partition(|&&x| x <= cut);
        assert_eq!(
            (low.len().min(high.len()), low.len().max(high.len())),
            (3, 4),
            "{}",
            rule_preview.rule.name()
        );
    }
    // PDDP cuts at 0.
    assert_eq!(preview.rules[0].cut, Some(0.0));
}

#[test]
fn each_side_of_a_previewed_split_says_what_it_holds() {
    let data = clumps();
    let tree = Tree::new(&data, (0..7).collect(), Vec::new());
    let rules = compared_rules(&checked_defaults());
    let names: Vec<String> = vec!["x".into(), "y".into()];
    let preview = preview(&tree, &data, 0, &rules, None, false, Some(&names)).expect("previews");
    for rule_preview in &preview.rules {
        let outcome = rule_preview.split().expect("splits");
        let sizes: Vec<usize> = outcome.sides.iter().map(|s| s.size).collect();
        assert_eq!(sizes, outcome.child_sizes);
        // The clump of large x (3 documents, mean x 11 against 1.5) is about x, by 9.5.
        let large = outcome
            .sides
            .iter()
            .find(|s| s.size == 3)
            .expect("the small clump");
        assert_eq!(large.terms[0].term, "x");
        assert!((large.terms[0].weight - 9.5).abs() < 1e-9);
        // The sides lie on either side of the cut.
        let cut = rule_preview.cut.expect("a cut");
        let means: Vec<f64> = outcome
            .sides
            .iter()
            .map(|s| s.mean_coordinate.expect("a direction"))
            .collect();
        assert!(
            (means[0] - cut) * (means[1] - cut) < 0.0,
            "{}",
            rule_preview.rule.name()
        );
    }
    // Without names, no terms.
    let plain = super::preview(&tree, &data, 0, &rules, None, false, None).expect("previews");
    let outcome = plain.rules[0].split().expect("splits");
    assert!(outcome.sides.iter().all(|s| s.terms.is_empty()));
}

#[test]
fn a_leaf_that_cannot_split_says_why() {
    let data = clumps();
    let mut tree = Tree::new(&data, vec![0], Vec::new());
    assert!(
        preview(
            &tree,
            &data,
            0,
            &compared_rules(&checked_defaults()),
            None,
            false,
            None
        )
        .is_err()
    );
    tree = Tree::new(&data, (0..7).collect(), Vec::new());
    tree.split(&data, 0, &RuleSpec::named("pddp").expect("a rule"))
        .expect("splits");
    assert!(
        preview(
            &tree,
            &data,
            0,
            &compared_rules(&checked_defaults()),
            None,
            false,
            None
        )
        .is_err(),
        "an inner node"
    );
}

#[test]
fn a_split_takes_its_previews_directions_when_they_are_the_ones_it_would_compute() {
    use crate::cluster::rules::{ORDER_TOLERANCE, SplitEnv};
    let data = sparse_topics(1_500, 5);
    let tree = Tree::new(&data, (0..data.cols()).collect(), Vec::new());
    let rules = compared_rules(&checked_defaults());
    let first = preview_first(&tree, &data, 0, &rules, None, false, None).expect("previews");
    let known = first
        .known
        .as_deref()
        .expect("the first step keeps its directions");
    let split = |rule: &str, known: Option<&KnownDirections>| {
        let mut tree = tree.clone();
        let env = SplitEnv {
            known,
            ..SplitEnv::default()
        };
        let rule = RuleSpec::named(rule).expect("a rule");
        tree.split_in(&data, 0, &rule, env).expect("splits");
        tree
    };
    let plain = split("pddp", None);
    assert_eq!(
        split("pddp", Some(known)),
        plain,
        "the same split, the children's starts included"
    );

    // Taken, not computed again: directions made up for the same node and run are followed...
    let made_up = with_leaf_context(&tree, &data, 0, None, |_, _, context| {
        let mut directions = known.directions().clone();
        let half = directions.right[0].len() / 2;
        directions.right[0][..half]
            .iter_mut()
            .for_each(|v| *v = -*v);
        Ok(KnownDirections::new(
            context,
            1,
            SPLIT_TOLERANCE,
            directions,
        ))
    })
    .expect("a leaf");
    let followed = split("pddp", Some(&made_up));
    assert_ne!(followed, plain);
    let positive = made_up.directions().right[0]
        .iter()
        .filter(|v| **v > 0.0)
        .count();
    let sizes: Vec<usize> = followed
        .leaves()
        .iter()
        .map(|&id| followed.node(id).expect("a leaf").size())
        .collect();
    assert!(sizes.contains(&positive), "{sizes:?}, {positive} positive");
    // ... but only by a rule that wants as many directions at the same tolerance.
    assert_eq!(
        ORDER_TOLERANCE,
        RuleSpec::named("pddp-oc")
            .expect("a rule")
            .rule()
            .direction_tolerance()
    );
    assert_eq!(split("pddp-oc", Some(&made_up)), split("pddp-oc", None));
    let two = pddp_with_two_directions();
    let mut with_two = tree.clone();
    let env = SplitEnv {
        known: Some(&made_up),
        ..SplitEnv::default()
    };
    with_two.split_in(&data, 0, &two, env).expect("splits");
    let mut without = tree.clone();
    without
        .split_in(&data, 0, &two, SplitEnv::default())
        .expect("splits");
    assert_eq!(with_two, without);
}

#[test]
fn a_sampled_rules_preview_shows_the_split_it_would_make() {
    use crate::cluster::rules::SplitEnv;
    // 25,000 documents: at stride 2 the sample has 12,500, enough to be taken.
    let data = sparse_topics(25_000, 5);
    let tree = Tree::new(&data, (0..data.cols()).collect(), Vec::new());
    let sampled = Params {
        sample: 2,
        ..Params::default()
    }
    .check()
    .expect("valid");
    let rules = compared_rules(&sampled);
    let first = preview_first(&tree, &data, 0, &rules, None, false, None).expect("previews");
    let known = first.known.as_deref().expect("kept");
    assert_eq!(known.directions().sample_stride, Some(2));
    let whole = preview_rest(&tree, &data, 0, &first, None, None).expect("previews");
    for row in &whole.rules {
        let (_, sizes) = real_split(&tree, &data, &row.rule);
        let outcome = row.split().expect("splits");
        assert_eq!(outcome.child_sizes, sizes, "{}", row.rule.name());
    }
    // The split takes the preview's sampled directions: the same tree as computing them.
    let pddp = RuleSpec::new("pddp", &sampled).expect("a rule");
    let mut taken = tree.clone();
    let env = SplitEnv {
        known: Some(known),
        ..SplitEnv::default()
    };
    taken.split_in(&data, 0, &pddp, env).expect("splits");
    let mut computed = tree.clone();
    computed
        .split_in(&data, 0, &pddp, SplitEnv::default())
        .expect("splits");
    assert_eq!(taken, computed);
}

fn pddp_with_two_directions() -> RuleSpec {
    RuleSpec::new(
        "pddp",
        &Params {
            l: 2,
            ..Params::default()
        },
    )
    .expect("a rule")
}
