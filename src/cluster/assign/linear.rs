//! The out-of-sample rules of the splits made on the data itself: the principal directions' cuts, the nearest
//! child centroid; and the spread of a leaf a point is measured against.

use super::{AssignError, NodeRouter, Orthants, child_of, nearest};
use crate::cluster::rules::{SplitContext, SplitEnv, directions_for_split};
use crate::cluster::{ClusterError, Tree};
use crate::linalg::Column;
use crate::matrix::DataMatrix;

/// A PDDP-family split as a rule for any point: the orthant of `u_i^T (x - c) - sigma_i cut_i` over the split's
/// directions. Member j's coordinate `v_i[j]` is `u_i^T (a_j - c) / sigma_i`, so the split's own cut on `v_i` is
/// `sigma_i cut_i` on the projection, and the offset is the point's signed distance from the cut's hyperplane.
pub(super) struct DirectionCuts {
    /// `u_i`, one entry per row of the data.
    left: Vec<Vec<f64>>,
    /// `u_i^T c + sigma_i cut_i`.
    thresholds: Vec<f64>,
    orthants: Orthants,
}

impl DirectionCuts {
    pub(super) fn new(
        tree: &Tree,
        data: &DataMatrix,
        id: usize,
        env: SplitEnv,
    ) -> Result<DirectionCuts, AssignError> {
        let failed = |error: ClusterError| AssignError::Split { node: id, error };
        let node = tree.get(id).map_err(failed)?;
        let split = node
            .split
            .as_ref()
            .ok_or(failed(ClusterError::NoSuchNode(id)))?;
        let rule = split.rule.rule();
        // The context the split was planned in (`Tree::plan_split_of_members`), so that the directions are the
        // very ones it cut.
        let start = tree.start_guess(id);
        let centroid = tree.dense_centroid(data, id).map_err(failed)?;
        let context = SplitContext {
            start: start.as_deref(),
            data,
            members: &node.members,
            norms_squared: tree.norms_squared(),
            centroid: Some(&centroid),
            node_id: id,
            env: SplitEnv { known: None, ..env },
        };
        let directions = directions_for_split(
            &context,
            rule.directions_needed(),
            rule.direction_tolerance(),
            rule.direction_sample(),
        )
        .map_err(failed)?;
        let used = split.detail.cuts.len().min(directions.left.len());
        let left: Vec<Vec<f64>> = directions.left[..used].to_vec();
        let thresholds: Vec<f64> = (0..used)
            .map(|i| dot(&left[i], &centroid) + directions.values[i] * split.detail.cuts[i])
            .collect();
        let children: Vec<&[usize]> = node
            .children
            .iter()
            .map(|&child| tree.get(child).map(|c| &*c.members))
            .collect::<Result<_, _>>()
            .map_err(failed)?;
        let mut cuts = DirectionCuts {
            left,
            thresholds,
            orthants: Orthants {
                children_of_codes: Vec::new(),
            },
        };
        let codes: Vec<(usize, usize)> = node
            .members
            .iter()
            .filter_map(|&j| {
                let code = super::code_of(&cuts.offsets(data.column(j)));
                Some((code, child_of(&children, j)?))
            })
            .collect();
        cuts.orthants = Orthants::new(codes.into_iter(), children.len());
        Ok(cuts)
    }

    /// The point's signed distance from each cut.
    fn offsets(&self, point: Column) -> Vec<f64> {
        self.left
            .iter()
            .zip(&self.thresholds)
            .map(|(u, threshold)| point.dot(u) - threshold)
            .collect()
    }
}

impl NodeRouter for DirectionCuts {
    fn route(&self, point: Column) -> (usize, f64) {
        self.orthants.route(&self.offsets(point))
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// A 2-means or k-means split as a rule for any point: the nearest of its children's centroids (Lloyd's
/// assignment step, which the split's iterations ended on).
pub(super) struct NearestCentroid {
    centroids: Vec<Vec<f64>>,
    norms: Vec<f64>,
}

impl NearestCentroid {
    pub(super) fn new(
        tree: &Tree,
        data: &DataMatrix,
        id: usize,
    ) -> Result<NearestCentroid, AssignError> {
        let failed = |error: ClusterError| AssignError::Split { node: id, error };
        let node = tree.get(id).map_err(failed)?;
        let centroids: Vec<Vec<f64>> = node
            .children
            .iter()
            .map(|&child| tree.dense_centroid(data, child))
            .collect::<Result<_, _>>()
            .map_err(failed)?;
        let norms = centroids.iter().map(|c| dot(c, c)).collect();
        Ok(NearestCentroid { centroids, norms })
    }
}

impl NodeRouter for NearestCentroid {
    fn route(&self, point: Column) -> (usize, f64) {
        let own = point.norm_squared();
        let distances: Vec<f64> = self
            .centroids
            .iter()
            .zip(&self.norms)
            .map(|(c, norm)| (own - 2.0 * point.dot(c) + norm).max(0.0).sqrt())
            .collect();
        nearest(&distances)
    }
}

/// A leaf's centroid and spread: the largest distance of one of its members from the centroid.
pub(super) struct Spread {
    centroid: Vec<f64>,
    norm: f64,
    pub(super) radius: f64,
}

impl Spread {
    pub(super) fn of(tree: &Tree, data: &DataMatrix, id: usize) -> Result<Spread, ClusterError> {
        let centroid = tree.dense_centroid(data, id)?;
        let norm = dot(&centroid, &centroid);
        let mut spread = Spread {
            centroid,
            norm,
            radius: 0.0,
        };
        spread.radius = tree
            .get(id)?
            .members
            .iter()
            .map(|&j| spread.distance(data.column(j)))
            .fold(0.0, f64::max);
        Ok(spread)
    }

    /// The distance of `point` from the centroid.
    pub(super) fn distance(&self, point: Column) -> f64 {
        (point.norm_squared() - 2.0 * point.dot(&self.centroid) + self.norm)
            .max(0.0)
            .sqrt()
    }
}
