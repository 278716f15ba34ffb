//! Steps that replay: every change an analyst makes to the tree in the terminal interface, kept as a script of
//! one line per step, which a person can read and edit, the session keeps, `x` exports, and `pdx replay` makes
//! again on the same collection (the same tree, the same node ids) or on an updated one (the same steps; new
//! documents go where the splits put them, documents gone are reported and skipped).
//!
//! - [`Step`]: one change, and [`Script`]: the steps with the options the collection was read with.
//! - `text.rs`: the script as text and back ([`Script::to_text`], [`Script::parse`]), within the bounds below.
//! - `replay.rs`: the script made again on a dataset ([`replay()`]).
//! - `against.rs`: the tree a script made before, read from its JSON report, to continue its nodes and to say
//!   what moved ([`OldTree`]).
//!
//! Nodes are named by the ids the tree gives them: ids are given in creation order and never reused, undo gives
//! back the tree with its ids, and a rebuild of the matrix keeps them ([`Tree::replay`]), so a script made of
//! the changes that stand (undo takes a step out) names, at each line, the nodes the tree had then. A split
//! records the ids its children took: they go on from the ids the splits above gave (the parser checks it), so
//! that a split not redone on other documents keeps its children's ids from being given to other nodes.

mod against;
mod replay;
mod text;

use std::sync::Arc;

use crate::cluster::{RuleSpec, Tree};
use crate::dataset::DatasetOptions;
use crate::weighting::Weighting;

pub use against::{Comparison, NodeChange, OldTree};
pub use replay::{Outcome, ReplayOptions, Replayed, StepOutcome, replay};

/// The first line of every script, with the version this pdx writes and reads.
pub const FORMAT: &str = "pdx-steps";
pub const VERSION: u32 = 1;

/// The longest line a script may have, in bytes: a move of many documents is written as several lines well
/// under it (`text.rs`), so only a document id of hundreds of kilobytes comes near it.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The most lines a script may have: about a hundred times the steps of a long day's work.
pub const MAX_LINES: usize = 1_000_000;

/// The largest script file read, in bytes.
pub const MAX_SCRIPT_BYTES: u64 = 256 << 20;

/// One change of the tree, as a line of a script names it (see the README's "Steps that replay" for each line's
/// form). Nodes are ids of the tree (see the module documentation), documents their ids in the collection.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// `split #N RULE [PARAM=VALUE]... -> #C1 #C2 ...`: split node N (a leaf; a split node gets one more split,
    /// active, its split kept as an alternative) with the rule and parameters; its children took the ids C1,
    /// C2, ... (`s`, `S`, `s` on the Preview's table, and each split `a` made).
    Split {
        node: usize,
        rule: RuleSpec,
        children: Vec<usize>,
    },
    /// `switch #N K`: make split K of node N (counted from 1) the active one (`]`, `[`).
    Switch { node: usize, split: usize },
    /// `keep #N`: keep node N's active split and drop its other splits (`K`).
    Keep { node: usize },
    /// `merge #N`: node N becomes a leaf again, its subtree and other splits dropped (`m`).
    Merge { node: usize },
    /// `merge-into #F #T`: every document of leaf F goes to leaf T anywhere in the tree, F goes, and a parent
    /// left with one child becomes one node with it under the parent's id (`M` on a leaf in the tree).
    MergeInto { from: usize, to: usize },
    /// `move #N "ID" ...`: move these documents into leaf N (`M`).
    Move { to: usize, documents: Vec<String> },
    /// `name #N "NAME"`: name node N; `name #N ""` clears its name (`e`).
    Name { node: usize, name: Option<String> },
    /// `stopword "WORD"`: add a stop word, rebuild the matrix and replay the tree on it (`d`).
    StopWord { word: String },
    /// `weighting CODE min-df=N max-df=F [take-back "WORD"...]`: rebuild the matrix with this weighting and
    /// these document-frequency limits, these stop words taken back, and replay the tree on it (`W`).
    Weighting {
        weighting: Weighting,
        min_df: usize,
        max_df: f64,
        /// Stop words added earlier that this change takes back (the form's ← takes the last ones).
        taken_back: Vec<String>,
    },
}

impl Step {
    /// The splits that turned `before` into `after` when only leaves were split (a growth: `a`), in the order
    /// they were made, as steps.
    pub fn splits_made(before: &Tree, after: &Tree) -> Vec<Step> {
        let mut splits: Vec<Step> = after
            .depth_first()
            .into_iter()
            .filter(|&id| before.node(id).is_none_or(|node| node.is_leaf()))
            .filter_map(|id| {
                let node = after.node(id)?;
                Some(Step::Split {
                    node: id,
                    rule: node.split.as_ref()?.rule.clone(),
                    children: node.children.clone(),
                })
            })
            .collect();
        // Children take the next ids of the arena: the order of their ids is the order of the splits.
        splits.sort_by_key(|step| match step {
            Step::Split { children, .. } => children.first().copied(),
            _ => None,
        });
        splits
    }

    /// The step's line as a script writes it (a long move: the first of its lines).
    pub fn text(&self) -> String {
        text::lines_of(self).into_iter().next().unwrap_or_default()
    }
}

/// A script: the options the collection was read with and the steps made on it since.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Script {
    /// How the collection was read and made a matrix, for the replay to read it the same way; `None`: the
    /// library's defaults.
    pub options: Option<DatasetOptions>,
    pub steps: Vec<Arc<Step>>,
}

/// What a script file holds, with the line of each step, for a report to name it.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    pub script: Script,
    /// The line (from 1) of each step of `script.steps`.
    pub lines: Vec<usize>,
}

/// A script that cannot be read. Each names the file, and a line where there is one.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StepsError {
    #[error("{file}:{line}: {message}")]
    Line {
        file: String,
        line: usize,
        message: String,
    },
    #[error("{file}: {message}")]
    File { file: String, message: String },
}

#[cfg(test)]
mod tests;
