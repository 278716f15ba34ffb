//! A script made again on a dataset: each step in order on a tree over it, as the terminal interface made it.
//! A step the tree or the collection cannot take (a node that is not there, a rule's refusal, a split making
//! another number of children, documents no longer in the collection) is skipped or made in part, and the
//! outcome says why; the steps after it go on.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::{OldTree, Script, Step};
use crate::cluster::rules::SplitEnv;
use crate::cluster::{ClusterError, ReplayReport, Tree};
use crate::dataset::{Dataset, ReweighReport};
use crate::progress::{Cancelled, Progress};

/// How a script is replayed.
#[derive(Debug, Clone, Copy)]
pub struct ReplayOptions<'a> {
    /// The largest kernel matrix a kernel split may build, in bytes.
    pub memory_budget: u64,
    /// Where the replay reports, and which can stop it between two steps (and inside a split).
    pub progress: Option<&'a Progress>,
    /// The tree the script made before (its JSON report): each split's children are put in the order that
    /// continues that tree's nodes of the same ids ([`Tree::split_recorded`]).
    pub against: Option<&'a OldTree>,
}

/// What became of one step.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Done,
    /// A move made without these documents: the collection no longer has them, or they are in no leaf (left
    /// without terms).
    Partly {
        missing: Vec<String>,
    },
    /// Not made, and why.
    Skipped(String),
    /// The matrix rebuilt and the tree replayed on it: what changed.
    Rebuilt {
        reweigh: ReweighReport,
        replay: ReplayReport,
    },
}

/// One step of the script (by its place in [`Script::steps`]) and what became of it.
#[derive(Debug, Clone, PartialEq)]
pub struct StepOutcome {
    pub step: usize,
    pub outcome: Outcome,
}

/// A replayed script: the dataset (rebuilt when the script changed its stop words or weighting) and the tree.
#[derive(Debug, Clone)]
pub struct Replayed {
    pub dataset: Dataset,
    pub tree: Tree,
    /// The steps made, as they were made (a move without the documents it could not find): the script of `tree`,
    /// which a session keeps to go on with.
    pub applied: Vec<Arc<Step>>,
    /// Every step's outcome, in the script's order.
    pub outcomes: Vec<StepOutcome>,
}

/// Make `script`'s steps again on `dataset` (read with the script's options), from a tree of one leaf. The only
/// error is a cancel through the options' progress.
pub fn replay(
    dataset: Dataset,
    script: &Script,
    options: ReplayOptions,
) -> Result<Replayed, Cancelled> {
    let mut replay = Replay {
        tree: Tree::for_dataset(&dataset),
        columns: dataset
            .documents
            .iter()
            .enumerate()
            .map(|(column, document)| (document.id.clone(), column))
            .collect(),
        continued: options
            .against
            .map(|old| old.columns_in(&dataset))
            .unwrap_or_default(),
        dataset,
        options,
        applied: Vec::new(),
    };
    let mut outcomes = Vec::with_capacity(script.steps.len());
    for (index, step) in script.steps.iter().enumerate() {
        if let Some(progress) = options.progress {
            progress.check()?;
        }
        let (outcome, applied) = replay.step(step)?;
        replay.applied.extend(applied);
        outcomes.push(StepOutcome {
            step: index,
            outcome,
        });
    }
    Ok(Replayed {
        dataset: replay.dataset,
        tree: replay.tree,
        applied: replay.applied,
        outcomes,
    })
}

/// A replay under way.
struct Replay<'a> {
    dataset: Dataset,
    tree: Tree,
    /// Each document's column, by id (a dataset's ids are distinct; a rebuild keeps its columns).
    columns: HashMap<String, usize>,
    /// The old tree's nodes, each with the columns of its documents the dataset has (see `options.against`).
    continued: BTreeMap<usize, Vec<usize>>,
    options: ReplayOptions<'a>,
    applied: Vec<Arc<Step>>,
}

impl Replay<'_> {
    fn env(&self) -> SplitEnv<'_> {
        env_over(&self.dataset, &self.options)
    }

    /// Make `step`: what became of it, and the step made (none when skipped).
    fn step(&mut self, step: &Arc<Step>) -> Result<(Outcome, Option<Arc<Step>>), Cancelled> {
        let done = |result: Result<(), String>| match result {
            Ok(()) => (Outcome::Done, Some(Arc::clone(step))),
            Err(reason) => (Outcome::Skipped(reason), None),
        };
        let data = &self.dataset.matrix;
        Ok(match &**step {
            Step::Split {
                node,
                rule,
                children,
            } => {
                let continues: Option<Vec<&[usize]>> = (!self.continued.is_empty())
                    .then(|| {
                        children
                            .iter()
                            .map(|child| self.continued.get(child).map(Vec::as_slice))
                            .collect()
                    })
                    .flatten();
                let env = env_over(&self.dataset, &self.options);
                let result = self.tree.split_recorded(
                    data,
                    *node,
                    rule,
                    env,
                    children,
                    continues.as_deref(),
                );
                match result {
                    Err(ClusterError::Cancelled(cancelled)) => return Err(cancelled),
                    other => done(other.map_err(|error| error.to_string())),
                }
            }
            Step::Switch { node, split } => done(
                self.tree
                    .switch_split(data, *node, *split)
                    .map_err(|e| e.to_string()),
            ),
            Step::Keep { node } => done(
                self.tree
                    .keep_active_split(*node)
                    .map(|_| ())
                    .map_err(|e| e.to_string()),
            ),
            Step::Merge { node } => match self.tree.node(*node) {
                Some(found) if found.is_leaf() => {
                    (Outcome::Skipped(format!("#{node} is a leaf already")), None)
                }
                _ => done(self.tree.merge(*node).map_err(|e| e.to_string())),
            },
            Step::MergeInto { from, to } => done(
                self.tree
                    .merge_into(data, *from, *to)
                    .map(|_| ())
                    .map_err(|e| e.to_string()),
            ),
            Step::Name { node, name } => done(
                self.tree
                    .set_name(*node, name.clone())
                    .map_err(|e| e.to_string()),
            ),
            Step::Move { to, documents } => self.move_documents(*to, documents),
            Step::StopWord { .. } | Step::Weighting { .. } => return self.rebuild(step),
        })
    }

    /// A move of the documents the collection has, into leaf `to`.
    fn move_documents(&mut self, to: usize, documents: &[String]) -> (Outcome, Option<Arc<Step>>) {
        let (found, missing): (Vec<&String>, Vec<&String>) = documents.iter().partition(|id| {
            self.columns
                .get(*id)
                .is_some_and(|&column| self.tree.leaf_of(column).is_some())
        });
        if found.is_empty() {
            let reason = format!(
                "none of its {} documents is in a leaf of the tree (gone from the collection, or left without terms)",
                documents.len()
            );
            return (Outcome::Skipped(reason), None);
        }
        let columns: Vec<usize> = found.iter().map(|id| self.columns[*id]).collect();
        match self.tree.move_documents(&self.dataset.matrix, &columns, to) {
            Ok(_) => {
                let made = Step::Move {
                    to,
                    documents: found.into_iter().cloned().collect(),
                };
                let outcome = match missing.is_empty() {
                    true => Outcome::Done,
                    false => Outcome::Partly {
                        missing: missing.into_iter().cloned().collect(),
                    },
                };
                (outcome, Some(Arc::new(made)))
            }
            Err(error) => (Outcome::Skipped(error.to_string()), None),
        }
    }

    /// A stop word added or the weighting changed: the matrix rebuilt and the tree replayed on it, as the
    /// terminal interface does.
    fn rebuild(&mut self, step: &Arc<Step>) -> Result<(Outcome, Option<Arc<Step>>), Cancelled> {
        let skipped = |reason: String| Ok((Outcome::Skipped(reason), None));
        let Some(mut settings) = self.dataset.reweighing().cloned() else {
            return skipped(
                "the dataset keeps no term counts to rebuild from (numeric data)".into(),
            );
        };
        match &**step {
            Step::StopWord { word } => settings.extra_stop_words.push(word.clone()),
            Step::Weighting {
                weighting,
                min_df,
                max_df,
                taken_back,
            } => {
                settings.weighting = *weighting;
                settings.min_df = *min_df;
                settings.max_df = *max_df;
                for word in taken_back {
                    if let Some(at) = settings.extra_stop_words.iter().rposition(|w| w == word) {
                        settings.extra_stop_words.remove(at);
                    }
                }
            }
            _ => unreachable!("only a stop word or a weighting rebuilds"),
        }
        let (rebuilt, reweigh) = match self.dataset.reweigh(&settings) {
            Ok(rebuilt) => rebuilt,
            Err(error) => return skipped(error.to_string()),
        };
        let env = SplitEnv {
            texts: Some(&rebuilt),
            labels: Some(&rebuilt),
            ..self.env()
        };
        let (tree, replay) = match Tree::replay(&self.tree, &rebuilt, env) {
            Ok(replayed) => replayed,
            Err(ClusterError::Cancelled(cancelled)) => return Err(cancelled),
            Err(error) => return skipped(error.to_string()),
        };
        self.tree = tree;
        self.dataset = rebuilt;
        Ok((Outcome::Rebuilt { reweigh, replay }, Some(Arc::clone(step))))
    }
}

/// What a split of the replay sees: the dataset's texts and labels, the options' progress and memory budget.
fn env_over<'a>(dataset: &'a Dataset, options: &ReplayOptions<'a>) -> SplitEnv<'a> {
    SplitEnv {
        texts: Some(dataset),
        labels: Some(dataset),
        progress: options.progress,
        memory_budget: options.memory_budget,
        known: None,
    }
}
