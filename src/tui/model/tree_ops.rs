//! What the model does to its tree and around it: replace it with undo history, start jobs on it, name its
//! nodes, find a document's leaf, save it as a session and take one back.

use std::path::Path;
use std::sync::Arc;

use pdx::progress::Progress;

use super::super::session::{self, Session, Source};
use super::jobs::{Effect, Job, Save, Work};
use super::{MAX_UNDO, Model, Snapshot};

impl Model {
    /// The current rule with its parameters, as the status line shows it.
    pub(crate) fn rule_text(&self) -> String {
        self.rule.text()
    }

    /// Replace the tree after `change` (what undo will say it undid), keeping the old one for undo.
    pub(super) fn replace_tree(&mut self, tree: pdx::cluster::Tree, change: String) {
        self.replace_data_and_tree(Arc::clone(&self.data), tree, change);
    }

    /// Replace the dataset and the tree over it in one step, keeping the old pair for undo.
    pub(super) fn replace_data_and_tree(
        &mut self,
        data: Arc<pdx::dataset::Dataset>,
        tree: pdx::cluster::Tree,
        change: String,
    ) {
        let old = std::mem::replace(&mut self.tree, tree);
        let old_data = std::mem::replace(&mut self.data, data);
        let history = &mut self.history;
        history.undo.push(Snapshot {
            tree: old,
            data: old_data,
            revision: history.revision,
            change,
        });
        if history.undo.len() > MAX_UNDO {
            history.undo.remove(0);
        }
        history.redo.clear();
        history.revision = history.next_revision;
        history.next_revision += 1;
        self.tree_changed();
    }

    /// Go back (or forward) to `snapshot`, keeping the current tree for the other direction; returns the change
    /// undone (or redone).
    pub(super) fn restore(&mut self, snapshot: Snapshot, into_redo: bool) -> String {
        let path = self.tree.path_to(self.selected);
        let old = std::mem::replace(&mut self.tree, snapshot.tree);
        let old_data = std::mem::replace(&mut self.data, snapshot.data);
        let old = Snapshot {
            tree: old,
            data: old_data,
            revision: self.history.revision,
            change: snapshot.change.clone(),
        };
        if into_redo {
            self.history.redo.push(old);
        } else {
            self.history.undo.push(old);
        }
        self.history.revision = snapshot.revision;
        // Keep the deepest node of the old selection's path that still exists.
        if let Some(&id) = path.iter().rev().find(|&&id| self.tree.node(id).is_some()) {
            self.selected = id;
        }
        self.tree_changed();
        snapshot.change
    }

    /// Start `work` on a worker thread, unless a job runs already.
    pub(super) fn start(&mut self, work: Work, what: String) -> Vec<Effect> {
        if let Some((_, running)) = &self.busy {
            self.status = format!("busy: {running} (Esc cancels)");
            return Vec::new();
        }
        let id = self.next_job;
        self.next_job += 1;
        self.status = format!("{what}…");
        self.busy = Some((id, what));
        let progress = Arc::new(Progress::default());
        self.job_progress = Some(Arc::clone(&progress));
        vec![Effect::Run(Job {
            id,
            tree: self.tree.clone(),
            work,
            progress,
            memory_budget: self.memory_budget,
        })]
    }

    /// Split `node` with the current rule.
    pub(super) fn split(&mut self, node: usize) -> Vec<Effect> {
        self.split_with(node, self.rule.clone())
    }

    /// Split `node` with `rule` on a worker thread: a leaf, or a node already split, which keeps its split as
    /// an alternative.
    pub(super) fn split_with(&mut self, node: usize, rule: pdx::cluster::RuleSpec) -> Vec<Effect> {
        let split_already = self.tree.node(node).is_some_and(|n| !n.is_leaf());
        if split_already {
            let what = format!("splitting {} again with {}", self.label(node), rule.text());
            let known = None;
            return self.start(Work::Split { node, rule, known }, what);
        }
        match self.tree.unsplittable_reason(node) {
            Ok(Some(reason)) => {
                self.status = format!("{} cannot be split: {reason}", self.label(node));
                Vec::new()
            }
            Ok(None) => {
                let what = format!("splitting {} with {}", self.label(node), rule.text());
                let known = self.preview_directions(node);
                self.start(Work::Split { node, rule, known }, what)
            }
            Err(error) => {
                self.status = error.to_string();
                Vec::new()
            }
        }
    }

    /// The session as it stands: what `w` writes.
    pub(crate) fn session(&self, source: &Source) -> Session {
        Session {
            format: session::FORMAT.into(),
            version: session::VERSION,
            paths: source.paths.clone(),
            options: source.options.clone(),
            documents: self.data.matrix.cols(),
            terms: self.data.matrix.rows(),
            rule: self.rule.clone(),
            params: (&*self.params).into(),
            policy: self.policy,
            tree: self.tree.clone(),
            reweigh: Session::changes(&self.data, &source.options),
        }
    }

    pub(super) fn save(&mut self) -> Vec<Effect> {
        let (Some(source), Some(dir)) = (&self.source, &self.session_dir) else {
            self.status = "cannot save: no folder for sessions (set PDX_SESSION_DIR)".into();
            return Vec::new();
        };
        let save = Save {
            session: Box::new(self.session(source)),
            dir: dir.clone(),
            revision: self.history.revision,
        };
        self.status = format!("saving the session to {}…", dir.display());
        vec![Effect::Save(save)]
    }

    /// Take `session` (read from `path`) if it fits the data: its tree (the start of undo history, and the clean
    /// state), rule and parameters. The status line says what happened; returns whether the session was taken.
    pub(crate) fn open_session(&mut self, path: &Path, session: Session) -> bool {
        let rebuilt = match session.rebuild(&self.data) {
            Ok(rebuilt) => rebuilt.map(Arc::new),
            Err(error) => {
                self.status = format!("started without the session: {}: {error}", path.display());
                return false;
            }
        };
        let data = rebuilt.unwrap_or_else(|| Arc::clone(&self.data));
        match session.restore(&data) {
            Ok(restored) => {
                self.data = data;
                self.params = restored.params;
                self.rule = restored.rule;
                self.policy = restored.policy;
                self.tree = restored.tree;
                self.history.undo.clear();
                self.history.redo.clear();
                self.history.saved_revision = self.history.revision;
                self.selected = self.tree.root();
                self.collapsed.clear();
                self.tree_changed();
                self.status = format!(
                    "session {} restored: {} leaves",
                    path.display(),
                    self.derived.leaves.len()
                );
                true
            }
            Err(error) => {
                self.status = format!("started without the session: {}: {error}", path.display());
                false
            }
        }
    }

    /// Name `node` (an empty name clears it): a tree change, undoable.
    pub(super) fn rename(&mut self, node: usize, input: &str) {
        if self.busy.is_some() {
            self.status = "busy: wait for the split or cancel it (Esc)".into();
            return;
        }
        let name = Some(input.trim())
            .filter(|n| !n.is_empty())
            .map(str::to_string);
        let Some(current) = self.tree.node(node) else {
            return;
        };
        if current.name == name {
            self.status = "name unchanged".into();
            return;
        }
        let mut tree = self.tree.clone();
        if let Err(error) = tree.set_name(node, name.clone()) {
            self.status = error.to_string();
            return;
        }
        let change = match name {
            Some(name) => format!("named #{node} \"{name}\""),
            None => format!("cleared the name of #{node}"),
        };
        self.replace_tree(tree, change.clone());
        self.status = change;
    }

    /// Select `id`, expanding its ancestors so that it shows.
    pub(super) fn reveal(&mut self, id: usize) {
        for ancestor in self.tree.path_to(id) {
            if ancestor != id {
                self.collapsed.remove(&ancestor);
            }
        }
        self.select(id);
    }

    /// The leaf holding document `document`, if any.
    pub(super) fn leaf_of(&self, document: usize) -> Option<usize> {
        self.derived.leaves.iter().copied().find(|&leaf| {
            self.tree
                .node(leaf)
                .is_some_and(|n| n.members.contains(&document))
        })
    }
}
