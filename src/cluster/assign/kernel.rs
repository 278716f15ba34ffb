//! The out-of-sample rules of the kernel splits: kernel PCA's projection of a point's centred kernel row
//! (Schölkopf, Smola & Müller), and the nearest child mean in feature space (kernel k-means' assignment step).
//! Both need the point's kernel with every member of the node, and the node's kernel matrix, computed again
//! under the width the split recorded.

use super::{AssignError, NodeRouter, Orthants, child_of, nearest};
use crate::cluster::Laplacian;
use crate::cluster::rules::alignment::leading_pair;
use crate::cluster::rules::cut_cost::second_eigenpair;
use crate::cluster::rules::soft_kernel_kmeans::{START_TRIALS, best_of_starts};
use crate::cluster::rules::spectral::laplacian_embedding;
use crate::cluster::rules::{SplitEnv, centred_eigenpairs};
use crate::cluster::{ClusterError, Tree};
use crate::linalg::kernel::{PointKernel, kernel_matrix};
use crate::linalg::kernel_ops::{CentredEntries, degrees};
use crate::linalg::{Column, Gram};
use crate::matrix::DataMatrix;
use crate::rng::SplitMix64;

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
        // The split's own kernel, so that the matrix is the one it split, bit for bit (the same width, found the
        // same way); the point's row uses the width it recorded.
        let matrix = kernel_matrix(
            &spec,
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
/// `sum_j v_i[j] ktilde(x, a_j) / sqrt(lambda_i)` (Schölkopf, Smola & Müller: the projection of a test point, with the test points'
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

/// A kernel k-means split as a rule for any point: the nearest of its groups' means in feature space, each mean
/// `m_g = sum_l w_gl phi(a_l)` (hard groups: `w_gl = 1 / |C|` on the group's members; soft groups: the
/// responsibilities over their total, eq. (4) of Kim, Shim & Choi), at the distance
/// `||phi(x) - m_g||^2 = k(x, x) - 2 sum_l w_gl k(x, a_l) + w_g^T K w_g`. For soft kernel k-means this is the
/// assignment (7)-(8) itself: the largest responsibility is the nearest soft mean.
pub(super) struct KernelMeans<'a> {
    node: NodeKernel<'a>,
    /// One weight per member position, per group.
    weights: Vec<Vec<f64>>,
    /// `w_g^T K w_g` per group.
    within: Vec<f64>,
    /// The child position of each group.
    child_of_group: Vec<usize>,
}

impl<'a> KernelMeans<'a> {
    /// The children's hard means (kernel k-means, KPDDP_2MEANS).
    pub(super) fn hard(
        tree: &Tree,
        data: &'a DataMatrix,
        id: usize,
        env: SplitEnv,
    ) -> Result<Self, AssignError> {
        let node = NodeKernel::new(tree, data, id, env)?;
        let positions = node
            .child_positions(tree, id)
            .map_err(|error| AssignError::Split { node: id, error })?;
        let n = node.members.len();
        let weights = positions
            .iter()
            .map(|members| {
                let mut weights = vec![0.0; n];
                let share = 1.0 / members.len().max(1) as f64;
                members.iter().for_each(|&i| weights[i] = share);
                weights
            })
            .collect();
        let child_of_group = (0..positions.len()).collect();
        Ok(KernelMeans::with_weights(node, weights, child_of_group))
    }

    /// Soft kernel k-means' soft means, from its responsibilities computed again (the same starts, drawn from
    /// the rule's seed and the node's id).
    pub(super) fn soft(
        tree: &Tree,
        data: &'a DataMatrix,
        id: usize,
        env: SplitEnv,
    ) -> Result<Self, AssignError> {
        let failed = |error: ClusterError| AssignError::Split { node: id, error };
        let node = NodeKernel::new(tree, data, id, env)?;
        let params = tree
            .get(id)
            .map_err(failed)?
            .split
            .as_ref()
            .map(|split| split.rule.params().clone())
            .unwrap_or_default();
        let (k, beta) = (params.k_way.max(1), params.beta);
        let mut generator = SplitMix64::for_stream(params.seed, id as u64);
        let grouping = best_of_starts(
            &node.gram,
            k,
            beta,
            START_TRIALS,
            &mut generator,
            env.progress,
        )
        .map_err(|_| AssignError::Cancelled)?;
        let n = node.members.len();
        let weights: Vec<Vec<f64>> = (0..k)
            .map(|g| {
                let column: Vec<f64> = (0..n)
                    .map(|t| grouping.responsibilities[t * k + g])
                    .collect();
                let total: f64 = column.iter().sum();
                match total > 0.0 {
                    true => column.iter().map(|r| r / total).collect(),
                    false => column,
                }
            })
            .collect();
        // Each group to the child most of its members (by largest responsibility) are in.
        let positions = node.child_positions(tree, id).map_err(failed)?;
        let mut child_at = vec![0; n];
        for (child, members) in positions.iter().enumerate() {
            members.iter().for_each(|&i| child_at[i] = child);
        }
        let votes = Orthants::new(
            grouping.assignment.iter().copied().zip(child_at),
            positions.len(),
        );
        let child_of_group = (0..k)
            .map(|g| {
                votes
                    .children_of_codes
                    .iter()
                    .find(|&&(code, _)| code == g)
                    .map_or(0, |&(_, child)| child)
            })
            .collect();
        Ok(KernelMeans::with_weights(node, weights, child_of_group))
    }

    fn with_weights(
        node: NodeKernel<'a>,
        weights: Vec<Vec<f64>>,
        child_of_group: Vec<usize>,
    ) -> Self {
        let within = weights
            .iter()
            .map(|w| {
                (0..w.len())
                    .filter(|&i| w[i] != 0.0)
                    .map(|i| {
                        w[i] * node
                            .gram
                            .row(i)
                            .iter()
                            .zip(w)
                            .map(|(k, x)| k * x)
                            .sum::<f64>()
                    })
                    .sum()
            })
            .collect();
        KernelMeans {
            node,
            weights,
            within,
            child_of_group,
        }
    }
}

impl NodeRouter for KernelMeans<'_> {
    fn route(&self, point: Column) -> (usize, f64) {
        let (row, own) = self.node.row(point);
        let distances: Vec<f64> = self
            .weights
            .iter()
            .zip(&self.within)
            .map(|(weights, within)| {
                let cross: f64 = weights.iter().zip(&row).map(|(w, k)| w * k).sum();
                (own - 2.0 * cross + within).max(0.0).sqrt()
            })
            .collect();
        let (group, margin) = nearest(&distances);
        (self.child_of_group[group], margin)
    }
}

/// How a member's entry of an eigenvector extends to a point: the Nyström extension of the matrix the rule took
/// the eigenvector of (the Nyström formula of Bengio et al.), from the point's kernel row.
enum Extension {
    /// The alignment split's centred (normalised) kernel `K_c`: `v(x) = sum_j (s_x s_j k(x, a_j) - g_j / n) v_j /
    /// lambda` (the terms constant in j vanish, as `v` sums to 0); `s` the normalising factors, `g` the row sums
    /// of `S K S`.
    Centred {
        lambda: f64,
        scale: Vec<f64>,
        row_means: Vec<f64>,
        normalise: bool,
    },
    /// The cut-cost split's `L = D - K`: `v(x) = sum_j k(x, a_j) v_j / (d(x) - lambda)`, `d(x) = sum_j k(x, a_j)`;
    /// where `d(x) <= lambda` (a point with almost no similarity to the node) the harmonic extension
    /// `sum_j k(x, a_j) v_j / d(x)`, the limit of the same formula for `lambda` small beside `d(x)`.
    Laplacian { lambda: f64 },
}

/// A threshold split on one eigenvector (alignment, cut-cost) as a rule for any point: its Nyström-extended entry
/// against the split's threshold. The margin is `v(x) - theta` in the eigenvector's units (for alignment
/// times `sqrt(lambda)`, the signed distance along the principal axis of the centred normalised kernel).
pub(super) struct EigenvectorThreshold<'a> {
    node: NodeKernel<'a>,
    vector: Vec<f64>,
    threshold: f64,
    /// What the margin is scaled by.
    unit: f64,
    extension: Extension,
    orthants: Orthants,
}

impl<'a> EigenvectorThreshold<'a> {
    pub(super) fn new(
        tree: &Tree,
        data: &'a DataMatrix,
        id: usize,
        env: SplitEnv,
        laplacian: bool,
    ) -> Result<Self, AssignError> {
        let failed = |error: ClusterError| AssignError::Split { node: id, error };
        let node = NodeKernel::new(tree, data, id, env)?;
        let split = tree.get(id).map_err(failed)?.split.clone();
        let (threshold, normalise) = split
            .as_ref()
            .map(|s| {
                (
                    s.detail.cuts.first().copied().unwrap_or(0.0),
                    s.rule.params().normalise,
                )
            })
            .unwrap_or((0.0, false));
        let degenerate = || {
            failed(ClusterError::Degenerate {
                reason: "no eigenvector".into(),
            })
        };
        let (vector, unit, extension) = if laplacian {
            let degree = degrees(&node.gram);
            let (lambda, vector) = second_eigenpair(&node.gram, &degree)
                .map_err(failed)?
                .ok_or_else(degenerate)?;
            (vector, 1.0, Extension::Laplacian { lambda })
        } else {
            let centred = CentredEntries::new(&node.gram, normalise);
            let mut pairs = leading_pair(&centred).map_err(failed)?;
            let lambda = pairs.values.first().copied().ok_or_else(degenerate)?;
            let vector = pairs.vectors.pop().ok_or_else(degenerate)?;
            let n = node.gram.n() as f64;
            let extension = Extension::Centred {
                lambda,
                scale: centred.scale.clone(),
                row_means: centred.row_sums.iter().map(|g| g / n).collect(),
                normalise,
            };
            (vector, lambda.max(0.0).sqrt(), extension)
        };
        let positions = node.child_positions(tree, id).map_err(failed)?;
        let mut split = EigenvectorThreshold {
            node,
            vector,
            threshold,
            unit,
            extension,
            orthants: Orthants {
                children_of_codes: Vec::new(),
            },
        };
        let mut codes = Vec::new();
        for (child, members) in positions.iter().enumerate() {
            for &position in members {
                let offset = split.vector[position] - split.threshold;
                codes.push((super::code_of(&[offset]), child));
            }
        }
        split.orthants = Orthants::new(codes.into_iter(), positions.len());
        Ok(split)
    }

    /// The point's entry of the eigenvector, from its kernel row and `k(x, x)`.
    fn extended(&self, row: &[f64], own: f64) -> f64 {
        let weighted = |weights: &mut dyn Iterator<Item = f64>| -> f64 {
            weights.zip(&self.vector).map(|(w, v)| w * v).sum()
        };
        match &self.extension {
            Extension::Centred {
                lambda,
                scale,
                row_means,
                normalise,
            } => {
                let own_scale = match (*normalise, own > 0.0) {
                    (true, true) => 1.0 / own.sqrt(),
                    (true, false) => 0.0,
                    (false, _) => 1.0,
                };
                let mut terms = row
                    .iter()
                    .zip(scale)
                    .zip(row_means)
                    .map(|((k, s), g)| own_scale * s * k - g);
                weighted(&mut terms) / lambda.max(f64::MIN_POSITIVE)
            }
            Extension::Laplacian { lambda } => {
                let degree: f64 = row.iter().sum();
                let sum = weighted(&mut row.iter().copied());
                match degree > *lambda {
                    true => sum / (degree - lambda),
                    false if degree > 0.0 => sum / degree,
                    false => 0.0,
                }
            }
        }
    }
}

impl NodeRouter for EigenvectorThreshold<'_> {
    fn route(&self, point: Column) -> (usize, f64) {
        let (row, own) = self.node.row(point);
        let offset = self.extended(&row, own) - self.threshold;
        let (child, _) = self.orthants.route(&[offset]);
        (child, offset * self.unit)
    }
}

/// A spectral split as a rule for any point: its coordinates on the Laplacian's eigenvectors by the Nyström
/// extension (the Nyström formula of Bengio et al.: `u(x) = sum_j k(x, a_j) u_j / (d(x) (1 - lambda))` for `L_rw`,
/// `sum_j k(x, a_j) w_j / (sqrt(d(x) d_j) (1 - lambda))` for `L_sym`, and as for cut-cost for `L`), then the
/// nearest child centroid in that embedding (k-means' assignment step); margin, the difference of distances there.
pub(super) struct LaplacianEmbedding<'a> {
    node: NodeKernel<'a>,
    laplacian: Laplacian,
    values: Vec<f64>,
    vectors: Vec<Vec<f64>>,
    degree: Vec<f64>,
    /// Each child's centroid in the embedding.
    centroids: Vec<Vec<f64>>,
}

impl<'a> LaplacianEmbedding<'a> {
    pub(super) fn new(
        tree: &Tree,
        data: &'a DataMatrix,
        id: usize,
        env: SplitEnv,
    ) -> Result<Self, AssignError> {
        let failed = |error: ClusterError| AssignError::Split { node: id, error };
        let node = NodeKernel::new(tree, data, id, env)?;
        let params = tree
            .get(id)
            .map_err(failed)?
            .split
            .as_ref()
            .map(|split| split.rule.params().clone())
            .unwrap_or_default();
        let (values, vectors, degree) =
            laplacian_embedding(&node.gram, params.k_way, params.laplacian).map_err(failed)?;
        let positions = node.child_positions(tree, id).map_err(failed)?;
        let centroids = positions
            .iter()
            .map(|members| {
                let size = members.len().max(1) as f64;
                vectors
                    .iter()
                    .map(|u| members.iter().map(|&i| u[i]).sum::<f64>() / size)
                    .collect()
            })
            .collect();
        Ok(LaplacianEmbedding {
            node,
            laplacian: params.laplacian,
            values,
            vectors,
            degree,
            centroids,
        })
    }

    /// The point's coordinates on the eigenvectors.
    fn embedded(&self, row: &[f64]) -> Vec<f64> {
        let d: f64 = row.iter().sum();
        self.vectors
            .iter()
            .zip(&self.values)
            .map(|(u, &lambda)| {
                let sum = |weights: &mut dyn Iterator<Item = f64>| -> f64 {
                    weights.zip(u).map(|(w, x)| w * x).sum()
                };
                match self.laplacian {
                    Laplacian::Unnormalized => {
                        let s = sum(&mut row.iter().copied());
                        match d > lambda {
                            true => s / (d - lambda),
                            false if d > 0.0 => s / d,
                            false => 0.0,
                        }
                    }
                    Laplacian::Rw => {
                        let s = sum(&mut row.iter().copied());
                        let scale = d * (1.0 - lambda);
                        if scale > 0.0 { s / scale } else { 0.0 }
                    }
                    Laplacian::Sym => {
                        let mut weights = row
                            .iter()
                            .zip(&self.degree)
                            .map(|(k, &dj)| if dj > 0.0 { k / dj.sqrt() } else { 0.0 });
                        let s = sum(&mut weights);
                        let scale = d.sqrt() * (1.0 - lambda);
                        if scale > 0.0 { s / scale } else { 0.0 }
                    }
                }
            })
            .collect()
    }
}

impl NodeRouter for LaplacianEmbedding<'_> {
    fn route(&self, point: Column) -> (usize, f64) {
        let (row, _) = self.node.row(point);
        let x = self.embedded(&row);
        let distances: Vec<f64> = self
            .centroids
            .iter()
            .map(|c| {
                c.iter()
                    .zip(&x)
                    .map(|(a, b)| (a - b) * (a - b))
                    .sum::<f64>()
                    .sqrt()
            })
            .collect();
        nearest(&distances)
    }
}
