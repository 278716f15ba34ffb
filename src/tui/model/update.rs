//! [`update`]: an action in, the model changed, the effects to run out. Keys on the main screen, clicks and the
//! wheel, finished jobs; what a key does inside a popup is in `popups`.

use std::path::PathBuf;

use pdx::choice::Choice;

use super::super::keys::{Command, Context};
use super::super::recovery::Offer;
use super::super::session::Session;
use super::jobs::{Effect, Export, Finished};
use super::popups::{Popup, popup_command};
use super::{Action, DETAIL_TERMS, DetailTab, Model, Pane, Region};

/// Rows a wheel notch scrolls text by (a selection moves by one).
const WHEEL_LINES: usize = 3;

/// Rows a page key moves a cursor or a scroll by.
const PAGE_LINES: usize = 10;

/// A cursor or scroll position in `0..=last` after a movement command (other commands leave it).
pub(super) fn scrolled(value: usize, command: Command, last: usize) -> usize {
    match command {
        Command::Up => value.saturating_sub(1),
        Command::Down => (value + 1).min(last),
        Command::PageUp => value.saturating_sub(PAGE_LINES),
        Command::PageDown => (value + PAGE_LINES).min(last),
        Command::Top => 0,
        Command::Bottom => last,
        _ => value,
    }
}

impl Model {
    fn move_in_tree(&mut self, command: Command) {
        let rows = self.visible();
        let position = rows.iter().position(|&(id, _)| id == self.selected);
        let last = rows.len().saturating_sub(1);
        // A selection that is not on screen (hidden under a collapsed node) starts again from the root.
        let target = position.map_or(0, |p| scrolled(p, command, last));
        if let Some(&(id, _)) = rows.get(target) {
            self.select(id);
        }
    }

    fn move_in_detail(&mut self, command: Command) {
        let (value, last) = match self.tab {
            DetailTab::Documents => (
                &mut self.document_cursor,
                self.detail.documents.len().saturating_sub(1),
            ),
            DetailTab::Terms => (&mut self.detail_scroll, DETAIL_TERMS * 2),
            DetailTab::Labels => (&mut self.detail_scroll, self.data.label_names.len() + 4),
            // The arrows move the rule table's cursor, the page keys scroll.
            DetailTab::Preview => return self.move_in_preview(command),
        };
        *value = scrolled(*value, command, last);
    }

    /// A click: select the tree row or the document, switch to the tab, and focus the pane clicked.
    fn click(&mut self, region: Region) {
        match region {
            Region::TreeRow(id) => {
                self.focus = Pane::Tree;
                self.select(id);
            }
            Region::Tree => self.focus = Pane::Tree,
            Region::Tab(tab) => {
                self.focus = Pane::Detail;
                self.tab = tab;
            }
            Region::DocumentRow(index) => {
                self.focus = Pane::Detail;
                if index < self.detail.documents.len() {
                    self.document_cursor = index;
                }
            }
            Region::Detail => self.focus = Pane::Detail,
            // A popup takes keys, not clicks; the status line is not clickable.
            Region::Popup | Region::Elsewhere => {}
        }
    }

    /// A wheel notch: move the tree selection or the document cursor by one, scroll text by [`WHEEL_LINES`]. The
    /// focus stays where it was.
    fn scroll(&mut self, region: Region, down: bool) -> Vec<Effect> {
        let step = if down { Command::Down } else { Command::Up };
        match region {
            Region::TreeRow(_) | Region::Tree => self.move_in_tree(step),
            Region::Tab(_) | Region::DocumentRow(_) | Region::Detail => {
                let times = if self.tab == DetailTab::Documents {
                    1
                } else {
                    WHEEL_LINES
                };
                for _ in 0..times {
                    self.move_in_detail(step);
                }
            }
            Region::Popup => {
                if let Some(popup) = self.popup.take() {
                    if popup.context() != Context::Reader {
                        self.popup = Some(popup);
                        return Vec::new();
                    }
                    let mut popup = Some(popup);
                    for _ in 0..WHEEL_LINES {
                        if let Some(open) = popup.take() {
                            popup_command(self, open, step);
                            popup = self.popup.take();
                        }
                    }
                    self.popup = popup;
                }
            }
            Region::Elsewhere => {}
        }
        Vec::new()
    }
}

/// Apply `action` to the model; returns the work to run elsewhere.
pub(crate) fn update(model: &mut Model, action: Action) -> Vec<Effect> {
    let mut effects = apply(model, action);
    // Whatever showed the Documents tab (a key, a click, a search hit) or set a filter, the ranking it lists.
    model.rank_documents();
    // Whatever changed the selection, the tree or the tab, the Preview tab asks for its preview here.
    effects.extend(model.request_preview());
    // Whatever selected a large node or showed its documents, the passes the detail pane waits for.
    effects.extend(model.request_detail());
    // The one place messages are logged: whatever set the status line, the new message goes in the log.
    model.record_status();
    effects
}

fn apply(model: &mut Model, action: Action) -> Vec<Effect> {
    match action {
        Action::Click(region) => {
            model.click(region);
            Vec::new()
        }
        Action::Scroll { region, down } => model.scroll(region, down),
        Action::Previewed(done) => {
            model.previewed(done);
            Vec::new()
        }
        Action::Indexed(index) => {
            model.indexed(index.0);
            Vec::new()
        }
        Action::CacheWritten(written) => {
            model.status = match written {
                Ok(file) => format!("cache entry written for the next open: {}", file.display()),
                Err(warning) => format!("warning: {warning}"),
            };
            Vec::new()
        }
        Action::Detailed(done) => {
            model.detail_done(done);
            Vec::new()
        }
        Action::Finished(finished) => {
            finish(model, finished);
            Vec::new()
        }
        Action::Replayed(done) => {
            model.replayed(*done);
            Vec::new()
        }
        Action::Saved { revision, result } => {
            match result {
                Ok(path) => {
                    model.history.saved_revision = revision;
                    model.status = format!("session saved to {}", path.display());
                }
                Err(error) => model.status = error,
            }
            Vec::new()
        }
        Action::Exported(result) => {
            model.status = match result {
                Ok(paths) => exported_text(&paths),
                Err(error) => error,
            };
            Vec::new()
        }
        Action::RecoveryRemoved { accepted, result } => {
            match result {
                // The status line already says what was reopened.
                Ok(_) if accepted => {}
                Ok(path) => {
                    model.status = format!("recovered tree discarded: {} deleted", path.display())
                }
                Err(error) => model.status = error,
            }
            Vec::new()
        }
        Action::Type(c) if matches!(model.popup, Some(Popup::Leaves(_))) => {
            model.type_in_leaf_picker(c);
            Vec::new()
        }
        Action::Type(c) => {
            match &mut model.popup {
                Some(Popup::AutoSplit { input }) if c.is_ascii_digit() && input.len() < 6 => {
                    input.push(c);
                }
                Some(
                    Popup::Name { input, .. } | Popup::Find { input } | Popup::Filter { input },
                ) if input.chars().count() < 60 => {
                    input.push(c);
                }
                Some(Popup::Rules(picker)) => picker.type_char(c),
                _ => {}
            }
            Vec::new()
        }
        Action::Command(command) => match model.popup.take() {
            Some(popup) => popup_command(model, popup, command),
            None => main_command(model, command),
        },
    }
}

fn finish(model: &mut Model, finished: Finished) {
    if model.busy.as_ref().map(|(id, _)| *id) != Some(finished.job) {
        // Cancelled, or superseded: the result is for a tree that is no longer current.
        return;
    }
    model.busy = None;
    model.job_progress = None;
    match finished.outcome {
        Ok(outcome) => {
            model.split_ms += outcome.millis;
            model.replace_tree(outcome.tree, outcome.change);
            if let Some((node, directions)) = outcome.split_directions {
                model.keep_split_directions(node, directions);
            }
            if let Some(id) = outcome.select {
                model.collapsed.remove(&id);
                model.select(id);
            }
            model.status = outcome.message;
        }
        Err(error) => model.status = error,
    }
}

fn main_command(model: &mut Model, command: Command) -> Vec<Effect> {
    match command {
        Command::Up
        | Command::Down
        | Command::PageUp
        | Command::PageDown
        | Command::Top
        | Command::Bottom => match model.focus {
            Pane::Tree => model.move_in_tree(command),
            Pane::Detail if model.tab == DetailTab::Terms => model.move_term_cursor(command),
            Pane::Detail => model.move_in_detail(command),
        },
        Command::Collapse => model.collapse(),
        Command::Expand => {
            model.collapsed.remove(&model.selected);
        }
        Command::NextPane => {
            model.focus = match model.focus {
                Pane::Tree => Pane::Detail,
                Pane::Detail => Pane::Tree,
            }
        }
        Command::Tab(index) => {
            if let Some(&tab) = DetailTab::ALL.get(usize::from(index)) {
                // The Preview tab's key again, after a cancel: compute it this time.
                if tab == DetailTab::Preview && model.tab == tab && model.retry_preview() {
                    model.status = "computing the split preview again".into();
                }
                model.tab = tab;
            }
        }
        Command::PrevTab | Command::NextTab => {
            let n = DetailTab::ALL.len();
            let step = if command == Command::NextTab {
                1
            } else {
                n - 1
            };
            model.tab = DetailTab::ALL[(model.tab.index() + step) % n];
        }
        Command::Split => return model.split(model.selected),
        Command::SplitSuggested => match model.tree.suggest(model.policy) {
            Some(id) => {
                model.select(id);
                return model.split(id);
            }
            None => model.status = "no leaf left to split".into(),
        },
        Command::SplitWithRow => return model.split_with_row(),
        Command::UseRow => model.use_preview_row(),
        Command::Merge => model.merge_selected(),
        Command::NextSplit | Command::PrevSplit => model.step_split(command == Command::NextSplit),
        Command::CompareSplits => model.open_alternatives(),
        Command::KeepSplit => model.keep_split(),
        Command::Mark => model.toggle_mark(),
        Command::CompareNodes => model.open_comparison(),
        Command::Undo => model.step_history(true),
        Command::Redo => model.step_history(false),
        Command::CyclePolicy => {
            model.policy = model.policy.cycled(1);
            model.derived.suggestion = model.tree.suggest(model.policy);
            model.status = format!("next split: the leaf of largest {}", model.policy.name());
        }
        Command::Export => {
            model.status = format!("exporting to {}…", model.export_dir.display());
            return vec![Effect::Export(Export {
                tree: model.tree.clone(),
                dir: model.export_dir.clone(),
                settings: Box::new(pdx::report::html::Settings {
                    options: model.source.as_ref().map(|s| s.options.clone()),
                    rule: Some(model.rule.clone()),
                }),
                timings: model.export_timings(),
            })];
        }
        Command::Save => return model.save(),
        Command::Quit => {
            if model.dirty() {
                model.popup = Some(Popup::ConfirmQuit);
            } else {
                model.quit = true;
            }
        }
        Command::Cancel => {
            if model.busy.is_some() || !model.clear_search() {
                model.cancel_job();
            }
        }
        Command::NextHit | Command::PrevHit => model.step_hit(command == Command::NextHit),
        Command::Filter => model.open_filter(),
        Command::Interrupt => {
            if model.busy.is_some() {
                model.cancel_job();
            } else if model.cancel_preview() {
                model.status = format!(
                    "cancelled: the split preview of {}",
                    model.label(model.selected)
                );
            } else {
                return main_command(model, Command::Quit);
            }
        }
        Command::AutoSplit
        | Command::RulePicker
        | Command::Confusion
        | Command::OpenDocument
        | Command::Rename
        | Command::Find
        | Command::MessageLog
        | Command::Help => model.open_popup(command),
        Command::ToggleLabels => model.toggle_labels(),
        Command::MarkDocument => model.toggle_document_mark(),
        Command::MoveDocuments => model.open_leaf_picker(),
        Command::DropWord => return model.drop_word_under_cursor(),
        Command::WeightingForm => model.open_weighting_form(),
        Command::Confirm
        | Command::Yes
        | Command::No
        | Command::Increase
        | Command::Decrease
        | Command::Type
        | Command::Backspace
        | Command::Choose
        | Command::Left
        | Command::Right => {}
    }
    Vec::new()
}

impl Model {
    /// Collapse the selected node, or when it has no open children, go to its parent.
    fn collapse(&mut self) {
        let id = self.selected;
        let has_children = self.tree.node(id).is_some_and(|n| !n.is_leaf());
        if has_children && !self.collapsed.contains(&id) {
            self.collapsed.insert(id);
        } else if let Some(parent) = self.tree.node(id).and_then(|n| n.parent) {
            self.select(parent);
        }
    }

    /// Merge the selected split node back into a leaf (a leaf: its parent).
    fn merge_selected(&mut self) {
        let Some(node) = self.tree.node(self.selected) else {
            return;
        };
        let target = if node.is_leaf() {
            node.parent
        } else {
            Some(node.id)
        };
        match target {
            Some(_) if self.busy.is_some() => {
                self.status = "busy: wait for the split or cancel it (Esc)".into()
            }
            Some(id) => {
                let mut tree = self.tree.clone();
                match tree.merge(id) {
                    Ok(()) => {
                        self.selected = id;
                        let change = format!("merged {} back into a leaf", self.label(id));
                        self.replace_tree(tree, change.clone());
                        self.status = change;
                    }
                    Err(error) => self.status = error.to_string(),
                }
            }
            None => self.status = "the root is a leaf: nothing to merge".into(),
        }
    }

    /// Undo (or redo) one change of the tree.
    fn step_history(&mut self, undo: bool) {
        if self.busy.is_some() {
            self.status = "busy: wait for the split or cancel it (Esc)".into();
            return;
        }
        let snapshot = if undo {
            self.history.undo.pop()
        } else {
            self.history.redo.pop()
        };
        match snapshot {
            Some(snapshot) => {
                let change = self.restore(snapshot, undo);
                let done = if undo { "undone" } else { "redone" };
                self.status = format!("{done}: {change}");
            }
            None => self.status = format!("nothing to {}", if undo { "undo" } else { "redo" }),
        }
    }

    /// Stop the running job: kernel work stops at its next check; a linear split finishes in its own time and
    /// its result is dropped.
    fn cancel_job(&mut self) {
        if let Some((_, what)) = self.busy.take() {
            if let Some(progress) = self.job_progress.take() {
                progress.cancel();
            }
            self.status = format!("cancelled: {what}");
        }
    }
}

impl Model {
    /// The session to keep when a signal stops pdx: the tree if it is not saved (none when it is, or when the
    /// model has no source to save a session of).
    pub(crate) fn unsaved_session(&self) -> Option<Session> {
        let source = self.source.as_ref().filter(|_| self.dirty())?;
        Some(self.session(source))
    }

    /// What the start found of a tree kept by a signal: offer it (a popup), or say why it cannot be offered.
    pub(crate) fn recovery_found(&mut self, found: Result<Offer, String>) {
        match found {
            Ok(offer) => self.popup = Some(Popup::Recovery(Box::new(offer))),
            Err(error) => self.status = error,
        }
    }

    /// The answer to the recovery offer: `Yes` reopens the tree (unsaved: `q` asks, a signal keeps it again) and
    /// deletes the file, `No` deletes it, `Cancel` leaves it where it is and says where.
    pub(super) fn answer_recovery(&mut self, offer: &Offer, command: Command) -> Vec<Effect> {
        let path = offer.path.clone();
        match command {
            Command::Yes => {
                if !self.open_session(&path, Session::clone(&offer.session)) {
                    // The status line names the file and why; the file stays.
                    return Vec::new();
                }
                // Not saved anywhere the user chose: a new revision, so the tree counts as changed.
                self.history.revision = self.history.next_revision;
                self.history.next_revision += 1;
                self.status = format!(
                    "reopened the tree {} stopped: {} leaves, not saved (w saves it)",
                    offer.signal,
                    self.derived.leaves.len()
                );
                vec![Effect::RemoveRecovery {
                    path,
                    accepted: true,
                }]
            }
            Command::No => vec![Effect::RemoveRecovery {
                path,
                accepted: false,
            }],
            _ => {
                self.status = format!(
                    "recovered tree kept in {} (pdx --session FILE reopens it)",
                    path.display()
                );
                Vec::new()
            }
        }
    }
}

/// The status line after an export: the folder and the files' common name.
fn exported_text(paths: &[PathBuf]) -> String {
    let Some(first) = paths.first() else {
        return "nothing exported".into();
    };
    let dir = first
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map_or_else(|| ".".to_string(), |d| d.display().to_string());
    let stem = first
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let extensions: Vec<String> = paths
        .iter()
        .filter_map(|p| p.extension().map(|e| e.to_string_lossy().into_owned()))
        .collect();
    format!(
        "exported to {}/{stem}.{{{}}}",
        dir.trim_end_matches('/'),
        extensions.join(",")
    )
}
