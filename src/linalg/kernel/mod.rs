//! Kernels and the kernel (Gram) matrix of a node: `K_ij = k(x_i, x_j)` over the node's members, for the kernel
//! split rules (KPDDP and kernel k-means: Zeimpekis & Gallopoulos, *Principal Direction Divisive Partitioning
//! with kernels and k-means steering*, section 3; soft geodesic kernel k-means: Kim, Shim & Choi, *Soft geodesic
//! kernel k-means*; spectral clustering and string kernels: Gkotsopoulou & Monge, *Kernel based methods for text
//! clustering*; alignment and cut cost: Cristianini, Shawe-Taylor & Kandola, *Spectral kernel methods for
//! clustering*).
//!
//! A Gram matrix costs `n^2 x 8` bytes, so [`kernel_matrix`] checks that against the caller's memory budget before
//! it allocates anything, and refuses with the size and what to do instead.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

mod gaussian;
mod geodesic;
mod inner;
mod point;
mod string;

pub use gaussian::AUTO_WIDTH_FACTORS;
pub use point::PointKernel;

use rayon::prelude::*;

use super::{Column, Gram};
use crate::byte_size::format_bytes;
use crate::document_texts::DocumentTexts;
use crate::matrix::DataMatrix;
use crate::progress::{Cancelled, Progress};

/// The distance a geodesic kernel's neighbourhood graph is built from (Kim, Shim & Choi: Euclidean, or the cosine
/// document distance of their eq. (10)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GeodesicMetric {
    Euclid,
    Cosine,
}

/// A kernel, as written in text (read by [`KernelSpec::from_str`], written by `Display`) and recorded on the
/// nodes it split.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kernel", rename_all = "kebab-case")]
pub enum KernelSpec {
    /// `x^T y`.
    Linear,
    /// `(x^T y + offset)^degree` (Zeimpekis & Gallopoulos use offset 1 in section 3; it is the default).
    Polynomial { degree: u32, offset: f64 },
    /// `exp(-||x - y||^2 / sigma^2)` (Zeimpekis & Gallopoulos, section 3); `None` takes sigma from the median
    /// pairwise distance of the node's members.
    Gaussian { sigma: Option<f64> },
    /// `exp(-||x - y||^2 / sigma^2)` with sigma chosen per node among the median pairwise distance times
    /// [`AUTO_WIDTH_FACTORS`], by the largest `lambda_max / ||K_c||_F` (Cristianini, Shawe-Taylor & Kandola,
    /// section 3.1).
    GaussianAuto,
    /// `exp(-||x - y||^2 / (2 sigma^2))`, the other convention for a Gaussian width; `None` takes sigma from the
    /// median pairwise distance.
    Rbf2 { sigma: Option<f64> },
    /// `x^T y / (||x|| ||y||)`.
    Cosine,
    /// The geodesic kernel of Kim, Shim & Choi: a `neighbours`-nearest-neighbour graph, shortest-path distances, and
    /// kernel (6) with `c = c*` from the 2n x 2n matrix (5).
    Geodesic {
        neighbours: usize,
        metric: GeodesicMetric,
    },
    /// Normalised spectrum kernel of Gkotsopoulou & Monge: common character substrings of length `n` in the raw
    /// text.
    Spectrum { n: usize },
    /// Normalised bounded-range spectrum kernel of Gkotsopoulou & Monge: common substrings of every length from 1 to
    /// `n`.
    BoundRange { n: usize },
}

impl Default for KernelSpec {
    fn default() -> Self {
        KernelSpec::Gaussian { sigma: None }
    }
}

/// What can go wrong reading a kernel or a memory size, or building a kernel matrix. The variants about a value
/// the user gave carry it, so that a command line can word the message with the flag that gave it.
#[derive(Debug, thiserror::Error)]
pub enum KernelError {
    /// A kernel written in text that [`KernelSpec::from_str`] does not accept.
    #[error("kernel {text:?}: {reason}")]
    BadSpec {
        /// The text as given.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A node's kernel matrix would need more memory than the budget allows (checked before anything is
    /// allocated).
    #[error(
        "the kernel matrix of this node ({n} documents) needs {}, which exceeds the memory budget of {}: split a \
         smaller node, raise the memory budget, or use a linear rule such as pddp",
        format_bytes(*bytes),
        format_bytes(*budget)
    )]
    OverBudget {
        /// The node's member count.
        n: usize,
        /// What the kernel matrix would need ([`kernel_bytes`]).
        bytes: u64,
        /// The memory budget it was checked against.
        budget: u64,
    },
    #[error("the {0} kernel reads the documents' text, and this data has none (numeric rows)")]
    NeedsText(&'static str),
    #[error("the {0} kernel is not available yet")]
    Unsupported(&'static str),
    #[error("the kernel computation did not converge: {0}")]
    NotConverged(String),
    #[error("the kernel matrix was cancelled")]
    Cancelled(#[from] Cancelled),
    /// A string kernel could not read a document's text (its file gone or changed since the load).
    #[error("cannot read a document's text: {0}")]
    TextUnreadable(String),
}

/// A kernel matrix and what was chosen on the way, for the user to see.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelMatrix {
    pub gram: Gram,
    /// The Gaussian width used (given, the median pairwise distance, or chosen by `gaussian:auto`).
    pub sigma: Option<f64>,
    /// `gaussian:auto`: `[sigma, lambda_max / ||K_c||_F]` for every width it tried.
    pub sigma_curve: Option<Vec<[f64; 2]>>,
    /// Connected components of a geodesic kernel's neighbourhood graph.
    pub components: Option<usize>,
    /// The constant c* of a geodesic kernel (Kim, Shim & Choi, eqs. (5)-(6)).
    pub c_star: Option<f64>,
}

impl KernelSpec {
    /// The kernels [`KernelSpec::from_str`] accepts, with their parameters.
    pub const SYNTAX: &'static str = "linear, poly:D[:C], gaussian[:SIGMA|:auto], rbf2[:SIGMA], cosine, \
                                      geodesic:K[:euclid|cosine], string:spectrum:N, string:boundrange:N";

    /// Whether the kernel reads the documents' text rather than the matrix.
    pub fn needs_text(&self) -> bool {
        matches!(
            self,
            KernelSpec::Spectrum { .. } | KernelSpec::BoundRange { .. }
        )
    }
}

impl fmt::Display for KernelSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KernelSpec::Linear => write!(f, "linear"),
            KernelSpec::Polynomial { degree, offset } => write!(f, "poly:{degree}:{offset}"),
            KernelSpec::Gaussian { sigma: None } => write!(f, "gaussian"),
            KernelSpec::Gaussian { sigma: Some(sigma) } => write!(f, "gaussian:{sigma}"),
            KernelSpec::GaussianAuto => write!(f, "gaussian:auto"),
            KernelSpec::Rbf2 { sigma: None } => write!(f, "rbf2"),
            KernelSpec::Rbf2 { sigma: Some(sigma) } => write!(f, "rbf2:{sigma}"),
            KernelSpec::Cosine => write!(f, "cosine"),
            KernelSpec::Geodesic { neighbours, metric } => {
                let metric = match metric {
                    GeodesicMetric::Euclid => "euclid",
                    GeodesicMetric::Cosine => "cosine",
                };
                write!(f, "geodesic:{neighbours}:{metric}")
            }
            KernelSpec::Spectrum { n } => write!(f, "string:spectrum:{n}"),
            KernelSpec::BoundRange { n } => write!(f, "string:boundrange:{n}"),
        }
    }
}

impl FromStr for KernelSpec {
    type Err = KernelError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let invalid = |reason: String| KernelError::BadSpec {
            text: text.to_string(),
            reason,
        };
        let parts: Vec<&str> = text.trim().split(':').collect();
        let number = |part: &str, what: &str| -> Result<f64, KernelError> {
            part.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| invalid(format!("{what} {part:?} is not a number")))
        };
        let width = |part: &str| -> Result<f64, KernelError> {
            let sigma = number(part, "sigma")?;
            if sigma <= 0.0 {
                return Err(invalid("sigma must be positive".into()));
            }
            Ok(sigma)
        };
        let count = |part: &str, what: &str| -> Result<usize, KernelError> {
            part.parse::<usize>()
                .ok()
                .filter(|&v| v >= 1)
                .ok_or_else(|| invalid(format!("{what} {part:?} is not a whole number >= 1")))
        };
        let spec = match parts.as_slice() {
            ["linear"] => KernelSpec::Linear,
            ["cosine"] => KernelSpec::Cosine,
            ["poly", degree] | ["poly", degree, _] => {
                let degree = count(degree, "the degree")?;
                let degree = u32::try_from(degree)
                    .ok()
                    .filter(|&d| d <= 16)
                    .ok_or_else(|| invalid("the degree must be at most 16".into()))?;
                let offset = match parts.get(2) {
                    Some(offset) => number(offset, "the offset")?,
                    None => 1.0,
                };
                KernelSpec::Polynomial { degree, offset }
            }
            ["gaussian"] => KernelSpec::Gaussian { sigma: None },
            ["gaussian", "auto"] => KernelSpec::GaussianAuto,
            ["gaussian", sigma] => KernelSpec::Gaussian {
                sigma: Some(width(sigma)?),
            },
            ["rbf2"] => KernelSpec::Rbf2 { sigma: None },
            ["rbf2", sigma] => KernelSpec::Rbf2 {
                sigma: Some(width(sigma)?),
            },
            ["geodesic", neighbours] | ["geodesic", neighbours, _] => {
                let neighbours = count(neighbours, "the neighbour count")?;
                let metric = match parts.get(2) {
                    None | Some(&"euclid") => GeodesicMetric::Euclid,
                    Some(&"cosine") => GeodesicMetric::Cosine,
                    Some(other) => {
                        return Err(invalid(format!(
                            "metric {other:?}: choose euclid or cosine"
                        )));
                    }
                };
                KernelSpec::Geodesic { neighbours, metric }
            }
            ["string", "spectrum", n] => KernelSpec::Spectrum {
                n: count(n, "the substring length")?,
            },
            ["string", "boundrange", n] => KernelSpec::BoundRange {
                n: count(n, "the substring length")?,
            },
            _ => {
                return Err(invalid(format!(
                    "not a kernel (choose one of: {})",
                    KernelSpec::SYNTAX
                )));
            }
        };
        Ok(spec)
    }
}

/// Bytes [`kernel_matrix`] needs for a node of `n` members under `spec`, the figure checked against the memory
/// budget: the n x n matrix itself (`n^2 x 8`), plus, for a Gaussian kernel with the median width, the
/// `n (n - 1) / 2` pairwise distances the median is selected from (and for `gaussian:auto` a second n x n matrix,
/// the squared distances it builds each width's kernel from), and for the geodesic kernel its graph and the
/// search space of `c*` (its distances and kernel reuse the one n x n buffer; see the `geodesic` module). The string
/// kernels' substring counts (about 20 bytes per document and distinct substring) are not counted: they grow with
/// the text, not with n^2.
pub fn kernel_bytes(spec: &KernelSpec, n: usize) -> u64 {
    let gram = Gram::bytes_for(n);
    let pairs = (n as u64).saturating_mul(n.saturating_sub(1) as u64) / 2;
    match spec {
        KernelSpec::Gaussian { sigma: None } | KernelSpec::Rbf2 { sigma: None } => {
            gram.saturating_add(pairs.saturating_mul(8))
        }
        KernelSpec::GaussianAuto => gram
            .saturating_mul(2)
            .saturating_add(pairs.saturating_mul(8)),
        KernelSpec::Geodesic { neighbours, .. } => {
            gram.saturating_add(geodesic::extra_bytes(n, *neighbours))
        }
        _ => gram,
    }
}

/// The kernel matrix of the data's columns `members` (in that order) under `spec`, refused before anything is
/// allocated when [`kernel_bytes`] exceeds `memory_budget`. `texts` serves the string kernels; `progress` reports
/// each phase (rows done) and is polled to cancel.
///
/// Every kernel except the string kernels starts from the inner products `x_i^T x_j` (an inverted index over the
/// node's terms for sparse text, plain dot products for numeric data; see the `inner` module), and the others are
/// derived from them and the squared norms on the diagonal in place: `(g + C)^D`, `g / sqrt(g_ii g_jj)`,
/// `exp(-(g_ii + g_jj - 2 g) / sigma^2)` (or `/ (2 sigma^2)`; see the `gaussian` module). The geodesic kernel reads its neighbours from the inner products of
/// sparse data, and from exact distances of numeric data.
pub fn kernel_matrix(
    spec: &KernelSpec,
    data: &DataMatrix,
    members: &[usize],
    texts: Option<&dyn DocumentTexts>,
    memory_budget: u64,
    progress: Option<&Progress>,
) -> Result<KernelMatrix, KernelError> {
    let n = members.len();
    let bytes = kernel_bytes(spec, n);
    if bytes > memory_budget {
        return Err(KernelError::OverBudget {
            n,
            bytes,
            budget: memory_budget,
        });
    }
    if spec.needs_text() && texts.is_none() {
        return Err(KernelError::NeedsText("string"));
    }
    if let Some(progress) = progress {
        progress.check()?;
    }
    let phase = |name: &str| {
        if let Some(progress) = progress {
            progress.start_phase(name, n as u64);
        }
    };
    let mut result = KernelMatrix {
        gram: Gram::from_row_major(0, Vec::new()).expect("an empty matrix"),
        sigma: None,
        sigma_curve: None,
        components: None,
        c_star: None,
    };
    result.gram = match spec {
        KernelSpec::Spectrum { n: length } | KernelSpec::BoundRange { n: length } => {
            let texts = texts.ok_or(KernelError::NeedsText("string"))?;
            let lengths = match spec {
                KernelSpec::Spectrum { .. } => *length..=*length,
                _ => 1..=*length,
            };
            phase("kernel matrix: substrings");
            string::string_kernel(texts, members, lengths, progress)?
        }
        KernelSpec::Geodesic { neighbours, metric } => {
            let (lists, buffer) = match data {
                DataMatrix::Dense { .. } => {
                    phase("kernel matrix: neighbours");
                    let norms: Vec<f64> = members
                        .iter()
                        .map(|&j| data.column(j).norm_squared())
                        .collect();
                    let distance = |i: usize, j: usize| {
                        let (a, b) = (data.column(members[i]), data.column(members[j]));
                        match metric {
                            GeodesicMetric::Euclid => dense_euclidean(&a, &b),
                            GeodesicMetric::Cosine => {
                                cosine_distance(a.dot_column(&b), norms[i], norms[j])
                            }
                        }
                    };
                    let lists = geodesic::nearest_neighbours(n, *neighbours, distance, progress)?;
                    (lists, vec![0.0; n * n])
                }
                DataMatrix::Sparse { .. } => {
                    phase("kernel matrix: inner products");
                    let linear = inner::inner_products(data, members, progress)?;
                    let norms = linear.diagonal();
                    phase("kernel matrix: neighbours");
                    let distance = |i: usize, j: usize| {
                        let g = linear.get(i, j);
                        match metric {
                            GeodesicMetric::Euclid => {
                                (norms[i] + norms[j] - 2.0 * g).max(0.0).sqrt()
                            }
                            GeodesicMetric::Cosine => cosine_distance(g, norms[i], norms[j]),
                        }
                    };
                    let lists = geodesic::nearest_neighbours(n, *neighbours, distance, progress)?;
                    (lists, linear.into_values())
                }
            };
            let geodesic = geodesic::geodesic_kernel(&lists, buffer, progress)?;
            result.components = Some(geodesic.components);
            result.c_star = Some(geodesic.c_star);
            geodesic.gram
        }
        KernelSpec::Linear
        | KernelSpec::Polynomial { .. }
        | KernelSpec::Cosine
        | KernelSpec::Gaussian { .. }
        | KernelSpec::GaussianAuto
        | KernelSpec::Rbf2 { .. } => {
            phase("kernel matrix: inner products");
            let mut gram = inner::inner_products(data, members, progress)?;
            match spec {
                KernelSpec::Polynomial { degree, offset } => {
                    let degree = *degree as i32;
                    gram.values_mut()
                        .par_iter_mut()
                        .for_each(|g| *g = (*g + offset).powi(degree));
                }
                KernelSpec::Cosine => normalise_in_place(&mut gram),
                KernelSpec::Gaussian { sigma } => {
                    result.sigma = Some(gaussian::gaussian_in_place(
                        &mut gram,
                        *sigma,
                        gaussian::Convention::Squared,
                    ));
                }
                KernelSpec::Rbf2 { sigma } => {
                    result.sigma = Some(gaussian::gaussian_in_place(
                        &mut gram,
                        *sigma,
                        gaussian::Convention::TwiceSquared,
                    ));
                }
                KernelSpec::GaussianAuto => {
                    let auto = gaussian::auto_in_place(&mut gram, progress)?;
                    result.sigma = Some(auto.sigma);
                    result.sigma_curve = Some(auto.curve);
                }
                _ => {}
            }
            gram
        }
    };
    Ok(result)
}

/// `||a - b||` of two dense columns, summed directly (no cancellation between large norms).
fn dense_euclidean(a: &Column, b: &Column) -> f64 {
    match (a, b) {
        (Column::Dense(a), Column::Dense(b)) => a
            .iter()
            .zip(*b)
            .map(|(x, y)| (x - y) * (x - y))
            .sum::<f64>()
            .sqrt(),
        _ => (a.norm_squared() + b.norm_squared() - 2.0 * a.dot_column(b))
            .max(0.0)
            .sqrt(),
    }
}

/// The document distance of Kim, Shim & Choi, eq. (10), `1 - x^T y / (||x|| ||y||)`, from the inner product and
/// the squared norms; 1 (nothing in common) when either document is empty.
fn cosine_distance(inner: f64, norm_i: f64, norm_j: f64) -> f64 {
    let scale = (norm_i * norm_j).sqrt();
    if scale > 0.0 {
        (1.0 - inner / scale).max(0.0)
    } else {
        1.0
    }
}

/// `g_ij / sqrt(g_ii g_jj)` in place (cosine, and the normalised string kernels); 0 where either diagonal entry is
/// 0.
pub(crate) fn normalise_in_place(gram: &mut Gram) {
    let n = gram.n();
    let scale: Vec<f64> = gram
        .diagonal()
        .iter()
        .map(|&d| if d > 0.0 { 1.0 / d.sqrt() } else { 0.0 })
        .collect();
    gram.values_mut()
        .par_chunks_mut(n.max(1))
        .enumerate()
        .for_each(|(i, row)| {
            for (j, value) in row.iter_mut().enumerate() {
                *value *= scale[i] * scale[j];
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_round_trip_through_text() {
        for text in [
            "linear",
            "poly:3:1",
            "gaussian",
            "gaussian:0.5",
            "gaussian:auto",
            "rbf2",
            "rbf2:0.5",
            "cosine",
            "geodesic:6:euclid",
            "geodesic:10:cosine",
            "string:spectrum:3",
            "string:boundrange:4",
        ] {
            let spec: KernelSpec = text.parse().expect(text);
            assert_eq!(spec.to_string(), text);
        }
        assert_eq!(
            "poly:2".parse::<KernelSpec>().ok(),
            Some(KernelSpec::Polynomial {
                degree: 2,
                offset: 1.0
            })
        );
        for bad in [
            "",
            "rbf",
            "poly",
            "poly:x",
            "gaussian:-1",
            "gaussian:automatic",
            "rbf2:0",
            "geodesic:0",
            "string:spectrum",
        ] {
            assert!(bad.parse::<KernelSpec>().is_err(), "{bad}");
        }
    }

    /// Term-weight-like sparse data (values in (0, 1], a quarter of the entries present).
    fn random_sparse(rows: usize, cols: usize, seed: u64) -> DataMatrix {
        crate::linalg::test_util::random_sparse(rows, cols, 0.25, seed)
    }

    fn build(spec: &KernelSpec, data: &DataMatrix, members: &[usize]) -> KernelMatrix {
        kernel_matrix(spec, data, members, None, u64::MAX, None).expect("kernel matrix")
    }

    #[test]
    fn derived_kernels_match_their_definitions() {
        let data = random_sparse(40, 30, 5);
        let members: Vec<usize> = (0..30).step_by(2).collect();
        let dot = |i: usize, j: usize| data.column(i).dot_column(&data.column(j));
        let squared = |i: usize, j: usize| dot(i, i) + dot(j, j) - 2.0 * dot(i, j);
        let poly = build(&"poly:3:0.5".parse().expect("spec"), &data, &members);
        let cosine = build(&KernelSpec::Cosine, &data, &members);
        let gaussian = build(&KernelSpec::Gaussian { sigma: None }, &data, &members);
        let sigma = gaussian.sigma.expect("sigma reported");
        let rbf2 = build(&KernelSpec::Rbf2 { sigma: Some(0.7) }, &data, &members);
        let rbf2_median = build(&KernelSpec::Rbf2 { sigma: None }, &data, &members);
        assert_eq!(rbf2_median.sigma, Some(sigma), "the same median width");
        let mut distances: Vec<f64> = Vec::new();
        for (a, &i) in members.iter().enumerate() {
            for (b, &j) in members.iter().enumerate() {
                let close = |x: f64, y: f64| (x - y).abs() < 1e-12 * (1.0 + y.abs());
                assert!(close(poly.gram.get(a, b), (dot(i, j) + 0.5).powi(3)));
                let norms = (dot(i, i) * dot(j, j)).sqrt();
                let expected = if norms > 0.0 { dot(i, j) / norms } else { 0.0 };
                assert!(close(cosine.gram.get(a, b), expected));
                let expected = (-squared(i, j).max(0.0) / (sigma * sigma)).exp();
                assert!(close(gaussian.gram.get(a, b), expected));
                let expected = (-squared(i, j).max(0.0) / (2.0 * 0.7 * 0.7)).exp();
                assert!(close(rbf2.gram.get(a, b), expected));
                let expected = (-squared(i, j).max(0.0) / (2.0 * sigma * sigma)).exp();
                assert!(close(rbf2_median.gram.get(a, b), expected));
                if a < b {
                    distances.push(squared(i, j).max(0.0).sqrt());
                }
            }
        }
        distances.sort_by(f64::total_cmp);
        assert!((sigma - distances[distances.len() / 2]).abs() < 1e-12);
    }

    #[test]
    fn the_budget_is_checked_before_anything_is_built() {
        let data = random_sparse(10, 20, 1);
        let members: Vec<usize> = (0..20).collect();
        let spec = KernelSpec::Cosine;
        let needed = kernel_bytes(&spec, 20);
        assert_eq!(needed, 20 * 20 * 8);
        match kernel_matrix(&spec, &data, &members, None, needed - 1, None) {
            Err(KernelError::OverBudget { n: 20, bytes, .. }) => assert_eq!(bytes, needed),
            other => panic!("expected OverBudget, got {other:?}"),
        }
        assert!(kernel_matrix(&spec, &data, &members, None, needed, None).is_ok());
        let geodesic = KernelSpec::Geodesic {
            neighbours: 5,
            metric: GeodesicMetric::Cosine,
        };
        assert!(kernel_bytes(&geodesic, 20) > needed);
        assert!(kernel_bytes(&KernelSpec::Gaussian { sigma: None }, 20) > needed);
        // gaussian:auto keeps the squared distances beside the kernel it tries.
        assert!(kernel_bytes(&KernelSpec::GaussianAuto, 20) > 2 * needed);
    }

    #[test]
    fn string_kernels_need_text() {
        let data = random_sparse(10, 4, 2);
        let result = kernel_matrix(
            &KernelSpec::Spectrum { n: 3 },
            &data,
            &[0, 1, 2],
            None,
            u64::MAX,
            None,
        );
        assert!(matches!(result, Err(KernelError::NeedsText(_))));
    }

    #[test]
    fn geodesic_kernels_of_text_report_their_components_and_constant() {
        let data = random_sparse(60, 40, 9);
        let members: Vec<usize> = (0..40).collect();
        for metric in [GeodesicMetric::Euclid, GeodesicMetric::Cosine] {
            let spec = KernelSpec::Geodesic {
                neighbours: 4,
                metric,
            };
            let kernel = build(&spec, &data, &members);
            assert!(kernel.components.is_some_and(|c| c >= 1));
            assert!(kernel.c_star.is_some_and(|c| c >= 0.0 && c.is_finite()));
            assert!(kernel.gram.values().iter().all(|v| v.is_finite()));
        }
    }

    #[test]
    fn tiny_nodes_give_finite_kernels() {
        let data = random_sparse(12, 6, 4);
        for spec in [
            "linear",
            "poly:2",
            "gaussian",
            "gaussian:auto",
            "rbf2",
            "cosine",
            "geodesic:3:euclid",
            "geodesic:10:cosine",
        ] {
            let spec: KernelSpec = spec.parse().expect("spec");
            for members in [&[][..], &[2][..], &[1, 4][..], &[0, 1, 2, 3, 4, 5][..]] {
                let kernel = build(&spec, &data, members);
                assert_eq!(kernel.gram.n(), members.len());
                assert!(
                    kernel.gram.values().iter().all(|v| v.is_finite()),
                    "{spec} on {members:?}"
                );
            }
        }
    }

    #[test]
    fn errors_name_the_parameter_and_carry_the_value() {
        let error = "rbf".parse::<KernelSpec>().expect_err("not a kernel");
        assert_eq!(
            error.to_string(),
            format!(
                "kernel \"rbf\": not a kernel (choose one of: {})",
                KernelSpec::SYNTAX
            )
        );
        assert!(matches!(error, KernelError::BadSpec { text, .. } if text == "rbf"));
        let error = KernelError::OverBudget {
            n: 270,
            bytes: 873_720,
            budget: 1024,
        };
        assert_eq!(
            error.to_string(),
            "the kernel matrix of this node (270 documents) needs 853.2 KiB, which exceeds the memory budget of \
             1.0 KiB: split a smaller node, raise the memory budget, or use a linear rule such as pddp"
        );
    }
}
