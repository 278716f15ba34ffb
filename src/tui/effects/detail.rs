//! The engine's part of the detail pane's passes over a large node's members: its centroid, its sibling's or
//! parent's, its ranking.

use std::sync::Arc;

use crate::cluster::Tree;
use crate::dataset::Dataset;
use crate::report::terms;

/// The passes the detail pane of node `node` waits for, on a copy of the tree (shared member lists).
#[derive(Debug, Clone)]
pub(crate) struct DetailJob {
    pub node: usize,
    pub tree: Tree,
    /// The nodes whose dense centroids are wanted.
    pub centroids: Vec<usize>,
    /// Whether `node`'s members are wanted ranked, nearest the centroid first.
    pub rank: bool,
}

/// What a detail job computed; each value with the member list it was computed for, so that a value for a node
/// whose members changed meanwhile is dropped.
#[derive(Debug, Clone)]
pub(crate) struct DetailDone {
    pub node: usize,
    pub centroids: Vec<(usize, Arc<[usize]>, Vec<f64>)>,
    pub ranking: Option<(Arc<[usize]>, Vec<usize>)>,
}

/// Run a detail job, on whatever thread calls it.
pub(super) fn perform(data: &Dataset, job: DetailJob) -> DetailDone {
    let DetailJob {
        node,
        tree,
        centroids,
        rank,
    } = job;
    let computed: Vec<(usize, Arc<[usize]>, Vec<f64>)> = centroids
        .iter()
        .filter_map(|&id| {
            let members = Arc::clone(&tree.node(id)?.members);
            let centroid = tree.dense_centroid(&data.matrix, id).ok()?;
            Some((id, members, centroid))
        })
        .collect();
    let ranking = tree.node(node).filter(|_| rank).and_then(|n| {
        let own = computed
            .iter()
            .find(|(id, _, _)| *id == node)
            .map(|(_, _, c)| c.clone());
        let centroid = match own {
            Some(centroid) => centroid,
            None => tree.dense_centroid(&data.matrix, node).ok()?,
        };
        let ranked = terms::representatives(
            &data.matrix,
            &n.members,
            &centroid,
            tree.norms_squared(),
            n.members.len(),
        );
        Some((Arc::clone(&n.members), ranked))
    });
    DetailDone {
        node,
        centroids: computed,
        ranking,
    }
}
