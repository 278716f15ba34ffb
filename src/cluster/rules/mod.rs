//! Split rules: one file each, behind [`SplitRule`]. A rule looks at one node (its member columns) and returns
//! a partition of them into two or more non-empty groups, or says why it cannot.

mod alignment;
mod bisecting_kmeans;
mod cut_cost;
pub mod kernel_kmeans;
mod kernel_util;
mod kmeans;
mod kpddp;
mod kpddp_2means;
mod kpddp_ocpc;
mod pddp;
mod pddp_2means;
mod pddp_oc;
mod pddp_oc_2means;
mod pddp_ocpc;
mod pdgp;
mod soft_kernel_kmeans;
mod spectral;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::ClusterError;
use crate::linalg::{self, CentredColumns, KnownSummary, LanczosOptions, LinearOperator};
use crate::matrix::DataMatrix;

pub use alignment::Alignment;
pub use bisecting_kmeans::BisectingKmeans;
pub use cut_cost::CutCost;
pub use kernel_kmeans::KernelKmeans;
pub use kmeans::Kmeans;
pub use kpddp::Kpddp;
pub use kpddp_2means::Kpddp2Means;
pub use kpddp_ocpc::KpddpOcpc;
pub use pddp::Pddp;
pub use pddp_2means::Pddp2Means;
pub use pddp_oc::PddpOc;
pub use pddp_oc_2means::PddpOc2Means;
pub use pddp_ocpc::PddpOcpc;
pub use pdgp::Pdgp;
pub use soft_kernel_kmeans::SoftKernelKmeans;
pub use spectral::{Laplacian, Spectral};

/// What a rule sees of the node it splits.
#[derive(Clone, Copy)]
pub struct SplitContext<'a> {
    pub data: &'a DataMatrix,
    /// The node's columns, sorted.
    pub members: &'a [usize],
    /// `||a_j||^2` of every column of the data (indexed by column, not by member).
    pub norms_squared: &'a [f64],
    /// The node's centroid over the data's rows, when the caller has it (a tree keeps one per node): the node
    /// operator of the PDDP family then takes it rather than computing it again.
    pub centroid: Option<&'a [f64]>,
    /// The node's id, which seeds the randomised rules so that each node draws its own numbers.
    pub node_id: usize,
    /// A guess at the node's leading right singular vector, one entry per member (its parent's direction
    /// restricted to it, from [`crate::cluster::Tree::start_guess`]): where the Lanczos runs of the PDDP family
    /// start ([`crate::linalg::LanczosOptions::start`]). It changes how fast they converge, not what to.
    pub start: Option<&'a [f64]>,
    /// What a split may need beyond the matrix: the documents' text (string kernels), a progress report that can
    /// cancel, and the memory a kernel matrix may take.
    pub env: SplitEnv<'a>,
}

/// The raw text of each column, for the rules that read text rather than the matrix (string kernels); the
/// same trait [`crate::linalg::kernel::kernel_matrix`] takes.
pub use crate::dataset::DocumentTexts;

/// The default memory budget of a kernel matrix: 4 GiB.
pub const DEFAULT_MEMORY_BUDGET: u64 = 4 << 30;

/// The surroundings of a split: none of it changes the result, only whether and how visibly it is computed.
#[derive(Clone, Copy)]
pub struct SplitEnv<'a> {
    pub texts: Option<&'a dyn DocumentTexts>,
    pub progress: Option<&'a crate::progress::Progress>,
    /// Bytes a kernel matrix may take before a kernel rule refuses the node (`--mem-budget`).
    pub memory_budget: u64,
}

impl Default for SplitEnv<'_> {
    fn default() -> Self {
        SplitEnv {
            texts: None,
            progress: None,
            memory_budget: DEFAULT_MEMORY_BUDGET,
        }
    }
}

/// A rule's answer: the groups (as column indices, each sorted, none empty) and what it computed on the way.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Partition {
    pub groups: Vec<Vec<usize>>,
    pub detail: SplitDetail,
    /// Where the children's Lanczos runs start (one entry per member), when the split computed directions: the
    /// right Ritz vector after the ones the split used ([`Directions::following`]), or the leading direction
    /// when the run had none. The tree keeps it (see [`crate::cluster::Tree::start_guess`]).
    #[serde(skip)]
    pub children_start: Option<Vec<f64>>,
}

impl Partition {
    /// Groups and figures, with no start for the children: what a rule's `split_along` makes;
    /// [`SplitRule::split`] adds the one its directions give.
    pub fn new(groups: Vec<Vec<usize>>, detail: SplitDetail) -> Self {
        Partition {
            groups,
            detail,
            children_start: None,
        }
    }
}

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
    /// Kernel rules with a geodesic kernel: connected components of the neighbourhood graph.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_components: Option<usize>,
    /// Kernel rules with a geodesic kernel: the constant c* (seed 001 eqs. (5)-(6)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_c_star: Option<f64>,
    /// Kernel rules: the node's kernel scatter, seed 000 eq. (6) (`trace K - e^T K e / n`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_scatter: Option<f64>,
    /// Kernel rules: each child's kernel scatter (eq. (6) on its principal submatrix of the node's `K`), in
    /// child order; the tree keeps them on the children to choose the next node by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child_kernel_scatters: Option<Vec<f64>>,
    /// Kernel and spectral rules: the eigenvalues the split used (of the centred Gram matrix, the normalised
    /// centred kernel, or the Laplacian), in the order the rule used them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eigenvalues: Option<Vec<f64>>,
    /// `alignment`: the alignment `y^T K y / (n ||K||_F)` the split achieves (seed 004 Definition 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alignment: Option<f64>,
    /// `alignment`: its upper bound `lambda_max / ||K||_F` (seed 004 section 3.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alignment_bound: Option<f64>,
    /// `cut-cost`: the cut cost `sum_{y_i != y_j} K_ij / (n ||K||_F)` of the split (seed 004 Definition 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut_cost: Option<f64>,
    /// `cut-cost`: the lower bound `lambda / (2 ||K||_F)` on the cut cost of an even split (seed 004
    /// section 3.2), `lambda` the second smallest eigenvalue of `L = D - K`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut_cost_bound: Option<f64>,
}

impl SplitDetail {
    /// The split-quality figures a kernel rule measured, as one line for people (`None` for linear rules):
    /// seed 004's alignment with its upper bound `lambda_max / ||K||_F`, the cut cost with the lower bound
    /// `lambda / (2 ||K||_F)` that holds for an even split, and the geodesic kernel's components and `c*` (seed 001).
    pub fn kernel_summary(&self) -> Option<String> {
        let mut parts = Vec::new();
        if let (Some(alignment), Some(bound)) = (self.alignment, self.alignment_bound) {
            parts.push(format!(
                "alignment {alignment:.4} (upper bound λmax/‖K‖F {bound:.4})"
            ));
        }
        if let (Some(cost), Some(bound)) = (self.cut_cost, self.cut_cost_bound) {
            parts.push(format!(
                "cut cost {cost:.4} (lower bound λ/(2‖K‖F) {bound:.4})"
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

/// One split rule. A rule derives its split from the node's leading principal directions
/// ([`SplitRule::directions_needed`] of them, computed once by [`SplitRule::split`]) or, for the k-means rules,
/// from the columns alone; either way [`SplitRule::split_along`] does the work, so that a preview can compare
/// every linear rule on a node from one Lanczos run.
pub trait SplitRule: Send + Sync {
    /// The name used on the command line and in exports.
    fn name(&self) -> &'static str;

    /// How many leading principal directions the split is derived from; 0 for rules that use none.
    fn directions_needed(&self) -> usize {
        0
    }

    /// The Lanczos tolerance the rule's directions need: [`SPLIT_TOLERANCE`] unless it says otherwise.
    fn direction_tolerance(&self) -> f64 {
        SPLIT_TOLERANCE
    }

    /// The split, given at least [`SplitRule::directions_needed`] principal directions of the node.
    fn split_along(
        &self,
        node: &SplitContext,
        directions: &Directions,
    ) -> Result<Partition, ClusterError>;

    /// The split: compute the directions the rule needs (none for k-means), then [`SplitRule::split_along`].
    fn split(&self, node: &SplitContext) -> Result<Partition, ClusterError> {
        let directions = match self.directions_needed() {
            0 => Directions::default(),
            l => principal_directions(node, l, self.direction_tolerance())?,
        };
        let mut partition = self.split_along(node, &directions)?;
        partition.children_start = directions
            .following
            .or_else(|| directions.right.into_iter().next());
        Ok(partition)
    }
}

/// Lanczos tolerance for split directions (relative residual). A direction only decides signs and an ordering,
/// so it needs far less than full precision. Measured on 20 Newsgroups (the 63 splits of a 64-leaf PDDP tree):
/// 1e-5 gives the same signs as 1e-12 at every node with about 40% fewer Lanczos steps; 1e-4 already flips a
/// document at 5 nodes. Every linear rule but `pddp-oc` uses it (see [`ORDER_TOLERANCE`]); the test
/// `loose_tolerance_splits_like_a_tight_one` checks, rule by rule, that each split of a 20 Newsgroups tree is
/// the one a tight tolerance gives.
pub const SPLIT_TOLERANCE: f64 = 1e-5;

/// Lanczos tolerance for `pddp-oc`, whose cut is the best of all the cuts along the order of the coordinates
/// (Lemma 1), not a sign: where two far apart cuts have nearly the same objective, a change in the coordinates
/// far below what could flip a sign can move it. Measured on a 20-leaf `pddp-oc` tree of 20 Newsgroups: at
/// 1e-5, 2 of the 19 splits differ from those at 1e-12 (by one document, and by 31 at a node whose vectors
/// agree to `1 - |cos| = 1e-9`), at 1e-6 one, at 1e-7 none, for 30% more Lanczos steps than 1e-5.
/// `pddp-oc-2means`, `pddp-ocpc` and `pdgp` give the tight splits at [`SPLIT_TOLERANCE`] on the same corpus
/// (2-means absorbs a one-document difference; the other two cut by the coordinates' values, where those near
/// ties do not arise).
pub const ORDER_TOLERANCE: f64 = 1e-7;

/// The leading `l` principal directions of a node: singular values, right singular vectors (one coordinate per
/// member, in member order) and left singular vectors (one entry per row of the data) of the implicitly centred
/// node matrix `A_p - c e^T` (seed 000 section 2). Member j's coordinate on direction i is
/// `u_i^T (a_j - c) = sigma_i v_i[j]`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Directions {
    pub values: Vec<f64>,
    pub right: Vec<Vec<f64>>,
    pub left: Vec<Vec<f64>>,
    /// An estimate of the next right singular vector (unconverged; see
    /// [`crate::linalg::SingularTriplets::following`]), when the solver had one.
    pub following: Option<Vec<f64>>,
}

/// A node of at least this many members that has no start from its parent (the root) starts from
/// [`sample_start`].
const SAMPLE_START_MIN_MEMBERS: usize = 8_000;

/// [`sample_start`] takes every this-many-th member.
const SAMPLE_STRIDE: usize = 32;

/// Relative residual at which the sample's run stops: its vector only has to point the full run roughly the
/// right way.
const SAMPLE_TOLERANCE: f64 = 0.1;

/// A start for the Lanczos run of a large node with none from its parent: the leading left singular vector of
/// the centred matrix of a sample of the members (every [`SAMPLE_STRIDE`]-th, so the same every time), taken back
/// to all the members by one product, `B^T u` (which is `sigma_1 v_1` when `u` is the node's own `u_1`). Its
/// terms-side direction is what a sample estimates well: the sample's documents share the node's vocabulary.
/// Any start leads to the same answer (to the tolerance); this one only saves steps. Measured on 20 Newsgroups:
/// the root's run takes 9 steps instead of 13 for `pddp` (12 instead of 16 at `pddp-oc`'s 1e-7), for a
/// sample run of 4 steps on 589 documents; the root split went from 52-63 to 46-51 ms, and PDDP to 20 leaves
/// from 240 to 226 ms (medians of 5 x 9 trees, interleaved), with the same tree, as for every linear rule (tree
/// digests). Children do better from their parent's next direction ([`crate::cluster::Tree::start_guess`]):
/// with sample starts instead, pddp-oc's tree took 558-566 Lanczos steps rather than 537.
/// `None` when the sample gives no direction (e.g. identical columns), or its rows are not among the node's.
fn sample_start(
    data: &DataMatrix,
    members: &[usize],
    operator: &CentredColumns,
) -> Option<Vec<f64>> {
    let sample: Vec<usize> = members.iter().step_by(SAMPLE_STRIDE).copied().collect();
    let sample_operator = CentredColumns::compact(data, &sample);
    let options = LanczosOptions::with_tolerance(SAMPLE_TOLERANCE);
    let triplets = linalg::leading_singular_auto(&sample_operator, 1, &options).ok()?;
    let sample_left = triplets.left.first()?;
    let mut left = vec![0.0; operator.rows()];
    match (operator.active_rows(), sample_operator.active_rows()) {
        (Some(rows), Some(sample_rows)) => {
            // The sample's rows are among the node's, since its columns are.
            for (position, &value) in super::positions_within(sample_rows, rows)?
                .into_iter()
                .zip(sample_left)
            {
                left[position] = value;
            }
        }
        (None, None) if sample_left.len() == left.len() => left.copy_from_slice(sample_left),
        _ => return None,
    }
    let mut start = vec![0.0; members.len()];
    operator.apply_transpose(&left, &mut start);
    Some(start)
}

/// The node's leading `l` principal directions, computed to the Lanczos `tolerance` (a rule's
/// [`SplitRule::direction_tolerance`]).
pub fn principal_directions(
    node: &SplitContext,
    l: usize,
    tolerance: f64,
) -> Result<Directions, ClusterError> {
    // Only the node's own terms: deep nodes use a small share of a large vocabulary, and every Lanczos step does
    // vector work proportional to the operator's rows.
    let known = node.centroid.map(|centroid| KnownSummary {
        centroid,
        norms_squared: node.norms_squared,
    });
    let operator = CentredColumns::compact_of(node.data, node.members, known);
    let start = match node.start.filter(|start| start.len() == node.members.len()) {
        Some(start) => Some(start.to_vec()),
        None if node.members.len() >= SAMPLE_START_MIN_MEMBERS => {
            sample_start(node.data, node.members, &operator)
        }
        None => None,
    };
    let options = LanczosOptions {
        tolerance,
        start,
        ..LanczosOptions::default()
    };
    let triplets = linalg::leading_singular_auto(&operator, l, &options)?;
    if triplets.values.is_empty() || triplets.values[0] <= 0.0 {
        return Err(ClusterError::Degenerate {
            reason: "the node's columns are all equal (no principal direction)".into(),
        });
    }
    // The operator works on the node's own rows; put the left vectors back in the data's row space.
    let rows = node.data.rows();
    let left = match operator.active_rows() {
        Some(active) => triplets
            .left
            .iter()
            .map(|compact| {
                let mut full = vec![0.0; rows];
                for (&row, &value) in active.iter().zip(compact) {
                    full[row] = value;
                }
                full
            })
            .collect(),
        None => triplets.left,
    };
    Ok(Directions {
        values: triplets.values,
        right: triplets.right,
        left,
        following: triplets.following,
    })
}

/// Each rule's split of the node along the same `directions`, in the order of `rules`: exactly what
/// `rule.rule().split_along(node, directions)` gives for each, with the work two of them share done once.
/// `pddp-2means` (seed 000 section 5) refines the `pddp` split and `pddp-oc-2means` the `pddp-oc` split, so when
/// the starting rule is in the list too the refinement starts from the partition it already made. Independent
/// splits run in parallel. This is what a preview comparing every linear rule on one node needs.
pub fn split_all_along(
    rules: &[super::RuleSpec],
    node: &SplitContext,
    directions: &Directions,
) -> Vec<Result<Partition, ClusterError>> {
    use super::RuleSpec;
    let start_of = |rule: &RuleSpec| match rule {
        RuleSpec::Pddp2Means => rules.iter().position(|r| *r == RuleSpec::Pddp { l: 1 }),
        RuleSpec::PddpOc2Means => rules.iter().position(|r| *r == RuleSpec::PddpOc),
        _ => None,
    };
    let first: Vec<Option<Result<Partition, ClusterError>>> = rules
        .par_iter()
        .map(|rule| match start_of(rule) {
            Some(_) => None,
            None => Some(rule.rule().split_along(node, directions)),
        })
        .collect();
    let refined: Vec<Option<Result<Partition, ClusterError>>> = rules
        .par_iter()
        .map(|rule| {
            let start = start_of(rule)?;
            Some(match &first[start] {
                Some(Ok(partition)) => {
                    pddp_2means::refine_two(node, &partition.groups, partition.detail.clone())
                }
                // The refinement fails where its start does, with the same message: let it say so itself.
                _ => rule.rule().split_along(node, directions),
            })
        })
        .collect();
    first
        .into_iter()
        .zip(refined)
        .filter_map(|(first, refined)| first.or(refined))
        .collect()
}

/// Group members by a label per member (`0..k`), dropping labels no member has, in label order.
pub fn groups_from_labels(members: &[usize], labels: &[usize], k: usize) -> Vec<Vec<usize>> {
    let mut groups = vec![Vec::new(); k];
    for (&j, &label) in members.iter().zip(labels) {
        groups[label].push(j);
    }
    groups.retain(|g| !g.is_empty());
    groups
}

/// Orthant of each member: bit i is set when coordinate i lies above `cuts[i]` (PDDP(l), seed 000 Table 1; with
/// all cuts 0 it is the sign pattern of the rows of `[v_1 ... v_l]`, with a zero coordinate on the non-positive
/// side as in Theorem 1's `C_1 = {i | rho_i <= 0}`).
pub fn orthants(directions: &[Vec<f64>], cuts: &[f64], members: usize) -> Vec<usize> {
    (0..members)
        .map(|j| {
            directions
                .iter()
                .zip(cuts)
                .enumerate()
                .fold(0usize, |code, (bit, (v, cut))| {
                    code | (usize::from(v[j] > *cut) << bit)
                })
        })
        .collect()
}

/// PDDP(l)'s split with cut points chosen per direction: the orthant of each member around `cuts` on the `l`
/// leading principal directions (seed 000 section 2: PDDP(l) with zero cuts, PDDP_OCPC with the 1-D optimal
/// ones).
pub fn orthant_split(
    node: &SplitContext,
    directions: &Directions,
    l: usize,
    choose_cuts: impl Fn(&[Vec<f64>]) -> Vec<f64>,
    what: &str,
) -> Result<Partition, ClusterError> {
    let used = l.min(directions.right.len());
    let right = &directions.right[..used];
    let cuts = choose_cuts(right);
    let codes = orthants(right, &cuts, node.members.len());
    let groups = groups_from_labels(node.members, &codes, 1 << used);
    let detail = SplitDetail {
        singular_values: directions.values[..used].to_vec(),
        cuts,
        ..SplitDetail::default()
    };
    require_split(groups, detail, what)
}

/// A partition that must have at least two groups, or the rule reports why not.
pub fn require_split(
    groups: Vec<Vec<usize>>,
    detail: SplitDetail,
    what: &str,
) -> Result<Partition, ClusterError> {
    if groups.len() < 2 {
        return Err(ClusterError::Degenerate {
            reason: format!("{what} puts every member on one side"),
        });
    }
    Ok(Partition::new(groups, detail))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::test_util::abs_cos;
    use crate::rng::SplitMix64;

    /// Documents in ten topics of decreasing size (the document's index modulo 55 picks topic t for 10 - t of
    /// every 55), over 600 terms: each topic has 60 frequent terms of its own (those equal to it modulo 10, so
    /// that a misplaced row lands in another topic), every document also a few random terms, with weights in
    /// (0, 1] like term weights. A spectrum with a tail, as text has.
    fn topics(documents: usize, seed: u64) -> DataMatrix {
        let terms = 600;
        let mut rng = SplitMix64::new(seed);
        let mut triplets = sprs::TriMat::new((terms, documents));
        for j in 0..documents {
            let mut slot = j % 55;
            let mut topic = 0;
            while slot >= 10 - topic {
                slot -= 10 - topic;
                topic += 1;
            }
            for i in 0..terms {
                let chance = if i % 10 == topic { 0.2 } else { 0.02 };
                if rng.next_f64() < chance {
                    triplets.add_triplet(i, j, 1.0 - rng.next_f64());
                }
            }
            triplets.add_triplet(topic, j, 1.0);
        }
        DataMatrix::sparse(
            triplets.to_csc(),
            (0..terms).map(|i| format!("t{i}")).collect(),
        )
    }

    #[test]
    fn a_sample_start_saves_steps_but_not_the_answer() {
        let data = topics(SAMPLE_START_MIN_MEMBERS + 10, 41);
        let members: Vec<usize> = (0..data.cols()).collect();
        let operator = CentredColumns::compact(&data, &members);
        let start = sample_start(&data, &members, &operator).expect("a start");
        assert_eq!(start.len(), members.len());
        let run = |start: Option<Vec<f64>>| {
            let options = LanczosOptions {
                tolerance: 1e-10,
                start,
                ..LanczosOptions::default()
            };
            linalg::leading_singular(&operator, 1, &options).expect("converges")
        };
        let (sampled, plain) = (run(Some(start.clone())), run(None));
        assert!(sampled.converged && plain.converged);
        assert!(
            abs_cos(&sampled.right[0], &plain.right[0]) >= 1.0 - 1e-10,
            "same direction"
        );
        assert!(
            sampled.iterations < plain.iterations,
            "{} steps from the sample, {} from a random start",
            sampled.iterations,
            plain.iterations
        );
        // The start is B^T u for a unit u, so no longer than sigma_1; and it points roughly along v_1 (0.84
        // here), where a random vector of this length would manage about 0.01.
        let norm = start.iter().map(|x| x * x).sum::<f64>().sqrt();
        assert!(norm <= sampled.values[0] * (1.0 + 1e-9));
        assert!(
            abs_cos(&start, &sampled.right[0]) > 0.5,
            "points the right way"
        );
    }
}
