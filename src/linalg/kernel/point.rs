//! A kernel between any two points, from their inner product and squared norms: what a new document's kernel with
//! a node's members is computed from (`cluster::assign`). The same formulas the kernel matrix applies in place to
//! the node's inner products, with the width a split recorded.

use super::{KernelSpec, gaussian::Convention};

/// A kernel of fixed width, evaluated between two points.
#[derive(Debug, Clone, PartialEq)]
pub struct PointKernel {
    spec: KernelSpec,
}

impl PointKernel {
    /// `spec` with the Gaussian width a split recorded (`width`: its `kernel_sigma`) in place of the median or the
    /// automatic choice; or why it cannot be evaluated between a new point and the members (a kernel that needs the
    /// whole node, or texts).
    pub fn new(spec: &KernelSpec, width: Option<f64>) -> Result<PointKernel, &'static str> {
        let fixed = |sigma: &Option<f64>| sigma.or(width).ok_or("the split recorded no width");
        let spec = match spec {
            KernelSpec::Gaussian { sigma } => KernelSpec::Gaussian {
                sigma: Some(fixed(sigma)?),
            },
            KernelSpec::GaussianAuto => KernelSpec::Gaussian {
                sigma: Some(fixed(&None)?),
            },
            KernelSpec::Rbf2 { sigma } => KernelSpec::Rbf2 {
                sigma: Some(fixed(sigma)?),
            },
            KernelSpec::Geodesic { .. } => {
                return Err("a geodesic distance runs through the node's neighbourhood graph");
            }
            KernelSpec::Spectrum { .. } | KernelSpec::BoundRange { .. } => {
                return Err("a string kernel reads texts, not the weighted terms");
            }
            other => other.clone(),
        };
        Ok(PointKernel { spec })
    }

    /// The kernel with its width fixed: what the node's kernel matrix is computed again with.
    pub fn spec(&self) -> &KernelSpec {
        &self.spec
    }

    /// `k(x, y)` from `x^T y` and the squared norms `||x||^2`, `||y||^2`.
    pub fn value(&self, inner: f64, x: f64, y: f64) -> f64 {
        let gaussian = |sigma: f64, convention: Convention| {
            let squared = (x + y - 2.0 * inner).max(0.0);
            (-squared / convention.denominator(sigma)).exp()
        };
        match self.spec {
            KernelSpec::Linear => inner,
            KernelSpec::Polynomial { degree, offset } => (inner + offset).powi(degree as i32),
            KernelSpec::Cosine => {
                let scale = |d: f64| if d > 0.0 { 1.0 / d.sqrt() } else { 0.0 };
                inner * scale(x) * scale(y)
            }
            KernelSpec::Gaussian { sigma: Some(sigma) } => gaussian(sigma, Convention::Squared),
            KernelSpec::Rbf2 { sigma: Some(sigma) } => gaussian(sigma, Convention::TwiceSquared),
            // `new` fixes every width and refuses the kernels that are not evaluated between two points.
            _ => f64::NAN,
        }
    }
}
