//! Stop words and weighting without restarting: the weighting and filters form (`W`), and what a rebuild of the
//! matrix and replay of the tree changed, as the report popup shows it. The Terms tab's `d` (drop the word) and
//! the job itself are the root's and the effects'.

use crate::cluster::ReplayReport;
use crate::dataset::{Reweigh, ReweighReport};
use crate::weighting::{GlobalWeight, LocalWeight, Weighting};

use super::super::keys::Command;

/// How many moved leaves the status line names; the report popup lists them all.
const STATUS_LEAVES: usize = 4;

/// The replay's report as the popup shows it: a heading line, then a line per matched leaf.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ReplaySummary {
    pub headline: Vec<String>,
    /// A line per matched leaf.
    pub leaves: Vec<LeafLine>,
}

/// A leaf of the old tree found again: its label (a replay keeps ids and names), its sizes before and after,
/// the documents both hold, and whether the size moved by more than 5%.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LeafLine {
    pub label: String,
    pub old_size: usize,
    pub new_size: usize,
    pub shared: usize,
    pub moved: bool,
}

/// What a key in the weighting form asks for.
pub(crate) enum FormOutcome {
    /// The form stays open.
    Stay,
    /// Closed: nothing changed.
    Unchanged,
    /// Rebuild with these settings; the change in a few words.
    Apply(Reweigh, String),
}

/// The local weights in the form's order, with their TMG letters and names.
pub(crate) const LOCAL_WEIGHTS: [(LocalWeight, &str); 5] = [
    (LocalWeight::TermFrequency, "t term frequency"),
    (LocalWeight::Binary, "b binary"),
    (LocalWeight::Log, "l log2(1 + f)"),
    (LocalWeight::AlternateLog, "a 1 + log2 f"),
    (LocalWeight::Augmented, "n augmented"),
];

/// The global weights in the form's order.
pub(crate) const GLOBAL_WEIGHTS: [(GlobalWeight, &str); 6] = [
    (GlobalWeight::None, "x none"),
    (GlobalWeight::Idf, "f idf"),
    (GlobalWeight::Entropy, "e entropy"),
    (GlobalWeight::GfIdf, "g gfidf"),
    (GlobalWeight::Normal, "n normal"),
    (GlobalWeight::ProbabilisticInverse, "p probabilistic idf"),
];

/// The weighting and filters form (`W`): its rows are [`WeightingForm::ROWS`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct WeightingForm {
    row: usize,
    /// 0: a TMG code, 1: pdgp, 2: none.
    scheme: usize,
    local: usize,
    global: usize,
    cosine: bool,
    min_df: usize,
    max_df: f64,
    stop_words: Vec<String>,
    /// The settings the matrix has now, to tell what changed.
    current: Reweigh,
}

impl WeightingForm {
    pub(crate) const ROWS: [&'static str; 7] = [
        "weighting",
        "local weight",
        "global weight",
        "normalisation",
        "min df (documents)",
        "max df (fraction)",
        "extra stop words",
    ];
    pub(crate) const SCHEMES: [&'static str; 3] = ["TMG code", "pdgp", "none"];

    pub(super) fn new(current: &Reweigh) -> WeightingForm {
        let (scheme, local, global, cosine) = match current.weighting {
            Weighting::Code {
                local,
                global,
                cosine,
            } => (
                0,
                LOCAL_WEIGHTS
                    .iter()
                    .position(|(l, _)| *l == local)
                    .unwrap_or(2),
                GLOBAL_WEIGHTS
                    .iter()
                    .position(|(g, _)| *g == global)
                    .unwrap_or(1),
                cosine,
            ),
            Weighting::Pdgp => (1, 2, 1, true),
            Weighting::None => (2, 2, 1, true),
        };
        WeightingForm {
            row: 0,
            scheme,
            local,
            global,
            cosine,
            min_df: current.min_df,
            max_df: current.max_df,
            stop_words: current.extra_stop_words.clone(),
            current: current.clone(),
        }
    }

    /// The row under the cursor.
    pub(crate) fn row(&self) -> usize {
        self.row
    }

    /// Whether the local and global weights and the normalisation mean something (a TMG code is chosen).
    pub(crate) fn by_code(&self) -> bool {
        self.scheme == 0
    }

    /// The settings the matrix has now.
    pub(crate) fn current(&self) -> &Reweigh {
        &self.current
    }

    /// Each row's value as the form shows it, in [`WeightingForm::ROWS`]' order.
    pub(crate) fn values(&self) -> [String; 7] {
        let stop_words = match self.stop_words.is_empty() {
            true => "(none)".to_string(),
            false => self.stop_words.join(", "),
        };
        [
            WeightingForm::SCHEMES[self.scheme].to_string(),
            LOCAL_WEIGHTS[self.local].1.to_string(),
            GLOBAL_WEIGHTS[self.global].1.to_string(),
            if self.cosine { "c cosine" } else { "x none" }.to_string(),
            self.min_df.to_string(),
            format!("{:.2}", self.max_df),
            stop_words,
        ]
    }

    pub(crate) fn weighting(&self) -> Weighting {
        match self.scheme {
            1 => Weighting::Pdgp,
            2 => Weighting::None,
            _ => Weighting::Code {
                local: LOCAL_WEIGHTS[self.local].0,
                global: GLOBAL_WEIGHTS[self.global].0,
                cosine: self.cosine,
            },
        }
    }

    pub(crate) fn settings(&self) -> Reweigh {
        Reweigh {
            extra_stop_words: self.stop_words.clone(),
            weighting: self.weighting(),
            min_df: self.min_df,
            max_df: self.max_df,
            max_terms: self.current.max_terms,
            select_terms: self.current.select_terms,
        }
    }

    /// Step the value of the row under the cursor (the stop words' row: a step down removes the last word).
    fn step(&mut self, up: bool) {
        let cycle = |value: usize, count: usize| {
            if up {
                (value + 1) % count
            } else {
                (value + count - 1) % count
            }
        };
        match self.row {
            0 => self.scheme = cycle(self.scheme, WeightingForm::SCHEMES.len()),
            1 => self.local = cycle(self.local, LOCAL_WEIGHTS.len()),
            2 => self.global = cycle(self.global, GLOBAL_WEIGHTS.len()),
            3 => self.cosine = !self.cosine,
            4 if up => self.min_df += 1,
            4 => self.min_df = self.min_df.saturating_sub(1).max(1),
            // In twentieths, so that repeated steps land on round values.
            5 => {
                let twentieths = (self.max_df * 20.0).round() as i64 + if up { 1 } else { -1 };
                self.max_df = twentieths.clamp(1, 20) as f64 / 20.0;
            }
            6 if !up => {
                self.stop_words.pop();
            }
            _ => {}
        }
    }

    /// The changes from the matrix's settings, in a few words; empty when nothing changed.
    fn changes(&self) -> Vec<String> {
        let (old, new) = (&self.current, self.settings());
        let mut changes = Vec::new();
        if old.weighting != new.weighting {
            changes.push(format!(
                "weighting {} → {}",
                old.weighting.code(),
                new.weighting.code()
            ));
        }
        if old.min_df != new.min_df {
            changes.push(format!("min df {} → {}", old.min_df, new.min_df));
        }
        if old.max_df != new.max_df {
            changes.push(format!("max df {} → {}", old.max_df, new.max_df));
        }
        let removed = old
            .extra_stop_words
            .len()
            .saturating_sub(new.extra_stop_words.len());
        if removed > 0 {
            changes.push(format!("{removed} stop words taken back"));
        }
        changes
    }

    /// A key in the form.
    pub(super) fn command(&mut self, command: Command) -> FormOutcome {
        let rows = WeightingForm::ROWS.len();
        match command {
            Command::Up => self.row = (self.row + rows - 1) % rows,
            Command::Down => self.row = (self.row + 1) % rows,
            Command::Increase | Command::Right => self.step(true),
            Command::Decrease | Command::Left | Command::Backspace => self.step(false),
            Command::Confirm => {
                let changes = self.changes();
                return match changes.is_empty() {
                    true => FormOutcome::Unchanged,
                    false => FormOutcome::Apply(self.settings(), changes.join(", ")),
                };
            }
            _ => {}
        }
        FormOutcome::Stay
    }
}

/// What a rebuild and replay changed: `change` in a few words, and the leaves of the old tree found again
/// (`label` names a node of the new tree, which has the old one's id).
pub(super) fn summary(
    change: &str,
    reweigh: &ReweighReport,
    replay: &ReplayReport,
    label: impl Fn(usize) -> String,
) -> ReplaySummary {
    let moved = replay.moved();
    let named: Vec<String> = moved
        .iter()
        .take(STATUS_LEAVES)
        .map(|l| format!("{} {}→{}", label(l.new_node), l.old_size, l.new_size))
        .collect();
    let more = if moved.len() > STATUS_LEAVES {
        ", …"
    } else {
        ""
    };
    let mut status = format!(
        "{change}: replayed {} splits; {} leaves changed by more than 5% (size or documents)",
        replay.replayed,
        moved.len()
    );
    if !named.is_empty() {
        status.push_str(&format!(": {}{more}", named.join(", ")));
    }
    if !replay.stopped.is_empty() {
        status.push_str(&format!(
            "; {} splits could not be redone",
            replay.stopped.len()
        ));
    }
    let mut headline = vec![
        status,
        format!(
            "terms {} → {}; documents left without terms: {} more, {} fewer",
            reweigh.terms_before, reweigh.terms_after, reweigh.newly_empty, reweigh.no_longer_empty
        ),
    ];
    for stopped in &replay.stopped {
        headline.push(format!(
            "not redone: the split of {} ({}): {}",
            label(stopped.new_node),
            stopped.rule,
            stopped.reason
        ));
    }
    if replay.shelved > 0 {
        headline.push(format!(
            "{} alternative splits kept aside were not replayed",
            replay.shelved
        ));
    }
    if replay.unmatched_leaves > 0 {
        headline.push(format!(
            "{} leaves are gone with the splits not redone",
            replay.unmatched_leaves
        ));
    }
    if replay.moves_replayed + replay.moves_dropped > 0 {
        headline.push(format!(
                "documents moved by hand: {} put back in their leaves, {} left where the splits put them",
                replay.moves_replayed, replay.moves_dropped
            ));
    }
    if replay.merges_replayed + replay.merges_dropped > 0 {
        headline.push(format!(
            "leaves merged into others by hand: {} merged again, {} not (their documents put back where they were)",
            replay.merges_replayed, replay.merges_dropped
        ));
    }
    let leaves = replay
        .leaves
        .iter()
        .map(|leaf| LeafLine {
            label: label(leaf.new_node),
            old_size: leaf.old_size,
            new_size: leaf.new_size,
            shared: leaf.shared,
            moved: leaf.moved(),
        })
        .collect();
    ReplaySummary { headline, leaves }
}
