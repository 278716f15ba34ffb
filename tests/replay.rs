//! Rebuilding a dataset's matrix from the counts it keeps (`Dataset::reweigh`) and replaying a tree's splits on
//! the rebuilt matrix (`Tree::replay`).

use pdx::cluster::{SelectPolicy, Tree};
use pdx::dataset::{self, Dataset, DatasetOptions, Reweigh, ReweighError};
use pdx::text::{TextError, TextOption, TextOptions};
use pdx::weighting::Weighting;

mod common;

use common::spec;

fn demo() -> Dataset {
    dataset::open_demo(&DatasetOptions::default())
        .expect("demo")
        .dataset
}

fn settings(data: &Dataset) -> Reweigh {
    data.reweighing()
        .expect("a text dataset keeps its counts")
        .clone()
}

/// Each node's members, by path from the root.
fn members_by_path(tree: &Tree) -> Vec<(Vec<usize>, Vec<usize>)> {
    tree.depth_first()
        .into_iter()
        .map(|id| {
            let node = tree.node(id).expect("live");
            (tree.path_of(id), node.members.to_vec())
        })
        .collect()
}

#[test]
fn reweighing_with_the_loaded_settings_gives_the_same_matrix() {
    let data = demo();
    let (again, report) = data.reweigh(&settings(&data)).expect("rebuilt");
    assert_eq!(again.matrix, data.matrix);
    assert_eq!(again.documents, data.documents);
    assert_eq!(report.terms_before, report.terms_after);
    assert_eq!((report.newly_empty, report.no_longer_empty), (0, 0));
}

#[test]
fn a_stop_word_removes_its_term_and_nothing_else() {
    let data = demo();
    let row = 5;
    let word = data.matrix.row_words()[row].clone();
    let stem = data.matrix.row_names()[row].clone();
    let mut wanted = settings(&data);
    wanted.extra_stop_words.push(word.to_uppercase());
    let (rebuilt, report) = data.reweigh(&wanted).expect("rebuilt");
    assert_eq!(report.terms_after, data.matrix.rows() - 1);
    assert_eq!(report.dropped_terms, vec![word.clone()]);
    assert!(!rebuilt.matrix.row_names().contains(&stem));
    let mut expected_terms = data.matrix.row_names().to_vec();
    expected_terms.remove(row);
    assert_eq!(rebuilt.matrix.row_names(), expected_terms.as_slice());
    assert_eq!(rebuilt.matrix.cols(), data.matrix.cols());
    assert_eq!(
        rebuilt.reweighing().map(|r| r.extra_stop_words.clone()),
        Some(vec![word.clone()]),
        "the applied settings remember the word, lower-cased"
    );
    // The stem as written names the same term.
    let by_stem = Reweigh {
        extra_stop_words: vec![stem],
        ..settings(&data)
    };
    assert_eq!(
        data.reweigh(&by_stem).expect("rebuilt").0.matrix,
        rebuilt.matrix
    );
}

#[test]
fn a_rebuild_names_what_it_cannot_do() {
    let data = demo();
    let unknown = Reweigh {
        extra_stop_words: vec!["qqqzzzx".into()],
        ..settings(&data)
    };
    match data.reweigh(&unknown) {
        Err(ReweighError::UnknownWord { word }) => assert_eq!(word, "qqqzzzx"),
        other => panic!("expected an unknown word, got {other:?}"),
    }
    let out_of_range = Reweigh {
        max_df: 1.5,
        ..settings(&data)
    };
    match data.reweigh(&out_of_range) {
        Err(ReweighError::Text(TextError::OutOfRange { option, .. })) => {
            assert_eq!(option, TextOption::MaxDf)
        }
        other => panic!("expected max_df out of range, got {other:?}"),
    }
    let nothing_left = Reweigh {
        min_df: 100_000,
        ..settings(&data)
    };
    assert!(matches!(
        data.reweigh(&nothing_left),
        Err(ReweighError::NoTermsLeft { .. })
    ));
}

#[test]
fn loosening_a_df_limit_brings_terms_back_as_a_load_would() {
    let strict = dataset::open_demo(&DatasetOptions {
        text: TextOptions {
            min_df: 4,
            ..TextOptions::default()
        },
        ..DatasetOptions::default()
    })
    .expect("demo")
    .dataset;
    let loose = demo();
    assert!(strict.matrix.rows() < loose.matrix.rows());
    let (rebuilt, report) = strict
        .reweigh(&Reweigh {
            min_df: 2,
            ..settings(&strict)
        })
        .expect("rebuilt");
    assert_eq!(report.terms_after, loose.matrix.rows());
    assert_eq!(rebuilt.matrix, loose.matrix);
    // Another weighting, as a load with it would make.
    let binary = Weighting::parse("bxc").expect("a code");
    let loaded = dataset::open_demo(&DatasetOptions {
        weighting: Some(binary),
        ..DatasetOptions::default()
    })
    .expect("demo")
    .dataset;
    let (reweighed, _) = loose
        .reweigh(&Reweigh {
            weighting: binary,
            ..settings(&loose)
        })
        .expect("rebuilt");
    assert_eq!(reweighed.matrix, loaded.matrix);
    assert_eq!(reweighed.weighting, binary);
}

#[test]
fn a_document_left_without_terms_stays_as_an_empty_column() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let data = common::folder_corpus(
        dir.path(),
        &[
            ("a.txt", "apple banana cherry"),
            ("b.txt", "apple banana durian"),
            ("c.txt", "walrus"),
        ],
    );
    let walrus = data
        .documents
        .iter()
        .position(|d| d.id.contains("c.txt"))
        .expect("c.txt is a document");
    let (rebuilt, report) = data
        .reweigh(&Reweigh {
            extra_stop_words: vec!["walrus".into()],
            ..settings(&data)
        })
        .expect("rebuilt");
    assert_eq!(rebuilt.matrix.cols(), 3);
    assert_eq!(report.newly_empty, 1);
    assert!(rebuilt.documents[walrus].empty);
    assert_eq!(rebuilt.empty_documents.len(), 1);
    let tree = Tree::for_dataset(&rebuilt);
    assert_eq!(tree.excluded, vec![walrus]);
    // And back: the word is no longer a stop word.
    let (back, report) = rebuilt.reweigh(&settings(&data)).expect("rebuilt");
    assert_eq!(report.no_longer_empty, 1);
    assert_eq!(back.matrix, data.matrix);
    assert!(back.empty_documents.is_empty());
}

#[test]
fn replaying_on_the_same_matrix_gives_the_same_tree() {
    let data = demo();
    let mut tree = Tree::for_dataset(&data);
    tree.grow(&data.matrix, &spec("pddp"), 8, SelectPolicy::Scatter)
        .expect("grows");
    let leaf = tree.leaves()[2];
    tree.split(&data.matrix, leaf, &spec("kmeans"))
        .expect("a 2-means split");
    tree.set_name(leaf, Some("named".into())).expect("named");
    let (replayed, report) = Tree::replay(&tree, &data, Default::default()).expect("replays");
    assert_eq!(members_by_path(&replayed), members_by_path(&tree));
    assert_eq!(replayed.depth_first(), tree.depth_first(), "the same ids");
    assert_eq!(report.replayed, 8);
    assert!(report.stopped.is_empty());
    assert_eq!(report.leaves.len(), tree.leaves().len());
    assert!(report.moved().is_empty());
    assert!(
        report
            .leaves
            .iter()
            .all(|leaf| leaf.shared == leaf.old_size && leaf.shared == leaf.new_size),
        "the same tree shares every document"
    );
    assert_eq!(
        replayed.node(leaf).and_then(|n| n.name.as_deref()),
        Some("named")
    );
    for id in tree.depth_first() {
        let (old, new) = (
            tree.node(id).expect("live"),
            replayed.node(id).expect("live"),
        );
        assert_eq!(old.split, new.split, "#{id}'s split record");
    }
}

#[test]
fn replaying_after_a_stop_word_reports_how_the_leaves_moved() {
    let data = demo();
    let mut tree = Tree::for_dataset(&data);
    tree.grow(&data.matrix, &spec("pddp"), 6, SelectPolicy::Scatter)
        .expect("grows");
    // The heaviest word of the root's first child: the one most likely to move documents.
    let first = tree.node(tree.root()).expect("root").children[0];
    let centroid = tree.dense_centroid(&data.matrix, first).expect("centroid");
    let heaviest = (0..centroid.len())
        .max_by(|&a, &b| centroid[a].total_cmp(&centroid[b]))
        .expect("terms");
    let word = data.matrix.row_words()[heaviest].clone();
    let (rebuilt, _) = data
        .reweigh(&Reweigh {
            extra_stop_words: vec![word],
            ..settings(&data)
        })
        .expect("rebuilt");
    let (replayed, report) = Tree::replay(&tree, &rebuilt, Default::default()).expect("replays");
    assert_eq!(report.replayed, 5);
    assert_eq!(replayed.leaves().len(), 6);
    assert_eq!(report.leaves.len(), 6);
    let sizes: usize = report.leaves.iter().map(|l| l.new_size).sum();
    assert_eq!(
        sizes,
        rebuilt.matrix.cols() - rebuilt.documents.iter().filter(|d| d.empty).count()
    );
    for leaf in &report.leaves {
        assert!(replayed.node(leaf.new_node).is_some_and(|n| n.is_leaf()));
        assert_eq!(tree.node(leaf.old_node).expect("old").size(), leaf.old_size);
        let (before, after) = (
            &tree.node(leaf.old_node).expect("old").members,
            &replayed.node(leaf.new_node).expect("new").members,
        );
        let shared = before.iter().filter(|d| after.contains(d)).count();
        assert_eq!(
            leaf.shared, shared,
            "documents in both leaves at {:?}",
            leaf.path
        );
        let moved = leaf.new_size.abs_diff(leaf.old_size) as f64 > 0.05 * leaf.old_size as f64
            || (leaf.old_size - leaf.shared) as f64 > 0.05 * leaf.old_size as f64;
        assert_eq!(report.moved().iter().any(|m| m.path == leaf.path), moved);
    }
    assert_ne!(
        members_by_path(&replayed),
        members_by_path(&tree),
        "dropping the heaviest word of a branch moves some documents"
    );
}

#[test]
fn a_split_that_can_no_longer_be_made_stops_its_branch() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let data = common::folder_corpus(
        dir.path(),
        &[
            ("a.txt", "apple banana cherry"),
            ("b.txt", "apple banana durian"),
            ("c.txt", "walrus yak zebra"),
        ],
    );
    let mut tree = Tree::for_dataset(&data);
    let children = tree
        .split(&data.matrix, 0, &spec("pddp"))
        .expect("root splits");
    let pair = children
        .iter()
        .copied()
        .find(|&c| tree.node(c).is_some_and(|n| n.size() == 2))
        .expect("a, b together");
    tree.split(&data.matrix, pair, &spec("pddp"))
        .expect("the pair splits");
    // Without the two words that tell them apart, a and b are the same vector.
    let (rebuilt, _) = data
        .reweigh(&Reweigh {
            extra_stop_words: vec!["cherry".into(), "durian".into()],
            ..settings(&data)
        })
        .expect("rebuilt");
    let (replayed, report) = Tree::replay(&tree, &rebuilt, Default::default()).expect("replays");
    assert_eq!(report.replayed, 1);
    assert_eq!(report.stopped.len(), 1);
    let stopped = &report.stopped[0];
    assert_eq!(stopped.old_node, pair);
    assert_eq!(stopped.new_node, pair, "the node keeps its id");
    assert_eq!(stopped.path, tree.path_of(pair));
    assert!(
        stopped.reason.contains("scatter is zero"),
        "{}",
        stopped.reason
    );
    assert_eq!(replayed.leaves().len(), 2);
    assert_eq!(report.unmatched_leaves, 2);
    assert_eq!(report.leaves.len(), 1);
}

#[test]
fn documents_moved_by_hand_go_back_to_their_leaves_after_a_replay() {
    let data = demo();
    let mut tree = Tree::for_dataset(&data);
    tree.grow(&data.matrix, &spec("pddp"), 4, SelectPolicy::Scatter)
        .expect("grows");
    let leaves = tree.leaves();
    let (from, to) = (leaves[0], leaves[3]);
    let moved: Vec<usize> = tree.node(from).expect("leaf").members[..2].to_vec();
    tree.move_documents(&data.matrix, &moved, to)
        .expect("moves");
    // Without the moves replayed, the splits alone would put the documents back where PDDP sent them.
    let (replayed, report) = Tree::replay(&tree, &data, Default::default()).expect("replays");
    assert_eq!(report.moves_replayed, 2);
    assert_eq!(report.moves_dropped, 0);
    assert_eq!(members_by_path(&replayed), members_by_path(&tree));
    let receiving = report
        .leaves
        .iter()
        .find(|leaf| leaf.old_node == to)
        .expect("the target leaf is matched");
    assert_eq!(receiving.shared, receiving.old_size);
    for &column in &moved {
        assert_eq!(replayed.leaf_of(column), Some(to));
    }
    assert_eq!(
        replayed.manual_moves().len(),
        2,
        "the new tree records them"
    );
}

#[test]
fn a_split_whose_sides_swap_is_followed_by_its_documents_not_its_order() {
    // On the demo's four-leaf tree, dropping "minutes" turns the direction of the root's second child around:
    // its old first child comes out second, with the same documents. The replay follows the documents.
    let data = demo();
    let mut tree = Tree::for_dataset(&data);
    tree.grow(&data.matrix, &spec("pddp"), 4, SelectPolicy::Scatter)
        .expect("grows");
    let (rebuilt, _) = data
        .reweigh(&Reweigh {
            extra_stop_words: vec!["minutes".into()],
            ..settings(&data)
        })
        .expect("rebuilt");
    let (replayed, report) = Tree::replay(&tree, &rebuilt, Default::default()).expect("replays");
    let first = report
        .leaves
        .iter()
        .find(|leaf| leaf.path == [1, 0])
        .expect("the first child of the root's second child is a leaf");
    assert_eq!(
        replayed.node_at(&[1, 1]),
        Some(first.new_node),
        "the sides came out the other way round"
    );
    assert_eq!(
        first.new_node, first.old_node,
        "the leaf keeps its id: its documents, not its place, make it"
    );
    assert_eq!(
        first.shared, first.old_size,
        "and every document is found again"
    );
    for leaf in &report.leaves {
        assert!(2 * leaf.shared > leaf.old_size, "{leaf:?}");
    }
}

#[test]
fn every_node_a_replay_finds_again_keeps_its_id() {
    // A merge and a shelved alternative leave ids the tree will not give again; a replay redoes the active splits
    // only, and still gives each node the id the analyst knew it by.
    let data = demo();
    let mut tree = Tree::for_dataset(&data);
    let root = tree.root();
    let sides = tree.split(&data.matrix, root, &spec("pddp")).expect("root");
    tree.split(&data.matrix, sides[0], &spec("pddp"))
        .expect("first side");
    tree.merge(sides[0]).expect("merged back");
    tree.split(&data.matrix, sides[1], &spec("pddp"))
        .expect("second side");
    tree.grow(&data.matrix, &spec("pddp"), 6, SelectPolicy::Scatter)
        .expect("grows");
    let (replayed, report) = Tree::replay(&tree, &data, Default::default()).expect("replays");
    assert!(report.stopped.is_empty());
    assert_eq!(replayed.depth_first(), tree.depth_first(), "the same ids");
    for id in tree.depth_first() {
        assert_eq!(
            replayed.node(id).expect("live").members,
            tree.node(id).expect("live").members,
            "#{id} holds the same documents"
        );
    }
    for leaf in &report.leaves {
        assert_eq!(leaf.new_node, leaf.old_node);
    }
    // The next split takes an id neither tree gave.
    let highest = tree.depth_first().into_iter().max().expect("nodes");
    let leaf = replayed.leaves()[0];
    let mut replayed = replayed;
    let children = replayed
        .split(&data.matrix, leaf, &spec("pddp"))
        .expect("splits");
    assert!(
        children.iter().all(|&child| child > highest),
        "{children:?} after #{highest}"
    );
}
