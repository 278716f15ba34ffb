//! Stop words and weighting without restarting: the Terms tab's cursor and its `d` (drop the word), the
//! weighting and filters form (`W`), and the job that rebuilds the matrix from the kept counts and replays the
//! tree's splits on it; undo gives back the dataset and the tree together.

use std::sync::Arc;

use pdx::cluster::rules::SplitEnv;
use pdx::cluster::{ReplayReport, Tree};
use pdx::dataset::{Dataset, Reweigh, ReweighReport};
use pdx::progress::Progress;
use pdx::report::terms::TermWeight;
use pdx::weighting::{GlobalWeight, LocalWeight, Weighting};

use super::super::keys::Command;
use super::update::scrolled;
use super::{DetailTab, Model, Popup};

/// How many moved leaves the status line names; the report popup lists them all.
const STATUS_LEAVES: usize = 4;

/// The replay's part of the model: the Terms tab's cursor.
#[derive(Debug, Clone, Default)]
pub(crate) struct ReplayState {
    /// Row under the cursor in the Terms tab: the top terms, then the discriminating ones.
    pub term_cursor: usize,
}

/// A rebuild and replay to run on a worker thread.
#[derive(Debug, Clone)]
pub(crate) struct ReplayJob {
    pub id: u64,
    pub data: Arc<Dataset>,
    pub tree: Tree,
    pub settings: Reweigh,
    /// What changes, in a few words ("dropped the word \"game\""), for the status line and undo.
    pub change: String,
    pub progress: Arc<Progress>,
    pub memory_budget: u64,
}

/// What came back from a replay job.
#[derive(Debug, Clone)]
pub(crate) struct ReplayDone {
    pub job: u64,
    pub change: String,
    pub result: Result<Box<Replayed>, String>,
}

#[derive(Debug, Clone)]
pub(crate) struct Replayed {
    pub data: Arc<Dataset>,
    pub tree: Tree,
    pub reweigh: ReweighReport,
    pub replay: ReplayReport,
}

/// The replay's report as the popup shows it: a heading line, then a line per matched leaf.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ReplaySummary {
    pub headline: Vec<String>,
    /// A line per matched leaf.
    pub leaves: Vec<LeafLine>,
}

/// A leaf of the old tree found again by its path: the old and the new node's labels, their sizes, the
/// documents they share, and whether the size moved by more than 5%.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LeafLine {
    pub old: String,
    pub new: String,
    pub old_size: usize,
    pub new_size: usize,
    pub shared: usize,
    pub moved: bool,
}

/// Rebuild the matrix and replay the tree, on whatever thread calls it.
pub(crate) fn perform_replay(job: ReplayJob) -> ReplayDone {
    let ReplayJob {
        id,
        data,
        tree,
        settings,
        change,
        progress,
        memory_budget,
    } = job;
    let result = data
        .reweigh(&settings)
        .map_err(|error| error.to_string())
        .and_then(|(rebuilt, reweigh)| {
            let env = SplitEnv {
                texts: Some(&rebuilt),
                labels: Some(&rebuilt),
                progress: Some(&progress),
                memory_budget,
                known: None,
            };
            let (tree, replay) =
                Tree::replay(&tree, &rebuilt, env).map_err(|error| error.to_string())?;
            Ok(Box::new(Replayed {
                data: Arc::new(rebuilt),
                tree,
                reweigh,
                replay,
            }))
        });
    ReplayDone {
        job: id,
        change,
        result,
    }
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
    pub row: usize,
    /// 0: a TMG code, 1: pdgp, 2: none.
    pub scheme: usize,
    pub local: usize,
    pub global: usize,
    pub cosine: bool,
    pub min_df: usize,
    pub max_df: f64,
    pub stop_words: Vec<String>,
    /// The settings the matrix has now, to tell what changed.
    pub current: Reweigh,
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

    fn new(current: &Reweigh) -> WeightingForm {
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
}

impl Model {
    /// The Terms tab's rows: its top terms, then its discriminating ones.
    fn listed_terms(&self) -> impl Iterator<Item = &TermWeight> {
        self.detail
            .top_terms
            .iter()
            .chain(&self.detail.discriminating)
    }

    /// The row under the Terms tab's cursor (kept within the rows listed).
    pub(crate) fn term_cursor(&self) -> usize {
        let rows = self.listed_terms().count();
        self.replay.term_cursor.min(rows.saturating_sub(1))
    }

    /// Move the Terms tab's cursor.
    pub(super) fn move_term_cursor(&mut self, command: Command) {
        let last = self.listed_terms().count().saturating_sub(1);
        self.replay.term_cursor = scrolled(self.term_cursor(), command, last);
    }

    /// `d`: add the word under the Terms tab's cursor to the stop words, rebuild the matrix and replay the tree.
    pub(super) fn drop_word_under_cursor(&mut self) -> Vec<super::Effect> {
        if self.tab != DetailTab::Terms {
            self.status = "d drops a word from the Terms tab (1): move its cursor with ↑↓".into();
            return Vec::new();
        }
        let Some(word) = self
            .listed_terms()
            .nth(self.term_cursor())
            .map(|t| t.term.clone())
        else {
            self.status = "no term listed to drop".into();
            return Vec::new();
        };
        let Some(current) = self.data.reweighing().cloned() else {
            self.status = "this dataset keeps no term counts: stop words need a reload".into();
            return Vec::new();
        };
        let mut settings = current;
        settings.extra_stop_words.push(word.clone());
        self.start_replay(settings, format!("dropped the word \"{word}\""))
    }

    /// `W`: the weighting and filters form.
    pub(super) fn open_weighting_form(&mut self) {
        match self.data.reweighing() {
            Some(current) => self.popup = Some(Popup::Weighting(WeightingForm::new(current))),
            None => {
                self.status =
                    "this dataset keeps no term counts (numeric data): nothing to reweigh".into()
            }
        }
    }

    /// A key in the weighting form; returns whether it stays open, and the effects.
    pub(super) fn weighting_form_command(
        &mut self,
        form: &mut WeightingForm,
        command: Command,
    ) -> (bool, Vec<super::Effect>) {
        let rows = WeightingForm::ROWS.len();
        match command {
            Command::Up => form.row = (form.row + rows - 1) % rows,
            Command::Down => form.row = (form.row + 1) % rows,
            Command::Increase | Command::Right => form.step(true),
            Command::Decrease | Command::Left | Command::Backspace => form.step(false),
            Command::Confirm => {
                let changes = form.changes();
                if changes.is_empty() {
                    self.status = "weighting and filters unchanged".into();
                    return (false, Vec::new());
                }
                return (
                    false,
                    self.start_replay(form.settings(), changes.join(", ")),
                );
            }
            _ => {}
        }
        (true, Vec::new())
    }

    /// Start the rebuild and replay of `settings` on a worker thread, unless a job runs already.
    fn start_replay(&mut self, settings: Reweigh, change: String) -> Vec<super::Effect> {
        if let Some((_, running)) = &self.busy {
            self.status = format!("busy: {running} (Esc cancels)");
            return Vec::new();
        }
        let id = self.next_job;
        self.next_job += 1;
        let what = format!("{change}: rebuilding the matrix and replaying the tree");
        self.status = format!("{what}…");
        self.busy = Some((id, what));
        let progress = Arc::new(Progress::default());
        self.job_progress = Some(Arc::clone(&progress));
        vec![super::Effect::Replay(Box::new(ReplayJob {
            id,
            data: Arc::clone(&self.data),
            tree: self.tree.clone(),
            settings,
            change,
            progress,
            memory_budget: self.memory_budget,
        }))]
    }

    /// A replay job's result: the dataset and the tree replaced together (one undo step), the status line
    /// saying what changed, and the report popup listing the leaves.
    pub(super) fn replayed(&mut self, done: ReplayDone) {
        if self.busy.as_ref().map(|(id, _)| *id) != Some(done.job) {
            return;
        }
        self.busy = None;
        self.job_progress = None;
        let replayed = match done.result {
            Ok(replayed) => replayed,
            Err(error) => {
                self.status = format!("{}: {error}", done.change);
                return;
            }
        };
        let Replayed {
            data,
            tree,
            reweigh,
            replay,
        } = *replayed;
        let path = self.tree.path_of(self.selected);
        let old_labels: Vec<String> = replay
            .leaves
            .iter()
            .map(|l| self.label(l.old_node))
            .collect();
        self.replace_data_and_tree(data, tree, done.change.clone());
        if let Some(id) = self.tree.node_at(&path) {
            self.select(id);
        }
        let summary = self.summary(&done.change, &reweigh, &replay, old_labels);
        self.status = summary.headline[0].clone();
        self.popup = Some(Popup::Replayed {
            summary: Arc::new(summary),
            scroll: 0,
        });
    }

    fn summary(
        &self,
        change: &str,
        reweigh: &ReweighReport,
        replay: &ReplayReport,
        old_labels: Vec<String>,
    ) -> ReplaySummary {
        let moved = replay.moved();
        let named: Vec<String> = moved
            .iter()
            .take(STATUS_LEAVES)
            .map(|l| format!("{} {}→{}", self.label(l.new_node), l.old_size, l.new_size))
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
                reweigh.terms_before,
                reweigh.terms_after,
                reweigh.newly_empty,
                reweigh.no_longer_empty
            ),
        ];
        for stopped in &replay.stopped {
            headline.push(format!(
                "not redone: the split of {} ({}): {}",
                self.label(stopped.new_node),
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
        let leaves = replay
            .leaves
            .iter()
            .zip(old_labels)
            .map(|(leaf, old)| LeafLine {
                old,
                new: self.label(leaf.new_node),
                old_size: leaf.old_size,
                new_size: leaf.new_size,
                shared: leaf.shared,
                moved: leaf.moved(),
            })
            .collect();
        ReplaySummary { headline, leaves }
    }
}
