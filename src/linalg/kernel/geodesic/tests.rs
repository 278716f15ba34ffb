//! The geodesic kernel's tests: `c*` against a dense eigensolver, positive semi-definiteness, disconnected
//! graphs, kernel (6) as classical scaling, and cancellation.

use nalgebra::{DMatrix, SymmetricEigen};

use super::constant::additive_constant_within;
use super::*;
use crate::rng::SplitMix64;

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
        let restarted = additive_constant_within(count, &distances, 8, None).expect("converges");
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
    let neighbours = nearest_neighbours(30, 4, euclidean(&points), None).expect("not cancelled");
    let mut out = vec![0.0; 900];
    assert!(shortest_paths(&Graph::symmetric(&neighbours), &mut out, Some(&progress)).is_err());
    assert!(matches!(
        additive_constant(30, &distances, Some(&progress)),
        Err(KernelError::Cancelled(_))
    ));
}
