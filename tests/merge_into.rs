//! Leaves merged into other leaves anywhere in the tree ("merge into"): the structure after the merge (the leaf
//! gone, its parent one node with the sibling or one child fewer), the tree still a tree with every figure as
//! computed from scratch, the refusals, a saved tree read back, the reports, and the replay on a rebuilt matrix
//! redoing the merges in their place among the splits.

use proptest::prelude::*;

use pdx::cluster::{MergeError, SelectPolicy, Tree, TreeError};
use pdx::dataset::{self, Dataset, DatasetOptions, Reweigh};
use pdx::report;

mod common;

use common::trees::check_tree;
use common::{spec, spec_with};

fn demo() -> Dataset {
    dataset::open_demo(&DatasetOptions::default())
        .expect("demo")
        .dataset
}

/// The demo grown to `k` leaves with PDDP.
fn grown(data: &Dataset, k: usize) -> Tree {
    let mut tree = Tree::for_dataset(data);
    tree.grow(&data.matrix, &spec("pddp"), k, SelectPolicy::Scatter)
        .expect("grows");
    tree
}

/// The demo's six PDDP leaves, whose medicine is split across the root's two branches:
/// `0 → [1 → [3 → [7, 8], 4], 2 → [5, 6 → [9, 10]]]`.
fn six(data: &Dataset) -> Tree {
    let tree = grown(data, 6);
    let children = |id: usize| tree.node(id).expect("live").children.clone();
    assert_eq!(children(0), [1, 2]);
    assert_eq!(children(1), [3, 4]);
    assert_eq!(children(2), [5, 6]);
    assert_eq!(children(3), [7, 8]);
    assert_eq!(children(6), [9, 10]);
    tree
}

fn members(tree: &Tree, id: usize) -> Vec<usize> {
    tree.node(id).expect("live").members.to_vec()
}

/// `a` and `b` together, ascending.
fn union(a: &[usize], b: &[usize]) -> Vec<usize> {
    let mut all = [a, b].concat();
    all.sort_unstable();
    all
}

/// A node as [`shape`] lists it: its id, parent, children, members and the rule of its split.
type NodeShape = (usize, Option<usize>, Vec<usize>, Vec<usize>, Option<String>);

/// Every live node, in depth-first order.
fn shape(tree: &Tree) -> Vec<NodeShape> {
    tree.depth_first()
        .into_iter()
        .map(|id| {
            let node = tree.node(id).expect("live");
            let rule = node.split.as_ref().map(|s| s.rule.text());
            (
                id,
                node.parent,
                node.children.clone(),
                node.members.to_vec(),
                rule,
            )
        })
        .collect()
}

#[test]
fn merging_into_a_leaf_in_another_branch_makes_the_parent_one_node_with_the_sibling() {
    let data = demo();
    let mut tree = six(&data);
    tree.set_name(9, Some("cooking".into())).expect("named");
    let before = tree.clone();
    let record = tree.merge_into(&data.matrix, 10, 7).expect("merges");
    assert_eq!(record.from, 10);
    assert_eq!(record.to, 7);
    assert_eq!(record.columns, members(&before, 10));
    assert_eq!(record.parent, 6);
    assert_eq!(record.absorbed_sibling, Some(9));
    let above: Vec<(usize, Vec<usize>)> = (record.splits_above.iter())
        .map(|split| (split.node, split.children.clone()))
        .collect();
    assert_eq!(
        above,
        [
            (0, vec![1, 2]),
            (2, vec![5, 6]),
            (6, vec![9, 10]),
            (1, vec![3, 4]),
            (3, vec![7, 8])
        ]
    );
    assert_eq!(record.next_id, 11);
    assert_eq!(record.moves_before, 0);
    assert_eq!(tree.manual_merges(), &[record]);

    assert!(tree.node(10).is_none(), "the merged leaf is gone");
    assert!(
        tree.node(9).is_none(),
        "the sibling is one node with its parent"
    );
    let parent = tree.node(6).expect("the parent keeps its id");
    assert!(parent.is_leaf());
    assert_eq!(parent.parent, Some(2));
    assert_eq!(parent.members.to_vec(), members(&before, 9));
    assert_eq!(
        parent.scatter.to_bits(),
        before.node(9).expect("live").scatter.to_bits()
    );
    assert_eq!(
        parent.name.as_deref(),
        Some("cooking"),
        "the sibling's name"
    );
    assert!(
        parent.stored_centroid().is_some(),
        "a leaf keeps its centroid"
    );
    assert_eq!(tree.node(2).expect("live").children, [5, 6]);
    assert_eq!(
        members(&tree, 7),
        union(&members(&before, 7), &members(&before, 10))
    );
    for id in [1, 3] {
        assert_eq!(
            tree.node(id).expect("live").size(),
            before.node(id).expect("live").size() + 17
        );
    }
    assert_eq!(tree.node(2).expect("live").size(), 53 + 38 - 17);
    assert_eq!(members(&tree, 0), members(&before, 0));
    assert_eq!(tree.leaves(), [7, 8, 4, 5, 6]);
    check_tree(&tree, &data);
}

#[test]
fn merging_into_a_leaf_under_the_sibling_gives_the_parent_the_siblings_split() {
    let data = demo();
    let mut tree = six(&data);
    tree.set_name(1, Some("left".into())).expect("named");
    tree.set_name(3, Some("sibling".into())).expect("named");
    let before = tree.clone();
    tree.merge_into(&data.matrix, 4, 8).expect("merges");
    assert!(tree.node(4).is_none() && tree.node(3).is_none());
    let parent = tree.node(1).expect("the parent keeps its id");
    assert_eq!(parent.children, [7, 8]);
    assert_eq!(parent.split, before.node(3).expect("live").split);
    assert_eq!(
        parent.name.as_deref(),
        Some("left"),
        "the parent's own name stays"
    );
    assert_eq!(
        parent.members.to_vec(),
        members(&before, 1),
        "nothing left the parent"
    );
    assert_eq!(
        parent.direction.as_ref().map(|d| d.len()),
        Some(parent.size()),
        "the sibling's start vector, one entry per member"
    );
    assert_eq!(tree.node(7).expect("live").parent, Some(1));
    assert_eq!(
        members(&tree, 8),
        union(&members(&before, 8), &members(&before, 4))
    );
    assert_eq!(members(&tree, 7), members(&before, 7));
    assert_eq!(tree.node(0).expect("live").children, [1, 2]);
    check_tree(&tree, &data);
}

#[test]
fn under_a_k_way_parent_the_leaf_is_removed_and_the_root_keeps_its_id() {
    let data = demo();
    let mut tree = Tree::for_dataset(&data);
    let three = spec_with("kmeans", |params| params.k_way = 3);
    let children = tree.split(&data.matrix, 0, &three).expect("splits");
    assert_eq!(children, [1, 2, 3]);
    let split = tree.node(0).expect("root").split.clone();
    let record = tree.merge_into(&data.matrix, 2, 3).expect("merges");
    assert_eq!(record.absorbed_sibling, None);
    let root = tree.node(0).expect("root");
    assert_eq!(root.children, [1, 3]);
    assert_eq!(
        root.split, split,
        "the split record stays, of fewer children"
    );
    check_tree(&tree, &data);
    // Two children left: merging one makes the root one node with the other, as the root.
    let all = members(&tree, 0);
    tree.merge_into(&data.matrix, 1, 3).expect("merges");
    assert_eq!(tree.root(), 0);
    assert_eq!(tree.leaves(), [0]);
    let root = tree.node(0).expect("root");
    assert_eq!((root.parent, root.split.as_ref()), (None, None));
    assert_eq!(root.members.to_vec(), all);
    check_tree(&tree, &data);
    assert_eq!(
        tree.merge_into(&data.matrix, 0, 0),
        Err(MergeError::OnlyLeaf(0))
    );
}

#[test]
fn refused_merges_say_why_and_change_nothing() {
    let data = demo();
    let mut tree = six(&data);
    let before = tree.clone();
    let cases = [
        ((3, 7), MergeError::NotALeaf(3)),
        ((10, 3), MergeError::NotALeaf(3)),
        ((7, 7), MergeError::SameLeaf(7)),
        ((99, 7), MergeError::NoSuchNode(99)),
        ((7, 99), MergeError::NoSuchNode(99)),
    ];
    for ((from, to), refusal) in cases {
        assert_eq!(tree.merge_into(&data.matrix, from, to), Err(refusal));
        assert_eq!(tree, before);
    }
    assert_eq!(tree.merge_refusal(3), Some(MergeError::NotALeaf(3)));
    assert_eq!(tree.merge_refusal(10), None);
    let error = tree.merge_into(&data.matrix, 3, 7).expect_err("refused");
    assert!(
        error.to_string().contains("node 3 is not a leaf"),
        "{error}"
    );
}

#[test]
fn a_node_with_alternatives_on_the_way_or_as_the_parent_refuses_the_merge() {
    let data = demo();
    let three = spec_with("kmeans", |params| params.k_way = 3);
    // Node 2 loses the documents of 10 on their way to 7.
    let mut tree = six(&data);
    tree.split_alternative_in(&data.matrix, 2, &three, Default::default())
        .expect("another split");
    tree.switch_split(&data.matrix, 2, 0)
        .expect("back to the first");
    let before = tree.clone();
    assert_eq!(
        tree.merge_into(&data.matrix, 10, 7),
        Err(MergeError::Alternatives { node: 2, count: 1 })
    );
    assert_eq!(tree, before);
    // Between two leaves under it, its members stay: the merge goes ahead.
    tree.merge_into(&data.matrix, 10, 9)
        .expect("merges under node 2");
    check_tree(&tree, &data);

    // The parent's split is rewritten: refused whatever the target, and said before one is chosen.
    let mut tree = six(&data);
    tree.split_alternative_in(&data.matrix, 6, &three, Default::default())
        .expect("another split");
    tree.switch_split(&data.matrix, 6, 0)
        .expect("back to the first");
    let refusal = MergeError::Alternatives { node: 6, count: 1 };
    assert_eq!(tree.merge_refusal(10), Some(refusal.clone()));
    assert_eq!(tree.merge_into(&data.matrix, 10, 9), Err(refusal.clone()));
    // The sibling that would become one node with the parent: refused too.
    let mut tree = six(&data);
    tree.split_alternative_in(&data.matrix, 3, &three, Default::default())
        .expect("another split");
    tree.switch_split(&data.matrix, 3, 0)
        .expect("back to the first");
    assert_eq!(
        tree.merge_refusal(4),
        Some(MergeError::Alternatives { node: 3, count: 1 })
    );
    assert_eq!(tree.merge_refusal(10), None, "elsewhere the merge can go");
}

#[test]
fn a_tree_with_merges_saves_and_reads_back() {
    let data = demo();
    let mut tree = six(&data);
    let column = members(&tree, 5)[0];
    tree.move_documents(&data.matrix, &[column], 8)
        .expect("moves");
    tree.merge_into(&data.matrix, 10, 7).expect("merges");
    let text = serde_json::to_string(&tree).expect("serialises");
    assert!(text.contains("manual_merges"));
    let read: Tree = serde_json::from_str(&text).expect("reads");
    let restored = read.restore(&data).expect("restores");
    assert_eq!(restored, tree);
    assert_eq!(restored.manual_merges()[0].moves_before, 1);
    // Written before a merge kept its place among the moves: it reads as before them.
    let older = text.replace(",\"moves_before\":1", "");
    assert_ne!(older, text);
    let read: Tree = serde_json::from_str(&older).expect("reads");
    assert_eq!(read.manual_merges()[0].moves_before, 0);
    // A tree without merges writes no trace of them.
    assert!(
        !serde_json::to_string(&six(&data))
            .expect("serialises")
            .contains("merges")
    );
}

#[test]
fn a_damaged_merge_record_is_refused_when_read_back() {
    let data = demo();
    let mut tree = six(&data);
    tree.merge_into(&data.matrix, 10, 7).expect("merges");
    let text = serde_json::to_string(&tree).expect("serialises");
    for (from, to) in [
        ("\"from\":10,", "\"from\":99999,"),
        ("\"next_id\":11", "\"next_id\":12"),
        ("\"moves_before\":0", "\"moves_before\":3"),
    ] {
        let damaged = text.replace(from, to);
        assert_ne!(damaged, text, "{from}");
        let read: Tree = serde_json::from_str(&damaged).expect("reads");
        assert_eq!(read.restore(&data), Err(TreeError::ManualMerge(0)), "{to}");
    }
    let column = tree.manual_merges()[0].columns[0];
    let damaged = text.replacen(&format!("\"columns\":[{column}"), "\"columns\":[999999", 1);
    assert_ne!(damaged, text);
    let read: Tree = serde_json::from_str(&damaged).expect("reads");
    assert_eq!(read.restore(&data), Err(TreeError::ManualMerge(0)));
}

#[test]
fn the_reports_show_the_merged_tree_and_list_the_merge() {
    let data = demo();
    let mut tree = six(&data);
    tree.set_name(7, Some("medicine".into())).expect("named");
    let merged = members(&tree, 10);
    tree.merge_into(&data.matrix, 10, 7).expect("merges");
    let built = report::build(&data, &tree);
    assert_eq!(built.leaves.len(), 5);
    let json = serde_json::to_value(&built).expect("json");
    let merges = json["manual_merges"].as_array().expect("the merges");
    assert_eq!(merges.len(), 1);
    assert_eq!(
        (merges[0]["from"].as_u64(), merges[0]["to"].as_u64()),
        (Some(10), Some(7))
    );
    assert_eq!(merges[0]["to_name"], "medicine");
    assert_eq!(merges[0]["absorbed_sibling"], 9);
    let documents = merges[0]["documents"].as_array().expect("documents");
    assert_eq!(documents.len(), merged.len());
    assert_eq!(documents[0], data.documents[merged[0]].id.as_str());
    // Every document of the merged leaf is in the target leaf's row of the assignments.
    let target = built
        .leaves
        .iter()
        .position(|leaf| leaf.id == 7)
        .expect("the target leaf");
    for &column in &merged {
        assert_eq!(built.assignments[column], Some(target));
    }
    let newick = report::to_newick(&tree);
    assert!(newick.contains("'medicine'[size=69"), "{newick}");
    assert!(newick.contains("merged_in=1"), "{newick}");
    assert!(
        !newick.contains("n10[") && !newick.contains("n9["),
        "{newick}"
    );
    let plain = six(&data);
    let json = serde_json::to_value(report::build(&data, &plain)).expect("json");
    assert!(json.get("manual_merges").is_none());
    assert!(!report::to_newick(&plain).contains("merged_in"));
}

/// The tree replayed on the same data is the same tree: ids, structure, members, rules; and again from the
/// replayed one.
fn assert_replays_as_it_was(tree: &Tree, data: &Dataset) {
    let (replayed, report) = Tree::replay(tree, data, Default::default()).expect("replays");
    assert_eq!(shape(&replayed), shape(tree));
    assert!(report.stopped.is_empty(), "{:?}", report.stopped);
    check_tree(&replayed, data);
    let (again, _) = Tree::replay(&replayed, data, Default::default()).expect("replays");
    assert_eq!(shape(&again), shape(tree));
}

#[test]
fn a_replay_redoes_the_merge_where_it_was_made_among_the_splits() {
    let data = demo();
    let mut tree = six(&data);
    tree.merge_into(&data.matrix, 10, 7).expect("merges");
    // The target, medicine and finance together, split again: a split made after the merge, of its documents.
    let children = tree.split(&data.matrix, 7, &spec("pddp")).expect("splits");
    assert_eq!(children, [11, 12]);
    // Without the merge redone between the splits, node 6 would be split and 7 split without 10's documents.
    let (replayed, report) = Tree::replay(&tree, &data, Default::default()).expect("replays");
    assert_eq!((report.merges_replayed, report.merges_dropped), (1, 0));
    assert_eq!(report.replayed, 6, "the five splits of six leaves, and 7's");
    assert_eq!(shape(&replayed), shape(&tree));
    assert_eq!(replayed.manual_merges().len(), 1);
    assert_eq!(replayed.manual_merges()[0].from, 10);
    assert_eq!(replayed.manual_merges()[0].next_id, 11);
    assert_replays_as_it_was(&tree, &data);
}

#[test]
fn merges_and_moves_replay_in_their_order() {
    let data = demo();
    let mut tree = six(&data);
    // A document of 10 moved out before the merge, and one of the merged documents moved on after it.
    let (early, late) = (members(&tree, 10)[0], members(&tree, 10)[1]);
    tree.move_documents(&data.matrix, &[early], 5)
        .expect("moves");
    tree.merge_into(&data.matrix, 10, 7).expect("merges");
    tree.move_documents(&data.matrix, &[late], 4)
        .expect("moves");
    let (replayed, report) = Tree::replay(&tree, &data, Default::default()).expect("replays");
    assert_eq!((report.moves_replayed, report.moves_dropped), (2, 0));
    assert_eq!(report.merges_replayed, 1);
    assert_eq!(replayed.leaf_of(early), Some(5));
    assert_eq!(replayed.leaf_of(late), Some(4));
    assert_eq!(shape(&replayed), shape(&tree));
    check_tree(&replayed, &data);
}

#[test]
fn a_merge_is_redone_after_a_reweighting() {
    let data = demo();
    let mut tree = six(&data);
    tree.merge_into(&data.matrix, 10, 7).expect("merges");
    let settings = Reweigh {
        extra_stop_words: vec!["patients".into()],
        ..data.reweighing().expect("counts").clone()
    };
    let (rebuilt, _) = data.reweigh(&settings).expect("rebuilt");
    let (replayed, report) = Tree::replay(&tree, &rebuilt, Default::default()).expect("replays");
    assert_eq!((report.merges_replayed, report.merges_dropped), (1, 0));
    assert!(replayed.node(10).is_none() && replayed.node(9).is_none());
    assert_eq!(replayed.leaves().len(), 5);
    assert!(replayed.node(6).expect("the parent").is_leaf());
    check_tree(&replayed, &rebuilt);
}

#[test]
fn a_merge_whose_branch_was_merged_back_since_is_redone_from_its_record() {
    let data = demo();
    let mut tree = six(&data);
    tree.merge_into(&data.matrix, 10, 7).expect("merges");
    // The branch the merged leaf was in, merged back: the tree no longer has the splits that made it.
    tree.merge(2).expect("merged back");
    let (replayed, report) = Tree::replay(&tree, &data, Default::default()).expect("replays");
    assert_eq!((report.merges_replayed, report.merges_dropped), (1, 0));
    assert_eq!(shape(&replayed), shape(&tree));
    assert_replays_as_it_was(&tree, &data);
}

#[test]
fn a_merge_below_a_split_not_redone_puts_its_documents_back() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = common::folder_corpus(
        dir.path(),
        &[
            ("a.txt", "apple banana cherry"),
            ("b.txt", "apple banana durian"),
            ("c.txt", "walrus yak zebra"),
            ("d.txt", "walrus yak quokka"),
        ],
    );
    let column = |name: &str| {
        (data.documents.iter())
            .position(|d| d.id.ends_with(name))
            .expect("a document")
    };
    let mut tree = grown(&data, 4);
    let leaf = |name: &str| tree.leaf_of(column(name)).expect("a leaf");
    let (a, c) = (leaf("a.txt"), leaf("c.txt"));
    tree.merge_into(&data.matrix, a, c).expect("merges");
    // Without the two words that tell a and b apart, their node cannot be split: a's leaf is not made again.
    let settings = Reweigh {
        extra_stop_words: vec!["cherry".into(), "durian".into()],
        ..data.reweighing().expect("counts").clone()
    };
    let (rebuilt, _) = data.reweigh(&settings).expect("rebuilt");
    let (replayed, report) = Tree::replay(&tree, &rebuilt, Default::default()).expect("replays");
    assert_eq!(report.stopped.len(), 1, "{:?}", report.stopped);
    assert_eq!((report.merges_replayed, report.merges_dropped), (0, 1));
    assert_eq!(
        replayed.leaf_of(column("a.txt")),
        Some(c),
        "put back in the leaf it was merged into"
    );
    assert!(replayed.manual_merges().is_empty());
    check_tree(&replayed, &rebuilt);
}

#[derive(Debug, Clone)]
enum Edit {
    Split(usize),
    MergeInto(usize, usize),
    MergeBack(usize),
    /// Another split of a node, made active.
    Alternative(usize),
    /// Make another of a node's splits the active one.
    Switch(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (0usize..100).prop_map(Edit::Split),
        (0usize..100, 0usize..100).prop_map(|(a, b)| Edit::MergeInto(a, b)),
        (0usize..100).prop_map(Edit::MergeBack),
        (0usize..100).prop_map(Edit::Alternative),
        (0usize..100, 0usize..3).prop_map(|(a, b)| Edit::Switch(a, b)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Random splits, merges into other leaves, merges back and alternative splits keep the tree a tree with
    /// every figure as computed from scratch; the refused merges change nothing; and the tree replays on the same
    /// data as it is (its active splits: a replay leaves alternatives out).
    #[test]
    fn random_edits_keep_the_tree_and_replay_as_they_were(edits in prop::collection::vec(edit(), 1..14)) {
        let data = demo();
        let mut tree = grown(&data, 4);
        for edit in edits {
            let leaves = tree.leaves();
            let nodes = tree.depth_first();
            match edit {
                Edit::Split(pick) => {
                    // A leaf no rule can split stays a leaf.
                    let _ = tree.split(&data.matrix, leaves[pick % leaves.len()], &spec("pddp"));
                }
                Edit::MergeInto(a, b) => {
                    let (from, to) = (leaves[a % leaves.len()], leaves[b % leaves.len()]);
                    let before = tree.clone();
                    if tree.merge_into(&data.matrix, from, to).is_err() {
                        prop_assert_eq!(&tree, &before);
                    } else {
                        prop_assert!(tree.node(from).is_none());
                    }
                }
                Edit::MergeBack(pick) => {
                    let id = nodes[pick % nodes.len()];
                    tree.merge(id).expect("a live node merges back");
                }
                Edit::Alternative(pick) => {
                    // A deterministic rule: k-means draws its seeds by the node's id, which a replay gives the
                    // node only once its splits are done.
                    let id = nodes[pick % nodes.len()];
                    let _ = tree.split_alternative_in(&data.matrix, id, &spec("pddp-oc"), Default::default());
                }
                Edit::Switch(pick, index) => {
                    let id = nodes[pick % nodes.len()];
                    let _ = tree.switch_split(&data.matrix, id, index);
                }
            }
            check_tree(&tree, &data);
        }
        let (replayed, report) = Tree::replay(&tree, &data, Default::default()).expect("replays");
        prop_assert!(report.stopped.is_empty(), "{:?}", report.stopped);
        prop_assert_eq!(shape(&replayed), shape(&tree));
        let (again, _) = Tree::replay(&replayed, &data, Default::default()).expect("replays");
        prop_assert_eq!(shape(&again), shape(&tree));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A merge record changed by hand (ids within the tree's, so that reading it back takes it) never makes a
    /// replay panic: a split it names that cannot be redone is reported, a merge that cannot be is counted.
    #[test]
    fn a_replay_of_altered_merge_records_does_not_panic(
        changes in prop::collection::vec((0usize..6, 0usize..13), 1..6)
    ) {
        let data = demo();
        let mut tree = six(&data);
        tree.merge_into(&data.matrix, 10, 7).expect("merges");
        tree.merge_into(&data.matrix, 4, 8).expect("merges");
        let mut json = serde_json::to_value(&tree).expect("serialises");
        for (field, id) in changes {
            let record = &mut json["manual_merges"][id % 2];
            match field {
                0 => record["from"] = id.into(),
                1 => record["to"] = id.into(),
                2 => record["parent"] = id.into(),
                3 => record["absorbed_sibling"] = id.into(),
                4 => record["splits_above"][id % 3]["node"] = id.into(),
                _ => record["splits_above"][id % 3]["children"][id % 2] = id.into(),
            }
        }
        let read: Tree = serde_json::from_value(json).expect("reads");
        if let Ok(restored) = read.restore(&data) {
            let (replayed, _) = Tree::replay(&restored, &data, Default::default()).expect("replays");
            check_tree(&replayed, &data);
        }
    }
}
