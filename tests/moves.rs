//! Documents moved by hand: the tree stays a tree (children divide their parent, leaves partition the
//! documents), every changed figure is the one computed from scratch for the new members, and a saved tree
//! with moves reads back as it was.

use proptest::prelude::*;

use pdx::cluster::{ManualMove, MoveError, Tree};
use pdx::dataset::{self, Dataset, DatasetOptions};
use pdx::report;

mod common;

use common::spec;
use common::trees::check_tree;

fn demo() -> Dataset {
    dataset::open_demo(&DatasetOptions::default())
        .expect("demo")
        .dataset
}

/// The demo grown to five leaves with PDDP.
fn grown(data: &Dataset) -> Tree {
    let mut tree = Tree::for_dataset(data);
    tree.grow_in(
        &data.matrix,
        &spec("pddp"),
        5,
        pdx::cluster::SelectPolicy::Scatter,
        Default::default(),
    )
    .expect("grows");
    tree
}

#[test]
fn a_move_changes_the_nodes_on_the_way_and_is_recorded() {
    let data = demo();
    let mut tree = grown(&data);
    let leaves = tree.leaves();
    let (from, to) = (leaves[0], leaves[leaves.len() - 1]);
    let column = tree.node(from).expect("leaf").members[0];
    let size_of = |tree: &Tree, id: usize| tree.node(id).expect("live").size();
    let (root_before, from_before, to_before) =
        (size_of(&tree, 0), size_of(&tree, from), size_of(&tree, to));
    let moves = tree
        .move_documents(&data.matrix, &[column], to)
        .expect("moves");
    assert_eq!(moves, vec![ManualMove { column, from, to }]);
    assert_eq!(tree.manual_moves(), &moves[..]);
    assert_eq!(tree.leaf_of(column), Some(to));
    check_tree(&tree, &data);
    // The root is the common ancestor of the first and the last leaf: its members stay.
    assert_eq!(size_of(&tree, 0), root_before);
    assert_eq!(size_of(&tree, from), from_before - 1);
    assert_eq!(size_of(&tree, to), to_before + 1);
}

#[test]
fn a_tree_with_moves_saves_and_reads_back() {
    let data = demo();
    let mut tree = grown(&data);
    let leaves = tree.leaves();
    let columns: Vec<usize> = tree.node(leaves[1]).expect("leaf").members[..3].to_vec();
    tree.move_documents(&data.matrix, &columns, leaves[3])
        .expect("moves");
    let text = serde_json::to_string(&tree).expect("serialises");
    assert!(text.contains("manual_moves"));
    let read: Tree = serde_json::from_str(&text).expect("reads");
    let restored = read.restore(&data).expect("restores");
    assert_eq!(restored, tree);
    assert_eq!(restored.manual_moves().len(), 3);
    // A file written before pdx moved documents has no such field, and reads as a tree without moves.
    let plain = serde_json::to_string(&grown(&data)).expect("serialises");
    assert!(!plain.contains("manual_moves"));
    let old: Tree = serde_json::from_str(&plain).expect("reads");
    assert!(
        old.restore(&data)
            .expect("restores")
            .manual_moves()
            .is_empty()
    );
}

#[test]
fn a_move_of_a_document_the_data_lacks_is_refused_when_read_back() {
    let data = demo();
    let mut tree = grown(&data);
    let leaves = tree.leaves();
    let column = tree.node(leaves[0]).expect("leaf").members[0];
    tree.move_documents(&data.matrix, &[column], leaves[1])
        .expect("moves");
    let text = serde_json::to_string(&tree)
        .expect("serialises")
        .replace(&format!("\"column\":{column},"), "\"column\":999999,");
    let read: Tree = serde_json::from_str(&text).expect("reads");
    assert_eq!(
        read.restore(&data),
        Err(pdx::cluster::TreeError::ManualMove(0))
    );
}

#[test]
fn the_reports_carry_the_moves_with_the_nodes_names() {
    let data = demo();
    let mut tree = grown(&data);
    let leaves = tree.leaves();
    let (from, to) = (leaves[0], leaves[2]);
    tree.set_name(to, Some("chosen".into())).expect("named");
    let column = tree.node(from).expect("leaf").members[0];
    tree.move_documents(&data.matrix, &[column], to)
        .expect("moves");
    let json = serde_json::to_value(report::build(&data, &tree)).expect("json");
    let moves = json["manual_moves"].as_array().expect("an array");
    assert_eq!(moves.len(), 1);
    assert_eq!(moves[0]["document"], data.documents[column].id.as_str());
    assert_eq!(moves[0]["from"], from);
    assert_eq!(moves[0]["to"], to);
    assert_eq!(moves[0]["to_name"], "chosen");
    assert_eq!(moves[0]["from_name"], format!("#{from}"));
    let nodes = json["tree"]["nodes"].as_array().expect("nodes");
    assert!(nodes.iter().any(|n| n["name"] == "chosen"));
    let newick = report::to_newick(&tree);
    assert!(newick.contains("'chosen'[size="), "{newick}");
    assert!(newick.contains("moved_in=1"), "{newick}");
    assert!(newick.contains(&format!("n{from}[size=")), "{newick}");
    assert!(newick.contains("moved_out=1"), "{newick}");
    // Without moves, no trace of them: `pdx cluster` writes what it wrote before.
    let plain = grown(&data);
    let json = serde_json::to_value(report::build(&data, &plain)).expect("json");
    assert!(json.get("manual_moves").is_none());
    assert!(!report::to_newick(&plain).contains("moved_"));
}

#[test]
fn refusals_name_the_leaf_and_leave_the_tree_as_it_was() {
    let data = demo();
    let mut tree = grown(&data);
    let before = tree.clone();
    let leaves = tree.leaves();
    let all: Vec<usize> = tree.node(leaves[0]).expect("leaf").members.to_vec();
    let error = tree
        .move_documents(&data.matrix, &all, leaves[1])
        .expect_err("would empty a leaf");
    assert!(matches!(error, MoveError::WouldEmpty { leaf, .. } if leaf == leaves[0]));
    assert!(error.to_string().contains(&format!("node {}", leaves[0])));
    assert_eq!(tree, before);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Random moves of random documents between random leaves keep the tree a tree, with every figure as
    /// computed from scratch; the refused ones change nothing.
    #[test]
    fn random_moves_keep_the_partition(steps in prop::collection::vec((0usize..1000, 1usize..4, 0usize..1000), 1..6)) {
        let data = demo();
        let mut tree = grown(&data);
        let mut recorded = 0;
        for (pick, count, target) in steps {
            let root = tree.node(tree.root()).expect("root").members.to_vec();
            let columns: Vec<usize> = (0..count).map(|i| root[(pick + 37 * i) % root.len()]).collect();
            let leaves = tree.leaves();
            let to = leaves[target % leaves.len()];
            let before = tree.clone();
            match tree.move_documents(&data.matrix, &columns, to) {
                Ok(moves) => {
                    recorded += moves.len();
                    for step in &moves {
                        prop_assert_eq!(tree.leaf_of(step.column), Some(to));
                    }
                }
                Err(_) => prop_assert_eq!(&tree, &before),
            }
            prop_assert_eq!(tree.manual_moves().len(), recorded);
        }
        check_tree(&tree, &data);
    }
}
