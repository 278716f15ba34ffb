//! The divisive engine: a cluster tree over the columns of a data matrix that grows one split at a time, each split
//! by a rule of the user's choice (PDDP and its relatives, gap partitioning, k-means steering, k-means), with the
//! node to split next chosen by a policy or by the user.

pub mod cuts;
pub mod lloyd;
pub mod rules;

use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::linalg::LinalgError;
use crate::linalg::kernel::KernelSpec;
use crate::matrix::DataMatrix;
pub use rules::Laplacian;
use rules::{Partition, SplitContext, SplitDetail, SplitEnv, SplitRule};

#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// A rule found nothing to split on; [`Tree::split`] turns this into [`ClusterError::Refused`].
    #[error("{reason}")]
    Degenerate { reason: String },
    #[error("node {node} cannot be split by {rule}: {reason}")]
    Refused {
        node: usize,
        rule: &'static str,
        reason: String,
    },
    #[error("node {node} cannot be split: {reason}")]
    Unsplittable { node: usize, reason: &'static str },
    #[error("no node {0} in the tree")]
    NoSuchNode(usize),
    #[error("{0}")]
    InvalidOption(String),
    #[error(transparent)]
    Linalg(#[from] LinalgError),
    #[error(transparent)]
    Kernel(#[from] crate::linalg::kernel::KernelError),
    /// The progress report asked [`Tree::grow_in`] to stop (Esc in the TUI); the splits made so far stay.
    #[error(transparent)]
    Cancelled(#[from] crate::progress::Cancelled),
    /// A Laplacian rule met a kernel matrix with a negative entry: it reads `K` as a graph's weights.
    #[error(
        "node {node} cannot be split by {rule}: the {kernel} kernel matrix has negative entries (smallest \
         {smallest:.3e}) and {rule} needs non-negative similarities; use the gaussian kernel, or cosine or linear \
         on non-negative data"
    )]
    NegativeSimilarity {
        node: usize,
        rule: &'static str,
        kernel: String,
        smallest: f64,
    },
}

/// A split rule and its parameters, as chosen by the user and recorded on the node it split.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "kebab-case")]
pub enum RuleSpec {
    Pddp {
        l: usize,
    },
    #[serde(rename = "pddp-2means")]
    Pddp2Means,
    PddpOc,
    #[serde(rename = "pddp-oc-2means")]
    PddpOc2Means,
    PddpOcpc {
        l: usize,
    },
    Pdgp {
        tau: f64,
    },
    BisectingKmeans {
        trials: usize,
        seed: u64,
    },
    Kmeans {
        k: usize,
        trials: usize,
        seed: u64,
    },
    Kpddp {
        kernel: KernelSpec,
        l: usize,
    },
    #[serde(rename = "kpddp-2means")]
    Kpddp2Means {
        kernel: KernelSpec,
    },
    KpddpOcpc {
        kernel: KernelSpec,
        l: usize,
    },
    KernelKmeans {
        kernel: KernelSpec,
        k: usize,
        trials: usize,
        seed: u64,
    },
    SoftKernelKmeans {
        kernel: KernelSpec,
        k: usize,
        beta: f64,
        seed: u64,
    },
    Alignment {
        kernel: KernelSpec,
    },
    CutCost {
        kernel: KernelSpec,
    },
    Spectral {
        kernel: KernelSpec,
        k: usize,
        laplacian: Laplacian,
        trials: usize,
        seed: u64,
    },
}

/// The parameters of the kernel rules, beside [`RuleParams`] (which the TUI's sessions build field by field).
#[derive(Debug, Clone, PartialEq)]
pub struct KernelParams {
    /// `--kernel` (default: Gaussian with the median pairwise distance as sigma).
    pub kernel: KernelSpec,
    /// Stiffness of `soft-kernel-kmeans` (> 0).
    pub beta: f64,
    /// The Laplacian of `spectral`.
    pub laplacian: Laplacian,
}

/// The default stiffness of `soft-kernel-kmeans`. Seed 001 gives no single value (its beta is set per data set,
/// the soft memberships tending to hard k-means as beta grows); pdx takes 1 for kernels of unit diagonal
/// (Gaussian, cosine, normalised string kernels), where squared feature-space distances lie in [0, 4], so that
/// memberships are soft but still follow the distances.
pub const DEFAULT_BETA: f64 = 1.0;

impl Default for KernelParams {
    fn default() -> Self {
        KernelParams {
            kernel: KernelSpec::default(),
            beta: DEFAULT_BETA,
            laplacian: Laplacian::default(),
        }
    }
}

/// The parameters every rule may take, with pdx's defaults; [`RuleSpec::from_name`] checks and keeps the ones a
/// rule uses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RuleParams {
    /// Principal directions for PDDP(l) / PDDP_OCPC (1..=8).
    pub l: usize,
    /// PDGP fringe tolerance in [0, 1).
    pub tau: f64,
    pub trials: usize,
    pub seed: u64,
    /// Groups for `kmeans` (>= 2).
    pub k_way: usize,
}

impl Default for RuleParams {
    fn default() -> Self {
        RuleParams {
            l: 1,
            tau: 0.2,
            trials: 5,
            seed: 1,
            k_way: 2,
        }
    }
}

/// The largest l of PDDP(l): 2^8 = 256 orthants per split is already more than a tree can use.
pub const MAX_L: usize = 8;

impl RuleSpec {
    /// Every rule name the command line accepts.
    pub const NAMES: [&'static str; 8] = [
        "pddp",
        "pddp-2means",
        "pddp-oc",
        "pddp-oc-2means",
        "pddp-ocpc",
        "pdgp",
        "bisecting-kmeans",
        "kmeans",
    ];

    /// The kernel and spectral rule names (seeds 000 section 4, 001, 002, 004). Apart from [`RuleSpec::NAMES`]
    /// because they build a dense n x n kernel matrix per split: callers that try every linear rule on a whole
    /// corpus must not run these on it unawares.
    pub const KERNEL_NAMES: [&'static str; 8] = [
        "kpddp",
        "kpddp-2means",
        "kpddp-ocpc",
        "kernel-kmeans",
        "soft-kernel-kmeans",
        "alignment",
        "cut-cost",
        "spectral",
    ];

    /// Whether `name` is a kernel rule.
    pub fn is_kernel_name(name: &str) -> bool {
        RuleSpec::KERNEL_NAMES.contains(&name)
    }

    /// The rule called `name` with `params` and the default kernel parameters, checked.
    pub fn from_name(name: &str, params: &RuleParams) -> Result<RuleSpec, ClusterError> {
        RuleSpec::from_name_with(name, params, &KernelParams::default())
    }

    /// The rule called `name` with `params` and, for kernel rules, `kernel_params`, checked.
    pub fn from_name_with(
        name: &str,
        params: &RuleParams,
        kernel_params: &KernelParams,
    ) -> Result<RuleSpec, ClusterError> {
        if !(1..=MAX_L).contains(&params.l) {
            return Err(ClusterError::InvalidOption(format!(
                "--l {}: must be between 1 and {MAX_L}",
                params.l
            )));
        }
        if !(0.0..1.0).contains(&params.tau) {
            return Err(ClusterError::InvalidOption(format!(
                "--tau {}: must be in [0, 1)",
                params.tau
            )));
        }
        if params.trials == 0 {
            return Err(ClusterError::InvalidOption(
                "--trials must be at least 1".into(),
            ));
        }
        if params.k_way < 2 {
            return Err(ClusterError::InvalidOption(format!(
                "--k-way {}: must be at least 2",
                params.k_way
            )));
        }
        Ok(match name {
            "pddp" => RuleSpec::Pddp { l: params.l },
            "pddp-2means" => RuleSpec::Pddp2Means,
            "pddp-oc" => RuleSpec::PddpOc,
            "pddp-oc-2means" => RuleSpec::PddpOc2Means,
            "pddp-ocpc" => RuleSpec::PddpOcpc { l: params.l },
            "pdgp" => RuleSpec::Pdgp { tau: params.tau },
            "bisecting-kmeans" => RuleSpec::BisectingKmeans {
                trials: params.trials,
                seed: params.seed,
            },
            "kmeans" => RuleSpec::Kmeans {
                k: params.k_way,
                trials: params.trials,
                seed: params.seed,
            },
            "kpddp" => RuleSpec::Kpddp {
                kernel: kernel_params.kernel.clone(),
                l: params.l,
            },
            "kpddp-2means" => RuleSpec::Kpddp2Means {
                kernel: kernel_params.kernel.clone(),
            },
            "kpddp-ocpc" => RuleSpec::KpddpOcpc {
                kernel: kernel_params.kernel.clone(),
                l: params.l,
            },
            "kernel-kmeans" => RuleSpec::KernelKmeans {
                kernel: kernel_params.kernel.clone(),
                k: params.k_way,
                trials: params.trials,
                seed: params.seed,
            },
            "soft-kernel-kmeans" => {
                let beta = kernel_params.beta;
                if !(beta.is_finite() && beta > 0.0) {
                    return Err(ClusterError::InvalidOption(format!(
                        "--beta {beta}: must be a positive number"
                    )));
                }
                RuleSpec::SoftKernelKmeans {
                    kernel: kernel_params.kernel.clone(),
                    k: params.k_way,
                    beta,
                    seed: params.seed,
                }
            }
            "alignment" => RuleSpec::Alignment {
                kernel: kernel_params.kernel.clone(),
            },
            "cut-cost" => RuleSpec::CutCost {
                kernel: kernel_params.kernel.clone(),
            },
            "spectral" => RuleSpec::Spectral {
                kernel: kernel_params.kernel.clone(),
                k: params.k_way,
                laplacian: kernel_params.laplacian,
                trials: params.trials,
                seed: params.seed,
            },
            other => {
                return Err(ClusterError::InvalidOption(format!(
                    "unknown rule {other:?} (choose one of: {}, {})",
                    RuleSpec::NAMES.join(", "),
                    RuleSpec::KERNEL_NAMES.join(", ")
                )));
            }
        })
    }

    pub fn name(&self) -> &'static str {
        self.rule().name()
    }

    /// The rule's parameters as `name=value` text, for tables and Newick comments.
    pub fn params_text(&self) -> String {
        match self {
            RuleSpec::Pddp { l } | RuleSpec::PddpOcpc { l } => format!("l={l}"),
            RuleSpec::Pdgp { tau } => format!("tau={tau}"),
            RuleSpec::BisectingKmeans { trials, seed } => format!("trials={trials} seed={seed}"),
            RuleSpec::Kmeans { k, trials, seed } => format!("k={k} trials={trials} seed={seed}"),
            RuleSpec::Pddp2Means | RuleSpec::PddpOc | RuleSpec::PddpOc2Means => String::new(),
            RuleSpec::Kpddp { kernel, l } | RuleSpec::KpddpOcpc { kernel, l } => {
                format!("kernel={kernel} l={l}")
            }
            RuleSpec::Kpddp2Means { kernel }
            | RuleSpec::Alignment { kernel }
            | RuleSpec::CutCost { kernel } => format!("kernel={kernel}"),
            RuleSpec::KernelKmeans {
                kernel,
                k,
                trials,
                seed,
            } => format!("kernel={kernel} k={k} trials={trials} seed={seed}"),
            RuleSpec::SoftKernelKmeans {
                kernel,
                k,
                beta,
                seed,
            } => format!("kernel={kernel} k={k} beta={beta} seed={seed}"),
            RuleSpec::Spectral {
                kernel,
                k,
                laplacian,
                trials,
                seed,
            } => format!("kernel={kernel} k={k} laplacian={laplacian} trials={trials} seed={seed}"),
        }
    }

    /// The kernel of a kernel rule; `None` for the linear rules.
    pub fn kernel(&self) -> Option<&KernelSpec> {
        match self {
            RuleSpec::Kpddp { kernel, .. }
            | RuleSpec::Kpddp2Means { kernel }
            | RuleSpec::KpddpOcpc { kernel, .. }
            | RuleSpec::KernelKmeans { kernel, .. }
            | RuleSpec::SoftKernelKmeans { kernel, .. }
            | RuleSpec::Alignment { kernel }
            | RuleSpec::CutCost { kernel }
            | RuleSpec::Spectral { kernel, .. } => Some(kernel),
            _ => None,
        }
    }

    /// The same rule making at most `ways` groups per split, for the k-way rules (`kmeans`, `kernel-kmeans`,
    /// `soft-kernel-kmeans`, `spectral`) when fewer leaves are left to make; other rules are returned as they are.
    fn capped(&self, ways: usize) -> RuleSpec {
        let mut rule = self.clone();
        match &mut rule {
            RuleSpec::Kmeans { k, .. }
            | RuleSpec::KernelKmeans { k, .. }
            | RuleSpec::SoftKernelKmeans { k, .. }
            | RuleSpec::Spectral { k, .. } => *k = (*k).min(ways).max(2),
            _ => {}
        }
        rule
    }

    /// The most children one split can make.
    pub fn max_children(&self) -> usize {
        match self {
            RuleSpec::Pddp { l }
            | RuleSpec::PddpOcpc { l }
            | RuleSpec::Kpddp { l, .. }
            | RuleSpec::KpddpOcpc { l, .. } => 1 << l,
            RuleSpec::Kmeans { k, .. }
            | RuleSpec::KernelKmeans { k, .. }
            | RuleSpec::SoftKernelKmeans { k, .. }
            | RuleSpec::Spectral { k, .. } => *k,
            _ => 2,
        }
    }

    pub fn rule(&self) -> Box<dyn SplitRule> {
        match self.clone() {
            RuleSpec::Pddp { l } => Box::new(rules::Pddp { l }),
            RuleSpec::Pddp2Means => Box::new(rules::Pddp2Means),
            RuleSpec::PddpOc => Box::new(rules::PddpOc),
            RuleSpec::PddpOc2Means => Box::new(rules::PddpOc2Means),
            RuleSpec::PddpOcpc { l } => Box::new(rules::PddpOcpc { l }),
            RuleSpec::Pdgp { tau } => Box::new(rules::Pdgp { tau }),
            RuleSpec::BisectingKmeans { trials, seed } => {
                Box::new(rules::BisectingKmeans { trials, seed })
            }
            RuleSpec::Kmeans { k, trials, seed } => Box::new(rules::Kmeans { k, trials, seed }),
            RuleSpec::Kpddp { kernel, l } => Box::new(rules::Kpddp { kernel, l }),
            RuleSpec::Kpddp2Means { kernel } => Box::new(rules::Kpddp2Means { kernel }),
            RuleSpec::KpddpOcpc { kernel, l } => Box::new(rules::KpddpOcpc { kernel, l }),
            RuleSpec::KernelKmeans {
                kernel,
                k,
                trials,
                seed,
            } => Box::new(rules::KernelKmeans {
                kernel,
                k,
                trials,
                seed,
            }),
            RuleSpec::SoftKernelKmeans {
                kernel,
                k,
                beta,
                seed,
            } => Box::new(rules::SoftKernelKmeans {
                kernel,
                k,
                beta,
                seed,
            }),
            RuleSpec::Alignment { kernel } => Box::new(rules::Alignment { kernel }),
            RuleSpec::CutCost { kernel } => Box::new(rules::CutCost { kernel }),
            RuleSpec::Spectral {
                kernel,
                k,
                laplacian,
                trials,
                seed,
            } => Box::new(rules::Spectral {
                kernel,
                k,
                laplacian,
                trials,
                seed,
            }),
        }
    }
}

/// Which leaf to split next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SelectPolicy {
    /// The leaf of largest scatter `s_p` (the papers' choice).
    #[default]
    Scatter,
    /// The leaf with the most members.
    Size,
    /// The leaf of largest scatter per member (mean squared distance to the centroid).
    Variance,
}

/// How a node was split: the rule, what it computed, and the objective before and after.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SplitRecord {
    pub rule: RuleSpec,
    pub detail: SplitDetail,
    /// The node's scatter.
    pub objective_before: f64,
    /// The sum of its children's scatters.
    pub objective_after: f64,
}

/// A node of the tree: a set of columns (documents), with its centroid and scatter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    pub id: usize,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    /// Column indices, sorted. Shared, like the centroid, so that copying a tree (an undo snapshot, a job for a
    /// worker thread) copies pointers, not a dense vector per node.
    pub members: Arc<[usize]>,
    /// Mean of the members' columns (dense, one entry per term or feature). Not serialised: it follows from the
    /// members and the data (a session of a large vocabulary would otherwise hold a dense vector per node);
    /// [`Tree::rebuild_centroids`] restores it after reading a tree back.
    #[serde(skip)]
    pub centroid: Arc<[f64]>,
    /// `s_p = ||A_p - c_p e^T||_F^2 = sum_j ||a_j||^2 - n_p ||c_p||^2`, from the column norms and the centroid.
    pub scatter: f64,
    pub split: Option<SplitRecord>,
    /// A name the user gave the node.
    pub name: Option<String>,
    /// The node's kernel scatter (seed 000 eq. (6)) under the kernel it was measured with: set on the children
    /// a kernel rule makes (from the parent's kernel matrix), and on leaves [`Tree::grow_in`] measured to choose
    /// between them. Absent for trees grown with linear rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_scatter: Option<KernelScatter>,
    /// Where its children's Lanczos runs start, when its split computed directions (one entry per member; see
    /// [`Tree::start_guess`]): the estimate of the right singular vector after those the split used, or the
    /// leading one (and so in sessions saved before pdx kept the former). Saved with the tree, so that a
    /// reopened session splits exactly as the unbroken one would have (about 22 bytes of JSON per member of
    /// each split node).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<Arc<[f64]>>,
}

/// A kernel scatter `trace K - e^T K e / n` (seed 000 eq. (6)) and the kernel it was measured with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KernelScatter {
    pub kernel: KernelSpec,
    /// The Gaussian width used, when the kernel is Gaussian (with the median default, the width of the kernel
    /// matrix the value came from: the parent's for a child of a kernel split).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sigma: Option<f64>,
    pub value: f64,
}

impl Node {
    pub fn size(&self) -> usize {
        self.members.len()
    }

    pub fn is_leaf(&self) -> bool {
        self.children.is_empty()
    }
}

/// What [`Tree::grow`] did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GrowReport {
    pub splits: usize,
    /// Nodes the rule could not split, and why; growth went on with the next candidate.
    pub refused: Vec<(usize, String)>,
    /// Why growth stopped before the target, if it did.
    pub stopped_early: Option<String>,
}

/// The cluster tree. Nodes live in an arena indexed by id; ids are given in creation order and never reused, so a
/// replay of the same steps gives the same ids.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tree {
    nodes: Vec<Option<Node>>,
    root: usize,
    /// `||a_j||^2` of every column of the data.
    norms_squared: Vec<f64>,
    /// Columns left out of the tree (documents kept empty by `--keep-empty`): a bucket of their own.
    pub excluded: Vec<usize>,
}

/// A scatter below this multiple of `eps sum_j ||a_j||^2` is the rounding of the subtraction below, not spread:
/// the columns of such a node coincide. (The same threshold as [`CentredColumns::scatter`], so that a node the
/// tree calls splittable has a principal direction.)
///
/// [`CentredColumns::scatter`]: crate::linalg::CentredColumns::scatter
const SCATTER_NOISE_FACTOR: f64 = 1e3;

/// Where each entry of `subset` stands in `superset`, both ascending, in one merge pass; `None` when an entry is
/// missing from `superset`.
pub(crate) fn positions_within(subset: &[usize], superset: &[usize]) -> Option<Vec<usize>> {
    let mut positions = Vec::with_capacity(subset.len());
    let mut position = 0;
    for &value in subset {
        while superset.get(position).is_some_and(|&s| s < value) {
            position += 1;
        }
        if superset.get(position) != Some(&value) {
            return None;
        }
        positions.push(position);
    }
    Some(positions)
}

/// `s_p = sum_j ||a_j||^2 - n_p ||c_p||^2`, from the column norms and the centroid; rounding-level results are 0.
fn scatter_of(members: &[usize], centroid: &[f64], norms_squared: &[f64]) -> f64 {
    let norms: f64 = members.iter().map(|&j| norms_squared[j]).sum();
    let centroid_sq: f64 = centroid.iter().map(|v| v * v).sum();
    let scatter = norms - members.len() as f64 * centroid_sq;
    if scatter <= SCATTER_NOISE_FACTOR * f64::EPSILON * norms {
        0.0
    } else {
        scatter
    }
}

impl Tree {
    /// A tree whose root holds `columns` of `data`; `excluded` columns are kept aside.
    pub fn new(data: &DataMatrix, columns: Vec<usize>, excluded: Vec<usize>) -> Tree {
        let norms_squared = data.column_norms_squared();
        let centroid = data.centroid(&columns);
        let scatter = scatter_of(&columns, &centroid, &norms_squared);
        Tree {
            nodes: vec![Some(Node {
                id: 0,
                parent: None,
                children: Vec::new(),
                members: columns.into(),
                centroid: centroid.into(),
                scatter,
                split: None,
                name: None,
                kernel_scatter: None,
                direction: None,
            })],
            root: 0,
            norms_squared,
            excluded,
        }
    }

    /// A tree over every column of a dataset, leaving documents flagged empty aside.
    pub fn for_dataset(dataset: &crate::dataset::Dataset) -> Tree {
        let (excluded, columns): (Vec<usize>, Vec<usize>) = (0..dataset.matrix.cols())
            .partition(|&j| dataset.documents.get(j).is_some_and(|d| d.empty));
        Tree::new(&dataset.matrix, columns, excluded)
    }

    pub fn root(&self) -> usize {
        self.root
    }

    pub fn node(&self, id: usize) -> Option<&Node> {
        self.nodes.get(id).and_then(Option::as_ref)
    }

    pub fn node_mut(&mut self, id: usize) -> Option<&mut Node> {
        self.nodes.get_mut(id).and_then(Option::as_mut)
    }

    fn get(&self, id: usize) -> Result<&Node, ClusterError> {
        self.node(id).ok_or(ClusterError::NoSuchNode(id))
    }

    /// Live nodes in depth-first order from the root (children in split order).
    pub fn depth_first(&self) -> Vec<usize> {
        let mut order = Vec::new();
        let mut stack = vec![self.root];
        while let Some(id) = stack.pop() {
            order.push(id);
            if let Some(node) = self.node(id) {
                stack.extend(node.children.iter().rev());
            }
        }
        order
    }

    /// The leaves (the current clustering), in depth-first order.
    pub fn leaves(&self) -> Vec<usize> {
        self.depth_first()
            .into_iter()
            .filter(|&id| self.node(id).is_some_and(Node::is_leaf))
            .collect()
    }

    /// The k-means objective of the current clustering: the sum of the leaves' scatters.
    pub fn objective(&self) -> f64 {
        self.leaves()
            .iter()
            .filter_map(|&id| self.node(id))
            .map(|n| n.scatter)
            .sum()
    }

    /// The column norms the tree was built with.
    pub fn norms_squared(&self) -> &[f64] {
        &self.norms_squared
    }

    /// Why a leaf cannot be split at all, whatever the rule: `None` when it can.
    pub fn unsplittable_reason(&self, id: usize) -> Result<Option<&'static str>, ClusterError> {
        let node = self.get(id)?;
        if !node.is_leaf() {
            return Ok(Some("it is already split (merge it first)"));
        }
        if node.size() < 2 {
            return Ok(Some("it has a single member"));
        }
        if node.scatter == 0.0 {
            return Ok(Some(
                "its scatter is zero (all members are the same vector)",
            ));
        }
        Ok(None)
    }

    /// Split leaf `id` with `rule`. Returns the new children's ids. The tree is unchanged on error. Kernel rules
    /// get the default [`SplitEnv`] (no texts, no progress, the default memory budget); see [`Tree::split_in`].
    pub fn split(
        &mut self,
        data: &DataMatrix,
        id: usize,
        rule: &RuleSpec,
    ) -> Result<Vec<usize>, ClusterError> {
        self.split_in(data, id, rule, SplitEnv::default())
    }

    /// [`Tree::split`] in `env`: the documents' texts (string kernels), a progress report that can cancel, and
    /// the memory budget of a kernel matrix. A kernel rule's children keep their kernel scatter.
    pub fn split_in(
        &mut self,
        data: &DataMatrix,
        id: usize,
        rule: &RuleSpec,
        env: SplitEnv,
    ) -> Result<Vec<usize>, ClusterError> {
        let partition = self.plan_split(data, id, rule, env)?;
        self.apply_split(data, id, rule, partition)
    }

    /// The partition `rule` makes of leaf `id`, leaving the tree as it is.
    fn plan_split(
        &self,
        data: &DataMatrix,
        id: usize,
        rule: &RuleSpec,
        env: SplitEnv,
    ) -> Result<Partition, ClusterError> {
        if let Some(reason) = self.unsplittable_reason(id)? {
            return Err(ClusterError::Unsplittable { node: id, reason });
        }
        let node = self.get(id)?;
        let start = self.start_guess(id);
        let context = SplitContext {
            start: start.as_deref(),
            data,
            members: &node.members,
            norms_squared: &self.norms_squared,
            centroid: Some(&node.centroid),
            node_id: id,
            env,
        };
        let implementation = rule.rule();
        implementation.split(&context).map_err(|error| match error {
            ClusterError::Degenerate { reason } => ClusterError::Refused {
                node: id,
                rule: implementation.name(),
                reason,
            },
            other => other,
        })
    }

    /// Where the Lanczos run splitting node `id` starts: its parent's stored [`Node::direction`] (when the
    /// parent's rule used directions) restricted to `id`'s members, less its mean. That is the parent's
    /// estimate of its next principal direction after the one its split cut along: a child of a PDDP-family
    /// split is a part of its parent cut across the leading direction, and what spread is left in it lies
    /// mostly along the next one. Measured on 20 Newsgroups (the 18 child splits of a 20-leaf `pddp` tree): from
    /// the parents' exact next directions 217 Lanczos steps, from their leading directions 238, from a random
    /// start 256 (`pddp-oc` and `pdgp` trees gain 7% and 4% in the same way); PDDP to 20 leaves as built, from
    /// the parents' unconverged Ritz vectors, took 230 steps where it took 251 from the leading directions. The
    /// mean goes because the child's centred operator maps the constant vector to zero: it would only dilute the
    /// guess. `None` for the root and for children of other rules.
    pub fn start_guess(&self, id: usize) -> Option<Vec<f64>> {
        let node = self.node(id)?;
        let parent = self.node(node.parent?)?;
        let direction = parent
            .direction
            .as_deref()
            .filter(|d| d.len() == parent.members.len())?;
        let mut guess: Vec<f64> = positions_within(&node.members, &parent.members)?
            .into_iter()
            .map(|position| direction[position])
            .collect();
        let mean = guess.iter().sum::<f64>() / guess.len().max(1) as f64;
        guess.iter_mut().for_each(|value| *value -= mean);
        Some(guess)
    }

    /// Give leaf `id` the children of `partition`, which `rule` made of it.
    fn apply_split(
        &mut self,
        data: &DataMatrix,
        id: usize,
        rule: &RuleSpec,
        partition: Partition,
    ) -> Result<Vec<usize>, ClusterError> {
        let objective_before = self.get(id)?.scatter;
        let mut children = Vec::with_capacity(partition.groups.len());
        let mut objective_after = 0.0;
        let child_kernel_scatters: Vec<Option<KernelScatter>> =
            match (rule.kernel(), &partition.detail.child_kernel_scatters) {
                (Some(kernel), Some(values)) if values.len() == partition.groups.len() => values
                    .iter()
                    .map(|&value| {
                        Some(KernelScatter {
                            kernel: kernel.clone(),
                            sigma: partition.detail.kernel_sigma,
                            value,
                        })
                    })
                    .collect(),
                _ => vec![None; partition.groups.len()],
            };
        // Each child's centroid is one pass over its columns; the children's passes are independent, so they
        // run side by side (each one sequential, so the bits do not depend on the thread count).
        let centroids: Vec<Vec<f64>> = partition
            .groups
            .par_iter()
            .map(|members| data.centroid(members))
            .collect();
        for ((members, kernel_scatter), centroid) in partition
            .groups
            .into_iter()
            .zip(child_kernel_scatters)
            .zip(centroids)
        {
            let scatter = scatter_of(&members, &centroid, &self.norms_squared);
            objective_after += scatter;
            let child_id = self.nodes.len();
            self.nodes.push(Some(Node {
                id: child_id,
                parent: Some(id),
                children: Vec::new(),
                members: members.into(),
                centroid: centroid.into(),
                scatter,
                split: None,
                name: None,
                kernel_scatter,
                direction: None,
            }));
            children.push(child_id);
        }
        let node = self.node_mut(id).ok_or(ClusterError::NoSuchNode(id))?;
        node.children = children.clone();
        node.direction = partition.children_start.map(Arc::from);
        node.split = Some(SplitRecord {
            rule: rule.clone(),
            detail: partition.detail,
            objective_before,
            objective_after,
        });
        Ok(children)
    }

    /// Merge node `id` back: drop its subtree so that it is a leaf again.
    pub fn merge(&mut self, id: usize) -> Result<(), ClusterError> {
        let node = self.get(id)?;
        let mut stack = node.children.clone();
        while let Some(child) = stack.pop() {
            if let Some(removed) = self.nodes.get_mut(child).and_then(Option::take) {
                stack.extend(removed.children);
            }
        }
        let node = self.node_mut(id).ok_or(ClusterError::NoSuchNode(id))?;
        node.children.clear();
        node.split = None;
        Ok(())
    }

    /// The leaves that can be split, best first by `policy` (ties: lower id first).
    pub fn candidates(&self, policy: SelectPolicy) -> Vec<usize> {
        let mut leaves: Vec<&Node> = self
            .leaves()
            .into_iter()
            .filter(|&id| matches!(self.unsplittable_reason(id), Ok(None)))
            .filter_map(|id| self.node(id))
            .collect();
        let key = |node: &Node| -> f64 {
            match policy {
                SelectPolicy::Scatter => node.scatter,
                SelectPolicy::Size => node.size() as f64,
                SelectPolicy::Variance => node.scatter / node.size() as f64,
            }
        };
        leaves.sort_by(|a, b| key(b).total_cmp(&key(a)).then(a.id.cmp(&b.id)));
        leaves.into_iter().map(|n| n.id).collect()
    }

    /// [`Tree::candidates`] for a kernel rule: leaves ranked by their kernel scatter under `kernel` (per member
    /// for [`SelectPolicy::Variance`]), measured and stored where missing. A single candidate needs no measure.
    fn kernel_candidates(
        &mut self,
        data: &DataMatrix,
        kernel: &KernelSpec,
        policy: SelectPolicy,
        env: &SplitEnv,
    ) -> Result<Vec<usize>, ClusterError> {
        let ids = self.candidates(SelectPolicy::Size);
        if ids.len() <= 1 {
            return Ok(ids);
        }
        let mut keyed = Vec::with_capacity(ids.len());
        for id in ids {
            let node = self.get(id)?;
            let value = match &node.kernel_scatter {
                Some(known) if &known.kernel == kernel => known.value,
                _ => {
                    let matrix = crate::linalg::kernel::kernel_matrix(
                        kernel,
                        data,
                        &node.members,
                        env.texts,
                        env.memory_budget,
                        env.progress,
                    )?;
                    let value = matrix.gram.feature_scatter();
                    if let Some(node) = self.node_mut(id) {
                        node.kernel_scatter = Some(KernelScatter {
                            kernel: kernel.clone(),
                            sigma: matrix.sigma,
                            value,
                        });
                    }
                    value
                }
            };
            let size = self.get(id)?.size() as f64;
            let key = match policy {
                SelectPolicy::Variance => value / size,
                _ => value,
            };
            keyed.push((id, key));
        }
        keyed.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        Ok(keyed.into_iter().map(|(id, _)| id).collect())
    }

    /// The leaf `policy` would split next.
    pub fn suggest(&self, policy: SelectPolicy) -> Option<usize> {
        self.candidates(policy).into_iter().next()
    }

    /// Grow the tree with `rule` until it has `k` leaves, splitting the leaf `policy` picks each time. PDDP(l)
    /// and PDDP_OCPC with l > 1 make `ceil((k - 1) / (2^l - 1))` splits instead, as in Table 1 of seed 000
    /// (which gives up to `ceil((k-1)/(2^l-1)) (2^l - 1) + 1` leaves). A `kmeans` split never makes more leaves
    /// than `k`. A node the rule refuses is passed over for the next candidate.
    pub fn grow(
        &mut self,
        data: &DataMatrix,
        rule: &RuleSpec,
        k: usize,
        policy: SelectPolicy,
    ) -> Result<GrowReport, ClusterError> {
        self.grow_in(data, rule, k, policy, SplitEnv::default())
    }

    /// [`Tree::grow`] in `env` (see [`Tree::split_in`]). With a kernel rule, the scatter and variance policies
    /// rank leaves by their kernel scatter under the rule's kernel (seed 000 Table 2: "select a cluster node p to
    /// split according to (6)"): children of kernel splits carry it; a leaf without it (the tree was grown with
    /// another rule or kernel) has it measured from its kernel matrix, built within the same memory budget its
    /// split would need, and kept on the node. KPDDP(l) and KPDDP_OCPC make Table 2's
    /// `ceil((k - 1) / (2^l - 1))` splits, like their linear counterparts. When `env`'s progress report is
    /// cancelled, growing stops before the next split with [`ClusterError::Cancelled`], keeping the splits made.
    pub fn grow_in(
        &mut self,
        data: &DataMatrix,
        rule: &RuleSpec,
        k: usize,
        policy: SelectPolicy,
        env: SplitEnv,
    ) -> Result<GrowReport, ClusterError> {
        if k == 0 {
            return Err(ClusterError::InvalidOption("--k must be at least 1".into()));
        }
        let table_one_splits = match rule {
            RuleSpec::Pddp { l }
            | RuleSpec::PddpOcpc { l }
            | RuleSpec::Kpddp { l, .. }
            | RuleSpec::KpddpOcpc { l, .. }
                if *l > 1 =>
            {
                let per_split = (1usize << l) - 1;
                Some((k.saturating_sub(1)).div_ceil(per_split))
            }
            _ => None,
        };
        let mut report = GrowReport::default();
        let mut refused: std::collections::BTreeSet<usize> = std::collections::BTreeSet::new();
        // Partitions computed ahead for leaves not yet chosen, with the rule they were computed with.
        let mut planned: std::collections::HashMap<
            usize,
            (RuleSpec, Result<Partition, ClusterError>),
        > = std::collections::HashMap::new();
        loop {
            // A long auto-split stops between splits when asked; kernel rules also stop inside their own work.
            if let Some(progress) = env.progress {
                progress.check()?;
            }
            let leaves = self.leaves().len();
            let done = match table_one_splits {
                Some(splits) => report.splits >= splits,
                None => leaves >= k,
            };
            if done {
                break;
            }
            let candidates = match rule.kernel() {
                Some(kernel) if policy != SelectPolicy::Size => {
                    self.kernel_candidates(data, kernel, policy, &env)?
                }
                _ => self.candidates(policy),
            };
            let Some(id) = candidates.iter().copied().find(|id| !refused.contains(id)) else {
                report.stopped_early = Some(format!(
                    "no leaf left that {} can split ({leaves} leaves)",
                    rule.name()
                ));
                break;
            };
            let step_rule = rule.capped(k - leaves + 1);
            let outcome = match planned.remove(&id) {
                Some((planned_rule, outcome)) if planned_rule == step_rule => outcome,
                _ => {
                    // Splits of different leaves are independent, and a linear rule's split of a node of the
                    // tree's size runs its products on all cores but keeps them waiting at every hand-off; with
                    // two nodes in flight those waits fill up. When the grower will need at least one more
                    // split after this one, the best other candidate is split alongside and its partition kept
                    // until it is chosen. Each split computes exactly what it computes alone (the products'
                    // summation order never depends on threads), so the tree is the same bit for bit.
                    let more_splits_needed = match table_one_splits {
                        Some(splits) => splits.saturating_sub(report.splits) >= 2,
                        None => k.saturating_sub(leaves) >= 2,
                    };
                    let companion = candidates.iter().copied().find(|&other| {
                        other != id && !refused.contains(&other) && !planned.contains_key(&other)
                    });
                    match companion {
                        Some(other) if more_splits_needed && rule.kernel().is_none() => {
                            // The companion is split after at least this one: the cap it will likely meet.
                            let other_rule = rule.capped(k - leaves);
                            let (outcome, other_outcome) = rayon::join(
                                || self.plan_split(data, id, &step_rule, env),
                                || self.plan_split(data, other, &other_rule, env),
                            );
                            planned.insert(other, (other_rule, other_outcome));
                            outcome
                        }
                        _ => self.plan_split(data, id, &step_rule, env),
                    }
                }
            };
            match outcome.and_then(|partition| self.apply_split(data, id, &step_rule, partition)) {
                Ok(_) => report.splits += 1,
                Err(ClusterError::Refused { node, reason, .. }) => {
                    refused.insert(node);
                    report.refused.push((node, reason));
                }
                Err(other) => return Err(other),
            }
        }
        Ok(report)
    }

    /// The leaf holding each column (by position in [`Tree::leaves`]); `None` for excluded columns.
    pub fn assignments(&self, columns: usize) -> Vec<Option<usize>> {
        let mut assignment = vec![None; columns];
        for (index, &leaf) in self.leaves().iter().enumerate() {
            if let Some(node) = self.node(leaf) {
                for &j in node.members.iter() {
                    assignment[j] = Some(index);
                }
            }
        }
        assignment
    }

    /// Recompute every node's centroid from its members (after deserialising a tree, whose centroids are not
    /// stored). The members must be columns of `data`.
    pub fn rebuild_centroids(&mut self, data: &DataMatrix) {
        self.nodes.par_iter_mut().flatten().for_each(|node| {
            node.centroid = data.centroid(&node.members).into();
        });
    }

    /// Node ids from the root down to `id`.
    pub fn path_to(&self, id: usize) -> Vec<usize> {
        let mut path = vec![id];
        let mut current = id;
        while let Some(parent) = self.node(current).and_then(|n| n.parent) {
            path.push(parent);
            current = parent;
        }
        path.reverse();
        path
    }
}

#[cfg(test)]
mod tests {
    use super::positions_within;

    #[test]
    fn positions_within_finds_a_sorted_subset_or_reports_a_stranger() {
        assert_eq!(
            positions_within(&[2, 5, 9], &[1, 2, 3, 5, 8, 9]),
            Some(vec![1, 3, 5])
        );
        assert_eq!(positions_within(&[], &[1, 2]), Some(vec![]));
        assert_eq!(positions_within(&[2, 4], &[1, 2, 3, 5]), None);
        assert_eq!(positions_within(&[7], &[1, 2]), None);
    }
}
