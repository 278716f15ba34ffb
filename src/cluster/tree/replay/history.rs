//! The history a replay redoes: the old tree's splits and its merges into other leaves
//! ([`super::super::merge_into`]), in the order they were made.
//!
//! The active tree says which splits there are now, but not all a replay needs once a leaf was merged into
//! another: the merge took the leaf out of its parent's split (and, with two children, made the parent one node
//! with the sibling), so that split is no longer in the tree, and the leaf to merge again has to be made by
//! redoing it; and later edits may have dropped the splits above either leaf. Each merge's record keeps every
//! split above its two leaves as it was ([`ManualMerge::splits_above`]); with the active splits, those are every
//! split to redo.
//!
//! Order: ids are given in creation order and never reused, so a split came before a merge when its children's
//! ids are below the merge's [`ManualMerge::next_id`]. A split that a merge later took a child from shows up
//! more than once (in the record, with all its children, and in the tree, with fewer): its appearances share
//! children, so they are one split, made when its smallest child was. Which node it was made on is the node
//! holding it in its earliest appearance, followed back through the merges that made a parent one node with
//! its sibling (the parent then holds the sibling's split under its own id).
//!
//! A split that neither lasts in the tree nor went with a merge was dropped later (merged back, or shelved as an
//! alternative): the replay redoes it for the merges that need it, then drops it (see [`SplitStep::lasts`]).

use std::collections::{BTreeMap, BTreeSet};

use super::super::{ManualMerge, Tree};
use crate::cluster::spec::RuleSpec;

/// A split to redo.
pub(super) struct SplitStep<'a> {
    /// The node split, by its id when the split was made.
    pub node: usize,
    pub rule: &'a RuleSpec,
    /// Its children as made, in split order.
    pub children: Vec<usize>,
    /// The node holding the split in the old tree now, when it still does.
    pub now_on: Option<usize>,
    /// Whether the split is still in the old tree, or went when a merge made its node one with a sibling. A
    /// split that does not last was dropped later, when is not recorded: the replay drops it when a later step
    /// needs its node to be a leaf, and at the end.
    pub lasts: bool,
}

/// One step of the history.
pub(super) enum Step<'a> {
    Split(SplitStep<'a>),
    /// The old tree's merge number `index` ([`Tree::manual_merges`]).
    Merge(usize),
}

/// One split as its appearances (in merge records and in the tree) show it.
struct Appearances<'a> {
    /// Every child id any appearance lists.
    ids: BTreeSet<usize>,
    /// The earliest appearance's children: all of them, in split order.
    children: Vec<usize>,
    rule: &'a RuleSpec,
    /// The node holding the earliest appearance, and the merge it was seen just before (the number of merges
    /// for the tree as it is).
    node: usize,
    seen_before: usize,
    now_on: Option<usize>,
    /// A merge made its node one with a sibling: the split went then.
    absorbed: bool,
}

/// The splits seen so far, and which split each child id belongs to.
#[derive(Default)]
struct Splits<'a> {
    splits: Vec<Appearances<'a>>,
    split_of: BTreeMap<usize, usize>,
}

impl<'a> Splits<'a> {
    /// One appearance of a split; returns the split's index. Appearances of one split share children (each
    /// merge takes one away), those of two splits none.
    fn add(
        &mut self,
        children: &[usize],
        rule: &'a RuleSpec,
        node: usize,
        seen_before: usize,
    ) -> usize {
        let index = match children.iter().find_map(|c| self.split_of.get(c)) {
            Some(&index) => index,
            None => {
                self.splits.push(Appearances {
                    ids: BTreeSet::new(),
                    children: children.to_vec(),
                    rule,
                    node,
                    seen_before,
                    now_on: None,
                    absorbed: false,
                });
                self.splits.len() - 1
            }
        };
        for &child in children {
            self.split_of.entry(child).or_insert(index);
            self.splits[index].ids.insert(child);
        }
        index
    }
}

/// Whether `record` can be redone: a record that does not fit the old tree's arena (a damaged file) is left out
/// of the history, and its documents are put back as moved ones are.
fn usable(old: &Tree, record: &ManualMerge) -> bool {
    record.fits(old.next_id())
}

/// The old tree's history, in the order it was made (see the module documentation).
pub(super) fn history(old: &Tree) -> Vec<Step<'_>> {
    let merges = old.manual_merges();
    let mut splits = Splits::default();
    for (index, record) in merges.iter().enumerate() {
        if !usable(old, record) {
            continue;
        }
        for above in &record.splits_above {
            let split = splits.add(&above.children, &above.rule, above.node, index);
            if above.node == record.parent && record.absorbed_sibling.is_some() {
                splits.splits[split].absorbed = true;
            }
        }
    }
    for id in old.depth_first() {
        let Some(node) = old.node(id) else { continue };
        let Some(record) = node.split.as_ref().filter(|_| !node.is_leaf()) else {
            continue;
        };
        let split = splits.add(&node.children, &record.rule, id, merges.len());
        splits.splits[split].now_on = Some(id);
    }

    let mut steps: Vec<((usize, bool, usize), Step<'_>)> = Vec::new();
    for split in splits.splits {
        let made = split.ids.first().copied().unwrap_or(0);
        // Back through the merges between the split and its earliest appearance: where a parent took its
        // sibling's place, the split was the sibling's before.
        let mut node = split.node;
        for record in merges[..split.seen_before].iter().rev() {
            let absorbed = record.absorbed_sibling.filter(|_| record.parent == node);
            if let Some(sibling) = absorbed.filter(|_| record.next_id > made && usable(old, record))
            {
                node = sibling;
            }
        }
        let lasts = split.now_on.is_some() || split.absorbed;
        let step = Step::Split(SplitStep {
            node,
            rule: split.rule,
            children: split.children,
            now_on: split.now_on,
            lasts,
        });
        // A split made at the id a merge was made before comes after it.
        steps.push(((made, true, 0), step));
    }
    for (index, record) in merges.iter().enumerate() {
        if usable(old, record) {
            steps.push(((record.next_id, false, index), Step::Merge(index)));
        }
    }
    steps.sort_by_key(|(order, _)| *order);
    steps.into_iter().map(|(_, step)| step).collect()
}
