use nalgebra::DMatrix;

use super::*;
use crate::cluster::registry;
use crate::cluster::{Params, RuleSpec, SelectPolicy};
use crate::dataset::{DatasetOptions, open_demo};
use crate::linalg::kernel::{GeodesicMetric, KernelSpec};

fn demo() -> crate::dataset::Dataset {
    open_demo(&DatasetOptions::default()).expect("demo").dataset
}

fn rule(name: &str, set: impl FnOnce(&mut Params)) -> RuleSpec {
    let mut params = Params::default();
    set(&mut params);
    RuleSpec::new(name, &params).expect("rule")
}

/// Every rule, with the variants whose routing differs (several directions, several groups).
fn every_rule() -> Vec<RuleSpec> {
    let mut rules: Vec<RuleSpec> = registry::all()
        .iter()
        .map(|def| rule(def.name, |p| p.k_way = p.k_way.max(2)))
        .collect();
    rules.push(rule("pddp", |p| p.l = 2));
    rules.push(rule("pddp-ocpc", |p| p.l = 2));
    rules.push(rule("kpddp", |p| p.l = 2));
    rules.push(rule("kmeans", |p| p.k_way = 3));
    rules.push(rule("kernel-kmeans", |p| p.k_way = 3));
    rules
}

/// The leaf (node id) of every column of the tree.
fn leaf_of(tree: &Tree, columns: usize) -> Vec<Option<usize>> {
    let mut leaf = vec![None; columns];
    for id in tree.leaves() {
        for &j in tree.node(id).expect("leaf").members.iter() {
            leaf[j] = Some(id);
        }
    }
    leaf
}

#[test]
fn every_rule_sends_the_collection_s_own_documents_back_to_their_leaves() {
    let data = demo();
    let mut failures = Vec::new();
    for rule in every_rule() {
        let mut tree = Tree::for_dataset(&data);
        tree.grow(&data.matrix, &rule, 5, SelectPolicy::default())
            .unwrap_or_else(|error| panic!("{}: {error}", rule.text()));
        let routes = assign(&tree, &data.matrix, &data.matrix, SplitEnv::default())
            .unwrap_or_else(|error| panic!("{}: {error}", rule.text()));
        let leaves = leaf_of(&tree, data.matrix.cols());
        let astray: Vec<usize> = (0..data.matrix.cols())
            .filter(|&j| leaves[j].is_some_and(|leaf| routes[j].leaf != leaf))
            .collect();
        // Soft kernel k-means' answer (8) takes each member's largest responsibility from the means of the
        // iteration before the last; a point is measured against the last means, which the convergence
        // tolerance leaves a hair away: a member on the boundary may fall the other side (2 of 223 here).
        let allowed = match rule.def().out_of_sample {
            OutOfSample::SoftKernelCentroids => data.matrix.cols() / 50,
            _ => 0,
        };
        if astray.len() > allowed {
            failures.push(format!(
                "{}: {} of {} documents go elsewhere than their leaf: {astray:?}",
                rule.text(),
                astray.len(),
                data.matrix.cols()
            ));
        }
        for (j, route) in routes.iter().enumerate() {
            if leaves[j] == Some(route.leaf) {
                assert_eq!(route.fit, Fit::Fits, "{}: document {j}", rule.text());
                assert!(route.distance <= route.radius);
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Three clouds in 2 dimensions around (0, 0), (10, 0) and (0, 10), 20 points each.
fn clouds() -> DataMatrix {
    let centres = [[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]];
    let mut values = Vec::new();
    for centre in centres {
        for i in 0..20 {
            let angle = i as f64 * 0.7;
            let radius = 0.2 + (i % 5) as f64 * 0.2;
            values.push(centre[0] + radius * angle.cos());
            values.push(centre[1] + radius * angle.sin());
        }
    }
    DataMatrix::Dense {
        matrix: DMatrix::from_column_slice(2, 60, &values),
        features: vec!["x".into(), "y".into()],
    }
}

fn points(values: &[[f64; 2]]) -> DataMatrix {
    let flat: Vec<f64> = values.iter().flatten().copied().collect();
    DataMatrix::Dense {
        matrix: DMatrix::from_column_slice(2, values.len(), &flat),
        features: vec!["x".into(), "y".into()],
    }
}

#[test]
fn new_points_go_to_the_cloud_they_lie_in_by_every_rule_family() {
    let data = clouds();
    let new = points(&[[0.1, -0.1], [9.8, 0.3], [0.2, 10.1]]);
    let gaussian = |p: &mut Params| p.kernel = KernelSpec::Gaussian { sigma: Some(3.0) };
    for rule in [
        rule("pddp", |_| {}),
        rule("pddp-oc", |_| {}),
        rule("pdgp", |_| {}),
        rule("bisecting-kmeans", |_| {}),
        rule("kpddp", gaussian),
        rule("kernel-kmeans", gaussian),
        rule("kpddp-2means", gaussian),
        rule("soft-kernel-kmeans", gaussian),
        rule("alignment", gaussian),
        rule("cut-cost", gaussian),
        rule("spectral", gaussian),
    ] {
        let mut tree = Tree::new(&data, (0..60).collect(), Vec::new());
        tree.grow(&data, &rule, 3, SelectPolicy::default())
            .unwrap_or_else(|error| panic!("{}: {error}", rule.text()));
        let routes = assign(&tree, &data, &new, SplitEnv::default()).expect("routes");
        let leaves = leaf_of(&tree, 60);
        for (point, cloud) in [(0, 0), (1, 20), (2, 40)] {
            assert_eq!(
                Some(routes[point].leaf),
                leaves[cloud],
                "{}: point {point}",
                rule.text()
            );
            assert_eq!(routes[point].fit, Fit::Fits, "{}", rule.text());
        }
    }
}

#[test]
fn a_point_far_from_every_leaf_fits_none_and_a_zero_column_is_not_measured() {
    let data = clouds();
    let mut tree = Tree::new(&data, (0..60).collect(), Vec::new());
    tree.grow(&data, &rule("pddp", |_| {}), 3, SelectPolicy::default())
        .expect("grow");
    let routes = assign(
        &tree,
        &data,
        &points(&[[30.0, 30.0], [0.0, 0.0]]),
        SplitEnv::default(),
    )
    .expect("routes");
    assert_eq!(routes[0].fit, Fit::Beyond);
    assert!(routes[0].distance > routes[0].radius);
    assert_eq!(routes[1].fit, Fit::NoTerms);
}

#[test]
fn a_linear_margin_is_the_signed_distance_from_the_cut() {
    // Two clouds either side of x = 5; PDDP cuts at the centroid, across the leading direction (the x axis).
    let values: Vec<[f64; 2]> = (0..10)
        .map(|i| [if i < 5 { 0.0 } else { 10.0 }, (i % 5) as f64 * 0.01])
        .collect();
    let data = points(&values);
    let mut tree = Tree::new(&data, (0..10).collect(), Vec::new());
    tree.split(&data, 0, &rule("pddp", |_| {})).expect("split");
    let routes = assign(
        &tree,
        &data,
        &points(&[[7.0, 0.02], [4.0, 0.02]]),
        SplitEnv::default(),
    )
    .expect("routes");
    let margins: Vec<f64> = routes.iter().map(|r| r.steps[0].margin).collect();
    // The centroid is at x = 5: 2 and 1 from it, on opposite sides (the sign follows the direction's).
    assert!((margins[0].abs() - 2.0).abs() < 1e-6, "{margins:?}");
    assert!((margins[1].abs() - 1.0).abs() < 1e-6, "{margins:?}");
    assert!(margins[0] * margins[1] < 0.0, "{margins:?}");
    assert_ne!(routes[0].leaf, routes[1].leaf);
}

#[test]
fn a_centroid_margin_is_the_difference_of_the_distances() {
    let values: Vec<[f64; 2]> = (0..10)
        .map(|i| [if i < 5 { 0.0 } else { 10.0 }, 0.0])
        .collect();
    let data = points(&values);
    let mut tree = Tree::new(&data, (0..10).collect(), Vec::new());
    tree.split(&data, 0, &rule("bisecting-kmeans", |_| {}))
        .expect("split");
    let routes = assign(&tree, &data, &points(&[[3.0, 0.0]]), SplitEnv::default()).expect("routes");
    // 3 from one centroid, 7 from the other.
    assert!(
        (routes[0].steps[0].margin - 4.0).abs() < 1e-9,
        "{:?}",
        routes[0].steps
    );
}

#[test]
fn documents_over_other_rows_are_refused() {
    let data = clouds();
    let tree = Tree::new(&data, (0..60).collect(), Vec::new());
    let other = DataMatrix::Dense {
        matrix: DMatrix::zeros(3, 1),
        features: vec!["a".into(), "b".into(), "c".into()],
    };
    assert!(matches!(
        assign(&tree, &data, &other, SplitEnv::default()),
        Err(AssignError::Rows { new: 3, data: 2 })
    ));
}

#[test]
fn a_kernel_with_no_point_evaluation_is_refused_naming_the_node() {
    let data = clouds();
    let geodesic = rule("kpddp", |p| {
        p.kernel = KernelSpec::Geodesic {
            neighbours: 5,
            metric: GeodesicMetric::Euclid,
        }
    });
    let mut tree = Tree::new(&data, (0..60).collect(), Vec::new());
    tree.split(&data, 0, &geodesic).expect("split");
    let error =
        assign(&tree, &data, &points(&[[0.0, 1.0]]), SplitEnv::default()).expect_err("geodesic");
    assert!(
        matches!(error, AssignError::Kernel { node: 0, .. }),
        "{error}"
    );
}
