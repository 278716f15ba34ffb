//! The parameters a split rule may take, declared once: one row each in the table below gives a parameter's field,
//! type and default, key, long name, meaning, range and picker step. `table.rs` makes [`Param`], [`Params`] and every
//! per-parameter `match` of the rows; `values.rs` says what each type of value brings. Values come in unchecked
//! ([`Params`], as the command line, the rule picker or a session file give them) and are checked once, by
//! [`Params::check`], into [`CheckedParams`], the only form a rule is built from; a value out of range is a
//! [`ParamError`] that names the parameter, which the command line turns into its flag and the TUI into its field.

mod table;
mod values;

use std::fmt;

use super::rules::{CutScan, Laplacian};
use crate::choice::Choice;
use crate::linalg::kernel::KernelSpec;
use table::{declare_params, holds};
pub use values::{ParamValue, Step, ValueKind};

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

/// The kernels the rule picker's kernel field steps through; typing a number sets the selected kernel's own number
/// (Gaussian sigma, polynomial degree, neighbours of the geodesic kernel, substring length).
const KERNEL_STEPS: [&str; 12] = [
    "gaussian",
    "cosine",
    "linear",
    "poly:2:1",
    "poly:3:1",
    "geodesic:6:euclid",
    "geodesic:10:cosine",
    "string:spectrum:3",
    "string:spectrum:5",
    "string:boundrange:3",
    "gaussian:auto",
    "rbf2",
];

// The table: one row per parameter, in the order tables and the rule picker list them (see `table.rs` for what a
// row says). The picker's steps stop short of some ranges' open ends (tau at 0.95, min side at 0.45) and of
// values nobody steps to (a stride of 1024, beta and c0 of 100); typing takes any value in range.
declare_params! {
    /// Principal directions per split, for PDDP(l), PDDP_OCPC, KPDDP(l) and KPDDP_OCPC.
    L {
        field: l: usize = 1,
        key: "l",
        long: "l",
        describe: "principal directions per split (2^l-way orthant splits)",
        range: format!("between 1 and {MAX_L}"),
        valid: |l| (1..=MAX_L).contains(l),
        step: Step::By { by: 1, low: 1, high: MAX_L },
    }
    /// PDGP's fringe tolerance.
    Tau {
        field: tau: f64 = 0.2,
        key: "tau",
        long: "tau",
        negatives: true,
        describe: "PDGP fringe: the share of projections ignored at the two ends",
        range: "in [0, 1)",
        valid: |tau| (0.0..1.0).contains(tau),
        step: Step::By { by: 0.05, low: 0.0, high: 0.95 },
    }
    /// Random starts per split.
    Trials {
        field: trials: usize = 5,
        key: "trials",
        long: "trials",
        describe: "random starts per split (the best is kept)",
        range: "at least 1",
        valid: |trials| *trials >= 1,
        step: Step::By { by: 1, low: 1, high: usize::MAX },
    }
    /// Seed of the random starts.
    Seed {
        field: seed: u64 = 1,
        key: "seed",
        long: "seed",
        describe: "seed of the randomised rules",
        range: "any whole number",
        valid: |_| true,
        step: Step::By { by: 1, low: 0, high: u64::MAX },
    }
    /// Groups per split of the k-way rules.
    KWay {
        field: k_way: usize = 2,
        key: "k",
        long: "k-way",
        screen: "k-way",
        describe: "groups per split of the k-way rules",
        range: "at least 2",
        valid: |k_way| *k_way >= 2,
        step: Step::By { by: 1, low: 2, high: usize::MAX },
    }
    /// The kernel of the kernel rules.
    Kernel {
        field: kernel: KernelSpec = KernelSpec::default(),
        key: "kernel",
        long: "kernel",
        describe: "kernel of the kernel rules",
        range: KernelSpec::SYNTAX,
        valid: values::reads_back,
        step: Step::Through(&KERNEL_STEPS),
    }
    /// Stiffness of `soft-kernel-kmeans`.
    Beta {
        field: beta: f64 = DEFAULT_BETA,
        key: "beta",
        long: "beta",
        describe: "stiffness of soft kernel k-means",
        range: "a positive number",
        valid: |beta| beta.is_finite() && *beta > 0.0,
        step: Step::By { by: 0.1, low: 0.1, high: 100.0 },
    }
    /// The graph Laplacian of spectral clustering.
    Laplacian {
        field: laplacian: Laplacian = Laplacian::default(),
        key: "laplacian",
        long: "laplacian",
        describe: "graph Laplacian of spectral clustering",
        range: Laplacian::names().join(", "),
        valid: |_| true,
        step: Step::Cycle,
    }
    /// `alignment`: normalise the kernel in feature space before centring it (the paper's preprocessing).
    Normalise {
        field: normalise: bool = true,
        key: "normalise",
        long: "no-kernel-normalise",
        describe: "normalise the kernel in feature space before centring it",
        range: "true or false",
        valid: |_| true,
        step: Step::Cycle,
    }
    /// `cut-cost`: what the threshold scan minimises.
    CutScan {
        field: cut_scan: CutScan = CutScan::default(),
        key: "cut-scan",
        long: "cut-scan",
        screen: "cut scan",
        describe: "what the cut-cost threshold scan minimises",
        range: CutScan::names().join(", "),
        valid: |_| true,
        step: Step::Cycle,
        // Until it had the parameter, the scan minimised the ratio cut.
        missing: CutScan::Ratio,
    }
    /// `cut-cost`: the smallest side a threshold may leave, as a share of the node.
    MinSide {
        field: min_side: f64 = DEFAULT_MIN_SIDE,
        key: "min-side",
        long: "min-side",
        screen: "min side",
        describe: "smallest side of a cut-cost split, as a share of the node",
        range: "in [0, 0.5)",
        valid: |share| (0.0..0.5).contains(share),
        step: Step::By { by: 0.05, low: 0.0, high: 0.45 },
        // Until it had the parameter, the scan went over every threshold.
        missing: 0.0,
    }
    /// `cut-cost`: the share of the collection's labels shown to the scan (transduction; 0: none).
    PartialLabels {
        field: partial_labels: f64 = 0.0,
        key: "partial-labels",
        long: "partial-labels",
        screen: "labels shown",
        value_name: "FRACTION",
        describe: "share of the labels shown to cut-cost (transduction; 0: none), drawn with the seed",
        range: "in [0, 1]",
        valid: |share| (0.0..=1.0).contains(share),
        step: Step::By { by: 0.05, low: 0.0, high: 1.0 },
    }
    /// `cut-cost`: the weight `C0` of the shown labels.
    C0 {
        // Cristianini, Shawe-Taylor & Kandola's value: "Taking C0 = 1".
        field: c0: f64 = 1.0,
        key: "c0",
        long: "c0",
        value_name: "C",
        describe: "weight C0 of the shown labels in the cut-cost of K + C0 z z'",
        range: "a positive number",
        valid: |c0| c0.is_finite() && *c0 > 0.0,
        step: Step::By { by: 0.5, low: 0.5, high: 100.0 },
    }
    /// The PDDP family: approximate the principal directions of a node of at least [`SAMPLED_MIN_SAMPLE`] times
    /// this many members from every `sample`-th of them; 0 computes them exactly.
    Sample {
        field: sample: usize = 0,
        key: "sample",
        long: "sample",
        value_name: "S",
        describe: "approximate the directions of a node of at least 10,000 x s members from every s-th \
                   member, then one pass over all",
        range: "0 (exact), or at least 2",
        // A stride of 1 would be the exact run at a sample's extra cost.
        valid: |stride| *stride != 1,
        step: Step::Doubling { low: 2, high: 1024 },
        quiet_at_default: true,
    }
}

impl Param {
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

impl Params {
    /// Check every value, the first out of range named in the error. Every parameter is checked, whether or not
    /// the rule chosen uses it: a value no rule can take is a mistake worth reporting.
    pub fn check(&self) -> Result<CheckedParams, ParamError> {
        for param in Param::ALL {
            param.check(self)?;
        }
        Ok(CheckedParams(self.clone()))
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
    fn the_rows_name_each_parameter_once_in_order() {
        for (at, param) in Param::ALL.into_iter().enumerate() {
            assert_eq!(param as usize, at, "{param}");
        }
        for name in [Param::key, Param::long, Param::screen_name] {
            let names: std::collections::HashSet<&str> = Param::ALL.into_iter().map(name).collect();
            assert_eq!(names.len(), Param::COUNT, "{names:?}");
        }
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
