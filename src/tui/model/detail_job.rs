//! The detail pane's passes over a large node's members (its centroid, its sibling's or parent's, its ranking),
//! run on a worker thread so that a key that selects the node only redraws; the pane says what it is computing
//! until the result arrives.

use std::sync::Arc;

use pdx::cluster::Tree;
use pdx::dataset::Dataset;
use pdx::matrix::DataMatrix;
use pdx::report::terms;

use super::jobs::Effect;
use super::{Detail, DetailTab, Model};

/// A pass that reads more stored entries than this (a centroid or a ranking not kept yet) runs on a worker thread;
/// smaller ones are done at once, as the key is handled, since they take a few milliseconds. Counted in entries,
/// not members: a pass costs per entry, and documents hold a hundred or so each in a text collection, a handful
/// in a table of measurements. Every node of 20 Newsgroups (1.7 million entries with the default options) stays
/// under it.
pub(super) const DETAIL_INLINE_ENTRIES: usize = 2_000_000;

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
pub(crate) fn perform_detail(data: &Dataset, job: DetailJob) -> DetailDone {
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

impl Model {
    /// The nodes whose centroids the detail pane of `id` needs and the cache does not keep: the node's, and its
    /// only sibling's or else its parent's (what its discriminating terms are against).
    pub(super) fn centroids_missing(&self, id: usize) -> Vec<usize> {
        let Some(node) = self.tree.node(id) else {
            return Vec::new();
        };
        let mut wanted = vec![id];
        if let Some(parent) = node.parent.and_then(|p| self.tree.node(p)) {
            match parent
                .children
                .iter()
                .filter(|&&c| c != id)
                .collect::<Vec<_>>()[..]
            {
                [&sibling] => wanted.push(sibling),
                _ => wanted.push(parent.id),
            }
        }
        wanted.retain(|&w| !self.detail_cache.has_centroid(&self.data, &self.tree, w));
        wanted
    }

    /// Whether the passes over `nodes`' members are too long to make as a key is handled: their members times the
    /// collection's mean entries per document, since counting a node's own entries would itself be a pass.
    pub(super) fn too_long_for_a_key(&self, nodes: &[usize]) -> bool {
        let members: usize = nodes
            .iter()
            .filter_map(|&id| self.tree.node(id))
            .map(|n| n.size())
            .sum();
        members.saturating_mul(entries_per_document(&self.data.matrix)) > self.detail_inline
    }

    /// The detail job the pane waits for, when it waits for one and none is running (one at a time: a job for a
    /// node passed meanwhile still fills the cache, and the next asks for the node selected then).
    pub(super) fn request_detail(&mut self) -> Option<Effect> {
        if self.detail_running.is_some() || !(self.detail.pending || self.detail.ranking_pending) {
            return None;
        }
        let node = self.detail.node;
        let centroids = if self.detail.pending {
            self.centroids_missing(node)
        } else {
            Vec::new()
        };
        self.detail_running = Some(node);
        Some(Effect::Detail(DetailJob {
            node,
            tree: self.tree.clone(),
            centroids,
            rank: self.detail.ranking_pending,
        }))
    }

    /// A detail job's result: kept for the nodes whose members are still those it was computed for, and shown
    /// if its node is still selected.
    pub(super) fn detail_done(&mut self, done: DetailDone) {
        self.detail_running = None;
        let current = |tree: &Tree, id: usize, members: &Arc<[usize]>| {
            tree.node(id)
                .is_some_and(|n| Arc::ptr_eq(&n.members, members))
        };
        for (id, members, centroid) in done.centroids {
            if current(&self.tree, id, &members) {
                self.detail_cache
                    .keep_centroid(&self.data, id, members, centroid);
            }
        }
        if let Some((members, ranking)) = done.ranking
            && current(&self.tree, done.node, &members)
        {
            self.detail_cache
                .keep_ranking(&self.data, done.node, members, ranking);
        }
        if done.node != self.detail.node {
            return;
        }
        if self.detail.pending {
            self.compute_detail();
        } else if self.detail.ranking_pending {
            self.detail.ranking_pending = false;
        }
        // `update` ranks the documents next, from the cache when the job ranked them.
    }

    /// What the detail pane says while it waits for a job: `None` when it waits for nothing on this tab.
    pub(crate) fn detail_waiting(&self) -> Option<String> {
        let size = self.tree.node(self.detail.node).map_or(0, |n| n.size());
        match self.tab {
            DetailTab::Terms if self.detail.pending => {
                Some(format!("computing the centroid of {size} documents…"))
            }
            DetailTab::Documents if self.detail.pending || self.detail.ranking_pending => Some(
                format!("ranking {size} documents by distance to the centroid…"),
            ),
            _ => None,
        }
    }

    /// The detail of a node whose centroids are not computed yet.
    pub(super) fn waiting_detail(node: usize) -> Detail {
        Detail {
            node,
            pending: true,
            ..Detail::default()
        }
    }
}

/// The mean stored entries of a document of `matrix`, rounded up (every entry of a dense one).
pub(super) fn entries_per_document(matrix: &DataMatrix) -> usize {
    match matrix {
        DataMatrix::Sparse { matrix, .. } => matrix.nnz().div_ceil(matrix.cols().max(1)),
        DataMatrix::Dense { .. } => matrix.rows(),
    }
}
