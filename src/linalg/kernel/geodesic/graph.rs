//! The neighbourhood graph of the geodesic kernel and its shortest paths.
//!
//! Kim, Shim & Choi: "edge weights between only connected nodes are set as their Euclidean distances". Each point
//! is joined to its `K` nearest others, and the graph is made symmetric by keeping an edge when either end chose
//! the other (the usual Isomap reading: "i is among j's neighbours OR j among i's"), weighted by the distance
//! (Euclidean, or the cosine document distance (10) `1 - x^T y / (||x|| ||y||)`).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use rayon::prelude::*;

use crate::progress::{Cancelled, Progress};

/// For each point the `k` nearest other points by `distance` (ties to the lower index), nearest first.
pub(crate) fn nearest_neighbours(
    n: usize,
    k: usize,
    distance: impl Fn(usize, usize) -> f64 + Sync,
    progress: Option<&Progress>,
) -> Result<Vec<Vec<(u32, f64)>>, Cancelled> {
    let order = |a: &(f64, usize), b: &(f64, usize)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
    (0..n)
        .into_par_iter()
        .map(|i| {
            if let Some(progress) = progress {
                progress.check()?;
            }
            let mut candidates: Vec<(f64, usize)> = (0..n)
                .filter(|&j| j != i)
                .map(|j| (distance(i, j), j))
                .collect();
            let k = k.min(candidates.len());
            if k < candidates.len() {
                candidates.select_nth_unstable_by(k, order);
                candidates.truncate(k);
            }
            candidates.sort_by(order);
            if let Some(progress) = progress {
                progress.advance(1);
            }
            Ok(candidates.into_iter().map(|(d, j)| (j as u32, d)).collect())
        })
        .collect()
}

/// An undirected weighted graph in CSR form.
pub(super) struct Graph {
    offsets: Vec<usize>,
    targets: Vec<u32>,
    weights: Vec<f64>,
}

impl Graph {
    /// The symmetric neighbourhood graph: an edge when either end chose the other.
    pub(super) fn symmetric(neighbours: &[Vec<(u32, f64)>]) -> Graph {
        let n = neighbours.len();
        let mut edges: Vec<(u32, u32, f64)> = Vec::new();
        for (i, list) in neighbours.iter().enumerate() {
            for &(j, w) in list {
                edges.push((i as u32, j, w));
                edges.push((j, i as u32, w));
            }
        }
        edges.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)).then(a.2.total_cmp(&b.2)));
        edges.dedup_by(|later, earlier| later.0 == earlier.0 && later.1 == earlier.1);
        let mut offsets = vec![0usize; n + 1];
        for &(i, _, _) in &edges {
            offsets[i as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        Graph {
            offsets,
            targets: edges.iter().map(|e| e.1).collect(),
            weights: edges.iter().map(|e| e.2).collect(),
        }
    }

    fn nodes(&self) -> usize {
        self.offsets.len() - 1
    }

    pub(super) fn edges_of(&self, i: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let range = self.offsets[i]..self.offsets[i + 1];
        self.targets[range.clone()]
            .iter()
            .zip(&self.weights[range])
            .map(|(&t, &w)| (t as usize, w))
    }

    /// Connected components (union-find).
    pub(super) fn components(&self) -> usize {
        let n = self.nodes();
        let mut parent: Vec<usize> = (0..n).collect();
        fn root(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
        let mut count = n;
        for i in 0..n {
            for (j, _) in self.edges_of(i) {
                let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                if a != b {
                    parent[a.max(b)] = a.min(b);
                    count -= 1;
                }
            }
        }
        count
    }
}

/// A Dijkstra heap entry, ordered so that `BinaryHeap` pops the nearest first.
#[derive(Clone, Copy, PartialEq)]
struct Reached {
    distance: f64,
    node: usize,
}

impl Eq for Reached {}

impl Ord for Reached {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .distance
            .total_cmp(&self.distance)
            .then(other.node.cmp(&self.node))
    }
}

impl PartialOrd for Reached {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Shortest-path distances from every source into `out` (row-major n x n), rows in parallel; unreachable
/// points get infinity here (replaced afterwards).
pub(super) fn shortest_paths(
    graph: &Graph,
    out: &mut [f64],
    progress: Option<&Progress>,
) -> Result<(), Cancelled> {
    let n = graph.nodes();
    out.par_chunks_mut(n.max(1)).enumerate().try_for_each_init(
        BinaryHeap::new,
        |heap, (source, row)| {
            if let Some(progress) = progress {
                progress.check()?;
            }
            row.fill(f64::INFINITY);
            row[source] = 0.0;
            heap.clear();
            heap.push(Reached {
                distance: 0.0,
                node: source,
            });
            while let Some(Reached { distance, node }) = heap.pop() {
                if distance > row[node] {
                    continue;
                }
                for (target, weight) in graph.edges_of(node) {
                    let through = distance + weight;
                    if through < row[target] {
                        row[target] = through;
                        heap.push(Reached {
                            distance: through,
                            node: target,
                        });
                    }
                }
            }
            if let Some(progress) = progress {
                progress.advance(1);
            }
            Ok(())
        },
    )
}
