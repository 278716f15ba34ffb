//! Checks of a tree that hand edits (moves, merges into other leaves) must keep true.

use pdx::cluster::{RuleSpec, SelectPolicy, Tree};
use pdx::dataset::{self, Dataset, DatasetOptions};

/// `dataset`'s tree grown to `leaves` leaves by the default rule and policy.
pub fn grown(dataset: &Dataset, leaves: usize) -> Tree {
    let mut tree = Tree::for_dataset(dataset);
    tree.grow(
        &dataset.matrix,
        &RuleSpec::default(),
        leaves,
        SelectPolicy::default(),
    )
    .expect("the tree grows");
    tree
}

/// The demo corpus and a tree of `leaves` leaves grown by the default rule.
pub fn demo(leaves: usize) -> (Dataset, Tree) {
    let dataset = dataset::open_demo(&DatasetOptions::default())
        .expect("the demo opens")
        .dataset;
    let tree = grown(&dataset, leaves);
    (dataset, tree)
}

/// Every node's children divide its members and know it as their parent; every node's scatter and every leaf's
/// kept centroid are what a tree of the same members computes from scratch.
pub fn check_tree(tree: &Tree, data: &Dataset) {
    let mut covered: Vec<usize> = Vec::new();
    for id in tree.depth_first() {
        let node = tree.node(id).expect("live");
        assert!(
            node.members.windows(2).all(|pair| pair[0] < pair[1]),
            "#{id}'s members sorted"
        );
        if node.is_leaf() {
            assert!(node.size() > 0, "no empty leaf");
            covered.extend(node.members.iter());
        } else {
            assert!(node.split.is_some(), "#{id} has a split record");
            for &child in &node.children {
                let parent = tree.node(child).expect("a live child").parent;
                assert_eq!(parent, Some(id), "#{child} knows its parent");
            }
            let mut divided: Vec<usize> = node
                .children
                .iter()
                .flat_map(|&c| tree.node(c).expect("child").members.to_vec())
                .collect();
            divided.sort_unstable();
            assert_eq!(divided[..], node.members[..], "#{id}'s children divide it");
        }
        let fresh = Tree::new(&data.matrix, node.members.to_vec(), Vec::new());
        let fresh_root = fresh.node(fresh.root()).expect("root");
        assert_eq!(
            node.scatter.to_bits(),
            fresh_root.scatter.to_bits(),
            "#{id}'s scatter"
        );
        assert_eq!(
            tree.centroid(&data.matrix, id).expect("a centroid"),
            fresh
                .centroid(&data.matrix, fresh.root())
                .expect("a centroid"),
            "#{id}'s centroid"
        );
        if let Some(direction) = &node.direction {
            assert_eq!(direction.len(), node.size(), "#{id}'s start vector fits");
        }
    }
    covered.sort_unstable();
    let root = tree.node(tree.root()).expect("root");
    assert_eq!(
        covered[..],
        root.members[..],
        "the leaves partition the root"
    );
}
