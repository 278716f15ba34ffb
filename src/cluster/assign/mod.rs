//! New documents into a kept tree (what BERTopic calls `transform`): each new document goes down the tree from
//! the root, at each split by that split's own rule applied to a point it never saw, to a leaf; with how sure
//! each step was and whether the leaf fits it at all. The rules, and why each is the natural one for its split,
//! are in `docs/references.md` ("New documents into a kept tree"); each rule declares its own in its
//! [`crate::cluster::registry::RuleDef`].
//!
//! The new documents come as columns of a matrix over the same rows as the tree's data, weighted as the data's
//! own columns were (`Dataset::weigh_incoming`). What a rule needs of a split and the tree does not keep (the
//! principal directions, a kernel matrix's eigenvectors) is computed again from the node's members on the data,
//! exactly as the split computed it; nodes are visited one at a time, with the new documents that reached them,
//! so that only one node's directions or kernel matrix is held at once and a node no new document reaches costs
//! nothing.

mod kernel;
mod linear;

use std::collections::VecDeque;

use super::rules::SplitEnv;
use super::{ClusterError, Tree};
use crate::linalg::Column;
use crate::linalg::kernel::KernelError;
use crate::matrix::DataMatrix;

/// How a rule's split takes a point it never saw (declared by each rule's `RuleDef`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutOfSample {
    /// The orthant of the point's projections `u_i^T (x - c)` on the split's principal directions, around the
    /// split's cuts (PDDP and its relatives, gap partitioning): margin, the signed distance from the nearest cut.
    Directions,
    /// The nearest child centroid (2-means and k-means splits): margin, the second-nearest distance less the
    /// nearest.
    Centroids,
    /// The orthant of the kernel principal components of the point (kernel PCA's projection of its centred kernel
    /// row), around the split's cuts: margin, the signed feature-space distance from the nearest cut.
    KernelProjection,
    /// The nearest child mean in feature space (kernel k-means splits): margin, as for [`OutOfSample::Centroids`]
    /// in feature space.
    KernelCentroids,
    /// The nearest soft mean in feature space (soft kernel k-means' own assignment of a point, its largest
    /// responsibility): margin, as for [`OutOfSample::KernelCentroids`].
    SoftKernelCentroids,
    /// The Nyström extension of the eigenvector of the centred (normalised) kernel, against the split's threshold
    /// (alignment): margin, the signed distance along that principal axis.
    KernelThreshold,
    /// The Nyström extension of the Laplacian's second eigenvector, against the split's threshold (cut-cost):
    /// margin, the offset from the threshold in the eigenvector's units.
    LaplacianThreshold,
    /// The Nyström extension of the Laplacian's eigenvectors, then the nearest child centroid in that embedding
    /// (spectral): margin, the difference of distances there.
    LaplacianEmbedding,
}

#[derive(Debug, thiserror::Error)]
pub enum AssignError {
    #[error(
        "the new documents have {new} rows and the tree's data {data}: they are not weighted over its terms"
    )]
    Rows { new: usize, data: usize },
    #[error(
        "node {node} was split by {rule} with the {kernel} kernel, which pdx cannot evaluate between a new document and the collection's ({reason})"
    )]
    Kernel {
        node: usize,
        rule: &'static str,
        kernel: String,
        reason: &'static str,
    },
    #[error("node {node}: its split cannot be computed again: {error}")]
    Split { node: usize, error: ClusterError },
    #[error("node {node}: {error}")]
    KernelMatrix { node: usize, error: KernelError },
    #[error("assigning cancelled")]
    Cancelled,
}

/// One step down: the child taken at a split and how sure it was.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    /// The split node.
    pub node: usize,
    /// The child taken (its node id).
    pub child: usize,
    /// How far the point was from going elsewhere, in the units of the split's own rule (see [`OutOfSample`]):
    /// a signed distance from the cut (positive on the upper side) or a difference of distances (never negative).
    pub margin: f64,
}

/// Whether the leaf a point reached holds it as it holds its own members.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    /// No farther from the leaf's centroid than the leaf's farthest member.
    Fits,
    /// Farther from the leaf's centroid than every one of the leaf's members: it fits no leaf.
    Beyond,
    /// The point holds no term of the collection (a zero column): nothing of it was measured.
    NoTerms,
}

/// Where one new document went.
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    /// The leaf reached (its node id).
    pub leaf: usize,
    /// The steps from the root to the leaf, root first.
    pub steps: Vec<Step>,
    /// The distance from the leaf's centroid, in the data's space.
    pub distance: f64,
    /// The leaf's own spread: the largest distance of one of its members from its centroid.
    pub radius: f64,
    pub fit: Fit,
}

impl Route {
    /// The smallest margin of the route's steps, in absolute value: its least sure step (`None` at the root).
    pub fn least_margin(&self) -> Option<f64> {
        self.steps
            .iter()
            .map(|step| step.margin.abs())
            .min_by(f64::total_cmp)
    }
}

/// What one split does with a point: the position of the child it goes to, and the margin.
trait NodeRouter {
    fn route(&self, point: Column) -> (usize, f64);
}

/// Route every column of `incoming` (over the same rows as `data`, the data the tree was grown on) down `tree`.
/// `env` gives the memory budget of a kernel matrix, the documents' texts, and a progress report that can cancel
/// (checked between nodes).
pub fn assign(
    tree: &Tree,
    data: &DataMatrix,
    incoming: &DataMatrix,
    env: SplitEnv,
) -> Result<Vec<Route>, AssignError> {
    if incoming.rows() != data.rows() {
        return Err(AssignError::Rows {
            new: incoming.rows(),
            data: data.rows(),
        });
    }
    let count = incoming.cols();
    let mut steps: Vec<Vec<Step>> = vec![Vec::new(); count];
    let mut routes: Vec<Option<Route>> = vec![None; count];
    let mut queue = VecDeque::from([(tree.root(), (0..count).collect::<Vec<usize>>())]);
    while let Some((id, points)) = queue.pop_front() {
        if let Some(progress) = env.progress {
            progress.check().map_err(|_| AssignError::Cancelled)?;
        }
        let node = tree
            .get(id)
            .map_err(|error| AssignError::Split { node: id, error })?;
        if points.is_empty() {
            continue;
        }
        if node.is_leaf() {
            let spread = linear::Spread::of(tree, data, id)
                .map_err(|error| AssignError::Split { node: id, error })?;
            for j in points {
                let point = incoming.column(j);
                let distance = spread.distance(point);
                let fit = if point.nnz() == 0 || point.norm_squared() == 0.0 {
                    Fit::NoTerms
                } else if distance > spread.radius {
                    Fit::Beyond
                } else {
                    Fit::Fits
                };
                routes[j] = Some(Route {
                    leaf: id,
                    steps: std::mem::take(&mut steps[j]),
                    distance,
                    radius: spread.radius,
                    fit,
                });
            }
            continue;
        }
        let router = router_for(tree, data, id, env)?;
        let mut by_child: Vec<Vec<usize>> = vec![Vec::new(); node.children.len()];
        for j in points {
            let (position, margin) = router.route(incoming.column(j));
            steps[j].push(Step {
                node: id,
                child: node.children[position],
                margin,
            });
            by_child[position].push(j);
        }
        queue.extend(node.children.iter().copied().zip(by_child));
    }
    Ok(routes
        .into_iter()
        .map(|route| route.expect("every point reaches a leaf"))
        .collect())
}

/// The router of node `id`'s split, by its rule's [`OutOfSample`].
fn router_for<'a>(
    tree: &'a Tree,
    data: &'a DataMatrix,
    id: usize,
    env: SplitEnv<'a>,
) -> Result<Box<dyn NodeRouter + 'a>, AssignError> {
    let node = tree
        .get(id)
        .map_err(|error| AssignError::Split { node: id, error })?;
    let split = node.split.as_ref().ok_or(AssignError::Split {
        node: id,
        error: ClusterError::NoSuchNode(id),
    })?;
    Ok(match split.rule.def().out_of_sample {
        OutOfSample::Directions => Box::new(linear::DirectionCuts::new(tree, data, id, env)?),
        OutOfSample::Centroids => Box::new(linear::NearestCentroid::new(tree, data, id)?),
        OutOfSample::KernelProjection => {
            Box::new(kernel::KernelProjection::new(tree, data, id, env)?)
        }
        OutOfSample::KernelCentroids => Box::new(kernel::KernelMeans::hard(tree, data, id, env)?),
        OutOfSample::SoftKernelCentroids => {
            Box::new(kernel::KernelMeans::soft(tree, data, id, env)?)
        }
        OutOfSample::KernelThreshold => Box::new(kernel::EigenvectorThreshold::new(
            tree, data, id, env, false,
        )?),
        OutOfSample::LaplacianThreshold => Box::new(kernel::EigenvectorThreshold::new(
            tree, data, id, env, true,
        )?),
        OutOfSample::LaplacianEmbedding => {
            Box::new(kernel::LaplacianEmbedding::new(tree, data, id, env)?)
        }
    })
}

/// Orthant codes to children: each code the node's members have, to the child most of its members are in; a
/// code no member has goes to the nearest code that one has (the fewest, least sure bits flipped).
struct Orthants {
    /// `(code, child position)`, one per code some member has.
    children_of_codes: Vec<(usize, usize)>,
}

impl Orthants {
    /// From each member's code and child position.
    fn new(codes_and_children: impl Iterator<Item = (usize, usize)>, children: usize) -> Orthants {
        let mut votes: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
        for (code, child) in codes_and_children {
            votes.entry(code).or_insert_with(|| vec![0; children])[child] += 1;
        }
        let children_of_codes = votes
            .into_iter()
            .map(|(code, counts)| {
                // The first child among equal counts, so that the choice is reproducible.
                let best = (0..children).max_by_key(|&c| (counts[c], std::cmp::Reverse(c)));
                (code, best.unwrap_or(0))
            })
            .collect();
        Orthants { children_of_codes }
    }

    /// The child of a point at signed offsets `offsets` from the cuts (bit i set when `offsets[i] > 0`), and
    /// the margin: the offset nearest its cut.
    fn route(&self, offsets: &[f64]) -> (usize, f64) {
        let code = code_of(offsets);
        let margin = offsets
            .iter()
            .copied()
            .min_by(|a, b| a.abs().total_cmp(&b.abs()))
            .unwrap_or(0.0);
        let cost = |other: usize| -> f64 {
            (0..offsets.len())
                .filter(|bit| (other ^ code) >> bit & 1 == 1)
                .map(|bit| offsets[bit].abs())
                .sum()
        };
        let child = self
            .children_of_codes
            .iter()
            .min_by(|a, b| cost(a.0).total_cmp(&cost(b.0)))
            .map_or(0, |&(_, child)| child);
        (child, margin)
    }
}

/// Bit i set when offset i lies above its cut (a point on the cut goes below, as `orthants` puts a member).
fn code_of(offsets: &[f64]) -> usize {
    offsets
        .iter()
        .enumerate()
        .fold(0, |code, (bit, &x)| code | (usize::from(x > 0.0) << bit))
}

/// The position among `children` (each sorted) of the child holding column `j`.
fn child_of(children: &[&[usize]], j: usize) -> Option<usize> {
    children
        .iter()
        .position(|members| members.binary_search(&j).is_ok())
}

/// The difference of the two smallest distances (0 with fewer than two), and the position of the smallest.
fn nearest(distances: &[f64]) -> (usize, f64) {
    let mut order: Vec<usize> = (0..distances.len()).collect();
    order.sort_by(|&a, &b| distances[a].total_cmp(&distances[b]).then(a.cmp(&b)));
    let first = order.first().copied().unwrap_or(0);
    let margin = match order.get(1) {
        Some(&second) => distances[second] - distances[first],
        None => 0.0,
    };
    (first, margin)
}

#[cfg(test)]
mod tests;
