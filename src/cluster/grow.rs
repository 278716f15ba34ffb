//! Growing a tree: which leaf to split next ([`SelectPolicy`], or the kernel scatter for kernel rules) and
//! [`Tree::grow_in`], which splits until the tree has K leaves.

use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use super::ClusterError;
use super::rules::{Partition, SplitEnv};
use super::spec::RuleSpec;
use super::tree::{KernelScatter, Node, Tree};
use crate::choice::Choice;
use crate::linalg::kernel::KernelSpec;
use crate::matrix::DataMatrix;

/// Which leaf to split next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SelectPolicy {
    /// The leaf of largest scatter `s_p` (the papers' choice).
    #[default]
    Scatter,
    /// The leaf with the most members.
    Size,
    /// The leaf of largest scatter per member (mean squared distance to the centroid).
    Variance,
}

impl Choice for SelectPolicy {
    const ALL: &'static [Self] = &[
        SelectPolicy::Scatter,
        SelectPolicy::Size,
        SelectPolicy::Variance,
    ];

    fn name(self) -> &'static str {
        match self {
            SelectPolicy::Scatter => "scatter",
            SelectPolicy::Size => "size",
            SelectPolicy::Variance => "variance",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            SelectPolicy::Scatter => "the leaf of largest scatter (the papers' choice)",
            SelectPolicy::Size => "the largest leaf",
            SelectPolicy::Variance => "the leaf of largest scatter per member",
        }
    }
}

/// What [`Tree::grow`] did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GrowReport {
    pub splits: usize,
    /// Nodes the rule could not split, and why; growth went on with the next candidate.
    pub refused: Vec<(usize, String)>,
    /// Why growth stopped before the target, if it did.
    pub stopped_early: Option<String>,
    /// The leaves asked for and made, when they differ.
    pub leaf_count: Option<LeafCount>,
}

/// A tree grown to another number of leaves than asked: a rule of `2^l`-way splits makes Table 1's
/// `ceil((k - 1) / (2^l - 1))` splits, and an orthant no document falls in makes no child (PDDP(l) on iris to
/// 29 leaves with l = 3 makes 26), while the splits' full `2^l` children can also overshoot `k`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeafCount {
    pub asked: usize,
    pub made: usize,
    /// Children the rule's splits could have made but did not (empty orthants); 0 for other rules.
    pub empty_children: usize,
}

impl LeafCount {
    /// One line for a report: `asked for 29 leaves, made 26: pddp makes ceil((k - 1) / (2^l - 1)) = 4 splits of
    /// up to 8 children (Zeimpekis & Gallopoulos, Table 1), and 3 of the 32 orthants of its 4 splits held no
    /// document`.
    pub fn describe(&self, rule: &RuleSpec, splits: usize) -> String {
        let mut text = format!("asked for {} leaves, made {}", self.asked, self.made);
        if let Some(planned) = rule.table_one_splits(self.asked) {
            let ways = 1usize << rule.params().l;
            text.push_str(&format!(
                ": {} makes ceil((k - 1) / (2^l - 1)) = {planned} splits of up to {ways} children \
                 (Zeimpekis & Gallopoulos, Table 1)",
                rule.name()
            ));
            if self.empty_children > 0 {
                text.push_str(&format!(
                    ", and {} of the {} orthants of its {splits} splits held no document",
                    self.empty_children,
                    splits * ways
                ));
            }
        }
        text
    }
}

impl GrowReport {
    /// What a report should say about the growth, one line each: the nodes refused, why it stopped early,
    /// and a leaf count other than the one asked for.
    pub fn notes(&self, rule: &RuleSpec) -> Vec<String> {
        let mut notes: Vec<String> = self
            .refused
            .iter()
            .map(|(node, reason)| format!("node {node} not split: {reason}"))
            .collect();
        if let Some(reason) = &self.stopped_early {
            notes.push(format!("stopped early: {reason}"));
        }
        if let Some(count) = &self.leaf_count {
            notes.push(count.describe(rule, self.splits));
        }
        notes
    }
}

impl Tree {
    /// The leaves that can be split, best first by `policy` (ties: lower id first).
    pub fn candidates(&self, policy: SelectPolicy) -> Vec<usize> {
        // The order is total (ties by id), so the leaves are taken in arena order rather than by a walk of the
        // tree: growing to a leaf per document ranks them at every split.
        let mut leaves: Vec<&Node> = self
            .live_nodes()
            .filter(|node| node.is_leaf())
            .filter(|node| matches!(self.unsplittable_reason(node.id), Ok(None)))
            .collect();
        let key = |node: &Node| -> f64 {
            match policy {
                SelectPolicy::Scatter => node.scatter,
                SelectPolicy::Size => node.size() as f64,
                SelectPolicy::Variance => node.scatter / node.size() as f64,
            }
        };
        leaves.sort_by(|a, b| key(b).total_cmp(&key(a)).then(a.id.cmp(&b.id)));
        leaves.into_iter().map(|n| n.id).collect()
    }

    /// [`Tree::candidates`] for a kernel rule: leaves ranked by their kernel scatter under `kernel` (per member
    /// for [`SelectPolicy::Variance`]), measured and stored where missing. A single candidate needs no measure.
    fn kernel_candidates(
        &mut self,
        data: &DataMatrix,
        kernel: &KernelSpec,
        policy: SelectPolicy,
        env: &SplitEnv,
    ) -> Result<Vec<usize>, ClusterError> {
        let ids = self.candidates(SelectPolicy::Size);
        if ids.len() <= 1 {
            return Ok(ids);
        }
        let mut keyed = Vec::with_capacity(ids.len());
        for id in ids {
            let node = self.get(id)?;
            let value = match &node.kernel_scatter {
                Some(known) if &known.kernel == kernel => known.value,
                _ => {
                    let matrix = crate::linalg::kernel::kernel_matrix(
                        kernel,
                        data,
                        &node.members,
                        env.texts,
                        env.memory_budget,
                        env.progress,
                    )?;
                    let value = matrix.gram.feature_scatter();
                    if let Some(node) = self.node_mut(id) {
                        node.kernel_scatter = Some(KernelScatter {
                            kernel: kernel.clone(),
                            sigma: matrix.sigma,
                            value,
                        });
                    }
                    value
                }
            };
            let size = self.get(id)?.size() as f64;
            let key = match policy {
                SelectPolicy::Variance => value / size,
                _ => value,
            };
            keyed.push((id, key));
        }
        keyed.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        Ok(keyed.into_iter().map(|(id, _)| id).collect())
    }

    /// The leaf `policy` would split next.
    pub fn suggest(&self, policy: SelectPolicy) -> Option<usize> {
        self.candidates(policy).into_iter().next()
    }

    /// Grow the tree with `rule` until it has `k` leaves (a tree with `k` or more leaves is left as it is),
    /// splitting the leaf `policy` picks each time. Rules of 2^l-way splits with l > 1 make
    /// [`RuleSpec::table_one_splits`] splits instead (which may give more leaves than `k`). A k-way split never
    /// makes more leaves than `k`. A node the rule refuses is passed over for the next candidate.
    pub fn grow(
        &mut self,
        data: &DataMatrix,
        rule: &RuleSpec,
        k: usize,
        policy: SelectPolicy,
    ) -> Result<GrowReport, ClusterError> {
        self.grow_in(data, rule, k, policy, SplitEnv::default())
    }

    /// [`Tree::grow`] in `env` (see [`Tree::split_in`]). With a kernel rule, the scatter and variance policies
    /// rank leaves by their kernel scatter under the rule's kernel (Zeimpekis & Gallopoulos, Table 2: "select a
    /// cluster node p to split according to (6)"): children of kernel splits carry it; a leaf without it (the tree was grown with
    /// another rule or kernel) has it measured from its kernel matrix, built within the same memory budget its
    /// split would need, and kept on the node. KPDDP(l) and KPDDP_OCPC make Table 2's
    /// `ceil((k - 1) / (2^l - 1))` splits, like their linear counterparts. When `env`'s progress report is
    /// cancelled, growing stops before the next split with [`ClusterError::Cancelled`], keeping the splits made.
    pub fn grow_in(
        &mut self,
        data: &DataMatrix,
        rule: &RuleSpec,
        k: usize,
        policy: SelectPolicy,
        env: SplitEnv,
    ) -> Result<GrowReport, ClusterError> {
        let table_one_splits = rule.table_one_splits(k);
        let leaves_before = self.live_nodes().filter(|node| node.is_leaf()).count();
        let mut report = GrowReport::default();
        let mut refused: BTreeSet<usize> = BTreeSet::new();
        // Partitions computed ahead for leaves not yet chosen, with the rule they were computed with.
        let mut planned: HashMap<usize, (RuleSpec, Result<Partition, ClusterError>)> =
            HashMap::new();
        loop {
            // A long auto-split stops between splits when asked; kernel rules also stop inside their own work.
            if let Some(progress) = env.progress {
                progress.check()?;
            }
            let leaves = self.live_nodes().filter(|node| node.is_leaf()).count();
            let done = match table_one_splits {
                Some(splits) => report.splits >= splits,
                None => leaves >= k,
            };
            if done {
                break;
            }
            let candidates = match rule.kernel() {
                Some(kernel) if policy != SelectPolicy::Size => {
                    self.kernel_candidates(data, kernel, policy, &env)?
                }
                _ => self.candidates(policy),
            };
            let Some(id) = candidates.iter().copied().find(|id| !refused.contains(id)) else {
                report.stopped_early = Some(format!(
                    "no leaf left that {} can split ({leaves} leaves)",
                    rule.name()
                ));
                break;
            };
            let step_rule = rule.capped(k - leaves + 1);
            let outcome = match planned.remove(&id) {
                Some((planned_rule, outcome)) if planned_rule == step_rule => outcome,
                _ => {
                    // Splits of different leaves are independent, and a linear rule's split of a node of the
                    // tree's size runs its products on all cores but keeps them waiting at every hand-off; with
                    // two nodes in flight those waits fill up. When the grower will need at least one more
                    // split after this one, the best other candidate is split alongside and its partition kept
                    // until it is chosen. Each split computes exactly what it computes alone (the products'
                    // summation order never depends on threads), so the tree is the same bit for bit.
                    let more_splits_needed = match table_one_splits {
                        Some(splits) => splits.saturating_sub(report.splits) >= 2,
                        None => k.saturating_sub(leaves) >= 2,
                    };
                    let companion = candidates.iter().copied().find(|&other| {
                        other != id && !refused.contains(&other) && !planned.contains_key(&other)
                    });
                    match companion {
                        Some(other) if more_splits_needed && rule.kernel().is_none() => {
                            // The companion is split after at least this one: the cap it will likely meet.
                            let other_rule = rule.capped(k - leaves);
                            let (outcome, other_outcome) = rayon::join(
                                || self.plan_split(data, id, &step_rule, env),
                                || self.plan_split(data, other, &other_rule, env),
                            );
                            planned.insert(other, (other_rule, other_outcome));
                            outcome
                        }
                        _ => self.plan_split(data, id, &step_rule, env),
                    }
                }
            };
            match outcome.and_then(|partition| self.apply_split(data, id, &step_rule, partition)) {
                Ok(_) => report.splits += 1,
                Err(ClusterError::Refused { node, reason, .. }) => {
                    refused.insert(node);
                    report.refused.push((node, reason));
                }
                Err(other) => return Err(other),
            }
        }
        let made = self.live_nodes().filter(|node| node.is_leaf()).count();
        if made != k && leaves_before < k {
            // Each split of a leaf into c children adds c - 1 leaves; an orthant rule could make 2^l each.
            let children = made + report.splits - leaves_before;
            let empty_children = match table_one_splits {
                Some(_) => (report.splits << rule.params().l).saturating_sub(children),
                None => 0,
            };
            report.leaf_count = Some(LeafCount {
                asked: k,
                made,
                empty_children,
            });
        }
        Ok(report)
    }
}
