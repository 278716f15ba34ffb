//! The geodesic kernel of Kim, Shim & Choi (seed 001, section 2.2): a nearest-neighbour graph, shortest-path
//! (geodesic) distances `D`, `Ktilde(X) = -1/2 H X H` with `H = I - (1/n) e e^T`, the constant `c*` from the
//! largest eigenvalue of the 2n x 2n matrix (5), and the kernel (6) with `c = c*`.
//!
//! Reading of (5) and (6). The text prints `Ktilde(D^2)` in every block of (5) and in the middle term of (6). The
//! construction is the additive-constant problem of the Kernel Isomap papers it cites (\[7\], \[8\]: Choi & Choi,
//! after Cailliez 1983), where the lower-right block of (5) and the middle term of (6) are `Ktilde(D)` of the
//! distances themselves:
//!
//! ```text
//! (5)  [ 0   2 Ktilde(D^2) ]        (6)  K = Ktilde(D^2) + 2 c Ktilde(D) + 1/2 c^2 H
//!      [ -I  -4 Ktilde(D)  ]
//! ```
//!
//! With that reading (6) is exactly `Ktilde` of the squared distances `D_ij + c` (i != j), i.e. classical scaling
//! of the geodesic distances with a constant added, and `c*` is the smallest constant that makes them Euclidean,
//! so (6) is positive semi-definite for `c >= c*` as the paper states. Taken literally (`Ktilde(D^2)` throughout)
//! (6) would be `(1 + 2c) Ktilde(D^2) + c^2/2 H`: classical scaling of `D^2`, rescaled, plus a multiple of `H`
//! (which adds the same constant to the squared feature distance of every two distinct points, so the hard k-means
//! objective only shifts by a constant): `c` would barely act on the geometry. pdx follows the cited
//! construction.
//!
//! The graph (seed 001: "edge weights between only connected nodes are set as their Euclidean distances"): each
//! point is joined to its `K` nearest others, and the graph is made symmetric by keeping an edge when either end
//! chose the other (the usual Isomap reading: "i is among j's neighbours OR j among i's"), weighted by the
//! distance (Euclidean, or the cosine document distance (10) `1 - x^T y / (||x|| ||y||)`).
//!
//! Several components. Points in different components have no path. pdx sets their distance to twice the largest
//! finite geodesic distance (1 when every finite distance is 0): larger than every distance inside a component,
//! finite, and the result is still a metric (`2M <= d(a, b) + 2M` for the triangle through a third point). The
//! number of components is reported with the kernel.
//!
//! Memory. One n x n buffer serves the whole construction: the inner products the neighbours are read from, then
//! the geodesic distances (one Dijkstra per source, rows in parallel), then, transformed in place, the kernel. The
//! extra memory is the graph (`2 n K` edges) and the search space of `c*` (at most 3 x [`MAX_BASIS`] vectors of
//! length n), which [`extra_bytes`] adds to the estimate the budget is checked against.
//!
//! Computing `c*`. (5) is the linearisation of the quadratic eigenvalue problem `Q(l) y = (l^2 I + 4 l B1 + 2 B2)
//! y = 0` with `B1 = Ktilde(D)`, `B2 = Ktilde(D^2)` (eliminate the top half: `x = -(l I + 4 B1) y`). Both blocks
//! vanish on `e`, which gives the eigenvalue 0 of (5); on the complement `e^T y = 0`, `Q(l)` is positive definite
//! for every `l` above `c*` and singular at `c*`, so `c* = max_y p(y)` where `p(y)` is the largest real root of the
//! scalar quadratic `y^T Q(l) y = 0` (when that quadratic has real roots). pdx maximises this Rayleigh functional
//! over a growing subspace (nonlinear Rayleigh-Ritz, "nonlinear Arnoldi"): the projected problem is small
//! (`2m x 2m`, solved densely), its largest real eigenvalue is a lower bound of `c*` that rises as the subspace
//! grows, and the subspace is extended by the residual `Q(theta) u` of the current Ritz vector. Each step costs one
//! pass over `D` (products by `B1` and `B2` together). A dense 2n x 2n eigensolver is never run on the full
//! problem; the test `additive_constant_matches_the_dense_eigenvalues` checks the result against one on small n.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use nalgebra::{DMatrix, DVector, Schur, SymmetricEigen};
use rayon::prelude::*;

use super::super::Gram;
use super::KernelError;
use crate::progress::{Cancelled, Progress};
use crate::rng::SplitMix64;

/// Largest search space for `c*` before it is restarted with its best [`KEEP_ON_RESTART`] directions.
pub const MAX_BASIS: usize = 40;
const KEEP_ON_RESTART: usize = 10;
/// Relative residual `||Q(theta) u|| / (theta^2 + 4 theta ||B1|| + 2 ||B2||)` at which `c*` is accepted; the
/// eigenvalue itself is then accurate to about the square of this.
const RESIDUAL_TOLERANCE: f64 = 1e-9;
/// Products by `D` after which the search for `c*` gives up.
const MAX_PRODUCTS: usize = 3000;

/// A geodesic kernel matrix and what was found on the way.
#[derive(Debug, Clone)]
pub(crate) struct Geodesic {
    pub gram: Gram,
    pub components: usize,
    pub c_star: f64,
}

/// Bytes beyond the n x n buffer: the graph's edges (target and weight, both directions) and the `c*` search
/// space.
pub(crate) fn extra_bytes(n: usize, neighbours: usize) -> u64 {
    let edges = 2 * n as u64 * neighbours.min(n) as u64;
    edges * 12 + 3 * MAX_BASIS as u64 * n as u64 * 8
}

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
struct Graph {
    offsets: Vec<usize>,
    targets: Vec<u32>,
    weights: Vec<f64>,
}

impl Graph {
    /// The symmetric neighbourhood graph: an edge when either end chose the other.
    fn symmetric(neighbours: &[Vec<(u32, f64)>]) -> Graph {
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

    fn edges_of(&self, i: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let range = self.offsets[i]..self.offsets[i + 1];
        self.targets[range.clone()]
            .iter()
            .zip(&self.weights[range])
            .map(|(&t, &w)| (t as usize, w))
    }

    /// Connected components (union-find).
    fn components(&self) -> usize {
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
fn shortest_paths(
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

/// The geodesic kernel from each point's nearest neighbours, using `buffer` (n x n, any contents) for the
/// distances and then the kernel.
pub(crate) fn geodesic_kernel(
    neighbours: &[Vec<(u32, f64)>],
    mut buffer: Vec<f64>,
    progress: Option<&Progress>,
) -> Result<Geodesic, KernelError> {
    let n = neighbours.len();
    assert_eq!(buffer.len(), n * n, "geodesic_kernel: the buffer is n x n");
    let graph = Graph::symmetric(neighbours);
    let components = graph.components();
    if let Some(progress) = progress {
        progress.start_phase("geodesic distances", n as u64);
    }
    shortest_paths(&graph, &mut buffer, progress)?;
    drop(graph);
    let largest = buffer
        .par_iter()
        .copied()
        .filter(|d| d.is_finite())
        .reduce(|| 0.0, f64::max);
    let between = if largest > 0.0 { 2.0 * largest } else { 1.0 };
    buffer.par_iter_mut().for_each(|d| {
        if !d.is_finite() {
            *d = between;
        }
    });
    if let Some(progress) = progress {
        progress.start_phase("geodesic constant c*", 0);
    }
    let c_star = additive_constant(n, &buffer, progress)?;
    let gram = kernel_from_distances(n, buffer, c_star);
    Ok(Geodesic {
        gram,
        components,
        c_star,
    })
}

/// Kernel (6), `Ktilde(D^2) + 2 c Ktilde(D) + c^2/2 H`, entry by entry from the row means of `D` and `D^2`,
/// overwriting the distances.
pub(crate) fn kernel_from_distances(n: usize, mut distances: Vec<f64>, c: f64) -> Gram {
    let (mean1, mean2) = row_means(n, &distances);
    let grand1 = mean1.iter().sum::<f64>() / n.max(1) as f64;
    let grand2 = mean2.iter().sum::<f64>() / n.max(1) as f64;
    let inverse_n = 1.0 / n.max(1) as f64;
    distances
        .par_chunks_mut(n.max(1))
        .enumerate()
        .for_each(|(i, row)| {
            for (j, value) in row.iter_mut().enumerate() {
                let d = *value;
                let centred2 = d * d - mean2[i] - mean2[j] + grand2;
                let centred1 = d - mean1[i] - mean1[j] + grand1;
                let h = if i == j { 1.0 - inverse_n } else { -inverse_n };
                *value = -0.5 * centred2 - c * centred1 + 0.5 * c * c * h;
            }
        });
    Gram::from_row_major(n, distances).expect("n x n distances")
}

fn row_means(n: usize, distances: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let scale = 1.0 / n.max(1) as f64;
    distances
        .par_chunks(n.max(1))
        .map(|row| {
            let (s1, s2) = row
                .iter()
                .fold((0.0, 0.0), |(s1, s2), &d| (s1 + d, s2 + d * d));
            (s1 * scale, s2 * scale)
        })
        .unzip()
}

/// `b1 = Ktilde(D) x`, `b2 = Ktilde(D^2) x` for `x` with `e^T x = 0` (so `H x = x`): one pass over `D`.
fn apply_blocks(n: usize, distances: &[f64], x: &[f64], b1: &mut [f64], b2: &mut [f64]) {
    b1.par_iter_mut()
        .zip(b2.par_iter_mut())
        .zip(distances.par_chunks(n))
        .for_each(|((out1, out2), row)| {
            let (mut s1, mut s2) = (0.0, 0.0);
            for (&d, &xj) in row.iter().zip(x) {
                let dx = d * xj;
                s1 += dx;
                s2 += d * dx;
            }
            *out1 = s1;
            *out2 = s2;
        });
    for b in [b1, b2] {
        let mean = b.iter().sum::<f64>() / n as f64;
        b.iter_mut().for_each(|v| *v = -0.5 * (*v - mean));
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn norm(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

/// An orthonormal basis `V` of part of `e^perp`, its images `W1 = B1 V`, `W2 = B2 V` and the projections
/// `A1 = V^T W1`, `A2 = V^T W2`.
struct SearchSpace<'a> {
    n: usize,
    distances: &'a [f64],
    v: Vec<Vec<f64>>,
    w1: Vec<Vec<f64>>,
    w2: Vec<Vec<f64>>,
    a1: DMatrix<f64>,
    a2: DMatrix<f64>,
    products: usize,
}

impl SearchSpace<'_> {
    fn len(&self) -> usize {
        self.v.len()
    }

    /// Add the part of `x` orthogonal to `e` and the basis; false when nothing is left of it.
    fn extend(&mut self, mut x: Vec<f64>) -> bool {
        let before = norm(&x);
        if before == 0.0 || !before.is_finite() {
            return false;
        }
        // Classical Gram-Schmidt, twice ("twice is enough").
        for _ in 0..2 {
            let mean = x.iter().sum::<f64>() / self.n as f64;
            x.iter_mut().for_each(|v| *v -= mean);
            for basis in &self.v {
                let projection = dot(basis, &x);
                x.iter_mut()
                    .zip(basis)
                    .for_each(|(v, b)| *v -= projection * b);
            }
        }
        let after = norm(&x);
        if after <= 1e-10 * before {
            return false;
        }
        x.iter_mut().for_each(|v| *v /= after);
        let mut b1 = vec![0.0; self.n];
        let mut b2 = vec![0.0; self.n];
        apply_blocks(self.n, self.distances, &x, &mut b1, &mut b2);
        self.products += 1;
        let m = self.v.len();
        let mut a1 =
            std::mem::replace(&mut self.a1, DMatrix::zeros(0, 0)).resize(m + 1, m + 1, 0.0);
        let mut a2 =
            std::mem::replace(&mut self.a2, DMatrix::zeros(0, 0)).resize(m + 1, m + 1, 0.0);
        for (i, basis) in self.v.iter().chain(std::iter::once(&x)).enumerate() {
            // Symmetric in exact arithmetic; average the two ways of computing an entry.
            let (p1, p2) = (dot(basis, &b1), dot(basis, &b2));
            let (q1, q2) = if i < m {
                (dot(&x, &self.w1[i]), dot(&x, &self.w2[i]))
            } else {
                (p1, p2)
            };
            a1[(i, m)] = 0.5 * (p1 + q1);
            a1[(m, i)] = a1[(i, m)];
            a2[(i, m)] = 0.5 * (p2 + q2);
            a2[(m, i)] = a2[(i, m)];
        }
        self.a1 = a1;
        self.a2 = a2;
        self.v.push(x);
        self.w1.push(b1);
        self.w2.push(b2);
        true
    }

    /// `sum_k coefficients[k] vectors[k]`.
    fn combine(vectors: &[Vec<f64>], coefficients: &[f64], n: usize) -> Vec<f64> {
        let mut out = vec![0.0; n];
        for (vector, &c) in vectors.iter().zip(coefficients) {
            out.iter_mut().zip(vector).for_each(|(o, v)| *o += c * v);
        }
        out
    }

    /// Replace the basis by `V Y` (Y with orthonormal columns), without new products.
    fn compress(&mut self, y: &DMatrix<f64>) {
        let map = |vectors: &[Vec<f64>]| -> Vec<Vec<f64>> {
            y.column_iter()
                .map(|column| Self::combine(vectors, column.as_slice(), self.n))
                .collect()
        };
        let (v, w1, w2) = (map(&self.v), map(&self.w1), map(&self.w2));
        self.a1 = y.transpose() * &self.a1 * y;
        self.a2 = y.transpose() * &self.a2 * y;
        self.v = v;
        self.w1 = w1;
        self.w2 = w2;
    }
}

fn symmetric_eigen(
    matrix: DMatrix<f64>,
) -> Result<SymmetricEigen<f64, nalgebra::Dyn>, KernelError> {
    let size = matrix.nrows().max(1);
    SymmetricEigen::try_new(matrix, f64::EPSILON, 1000 * size)
        .ok_or_else(|| KernelError::NotConverged("a projected symmetric eigenproblem".into()))
}

/// Columns of `eigen`'s eigenvectors for its `count` smallest eigenvalues, smallest first.
fn smallest_eigenvectors(eigen: &SymmetricEigen<f64, nalgebra::Dyn>, count: usize) -> DMatrix<f64> {
    let mut order: Vec<usize> = (0..eigen.eigenvalues.len()).collect();
    order.sort_by(|&a, &b| eigen.eigenvalues[a].total_cmp(&eigen.eigenvalues[b]));
    order.truncate(count);
    DMatrix::from_columns(
        &order
            .iter()
            .map(|&k| eigen.eigenvectors.column(k).into_owned())
            .collect::<Vec<DVector<f64>>>(),
    )
}

/// The largest positive real eigenvalue of `[0 2 A2; -I -4 A1]`, if it has one.
fn largest_positive_real_eigenvalue(
    a1: &DMatrix<f64>,
    a2: &DMatrix<f64>,
) -> Result<Option<f64>, KernelError> {
    let m = a1.nrows();
    let mut linear = DMatrix::zeros(2 * m, 2 * m);
    linear.view_mut((0, m), (m, m)).copy_from(&(a2 * 2.0));
    linear.view_mut((m, m), (m, m)).copy_from(&(a1 * -4.0));
    for i in 0..m {
        linear[(m + i, i)] = -1.0;
    }
    let schur = Schur::try_new(linear, f64::EPSILON, 1000 * (2 * m).max(1))
        .ok_or_else(|| KernelError::NotConverged("the projected eigenproblem of (5)".into()))?;
    let eigenvalues = schur.complex_eigenvalues();
    let scale = eigenvalues.iter().map(|z| z.norm()).fold(0.0, f64::max);
    Ok(eigenvalues
        .iter()
        .filter(|z| z.im.abs() <= 1e-7 * scale && z.re > 0.0)
        .map(|z| z.re)
        .max_by(f64::total_cmp))
}

/// `c*`, the largest eigenvalue of (5) for the distances `D` (row-major n x n, symmetric, zero diagonal), by the
/// subspace method of the module doc. It is never below 0, the eigenvalue that `e` contributes.
pub(crate) fn additive_constant(
    n: usize,
    distances: &[f64],
    progress: Option<&Progress>,
) -> Result<f64, KernelError> {
    additive_constant_within(n, distances, MAX_BASIS, progress)
}

/// [`additive_constant`] with a search space of at most `max_basis` vectors (at least 4).
fn additive_constant_within(
    n: usize,
    distances: &[f64],
    max_basis: usize,
    progress: Option<&Progress>,
) -> Result<f64, KernelError> {
    let max_basis = max_basis.max(4);
    let keep = KEEP_ON_RESTART.min(max_basis / 2);
    let dimension = n.saturating_sub(1);
    if dimension == 0 {
        return Ok(0.0);
    }
    let mut space = SearchSpace {
        n,
        distances,
        v: Vec::new(),
        w1: Vec::new(),
        w2: Vec::new(),
        a1: DMatrix::zeros(0, 0),
        a2: DMatrix::zeros(0, 0),
        products: 0,
    };
    // A fixed start: the constant is a property of D, not of a seed.
    let mut start = vec![0.0; n];
    SplitMix64::new(0x00c0_ffee).fill_symmetric(&mut start);
    if !space.extend(start) {
        return Ok(0.0);
    }
    while space.products < MAX_PRODUCTS {
        if let Some(progress) = progress {
            progress.check()?;
            progress.advance(1);
        }
        let m = space.len();
        let eigen1 = symmetric_eigen(space.a1.clone())?;
        let eigen2 = symmetric_eigen(space.a2.clone())?;
        let norm1 = eigen1.eigenvalues.amax();
        let norm2 = eigen2.eigenvalues.amax();
        let full = m >= dimension;
        match largest_positive_real_eigenvalue(&space.a1, &space.a2)? {
            Some(theta) => {
                let q = DMatrix::identity(m, m) * (theta * theta)
                    + &space.a1 * (4.0 * theta)
                    + &space.a2 * 2.0;
                let eigen = symmetric_eigen(q)?;
                let y = smallest_eigenvectors(&eigen, 1);
                let coefficients = y.column(0);
                let u = SearchSpace::combine(&space.v, coefficients.as_slice(), n);
                let b1u = SearchSpace::combine(&space.w1, coefficients.as_slice(), n);
                let b2u = SearchSpace::combine(&space.w2, coefficients.as_slice(), n);
                let residual: Vec<f64> = (0..n)
                    .map(|i| theta * theta * u[i] + 4.0 * theta * b1u[i] + 2.0 * b2u[i])
                    .collect();
                let scale = theta * theta + 4.0 * theta * norm1 + 2.0 * norm2;
                if full || norm(&residual) <= RESIDUAL_TOLERANCE * scale {
                    return Ok(theta);
                }
                if m >= max_basis {
                    space.compress(&smallest_eigenvectors(&eigen, keep));
                }
                if !space.extend(residual) {
                    return Ok(theta);
                }
            }
            None => {
                // No positive root in the subspace yet: look along the most negative directions of both blocks,
                // where one appears first (a negative `y^T B2 y`, or a negative `y^T B1 y` with a small `B2` part).
                let mut residuals = Vec::new();
                let mut converged = true;
                for (eigen, w, block_norm) in
                    [(&eigen1, &space.w1, norm1), (&eigen2, &space.w2, norm2)]
                {
                    let y = smallest_eigenvectors(eigen, 1);
                    let mu = eigen.eigenvalues.min();
                    let coefficients = y.column(0);
                    let u = SearchSpace::combine(&space.v, coefficients.as_slice(), n);
                    let bu = SearchSpace::combine(w, coefficients.as_slice(), n);
                    let residual: Vec<f64> = bu.iter().zip(&u).map(|(b, x)| b - mu * x).collect();
                    if norm(&residual) > RESIDUAL_TOLERANCE * block_norm.max(f64::MIN_POSITIVE) {
                        converged = false;
                    }
                    residuals.push(residual);
                }
                if full || converged {
                    return Ok(0.0);
                }
                if m + 2 > max_basis {
                    let half = keep / 2;
                    let mut keep = smallest_eigenvectors(&eigen1, half);
                    let other = smallest_eigenvectors(&eigen2, half);
                    keep = keep.resize_horizontally(2 * half, 0.0);
                    keep.view_mut((0, half), (m, half)).copy_from(&other);
                    let orthonormal = keep.qr().q();
                    space.compress(&orthonormal);
                }
                let mut grown = false;
                for residual in residuals {
                    grown |= space.extend(residual);
                }
                if !grown {
                    return Ok(0.0);
                }
            }
        }
    }
    Err(KernelError::NotConverged(format!(
        "c* after {MAX_PRODUCTS} products by the distance matrix"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pairwise Euclidean distances of points (rows of `points`).
    fn euclidean(points: &[Vec<f64>]) -> impl Fn(usize, usize) -> f64 + Sync + '_ {
        move |i, j| {
            points[i]
                .iter()
                .zip(&points[j])
                .map(|(a, b)| (a - b) * (a - b))
                .sum::<f64>()
                .sqrt()
        }
    }

    fn random_points(count: usize, dims: usize, seed: u64) -> Vec<Vec<f64>> {
        let mut rng = SplitMix64::new(seed);
        (0..count)
            .map(|_| (0..dims).map(|_| rng.next_symmetric()).collect())
            .collect()
    }

    fn geodesic_of(points: &[Vec<f64>], k: usize) -> Geodesic {
        let n = points.len();
        let neighbours = nearest_neighbours(n, k, euclidean(points), None).expect("not cancelled");
        geodesic_kernel(&neighbours, vec![0.0; n * n], None).expect("geodesic kernel")
    }

    fn dense(gram: &Gram) -> DMatrix<f64> {
        DMatrix::from_row_slice(gram.n(), gram.n(), gram.values())
    }

    /// `Ktilde(X)` densely.
    fn centred(x: &DMatrix<f64>) -> DMatrix<f64> {
        let n = x.nrows();
        let h = DMatrix::identity(n, n) - DMatrix::from_element(n, n, 1.0 / n as f64);
        &h * x * &h * -0.5
    }

    /// The largest real eigenvalue of the full 2n x 2n matrix (5), densely.
    fn dense_c_star(distances: &[f64], n: usize) -> f64 {
        let d = DMatrix::from_row_slice(n, n, distances);
        let b1 = centred(&d);
        let b2 = centred(&d.component_mul(&d));
        let mut m = DMatrix::zeros(2 * n, 2 * n);
        m.view_mut((0, n), (n, n)).copy_from(&(b2 * 2.0));
        m.view_mut((n, n), (n, n)).copy_from(&(b1 * -4.0));
        for i in 0..n {
            m[(n + i, i)] = -1.0;
        }
        let eigenvalues = m.complex_eigenvalues();
        let scale = eigenvalues.iter().map(|z| z.norm()).fold(0.0, f64::max);
        eigenvalues
            .iter()
            .filter(|z| z.im.abs() <= 1e-7 * scale)
            .map(|z| z.re)
            .fold(f64::NEG_INFINITY, f64::max)
    }

    fn distances_of(points: &[Vec<f64>], k: usize) -> Vec<f64> {
        let n = points.len();
        let neighbours = nearest_neighbours(n, k, euclidean(points), None).expect("not cancelled");
        let graph = Graph::symmetric(&neighbours);
        let mut out = vec![0.0; n * n];
        shortest_paths(&graph, &mut out, None).expect("not cancelled");
        out
    }

    #[test]
    fn additive_constant_matches_the_dense_eigenvalues() {
        for (seed, count, k) in [
            (1, 12, 3),
            (2, 30, 4),
            (3, 45, 5),
            (4, 60, 3),
            (5, 80, 6),
            (6, 300, 6),
        ] {
            let points = random_points(count, 3, seed);
            let distances = distances_of(&points, k);
            assert!(
                distances.iter().all(|d| d.is_finite()),
                "seed {seed} is connected"
            );
            let expected = dense_c_star(&distances, count);
            let found = additive_constant(count, &distances, None).expect("converges");
            assert!(
                (found - expected).abs() <= 1e-7 * expected.abs().max(1.0),
                "seed {seed}: subspace {found}, dense {expected}"
            );
            // A small search space forces restarts; the answer must not change.
            let restarted =
                additive_constant_within(count, &distances, 8, None).expect("converges");
            assert!(
                (restarted - expected).abs() <= 1e-7 * expected.abs().max(1.0),
                "seed {seed}: restarted {restarted}, dense {expected}"
            );
        }
    }

    #[test]
    fn euclidean_distances_need_no_constant() {
        // Points on a line with every pair joined: D is Euclidean, so only the eigenvalue 0 (from e) is real and
        // non-negative, and c* = 0.
        let n = 15;
        let positions: Vec<f64> = (0..n).map(|i| (i * i) as f64 * 0.1).collect();
        let distances: Vec<f64> = (0..n * n)
            .map(|k| (positions[k / n] - positions[k % n]).abs())
            .collect();
        let expected = dense_c_star(&distances, n);
        assert!(expected.abs() < 1e-8, "dense says {expected}");
        let found = additive_constant(n, &distances, None).expect("converges");
        assert!(found.abs() < 1e-8, "{found}");
    }

    fn smallest_and_largest_eigenvalues(gram: &Gram) -> (f64, f64) {
        let eigen = SymmetricEigen::new(dense(gram));
        (eigen.eigenvalues.min(), eigen.eigenvalues.max())
    }

    #[test]
    fn the_geodesic_kernel_is_positive_semi_definite() {
        for (seed, count, k) in [(7, 20, 3), (8, 50, 4), (9, 90, 6), (10, 120, 5)] {
            let geodesic = geodesic_of(&random_points(count, 2, seed), k);
            let (smallest, largest) = smallest_and_largest_eigenvalues(&geodesic.gram);
            assert!(
                smallest >= -1e-8 * largest,
                "seed {seed}: eigenvalues {smallest} .. {largest}, c* {}",
                geodesic.c_star
            );
            assert!(
                geodesic.c_star > 0.0,
                "graph distances are not Euclidean here"
            );
        }
    }

    #[test]
    fn a_disconnected_graph_gives_a_finite_positive_semi_definite_kernel() {
        // Three clumps far apart: with 3 neighbours each the graph falls into three components.
        let mut points = random_points(45, 2, 12);
        for (i, point) in points.iter_mut().enumerate() {
            point[0] += 100.0 * (i % 3) as f64;
        }
        let geodesic = geodesic_of(&points, 3);
        assert_eq!(geodesic.components, 3);
        assert!(geodesic.gram.values().iter().all(|v| v.is_finite()));
        let (smallest, largest) = smallest_and_largest_eigenvalues(&geodesic.gram);
        assert!(smallest >= -1e-8 * largest, "{smallest} .. {largest}");
    }

    #[test]
    fn kernel_six_is_classical_scaling_of_the_shifted_distances() {
        let points = random_points(25, 2, 21);
        let distances = distances_of(&points, 4);
        let n = points.len();
        let c = 0.7;
        let kernel = kernel_from_distances(n, distances.clone(), c);
        let shifted = DMatrix::from_fn(n, n, |i, j| {
            let d = distances[i * n + j] + if i == j { 0.0 } else { c };
            d * d
        });
        let expected = centred(&shifted);
        assert!((dense(&kernel) - expected).amax() < 1e-10);
    }

    #[test]
    fn neighbours_are_the_nearest_and_the_graph_is_symmetric() {
        let points: Vec<Vec<f64>> = [0.0, 1.0, 3.0, 7.0].iter().map(|&x| vec![x]).collect();
        let neighbours = nearest_neighbours(4, 1, euclidean(&points), None).expect("not cancelled");
        let chosen: Vec<u32> = neighbours.iter().map(|list| list[0].0).collect();
        assert_eq!(chosen, vec![1, 0, 1, 2]);
        let graph = Graph::symmetric(&neighbours);
        let edges_of_1: Vec<usize> = graph.edges_of(1).map(|(t, _)| t).collect();
        assert_eq!(edges_of_1, vec![0, 2]);
        assert_eq!(graph.components(), 1);
    }

    #[test]
    fn every_stage_stops_when_cancelled() {
        let points = random_points(30, 2, 5);
        let distances = distances_of(&points, 4);
        let progress = Progress::default();
        progress.cancel();
        assert!(nearest_neighbours(30, 4, euclidean(&points), Some(&progress)).is_err());
        let neighbours =
            nearest_neighbours(30, 4, euclidean(&points), None).expect("not cancelled");
        let mut out = vec![0.0; 900];
        assert!(shortest_paths(&Graph::symmetric(&neighbours), &mut out, Some(&progress)).is_err());
        assert!(matches!(
            additive_constant(30, &distances, Some(&progress)),
            Err(KernelError::Cancelled(_))
        ));
    }
}
