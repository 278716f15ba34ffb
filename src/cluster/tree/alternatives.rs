//! Alternatives: more than one split of the same node, kept side by side so that an analyst can try another rule
//! on a node already split without losing the subtree grown under the first.
//!
//! The active split is the node's own (`children`, `split`, `direction`), and its subtree lives in the arena as
//! before, so everything that walks the tree (leaves, growing, reports, exports) sees the active tree only and
//! needs no change. The other splits are [`Alternative`]s kept in the node, each holding its whole subtree's nodes
//! out of the arena; their arena slots stay empty, since ids are never reused, and are filled again when an
//! alternative becomes active. A shelved subtree keeps no centroids (they are rebuilt, one pass over each leaf's
//! members, when it comes back), so alternatives cost their members, not a copy of the data per leaf.

use std::sync::Arc;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::{Node, SplitRecord, Tree};
use crate::cluster::ClusterError;
use crate::cluster::rules::{Partition, SplitEnv};
use crate::cluster::spec::RuleSpec;
use crate::matrix::DataMatrix;

/// A split of a node that is not the active one, with the subtree grown under it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Alternative {
    /// The split's children, in split order (their nodes are in `nodes`).
    pub children: Vec<usize>,
    pub split: SplitRecord,
    /// The node's [`Node::direction`] under this split.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<Arc<[f64]>>,
    /// Every node of the subtree below the split, in depth-first order, without centroids.
    pub nodes: Vec<Node>,
}

impl Alternative {
    /// The node of the shelved subtree with this id.
    pub fn node(&self, id: usize) -> Option<&Node> {
        self.nodes.iter().find(|node| node.id == id)
    }
}

impl Tree {
    /// How many splits node `id` has: 0 for a leaf, 1 for a node split once, more with alternatives.
    pub fn split_count(&self, id: usize) -> usize {
        self.node(id)
            .filter(|node| !node.is_leaf())
            .map_or(0, |node| 1 + node.alternatives.len())
    }

    /// The place of node `id`'s active split among its splits (0 for a leaf).
    pub fn active_split(&self, id: usize) -> usize {
        self.node(id).map_or(0, |node| node.active_alternative)
    }

    /// The children of node `id`'s split number `index` (see [`Tree::split_count`]), in split order, with the
    /// split's record; `None` when there is no such split.
    pub fn split_children(&self, id: usize, index: usize) -> Option<(&SplitRecord, Vec<&Node>)> {
        let node = self.node(id)?;
        if node.is_leaf() {
            return None;
        }
        if index == node.active_alternative {
            let record = node.split.as_ref()?;
            let children = node
                .children
                .iter()
                .filter_map(|&child| self.node(child))
                .collect();
            return Some((record, children));
        }
        let shelved = if index < node.active_alternative {
            index
        } else {
            index - 1
        };
        let alternative = node.alternatives.get(shelved)?;
        let children = alternative
            .children
            .iter()
            .filter_map(|&child| alternative.node(child))
            .collect();
        Some((&alternative.split, children))
    }

    /// The split of node `id` made by `rule` (the same rule with the same parameters), if it has one: rules are
    /// deterministic (their seed is a parameter), so splitting again with it would give that split again.
    pub fn split_by(&self, id: usize, rule: &RuleSpec) -> Option<usize> {
        (0..self.split_count(id)).find(|&index| {
            self.split_children(id, index)
                .is_some_and(|(split, _)| split.rule == *rule)
        })
    }

    /// The split of node `id` whose children hold the documents of `groups`, in any order, if it has one.
    fn split_with_groups(&self, id: usize, groups: &[Vec<usize>]) -> Option<usize> {
        let sorted = |groups: Vec<Vec<usize>>| {
            let mut groups: Vec<Vec<usize>> = groups
                .into_iter()
                .map(|mut group| {
                    group.sort_unstable();
                    group
                })
                .collect();
            groups.sort_unstable();
            groups
        };
        let wanted = sorted(groups.to_vec());
        (0..self.split_count(id)).find(|&index| {
            self.split_children(id, index).is_some_and(|(_, children)| {
                sorted(
                    children
                        .iter()
                        .map(|child| child.members.to_vec())
                        .collect(),
                ) == wanted
            })
        })
    }

    /// Split node `id` with `rule` in `env`: a leaf as [`Tree::split_in`] does; a node already split gets one
    /// more split, made active, and its current split with the subtree under it is kept as an alternative (see
    /// the module documentation). A split whose children are those of a split the node has already is refused
    /// ([`ClusterError::SameSplit`]): two alternatives alike would only be two names for one partition. Returns
    /// the new children's ids; the tree is unchanged on error.
    pub fn split_alternative_in(
        &mut self,
        data: &DataMatrix,
        id: usize,
        rule: &RuleSpec,
        env: SplitEnv,
    ) -> Result<Vec<usize>, ClusterError> {
        let partition = self.plan_alternative(data, id, rule, env)?;
        self.apply_alternative(data, id, rule, partition)
    }

    /// The partition [`Tree::split_alternative_in`] would make of node `id`, leaving the tree as it is.
    pub(super) fn plan_alternative(
        &self,
        data: &DataMatrix,
        id: usize,
        rule: &RuleSpec,
        env: SplitEnv,
    ) -> Result<Partition, ClusterError> {
        if self.get(id)?.is_leaf() {
            return self.plan_split(data, id, rule, env);
        }
        let partition = self.plan_split_of_members(data, id, rule, env)?;
        if let Some(index) = self.split_with_groups(id, &partition.groups) {
            return Err(ClusterError::SameSplit {
                node: id,
                index,
                count: self.split_count(id),
            });
        }
        Ok(partition)
    }

    /// Give node `id` the split `partition`, which `rule` made of it ([`Tree::plan_alternative`]): a leaf its
    /// children, a split node one more split, active, its current split kept as an alternative.
    pub(super) fn apply_alternative(
        &mut self,
        data: &DataMatrix,
        id: usize,
        rule: &RuleSpec,
        partition: Partition,
    ) -> Result<Vec<usize>, ClusterError> {
        if self.get(id)?.is_leaf() {
            return self.apply_split(data, id, rule, partition);
        }
        let shelved = self.shelve_active(id)?;
        let node = self.node_mut(id).ok_or(ClusterError::NoSuchNode(id))?;
        let count = node.alternatives.len() + 1;
        node.alternatives.insert(node.active_alternative, shelved);
        // The new split goes last and becomes the active one.
        node.active_alternative = count;
        self.apply_split(data, id, rule, partition)
    }

    /// Make split number `index` of node `id` the active one (see [`Tree::split_count`]); the current one is
    /// kept as an alternative. The tree is unchanged on error.
    pub fn switch_split(
        &mut self,
        data: &DataMatrix,
        id: usize,
        index: usize,
    ) -> Result<(), ClusterError> {
        let count = self.split_count(id);
        if index >= count {
            return Err(ClusterError::NoSuchSplit { node: id, index });
        }
        let active = self.active_split(id);
        if index == active {
            return Ok(());
        }
        let shelved = self.shelve_active(id)?;
        let node = self.node_mut(id).ok_or(ClusterError::NoSuchNode(id))?;
        node.alternatives.insert(active, shelved);
        let chosen = node.alternatives.remove(index);
        node.active_alternative = index;
        node.children = chosen.children;
        node.split = Some(chosen.split);
        node.direction = chosen.direction;
        let mut restored = chosen.nodes;
        // One pass over each leaf's columns, side by side (each sequential, so the bits do not depend on the
        // thread count).
        restored.par_iter_mut().for_each(|node| {
            node.centroid = node
                .is_leaf()
                .then(|| Arc::new(data.sparse_centroid(&node.members)));
        });
        for node in restored {
            let slot = self
                .nodes
                .get_mut(node.id)
                .expect("a shelved node's slot stays in the arena");
            assert!(slot.is_none(), "node {} is shelved and live", node.id);
            *slot = Some(node);
        }
        Ok(())
    }

    /// Keep node `id`'s active split and drop its other splits with their subtrees.
    pub fn keep_active_split(&mut self, id: usize) -> Result<usize, ClusterError> {
        let node = self.node_mut(id).ok_or(ClusterError::NoSuchNode(id))?;
        let dropped = node.alternatives.len();
        node.alternatives.clear();
        node.active_alternative = 0;
        Ok(dropped)
    }

    /// The ids of every node kept aside in an alternative split (nested alternatives included).
    pub fn shelved_nodes(&self) -> Vec<usize> {
        let mut ids = Vec::new();
        let mut alternatives: Vec<&Alternative> = self
            .live_nodes()
            .flat_map(|node| &node.alternatives)
            .collect();
        while let Some(alternative) = alternatives.pop() {
            for node in &alternative.nodes {
                ids.push(node.id);
                alternatives.extend(&node.alternatives);
            }
        }
        ids
    }

    /// Whether `id` is a slot of the arena that holds no node: where a shelved node waits to come back.
    pub(in crate::cluster) fn is_free_slot(&self, id: usize) -> bool {
        self.nodes.get(id).is_some_and(Option::is_none)
    }

    /// Take node `id`'s active split and its subtree out of the arena, as an [`Alternative`]; the node is left
    /// a leaf without a centroid (the caller gives it a split at once).
    fn shelve_active(&mut self, id: usize) -> Result<Alternative, ClusterError> {
        let node = self.node_mut(id).ok_or(ClusterError::NoSuchNode(id))?;
        let children = std::mem::take(&mut node.children);
        let split = node
            .split
            .take()
            .expect("a node with children has a split record");
        let direction = node.direction.take();
        let mut nodes = Vec::new();
        let mut stack = children.clone();
        while let Some(child) = stack.pop() {
            let mut taken = self
                .nodes
                .get_mut(child)
                .and_then(Option::take)
                .expect("a child of a live node is live");
            stack.extend(taken.children.iter().rev());
            taken.centroid = None;
            nodes.push(taken);
        }
        Ok(Alternative {
            children,
            split,
            direction,
            nodes,
        })
    }
}
