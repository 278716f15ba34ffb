//! Soft kernel k-means with stiffness beta (seed 001, eqs. (4), (7)-(9)), bisecting or k-way.
//!
//! PLACEHOLDER while the rule is being written on the `kernels` branch: it refuses every node. It must be
//! replaced before this branch lands.

use super::{Directions, Partition, SplitContext, SplitRule};
use crate::cluster::ClusterError;
use crate::linalg::kernel::KernelSpec;

/// Soft kernel k-means splitting a node into `k` groups.
#[derive(Debug, Clone, PartialEq)]
pub struct SoftKernelKmeans {
    pub kernel: KernelSpec,
    /// Groups (2 for a bisecting split).
    pub k: usize,
    /// Stiffness beta of the soft memberships.
    pub beta: f64,
    pub seed: u64,
}

impl SplitRule for SoftKernelKmeans {
    fn name(&self) -> &'static str {
        "soft-kernel-kmeans"
    }

    fn split_along(
        &self,
        _node: &SplitContext,
        _directions: &Directions,
    ) -> Result<Partition, ClusterError> {
        Err(ClusterError::Degenerate {
            reason: "soft-kernel-kmeans is not built yet".into(),
        })
    }
}
