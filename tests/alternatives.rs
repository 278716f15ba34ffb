//! Alternatives: a node split again keeps its first split, with the subtree under it, and either can be made
//! active, kept alone, saved and read back.

use pdx::cluster::{SelectPolicy, Tree};
use pdx::dataset::{self, Dataset, DatasetOptions};

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
    for rule in ["pddp-oc", "bisecting-kmeans", "pddp"] {
        tree.split_alternative_in(&data.matrix, 0, &spec(rule), Default::default())
            .expect("an alternative split");
    }
    // Only the active tree's leaves keep centroids: at most the matrix's non-zeros, however many alternatives.
    assert!(tree.stored_centroid_entries() <= data.matrix.nnz().max(one_split));
}
