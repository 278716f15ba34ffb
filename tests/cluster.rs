//! The divisive engine: invariants every rule must keep, on the demo corpus (sparse text) and on generated
//! numeric clouds (dense).

use nalgebra::DMatrix;
use pdx::cluster::cuts::{optimal_cut_1d, optimal_cut_along_order, optimal_cut_given_total};
use pdx::cluster::registry::{self, Family};
use pdx::cluster::rules::{SPLIT_TOLERANCE, SplitContext, principal_directions};
use pdx::cluster::{ClusterError, Param, Params, RuleSpec, SelectPolicy, Tree};

mod common;

use common::{spec, spec_with};
use pdx::dataset::{self, DatasetOptions};
use pdx::matrix::DataMatrix;

fn demo() -> pdx::dataset::Dataset {
    dataset::open_demo(&DatasetOptions::default())
        .expect("demo")
        .dataset
}

/// Three Gaussian-ish clouds in 5 dimensions, 40 + 30 + 20 points, from a fixed seed.
fn clouds() -> DataMatrix {
    let mut state = 0x1234_5678_u64;
    let mut uniform = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 11) as f64) / ((1u64 << 53) as f64)
    };
    let centres = [
        [0.0, 0.0, 0.0, 0.0, 0.0],
        [6.0, 1.0, 0.0, 2.0, 0.0],
        [0.0, 7.0, 3.0, 0.0, 1.0],
    ];
    let sizes = [40, 30, 20];
    let mut values = Vec::new();
    for (centre, &size) in centres.iter().zip(&sizes) {
        for _ in 0..size {
            for &c in centre {
                // Sum of uniforms: a bell around the centre.
                let noise: f64 = (0..4).map(|_| uniform() - 0.5).sum();
                values.push(c + noise);
            }
        }
    }
    DataMatrix::Dense {
        matrix: DMatrix::from_column_slice(5, 90, &values),
        features: (1..=5).map(|i| format!("x{i}")).collect(),
    }
}

fn all_rules() -> Vec<RuleSpec> {
    let mut rules: Vec<RuleSpec> = registry::of_family(Family::Linear)
        .map(|rule| spec(rule.name))
        .collect();
    rules.push(spec_with("pddp", |p| p.l = 2));
    rules.push(spec_with("pddp-ocpc", |p| p.l = 2));
    rules.push(spec_with("kmeans", |p| {
        p.k_way = 3;
        p.trials = 3;
        p.seed = 9;
    }));
    rules
}

fn datasets() -> Vec<(&'static str, DataMatrix)> {
    vec![("demo", demo().matrix), ("clouds", clouds())]
}

#[test]
fn children_partition_their_parent_for_every_rule() {
    for (name, data) in datasets() {
        for rule in all_rules() {
            let mut tree = Tree::new(&data, (0..data.cols()).collect(), Vec::new());
            tree.grow(&data, &rule, 6, SelectPolicy::Scatter)
                .expect("grows");
            for id in tree.depth_first() {
                let node = tree.node(id).expect("live");
                if node.is_leaf() {
                    continue;
                }
                assert!(node.children.len() >= 2 && node.children.len() <= rule.max_children());
                let mut union: Vec<usize> = Vec::new();
                for &child in &node.children {
                    let child = tree.node(child).expect("child");
                    assert!(
                        !child.members.is_empty(),
                        "{name} {}: empty child",
                        rule.name()
                    );
                    // A child's centroid is the mean of its columns, bit for bit as the data computes it,
                    // whether the rule handed it over (the PDDP family) or the tree computed it; leaves keep
                    // theirs, inner nodes none.
                    assert_eq!(child.is_leaf(), child.stored_centroid().is_some());
                    let expected = data.centroid(&child.members);
                    let centroid = tree.dense_centroid(&data, child.id).expect("live");
                    assert_eq!(centroid.len(), expected.len());
                    assert!(
                        centroid
                            .iter()
                            .zip(&expected)
                            .all(|(a, b)| a.to_bits() == b.to_bits()),
                        "{name} {}: centroid of node {}",
                        rule.name(),
                        child.id
                    );
                    union.extend(child.members.iter());
                }
                union.sort_unstable();
                assert_eq!(
                    union,
                    node.members.to_vec(),
                    "{name} {}: children do not partition node {id}",
                    rule.name()
                );
                let split = node.split.as_ref().expect("split record");
                let children_scatter: f64 = node
                    .children
                    .iter()
                    .map(|&c| tree.node(c).expect("child").scatter)
                    .sum();
                assert!(
                    (split.objective_after - children_scatter).abs()
                        <= 1e-9 * node.scatter.max(1.0)
                );
            }
            // Leaves cover every column once.
            let assignment = tree.assignments(data.cols());
            assert!(
                assignment.iter().all(Option::is_some),
                "{name} {}",
                rule.name()
            );
        }
    }
}

fn context<'a>(data: &'a DataMatrix, members: &'a [usize], norms: &'a [f64]) -> SplitContext<'a> {
    SplitContext {
        start: None,
        data,
        members,
        norms_squared: norms,
        centroid: None,
        node_id: 0,
        env: Default::default(),
    }
}

#[test]
fn splitting_every_rule_at_once_equals_splitting_each_alone() {
    // split_all_along shares the pddp and pddp-oc partitions with the 2-means refinements that start from them.
    let linear =
        pdx::report::preview::compared_rules(&Params::default().check().expect("valid defaults"));
    let refinements_alone = vec![spec("pddp-oc-2means"), spec("pddp-2means")];
    for (name, data) in datasets() {
        let members: Vec<usize> = (0..data.cols()).collect();
        let norms = data.column_norms_squared();
        let node = context(&data, &members, &norms);
        let directions = principal_directions(&node, 1, SPLIT_TOLERANCE).expect("directions");
        for rules in [&linear, &refinements_alone] {
            let together = pdx::cluster::rules::split_all_along(rules, &node, &directions);
            assert_eq!(together.len(), rules.len());
            for (rule, partition) in rules.iter().zip(together) {
                let alone = rule.rule().split_along(&node, &directions).expect("splits");
                assert_eq!(partition.expect("splits"), alone, "{name} {}", rule.name());
            }
        }
    }
}

#[test]
fn optimal_cut_is_never_worse_than_pddp() {
    for (name, data) in datasets() {
        // The root and the nodes of a small PDDP tree.
        let mut tree = Tree::new(&data, (0..data.cols()).collect(), Vec::new());
        tree.grow(&data, &spec("pddp"), 5, SelectPolicy::Scatter)
            .expect("grows");
        for id in tree.depth_first() {
            let node = tree.node(id).expect("live");
            if node.size() < 2 {
                continue;
            }
            let mut pddp = Tree::new(&data, node.members.to_vec(), Vec::new());
            let mut oc = pddp.clone();
            pddp.split(&data, 0, &spec("pddp")).expect("pddp");
            oc.split(&data, 0, &spec("pddp-oc")).expect("oc");
            assert!(
                oc.objective() <= pddp.objective() * (1.0 + 1e-12),
                "{name} node {id}: oc {} > pddp {}",
                oc.objective(),
                pddp.objective()
            );
        }
    }
}

/// The 2-means objective of splitting `order` at `cut`, computed from scratch.
fn objective_from_scratch(data: &DataMatrix, order: &[usize], cut: usize) -> f64 {
    let scatter = |group: &[usize]| {
        let centroid = data.centroid(group);
        group
            .iter()
            .map(|&j| {
                let mut diff: Vec<f64> = centroid.iter().map(|c| -c).collect();
                data.column(j).add_to(&mut diff, 1.0);
                diff.iter().map(|d| d * d).sum::<f64>()
            })
            .sum::<f64>()
    };
    scatter(&order[..cut]) + scatter(&order[cut..])
}

#[test]
fn lemma_1_running_sums_match_brute_force() {
    let data = clouds();
    let norms = data.column_norms_squared();
    // An arbitrary order: by a fixed scramble of the columns.
    let order: Vec<usize> = (0..data.cols()).map(|i| (i * 37) % 90).collect();
    let fast = optimal_cut_along_order(&data, &order, &norms);
    let (best_cut, best) = (1..order.len())
        .map(|cut| (cut, objective_from_scratch(&data, &order, cut)))
        .fold(
            (0, f64::INFINITY),
            |acc, (c, o)| if o < acc.1 { (c, o) } else { acc },
        );
    assert_eq!(fast.cut, best_cut);
    assert!((fast.objective - best).abs() < 1e-9 * best);

    // The same sweep given the sum as n times the centroid (what pddp-oc takes from the tree), on sparse text too.
    for data in [clouds(), demo().matrix] {
        let norms = data.column_norms_squared();
        let order: Vec<usize> = (0..data.cols()).map(|i| (i * 37) % data.cols()).collect();
        let n = order.len() as f64;
        let total: Vec<f64> = data.centroid(&order).iter().map(|c| c * n).collect();
        let exact = optimal_cut_along_order(&data, &order, &norms);
        let given = optimal_cut_given_total(&data, &order, &norms, &total);
        assert_eq!(given.cut, exact.cut);
        assert!((given.objective - exact.objective).abs() < 1e-9 * exact.objective);
    }
}

#[test]
#[should_panic(expected = "one total per row")]
fn a_sum_of_the_wrong_length_is_a_contract_broken() {
    let data = clouds();
    let norms = data.column_norms_squared();
    let order: Vec<usize> = (0..data.cols()).collect();
    optimal_cut_given_total(&data, &order, &norms, &[]);
}

#[test]
fn ocpc_with_one_direction_is_the_brute_force_1d_cut() {
    for (name, data) in datasets() {
        let norms = data.column_norms_squared();
        let members: Vec<usize> = (0..data.cols()).collect();
        let node = context(&data, &members, &norms);
        let directions = principal_directions(&node, 1, SPLIT_TOLERANCE).expect("direction");
        let v = &directions.right[0];
        // Brute force: every threshold between consecutive sorted values, objective from scratch.
        let mut sorted = v.clone();
        sorted.sort_by(f64::total_cmp);
        let mut best = (f64::INFINITY, 0.0);
        for i in 0..sorted.len() - 1 {
            if sorted[i] == sorted[i + 1] {
                continue;
            }
            let threshold = 0.5 * (sorted[i] + sorted[i + 1]);
            let (low, high): (Vec<f64>, Vec<f64>) = v.iter().partition(|&&x| x <= threshold);
            let sse = |g: &[f64]| {
                let mean = g.iter().sum::<f64>() / g.len() as f64;
                g.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>()
            };
            let objective = sse(&low) + sse(&high);
            if objective < best.0 {
                best = (objective, threshold);
            }
        }
        let cut = optimal_cut_1d(v).expect("cut");
        assert!((cut - best.1).abs() < 1e-12, "{name}: {cut} vs {}", best.1);
        let mut tree = Tree::new(&data, members.clone(), Vec::new());
        let children = tree.split(&data, 0, &spec("pddp-ocpc")).expect("splits");
        let low: Vec<usize> = members
            .iter()
            .copied()
            .filter(|&j| v[j] <= best.1)
            .collect();
        assert_eq!(
            tree.node(children[0]).expect("child").members.to_vec(),
            low,
            "{name}"
        );
    }
}

#[test]
fn two_means_steering_never_raises_its_start() {
    for (name, data) in datasets() {
        for rule in [spec("pddp-2means"), spec("pddp-oc-2means")] {
            let mut tree = Tree::new(&data, (0..data.cols()).collect(), Vec::new());
            tree.grow(&data, &rule, 6, SelectPolicy::Scatter)
                .expect("grows");
            for id in tree.depth_first() {
                let Some(split) = tree.node(id).and_then(|n| n.split.as_ref()) else {
                    continue;
                };
                let start = split.detail.start_objective.expect("start recorded");
                assert!(
                    split.objective_after <= start * (1.0 + 1e-12),
                    "{name} {} node {id}: {} > start {start}",
                    rule.name(),
                    split.objective_after
                );
            }
        }
    }
}

#[test]
fn same_data_options_and_seed_give_the_same_tree() {
    for (_, data) in datasets() {
        for rule in all_rules() {
            let grow = || {
                let mut tree = Tree::new(&data, (0..data.cols()).collect(), Vec::new());
                tree.grow(&data, &rule, 7, SelectPolicy::Scatter)
                    .expect("grows");
                serde_json::to_string(&tree).expect("serialises")
            };
            assert_eq!(grow(), grow(), "{}", rule.name());
        }
    }
}

#[test]
fn growing_splits_exactly_as_one_split_at_a_time() {
    // `grow` splits the next candidate alongside the chosen one and keeps its partition for later: the tree
    // must be the one made by choosing and splitting one leaf at a time.
    for (name, data) in datasets() {
        for rule in all_rules()
            .into_iter()
            .filter(|rule| rule.max_children() == 2)
        {
            let mut grown = Tree::new(&data, (0..data.cols()).collect(), Vec::new());
            grown
                .grow(&data, &rule, 9, SelectPolicy::Scatter)
                .expect("grows");
            let mut stepped = Tree::new(&data, (0..data.cols()).collect(), Vec::new());
            let mut refused = std::collections::BTreeSet::new();
            while stepped.leaves().len() < 9 {
                let Some(id) = stepped
                    .candidates(SelectPolicy::Scatter)
                    .into_iter()
                    .find(|id| !refused.contains(id))
                else {
                    break;
                };
                match stepped.split(&data, id, &rule) {
                    Ok(_) => {}
                    Err(ClusterError::Refused { .. }) => {
                        refused.insert(id);
                    }
                    Err(other) => panic!("{name} {}: {other}", rule.name()),
                }
            }
            assert!(grown.leaves().len() > 3, "{name} {}", rule.name());
            assert_eq!(
                serde_json::to_string(&grown).expect("serialises"),
                serde_json::to_string(&stepped).expect("serialises"),
                "{name} {}",
                rule.name()
            );
            // Centroids are not serialised; `grow` computes the children's alongside the splits.
            for leaf in grown.leaves() {
                let bits = |tree: &Tree| -> Vec<u64> {
                    let node = tree.node(leaf).expect("same ids");
                    let centroid = node.stored_centroid().expect("a leaf keeps its centroid");
                    centroid.to_dense().iter().map(|v| v.to_bits()).collect()
                };
                assert_eq!(
                    bits(&grown),
                    bits(&stepped),
                    "{name} {} node {leaf}",
                    rule.name()
                );
            }
        }
    }
}

#[test]
fn children_start_from_their_parents_direction() {
    let data = demo().matrix;
    let mut tree = Tree::new(&data, (0..data.cols()).collect(), Vec::new());
    let root = tree.root();
    assert!(tree.start_guess(root).is_none());
    let children = tree.split(&data, root, &spec("pddp")).expect("splits");
    let parent = tree.node(root).expect("root");
    let direction = parent.direction.clone().expect("pddp keeps its direction");
    assert_eq!(direction.len(), parent.size());
    for &child in &children {
        let guess = tree.start_guess(child).expect("a guess");
        let node = tree.node(child).expect("child");
        assert_eq!(guess.len(), node.size());
        // The parent's direction restricted to the child, less its mean.
        let restricted: Vec<f64> = node
            .members
            .iter()
            .map(|member| direction[parent.members.binary_search(member).expect("a member")])
            .collect();
        let mean = restricted.iter().sum::<f64>() / restricted.len() as f64;
        for (g, r) in guess.iter().zip(&restricted) {
            assert_eq!(g.to_bits(), (r - mean).to_bits());
        }
        let scale: f64 = restricted.iter().map(|r| r.abs()).sum();
        assert!(guess.iter().sum::<f64>().abs() <= 1e-12 * scale);
    }
    // The direction is saved with the tree.
    let text = serde_json::to_string(&tree).expect("serialises");
    let back: Tree = serde_json::from_str(&text).expect("reads back");
    assert_eq!(back.start_guess(children[0]), tree.start_guess(children[0]));
    // A rule without a direction leaves its children none.
    let mut kmeans = Tree::new(&data, (0..data.cols()).collect(), Vec::new());
    let rule = spec("bisecting-kmeans");
    let children = kmeans.split(&data, root, &rule).expect("splits");
    assert!(kmeans.start_guess(children[0]).is_none());
}

#[test]
fn a_cancelled_grow_stops_between_splits() {
    let data = demo().matrix;
    let progress = pdx::progress::Progress::default();
    let env = pdx::cluster::rules::SplitEnv {
        progress: Some(&progress),
        ..Default::default()
    };
    let mut tree = Tree::new(&data, (0..data.cols()).collect(), Vec::new());
    let report = tree
        .grow_in(&data, &spec("pddp"), 3, SelectPolicy::Scatter, env)
        .expect("grows");
    assert_eq!((report.splits, tree.leaves().len()), (2, 3));
    progress.cancel();
    let result = tree.grow_in(&data, &spec("pddp"), 6, SelectPolicy::Scatter, env);
    assert!(matches!(result, Err(ClusterError::Cancelled(_))));
    assert_eq!(tree.leaves().len(), 3, "no split after the cancel");
}

#[test]
fn a_cancelled_split_stops_in_its_lanczos_run_and_leaves_the_tree() {
    let data = demo().matrix;
    let progress = pdx::progress::Progress::default();
    progress.cancel();
    let env = pdx::cluster::rules::SplitEnv {
        progress: Some(&progress),
        ..Default::default()
    };
    let mut tree = Tree::new(&data, (0..data.cols()).collect(), Vec::new());
    let before = tree.clone();
    let result = tree.split_in(&data, tree.root(), &spec("pddp"), env);
    assert!(
        matches!(
            result,
            Err(ClusterError::Linalg(pdx::linalg::LinalgError::Cancelled))
        ),
        "{result:?}"
    );
    assert_eq!(tree, before);
}

#[test]
fn pddp_l_makes_the_splits_of_table_1() {
    let data = demo().matrix;
    let mut tree = Tree::new(&data, (0..data.cols()).collect(), Vec::new());
    // l = 2, k = 8: ceil(7 / 3) = 3 splits, up to 3 * 3 + 1 = 10 leaves.
    let report = tree
        .grow(
            &data,
            &spec_with("pddp", |p| p.l = 2),
            8,
            SelectPolicy::Scatter,
        )
        .expect("grows");
    assert_eq!(report.splits, 3);
    assert!(tree.leaves().len() <= 10 && tree.leaves().len() >= 4);
}

#[test]
fn unsplittable_nodes_say_why_and_merge_restores_a_leaf() {
    // Two identical columns and one different one.
    let data = DataMatrix::Dense {
        matrix: DMatrix::from_column_slice(2, 3, &[1.0, 0.0, 1.0, 0.0, 0.0, 5.0]),
        features: vec!["a".into(), "b".into()],
    };
    let mut tree = Tree::new(&data, vec![0, 1, 2], Vec::new());
    let children = tree.split(&data, 0, &spec("pddp")).expect("splits");
    assert_eq!(children.len(), 2);
    let sizes: Vec<usize> = children
        .iter()
        .map(|&c| tree.node(c).expect("child").size())
        .collect();
    assert_eq!(sizes, vec![2, 1]);
    // The pair of equal columns has zero scatter; the singleton has one member.
    let error = tree
        .split(&data, children[0], &spec("pddp"))
        .expect_err("zero scatter");
    assert!(
        matches!(error, ClusterError::Unsplittable { .. }),
        "{error}"
    );
    assert!(error.to_string().contains("scatter is zero"));
    let error = tree
        .split(&data, children[1], &spec("pddp-oc"))
        .expect_err("one member");
    assert!(error.to_string().contains("single member"));
    // A node already split cannot be split again until merged.
    assert!(tree.split(&data, 0, &spec("pddp-oc")).is_err());
    tree.merge(0).expect("merges");
    assert_eq!(tree.leaves(), vec![0]);
    assert!(tree.node(children[0]).is_none());
    // New ids continue after the dropped ones.
    let again = tree
        .split(&data, 0, &spec("pddp-oc"))
        .expect("splits again");
    assert_eq!(again, vec![3, 4]);
}

#[test]
fn bad_rule_options_are_refused() {
    assert!(matches!(
        RuleSpec::named("nope"),
        Err(ClusterError::UnknownRule { .. })
    ));
    let refused = |name: &str, set: fn(&mut Params)| {
        let mut params = Params::default();
        set(&mut params);
        match RuleSpec::new(name, &params) {
            Err(ClusterError::Param(error)) => error.param,
            other => panic!("{name}: {other:?}"),
        }
    };
    assert_eq!(refused("pddp", |p| p.l = 9), Param::L);
    assert_eq!(refused("pddp", |p| p.l = 0), Param::L);
    assert_eq!(refused("pdgp", |p| p.tau = 1.0), Param::Tau);
    assert_eq!(refused("pdgp", |p| p.tau = -0.1), Param::Tau);
    // Growing to no more leaves than the tree has leaves it as it is.
    let data = clouds();
    let mut tree = Tree::new(&data, (0..90).collect(), Vec::new());
    let report = tree
        .grow(&data, &spec("pddp-oc"), 0, SelectPolicy::Scatter)
        .expect("nothing to do");
    assert_eq!((report.splits, tree.leaves().len()), (0, 1));
}

#[test]
fn selection_policies() {
    let data = clouds();
    let mut tree = Tree::new(&data, (0..90).collect(), Vec::new());
    tree.grow(&data, &spec("pddp-oc"), 3, SelectPolicy::Scatter)
        .expect("grows");
    let leaves = tree.leaves();
    let by = |key: &dyn Fn(usize) -> f64| {
        leaves
            .iter()
            .copied()
            .max_by(|&a, &b| key(a).total_cmp(&key(b)).then(b.cmp(&a)))
            .expect("leaves")
    };
    let node = |id: usize| tree.node(id).expect("live");
    assert_eq!(
        tree.suggest(SelectPolicy::Scatter),
        Some(by(&|id| node(id).scatter))
    );
    assert_eq!(
        tree.suggest(SelectPolicy::Size),
        Some(by(&|id| node(id).size() as f64))
    );
    assert_eq!(
        tree.suggest(SelectPolicy::Variance),
        Some(by(&|id| node(id).scatter / node(id).size() as f64))
    );
}

#[test]
fn clouds_are_found() {
    // Three well separated clouds: PDDP-OC to 3 leaves recovers them exactly.
    let data = clouds();
    let mut tree = Tree::new(&data, (0..90).collect(), Vec::new());
    tree.grow(&data, &spec("pddp-oc"), 3, SelectPolicy::Scatter)
        .expect("grows");
    let mut sizes: Vec<usize> = tree
        .leaves()
        .iter()
        .map(|&l| tree.node(l).expect("leaf").size())
        .collect();
    sizes.sort_unstable();
    assert_eq!(sizes, vec![20, 30, 40]);
}

#[test]
fn the_tree_does_not_depend_on_the_number_of_threads() {
    // Large enough (about 90,000 non-zeros) that the products, Lloyd passes and weighting take their parallel
    // paths at the top of the tree.
    let large = {
        let mut state = 42u64;
        let mut next = move |bound: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % bound
        };
        let documents: Vec<Vec<(u32, u32)>> = (0..3000)
            .map(|d| {
                // Three topics of 600 terms each, plus noise over all 2,000 terms.
                let topic = (d % 3) as u64 * 600;
                let mut terms: Vec<(u32, u32)> = (0..30)
                    .map(|i| {
                        let term = if i % 3 == 0 {
                            next(2000)
                        } else {
                            topic + next(600)
                        };
                        (term as u32, 1 + next(3) as u32)
                    })
                    .collect();
                terms.sort_unstable();
                terms.dedup_by_key(|t| t.0);
                terms
            })
            .collect();
        let counts = pdx::text::TermCounts {
            terms: (0..2000).map(|t| format!("t{t}")).collect(),
            words: Vec::new(),
            token_counts: vec![30; documents.len()],
            documents,
        };
        pdx::weighting::weight_counts(&counts, pdx::weighting::Weighting::TEXT_DEFAULT)
    };
    assert!(large.nnz() > 80_000);
    let grow_with = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool");
        pool.install(|| {
            let mut trees = Vec::new();
            for data in [&demo().matrix, &large] {
                for rule in all_rules() {
                    let mut tree = Tree::new(data, (0..data.cols()).collect(), Vec::new());
                    tree.grow(data, &rule, 8, SelectPolicy::Scatter)
                        .expect("grows");
                    trees.push(serde_json::to_string(&tree).expect("serialises"));
                }
            }
            trees
        })
    };
    assert_eq!(grow_with(1), grow_with(3));
}

#[test]
fn a_tree_read_back_and_rebuilt_equals_the_original() {
    let data = demo().matrix;
    let mut tree = Tree::new(&data, (0..data.cols()).collect(), Vec::new());
    tree.grow(&data, &spec("pddp-oc"), 6, SelectPolicy::Scatter)
        .expect("grows");
    let text = serde_json::to_string(&tree).expect("serialises");
    // Centroids are derived from the members, so they are not written.
    assert!(!text.contains("centroid"));
    let mut read: Tree = serde_json::from_str(&text).expect("reads");
    assert_ne!(read, tree);
    read.rebuild_centroids(&data);
    assert_eq!(read, tree);
}

/// PDDP(l) to k leaves makes Table 1's ceil((k - 1) / (2^l - 1)) splits, and an orthant no point falls in makes no
/// leaf: three tight groups in the plane, at (-10, 0), (10, 0) and (1, 3), fill three of the four quadrants of
/// the two principal directions, so PDDP(2) asked for 4 leaves makes one split and 3 leaves, and says so.
#[test]
fn pddp_l_reports_the_leaves_its_empty_orthants_did_not_make() {
    let centres = [[-10.0, 0.0], [10.0, 0.0], [1.0, 3.0]];
    let jitter = [[0.1, 0.0], [-0.1, 0.05], [0.0, -0.1], [0.05, 0.1]];
    let mut values = Vec::new();
    for centre in &centres {
        for offset in &jitter {
            values.extend([centre[0] + offset[0], centre[1] + offset[1]]);
        }
    }
    let data = DataMatrix::Dense {
        matrix: DMatrix::from_column_slice(2, 12, &values),
        features: vec!["x".into(), "y".into()],
    };
    let rule = spec_with("pddp", |p| p.l = 2);
    let mut tree = Tree::new(&data, (0..12).collect(), Vec::new());
    let grown = tree
        .grow(&data, &rule, 4, SelectPolicy::Scatter)
        .expect("grows");
    assert_eq!((grown.splits, tree.leaves().len()), (1, 3));
    let count = grown.leaf_count.expect("a leaf count other than asked");
    assert_eq!((count.asked, count.made, count.empty_children), (4, 3, 1));
    let notes = grown.notes(&rule);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].starts_with("asked for 4 leaves, made 3")
            && notes[0].contains("1 of the 4 orthants of its 1 splits held no document"),
        "{}",
        notes[0]
    );
    // Asked for what it makes, it has nothing to say.
    let mut exact = Tree::new(&data, (0..12).collect(), Vec::new());
    let grown = exact
        .grow(&data, &spec("pddp"), 3, SelectPolicy::Scatter)
        .expect("grows");
    assert_eq!(grown.leaf_count, None);
    assert!(grown.notes(&spec("pddp")).is_empty());
}
