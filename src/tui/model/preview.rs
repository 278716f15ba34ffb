//! The Preview tab's previews: asked for one at a time (so that moving fast through the tree does not pile up
//! work), first the histogram and the quick rows of the rule table, then its other rows, then the second
//! direction for the scatter plot ([`PreviewStep`]), and kept per node, tree revision and rule choice, the oldest
//! evicted first. A split node's Preview is the split it had, computed the same way. The cursor in the rule
//! table.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

use crate::cluster::rules::KnownDirections;
use crate::cluster::{RuleSpec, Tree};
use crate::dataset::Dataset;
use crate::report::preview::{MadeSplit, RulePreview, SplitPreview};

use super::super::effects::{PreviewDone, PreviewJob, PreviewKey, PreviewResult, PreviewStep};
use super::scatter_sample::ScatterSample;

/// What the Preview tab says of a preview cancelled with Ctrl-C.
pub(crate) const PREVIEW_CANCELLED: &str = "cancelled (4 computes it again)";

/// How far the Preview tab scrolls (its text part is shorter than this).
pub(crate) const PREVIEW_LINES: usize = 40;

/// How many node previews are kept (a root preview of 20 Newsgroups holds two coordinates per document, about
/// 300 kB).
const PREVIEW_CACHE: usize = 32;

/// A kept preview.
#[derive(Debug, Clone)]
pub(crate) struct PreviewEntry {
    pub result: Result<Arc<SplitPreview>, String>,
    /// The rows the first step left (no outcome yet) are being computed; when not, such rows were cancelled.
    pub rows_pending: bool,
    /// The second principal coordinate (the scatter plot) is still being computed.
    pub second_pending: bool,
    /// The members the scatter plot draws, chosen once its coordinates arrived.
    pub scatter: Option<Arc<ScatterSample>>,
}

/// What a preview is asked for: the node selected, the tree, its revision, and the rules compared.
pub(crate) struct Asked<'a> {
    pub tree: &'a Tree,
    pub key: PreviewKey,
    pub rules: Vec<RuleSpec>,
}

#[derive(Debug, Default)]
pub(crate) struct PreviewPane {
    entries: HashMap<PreviewKey, PreviewEntry>,
    /// Split nodes' previews: the split each had.
    made: HashMap<PreviewKey, Result<Arc<MadeSplit>, String>>,
    order: VecDeque<PreviewKey>,
    /// Previews cancelled with Ctrl-C: not asked for again until `4` says so.
    cancelled: HashSet<PreviewKey>,
    /// The directions the last split took from its node's preview, for that split node's own preview.
    split_directions: Option<(PreviewKey, Arc<KnownDirections>)>,
    /// Changes with the rule and its parameters, which decide what a preview compares.
    epoch: u64,
    /// Row under the cursor in the rule table, kept from leaf to leaf (the same rule's row); none until it moves:
    /// the current rule's row.
    cursor: Option<usize>,
}

impl PreviewPane {
    /// The key of `node`'s preview in the tree at `revision`, as the rule stands.
    pub(crate) fn key(&self, node: usize, revision: u64) -> PreviewKey {
        PreviewKey {
            node,
            revision,
            epoch: self.epoch,
        }
    }

    pub(crate) fn entry(&self, key: PreviewKey) -> Option<&PreviewEntry> {
        self.entries.get(&key)
    }

    pub(crate) fn made(&self, key: PreviewKey) -> Option<&Result<Arc<MadeSplit>, String>> {
        self.made.get(&key)
    }

    /// The principal directions of the leaf of `key`, when its preview computed them: a split takes them rather
    /// than compute them again, if they are the ones it would compute.
    pub(crate) fn directions(&self, key: PreviewKey) -> Option<Arc<KnownDirections>> {
        let preview = self.entries.get(&key)?.result.as_ref().ok()?;
        preview.known.clone()
    }

    /// Keep the directions the split of the node of `key`, just applied, took from its preview: the split node's
    /// own preview takes them too.
    pub(super) fn keep_split_directions(
        &mut self,
        key: PreviewKey,
        directions: Arc<KnownDirections>,
    ) {
        self.split_directions = Some((key, directions));
    }

    /// Forget every preview: the rule or its parameters changed, so the previews compare other rules.
    pub(super) fn outdate(&mut self) {
        self.epoch += 1;
        self.entries.clear();
        self.made.clear();
        self.order.clear();
        self.cancelled.clear();
        self.split_directions = None;
    }

    fn keep(&mut self, key: PreviewKey, entry: PreviewEntry) {
        if self.entries.insert(key, entry).is_none() {
            self.order.push_back(key);
        }
        self.evict();
    }

    fn keep_made(&mut self, key: PreviewKey, made: Result<Arc<MadeSplit>, String>) {
        if self.made.insert(key, made).is_none() {
            self.order.push_back(key);
        }
        self.evict();
    }

    fn evict(&mut self) {
        while self.order.len() > PREVIEW_CACHE {
            if let Some(old) = self.order.pop_front() {
                self.entries.remove(&old);
                self.made.remove(&old);
            }
        }
    }

    /// The preview step the node of `asked` wants next, if any: a splittable leaf whose preview is not complete
    /// (its steps in order: [`PreviewStep`]) or a split node whose split is not kept yet. The model asks only
    /// while the Preview tab shows and no preview job runs.
    pub(super) fn request(&self, asked: Asked) -> Option<PreviewJob> {
        let Asked { tree, key, rules } = asked;
        let split = tree.node(key.node).is_some_and(|n| n.split.is_some());
        let mut known = None;
        let (step, first) = if split {
            if self.made.contains_key(&key) {
                return None;
            }
            known = match &self.split_directions {
                Some((at, directions)) if *at == key => Some(Arc::clone(directions)),
                _ => None,
            };
            (PreviewStep::Made, None)
        } else {
            if !matches!(tree.unsplittable_reason(key.node), Ok(None)) {
                return None;
            }
            match self.entries.get(&key) {
                // When a rule needs two directions anyway (PDDP(2) as the current rule), the first step gives the
                // scatter plot's coordinate too.
                None => {
                    let second_direction = rules
                        .iter()
                        .any(|rule| rule.rule().directions_needed() >= 2);
                    (PreviewStep::First { second_direction }, None)
                }
                Some(entry) => {
                    let step = match entry {
                        _ if entry.rows_pending => PreviewStep::Rest,
                        _ if entry.second_pending => PreviewStep::Second,
                        _ => return None,
                    };
                    (step, entry.result.as_ref().ok().cloned())
                }
            }
        };
        Some(PreviewJob {
            key,
            tree: tree.clone(),
            rules: if split { Vec::new() } else { rules },
            step,
            first,
            known,
        })
    }

    /// The preview of `key` was cancelled while its `step` was computing: the tab says so until `4` asks again.
    pub(super) fn cancelled(&mut self, key: PreviewKey, step: PreviewStep) {
        self.cancelled.insert(key);
        if step == PreviewStep::Made {
            self.keep_made(key, Err(PREVIEW_CANCELLED.into()));
            return;
        }
        let entry = match self.entries.get(&key) {
            // A later step was computing: what the earlier ones found stays, the rest says it was cancelled.
            Some(PreviewEntry {
                result: Ok(first), ..
            }) => PreviewEntry {
                result: Ok(Arc::clone(first)),
                rows_pending: false,
                second_pending: false,
                scatter: None,
            },
            _ => PreviewEntry {
                result: Err(PREVIEW_CANCELLED.into()),
                rows_pending: false,
                second_pending: false,
                scatter: None,
            },
        };
        self.keep(key, entry);
    }

    /// Ask again for the preview of `key` if it was cancelled; returns whether it was.
    pub(super) fn retry(&mut self, key: PreviewKey) -> bool {
        if !self.cancelled.remove(&key) {
            return false;
        }
        if self.made.remove(&key).is_some() {
            self.order.retain(|k| *k != key);
            return true;
        }
        if let Some(entry) = self.entries.get_mut(&key) {
            match &entry.result {
                Ok(first) => {
                    entry.rows_pending = rows_left(first);
                    entry.second_pending = first.second.is_none();
                }
                Err(_) => {
                    self.entries.remove(&key);
                    self.order.retain(|k| *k != key);
                }
            }
        }
        true
    }

    /// A preview step's result (its job still the current one: the model drops stale ones).
    pub(super) fn done(&mut self, done: PreviewDone, tree: &Tree, data: &Dataset) {
        let result = match done.result {
            PreviewResult::Made(made) => {
                self.keep_made(done.key, made.map(|made| Arc::new(*made)));
                return;
            }
            PreviewResult::Leaf(result) => result,
        };
        let earlier = self.entries.get(&done.key);
        let entry = match result {
            Ok(preview) => PreviewEntry {
                rows_pending: rows_left(&preview),
                second_pending: match done.step {
                    // A node with a single direction (two members) has no second coordinate to wait for.
                    PreviewStep::First { second_direction } => !second_direction,
                    PreviewStep::Rest => earlier.is_some_and(|entry| entry.second_pending),
                    PreviewStep::Made | PreviewStep::Second => false,
                },
                // Chosen once here, not per frame: a huge node's plot draws a sample of its members.
                scatter: preview
                    .second
                    .as_ref()
                    .and_then(|_| tree.node(preview.node))
                    .map(|node| Arc::new(ScatterSample::of(data, &node.members))),
                result: Ok(Arc::new(preview)),
            },
            Err(error) => match earlier {
                // A later step failed: keep what the earlier found; rows it was to compute say why.
                Some(PreviewEntry {
                    result: Ok(first),
                    second_pending,
                    scatter,
                    ..
                }) => PreviewEntry {
                    result: Ok(Arc::new(with_rows_failed(first, &error))),
                    rows_pending: false,
                    second_pending: *second_pending && done.step == PreviewStep::Rest,
                    scatter: scatter.clone(),
                },
                _ => PreviewEntry {
                    result: Err(error),
                    rows_pending: false,
                    second_pending: false,
                    scatter: None,
                },
            },
        };
        self.keep(done.key, entry);
    }

    /// The row under the cursor in the rule table of `key`'s preview, or, before it moved, `rule`'s row.
    pub(crate) fn cursor(&self, key: PreviewKey, rule: &RuleSpec) -> usize {
        let Some(preview) = self.table(key) else {
            return self.cursor.unwrap_or(0);
        };
        let row = self.cursor.unwrap_or_else(|| {
            preview
                .rules
                .iter()
                .position(|r| r.rule == *rule)
                .unwrap_or(0)
        });
        row.min(preview.rules.len().saturating_sub(1))
    }

    /// The rule table's row under the cursor, when `key`'s preview is computed.
    pub(crate) fn row(&self, key: PreviewKey, rule: &RuleSpec) -> Option<&RulePreview> {
        self.table(key)?.rules.get(self.cursor(key, rule))
    }

    /// `key`'s leaf preview, when computed.
    fn table(&self, key: PreviewKey) -> Option<&Arc<SplitPreview>> {
        self.entries.get(&key)?.result.as_ref().ok()
    }

    /// Whether `key`'s preview has a rule table the arrows move through (a split node's has none).
    pub(super) fn has_table(&self, key: PreviewKey) -> bool {
        self.entries.contains_key(&key)
    }

    /// An arrow on the rule table of `key`'s preview.
    pub(super) fn move_cursor(
        &mut self,
        key: PreviewKey,
        rule: &RuleSpec,
        command: super::Command,
    ) {
        let rows = self.table(key).map_or(0, |preview| preview.rules.len());
        self.cursor = Some(super::scrolled(
            self.cursor(key, rule),
            command,
            rows.saturating_sub(1),
        ));
    }
}

/// Whether `preview` has rows its first step left.
fn rows_left(preview: &SplitPreview) -> bool {
    preview.rules.iter().any(|row| row.outcome.is_none())
}

/// `preview` with every row left for later given `error` as its outcome.
fn with_rows_failed(preview: &SplitPreview, error: &str) -> SplitPreview {
    let mut failed = preview.clone();
    for row in failed.rules.iter_mut().filter(|row| row.outcome.is_none()) {
        row.outcome = Some(Err(error.to_string()));
    }
    failed
}
