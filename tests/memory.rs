//! What a cluster tree keeps grows with the data, not with the tree: grown to a leaf per document over a large
//! vocabulary, its nodes hold no more centroid entries than the matrix has non-zeros (issue 16: a dense
//! centroid per node took 3.15 GB on 20 Newsgroups' training half at 5,000 leaves).

use pdx::cluster::{SelectPolicy, Tree};
use pdx::matrix::DataMatrix;
use pdx::rng::SplitMix64;

mod common;

use common::spec;

/// A term-document matrix of a large vocabulary and short documents, as text gives: `docs` columns of
/// `per_doc` distinct terms each, drawn mostly from their topic's band of the vocabulary, so that the tree
/// has structure to find. Every column differs, so a tree can be grown to a leaf per document.
fn short_documents(terms: usize, docs: usize, per_doc: usize, seed: u64) -> DataMatrix {
    let mut rng = SplitMix64::new(seed);
    let topics = 8;
    let band = terms / topics;
    let mut triplets = pdx::matrix::Triplets::new((terms, docs));
    for j in 0..docs {
        let topic = j % topics;
        let mut rows: Vec<usize> = Vec::with_capacity(per_doc);
        while rows.len() < per_doc {
            let row = if rng.next_f64() < 0.8 {
                topic * band + (rng.next_u64() % band as u64) as usize
            } else {
                (rng.next_u64() % terms as u64) as usize
            };
            if !rows.contains(&row) {
                rows.push(row);
            }
        }
        for row in rows {
            triplets.add_triplet(row, j, 0.1 + rng.next_f64());
        }
    }
    DataMatrix::sparse(
        triplets.to_csc(),
        (0..terms).map(|i| format!("t{i}")).collect(),
    )
}

/// Non-zeros of the given columns.
fn nnz_of(data: &DataMatrix, columns: &[usize]) -> usize {
    columns.iter().map(|&j| data.column(j).nnz()).sum()
}

/// Every node's centroid, kept or computed on demand, is the data's mean of its members, bit for bit.
fn assert_centroids_exact(tree: &Tree, data: &DataMatrix) {
    for id in tree.depth_first() {
        let node = tree.node(id).expect("live");
        let expected: Vec<u64> = data
            .centroid(&node.members)
            .iter()
            .map(|v| v.to_bits())
            .collect();
        let dense = tree.dense_centroid(data, id).expect("live");
        let sparse = tree.centroid(data, id).expect("live").to_dense();
        assert_eq!(
            dense.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            expected,
            "node {id}"
        );
        assert_eq!(
            sparse.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            expected,
            "node {id}"
        );
    }
}

/// Inner nodes keep no centroid; a leaf keeps at most its members' non-zeros (a leaf merged back keeps none
/// until it is split again), and all of them together at most the matrix's.
fn assert_bounded(tree: &Tree, data: &DataMatrix) {
    for id in tree.depth_first() {
        let node = tree.node(id).expect("live");
        if let Some(centroid) = node.stored_centroid() {
            assert!(node.is_leaf(), "inner node {id} keeps a centroid");
            assert_eq!(centroid.len(), data.rows(), "node {id}");
            assert!(
                centroid.stored() <= nnz_of(data, &node.members),
                "node {id} keeps {} entries for {} non-zeros",
                centroid.stored(),
                nnz_of(data, &node.members)
            );
        }
    }
    assert!(
        tree.stored_centroid_entries() <= data.nnz(),
        "{} centroid entries kept for {} non-zeros ({} nodes of {} rows)",
        tree.stored_centroid_entries(),
        data.nnz(),
        tree.depth_first().len(),
        data.rows()
    );
}

#[test]
fn a_tree_grown_to_a_leaf_per_document_keeps_no_more_centroid_entries_than_the_matrix() {
    let (terms, docs) = (20_000, 240);
    let data = short_documents(terms, docs, 12, 16);
    let mut tree = Tree::new(&data, (0..docs).collect(), Vec::new());
    // The root is a leaf: it keeps its centroid, sparse.
    assert_bounded(&tree, &data);
    tree.grow(&data, &spec("pddp"), docs, SelectPolicy::Scatter)
        .expect("grows");
    let leaves = tree.leaves().len();
    assert!(
        leaves > docs * 9 / 10,
        "{leaves} leaves of {docs} documents"
    );
    // A dense centroid per node would be 2 * leaves - 1 vectors of `terms` entries: over 9 million here.
    assert_bounded(&tree, &data);
    let kept = tree
        .leaves()
        .into_iter()
        .filter(|&id| {
            tree.node(id)
                .is_some_and(|leaf| leaf.stored_centroid().is_some())
        })
        .count();
    assert_eq!(kept, leaves, "every leaf a split made keeps its centroid");
    assert_centroids_exact(&tree, &data);
}

#[test]
fn merging_and_restoring_keep_the_bound_and_the_centroids() {
    let (terms, docs) = (5_000, 120);
    let data = short_documents(terms, docs, 10, 23);
    let mut tree = Tree::new(&data, (0..docs).collect(), Vec::new());
    tree.grow(&data, &spec("pddp"), 40, SelectPolicy::Scatter)
        .expect("grows");

    // A session keeps no centroids; reading one back rebuilds the leaves' only.
    let json = serde_json::to_string(&tree).expect("serialises");
    let mut restored: Tree = serde_json::from_str(&json).expect("reads back");
    assert_eq!(restored.stored_centroid_entries(), 0);
    restored.rebuild_centroids(&data);
    assert_bounded(&restored, &data);
    assert_eq!(
        restored.stored_centroid_entries(),
        tree.stored_centroid_entries()
    );
    assert_centroids_exact(&restored, &data);

    // Merging an inner node back makes it a leaf whose centroid is computed when asked for, and its split
    // again gives the children the first split gave.
    let inner = tree
        .depth_first()
        .into_iter()
        .find(|&id| id != tree.root() && !tree.node(id).expect("live").is_leaf())
        .expect("an inner node below the root");
    let before: Vec<Vec<usize>> = tree
        .node(inner)
        .expect("live")
        .children
        .iter()
        .map(|&c| tree.node(c).expect("live").members.to_vec())
        .collect();
    tree.merge(inner).expect("merges");
    assert_bounded(&tree, &data);
    assert_centroids_exact(&tree, &data);
    let children = tree.split(&data, inner, &spec("pddp")).expect("splits");
    let after: Vec<Vec<usize>> = children
        .iter()
        .map(|&c| tree.node(c).expect("live").members.to_vec())
        .collect();
    assert_eq!(after, before);
    assert_bounded(&tree, &data);
    assert_centroids_exact(&tree, &data);
}
