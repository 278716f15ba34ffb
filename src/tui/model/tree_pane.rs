//! The tree pane's state: the selected node, the collapsed ones, and the node marked for comparison.

use std::collections::BTreeSet;

use crate::cluster::Tree;

use super::super::keys::Command;
use super::scrolled;

#[derive(Debug)]
pub(crate) struct TreePane {
    selected: usize,
    collapsed: BTreeSet<usize>,
    /// The node marked for comparison with the selected one.
    mark: Option<usize>,
}

impl TreePane {
    pub(super) fn new(tree: &Tree) -> TreePane {
        TreePane {
            selected: tree.root(),
            collapsed: BTreeSet::new(),
            mark: None,
        }
    }

    pub(crate) fn selected(&self) -> usize {
        self.selected
    }

    pub(crate) fn is_collapsed(&self, id: usize) -> bool {
        self.collapsed.contains(&id)
    }

    /// The marked node, when it is in `tree`.
    pub(crate) fn mark(&self, tree: &Tree) -> Option<usize> {
        self.mark.filter(|&id| tree.node(id).is_some())
    }

    /// Visible nodes in display order with their depth (children of collapsed nodes hidden).
    pub(crate) fn visible(&self, tree: &Tree) -> Vec<(usize, usize)> {
        let mut rows = Vec::new();
        let mut stack = vec![(tree.root(), 0)];
        while let Some((id, depth)) = stack.pop() {
            let Some(node) = tree.node(id) else {
                continue;
            };
            rows.push((id, depth));
            if !self.collapsed.contains(&id) {
                stack.extend(node.children.iter().rev().map(|&c| (c, depth + 1)));
            }
        }
        rows
    }

    /// Select `id` if it is a node of `tree`; returns whether the selection changed.
    pub(super) fn select(&mut self, tree: &Tree, id: usize) -> bool {
        let changed = tree.node(id).is_some() && id != self.selected;
        if changed {
            self.selected = id;
        }
        changed
    }

    /// Select `id`, expanding its ancestors so that it shows; returns whether the selection changed.
    pub(super) fn reveal(&mut self, tree: &Tree, id: usize) -> bool {
        for ancestor in tree.path_to(id) {
            if ancestor != id {
                self.collapsed.remove(&ancestor);
            }
        }
        self.select(tree, id)
    }

    /// A movement key: the selection moves through the visible rows; returns whether it changed.
    pub(super) fn move_by(&mut self, tree: &Tree, command: Command) -> bool {
        let rows = self.visible(tree);
        let position = rows.iter().position(|&(id, _)| id == self.selected);
        let last = rows.len().saturating_sub(1);
        // A selection that is not on screen (hidden under a collapsed node) starts again from the root.
        let target = position.map_or(0, |p| scrolled(p, command, last));
        match rows.get(target) {
            Some(&(id, _)) => self.select(tree, id),
            None => false,
        }
    }

    /// Collapse the selected node, or when it has no open children, go to its parent; returns whether the
    /// selection changed.
    pub(super) fn collapse(&mut self, tree: &Tree) -> bool {
        let id = self.selected;
        let has_children = tree.node(id).is_some_and(|n| !n.is_leaf());
        if has_children && !self.collapsed.contains(&id) {
            self.collapsed.insert(id);
            false
        } else if let Some(parent) = tree.node(id).and_then(|n| n.parent) {
            self.select(tree, parent)
        } else {
            false
        }
    }

    pub(super) fn expand(&mut self, id: usize) {
        self.collapsed.remove(&id);
    }

    /// Mark the selected node, or clear the mark when it is on it; returns whether the node is marked now.
    pub(super) fn toggle_mark(&mut self, tree: &Tree) -> bool {
        if self.mark(tree) == Some(self.selected) {
            self.mark = None;
            false
        } else {
            self.mark = Some(self.selected);
            true
        }
    }

    /// After the tree changed: keep the selection on the deepest node of `path` (the old selection's path from
    /// the root) that is still in the tree, else on the selected node if it still is, else on the root.
    pub(super) fn keep_within(&mut self, tree: &Tree, path: &[usize]) {
        if let Some(&id) = path.iter().rev().find(|&&id| tree.node(id).is_some()) {
            self.selected = id;
        }
        if tree.node(self.selected).is_none() {
            self.selected = tree.root();
        }
    }

    /// A new tree (a session taken): the root selected, every node open.
    pub(super) fn reset(&mut self, tree: &Tree) {
        self.selected = tree.root();
        self.collapsed.clear();
    }
}
