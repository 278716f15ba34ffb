//! Split previews the Preview tab has asked for: computed one at a time on a worker thread (so that moving fast
//! through the tree does not pile up work), first the histogram and the rule table, then the second direction
//! for the scatter plot, and kept per node, tree revision and rule choice, the oldest evicted first.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

use pdx::report::preview::{self, SplitPreview};

use super::jobs::{Effect, PreviewDone, PreviewJob};
use super::{DetailTab, Model};

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
}

#[derive(Debug, Default)]
pub(super) struct PreviewCache {
    entries: HashMap<PreviewKey, PreviewEntry>,
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
        self.order.clear();
        self.cancelled.clear();
    }

    fn keep(&mut self, key: PreviewKey, entry: PreviewEntry) {
        if self.entries.insert(key, entry).is_none() {
            self.order.push_back(key);
        }
        while self.order.len() > PREVIEW_CACHE {
            if let Some(old) = self.order.pop_front() {
                self.entries.remove(&old);
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
        if !matches!(self.tree.unsplittable_reason(self.selected), Ok(None)) {
            return None;
        }
        let key = self.preview_key();
        let rules = self.preview_rules();
        // When a rule needs two directions anyway (PDDP(2) as the current rule), one job gives everything.
        let two_anyway = rules
            .iter()
            .any(|rule| rule.rule().directions_needed() >= 2);
        let second_direction = match self.previews.entries.get(&key) {
            None => two_anyway,
            Some(entry) if entry.second_pending => true,
            Some(_) => return None,
        };
        self.previews.running = Some((key, second_direction));
        Some(Effect::Preview(PreviewJob {
            key,
            tree: self.tree.clone(),
            rules,
            second_direction,
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
        let entry = match cache.entries.get(&key) {
            // The scatter plot's direction was computing: the rest stays, without the plot.
            Some(PreviewEntry {
                result: Ok(first), ..
            }) if second_direction => PreviewEntry {
                result: Ok(Arc::clone(first)),
                second_pending: false,
            },
            _ => PreviewEntry {
                result: Err(PREVIEW_CANCELLED.into()),
                second_pending: false,
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
        let cache = &mut self.previews;
        if cache.running == Some((done.key, done.second_direction)) {
            cache.running = None;
        }
        if done.key.epoch != cache.epoch || cache.cancelled.contains(&done.key) {
            return;
        }
        let entry = match done.result {
            Ok(preview) => PreviewEntry {
                // A node with a single direction (two members) has no second coordinate to wait for.
                second_pending: !done.second_direction && preview.second.is_none(),
                result: Ok(Arc::new(preview)),
            },
            Err(error) => match cache.entries.get(&done.key) {
                // The second direction failed: keep the first results, without the plot.
                Some(PreviewEntry {
                    result: Ok(first), ..
                }) => PreviewEntry {
                    result: Ok(Arc::clone(first)),
                    second_pending: false,
                },
                _ => PreviewEntry {
                    result: Err(error),
                    second_pending: false,
                },
            },
        };
        cache.keep(done.key, entry);
    }
}
