//! Alternatives: a node split again keeps its first split, with the subtree under it, and either can be made
//! active, kept alone, saved and read back.

use pdx::cluster::{SelectPolicy, Tree};
use pdx::dataset::{self, Dataset, DatasetOptions};
use pdx::report::terms::Words;

mod common;

use common::spec;

fn demo() -> Dataset {
    dataset::open_demo(&DatasetOptions::default())
        .expect("demo")
        .dataset
}

/// Each leaf's members, in leaf order.
fn partition(tree: &Tree) -> Vec<Vec<usize>> {
    tree.leaves()
        .iter()
        .map(|&leaf| tree.node(leaf).expect("live").members.to_vec())
        .collect()
}

/// The demo's root split with PDDP, its first child split again and named: the subtree an alternative must keep.
fn grown(data: &Dataset) -> Tree {
    let mut tree = Tree::for_dataset(data);
    let children = tree
        .split(&data.matrix, 0, &spec("pddp"))
        .expect("root splits");
    tree.split(&data.matrix, children[0], &spec("pddp"))
        .expect("child splits");
    tree.set_name(children[1], Some("kept name".into()))
        .expect("named");
    tree
}

#[test]
fn a_second_split_keeps_the_first_with_its_subtree() {
    let data = demo();
    let mut tree = grown(&data);
    let first = partition(&tree);
    assert_eq!(first.len(), 3);
    let before_ids = tree.leaves();
    let children = tree
        .split_alternative_in(
            &data.matrix,
            0,
            &spec("bisecting-kmeans"),
            Default::default(),
        )
        .expect("an alternative split");
    assert_eq!(tree.split_count(0), 2);
    assert_eq!(tree.active_split(0), 1);
    assert_eq!(
        tree.leaves(),
        children,
        "the new split's children are the leaves"
    );
    // The first split's nodes left the arena: nothing walks them while they are shelved.
    assert!(before_ids.iter().all(|&id| tree.node(id).is_none()));
    let second = partition(&tree);

    tree.switch_split(&data.matrix, 0, 0)
        .expect("switches back");
    assert_eq!(tree.active_split(0), 0);
    assert_eq!(tree.leaves(), before_ids);
    assert_eq!(partition(&tree), first);
    let named = tree.node(before_ids[2]).expect("back");
    assert_eq!(named.name.as_deref(), Some("kept name"));
    // The leaves' centroids are rebuilt exactly as the split made them.
    for &leaf in &before_ids {
        let members = tree.node(leaf).expect("live").members.clone();
        assert_eq!(
            tree.centroid(&data.matrix, leaf)
                .expect("centroid")
                .to_dense(),
            data.matrix.centroid(&members)
        );
    }
    assert_eq!(
        tree.node(0)
            .and_then(|n| n.split.as_ref())
            .map(|s| s.rule.name()),
        Some("pddp")
    );

    tree.switch_split(&data.matrix, 0, 1).expect("and forth");
    assert_eq!(partition(&tree), second);
    assert!(tree.switch_split(&data.matrix, 0, 2).is_err());
}

#[test]
fn an_alternative_tree_grows_and_reports_only_its_active_splits() {
    let data = demo();
    let mut tree = grown(&data);
    tree.split_alternative_in(&data.matrix, 0, &spec("pddp-oc"), Default::default())
        .expect("an alternative split");
    tree.grow(&data.matrix, &spec("pddp"), 5, SelectPolicy::Scatter)
        .expect("grows");
    assert_eq!(tree.leaves().len(), 5);
    let assigned = tree.assignments(data.matrix.cols());
    assert!(assigned.iter().all(|leaf| leaf.is_some_and(|l| l < 5)));
    // The shelved split is untouched by the growth.
    tree.switch_split(&data.matrix, 0, 0).expect("switches");
    assert_eq!(tree.leaves().len(), 3);
}

#[test]
fn keeping_the_active_split_drops_the_others_and_merging_drops_all() {
    let data = demo();
    let mut tree = grown(&data);
    tree.split_alternative_in(&data.matrix, 0, &spec("pddp-oc"), Default::default())
        .expect("an alternative split");
    let active = partition(&tree);
    assert_eq!(tree.keep_active_split(0).expect("kept"), 1);
    assert_eq!(tree.split_count(0), 1);
    assert_eq!(partition(&tree), active);
    assert!(tree.switch_split(&data.matrix, 0, 1).is_err());

    tree.split_alternative_in(&data.matrix, 0, &spec("pddp"), Default::default())
        .expect("another");
    tree.merge(0).expect("merges");
    assert_eq!(tree.split_count(0), 0);
    assert_eq!(tree.leaves(), vec![0]);
}

#[test]
fn a_saved_tree_keeps_its_alternatives_and_a_damaged_one_is_refused() {
    let data = demo();
    let mut tree = grown(&data);
    let first = partition(&tree);
    tree.split_alternative_in(&data.matrix, 0, &spec("pddp-oc"), Default::default())
        .expect("an alternative split");
    let json = serde_json::to_string(&tree).expect("serialises");
    let mut back: Tree = serde_json::from_str::<Tree>(&json)
        .expect("reads")
        .restore(&data)
        .expect("restores");
    assert_eq!(back.split_count(0), 2);
    back.switch_split(&data.matrix, 0, 0).expect("switches");
    assert_eq!(partition(&back), first);

    // A shelved node that claims a live node's id is refused.
    let mut value: serde_json::Value = serde_json::from_str(&json).expect("json");
    let root = &mut value["nodes"][0];
    root["alternatives"][0]["nodes"][0]["id"] = serde_json::json!(1);
    let damaged: Tree = serde_json::from_value(value).expect("still a tree's shape");
    assert!(damaged.restore(&data).is_err());
}

#[test]
fn shelved_subtrees_keep_no_centroids() {
    let data = demo();
    let mut tree = grown(&data);
    let one_split = tree.stored_centroid_entries();
    for rule in ["pddp-oc", "bisecting-kmeans", "pdgp"] {
        tree.split_alternative_in(&data.matrix, 0, &spec(rule), Default::default())
            .expect("an alternative split");
    }
    // Only the active tree's leaves keep centroids: at most the matrix's non-zeros, however many alternatives.
    assert!(tree.stored_centroid_entries() <= data.matrix.nnz().max(one_split));
}

#[test]
fn the_comparison_of_splits_lists_each_with_its_figures_and_sides() {
    let data = demo();
    let mut tree = grown(&data);
    tree.split_alternative_in(&data.matrix, 0, &spec("pddp-oc"), Default::default())
        .expect("an alternative split");
    let labels: Vec<Option<u32>> = data.documents.iter().map(|d| d.label).collect();
    let names = data.matrix.row_words();
    let summaries = pdx::report::compare::compare_splits(
        &tree,
        Words::of(&data),
        0,
        Some((&labels, data.label_names.len())),
        5,
    )
    .expect("compares");
    assert_eq!(summaries.len(), 2);
    assert_eq!(summaries[0].rule, spec("pddp").text());
    assert!(!summaries[0].active && summaries[1].active);
    for summary in &summaries {
        assert_eq!(
            summary.child_sizes.iter().sum::<usize>(),
            tree.node(0).expect("root").size()
        );
        assert_eq!(summary.sides.len(), summary.child_sizes.len());
        assert!(
            summary
                .sides
                .iter()
                .all(|side| !side.is_empty() && side.len() <= 5)
        );
        assert!(summary.objective_after < summary.objective_before);
        let figures = summary.figures.as_ref().expect("the demo has labels");
        assert!((0.0..=1.0).contains(&figures.purity));
    }
    // Each side's first term weighs more in that child than in the other.
    let (_, children) = tree.split_children(0, 0).expect("the first split");
    let first = &summaries[0].sides[0][0].term;
    let row = names.iter().position(|n| n == first).expect("a term");
    let weight = |members: &[usize]| data.matrix.centroid(members)[row];
    assert!(weight(&children[0].members) > weight(&children[1].members));
}

#[test]
fn two_nodes_compare_by_their_top_terms_in_three_columns() {
    let data = demo();
    let tree = grown(&data);
    let leaves = tree.leaves();
    let comparison =
        pdx::report::compare::compare_nodes(&tree, Words::of(&data), leaves[0], leaves[2], 10)
            .expect("compares");
    assert_eq!(comparison.common_members, 0);
    assert_eq!(comparison.only_a.len() + comparison.shared.len(), 10);
    assert_eq!(comparison.only_b.len() + comparison.shared.len(), 10);
    assert!(
        comparison
            .only_a
            .iter()
            .all(|t| !comparison.only_b.iter().any(|u| u.term == t.term))
    );
    // A node against its ancestor: every member in common, and the same top terms are shared.
    let with_root = pdx::report::compare::compare_nodes(&tree, Words::of(&data), 0, leaves[0], 10)
        .expect("compares");
    assert_eq!(with_root.common_members, with_root.size_b);
    let self_compare =
        pdx::report::compare::compare_nodes(&tree, Words::of(&data), 0, 0, 10).expect("compares");
    assert_eq!(self_compare.shared.len(), 10);
    assert!(self_compare.only_a.is_empty() && self_compare.only_b.is_empty());
}

#[test]
fn shelved_nodes_are_listed_nested_alternatives_included() {
    let data = demo();
    // The root split into #1 #2, #1 into #3 #4.
    let mut tree = grown(&data);
    assert!(tree.shelved_nodes().is_empty());
    // #1 split again: #3 #4 are shelved in #1, #5 #6 active.
    tree.split_alternative_in(&data.matrix, 1, &spec("pddp-oc"), Default::default())
        .expect("an alternative of #1");
    let mut shelved = tree.shelved_nodes();
    shelved.sort_unstable();
    assert_eq!(shelved, vec![3, 4]);
    // The root split again: #1 (holding its own alternative) #2 #5 #6 are shelved in the root.
    tree.split_alternative_in(&data.matrix, 0, &spec("pddp-oc"), Default::default())
        .expect("an alternative of the root");
    let mut shelved = tree.shelved_nodes();
    shelved.sort_unstable();
    assert_eq!(shelved, vec![1, 2, 3, 4, 5, 6]);
    assert!(shelved.iter().all(|&id| tree.node(id).is_none()));
}

#[test]
fn the_same_split_again_is_refused_and_changes_nothing() {
    let data = demo();
    let mut tree = grown(&data);
    let before = tree.clone();
    assert_eq!(tree.split_by(0, &spec("pddp")), Some(0));
    assert_eq!(tree.split_by(0, &spec("pddp-oc")), None);
    let error = tree
        .split_alternative_in(&data.matrix, 0, &spec("pddp"), Default::default())
        .expect_err("the root has this split");
    assert_eq!(error.to_string(), "the same split exists: 1 of 1");
    assert_eq!(tree, before);
}
