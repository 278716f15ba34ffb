//! Split previews the Preview tab has asked for: computed one at a time on a worker thread (so that moving fast
//! through the tree does not pile up work), first the histogram and the rule table, then the second direction
//! for the scatter plot, and kept per node, tree revision and rule choice, the oldest evicted first. A split node's
//! Preview is the split it had, computed the same way. The cursor in the rule table, and what its row does.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

use pdx::report::preview::{self, MadeSplit, RulePreview, SplitPreview};

use super::super::keys::Command;
use super::jobs::{Effect, PreviewDone, PreviewJob, PreviewResult};
use super::scatter_sample::ScatterSample;
use super::update::scrolled;
use super::{DetailTab, Model, PREVIEW_LINES};

/// What the Preview tab says of a preview cancelled with Ctrl-C.
const PREVIEW_CANCELLED: &str = "cancelled (4 computes it again)";

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
    /// The preview being computed, and whether it computes the second direction.
    running: Option<(PreviewKey, bool)>,
    /// Previews cancelled while computing: the worker cannot be interrupted, so their results are dropped.
    cancelled: HashSet<PreviewKey>,
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
    /// cached (first the histogram and the rule table, then the second direction for the scatter plot) and no
    /// preview is running.
    pub(super) fn request_preview(&mut self) -> Option<Effect> {
        if self.tab != DetailTab::Preview || self.previews.running.is_some() {
            return None;
        }
        let split = self
            .tree
            .node(self.selected)
            .is_some_and(|n| n.split.is_some());
        if split {
            let key = self.preview_key();
            if self.previews.made.contains_key(&key) {
                return None;
            }
            self.previews.running = Some((key, false));
            return Some(Effect::Preview(PreviewJob {
                key,
                tree: self.tree.clone(),
                rules: Vec::new(),
                second_direction: false,
                first: None,
            }));
        }
        if !matches!(self.tree.unsplittable_reason(self.selected), Ok(None)) {
            return None;
        }
        let key = self.preview_key();
        let rules = self.preview_rules();
        // When a rule needs two directions anyway (PDDP(2) as the current rule), one job gives everything.
        let two_anyway = rules
            .iter()
            .any(|rule| rule.rule().directions_needed() >= 2);
        // The second job adds the scatter plot's coordinate to the preview the first made, nothing more.
        let (second_direction, first) = match self.previews.entries.get(&key) {
            None => (two_anyway, None),
            Some(entry) if entry.second_pending => (true, entry.result.as_ref().ok().cloned()),
            Some(_) => return None,
        };
        self.previews.running = Some((key, second_direction));
        Some(Effect::Preview(PreviewJob {
            key,
            tree: self.tree.clone(),
            rules,
            second_direction,
            first,
        }))
    }

    /// Cancel the preview the Preview tab is computing for the selected node: the tab says so until `4` asks
    /// again, and the worker's result is dropped. Returns whether there was one to cancel.
    pub(super) fn cancel_preview(&mut self) -> bool {
        let key = self.preview_key();
        let cache = &mut self.previews;
        let Some((running, second_direction)) = cache.running else {
            return false;
        };
        if self.tab != DetailTab::Preview || running != key {
            return false;
        }
        cache.running = None;
        cache.cancelled.insert(key);
        if self.tree.node(key.node).is_some_and(|n| n.split.is_some()) {
            cache.keep_made(key, Err(PREVIEW_CANCELLED.into()));
            return true;
        }
        let entry = match cache.entries.get(&key) {
            // The scatter plot's direction was computing: the rest stays, without the plot.
            Some(PreviewEntry {
                result: Ok(first), ..
            }) if second_direction => PreviewEntry {
                result: Ok(Arc::clone(first)),
                second_pending: false,
                scatter: None,
            },
            _ => PreviewEntry {
                result: Err(PREVIEW_CANCELLED.into()),
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
        match cache.entries.get_mut(&key) {
            Some(entry) if entry.result.is_ok() => entry.second_pending = true,
            _ => {
                cache.entries.remove(&key);
                cache.order.retain(|k| *k != key);
            }
        }
        true
    }

    pub(super) fn previewed(&mut self, done: PreviewDone) {
        let (tree, data) = (&self.tree, &self.data);
        let cache = &mut self.previews;
        if cache.running == Some((done.key, done.second_direction)) {
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
        let entry = match result {
            Ok(preview) => PreviewEntry {
                // A node with a single direction (two members) has no second coordinate to wait for.
                second_pending: !done.second_direction && preview.second.is_none(),
                // Chosen once here, not per frame: a huge node's plot draws a sample of its members.
                scatter: preview
                    .second
                    .as_ref()
                    .and_then(|_| tree.node(preview.node))
                    .map(|node| Arc::new(ScatterSample::of(data, &node.members))),
                result: Ok(Arc::new(preview)),
            },
            Err(error) => match cache.entries.get(&done.key) {
                // The second direction failed: keep the first results, without the plot.
                Some(PreviewEntry {
                    result: Ok(first), ..
                }) => PreviewEntry {
                    result: Ok(Arc::clone(first)),
                    second_pending: false,
                    scatter: None,
                },
                _ => PreviewEntry {
                    result: Err(error),
                    second_pending: false,
                    scatter: None,
                },
            },
        };
        cache.keep(done.key, entry);
    }
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
