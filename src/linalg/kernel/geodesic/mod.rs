//! The geodesic kernel of Kim, Shim & Choi (*Soft geodesic kernel k-means*, section 2.2): a nearest-neighbour
//! graph, shortest-path (geodesic) distances `D`, `Ktilde(X) = -1/2 H X H` with `H = I - (1/n) e e^T`, the
//! constant `c*` from the largest eigenvalue of the 2n x 2n matrix (5), and the kernel (6) with `c = c*`.
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
//! The parts: `graph` builds the neighbourhood graph and its shortest paths, `constant` computes `c*`.

use rayon::prelude::*;

use super::KernelError;
use crate::linalg::Gram;
use crate::progress::Progress;
use constant::{MAX_BASIS, additive_constant};
use graph::{Graph, shortest_paths};

mod constant;
mod graph;
#[cfg(test)]
mod tests;

pub(crate) use graph::nearest_neighbours;

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
