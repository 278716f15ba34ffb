//! The root's side of the jobs: what starts each kind (a change of the tree, a preview step, the detail pane's
//! passes, the search index, an export, a save, the cache entry), what Esc and Ctrl-C cancel, and what each
//! result does to the model. Every result passes [`Jobs::finish`](super::super::jobs::Jobs::finish) first: a
//! result whose job was cancelled or replaced is dropped there.

use std::path::Path;
use std::sync::Arc;

use crate::cluster::RuleSpec;
use crate::dataset::PendingCache;

use super::super::effects::{
    Done, Effect, Outcome, PreviewKey, Replayed, SearchJob, Searched, TreeChange, TreeJob,
    TreeWork, Work, index,
};
use super::super::export::Export;
use super::super::jobs::Priority;
use super::super::recovery::Offer;
use super::super::session::{Save, Session};
use super::popups::Popup;
use super::preview::Asked;
use super::search::Indexing;
use super::update::exported_text;
use super::{DetailTab, JobKey, Model, Quitting};

impl Model {
    /// Start `work` under `key` at `priority`; `what` is what the status line says it does.
    fn start(&mut self, key: JobKey, priority: Priority, what: String, work: Work) -> Effect {
        let ticket = self.jobs.start(key, priority, what);
        Effect { ticket, work }
    }

    /// The background jobs of a freshly opened collection: its search index, when the start gave none, and its
    /// cache entry, when it was built from the files (`pending`).
    pub(super) fn start_background(&mut self, pending: Option<Box<PendingCache>>) -> Vec<Effect> {
        let mut effects = Vec::new();
        if !self.search.has_index() {
            let what = index::INDEXING.to_string();
            effects.push(self.start(JobKey::Index, Priority::Background, what, Work::Index));
        }
        if let Some(pending) = pending {
            let what = "writing the cache entry".to_string();
            let work = Work::WriteCache(pending);
            effects.push(self.start(JobKey::CacheWrite, Priority::Deferred, what, work));
        }
        effects
    }

    /// How far the search index's job is: texts read, of how many.
    pub(super) fn index_progress(&self) -> Indexing {
        let total = self.analysis.data().documents.len() as u64;
        let read = self
            .jobs
            .progress(JobKey::Index)
            .map_or(0, |progress| progress.snapshot().done);
        (read, total)
    }

    /// Start a change of the tree, unless one runs already.
    pub(super) fn start_tree_job(&mut self, work: TreeWork, what: String) -> Vec<Effect> {
        if let Some(running) = self.jobs.what(JobKey::Tree) {
            let busy = format!("busy: {running} (Esc cancels)");
            self.messages.say(busy);
            return Vec::new();
        }
        self.messages.say(format!("{what}…"));
        let job = TreeJob {
            tree: self.analysis.tree().clone(),
            work,
            memory_budget: self.settings.memory_budget(),
        };
        vec![self.start(
            JobKey::Tree,
            Priority::Analyst,
            what,
            Work::Tree(Box::new(job)),
        )]
    }

    /// Split `node` with the current rule.
    pub(super) fn split(&mut self, node: usize) -> Vec<Effect> {
        self.split_with(node, self.analysis.rule().clone())
    }

    /// Split `node` with `rule`: a leaf, or a node already split, which keeps its split as an alternative. A leaf
    /// whose preview computed its directions hands them to the split.
    pub(super) fn split_with(&mut self, node: usize, rule: RuleSpec) -> Vec<Effect> {
        let tree = self.analysis.tree();
        let label = self.analysis.label(node);
        if tree.node(node).is_some_and(|n| !n.is_leaf()) {
            if let Some(index) = tree.split_by(node, &rule) {
                self.messages.say(format!(
                    "{label}: the same split exists: {} of {} (] and [ switch splits; r picks another rule)",
                    index + 1,
                    tree.split_count(node)
                ));
                return Vec::new();
            }
            let what = format!("splitting {label} again with {}", rule.text());
            let work = TreeWork::Split {
                node,
                rule,
                known: None,
            };
            return self.start_tree_job(work, what);
        }
        match tree.unsplittable_reason(node) {
            Ok(Some(reason)) => {
                self.messages
                    .say(format!("{label} cannot be split: {reason}"));
                Vec::new()
            }
            Ok(None) => {
                let what = format!("splitting {label} with {}", rule.text());
                let known = self.preview.directions(self.preview_key_of(node));
                self.start_tree_job(TreeWork::Split { node, rule, known }, what)
            }
            Err(error) => {
                self.messages.say(error.to_string());
                Vec::new()
            }
        }
    }

    /// Esc: stop the change of the tree that runs. Kernel work and Lanczos runs stop at their next check; the
    /// result, whenever it comes, is dropped.
    pub(super) fn cancel_tree_job(&mut self) {
        if let Some(what) = self.jobs.cancel(JobKey::Tree) {
            self.messages.say(format!("cancelled: {what}"));
        }
    }

    /// The key of the selected node's preview as the tree and the rule stand.
    pub(crate) fn preview_key(&self) -> PreviewKey {
        self.preview_key_of(self.tree_pane.selected())
    }

    fn preview_key_of(&self, node: usize) -> PreviewKey {
        self.preview.key(node, self.analysis.revision())
    }

    /// The preview step the Preview tab wants now, if it shows and no preview job runs.
    pub(super) fn request_preview(&mut self) -> Option<Effect> {
        let previewing = self
            .jobs
            .keys()
            .any(|key| matches!(key, JobKey::Preview(..)));
        if self.detail.tab() != DetailTab::Preview || previewing {
            return None;
        }
        let key = self.preview_key();
        let job = self.preview.request(Asked {
            tree: self.analysis.tree(),
            key,
            rules: self.analysis.preview_rules(),
        })?;
        let what = format!("previewing {}", self.analysis.label(key.node));
        let job_key = JobKey::Preview(key, job.step);
        Some(self.start(job_key, Priority::Analyst, what, Work::Preview(job)))
    }

    /// Cancel the preview the Preview tab is computing for the selected node: the tab says so until `4` asks
    /// again, and the job's result is dropped. Returns whether there was one to cancel.
    pub(super) fn cancel_preview(&mut self) -> bool {
        let key = self.preview_key();
        let running = self.jobs.keys().find_map(|job| match job {
            JobKey::Preview(of, step) if of == key => Some(step),
            _ => None,
        });
        let Some(step) = running.filter(|_| self.detail.tab() == DetailTab::Preview) else {
            return false;
        };
        self.jobs.cancel(JobKey::Preview(key, step));
        self.preview.cancelled(key, step);
        true
    }

    /// The detail pane's passes, when it waits for some and no detail job runs.
    pub(super) fn request_detail(&mut self) -> Option<Effect> {
        if self.jobs.is_running(JobKey::Detail) {
            return None;
        }
        let job = self.detail.request(&shown!(self))?;
        let what = format!("reading the members of {}", self.analysis.label(job.node));
        Some(self.start(JobKey::Detail, Priority::Analyst, what, Work::Detail(job)))
    }

    /// `x`: the tree as JSON, CSV, Newick and HTML into the export folder.
    pub(super) fn export(&mut self) -> Vec<Effect> {
        let dir = self.settings.export_dir().clone();
        self.messages
            .say(format!("exporting to {}…", dir.display()));
        let job = Export {
            tree: self.analysis.tree().clone(),
            dir,
            settings: self.settings.source().map(|source| {
                let budget = self.settings.memory_budget();
                self.analysis.settings(source, budget)
            }),
            timings: self.analysis.export_timings(),
            labels_hidden: self.settings.blind() && self.analysis.has_labels(),
            steps: self.script().map(|script| script.to_text()),
        };
        let what = "exporting".to_string();
        vec![self.start(
            JobKey::Export,
            Priority::Analyst,
            what,
            Work::Export(Box::new(job)),
        )]
    }

    /// `w`: the session into the session folder.
    pub(super) fn save(&mut self) -> Vec<Effect> {
        let (Some(source), Some(dir)) = (self.settings.source(), self.settings.session_dir())
        else {
            self.messages
                .say("cannot save: no folder for sessions (set PDX_SESSION_DIR)");
            return Vec::new();
        };
        let save = Save {
            session: Session {
                new_documents: self.incoming.paths(),
                ..self.analysis.session(source, self.settings.memory_budget())
            },
            dir: dir.clone(),
            revision: self.analysis.revision(),
        };
        self.messages
            .say(format!("saving the session to {}…", dir.display()));
        let what = "saving the session".to_string();
        vec![self.start(
            JobKey::Save,
            Priority::Analyst,
            what,
            Work::Save(Box::new(save)),
        )]
    }

    /// The search typed after `/` (or the filter after `f`, with `filter`), by a job: it reads texts.
    pub(super) fn start_search(&mut self, input: &str, filter: bool) -> Vec<Effect> {
        let what = if filter { "filter" } else { "search" };
        let indexing = self.index_progress();
        let (query, index) = match self.search.prepare(what, input, indexing) {
            Ok(prepared) => prepared,
            Err(message) => {
                self.messages.say(message);
                return Vec::new();
            }
        };
        let doing = format!("searching the texts for {query}");
        self.messages.say(format!("{doing}…"));
        let job = SearchJob {
            index,
            query,
            filter,
        };
        let work = Work::Search(Box::new(job));
        vec![self.start(JobKey::Search, Priority::Analyst, doing, work)]
    }

    /// A search's hits: the hits list opens (unless another popup did meanwhile); a filter's: the Documents tab
    /// lists the node's documents holding it.
    fn searched(&mut self, searched: Searched) {
        let Searched {
            query,
            filter,
            hits,
        } = searched;
        if !filter {
            let (message, found) = self.search.found(query, hits);
            self.messages.say(message);
            if found && self.popup.is_none() {
                self.popup = Some(Popup::Hits);
            }
            return;
        }
        let message = self.search.filtered(query, hits);
        self.show_selection();
        let node = self.tree_pane.selected();
        let size = self.analysis.tree().node(node).map_or(0, |n| n.size());
        let listed = self.detail.shown().documents.len();
        let label = self.analysis.label(node);
        self.messages.say(format!(
            "{message}: {listed} of {size} documents of {label} (Esc or an empty filter clears it)"
        ));
    }

    /// A job's work panicked: the part it was for says so rather than wait for it, and the status line says
    /// what failed. Nothing the job would have changed has changed.
    fn job_failed(&mut self, key: JobKey, message: String) {
        let said = match key {
            JobKey::Tree => {
                format!("the change of the tree failed ({message}); the tree is as it was")
            }
            JobKey::Preview(preview, step) => {
                self.preview.cancelled(preview, step);
                format!("the split preview failed ({message}); 4 computes it again")
            }
            JobKey::Detail => {
                self.detail.failed(&message);
                format!("the node's details failed: {message}")
            }
            JobKey::Index => {
                self.search.index_failed(message.clone());
                format!("the search index could not be built: {message}")
            }
            JobKey::Read => {
                self.texts_failed(&message);
                format!("reading the texts failed: {message}")
            }
            JobKey::Search => format!("the search failed: {message}"),
            JobKey::Export => format!("the export failed: {message}"),
            JobKey::Save => {
                if self.quit == Quitting::WhenSaved {
                    self.quit = Quitting::No;
                }
                format!("the session was not saved: {message}")
            }
            JobKey::CacheWrite => format!("warning: the cache entry was not written: {message}"),
            JobKey::Recovery => format!("the recovered session's file was not deleted: {message}"),
            JobKey::Assign => {
                // Routing them again would fail again: they are dropped, and + adds them anew.
                let paths = self.drop_new_documents();
                format!("routing the new documents failed ({message}); {paths} left out")
            }
        };
        self.messages.say(format!("internal error: {said}"));
    }

    /// A job's result: dropped when stale, else taken by the part it is for.
    pub(super) fn finished(&mut self, done: Done) -> Vec<Effect> {
        let Some(key) = self.jobs.finish(done.id) else {
            // Cancelled, or replaced: the result is for a state the analyst has left.
            return Vec::new();
        };
        match done.outcome {
            Outcome::Failed(message) => self.job_failed(key, message),
            Outcome::Read(read) => self.texts_read(read),
            Outcome::Searched(searched) => self.searched(*searched),
            Outcome::Tree(result) => self.tree_job_done(result),
            Outcome::Assigned(routed) => self.routed(*routed),
            Outcome::Replayed(result) => self.replayed(result),
            Outcome::Preview(preview) => {
                self.preview
                    .done(preview, self.analysis.tree(), self.analysis.data())
            }
            Outcome::Detail(detail) => self.detail.done(detail, &shown!(self)),
            Outcome::Index(index) => {
                if let Some(message) = self.search.indexed(index) {
                    self.messages.say(message);
                }
            }
            Outcome::Exported {
                labels_hidden,
                without_steps,
                result,
            } => self.messages.say(match result {
                Ok(paths) => {
                    let mut said = exported_text(&paths);
                    if labels_hidden {
                        said.push_str(
                            "; made label-blind: no labels, no figures measured against them",
                        );
                    }
                    if without_steps {
                        said.push_str(
                            "; no steps file: the session was saved by a pdx that kept no steps",
                        );
                    }
                    said
                }
                Err(error) => error,
            }),
            Outcome::Saved { revision, result } => match result {
                Ok(path) => {
                    self.analysis.saved(revision);
                    self.messages
                        .say(format!("session saved to {}", path.display()));
                    if self.quit == Quitting::WhenSaved {
                        self.quit = Quitting::Now;
                    }
                }
                Err(error) => {
                    if self.quit == Quitting::WhenSaved {
                        self.quit = Quitting::No;
                        self.messages.say(format!("{error}; not quitting"));
                    } else {
                        self.messages.say(error);
                    }
                }
            },
            Outcome::CacheWritten(written) => self.messages.say(match written {
                Ok(file) => format!("cache entry written for the next open: {}", file.display()),
                Err(warning) => format!("warning: {warning}"),
            }),
            Outcome::RecoveryRemoved { accepted, result } => match result {
                // The status line already says what was reopened.
                Ok(_) if accepted => {}
                Ok(path) => self.messages.say(format!(
                    "recovered tree discarded: {} deleted",
                    path.display()
                )),
                Err(error) => self.messages.say(error),
            },
        }
        Vec::new()
    }

    fn tree_job_done(&mut self, result: Result<Box<TreeChange>, String>) {
        let change = match result {
            Ok(change) => *change,
            Err(error) => return self.messages.say(error),
        };
        self.analysis.add_split_time(change.millis);
        self.replace_tree(change.tree, change.change, change.steps);
        if let Some((node, directions)) = change.split_directions {
            let key = self.preview_key_of(node);
            self.preview.keep_split_directions(key, directions);
        }
        if let Some(id) = change.select {
            self.tree_pane.expand(id);
            self.select(id);
        }
        self.messages.say(change.message);
    }

    /// A rebuild and replay: the dataset and the tree replaced together (one undo step), the status line saying
    /// what changed, and the report popup listing the leaves.
    fn replayed(&mut self, result: Result<Box<Replayed>, String>) {
        let replayed = match result {
            Ok(replayed) => *replayed,
            Err(error) => return self.messages.say(error),
        };
        let Replayed {
            change,
            step,
            data,
            tree,
            reweigh,
            replay,
        } = replayed;
        let selected = self.tree_pane.selected();
        let path = self.analysis.tree().path_of(selected);
        self.analysis
            .replace(data, tree, change.clone(), vec![step]);
        self.tree_changed(&[]);
        // A node the replay found again keeps its id; one below a split not redone gives way to what is at its
        // place.
        let tree = self.analysis.tree();
        if let Some(id) = tree
            .node(selected)
            .map(|_| selected)
            .or_else(|| tree.node_at(&path))
        {
            self.select(id);
        }
        let summary = crate::report::replayed::summary(&change, &reweigh, &replay, |id| {
            self.analysis.label(id)
        });
        self.messages.say(summary.headline[0].clone());
        self.popup = Some(Popup::Replayed {
            summary: Arc::new(summary),
            scroll: 0,
        });
    }

    /// Take `session` (read from `path`) if it fits the data: its tree (the start of undo history, and the clean
    /// state), rule and parameters. The status line says what happened; returns whether the session was taken.
    pub(super) fn open_session(&mut self, path: &Path, session: Session) -> bool {
        let refused =
            |error: String| format!("started without the session: {}: {error}", path.display());
        let data = match session.rebuild(self.analysis.data()) {
            Ok(rebuilt) => rebuilt.map_or_else(|| Arc::clone(self.analysis.data()), Arc::new),
            Err(error) => {
                self.messages.hold(refused(error));
                return false;
            }
        };
        let new_documents = session.new_documents.clone();
        match session.restore(&data) {
            Ok(restored) => {
                self.analysis.restore(data, restored);
                self.take_new_documents(&new_documents);
                self.tree_pane.reset(self.analysis.tree());
                self.tree_changed(&[]);
                let leaves = self.analysis.derived().leaves.len();
                self.messages.say(format!(
                    "session {} restored: {leaves} leaves",
                    path.display()
                ));
                true
            }
            Err(error) => {
                self.messages.hold(refused(error));
                false
            }
        }
    }

    /// What the start found of a tree kept by a signal: offer it (a popup), or say why it cannot be offered.
    pub(super) fn recovery_found(&mut self, found: Result<Box<Offer>, String>) {
        match found {
            Ok(offer) => self.popup = Some(Popup::Recovery(offer)),
            Err(error) => self.messages.hold(error),
        }
    }

    /// The answer to the recovery offer: `Yes` reopens the tree (unsaved: `q` asks, a signal keeps it again) and
    /// deletes the file, `No` deletes it, `Cancel` leaves it where it is and says where.
    pub(super) fn answer_recovery(
        &mut self,
        offer: &Offer,
        command: super::super::keys::Command,
    ) -> Vec<Effect> {
        use super::super::keys::Command;
        let path = offer.path.clone();
        let accepted = match command {
            Command::Yes => {
                if !self.open_session(&path, Session::clone(&offer.session)) {
                    // The status line names the file and why; the file stays.
                    return Vec::new();
                }
                self.analysis.mark_unsaved();
                let leaves = self.analysis.derived().leaves.len();
                self.messages.say(format!(
                    "reopened the tree {} stopped: {leaves} leaves, not saved (w saves it)",
                    offer.signal
                ));
                true
            }
            Command::No => false,
            _ => {
                self.messages.say(format!(
                    "recovered tree kept in {} (pdx --session FILE reopens it)",
                    path.display()
                ));
                return Vec::new();
            }
        };
        let work = Work::RemoveRecovery { path, accepted };
        let what = "deleting the recovered session".to_string();
        vec![self.start(JobKey::Recovery, Priority::Analyst, what, work)]
    }

    /// The session to keep when a signal stops pdx: the tree if it is not saved (none when it is, or when the
    /// model has no source to save a session of).
    pub fn unsaved_session(&self) -> Option<Session> {
        let source = self.settings.source().filter(|_| self.analysis.dirty())?;
        Some(self.analysis.session(source, self.settings.memory_budget()))
    }
}
