//! The engine's part of a change of the tree: a split, a growth, or a rebuild of the matrix (stop words and
//! weighting changed) with the tree's splits replayed on it. Each works on a copy of the tree; the model takes
//! the result if its job is still the current one.

use std::sync::Arc;
use std::time::Instant;

use crate::cluster::rules::{KnownDirections, SplitEnv};
use crate::cluster::{ReplayReport, RuleSpec, SelectPolicy, Tree};
use crate::dataset::{Dataset, Reweigh, ReweighReport};
use crate::progress::Progress;
use crate::steps::Step;

use super::Outcome;

/// A change of `tree` to make on a worker.
#[derive(Debug, Clone)]
pub(crate) struct TreeJob {
    pub tree: Tree,
    pub work: TreeWork,
    /// The largest kernel matrix a split may build.
    pub memory_budget: u64,
}

#[derive(Debug, Clone)]
pub(crate) enum TreeWork {
    Split {
        node: usize,
        rule: RuleSpec,
        /// The node's directions, when its preview computed them ([`KnownDirections`]).
        known: Option<Arc<KnownDirections>>,
    },
    Grow {
        k: usize,
        rule: RuleSpec,
        policy: SelectPolicy,
    },
    /// Rebuild the matrix of `data` with `settings` and replay the tree's splits on it.
    Replay {
        data: Arc<Dataset>,
        settings: Reweigh,
        /// What changes, in a few words ("dropped the word \"game\""), for the status line and undo.
        change: String,
        /// The change as a step of the script.
        step: Step,
    },
}

/// A split's or a growth's result.
#[derive(Debug, Clone)]
pub(crate) struct TreeChange {
    pub tree: Tree,
    /// The node to select and show afterwards (none: keep the selection).
    pub select: Option<usize>,
    pub message: String,
    /// The change in a few words, for undo and redo to say what they did.
    pub change: String,
    /// The change as steps of the script: a split, or the splits a growth made.
    pub steps: Vec<Step>,
    /// How long the work took, in milliseconds.
    pub millis: f64,
    /// The node split and the directions its split took from the node's preview: the split node's own Preview
    /// ("the split it had") takes them too rather than compute them again.
    pub split_directions: Option<(usize, Arc<KnownDirections>)>,
}

/// A rebuild and replay's result: the new dataset and the tree over it, with what changed.
#[derive(Debug, Clone)]
pub(crate) struct Replayed {
    pub change: String,
    /// The change as a step of the script.
    pub step: Step,
    pub data: Arc<Dataset>,
    pub tree: Tree,
    pub reweigh: ReweighReport,
    pub replay: ReplayReport,
}

/// Make the change, on whatever thread calls it, reporting to and stopping through `progress`.
pub(super) fn perform(data: &Dataset, job: TreeJob, progress: &Progress) -> Outcome {
    let TreeJob {
        mut tree,
        work,
        memory_budget,
    } = job;
    let known = match &work {
        TreeWork::Split { known, .. } => known.clone(),
        TreeWork::Grow { .. } | TreeWork::Replay { .. } => None,
    };
    let env = SplitEnv {
        texts: Some(data),
        labels: Some(data),
        progress: Some(progress),
        memory_budget,
        known: known.as_deref(),
    };
    let started = Instant::now();
    let millis = || started.elapsed().as_secs_f64() * 1000.0;
    let changed = match work {
        TreeWork::Split { node, rule, .. } => tree
            .split_alternative_in(&data.matrix, node, &rule, env)
            .map(|children| {
                let message = split_message(&tree, node, &children, &rule);
                TreeChange {
                    millis: millis(),
                    change: format!("split {} with {}", name_of(&tree, node), rule.name()),
                    steps: vec![Step::Split {
                        node,
                        rule: rule.clone(),
                        children,
                    }],
                    message,
                    tree,
                    select: Some(node),
                    split_directions: known.map(|known| (node, known)),
                }
            }),
        TreeWork::Grow { k, rule, policy } => {
            let before = tree.clone();
            tree.grow_in(&data.matrix, &rule, k, policy, env)
                .map(|report| {
                    let mut message = format!(
                        "{} splits with {}: {} leaves",
                        report.splits,
                        rule.name(),
                        tree.leaves().len()
                    );
                    if !report.refused.is_empty() {
                        message.push_str(&format!(", {} refused", report.refused.len()));
                    }
                    if let Some(reason) = &report.stopped_early {
                        message.push_str(&format!("; stopped early: {reason}"));
                    }
                    if let Some(count) = &report.leaf_count {
                        message.push_str(&format!("; {}", count.describe(&rule, report.splits)));
                    }
                    TreeChange {
                        millis: millis(),
                        change: format!("{} splits with {}", report.splits, rule.name()),
                        steps: Step::splits_made(&before, &tree),
                        tree,
                        select: None,
                        message,
                        split_directions: None,
                    }
                })
        }
        TreeWork::Replay {
            data,
            settings,
            change,
            step,
        } => return Outcome::Replayed(replay(&data, &tree, settings, change, step, env)),
    };
    Outcome::Tree(changed.map(Box::new).map_err(|error| error.to_string()))
}

/// A node as messages name it: its name, or `#id`.
fn name_of(tree: &Tree, node: usize) -> String {
    tree.node(node)
        .and_then(|n| n.name.clone())
        .unwrap_or_else(|| format!("#{node}"))
}

/// What the status line says of a split: the children, the scatter before and after, a kernel's or a sample's
/// summary, and, for a node split again, which alternative this is and how to reach the others.
fn split_message(tree: &Tree, node: usize, children: &[usize], rule: &RuleSpec) -> String {
    let record = tree.node(node).and_then(|n| n.split.as_ref());
    let (before, after) = record.map_or((0.0, 0.0), |r| (r.objective_before, r.objective_after));
    let ids: Vec<String> = children.iter().map(|c| format!("#{c}")).collect();
    let kernel = record
        .and_then(|r| r.detail.kernel_summary())
        .map_or(String::new(), |summary| format!(" · {summary}"));
    let sampled = record
        .and_then(|r| r.detail.sampling_summary())
        .map_or(String::new(), |summary| format!(" · {summary}"));
    let splits = tree.split_count(node);
    let alternative = if splits > 1 {
        format!(" · split {splits} of {splits} ([ ] switch, A compare, K keep)")
    } else {
        String::new()
    };
    format!(
        "split {} into {} with {}: scatter {before:.3} → {after:.3}{kernel}{sampled}{alternative}",
        name_of(tree, node),
        ids.join(" "),
        rule.name()
    )
}

/// Rebuild the matrix and replay the tree on it.
fn replay(
    data: &Dataset,
    tree: &Tree,
    settings: Reweigh,
    change: String,
    step: Step,
    env: SplitEnv,
) -> Result<Box<Replayed>, String> {
    let (rebuilt, reweigh) = data
        .reweigh(&settings)
        .map_err(|error| format!("{change}: {error}"))?;
    let env = SplitEnv {
        texts: Some(&rebuilt),
        labels: Some(&rebuilt),
        ..env
    };
    let (tree, replay) =
        Tree::replay(tree, &rebuilt, env).map_err(|error| format!("{change}: {error}"))?;
    Ok(Box::new(Replayed {
        change,
        step,
        data: Arc::new(rebuilt),
        tree,
        reweigh,
        replay,
    }))
}
