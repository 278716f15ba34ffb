//! Products with the matrices the kernel split rules take eigenvectors of, all derived from a node's kernel
//! matrix `K` ([`Gram`]) without forming them: the centred Gram matrix `(I - P) K (I - P)` of KPCA (Zeimpekis &
//! Gallopoulos, eqs. (3)-(4); with a diagonal scaling, the normalised centred kernel of Cristianini,
//! Shawe-Taylor & Kandola, section 3.1), the shifted Laplacian `c I - (D - K)` (Cristianini, Shawe-Taylor &
//! Kandola, section 3.2; Gkotsopoulou & Monge) and the shifted normalised affinity `D^{-1/2} K D^{-1/2} + I`
//! (Gkotsopoulou & Monge's `L_sym` and `L_rw`).
//!
//! Why the Golub-Kahan-Lanczos code of PDDP can find eigenvectors here: every operator below is symmetric, and
//! [`leading_eigenpairs`] makes it positive semi-definite (by a shift where it need not be). For a symmetric PSD
//! matrix `S = Q Lambda Q^T` with `Lambda >= 0` this *is* a singular value decomposition (`U = V = Q`,
//! `Sigma = Lambda`), and singular values that differ are distinct, so the leading singular triplets are the
//! leading eigenpairs: `v_i` an eigenvector, `sigma_i` its eigenvalue. A negative eigenvalue `mu` would instead
//! show up as a singular value `|mu|` with `u = -v`; [`leading_eigenpairs`] detects that from the sign of
//! `u . v` and shifts the operator until it cannot happen. Smallest eigenvalues (the Laplacians') become leading
//! ones through the shift `c I - L`, with `c` at least the largest eigenvalue of `L`.

use rayon::prelude::*;

use super::{Gram, LanczosOptions, LinalgError, LinearOperator, leading_singular_auto};

/// `y = P_c (S K S + diag(delta)) P_c x`: the kernel matrix `K` between an optional diagonal scaling `S` and an
/// optional centring projector `P_c = I - e e^T / n`, plus a diagonal term. Symmetric by construction, so
/// [`LinearOperator::apply_transpose`] is [`LinearOperator::apply`].
#[derive(Debug, Clone)]
pub(crate) struct GramOperator<'a> {
    gram: &'a Gram,
    /// `S`, one factor per member; `None` is the identity.
    scale: Option<Vec<f64>>,
    /// `delta`, one entry per member; `None` is zero.
    diagonal: Option<Vec<f64>>,
    centred: bool,
    magnitude: f64,
}

impl<'a> GramOperator<'a> {
    /// The centred Gram matrix `(I - P) K (I - P)`, `P = e e^T / n` (Zeimpekis & Gallopoulos, eq. (3), as in
    /// their Table 2's KPDDP): the Gram matrix of the node's points centred in feature space.
    pub(crate) fn centred(gram: &'a Gram) -> Self {
        GramOperator::new(gram, None, None, true)
    }

    /// The normalised, centred kernel of Cristianini, Shawe-Taylor & Kandola, section 3.1: `K_ij / sqrt(K_ii K_jj)`
    /// (points scaled to unit length in feature space), then centred. A member with `K_ii <= 0` (a zero vector) gets
    /// scale 0.
    pub(crate) fn normalised_centred(gram: &'a Gram) -> Self {
        GramOperator::new(
            gram,
            Some(inverse_square_roots(&gram.diagonal())),
            None,
            true,
        )
    }

    /// `c I - L` with `L = D - K` (Cristianini, Shawe-Taylor & Kandola, section 3.2), on the complement of `e` when
    /// `deflate_constant` (`L e = 0`, so `L` maps that complement into itself and its leading vector there is the
    /// Fiedler vector). `shift` must be at least the largest eigenvalue of `L`; see [`laplacian_shift`].
    pub(crate) fn shifted_laplacian(
        gram: &'a Gram,
        degrees: &[f64],
        shift: f64,
        deflate_constant: bool,
    ) -> Self {
        let diagonal = degrees.iter().map(|d| shift - d).collect();
        GramOperator::new(gram, None, Some(diagonal), deflate_constant)
    }

    /// `D^{-1/2} K D^{-1/2} + I = 2 I - L_sym` (Gkotsopoulou & Monge): its leading eigenvectors are those of `L_sym`
    /// with the smallest eigenvalues, and its eigenvalues lie in [0, 2] when `K` is entrywise non-negative. A member
    /// of degree 0 (no similarity to anyone, itself included) gets scale 0.
    pub(crate) fn shifted_normalised_affinity(gram: &'a Gram, degrees: &[f64]) -> Self {
        let n = gram.n();
        GramOperator::new(
            gram,
            Some(inverse_square_roots(degrees)),
            Some(vec![1.0; n]),
            false,
        )
    }

    fn new(
        gram: &'a Gram,
        scale: Option<Vec<f64>>,
        diagonal: Option<Vec<f64>>,
        centred: bool,
    ) -> Self {
        let largest_scale = scale
            .as_ref()
            .map_or(1.0, |s| s.iter().fold(0.0f64, |m, v| m.max(v.abs())));
        let largest_diagonal = diagonal
            .as_ref()
            .map_or(0.0, |d| d.iter().fold(0.0f64, |m, v| m.max(v.abs())));
        let magnitude = gram.frobenius_norm() * largest_scale * largest_scale + largest_diagonal;
        GramOperator {
            gram,
            scale,
            diagonal,
            centred,
            magnitude,
        }
    }

    /// The same operator plus `extra` times the identity on the space it acts on (the centred space when
    /// centred).
    fn shifted(&self, extra: f64) -> Self {
        let n = self.gram.n();
        let diagonal = match &self.diagonal {
            Some(d) => d.iter().map(|v| v + extra).collect(),
            None => vec![extra; n],
        };
        GramOperator::new(self.gram, self.scale.clone(), Some(diagonal), self.centred)
    }

    /// The operator's dense matrix: the tests' oracle.
    #[cfg(test)]
    pub(crate) fn to_dense(&self) -> nalgebra::DMatrix<f64> {
        let n = self.gram.n();
        let mut dense = nalgebra::DMatrix::zeros(n, n);
        let mut unit = vec![0.0; n];
        let mut column = vec![0.0; n];
        for j in 0..n {
            unit[j] = 1.0;
            self.apply(&unit, &mut column);
            unit[j] = 0.0;
            dense.column_mut(j).copy_from_slice(&column);
        }
        dense
    }
}

/// The entries of the centred kernel `P_c S K S P_c` (`S` the optional normalising scale `1 / sqrt(K_ii)`, `P_c`
/// the centring projector), read from `K` on demand: Cristianini, Shawe-Taylor & Kandola's transformation
/// `K - m^{-1} j g' - m^{-1} g j' + m^{-2} (j'Kj) J` (section 3.1), `g` the row sums of the (scaled) kernel. The
/// matrix is never formed: the alignment split and the choice of a Gaussian width read it one entry at a time.
#[derive(Debug, Clone)]
pub(crate) struct CentredEntries<'a> {
    pub gram: &'a Gram,
    /// `S`, one factor per member (all 1 without normalising).
    pub scale: Vec<f64>,
    /// `g_i`, the row sums of `S K S`.
    pub row_sums: Vec<f64>,
    /// `j' S K S j`, the sum of the row sums.
    pub total: f64,
    normalised: bool,
}

impl<'a> CentredEntries<'a> {
    /// The centred kernel of `gram`, normalised in feature space first when `normalise`.
    pub(crate) fn new(gram: &'a Gram, normalise: bool) -> Self {
        let n = gram.n();
        let scale = if normalise {
            inverse_square_roots(&gram.diagonal())
        } else {
            vec![1.0; n]
        };
        let row_sums: Vec<f64> = (0..n)
            .into_par_iter()
            .map(|i| {
                let row = gram.row(i);
                scale[i] * row.iter().zip(&scale).map(|(k, s)| k * s).sum::<f64>()
            })
            .collect();
        let total = row_sums.iter().sum();
        CentredEntries {
            gram,
            scale,
            row_sums,
            total,
            normalised: normalise,
        }
    }

    /// Entry `(i, j)` of the centred kernel.
    pub(crate) fn get(&self, i: usize, j: usize) -> f64 {
        let nf = self.gram.n() as f64;
        self.scale[i] * self.scale[j] * self.gram.get(i, j)
            - self.row_sums[i] / nf
            - self.row_sums[j] / nf
            + self.total / (nf * nf)
    }

    /// `||P_c S K S P_c||_F`. Row sums in parallel, added in row order: a parallel sum would combine them in
    /// whatever order the threads finish, and the last bit of a figure would change from run to run.
    pub(crate) fn frobenius(&self) -> f64 {
        let n = self.gram.n();
        let squared_rows: Vec<f64> = (0..n)
            .into_par_iter()
            .map(|i| (0..n).map(|j| self.get(i, j).powi(2)).sum::<f64>())
            .collect();
        squared_rows.iter().sum::<f64>().sqrt()
    }

    /// The operator of the same matrix, for its eigenvectors.
    pub(crate) fn operator(&self) -> GramOperator<'a> {
        match self.normalised {
            true => GramOperator::normalised_centred(self.gram),
            false => GramOperator::centred(self.gram),
        }
    }
}

/// `1 / sqrt(v)` entrywise, 0 where `v <= 0`.
fn inverse_square_roots(values: &[f64]) -> Vec<f64> {
    values
        .iter()
        .map(|&v| if v > 0.0 { 1.0 / v.sqrt() } else { 0.0 })
        .collect()
}

/// Subtract the mean: `x - (e^T x / n) e`.
fn centre(x: &mut [f64]) {
    if x.is_empty() {
        return;
    }
    let mean = x.iter().sum::<f64>() / x.len() as f64;
    x.iter_mut().for_each(|v| *v -= mean);
}

impl LinearOperator for GramOperator<'_> {
    fn rows(&self) -> usize {
        self.gram.n()
    }

    fn cols(&self) -> usize {
        self.gram.n()
    }

    fn apply(&self, x: &[f64], y: &mut [f64]) {
        let mut input = x.to_vec();
        if self.centred {
            centre(&mut input);
        }
        match &self.scale {
            Some(s) => {
                let scaled: Vec<f64> = input.iter().zip(s).map(|(v, s)| v * s).collect();
                self.gram.mul_vec(&scaled, y);
                y.par_iter_mut().zip(s).for_each(|(v, s)| *v *= s);
            }
            // Unscaled operators multiply the (centred) input itself rather than a copy of it.
            None => self.gram.mul_vec(&input, y),
        }
        if let Some(d) = &self.diagonal {
            y.iter_mut()
                .zip(d.iter().zip(&input))
                .for_each(|(v, (d, x))| *v += d * x);
        }
        if self.centred {
            centre(y);
        }
    }

    fn apply_transpose(&self, y: &[f64], x: &mut [f64]) {
        self.apply(y, x);
    }

    fn magnitude(&self) -> Option<f64> {
        Some(self.magnitude)
    }
}

/// A shift `c > lambda_max(D - K)` for an entrywise non-negative `K` (Gershgorin: row i of `L` has diagonal
/// `d_i - K_ii` and off-diagonal absolute sum `d_i - K_ii`, so every eigenvalue is at most `2 max_i d_i`), with
/// a margin of 0.1% so that `c I - L` has no zero eigenvalue that Lanczos would drop.
pub(crate) fn laplacian_shift(degrees: &[f64]) -> f64 {
    2.002 * degrees.iter().fold(0.0f64, |m, &d| m.max(d))
}

/// Leading eigenpairs of a symmetric operator, largest eigenvalue first.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Eigenpairs {
    /// Eigenvalues of the operator as given (before any internal shift), descending.
    pub values: Vec<f64>,
    /// Unit eigenvectors, `vectors[i]` for `values[i]`, with the sign convention of
    /// [`crate::linalg::SingularTriplets`] (largest-magnitude entry positive).
    pub vectors: Vec<Vec<f64>>,
}

/// The `count` algebraically largest eigenpairs of `op` whose eigenvalues are positive, by
/// [`leading_singular_auto`] (Lanczos, or the dense Gram method for a node of at most
/// [`crate::linalg::DENSE_LIMIT`] members). Fewer come back when the operator has fewer positive eigenvalues
/// distinguishable from zero.
///
/// For a PSD operator the singular triplets are the eigenpairs (module documentation). When a returned triplet
/// has `u . v < 0` it belongs to a negative eigenvalue (`S v = -sigma v`), which means `S` is indefinite (e.g. a
/// polynomial kernel with a negative offset): the run is repeated on `S + sigma_1 I`, which is PSD
/// (`sigma_1 = ||S||_2` bounds every `|eigenvalue|`) and has the same eigenvectors, and `sigma_1` is subtracted
/// from the values found.
pub(crate) fn leading_eigenpairs(
    op: &GramOperator,
    count: usize,
    options: &LanczosOptions,
) -> Result<Eigenpairs, LinalgError> {
    let triplets = leading_singular_auto(op, count, options)?;
    let negative = triplets
        .left
        .iter()
        .zip(&triplets.right)
        .any(|(u, v)| super::vector::dot(u, v) < 0.0);
    if !negative {
        return Ok(Eigenpairs {
            values: triplets.values,
            vectors: triplets.right,
        });
    }
    let spectral_radius = triplets.values.first().copied().unwrap_or(0.0);
    let shifted = op.shifted(spectral_radius);
    let triplets = leading_singular_auto(&shifted, count, options)?;
    let mut pairs = Eigenpairs::default();
    for (value, vector) in triplets.values.iter().zip(triplets.right) {
        let eigenvalue = value - spectral_radius;
        // Centring maps e to 0, which the shift lifts to sigma_1 only off the centred space; what is left at or
        // below zero is not a positive eigenvalue.
        if eigenvalue <= 0.0 {
            break;
        }
        pairs.values.push(eigenvalue);
        pairs.vectors.push(vector);
    }
    Ok(pairs)
}

/// `y = F Q S Q F x` with `Q = I - sum_i v_i v_i^T` for orthonormal `v_i` (`S` with the directions already
/// found mapped to zero) and `F` a diagonal of signs. `F` matters because Lanczos always starts from the same
/// vector `x0`: of an eigenspace it finds the direction of `x0`'s projection, which deflation then removes, so a
/// second run on `Q S Q` would see nothing left of that eigenspace in `x0`. `F Q S Q F` has the eigenvectors
/// `F w`, and `x0`'s projection on them is a different direction.
struct Deflated<'a> {
    op: &'a GramOperator<'a>,
    found: &'a [Vec<f64>],
    signs: Vec<f64>,
}

impl Deflated<'_> {
    fn project(&self, x: &mut [f64]) {
        for v in self.found {
            let along = super::vector::dot(v, x);
            x.iter_mut().zip(v).for_each(|(x, v)| *x -= along * v);
        }
    }
}

impl LinearOperator for Deflated<'_> {
    fn rows(&self) -> usize {
        self.op.rows()
    }

    fn cols(&self) -> usize {
        self.op.cols()
    }

    fn apply(&self, x: &[f64], y: &mut [f64]) {
        let mut input: Vec<f64> = x.iter().zip(&self.signs).map(|(x, s)| x * s).collect();
        self.project(&mut input);
        self.op.apply(&input, y);
        self.project(y);
        y.iter_mut().zip(&self.signs).for_each(|(y, s)| *y *= s);
    }

    fn apply_transpose(&self, y: &[f64], x: &mut [f64]) {
        self.apply(y, x);
    }

    fn magnitude(&self) -> Option<f64> {
        self.op.magnitude()
    }
}

/// The `count` leading eigenpairs of a PSD operator one at a time, each from a Lanczos run on the operator with
/// the vectors already found deflated (mapped to zero). Unlike one run for all of them, this finds every copy of
/// a repeated eigenvalue: a single Krylov space holds one direction of an eigenspace, and the graph of a node
/// whose kernel matrix falls into `c` blocks has the eigenvalue 0 of its Laplacian `c` times, the case spectral
/// clustering is made for. Costs `count` runs instead of one.
pub(crate) fn leading_eigenpairs_deflated(
    op: &GramOperator,
    count: usize,
    options: &LanczosOptions,
) -> Result<Eigenpairs, LinalgError> {
    let mut pairs = Eigenpairs::default();
    let n = op.rows();
    while pairs.vectors.len() < count {
        let run = pairs.vectors.len() as u64;
        let signs = if run == 0 {
            vec![1.0; n]
        } else {
            let mut generator = crate::rng::SplitMix64::for_stream(DEFLATION_SEED, run);
            (0..n)
                .map(|_| {
                    if generator.next_u64() & 1 == 1 {
                        1.0
                    } else {
                        -1.0
                    }
                })
                .collect()
        };
        let deflated = Deflated {
            op,
            found: &pairs.vectors,
            signs,
        };
        let triplets = leading_singular_auto(&deflated, 1, options)?;
        let (Some(&value), Some(found)) = (triplets.values.first(), triplets.right.first()) else {
            break;
        };
        let mut vector: Vec<f64> = found
            .iter()
            .zip(&deflated.signs)
            .map(|(v, s)| v * s)
            .collect();
        // The sign convention of SingularTriplets: the largest-magnitude entry (lowest index on ties) positive.
        let largest = vector.iter().enumerate().fold((0, 0.0f64), |best, (i, v)| {
            if v.abs() > best.1 { (i, v.abs()) } else { best }
        });
        if vector[largest.0] < 0.0 {
            vector.iter_mut().for_each(|v| *v = -*v);
        }
        pairs.values.push(value);
        pairs.vectors.push(vector);
    }
    Ok(pairs)
}

/// Seed of the sign patterns of [`leading_eigenpairs_deflated`]'s runs after the first.
const DEFLATION_SEED: u64 = 0x0064_6566_6C61_7465;

/// Degrees `d_i = sum_j K_ij` (Gkotsopoulou & Monge), rows in parallel.
pub(crate) fn degrees(gram: &Gram) -> Vec<f64> {
    let n = gram.n();
    (0..n)
        .into_par_iter()
        .map(|i| gram.row(i).iter().sum())
        .collect()
}

#[cfg(test)]
mod tests {
    use nalgebra::DMatrix;

    use super::*;
    use nalgebra::SymmetricEigen;

    fn points_gram(
        points: &[[f64; 2]],
        kernel: impl Fn(&[f64; 2], &[f64; 2]) -> f64 + Sync,
    ) -> Gram {
        Gram::from_symmetric_fn(points.len(), |i, j| kernel(&points[i], &points[j]))
    }

    fn cloud(n: usize) -> Vec<[f64; 2]> {
        let mut rng = crate::rng::SplitMix64::new(7);
        (0..n)
            .map(|i| {
                let offset = if i % 2 == 0 { 3.0 } else { -3.0 };
                [
                    offset + rng.next_symmetric(),
                    rng.next_symmetric() * 2.0 + 0.5 * offset,
                ]
            })
            .collect()
    }

    fn gaussian(a: &[f64; 2], b: &[f64; 2]) -> f64 {
        let d = (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2);
        (-d / 4.0).exp()
    }

    /// Dense eigenvalues, descending.
    fn dense_eigen(matrix: DMatrix<f64>) -> (Vec<f64>, DMatrix<f64>) {
        let eigen = SymmetricEigen::new(matrix);
        let mut order: Vec<usize> = (0..eigen.eigenvalues.len()).collect();
        order.sort_by(|&a, &b| eigen.eigenvalues[b].total_cmp(&eigen.eigenvalues[a]));
        let values = order.iter().map(|&i| eigen.eigenvalues[i]).collect();
        let vectors = DMatrix::from_fn(eigen.eigenvectors.nrows(), order.len(), |r, c| {
            eigen.eigenvectors[(r, order[c])]
        });
        (values, vectors)
    }

    #[test]
    fn operators_match_their_dense_definitions() {
        let points = cloud(12);
        let gram = points_gram(&points, gaussian);
        let n = gram.n();
        let k = DMatrix::from_row_slice(n, n, gram.values());
        let p = DMatrix::from_element(n, n, 1.0 / n as f64);
        let centring = DMatrix::identity(n, n) - p;
        let centred = &centring * &k * &centring;
        assert!((GramOperator::centred(&gram).to_dense() - &centred).norm() < 1e-12);

        let d = degrees(&gram);
        let laplacian = DMatrix::from_diagonal(&nalgebra::DVector::from_vec(d.clone())) - &k;
        let c = laplacian_shift(&d);
        let shifted = DMatrix::identity(n, n) * c - &laplacian;
        let op = GramOperator::shifted_laplacian(&gram, &d, c, false);
        assert!((op.to_dense() - &shifted).norm() < 1e-12);
        let deflated = &centring * &shifted * &centring;
        let op = GramOperator::shifted_laplacian(&gram, &d, c, true);
        assert!((op.to_dense() - deflated).norm() < 1e-12);

        let s = DMatrix::from_diagonal(&nalgebra::DVector::from_iterator(
            n,
            d.iter().map(|v| 1.0 / v.sqrt()),
        ));
        let affinity = &s * &k * &s + DMatrix::identity(n, n);
        let op = GramOperator::shifted_normalised_affinity(&gram, &d);
        assert!((op.to_dense() - affinity).norm() < 1e-12);
    }

    #[test]
    fn lanczos_eigenpairs_are_the_dense_ones() {
        // 150 members: above the dense limit, so Lanczos answers.
        let points = cloud(150);
        let gram = points_gram(&points, gaussian);
        let op = GramOperator::centred(&gram);
        let pairs = leading_eigenpairs(&op, 3, &LanczosOptions::default()).expect("eigenpairs");
        let (values, vectors) = dense_eigen(op.to_dense());
        for i in 0..3 {
            assert!(
                (pairs.values[i] - values[i]).abs() < 1e-8 * values[0],
                "{i}: {} vs {}",
                pairs.values[i],
                values[i]
            );
            let overlap: f64 = pairs.vectors[i]
                .iter()
                .zip(vectors.column(i).iter())
                .map(|(a, b)| a * b)
                .sum();
            assert!((overlap.abs() - 1.0).abs() < 1e-8, "{i}: overlap {overlap}");
        }
    }

    #[test]
    fn an_indefinite_kernel_still_gives_its_largest_eigenvalues() {
        // Centred Gram minus delta I, with delta three quarters of its largest eigenvalue: the top eigenvalue
        // is 0.25 lambda_1 but the largest in magnitude is -delta, so the singular triplets alone would mislead.
        let points = cloud(100);
        let gram = points_gram(&points, gaussian);
        let n = gram.n();
        let (centred_values, _) = dense_eigen(GramOperator::centred(&gram).to_dense());
        let delta = 0.75 * centred_values[0];
        let op = GramOperator::new(&gram, None, Some(vec![-delta; n]), true);
        let pairs = leading_eigenpairs(&op, 1, &LanczosOptions::default()).expect("eigenpairs");
        let (values, _) = dense_eigen(op.to_dense());
        assert!(values[0] > 0.0 && values[n - 1] < -values[0]);
        assert!(
            (pairs.values[0] - values[0]).abs() < 1e-6 * values[0],
            "{} vs {}",
            pairs.values[0],
            values[0]
        );
    }

    #[test]
    fn deflation_finds_every_copy_of_a_repeated_eigenvalue() {
        // Three far-apart clouds: the Gaussian kernel is block diagonal to rounding, and the shifted Laplacian
        // has its top eigenvalue three times.
        let mut points = Vec::new();
        for (i, p) in cloud(120).into_iter().enumerate() {
            let offset = 100.0 * (i % 3) as f64;
            points.push([p[0] + offset, p[1]]);
        }
        let gram = points_gram(&points, gaussian);
        let d = degrees(&gram);
        let c = laplacian_shift(&d);
        let op = GramOperator::shifted_laplacian(&gram, &d, c, false);
        let pairs = leading_eigenpairs_deflated(&op, 4, &LanczosOptions::default()).expect("pairs");
        for value in &pairs.values[..3] {
            assert!((c - value).abs() < 1e-8 * c, "{:?}", pairs.values);
        }
        assert!(c - pairs.values[3] > 1e-3, "{:?}", pairs.values);
        // Orthonormal.
        for i in 0..4 {
            for j in 0..4 {
                let dot = crate::linalg::vector::dot(&pairs.vectors[i], &pairs.vectors[j]);
                let expected = if i == j { 1.0 } else { 0.0 };
                assert!((dot - expected).abs() < 1e-8, "{i} {j}: {dot}");
            }
        }
    }
}
