//! New documents added to the open session (`+`), as `pdx assign` adds them: read and weighted with the
//! collection's terms and global weights (never re-fitted on them), each routed down the tree by each split's own
//! rule. They join no node: the tree, its figures and its exports stay those of the collection it was grown on;
//! the tree pane counts them per node (the `new` column), their list (`=`) says where each went and how sure each
//! step was, and Enter there selects a document's leaf. Whenever the tree changes they are routed again, and
//! after a rebuild of the matrix read and weighted again, by a job.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};

use crate::dataset::{Dataset, Incoming};
use crate::report::assign::AssignedRow;

use super::super::effects::{AssignJob, BatchToRoute, Effect, Routed, Work};
use super::super::jobs::Priority;
use super::popups::Popup;
use super::{JobKey, Model};

/// The new documents added so far, in batches (one per path given), and where each went.
#[derive(Debug, Default)]
pub(crate) struct NewDocuments {
    batches: Vec<Batch>,
    /// The tree's revision the rows are for (none: not routed yet).
    routed: Option<u64>,
    /// The tree's revision the running job routes for.
    routing: Option<u64>,
    /// How many new documents each node holds in its subtree, for the tree pane.
    per_node: BTreeMap<usize, usize>,
}

#[derive(Debug)]
struct Batch {
    path: PathBuf,
    /// Its documents weighted on this dataset's matrix (weak: a matrix the session has left is not kept for it).
    weighted: Option<(Weak<Dataset>, Arc<Incoming>)>,
    rows: Vec<AssignedRow>,
}

impl NewDocuments {
    /// Every new document's row, in the order they were added.
    pub(crate) fn rows(&self) -> impl Iterator<Item = &AssignedRow> {
        self.batches.iter().flat_map(|batch| batch.rows.iter())
    }

    /// How many new documents have rows (none before their first routing).
    pub(crate) fn row_count(&self) -> usize {
        self.batches.iter().map(|batch| batch.rows.len()).sum()
    }

    /// Whether no new documents were added.
    pub(crate) fn is_empty(&self) -> bool {
        self.batches.is_empty()
    }

    /// The paths given, in order.
    pub(crate) fn paths(&self) -> Vec<PathBuf> {
        self.batches
            .iter()
            .map(|batch| batch.path.clone())
            .collect()
    }

    /// How many new documents went into node `id`'s subtree of the tree at `revision` (none while they are
    /// routed down it).
    pub(crate) fn in_node(&self, id: usize, revision: u64) -> Option<usize> {
        self.routed_for(revision)
            .then(|| self.per_node.get(&id).copied().unwrap_or(0))
    }

    /// Whether the rows are those of the tree at `revision`.
    pub(crate) fn routed_for(&self, revision: u64) -> bool {
        self.routed == Some(revision)
    }

    /// A batch of `path` (made absolute: a session keeps it, and pdx may be started elsewhere next time).
    fn add(&mut self, path: PathBuf) {
        self.batches.push(Batch {
            path: std::path::absolute(&path).unwrap_or(path),
            weighted: None,
            rows: Vec::new(),
        });
    }
}

/// `input` as a path: relative paths from the folder pdx was started in, `~/` as the home folder.
fn typed_path(input: &str) -> Option<PathBuf> {
    let trimmed = input.trim();
    if trimmed.is_empty() {
        return None;
    }
    match trimmed.strip_prefix("~/") {
        Some(rest) => directories::BaseDirs::new().map(|dirs| dirs.home_dir().join(rest)),
        None => Some(PathBuf::from(trimmed)),
    }
}

impl Model {
    /// The path typed after `+`: a batch to add, routed by the job [`Model::request_routing`] starts.
    pub(super) fn add_new_documents(&mut self, input: &str) {
        let Some(path) = typed_path(input) else {
            self.messages
                .say("type a folder of new documents, or a file of them (JSONL, CSV, ...)");
            return;
        };
        let path = std::path::absolute(&path).unwrap_or(path);
        let shown = crate::printable::escaped(&path.display().to_string()).into_owned();
        if self.incoming.batches.iter().any(|batch| batch.path == path) {
            self.messages.say(format!(
                "{shown} was added already (= lists the new documents)"
            ));
            return;
        }
        if !self.analysis.data().clusters_terms() {
            self.messages.say(
                "new documents cannot be added: the tree is grown on precomputed vectors, which they do not have",
            );
            return;
        }
        self.incoming.add(path);
        // A job running now routes the batches before this one: the next update starts one with it instead.
        self.incoming.routed = None;
        self.incoming.routing = None;
        self.messages
            .say(format!("reading and routing the new documents of {shown}…"));
    }

    /// The routing job, when there are new documents and their rows are not those of the tree as it stands (a
    /// batch was added, the tree or the matrix changed); a job for an older tree is replaced.
    pub(super) fn request_routing(&mut self) -> Vec<Effect> {
        let revision = self.analysis.revision();
        let running = self.jobs.is_running(JobKey::Assign);
        if self.incoming.is_empty()
            || self.incoming.routed_for(revision)
            || (running && self.incoming.routing == Some(revision))
        {
            return Vec::new();
        }
        let data = self.analysis.data();
        let batches = (self.incoming.batches.iter())
            .map(|batch| BatchToRoute {
                path: batch.path.clone(),
                weighted: (batch.weighted.as_ref())
                    .filter(|(on, _)| std::ptr::eq(on.as_ptr(), Arc::as_ptr(data)))
                    .map(|(_, incoming)| Arc::clone(incoming)),
            })
            .collect();
        let job = AssignJob {
            batches,
            tree: self.analysis.tree().clone(),
            options: (self.settings.source())
                .map(|source| source.options.clone())
                .unwrap_or_default(),
            memory_budget: self.settings.memory_budget(),
            revision,
        };
        self.incoming.routing = Some(revision);
        let ticket = self.jobs.start(
            JobKey::Assign,
            Priority::Analyst,
            "routing the new documents".into(),
        );
        vec![Effect {
            ticket,
            work: Work::Assign(Box::new(job)),
        }]
    }

    /// The routing job's result: the rows taken; a batch that could not be read or routed is left out, with
    /// one line why.
    pub(super) fn routed(&mut self, routed: Routed) {
        self.incoming.routing = None;
        if routed.revision != self.analysis.revision()
            || routed.batches.len() != self.incoming.batches.len()
        {
            // For a tree the analyst has left, or before a batch was added: the next update routes them again.
            return;
        }
        let data = Arc::downgrade(self.analysis.data());
        let mut kept = Vec::with_capacity(self.incoming.batches.len());
        let mut said = Vec::new();
        let mut first_rows = false;
        for (mut batch, done) in std::mem::take(&mut self.incoming.batches)
            .into_iter()
            .zip(routed.batches)
        {
            match done {
                Ok(done) => {
                    let first_time = batch.weighted.is_none();
                    batch.weighted = Some((Weak::clone(&data), done.incoming));
                    batch.rows = done.rows;
                    if first_time {
                        said.push(batch_summary(&batch.path, &batch.rows));
                        first_rows |= !batch.rows.is_empty();
                    }
                    kept.push(batch);
                }
                Err(error) => said.push(format!(
                    "new documents left out: {}",
                    crate::printable::escaped(&error)
                )),
            }
        }
        self.incoming.batches = kept;
        self.incoming.routed = Some(routed.revision);
        self.incoming.per_node = per_node(self, self.incoming.rows().map(|row| row.leaf));
        for line in said {
            self.messages.say(line);
        }
        if first_rows && self.popup.is_none() {
            self.popup = Some(Popup::NewDocuments { cursor: 0 });
        }
    }

    /// A reopened session's new documents, in place of those added before: routed by the next update's job.
    pub(super) fn take_new_documents(&mut self, paths: &[PathBuf]) {
        self.incoming = NewDocuments::default();
        for path in paths {
            self.incoming.add(path.clone());
        }
    }

    /// Drop every new document (their routing failed); the paths dropped, as the status line names them.
    pub(super) fn drop_new_documents(&mut self) -> String {
        let paths: Vec<String> = (self.incoming.paths().iter())
            .map(|path| path.display().to_string())
            .collect();
        self.incoming = NewDocuments::default();
        if matches!(self.popup, Some(Popup::NewDocuments { .. })) {
            self.popup = None;
        }
        crate::printable::escaped(&paths.join(", ")).into_owned()
    }

    /// The new documents' list, or why there is none.
    pub(super) fn open_new_documents(&mut self) {
        if self.incoming.is_empty() {
            self.messages
                .say("no new documents: + adds a file or folder of them");
        } else if self.incoming.row_count() == 0 {
            self.messages.say("the new documents are being read…");
        } else {
            self.popup = Some(Popup::NewDocuments { cursor: 0 });
        }
    }

    /// Enter on row `cursor` of the list: its leaf selected in the tree.
    pub(super) fn go_to_new_document(&mut self, cursor: usize) {
        let Some(row) = self.incoming.rows().nth(cursor) else {
            return;
        };
        let (leaf, id) = (row.leaf, row.id.clone());
        if self.analysis.tree().node(leaf).is_some() {
            self.reveal(leaf);
            self.messages.say(format!(
                "new document {} went to {}",
                crate::printable::escaped(&id),
                self.analysis.label(leaf)
            ));
        }
    }
}

/// Each node's count of the new documents in its subtree, from each document's leaf.
fn per_node(model: &Model, leaves: impl Iterator<Item = usize>) -> BTreeMap<usize, usize> {
    let tree = model.analysis.tree();
    let mut counts = BTreeMap::new();
    for leaf in leaves {
        let mut at = Some(leaf);
        while let Some(id) = at {
            *counts.entry(id).or_insert(0) += 1;
            at = tree.node(id).and_then(|node| node.parent);
        }
    }
    counts
}

/// What the status line says of a batch routed for the first time.
fn batch_summary(path: &Path, rows: &[AssignedRow]) -> String {
    let shown = crate::printable::escaped(&path.display().to_string()).into_owned();
    if rows.is_empty() {
        return format!("{shown}: no document to add");
    }
    let count = |fit: &str| rows.iter().filter(|row| row.fit == fit).count();
    let (beyond, no_terms) = (count("fits no leaf"), count("no known terms"));
    let mut said = format!(
        "{} new documents from {shown}, routed by each split's rule: {} fit their leaf",
        rows.len(),
        rows.len() - beyond - no_terms
    );
    if beyond > 0 {
        said.push_str(&format!(", {beyond} fit no leaf"));
    }
    if no_terms > 0 {
        said.push_str(&format!(", {no_terms} hold no known term"));
    }
    said.push_str(" (= lists them)");
    said
}
