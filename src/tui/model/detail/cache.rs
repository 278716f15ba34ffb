//! The detail pane's costly parts kept for the nodes shown last: their dense centroids and their members ranked
//! nearest the centroid first, so that going back to a large node (or opening its Documents tab again) passes
//! over none of its members.

use std::cell::RefCell;
use std::sync::{Arc, Weak};

use crate::cluster::Tree;
use crate::dataset::Dataset;
use crate::report::terms;

/// How many values the kept centroids may hold together: 128 MB, a hundred centroids at 120,000 terms, so that
/// a walk up and down a large tree finds the nodes it passed. The latest is kept whatever its size.
const CENTROID_VALUES: usize = 16 << 20;

/// How many member indices the kept rankings may hold together: 64 MB, eight rankings of a million documents.
const RANKING_VALUES: usize = 8 << 20;

/// A value computed for a node, valid while the node has the same members (a split, a merge or an undo leaves
/// the other nodes' shared member lists as they were).
#[derive(Debug)]
struct Entry<T> {
    node: usize,
    members: Arc<[usize]>,
    value: Arc<T>,
}

/// The inner nodes' centroids and the rankings computed last, within [`CENTROID_VALUES`] and [`RANKING_VALUES`],
/// the most recently used last; all of them for one dataset (another, after a rebuild, starts afresh).
#[derive(Debug, Default)]
pub(super) struct DetailCache {
    inner: RefCell<Kept>,
}

#[derive(Debug, Default)]
struct Kept {
    data: Weak<Dataset>,
    centroids: Vec<Entry<Vec<f64>>>,
    rankings: Vec<Entry<Vec<usize>>>,
}

/// The entry for `node` with `members` moved to the end (the most recent), or the one `make` gives, added there
/// and the oldest dropped while the entries hold more than `budget` values together.
fn lookup<V>(
    entries: &mut Vec<Entry<Vec<V>>>,
    node: usize,
    members: &Arc<[usize]>,
    budget: usize,
    make: impl FnOnce() -> Option<Vec<V>>,
) -> Option<Arc<Vec<V>>> {
    if let Some(at) = entries
        .iter()
        .position(|e| e.node == node && Arc::ptr_eq(&e.members, members))
    {
        let entry = entries.remove(at);
        let value = Arc::clone(&entry.value);
        entries.push(entry);
        return Some(value);
    }
    let value = Arc::new(make()?);
    entries.push(Entry {
        node,
        members: Arc::clone(members),
        value: Arc::clone(&value),
    });
    let mut held: usize = entries.iter().map(|e| e.value.len()).sum();
    while held > budget && entries.len() > 1 {
        held -= entries.remove(0).value.len();
    }
    Some(value)
}

/// Whether `entries` hold a value for `node` with `members`.
fn held<V>(entries: &[Entry<Vec<V>>], node: usize, members: &Arc<[usize]>) -> bool {
    entries
        .iter()
        .any(|e| e.node == node && Arc::ptr_eq(&e.members, members))
}

impl DetailCache {
    /// The kept values, emptied first when they were computed on another dataset than `data`.
    fn kept(&self, data: &Arc<Dataset>) -> std::cell::RefMut<'_, Kept> {
        let mut kept = self.inner.borrow_mut();
        if !Weak::ptr_eq(&kept.data, &Arc::downgrade(data)) {
            *kept = Kept {
                data: Arc::downgrade(data),
                ..Kept::default()
            };
        }
        kept
    }

    /// Node `id`'s dense centroid: a leaf's from the sparse one it keeps (not kept here: it costs one vector), an
    /// inner node's from a pass over its members, kept.
    pub(super) fn centroid(
        &self,
        data: &Arc<Dataset>,
        tree: &Tree,
        id: usize,
    ) -> Option<Arc<Vec<f64>>> {
        let node = tree.node(id)?;
        if node.stored_centroid().is_some() {
            return tree.dense_centroid(&data.matrix, id).ok().map(Arc::new);
        }
        let mut kept = self.kept(data);
        lookup(
            &mut kept.centroids,
            id,
            &node.members,
            CENTROID_VALUES,
            || tree.dense_centroid(&data.matrix, id).ok(),
        )
    }

    /// Whether node `id`'s dense centroid costs no pass over its members: a leaf keeps its own, and an inner
    /// node's may be kept here.
    pub(super) fn has_centroid(&self, data: &Arc<Dataset>, tree: &Tree, id: usize) -> bool {
        let Some(node) = tree.node(id) else {
            return true;
        };
        node.stored_centroid().is_some() || held(&self.kept(data).centroids, id, &node.members)
    }

    /// Whether node `id`'s ranking is kept.
    pub(super) fn has_ranking(&self, data: &Arc<Dataset>, tree: &Tree, id: usize) -> bool {
        tree.node(id)
            .is_some_and(|node| held(&self.kept(data).rankings, id, &node.members))
    }

    /// Keep `centroid`, computed elsewhere (a worker) for node `id` with `members`.
    pub(super) fn keep_centroid(
        &self,
        data: &Arc<Dataset>,
        id: usize,
        members: Arc<[usize]>,
        centroid: Vec<f64>,
    ) {
        let mut kept = self.kept(data);
        lookup(&mut kept.centroids, id, &members, CENTROID_VALUES, || {
            Some(centroid)
        });
    }

    /// Keep `ranking`, computed elsewhere (a worker) for node `id` with `members`.
    pub(super) fn keep_ranking(
        &self,
        data: &Arc<Dataset>,
        id: usize,
        members: Arc<[usize]>,
        ranking: Vec<usize>,
    ) {
        let mut kept = self.kept(data);
        lookup(&mut kept.rankings, id, &members, RANKING_VALUES, || {
            Some(ranking)
        });
    }

    /// Node `id`'s members, nearest its centroid first (one pass over the members and a sort, once per node).
    pub(super) fn ranking(
        &self,
        data: &Arc<Dataset>,
        tree: &Tree,
        id: usize,
    ) -> Option<Arc<Vec<usize>>> {
        let node = tree.node(id)?;
        let centroid = self.centroid(data, tree, id)?;
        let mut kept = self.kept(data);
        lookup(
            &mut kept.rankings,
            id,
            &node.members,
            RANKING_VALUES,
            || {
                Some(terms::representatives(
                    &data.matrix,
                    &node.members,
                    &centroid,
                    tree.norms_squared(),
                    node.members.len(),
                ))
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_kept_for_the_same_members_within_the_budget() {
        let mut entries: Vec<Entry<Vec<u8>>> = Vec::new();
        let a: Arc<[usize]> = Arc::from(vec![1, 2]);
        let b: Arc<[usize]> = Arc::from(vec![3]);
        let made = lookup(&mut entries, 0, &a, 4, || Some(vec![1, 1])).expect("made");
        // The same node and member list: kept, not made again.
        let again = lookup(&mut entries, 0, &a, 4, || panic!("made again")).expect("kept");
        assert!(Arc::ptr_eq(&made, &again));
        // The same node with another member list (a move by hand changed it): made again.
        let other: Arc<[usize]> = Arc::from(vec![1, 2]);
        let remade = lookup(&mut entries, 0, &other, 4, || Some(vec![2, 2])).expect("made");
        assert_eq!(*remade, vec![2, 2]);
        // Over the budget the oldest go; the latest stays even alone over it.
        lookup(&mut entries, 1, &b, 4, || Some(vec![3, 3, 3])).expect("made");
        assert_eq!(entries.iter().map(|e| e.node).collect::<Vec<_>>(), [1]);
        lookup(&mut entries, 2, &b, 4, || Some(vec![0; 9])).expect("made");
        assert_eq!(entries.iter().map(|e| e.node).collect::<Vec<_>>(), [2]);
    }
}
