//! The out-of-sample rules of the kernel splits: kernel PCA's projection of a point's centred kernel row
//! (Schölkopf, Smola & Müller), and the nearest child mean in feature space (kernel k-means' assignment step).
//! Both need the point's kernel with every member of the node, and the node's kernel matrix, computed again
//! under the width the split recorded.

use super::{AssignError, NodeRouter, Orthants, child_of, nearest};
use crate::cluster::rules::{SplitEnv, centred_eigenpairs};
use crate::cluster::{ClusterError, Tree};
use crate::linalg::kernel::{PointKernel, kernel_matrix};
use crate::linalg::{Column, Gram};
use crate::matrix::DataMatrix;

/// The kernel of a node's split, its members and their squared norms, and its kernel matrix computed again.
struct NodeKernel<'a> {
    kernel: PointKernel,
    data: &'a DataMatrix,
    members: Vec<usize>,
    norms: Vec<f64>,
    gram: Gram,
}

impl<'a> NodeKernel<'a> {
    fn new(
        tree: &Tree,
        data: &'a DataMatrix,
        id: usize,
        env: SplitEnv,
    ) -> Result<Self, AssignError> {
        let failed = |error: ClusterError| AssignError::Split { node: id, error };
        let node = tree.get(id).map_err(failed)?;
        let split = node
            .split
            .as_ref()
            .ok_or(failed(ClusterError::NoSuchNode(id)))?;
        let spec = split.rule.kernel().cloned().unwrap_or_default();
        let kernel = PointKernel::new(&spec, split.detail.kernel_sigma).map_err(|reason| {
            AssignError::Kernel {
                node: id,
                rule: split.rule.name(),
                kernel: spec.to_string(),
                reason,
            }
        })?;
        let members = node.members.to_vec();
        let matrix = kernel_matrix(
            kernel.spec(),
            data,
            &members,
            env.texts,
            env.memory_budget,
            env.progress,
        )
        .map_err(|error| AssignError::KernelMatrix { node: id, error })?;
        let norms = members.iter().map(|&j| tree.norms_squared()[j]).collect();
        Ok(NodeKernel {
            kernel,
            data,
            members,
            norms,
            gram: matrix.gram,
        })
    }

    /// `k(x, a_j)` for every member `j`, and `k(x, x)`.
    fn row(&self, point: Column) -> (Vec<f64>, f64) {
        let mut dense = vec![0.0; self.data.rows()];
        point.add_to(&mut dense, 1.0);
        let own = point.norm_squared();
        let row = self
            .members
            .iter()
            .zip(&self.norms)
            .map(|(&j, &norm)| {
                self.kernel
                    .value(self.data.column(j).dot(&dense), own, norm)
            })
            .collect();
        (row, self.kernel.value(own, own, own))
    }

    /// Each child's member positions (into the node's members).
    fn child_positions(&self, tree: &Tree, id: usize) -> Result<Vec<Vec<usize>>, ClusterError> {
        let node = tree.get(id)?;
        let children: Vec<&[usize]> = node
            .children
            .iter()
            .map(|&child| tree.get(child).map(|c| &*c.members))
            .collect::<Result<_, _>>()?;
        let mut positions = vec![Vec::new(); children.len()];
        for (position, &j) in self.members.iter().enumerate() {
            if let Some(child) = child_of(&children, j) {
                positions[child].push(position);
            }
        }
        Ok(positions)
    }
}

/// KPDDP's split (and KPDDP_OCPC's) as a rule for any point. With `v_i` the unit eigenvectors of the centred
/// kernel matrix and `lambda_i` their eigenvalues, the point's i-th kernel principal component is
/// `sum_j v_i[j] ktilde(x, a_j) / sqrt(lambda_i)` (Schölkopf, Smola & Müller, eq. (4.1) with the test points'
/// centring of their appendix), which is `sqrt(lambda_i) v_i[j]` for member j; since `v_i` sums to 0 the centred
/// row reduces to `k(x, a_j) - mean_l K_jl`. The split's cut `cut_i` on `v_i` is `sqrt(lambda_i) cut_i` on the
/// component, and the offset from it is a signed distance in feature space.
pub(super) struct KernelProjection<'a> {
    node: NodeKernel<'a>,
    /// `v_i / sqrt(lambda_i)`.
    alphas: Vec<Vec<f64>>,
    /// `sum_j alpha_i[j] mean_l K_jl + sqrt(lambda_i) cut_i`.
    thresholds: Vec<f64>,
    orthants: Orthants,
}

impl<'a> KernelProjection<'a> {
    pub(super) fn new(
        tree: &Tree,
        data: &'a DataMatrix,
        id: usize,
        env: SplitEnv,
    ) -> Result<Self, AssignError> {
        let failed = |error: ClusterError| AssignError::Split { node: id, error };
        let node = NodeKernel::new(tree, data, id, env)?;
        let split = tree.get(id).map_err(failed)?.split.clone();
        let cuts = split.map(|s| s.detail.cuts).unwrap_or_default();
        let pairs = centred_eigenpairs(&node.gram, cuts.len().max(1)).map_err(failed)?;
        let n = node.gram.n();
        let means: Vec<f64> = (0..n)
            .map(|i| node.gram.row(i).iter().sum::<f64>() / n as f64)
            .collect();
        let used = cuts.len().min(pairs.values.len());
        let alphas: Vec<Vec<f64>> = (0..used)
            .map(|i| {
                let scale = pairs.values[i].max(f64::MIN_POSITIVE).sqrt();
                pairs.vectors[i].iter().map(|v| v / scale).collect()
            })
            .collect();
        let thresholds = (0..used)
            .map(|i| {
                let shift: f64 = alphas[i].iter().zip(&means).map(|(a, m)| a * m).sum();
                shift + pairs.values[i].max(0.0).sqrt() * cuts[i]
            })
            .collect();
        let positions = node.child_positions(tree, id).map_err(failed)?;
        let mut projection = KernelProjection {
            node,
            alphas,
            thresholds,
            orthants: Orthants {
                children_of_codes: Vec::new(),
            },
        };
        let mut codes = Vec::new();
        for (child, members) in positions.iter().enumerate() {
            for &position in members {
                let row = projection.node.gram.row(position).to_vec();
                codes.push((super::code_of(&projection.offsets(&row)), child));
            }
        }
        projection.orthants = Orthants::new(codes.into_iter(), positions.len());
        Ok(projection)
    }

    fn offsets(&self, row: &[f64]) -> Vec<f64> {
        self.alphas
            .iter()
            .zip(&self.thresholds)
            .map(|(alpha, threshold)| {
                alpha.iter().zip(row).map(|(a, k)| a * k).sum::<f64>() - threshold
            })
            .collect()
    }
}

impl NodeRouter for KernelProjection<'_> {
    fn route(&self, point: Column) -> (usize, f64) {
        let (row, _) = self.node.row(point);
        self.orthants.route(&self.offsets(&row))
    }
}

/// A kernel k-means split as a rule for any point: the nearest child mean in feature space,
/// `||phi(x) - m_C||^2 = k(x, x) - 2 sum_{j in C} k(x, a_j) / |C| + sum_{i, j in C} K_ij / |C|^2`.
pub(super) struct KernelCentroids<'a> {
    node: NodeKernel<'a>,
    positions: Vec<Vec<usize>>,
    /// `sum_{i, j in C} K_ij / |C|^2` per child.
    within: Vec<f64>,
}

impl<'a> KernelCentroids<'a> {
    pub(super) fn new(
        tree: &Tree,
        data: &'a DataMatrix,
        id: usize,
        env: SplitEnv,
    ) -> Result<Self, AssignError> {
        let node = NodeKernel::new(tree, data, id, env)?;
        let positions = node
            .child_positions(tree, id)
            .map_err(|error| AssignError::Split { node: id, error })?;
        let within = positions
            .iter()
            .map(|members| {
                let size = members.len().max(1) as f64;
                let total: f64 = members
                    .iter()
                    .map(|&i| {
                        let row = node.gram.row(i);
                        members.iter().map(|&j| row[j]).sum::<f64>()
                    })
                    .sum();
                total / (size * size)
            })
            .collect();
        Ok(KernelCentroids {
            node,
            positions,
            within,
        })
    }
}

impl NodeRouter for KernelCentroids<'_> {
    fn route(&self, point: Column) -> (usize, f64) {
        let (row, own) = self.node.row(point);
        let distances: Vec<f64> = self
            .positions
            .iter()
            .zip(&self.within)
            .map(|(members, within)| {
                let size = members.len().max(1) as f64;
                let cross: f64 = members.iter().map(|&i| row[i]).sum::<f64>() / size;
                (own - 2.0 * cross + within).max(0.0).sqrt()
            })
            .collect();
        nearest(&distances)
    }
}
