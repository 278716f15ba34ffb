//! The threshold scan of `cut-cost` (Cristianini, Shawe-Taylor & Kandola, section 3.2): along the order of the
//! Fiedler vector, every threshold between two distinct entries is scored in O(m^2) in total, one row of `K`
//! per step, and the best one allowed by the smallest side is kept. With labels shown (transduction, end of
//! section 3.2), the cut is measured on `KP = K + C0 M` rather than `K`.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::choice::Choice;
use crate::linalg::Gram;

/// What the scan minimises over the thresholds. The paper minimises the cut cost "subject to the division being
/// even" and relaxes evenness to `sum_i y_i = 0`; on the threshold scan that leaves open how uneven a split may
/// be, and these are the readings pdx offers (with [`super::super::params::Param::MinSide`] as a bound on either);
/// `docs/references.md` gives the figures of each on the paper's experiments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CutScan {
    /// The least cut cost `C(y)` itself (Definition 2), the paper's criterion.
    #[default]
    Cost,
    /// The least `C(y) / (1 - ybar^2)`: the cut cost relative to its lower bound for the split's sizes (the ratio
    /// cut), which orders even splits as the cut cost does.
    Ratio,
    /// The least `cut / vol(S) + cut / vol(T)` (Shi & Malik's normalised cut, `vol` the sum of the degrees).
    Ncut,
}

impl Choice for CutScan {
    const ALL: &'static [Self] = &[CutScan::Cost, CutScan::Ratio, CutScan::Ncut];

    fn name(self) -> &'static str {
        match self {
            CutScan::Cost => "cost",
            CutScan::Ratio => "ratio",
            CutScan::Ncut => "ncut",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            CutScan::Cost => "the least cut cost C(y) (the paper's criterion)",
            CutScan::Ratio => "the least C(y) / (1 - ybar^2), the ratio cut",
            CutScan::Ncut => "the least cut/vol(S) + cut/vol(T), the normalised cut",
        }
    }
}

/// The labels a transductive scan is shown: each member's class (by position), `None` where hidden, and the
/// weight `C0`. `KP = K + C0 M` with `M_ij = +1` for two shown members of one class, `-1` for two of different
/// classes and 0 otherwise; with two classes that is the paper's `K + C0 z z'`, `z` holding the known labels as
/// `+-1` and 0 elsewhere.
#[derive(Debug, Clone, Copy)]
pub(super) struct Shown<'a> {
    pub classes: &'a [Option<usize>],
    pub count: usize,
    pub c0: f64,
}

/// How the scan is read.
#[derive(Debug, Clone, Copy)]
pub(super) struct ScanSettings<'a> {
    pub scan: CutScan,
    /// The smallest side, as a share of the node.
    pub min_side: f64,
    pub shown: Option<Shown<'a>>,
}

/// The threshold the scan chose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Chosen {
    /// Members below the threshold (the first `cut_at` of `order`).
    pub cut_at: usize,
    /// `sum_{y_i != y_j} K_ij`, over ordered pairs (of `K`, not `KP`).
    pub cut: f64,
}

/// The smallest side a threshold may leave in a node of `n` members: `ceil(min_side n)`, at least 1 and at most
/// `n / 2`, so that a node of two members can always be split.
pub(super) fn smallest_side(min_side: f64, n: usize) -> usize {
    ((min_side * n as f64).ceil() as usize).clamp(1, (n / 2).max(1))
}

/// The best threshold along `order` (the members in increasing order of the Fiedler vector `v`) under
/// `settings`, or `None` when no threshold between distinct values of `v` leaves both sides large enough.
/// `degree` holds the row sums of `K`.
pub(super) fn best_threshold(
    gram: &Gram,
    degree: &[f64],
    v: &[f64],
    order: &[usize],
    settings: &ScanSettings,
) -> Option<Chosen> {
    let n = gram.n();
    let smallest = smallest_side(settings.min_side, n);
    let total_volume: f64 = degree.iter().sum();
    // within[a] = sum_{i in S} K_ia for the set S below the threshold; cut = sum_{i in S, j not in S} K_ij.
    let mut within = vec![0.0; n];
    let mut cut = 0.0;
    let mut volume = 0.0;
    let mut labels = LabelCross::new(settings.shown);
    let nf = n as f64;
    let mut best: Option<(Chosen, f64)> = None;
    for (t, &a) in order[..n - 1].iter().enumerate() {
        cut += degree[a] - gram.get(a, a) - 2.0 * within[a];
        within
            .par_iter_mut()
            .zip(gram.row(a))
            .for_each(|(w, k)| *w += k);
        volume += degree[a];
        labels.move_below(a);
        let below = t + 1;
        if v[a] == v[order[t + 1]] || below.min(n - below) < smallest {
            continue;
        }
        // The cut of KP (of K when no labels are shown); round-off can take K's cut a hair below zero.
        let measured = cut.max(0.0) + labels.weighted_cross();
        let sides = below as f64 * (nf - below as f64);
        let score = match settings.scan {
            CutScan::Cost => measured,
            CutScan::Ratio => measured / sides,
            CutScan::Ncut if volume > 0.0 && total_volume - volume > 0.0 => {
                measured / volume + measured / (total_volume - volume)
            }
            CutScan::Ncut => f64::INFINITY,
        };
        if best.is_none_or(|(_, b)| score < b) {
            let chosen = Chosen {
                cut_at: below,
                cut: 2.0 * cut.max(0.0),
            };
            best = Some((chosen, score));
        }
    }
    best.map(|(chosen, _)| chosen)
}

/// `C0 sum_{i in S, j not in S} M_ij`, kept up to date as members move below the threshold: with `s_c` and `t_c`
/// the shown members of class `c` below and above, the sum is `2 sum_c s_c t_c - s t` (`s`, `t` the shown members
/// on each side), and moving one member of class `c` changes `sum_c s_c t_c` by `t_c - s_c - 1`.
struct LabelCross<'a> {
    shown: Option<Shown<'a>>,
    below: Vec<f64>,
    above: Vec<f64>,
    same: f64,
    shown_below: f64,
    shown_above: f64,
}

impl<'a> LabelCross<'a> {
    fn new(shown: Option<Shown<'a>>) -> Self {
        let count = shown.map_or(0, |s| s.count);
        let mut above = vec![0.0; count];
        if let Some(shown) = shown {
            for class in shown.classes.iter().flatten() {
                above[*class] += 1.0;
            }
        }
        let shown_above = above.iter().sum();
        LabelCross {
            shown,
            below: vec![0.0; count],
            above,
            same: 0.0,
            shown_below: 0.0,
            shown_above,
        }
    }

    fn move_below(&mut self, member: usize) {
        let Some(class) = self.shown.and_then(|s| s.classes[member]) else {
            return;
        };
        self.same += self.above[class] - self.below[class] - 1.0;
        self.below[class] += 1.0;
        self.above[class] -= 1.0;
        self.shown_below += 1.0;
        self.shown_above -= 1.0;
    }

    /// `C0 (2 sum_c s_c t_c - s t)`: each pair with one member below and one above counted once, as the scan
    /// counts `K`'s cut.
    fn weighted_cross(&self) -> f64 {
        match self.shown {
            Some(shown) => shown.c0 * (2.0 * self.same - self.shown_below * self.shown_above),
            None => 0.0,
        }
    }
}
