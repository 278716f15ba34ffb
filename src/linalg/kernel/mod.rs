//! Kernels and the kernel (Gram) matrix of a node: `K_ij = k(x_i, x_j)` over the node's members, for the kernel
//! split rules (KPDDP and kernel k-means, seed 000 section 3; soft geodesic kernel k-means, seed 001; spectral
//! clustering and string kernels, seed 002; alignment and cut cost, seed 004).
//!
//! A Gram matrix costs `n^2 x 8` bytes, so [`kernel_matrix`] checks that against the caller's memory budget before
//! it allocates anything, and refuses with the size and what to do instead.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::Gram;
use crate::dataset::DocumentTexts;
use crate::matrix::DataMatrix;
use crate::progress::{Cancelled, Progress};

/// The distance a geodesic kernel's neighbourhood graph is built from (seed 001: Euclidean, or the cosine
/// document distance of eq. (10)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GeodesicMetric {
    Euclid,
    Cosine,
}

/// A kernel, as written on the command line (`--kernel`) and recorded on the nodes it split.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kernel", rename_all = "kebab-case")]
pub enum KernelSpec {
    /// `x^T y`.
    Linear,
    /// `(x^T y + offset)^degree` (seed 000 section 3 uses offset 1, the default).
    Polynomial { degree: u32, offset: f64 },
    /// `exp(-||x - y||^2 / sigma^2)` (seed 000 section 3); `None` takes sigma from the median pairwise distance
    /// of the node's members.
    Gaussian { sigma: Option<f64> },
    /// `x^T y / (||x|| ||y||)`.
    Cosine,
    /// The geodesic kernel of seed 001: a `neighbours`-nearest-neighbour graph, shortest-path distances, and
    /// kernel (6) with `c = c*` from the 2n x 2n matrix (5).
    Geodesic {
        neighbours: usize,
        metric: GeodesicMetric,
    },
    /// Normalised spectrum kernel of seed 002: common character substrings of length `n` in the raw text.
    Spectrum { n: usize },
    /// Normalised bounded-range spectrum kernel of seed 002: common substrings of every length from 1 to `n`.
    BoundRange { n: usize },
}

impl Default for KernelSpec {
    fn default() -> Self {
        KernelSpec::Gaussian { sigma: None }
    }
}

/// What can go wrong building a kernel matrix.
#[derive(Debug, thiserror::Error)]
pub enum KernelError {
    #[error("--kernel {text:?}: {reason}")]
    InvalidSpec { text: String, reason: String },
    #[error("--mem-budget {text:?}: {reason}")]
    InvalidBudget { text: String, reason: String },
    #[error(
        "the kernel matrix of this node ({n} documents) needs {} but the memory budget is {}: split a smaller \
         node, raise --mem-budget, or use a linear rule such as pddp",
        format_bytes(*bytes),
        format_bytes(*budget)
    )]
    OverBudget { n: usize, bytes: u64, budget: u64 },
    #[error("the {0} kernel reads the documents' text, and this data has none (numeric rows)")]
    NeedsText(&'static str),
    #[error("the {0} kernel is not available yet")]
    Unsupported(&'static str),
    #[error("the kernel matrix was cancelled")]
    Cancelled(#[from] Cancelled),
}

/// A kernel matrix and what was chosen on the way, for the user to see.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelMatrix {
    pub gram: Gram,
    /// The Gaussian width used (given, or the median pairwise distance).
    pub sigma: Option<f64>,
    /// Connected components of a geodesic kernel's neighbourhood graph.
    pub components: Option<usize>,
    /// The constant c* of a geodesic kernel (seed 001 eq. (5)-(6)).
    pub c_star: Option<f64>,
}

impl KernelSpec {
    /// The names `--kernel` accepts, with their parameters.
    pub const SYNTAX: &'static str = "linear, poly:D[:C], gaussian[:SIGMA], cosine, geodesic:K[:euclid|cosine], \
                                      string:spectrum:N, string:boundrange:N";

    /// Whether the kernel reads the documents' text rather than the matrix.
    pub fn needs_text(&self) -> bool {
        matches!(
            self,
            KernelSpec::Spectrum { .. } | KernelSpec::BoundRange { .. }
        )
    }

    /// Whether every entry of the kernel is non-negative on any data, as the Laplacian rules need. Linear,
    /// polynomial and geodesic kernels can be negative on general data; on text (non-negative weights) the linear,
    /// cosine and polynomial kernels are not, which [`kernel_matrix`] reports per matrix.
    pub fn always_non_negative(&self) -> bool {
        matches!(
            self,
            KernelSpec::Gaussian { .. }
                | KernelSpec::Spectrum { .. }
                | KernelSpec::BoundRange { .. }
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
        let invalid = |reason: String| KernelError::InvalidSpec {
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
            ["gaussian", sigma] => {
                let sigma = number(sigma, "sigma")?;
                if sigma <= 0.0 {
                    return Err(invalid("sigma must be positive".into()));
                }
                KernelSpec::Gaussian { sigma: Some(sigma) }
            }
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

/// Parse a memory size: a whole number of bytes, or one with a unit `KiB`, `MiB`, `GiB`, `TiB` (powers of 1024)
/// or `KB`, `MB`, `GB`, `TB` (powers of 1000); e.g. `512MiB`, `8GiB`.
pub fn parse_memory_size(text: &str) -> Result<u64, KernelError> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let invalid = |reason: &str| KernelError::InvalidBudget {
        text: text.to_string(),
        reason: reason.to_string(),
    };
    let value: f64 = number
        .parse()
        .map_err(|_| invalid("expected a size such as 512MiB or 8GiB"))?;
    let scale: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        "tib" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        _ => {
            return Err(invalid(
                "unknown unit (use KiB, MiB, GiB, TiB, KB, MB, GB or TB)",
            ));
        }
    };
    let bytes = value * scale;
    if !(bytes.is_finite() && bytes >= 1.0 && bytes < u64::MAX as f64) {
        return Err(invalid("must be at least one byte"));
    }
    Ok(bytes as u64)
}

/// Bytes as the largest binary unit that keeps at least 1 (e.g. `1.5 GiB`).
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// The kernel matrix of the data's columns `members` (in that order) under `spec`, refused before anything is
/// allocated when its `n^2 x 8` bytes exceed `memory_budget`. `texts` serves the string kernels; `progress`
/// reports rows done and is polled to cancel.
pub fn kernel_matrix(
    spec: &KernelSpec,
    data: &DataMatrix,
    members: &[usize],
    texts: Option<&dyn DocumentTexts>,
    memory_budget: u64,
    progress: Option<&Progress>,
) -> Result<KernelMatrix, KernelError> {
    let n = members.len();
    let bytes = Gram::bytes_for(n);
    if bytes > memory_budget {
        return Err(KernelError::OverBudget {
            n,
            bytes,
            budget: memory_budget,
        });
    }
    if let Some(progress) = progress {
        progress.check()?;
    }
    let _ = texts;
    let norms: Vec<f64> = members
        .iter()
        .map(|&j| data.column(j).norm_squared())
        .collect();
    let dot = |i: usize, j: usize| data.column(members[i]).dot_column(&data.column(members[j]));
    let mut sigma_used = None;
    let gram = match spec {
        KernelSpec::Linear => Gram::from_symmetric_fn(n, dot),
        KernelSpec::Polynomial { degree, offset } => {
            Gram::from_symmetric_fn(n, |i, j| (dot(i, j) + offset).powi(*degree as i32))
        }
        KernelSpec::Cosine => Gram::from_symmetric_fn(n, |i, j| {
            let scale = (norms[i] * norms[j]).sqrt();
            if scale > 0.0 { dot(i, j) / scale } else { 0.0 }
        }),
        KernelSpec::Gaussian { sigma } => {
            let linear = Gram::from_symmetric_fn(n, dot);
            let squared_distance =
                |i: usize, j: usize| (norms[i] + norms[j] - 2.0 * linear.get(i, j)).max(0.0);
            let sigma = match sigma {
                Some(sigma) => *sigma,
                None => median_distance(n, squared_distance),
            };
            sigma_used = Some(sigma);
            let width = (sigma * sigma).max(f64::MIN_POSITIVE);
            Gram::from_symmetric_fn(n, |i, j| (-squared_distance(i, j) / width).exp())
        }
        KernelSpec::Geodesic { .. } => return Err(KernelError::Unsupported("geodesic")),
        KernelSpec::Spectrum { .. } | KernelSpec::BoundRange { .. } => {
            return Err(KernelError::Unsupported("string"));
        }
    };
    Ok(KernelMatrix {
        gram,
        sigma: sigma_used,
        components: None,
        c_star: None,
    })
}

/// The median of the pairwise distances `sqrt(squared_distance(i, j))`, `i < j`; 1 when there are no pairs or the
/// median is 0 (all points equal), so that a Gaussian width is always positive.
fn median_distance(n: usize, squared_distance: impl Fn(usize, usize) -> f64) -> f64 {
    let mut distances: Vec<f64> = (0..n)
        .flat_map(|i| ((i + 1)..n).map(move |j| (i, j)))
        .map(|(i, j)| squared_distance(i, j).sqrt())
        .collect();
    if distances.is_empty() {
        return 1.0;
    }
    let middle = distances.len() / 2;
    let (_, median, _) = distances.select_nth_unstable_by(middle, f64::total_cmp);
    if *median > 0.0 { *median } else { 1.0 }
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
            "geodesic:0",
            "string:spectrum",
        ] {
            assert!(bad.parse::<KernelSpec>().is_err(), "{bad}");
        }
    }

    #[test]
    fn memory_sizes_parse_with_units() {
        assert_eq!(parse_memory_size("512MiB").ok(), Some(512 << 20));
        assert_eq!(parse_memory_size("8GiB").ok(), Some(8 << 30));
        assert_eq!(parse_memory_size("2GB").ok(), Some(2_000_000_000));
        assert_eq!(parse_memory_size("1000").ok(), Some(1000));
        assert!(parse_memory_size("lots").is_err());
        assert!(parse_memory_size("5 parsecs").is_err());
        assert_eq!(format_bytes(3 << 30), "3.0 GiB");
    }
}
