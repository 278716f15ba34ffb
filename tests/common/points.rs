//! Small point sets and dense oracles for the brute-force checks of the kernel rules.

use nalgebra::{DMatrix, SymmetricEigen};
use pdx::cluster::Tree;
use pdx::linalg::Gram;
use pdx::linalg::kernel::{KernelSpec, kernel_matrix};
use pdx::matrix::DataMatrix;
use pdx::rng::SplitMix64;

/// `sizes.len()` seeded clouds in `dims` dimensions around random centres `spread` apart.
pub fn clouds(seed: u64, dims: usize, sizes: &[usize], spread: f64) -> DataMatrix {
    let mut rng = SplitMix64::new(seed);
    let centres: Vec<Vec<f64>> = sizes
        .iter()
        .map(|_| (0..dims).map(|_| spread * rng.next_symmetric()).collect())
        .collect();
    let mut values = Vec::new();
    for (centre, &size) in centres.iter().zip(sizes) {
        for _ in 0..size {
            for &c in centre {
                let noise: f64 = (0..3).map(|_| rng.next_symmetric()).sum();
                values.push(c + noise);
            }
        }
    }
    let n: usize = sizes.iter().sum();
    DataMatrix::Dense {
        matrix: DMatrix::from_column_slice(dims, n, &values),
        features: (1..=dims).map(|i| format!("x{i}")).collect(),
    }
}

pub fn all_columns(data: &DataMatrix) -> Vec<usize> {
    (0..data.cols()).collect()
}

pub fn children_members(tree: &Tree, id: usize) -> Vec<Vec<usize>> {
    tree.node(id)
        .expect("node")
        .children
        .iter()
        .map(|&c| tree.node(c).expect("child").members.to_vec())
        .collect()
}

pub fn gram_of(kernel: &KernelSpec, data: &DataMatrix) -> Gram {
    kernel_matrix(kernel, data, &all_columns(data), None, u64::MAX, None)
        .expect("kernel matrix")
        .gram
}

/// Small random points for the brute-force checks: two loose groups in the plane.
pub fn small_set(seed: u64, n: usize) -> DataMatrix {
    let sizes = [n / 2, n - n / 2];
    clouds(seed, 2, &sizes, 2.0)
}

/// Eigenpairs, descending.
pub fn eigen_descending(matrix: DMatrix<f64>) -> (Vec<f64>, Vec<Vec<f64>>) {
    let eigen = SymmetricEigen::new(matrix);
    let mut order: Vec<usize> = (0..eigen.eigenvalues.len()).collect();
    order.sort_by(|&a, &b| eigen.eigenvalues[b].total_cmp(&eigen.eigenvalues[a]));
    (
        order.iter().map(|&i| eigen.eigenvalues[i]).collect(),
        order
            .iter()
            .map(|&i| eigen.eigenvectors.column(i).iter().copied().collect())
            .collect(),
    )
}

pub fn dense(gram: &Gram) -> DMatrix<f64> {
    DMatrix::from_row_slice(gram.n(), gram.n(), gram.values())
}

pub fn quadratic(matrix: &DMatrix<f64>, y: &[f64]) -> f64 {
    let n = y.len();
    (0..n)
        .map(|i| (0..n).map(|j| y[i] * matrix[(i, j)] * y[j]).sum::<f64>())
        .sum()
}

/// The labellings `sign(v - theta)` over every threshold between distinct consecutive values of `v`, each as the
/// set of members below the threshold.
pub fn threshold_sets(v: &[f64]) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    (1..v.len())
        .filter(|&t| v[order[t - 1]] != v[order[t]])
        .map(|t| {
            let mut below = order[..t].to_vec();
            below.sort_unstable();
            below
        })
        .collect()
}

pub fn labels_of(below: &[usize], n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| if below.contains(&i) { -1.0 } else { 1.0 })
        .collect()
}

/// Both children of the root, as a set pair independent of order.
pub fn split_sets(tree: &Tree) -> (Vec<usize>, Vec<usize>) {
    let mut children = children_members(tree, 0);
    children.sort();
    (children[0].clone(), children[1].clone())
}

pub fn pair_of(below: Vec<usize>, n: usize) -> (Vec<usize>, Vec<usize>) {
    let above: Vec<usize> = (0..n).filter(|i| !below.contains(i)).collect();
    let mut both = [below, above];
    both.sort();
    let [a, b] = both;
    (a, b)
}
