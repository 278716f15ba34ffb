//! [`SplitDetail`]: the figures a rule computed on the way to its split, kept on the node for reports and
//! previews.

use serde::{Deserialize, Serialize};

/// Figures a rule computed, kept on the node for reports and previews.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SplitDetail {
    /// Leading singular values of the centred node matrix, when the rule used them (for KPDDP and its variants,
    /// of the centred node matrix in feature space: the square roots of the centred Gram matrix's eigenvalues).
    pub singular_values: Vec<f64>,
    /// Cut point on each principal direction, in the units of the right singular vector (0 for PDDP); for
    /// `alignment` and `cut-cost`, the threshold on the (unit) eigenvector they split along.
    pub cuts: Vec<f64>,
    /// Lloyd iterations of a k-means refinement.
    pub iterations: Option<usize>,
    /// The k-means objective of the starting split a refinement began from (in feature space for kernel rules).
    pub start_objective: Option<f64>,
    /// Kernel rules: the Gaussian width the node's kernel matrix used (given, or its median pairwise distance).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_sigma: Option<f64>,
    /// Kernel rules with `gaussian:auto`: `[sigma, lambda_max / ||K_c||_F]` for every width tried, the chosen one
    /// the largest (Cristianini, Shawe-Taylor & Kandola, section 3.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_sigma_curve: Option<Vec<[f64; 2]>>,
    /// Kernel rules with a geodesic kernel: connected components of the neighbourhood graph.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_components: Option<usize>,
    /// Kernel rules with a geodesic kernel: the constant c* (Kim, Shim & Choi, eqs. (5)-(6)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_c_star: Option<f64>,
    /// Kernel rules: the node's kernel scatter, Zeimpekis & Gallopoulos, eq. (6) (`trace K - e^T K e / n`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_scatter: Option<f64>,
    /// Kernel rules: each child's kernel scatter (eq. (6) on its principal submatrix of the node's `K`), in
    /// child order; the tree keeps them on the children to choose the next node by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child_kernel_scatters: Option<Vec<f64>>,
    /// Kernel and spectral rules: the eigenvalues the split used (of the centred Gram matrix, the normalised
    /// centred kernel, or the Laplacian), in the order the rule used them; for `alignment` on labelled documents,
    /// the leading eigenvalues whose eigenvectors [`SplitDetail::label_alignments`] measures (the first the one
    /// the split used).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eigenvalues: Option<Vec<f64>>,
    /// `alignment`: the alignment `y^T K y / (n ||K||_F)` the split achieves (Cristianini, Shawe-Taylor & Kandola,
    /// Definition 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alignment: Option<f64>,
    /// `alignment`: its upper bound `lambda_max / ||K||_F` (Cristianini, Shawe-Taylor & Kandola, section 3.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alignment_bound: Option<f64>,
    /// `alignment` on labelled documents: the alignment with the labels of each of the kernel's leading
    /// eigenvectors, largest eigenvalue first (`v' M v / (||v||^2 m)` over the labelled members, `M_ij = +-1` for
    /// the same or different labels; Cristianini, Shawe-Taylor & Kandola, Fig. 1a). Their eigenvalues are in
    /// [`SplitDetail::eigenvalues`]. A figure measured against the labels: the split does not use it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_alignments: Option<Vec<f64>>,
    /// `cut-cost`: the cut cost `sum_{y_i != y_j} K_ij / (n ||K||_F)` of the split (Cristianini, Shawe-Taylor &
    /// Kandola, Definition 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut_cost: Option<f64>,
    /// `cut-cost`: the lower bound `lambda / (2 ||K||_F)` on the cut cost of an even split (Cristianini, Shawe-Taylor
    /// & Kandola, section 3.2), `lambda` the second smallest eigenvalue of `L = D - K`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut_cost_bound: Option<f64>,
    /// `cut-cost`: the lower bound for a split of these sizes, `(1 - ybar^2) lambda / (2 ||K||_F)` (`ybar` the mean
    /// label), which the split's cut cost never falls below; the even split's bound is the largest of these.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut_cost_split_bound: Option<f64>,
    /// `cut-cost` with partial labels: how many of the node's members had their label shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known_labels: Option<usize>,
    /// The PDDP family with a `sample` stride: the directions were approximated from every this-many-th member
    /// (see [`super::sampled_directions`]); `None` for the node's own directions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_stride: Option<usize>,
}

impl SplitDetail {
    /// How the directions were approximated, as a phrase for people; `None` when they are the node's own.
    pub fn sampling_summary(&self) -> Option<String> {
        self.sample_stride.map(|stride| {
            format!("approximate directions, from one member in {stride} then one pass over all")
        })
    }

    /// The split-quality figures a kernel rule measured, as one line for people (`None` for linear rules):
    /// Cristianini, Shawe-Taylor & Kandola's alignment with its upper bound `lambda_max / ||K||_F`, the cut cost with
    /// the lower bound `lambda / (2 ||K||_F)` that holds for an even split, and the geodesic kernel's components and
    /// `c*` (Kim, Shim & Choi).
    pub fn kernel_summary(&self) -> Option<String> {
        let mut parts = Vec::new();
        if let (Some(alignment), Some(bound)) = (self.alignment, self.alignment_bound) {
            parts.push(format!(
                "alignment {alignment:.4} (upper bound λmax/‖K‖F {bound:.4})"
            ));
        }
        if let (Some(cost), Some(bound)) = (self.cut_cost, self.cut_cost_bound) {
            let sized = self
                .cut_cost_split_bound
                .map_or(String::new(), |b| format!(", {b:.4} for these sizes"));
            parts.push(format!(
                "cut cost {cost:.4} (lower bound λ/(2‖K‖F) {bound:.4} for an even split{sized})"
            ));
        }
        if let Some(known) = self.known_labels {
            parts.push(format!("threshold chosen with {known} labels shown"));
        }
        if let (Some(sigma), Some(curve)) = (self.kernel_sigma, &self.kernel_sigma_curve) {
            let points: Vec<String> = curve
                .iter()
                .map(|[s, ratio]| format!("{s:.3} {ratio:.4}"))
                .collect();
            parts.push(format!(
                "gaussian:auto σ {sigma:.4} of largest λmax/‖Kc‖F (σ ratio: {})",
                points.join(", ")
            ));
        }
        if let (Some(components), Some(c_star)) = (self.kernel_components, self.kernel_c_star) {
            let apart = if components > 1 {
                ", placed at twice the largest finite geodesic distance"
            } else {
                ""
            };
            parts.push(format!(
                "geodesic graph: {components} connected component(s){apart}; c* {c_star:.4}"
            ));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}
