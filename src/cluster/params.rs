//! The parameters a split rule may take, declared once: each one's key, meaning, default and range. Values come in
//! unchecked ([`Params`], as the command line, the rule picker or a session file give them) and are checked once,
//! by [`Params::check`], into [`CheckedParams`], the only form a rule is built from; a value out of range is a
//! [`ParamError`] that names the parameter, which the command line turns into its flag and the TUI into its field.

use std::fmt;

use super::rules::{CutScan, Laplacian};
use crate::choice::Choice;
use crate::linalg::kernel::KernelSpec;

/// The largest l of PDDP(l): 2^8 = 256 orthants per split is already more than a tree can use.
pub const MAX_L: usize = 8;

/// The default stiffness of `soft-kernel-kmeans`. Kim, Shim & Choi give no single value (their beta is set per
/// data set, the soft memberships tending to hard k-means as beta grows); pdx takes 1 for kernels of unit
/// diagonal (Gaussian, cosine, normalised string kernels), where squared feature-space distances lie in [0, 4],
/// so that memberships are soft but still follow the distances.
pub const DEFAULT_BETA: f64 = 1.0;

/// The default smallest side of a `cut-cost` split, as a share of the node: the least cut cost over thresholds
/// leaving at least 15% on each side. Of the shares tried on Cristianini, Shawe-Taylor & Kandola's breast cancer
/// experiments (`docs/references.md`), it is the one that reproduces their Gaussian figures; with none the scan
/// cuts off the single least-connected member.
pub const DEFAULT_MIN_SIDE: f64 = 0.15;

/// The smallest sample a `sample` stride computes a node's directions from: a node whose every `s`-th member
/// makes fewer is split exactly. Two reasons. Such a node is small enough that its exact run is cheap (the run's
/// cost follows the node's non-zeros, and the sampled path still reads the whole node once or twice); and a
/// smaller sample starts to miss small topics: a topic of 0.5% of the node has about 50 members in a sample of
/// 10,000, and fewer than that no longer pull the sample's direction as they pull the node's.
pub const SAMPLED_MIN_SAMPLE: usize = 10_000;

/// One parameter of the split rules. Which rules use which is declared by each rule (see
/// [`super::registry::RuleDef::params`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Param {
    /// Principal directions per split.
    L,
    /// PDGP's fringe.
    Tau,
    /// Random starts per split.
    Trials,
    /// Seed of the random starts.
    Seed,
    /// Groups per split of the k-way rules.
    KWay,
    /// The kernel of the kernel rules.
    Kernel,
    /// Stiffness of soft kernel k-means.
    Beta,
    /// The graph Laplacian of spectral clustering.
    Laplacian,
    /// Whether `alignment` normalises the kernel in feature space before centring it.
    Normalise,
    /// What `cut-cost` minimises over the thresholds.
    CutScan,
    /// The smallest side of a `cut-cost` split, as a share of the node.
    MinSide,
    /// The share of the labels `cut-cost` is shown (transduction).
    PartialLabels,
    /// The weight `C0` of the known labels in `cut-cost`'s transduction.
    C0,
    /// The stride of the sample a large node's principal directions are approximated from (0: exact).
    Sample,
}

impl Param {
    /// Every parameter, in the order tables and the rule picker list them.
    pub const ALL: [Param; 14] = [
        Param::L,
        Param::Tau,
        Param::Trials,
        Param::Seed,
        Param::KWay,
        Param::Kernel,
        Param::Beta,
        Param::Laplacian,
        Param::Normalise,
        Param::CutScan,
        Param::MinSide,
        Param::PartialLabels,
        Param::C0,
        Param::Sample,
    ];

    /// The parameter's key in sessions, reports and `name=value` text.
    pub fn key(self) -> &'static str {
        match self {
            Param::L => "l",
            Param::Tau => "tau",
            Param::Trials => "trials",
            Param::Seed => "seed",
            Param::KWay => "k",
            Param::Kernel => "kernel",
            Param::Beta => "beta",
            Param::Laplacian => "laplacian",
            Param::Normalise => "normalise",
            Param::CutScan => "cut-scan",
            Param::MinSide => "min-side",
            Param::PartialLabels => "partial-labels",
            Param::C0 => "c0",
            Param::Sample => "sample",
        }
    }

    /// What the parameter means, in one line.
    pub fn describe(self) -> &'static str {
        match self {
            Param::L => "principal directions per split (2^l-way orthant splits)",
            Param::Tau => "PDGP fringe: the share of projections ignored at the two ends",
            Param::Trials => "random starts per split (the best is kept)",
            Param::Seed => "seed of the randomised rules",
            Param::KWay => "groups per split of the k-way rules",
            Param::Kernel => "kernel of the kernel rules",
            Param::Beta => "stiffness of soft kernel k-means",
            Param::Laplacian => "graph Laplacian of spectral clustering",
            Param::Normalise => "normalise the kernel in feature space before centring it",
            Param::CutScan => "what the cut-cost threshold scan minimises",
            Param::MinSide => "smallest side of a cut-cost split, as a share of the node",
            Param::PartialLabels => {
                "share of the labels shown to cut-cost (transduction; 0: none), drawn with the seed"
            }
            Param::C0 => "weight C0 of the shown labels in the cut-cost of K + C0 z z'",
            Param::Sample => {
                "approximate the directions of a node of at least 10,000 x s members from every s-th \
                 member, then one pass over all"
            }
        }
    }

    /// The values the parameter takes, as a phrase ("between 1 and 8").
    pub fn range(self) -> String {
        match self {
            Param::L => format!("between 1 and {MAX_L}"),
            Param::Tau => "in [0, 1)".into(),
            Param::Trials => "at least 1".into(),
            Param::Seed => "any whole number".into(),
            Param::KWay => "at least 2".into(),
            Param::Kernel => KernelSpec::SYNTAX.into(),
            Param::Beta => "a positive number".into(),
            Param::Laplacian => Laplacian::names().join(", "),
            Param::Normalise => "true or false".into(),
            Param::CutScan => CutScan::names().join(", "),
            Param::MinSide => "in [0, 0.5)".into(),
            Param::PartialLabels => "in [0, 1]".into(),
            Param::C0 => "a positive number".into(),
            Param::Sample => "0 (exact), or at least 2".into(),
        }
    }

    /// The parameter's value in `params`, as text (`tau=0.2` shows `0.2`).
    pub fn value_text(self, params: &Params) -> String {
        match self {
            Param::L => params.l.to_string(),
            Param::Tau => params.tau.to_string(),
            Param::Trials => params.trials.to_string(),
            Param::Seed => params.seed.to_string(),
            Param::KWay => params.k_way.to_string(),
            Param::Kernel => params.kernel.to_string(),
            Param::Beta => params.beta.to_string(),
            Param::Laplacian => params.laplacian.name().to_string(),
            Param::Normalise => params.normalise.to_string(),
            Param::CutScan => params.cut_scan.name().to_string(),
            Param::MinSide => params.min_side.to_string(),
            Param::PartialLabels => params.partial_labels.to_string(),
            Param::C0 => params.c0.to_string(),
            Param::Sample => params.sample.to_string(),
        }
    }

    /// Whether a rule's text and files show the parameter at its value in `params`. An option that is off
    /// (`sample` at 0) says nothing, so that a tree grown without it reads and is written exactly as before the
    /// option existed; every other parameter always shows.
    pub fn shown_in(self, params: &Params) -> bool {
        match self {
            Param::Sample => params.sample != Params::default().sample,
            _ => true,
        }
    }

    /// Whether the parameter's value in `params` is one it takes.
    fn is_valid(self, params: &Params) -> bool {
        match self {
            Param::L => (1..=MAX_L).contains(&params.l),
            Param::Tau => (0.0..1.0).contains(&params.tau),
            Param::Trials => params.trials >= 1,
            Param::Seed | Param::Laplacian | Param::Normalise | Param::CutScan => true,
            Param::KWay => params.k_way >= 2,
            // A kernel is valid when its text reads back as itself: the parser is where kernels are checked
            // (a degree of 0, a negative sigma or a NaN offset fail it), so a kernel read from a file passes
            // the same checks as one typed.
            Param::Kernel => params
                .kernel
                .to_string()
                .parse::<KernelSpec>()
                .is_ok_and(|parsed| parsed == params.kernel),
            Param::Beta => params.beta.is_finite() && params.beta > 0.0,
            Param::MinSide => (0.0..0.5).contains(&params.min_side),
            Param::PartialLabels => (0.0..=1.0).contains(&params.partial_labels),
            Param::C0 => params.c0.is_finite() && params.c0 > 0.0,
            // A stride of 1 would be the exact run at a sample's extra cost.
            Param::Sample => params.sample != 1,
        }
    }

    /// `Ok` when the value in `params` is in range, else the error naming the parameter.
    pub fn check(self, params: &Params) -> Result<(), ParamError> {
        if self.is_valid(params) {
            Ok(())
        } else {
            Err(ParamError {
                param: self,
                value: self.value_text(params),
            })
        }
    }
}

impl fmt::Display for Param {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// A parameter value out of range. It names the parameter, not a flag or a field: the command line and the TUI
/// say it in their own words.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{param} = {value}: must be {}", param.range())]
pub struct ParamError {
    pub param: Param,
    /// The value given, as text.
    pub value: String,
}

/// Values for every rule parameter, not yet checked. The defaults are pdx's, declared here only.
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    /// Principal directions for PDDP(l), PDDP_OCPC, KPDDP(l) and KPDDP_OCPC.
    pub l: usize,
    /// PDGP fringe tolerance.
    pub tau: f64,
    pub trials: usize,
    pub seed: u64,
    /// Groups per split of the k-way rules.
    pub k_way: usize,
    pub kernel: KernelSpec,
    /// Stiffness of `soft-kernel-kmeans`.
    pub beta: f64,
    pub laplacian: Laplacian,
    /// `alignment`: normalise the kernel in feature space before centring it (the paper's preprocessing).
    pub normalise: bool,
    /// `cut-cost`: what the threshold scan minimises.
    pub cut_scan: CutScan,
    /// `cut-cost`: the smallest side a threshold may leave, as a share of the node.
    pub min_side: f64,
    /// `cut-cost`: the share of the collection's labels shown to the scan (0: none).
    pub partial_labels: f64,
    /// `cut-cost`: the weight `C0` of the shown labels.
    pub c0: f64,
    /// The PDDP family: approximate the principal directions of a node of at least [`SAMPLED_MIN_SAMPLE`] times
    /// this many members from every `sample`-th of them; 0 computes them exactly.
    pub sample: usize,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            l: 1,
            tau: 0.2,
            trials: 5,
            seed: 1,
            k_way: 2,
            kernel: KernelSpec::default(),
            beta: DEFAULT_BETA,
            laplacian: Laplacian::default(),
            normalise: true,
            cut_scan: CutScan::default(),
            min_side: DEFAULT_MIN_SIDE,
            partial_labels: 0.0,
            // Cristianini, Shawe-Taylor & Kandola's value: "Taking C0 = 1".
            c0: 1.0,
            sample: 0,
        }
    }
}

impl Params {
    /// Check every value, the first out of range named in the error. Every parameter is checked, whether or not
    /// the rule chosen uses it: a value no rule can take is a mistake worth reporting.
    pub fn check(&self) -> Result<CheckedParams, ParamError> {
        for param in Param::ALL {
            param.check(self)?;
        }
        Ok(CheckedParams(self.clone()))
    }

    /// A copy with `param` set to its value in `from`.
    pub fn with(&self, param: Param, from: &Params) -> Params {
        let mut params = self.clone();
        match param {
            Param::L => params.l = from.l,
            Param::Tau => params.tau = from.tau,
            Param::Trials => params.trials = from.trials,
            Param::Seed => params.seed = from.seed,
            Param::KWay => params.k_way = from.k_way,
            Param::Kernel => params.kernel = from.kernel.clone(),
            Param::Beta => params.beta = from.beta,
            Param::Laplacian => params.laplacian = from.laplacian,
            Param::Normalise => params.normalise = from.normalise,
            Param::CutScan => params.cut_scan = from.cut_scan,
            Param::MinSide => params.min_side = from.min_side,
            Param::PartialLabels => params.partial_labels = from.partial_labels,
            Param::C0 => params.c0 = from.c0,
            Param::Sample => params.sample = from.sample,
        }
        params
    }
}

/// Parameters that passed [`Params::check`]: every value in range. Rules are built from these only.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedParams(Params);

impl std::ops::Deref for CheckedParams {
    type Target = Params;

    fn deref(&self) -> &Params {
        &self.0
    }
}

impl CheckedParams {
    /// The same values with the k-way groups set to `k_way` (at least 2, so still in range).
    pub(crate) fn with_k_way(&self, k_way: usize) -> CheckedParams {
        let mut params = self.0.clone();
        params.k_way = k_way.max(2);
        CheckedParams(params)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_in_range() {
        assert!(Params::default().check().is_ok());
    }

    #[test]
    fn each_range_refuses_its_edges_and_names_the_parameter() {
        let refused = |change: fn(&mut Params), param: Param| {
            let mut params = Params::default();
            change(&mut params);
            let error = params.check().expect_err("out of range");
            assert_eq!(error.param, param, "{error}");
        };
        refused(|p| p.l = 0, Param::L);
        refused(|p| p.l = MAX_L + 1, Param::L);
        refused(|p| p.tau = 1.0, Param::Tau);
        refused(|p| p.tau = -0.1, Param::Tau);
        refused(|p| p.tau = f64::NAN, Param::Tau);
        refused(|p| p.trials = 0, Param::Trials);
        refused(|p| p.k_way = 1, Param::KWay);
        refused(|p| p.beta = 0.0, Param::Beta);
        refused(|p| p.beta = f64::INFINITY, Param::Beta);
        refused(|p| p.min_side = 0.5, Param::MinSide);
        refused(|p| p.min_side = -0.01, Param::MinSide);
        refused(|p| p.partial_labels = 1.01, Param::PartialLabels);
        refused(|p| p.partial_labels = f64::NAN, Param::PartialLabels);
        refused(|p| p.c0 = 0.0, Param::C0);
        refused(|p| p.c0 = f64::NAN, Param::C0);
        refused(|p| p.sample = 1, Param::Sample);
        refused(
            |p| p.kernel = KernelSpec::Gaussian { sigma: Some(-1.0) },
            Param::Kernel,
        );
        refused(
            |p| {
                p.kernel = KernelSpec::Polynomial {
                    degree: 0,
                    offset: 1.0,
                }
            },
            Param::Kernel,
        );
        let edges = Params {
            l: MAX_L,
            tau: 0.0,
            k_way: 2,
            seed: u64::MAX,
            min_side: 0.0,
            partial_labels: 1.0,
            sample: 2,
            ..Params::default()
        };
        assert!(edges.check().is_ok());
        let large_stride = Params {
            sample: usize::MAX,
            ..Params::default()
        };
        assert!(large_stride.check().is_ok());
    }

    #[test]
    fn an_error_says_the_parameter_value_and_range() {
        let params = Params {
            l: 9,
            ..Params::default()
        };
        let error = params.check().expect_err("out of range");
        assert_eq!(error.to_string(), "l = 9: must be between 1 and 8");
        assert_eq!(error.value, "9");
    }
}
