//! The detail pane's costly parts kept for the nodes shown last: their dense centroids and their members ranked
//! nearest the centroid first, so that going back to a large node (or opening its Documents tab again) passes
//! over none of its members.

use std::cell::RefCell;
use std::sync::{Arc, Weak};

use pdx::cluster::Tree;
use pdx::dataset::Dataset;
use pdx::report::terms;

/// Centroids kept: one dense vector per term each (a megabyte at 120,000 terms).
const CENTROIDS: usize = 8;

/// Rankings kept: one index per member each (8 MB for a node of a million documents).
const RANKINGS: usize = 4;

/// A value computed for a node, valid while the node has the same members (a split, a merge or an undo leaves
/// the other nodes' shared member lists as they were).
#[derive(Debug)]
struct Entry<T> {
    node: usize,
    members: Arc<[usize]>,
    value: Arc<T>,
}

/// The last [`CENTROIDS`] centroids and [`RANKINGS`] rankings computed, the most recently used last; all of them
/// for one dataset (another, after a rebuild, starts afresh).
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
/// and the oldest dropped beyond `capacity`.
fn lookup<T>(
    entries: &mut Vec<Entry<T>>,
    node: usize,
    members: &Arc<[usize]>,
    capacity: usize,
    make: impl FnOnce() -> Option<T>,
) -> Option<Arc<T>> {
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
    if entries.len() > capacity {
        entries.remove(0);
    }
    Some(value)
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

    /// Node `id`'s dense centroid (a leaf's from the one it keeps, an inner node's from a pass over its members).
    pub(super) fn centroid(
        &self,
        data: &Arc<Dataset>,
        tree: &Tree,
        id: usize,
    ) -> Option<Arc<Vec<f64>>> {
        let node = tree.node(id)?;
        let mut kept = self.kept(data);
        lookup(&mut kept.centroids, id, &node.members, CENTROIDS, || {
            tree.dense_centroid(&data.matrix, id).ok()
        })
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
        lookup(&mut kept.rankings, id, &node.members, RANKINGS, || {
            Some(terms::representatives(
                &data.matrix,
                &node.members,
                &centroid,
                tree.norms_squared(),
                node.members.len(),
            ))
        })
    }
}
