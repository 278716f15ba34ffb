//! Split previews the Preview tab has asked for: computed one at a time on a worker thread (so that moving fast
//! through the tree does not pile up work), first the histogram and the quick rows of the rule table, then its
//! other rows, then the second direction for the scatter plot ([`PreviewStep`]), and kept per node, tree revision
//! and rule choice, the oldest evicted first. A split node's
//! Preview is the split it had, computed the same way. The cursor in the rule table, and what its row does.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

use pdx::cluster::rules::KnownDirections;
use pdx::report::preview::{self, MadeSplit, RulePreview, SplitPreview};

use super::super::keys::Command;
use super::jobs::{Effect, PreviewDone, PreviewJob, PreviewResult, PreviewStep};
use super::scatter_sample::ScatterSample;
use super::update::scrolled;
use super::{DetailTab, Model, PREVIEW_LINES};

/// What the Preview tab says of a preview cancelled with Ctrl-C.
pub(crate) const PREVIEW_CANCELLED: &str = "cancelled (4 computes it again)";

/// How many node previews are kept (a root preview of 20 Newsgroups holds two coordinates per document, about
/// 300 kB).
const PREVIEW_CACHE: usize = 32;

/// What a preview is of: the node, the tree's revision and the preview epoch (which changes with the rule and its
/// parameters, since they decide what the preview compares).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct PreviewKey {
    pub node: usize,
    pub revision: u64,
    pub epoch: u64,
}

/// A cached preview.
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

#[derive(Debug, Default)]
pub(super) struct PreviewCache {
    entries: HashMap<PreviewKey, PreviewEntry>,
    /// Split nodes' previews: the split each had.
    made: HashMap<PreviewKey, Result<Arc<MadeSplit>, String>>,
    order: VecDeque<PreviewKey>,
    /// The preview being computed, and which step of it.
    running: Option<(PreviewKey, PreviewStep)>,
    /// Previews cancelled while computing: the worker cannot be interrupted, so their results are dropped.
    cancelled: HashSet<PreviewKey>,
    /// The directions the last split took from its node's preview, for that split node's own preview.
    split_directions: Option<(PreviewKey, Arc<KnownDirections>)>,
    epoch: u64,
}

impl PreviewCache {
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
}

impl Model {
    /// The key of the selected node's preview as the tree and the rule stand.
    pub(crate) fn preview_key(&self) -> PreviewKey {
        PreviewKey {
            node: self.selected,
            revision: self.history.revision,
            epoch: self.previews.epoch,
        }
    }

    /// The selected node's preview, if computed.
    pub(crate) fn current_preview(&self) -> Option<&PreviewEntry> {
        self.previews.entries.get(&self.preview_key())
    }

    /// Leaf `node`'s principal directions, when its preview (as the tree and the rule stand) computed them: a
    /// split takes them rather than compute them again, if they are the ones it would compute.
    pub(super) fn preview_directions(&self, node: usize) -> Option<Arc<KnownDirections>> {
        let key = PreviewKey {
            node,
            ..self.preview_key()
        };
        let preview = self.previews.entries.get(&key)?.result.as_ref().ok()?;
        preview.known.clone()
    }

    /// Keep the directions the split of `node`, just applied, took from its preview: the split node's own preview
    /// (as the tree now stands) takes them too.
    pub(super) fn keep_split_directions(&mut self, node: usize, directions: Arc<KnownDirections>) {
        let key = PreviewKey {
            node,
            ..self.preview_key()
        };
        self.previews.split_directions = Some((key, directions));
    }

    /// The split the selected node had, if it is split and that preview is computed.
    pub(crate) fn current_made(&self) -> Option<&Result<Arc<MadeSplit>, String>> {
        self.previews.made.get(&self.preview_key())
    }

    /// The rules a preview compares: those the registry previews (with the current parameters), and the current
    /// rule when it cuts along principal directions too (PDDP(l) with l > 1, for one).
    pub(crate) fn preview_rules(&self) -> Vec<pdx::cluster::RuleSpec> {
        let mut rules = preview::compared_rules(&self.params);
        if !rules.contains(&self.rule) && self.rule.rule().directions_needed() > 0 {
            rules.push(self.rule.clone());
        }
        rules
    }

    /// The preview job the model wants now, if any: the Preview tab shows a splittable leaf whose preview is not
    /// complete (its steps in order: [`PreviewStep`]) or a split node whose split is not shown yet, and no preview
    /// is running.
    pub(super) fn request_preview(&mut self) -> Option<Effect> {
        if self.tab != DetailTab::Preview || self.previews.running.is_some() {
            return None;
        }
        let key = self.preview_key();
        let split = self
            .tree
            .node(self.selected)
            .is_some_and(|n| n.split.is_some());
        let mut known = None;
        let (step, first) = if split {
            if self.previews.made.contains_key(&key) {
                return None;
            }
            known = match &self.previews.split_directions {
                Some((at, directions)) if *at == key => Some(Arc::clone(directions)),
                _ => None,
            };
            (PreviewStep::Made, None)
        } else {
            if !matches!(self.tree.unsplittable_reason(self.selected), Ok(None)) {
                return None;
            }
            match self.previews.entries.get(&key) {
                // When a rule needs two directions anyway (PDDP(2) as the current rule), the first step gives the
                // scatter plot's coordinate too.
                None => {
                    let second_direction = self
                        .preview_rules()
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
        self.previews.running = Some((key, step));
        Some(Effect::Preview(PreviewJob {
            key,
            tree: self.tree.clone(),
            rules: if split {
                Vec::new()
            } else {
                self.preview_rules()
            },
            step,
            first,
            known,
        }))
    }

    /// Cancel the preview the Preview tab is computing for the selected node: the tab says so until `4` asks
    /// again, and the worker's result is dropped. Returns whether there was one to cancel.
    pub(super) fn cancel_preview(&mut self) -> bool {
        let key = self.preview_key();
        let cache = &mut self.previews;
        let Some((running, step)) = cache.running else {
            return false;
        };
        if self.tab != DetailTab::Preview || running != key {
            return false;
        }
        cache.running = None;
        cache.cancelled.insert(key);
        if step == PreviewStep::Made {
            cache.keep_made(key, Err(PREVIEW_CANCELLED.into()));
            return true;
        }
        let entry = match cache.entries.get(&key) {
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
        cache.keep(key, entry);
        true
    }

    /// Ask again for the selected node's preview if it was cancelled; returns whether it was.
    pub(super) fn retry_preview(&mut self) -> bool {
        let key = self.preview_key();
        let cache = &mut self.previews;
        if !cache.cancelled.remove(&key) {
            return false;
        }
        if cache.made.remove(&key).is_some() {
            cache.order.retain(|k| *k != key);
            return true;
        }
        if let Some(entry) = cache.entries.get_mut(&key) {
            match &entry.result {
                Ok(first) => {
                    entry.rows_pending = rows_left(first);
                    entry.second_pending = first.second.is_none();
                }
                Err(_) => {
                    cache.entries.remove(&key);
                    cache.order.retain(|k| *k != key);
                }
            }
        }
        true
    }

    pub(super) fn previewed(&mut self, done: PreviewDone) {
        let (tree, data) = (&self.tree, &self.data);
        let cache = &mut self.previews;
        if cache.running == Some((done.key, done.step)) {
            cache.running = None;
        }
        if done.key.epoch != cache.epoch || cache.cancelled.contains(&done.key) {
            return;
        }
        let result = match done.result {
            PreviewResult::Made(made) => {
                cache.keep_made(done.key, made.map(|made| Arc::new(*made)));
                return;
            }
            PreviewResult::Leaf(result) => result,
        };
        let earlier = cache.entries.get(&done.key);
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
        cache.keep(done.key, entry);
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

impl Model {
    /// The row under the cursor in the Preview's rule table (the selected leaf's, once computed).
    pub(crate) fn preview_cursor(&self) -> usize {
        let Some(preview) = self
            .current_preview()
            .and_then(|entry| entry.result.as_ref().ok())
        else {
            return self.preview_cursor.unwrap_or(0);
        };
        let row = self.preview_cursor.unwrap_or_else(|| {
            preview
                .rules
                .iter()
                .position(|r| r.rule == self.rule)
                .unwrap_or(0)
        });
        row.min(preview.rules.len().saturating_sub(1))
    }

    /// The rule table's row under the cursor, when the selected leaf's preview is computed.
    pub(crate) fn preview_row(&self) -> Option<&RulePreview> {
        let preview = self.current_preview()?.result.as_ref().ok()?;
        preview.rules.get(self.preview_cursor())
    }

    /// A movement key on the Preview tab: the arrows move the table's cursor (the view scrolls to keep it in
    /// sight), the page keys scroll; without a table (a split node, a preview computing) they all scroll.
    pub(super) fn move_in_preview(&mut self, command: Command) {
        // A split node's Preview has no table: every movement key scrolls it.
        let table = self.current_preview().is_some();
        match command {
            _ if !table => {
                self.detail_scroll = scrolled(self.detail_scroll, command, PREVIEW_LINES);
            }
            Command::PageUp | Command::PageDown => {
                self.detail_scroll = scrolled(self.detail_scroll, command, PREVIEW_LINES);
            }
            _ => {
                let rows = self
                    .current_preview()
                    .and_then(|entry| entry.result.as_ref().ok())
                    .map_or(0, |preview| preview.rules.len());
                self.preview_cursor = Some(scrolled(
                    self.preview_cursor(),
                    command,
                    rows.saturating_sub(1),
                ));
            }
        }
    }

    /// `s` on the Preview tab: split the selected node with the rule under the cursor (a split node's Preview has
    /// no table: the current rule).
    pub(super) fn split_with_row(&mut self) -> Vec<Effect> {
        let rule = self
            .preview_row()
            .map_or_else(|| self.rule.clone(), |row| row.rule.clone());
        self.split_with(self.selected, rule)
    }

    /// Enter on the Preview tab: the rule under the cursor becomes the current rule, with its parameters; the tree
    /// stays as it is.
    pub(super) fn use_preview_row(&mut self) {
        let Some(rule) = self.preview_row().map(|row| row.rule.clone()) else {
            self.status = "no rule under the cursor: the Preview shows a leaf's table".into();
            return;
        };
        let params = match rule.params().check() {
            Ok(params) => params,
            Err(error) => {
                self.status = error.to_string();
                return;
            }
        };
        let compared = self.preview_rules();
        self.rule = rule;
        self.params = params;
        // The cached previews stay good when they compare the same rules (the current one among them).
        if self.preview_rules() != compared {
            self.previews.outdate();
        }
        self.status = format!("rule: {} (s splits with it)", self.rule_text());
    }
}
