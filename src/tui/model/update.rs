//! [`update`]: an action in, the model changed, the effects to run out. This file routes the main screen's
//! commands, clicks and the wheel to the parts; `popups.rs` routes a command while a popup is open, `jobs.rs`
//! starts the jobs and takes their results.

use crate::choice::Choice;
use crate::dataset::Reweigh;
use crate::steps::Step;

use super::super::effects::{Effect, TreeWork};
use super::super::keys::{Command, Context};
use super::popups::{FIELD_CHARS, Popup};
use super::search::FilterBy;
use super::{Action, DetailTab, JobKey, Model, Pane, Quitting, Region, alternatives};

/// Rows a wheel notch scrolls text by (a selection moves by one).
const WHEEL_LINES: usize = 3;

/// Apply `action` to the model; returns the work to run elsewhere.
pub fn update(model: &mut Model, action: Action) -> Vec<Effect> {
    let mut effects = model.apply(action);
    // Whatever showed the Documents tab (a key, a click, a search hit) or set a filter, the ranking it lists.
    model.detail.rank(&shown!(model));
    // Whatever changed the selection, the tree or the tab, the Preview tab asks for its preview here, and the
    // detail pane for the passes it waits for.
    effects.extend(model.request_preview());
    effects.extend(model.request_detail());
    // And the texts the screen shows that are not read yet.
    effects.extend(model.request_texts());
    // And the new documents' routes, when the tree they were routed down has changed.
    effects.extend(model.request_routing());
    // The one place messages are logged: whatever set the status line, the new message goes in the log.
    model.messages.record();
    effects
}

impl Model {
    fn apply(&mut self, action: Action) -> Vec<Effect> {
        // The analyst acted: a message held on the status line has been seen.
        if matches!(
            action,
            Action::Click(_) | Action::Scroll { .. } | Action::Type(_) | Action::Command(_)
        ) {
            self.messages.release();
        }
        match action {
            Action::Click(region) => self.click(region),
            Action::Scroll { region, down } => self.scroll(region, down),
            Action::Tick(now) => self.messages.tick(now),
            Action::Done(done) => return self.finished(done),
            Action::Opened(pending) => return self.start_background(pending),
            Action::OpenSession { path, session } => {
                self.open_session(&path, *session);
            }
            Action::Recovered(found) => self.recovery_found(found),
            Action::Resize { height, .. } => self.resized(height),
            Action::Type(c) => self.type_char(c),
            Action::Command(command) => {
                return match self.popup.take() {
                    Some(popup) => self.popup_command(popup, command),
                    None => self.main_command(command),
                };
            }
        }
        Vec::new()
    }

    /// The selection moved, or the tree or the filter changed under it: the detail pane shows it anew.
    pub(super) fn show_selection(&mut self) {
        self.detail.show_anew(&shown!(self));
    }

    pub(super) fn select(&mut self, id: usize) {
        if self.tree_pane.select(self.analysis.tree(), id) {
            self.show_selection();
        }
    }

    /// Select `id`, expanding its ancestors so that it shows.
    pub(super) fn reveal(&mut self, id: usize) {
        if self.tree_pane.reveal(self.analysis.tree(), id) {
            self.show_selection();
        }
    }

    /// The tree changed: the selection stays on the deepest node of `path` still in it (or where it is, or the
    /// root), and the panes show it anew.
    pub(super) fn tree_changed(&mut self, path: &[usize]) {
        self.tree_pane.keep_within(self.analysis.tree(), path);
        self.show_selection();
    }

    /// Replace the tree after `change` (what undo will say it undid), made by `steps`, keeping the old one for
    /// undo.
    pub(super) fn replace_tree(
        &mut self,
        tree: crate::cluster::Tree,
        change: String,
        steps: Vec<Step>,
    ) {
        self.analysis.replace_tree(tree, change, steps);
        self.tree_changed(&[]);
    }

    /// Say so and return true while a change of the tree runs: another change now would be lost when it ends.
    pub(super) fn refuse_while_busy(&mut self) -> bool {
        let busy = self.jobs.is_running(JobKey::Tree);
        if busy {
            self.messages
                .say("busy: wait for the split or cancel it (Esc)");
        }
        busy
    }

    fn type_char(&mut self, c: char) {
        match &mut self.popup {
            Some(Popup::Leaves(picker)) => picker.type_char(c, &self.analysis),
            Some(Popup::AutoSplit { input }) if c.is_ascii_digit() && input.len() < 6 => {
                input.push(c)
            }
            Some(
                Popup::Name { input, .. }
                | Popup::Find { input }
                | Popup::Filter { input }
                | Popup::AddDocuments { input },
            ) if input.chars().count() < FIELD_CHARS => input.push(c),
            Some(Popup::Rules(picker)) => picker.type_char(c),
            _ => {}
        }
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
                self.detail.set_tab(tab);
            }
            Region::DocumentRow(index) => {
                self.focus = Pane::Detail;
                self.detail.point_at(index);
            }
            Region::Detail => self.focus = Pane::Detail,
            // A popup takes keys, not clicks; the status line is not clickable.
            Region::Popup | Region::Elsewhere => {}
        }
    }

    /// A wheel notch: move the tree selection or the document cursor by one, scroll text by [`WHEEL_LINES`]. The
    /// focus stays where it was.
    fn scroll(&mut self, region: Region, down: bool) {
        let step = if down { Command::Down } else { Command::Up };
        match region {
            Region::TreeRow(_) | Region::Tree => self.move_in_tree(step),
            Region::Tab(_) | Region::DocumentRow(_) | Region::Detail => {
                let times = match self.detail.tab() {
                    DetailTab::Documents => 1,
                    _ => WHEEL_LINES,
                };
                for _ in 0..times {
                    self.move_in_detail(step);
                }
            }
            Region::Popup => {
                let context = self.popup.as_ref().map(Popup::context);
                if matches!(context, Some(Context::Reader | Context::Alternatives)) {
                    for _ in 0..WHEEL_LINES {
                        if let Some(popup) = self.popup.take() {
                            self.popup_command(popup, step);
                        }
                    }
                }
            }
            Region::Elsewhere => {}
        }
    }

    fn move_in_tree(&mut self, command: Command) {
        if self.tree_pane.move_by(self.analysis.tree(), command) {
            self.show_selection();
        }
    }

    fn move_in_detail(&mut self, command: Command) {
        match self.detail.tab() {
            DetailTab::Preview => self.move_in_preview(command),
            _ => self
                .detail
                .move_by(command, self.analysis.data().label_names.len()),
        }
    }

    /// A movement key on the Preview tab: the arrows move the table's cursor (the view scrolls to keep it in
    /// sight), the page keys scroll; without a table (a split node, a preview computing) they all scroll.
    fn move_in_preview(&mut self, command: Command) {
        let key = self.preview_key();
        let table = self.preview.has_table(key);
        match command {
            Command::PageUp | Command::PageDown => {
                self.detail.scroll_by(command, super::PREVIEW_LINES)
            }
            _ if !table => self.detail.scroll_by(command, super::PREVIEW_LINES),
            _ => self.preview.move_cursor(key, self.analysis.rule(), command),
        }
    }

    fn main_command(&mut self, command: Command) -> Vec<Effect> {
        match command {
            Command::Up
            | Command::Down
            | Command::PageUp
            | Command::PageDown
            | Command::Top
            | Command::Bottom => match self.focus {
                Pane::Tree => self.move_in_tree(command),
                Pane::Detail if self.detail.tab() == DetailTab::Terms => {
                    self.detail.move_term_cursor(command)
                }
                Pane::Detail => self.move_in_detail(command),
            },
            Command::Collapse => {
                if self.tree_pane.collapse(self.analysis.tree()) {
                    self.show_selection();
                }
            }
            Command::Expand => self.tree_pane.expand(self.tree_pane.selected()),
            Command::NextPane => {
                self.focus = match self.focus {
                    Pane::Tree => Pane::Detail,
                    Pane::Detail => Pane::Tree,
                }
            }
            Command::Tab(tab) => {
                // The Preview tab's key again, after a cancel: compute it this time.
                if tab == DetailTab::Preview
                    && self.detail.tab() == tab
                    && self.preview.retry(self.preview_key())
                {
                    self.messages.say("computing the split preview again");
                }
                self.detail.set_tab(tab);
            }
            Command::PrevTab | Command::NextTab => {
                self.detail.cycle_tab(command == Command::NextTab)
            }
            Command::Split => return self.split(self.tree_pane.selected()),
            Command::SplitSuggested => match self.analysis.derived().suggestion {
                Some(id) => {
                    self.select(id);
                    return self.split(id);
                }
                None => self.messages.say("no leaf left to split"),
            },
            Command::SplitWithRow => {
                let key = self.preview_key();
                let rule = self
                    .preview
                    .row(key, self.analysis.rule())
                    .map_or_else(|| self.analysis.rule().clone(), |row| row.rule.clone());
                return self.split_with(self.tree_pane.selected(), rule);
            }
            Command::UseRow => self.use_preview_row(),
            Command::Merge => self.merge_selected(),
            Command::NextSplit | Command::PrevSplit => {
                self.step_split(command == Command::NextSplit)
            }
            Command::CompareSplits => self.open_alternatives(),
            Command::KeepSplit => self.keep_split(),
            Command::Mark => {
                let id = self.tree_pane.selected();
                let label = self.analysis.label(id);
                match self.tree_pane.toggle_mark(self.analysis.tree()) {
                    true => self.messages.say(format!(
                        "{label} marked: select another node and press v to compare"
                    )),
                    false => self.messages.say(format!("{label} unmarked")),
                }
            }
            Command::CompareNodes => self.open_comparison(),
            Command::Undo => self.step_history(true),
            Command::Redo => self.step_history(false),
            Command::CyclePolicy => {
                self.analysis.cycle_policy();
                let policy = self.analysis.policy();
                self.messages
                    .say(format!("next split: the leaf of largest {}", policy.name()));
            }
            Command::Export => return self.export(),
            Command::Save => return self.save(),
            Command::Quit => {
                if self.analysis.dirty() {
                    self.popup = Some(Popup::ConfirmQuit);
                } else {
                    self.quit = Quitting::Now;
                }
            }
            Command::Cancel => {
                if self.jobs.is_running(JobKey::Tree) || !self.clear_search() {
                    self.cancel_tree_job();
                }
            }
            Command::NextHit | Command::PrevHit => self.step_hit(command == Command::NextHit),
            Command::Filter => self.open_filter(),
            Command::Interrupt => {
                if self.jobs.is_running(JobKey::Tree) {
                    self.cancel_tree_job();
                } else if self.cancel_preview() {
                    let label = self.analysis.label(self.tree_pane.selected());
                    self.messages
                        .say(format!("cancelled: the split preview of {label}"));
                } else {
                    return self.main_command(Command::Quit);
                }
            }
            Command::AutoSplit
            | Command::RulePicker
            | Command::Confusion
            | Command::OpenDocument
            | Command::Rename
            | Command::Find
            | Command::MessageLog
            | Command::Help => self.open_popup(command),
            Command::ToggleLabels => self.toggle_labels(),
            Command::MarkDocument => self.toggle_document_mark(),
            Command::MoveDocuments => self.open_leaf_picker(),
            Command::MarkAll => self.mark_all_listed(),
            Command::MergeInto => self.open_merge_picker(),
            Command::AddDocuments => {
                self.popup = Some(Popup::AddDocuments {
                    input: String::new(),
                })
            }
            Command::NewDocuments => self.open_new_documents(),
            Command::DropWord => return self.drop_word_under_cursor(),
            Command::WeightingForm => match self.analysis.data().reweighing() {
                Some(current) => {
                    self.popup = Some(Popup::Weighting(super::WeightingForm::new(current)))
                }
                None => self
                    .messages
                    .say("this dataset keeps no term counts (numeric data): nothing to reweigh"),
            },
            Command::Confirm
            | Command::Yes
            | Command::No
            | Command::Increase
            | Command::Decrease
            | Command::Type
            | Command::Backspace
            | Command::Choose
            | Command::Left
            | Command::Right
            | Command::OtherSplit => {}
        }
        Vec::new()
    }

    /// Enter on the Preview tab: the rule under the cursor becomes the current rule, with its parameters; the tree
    /// stays as it is.
    fn use_preview_row(&mut self) {
        let key = self.preview_key();
        let Some(rule) = self
            .preview
            .row(key, self.analysis.rule())
            .map(|row| row.rule.clone())
        else {
            self.messages
                .say("no rule under the cursor: the Preview shows a leaf's table");
            return;
        };
        match rule.params().check() {
            Ok(params) => {
                let compared = self.analysis.preview_rules();
                self.analysis.set_rule(rule, params);
                // The previews kept stay good when they compare the same rules (the current one among them).
                if self.analysis.preview_rules() != compared {
                    self.outdate_previews();
                }
                let text = self.analysis.rule().text();
                self.messages
                    .say(format!("rule: {text} (s splits with it)"));
            }
            Err(error) => self.messages.say(error.to_string()),
        }
    }

    /// Forget the previews kept and stop the one computing: the rule or its parameters changed, so they compare
    /// other rules.
    pub(super) fn outdate_previews(&mut self) {
        self.preview.outdate();
        let running: Vec<JobKey> = self
            .jobs
            .keys()
            .filter(|key| matches!(key, JobKey::Preview(..)))
            .collect();
        for key in running {
            self.jobs.cancel(key);
        }
    }

    /// Merge the selected split node back into a leaf (a leaf: its parent).
    fn merge_selected(&mut self) {
        let Some(node) = self.analysis.tree().node(self.tree_pane.selected()) else {
            return;
        };
        let target = if node.is_leaf() {
            node.parent
        } else {
            Some(node.id)
        };
        let Some(id) = target else {
            self.messages.say("the root is a leaf: nothing to merge");
            return;
        };
        if self.refuse_while_busy() {
            return;
        }
        let mut tree = self.analysis.tree().clone();
        match tree.merge(id) {
            Ok(()) => {
                let change = format!("merged {} back into a leaf", self.analysis.label(id));
                self.analysis
                    .replace_tree(tree, change.clone(), vec![Step::Merge { node: id }]);
                self.tree_changed(&[id]);
                self.messages.say(change);
            }
            Err(error) => self.messages.say(error.to_string()),
        }
    }

    /// Undo (or redo) one change of the tree.
    fn step_history(&mut self, undo: bool) {
        if self.refuse_while_busy() {
            return;
        }
        let path = self.analysis.tree().path_to(self.tree_pane.selected());
        match self.analysis.step_history(undo) {
            Some(change) => {
                // Keep the deepest node of the old selection's path that still exists.
                self.tree_changed(&path);
                let done = if undo { "undone" } else { "redone" };
                self.messages.say(format!("{done}: {change}"));
            }
            None => self
                .messages
                .say(format!("nothing to {}", if undo { "undo" } else { "redo" })),
        }
    }

    /// Make the selected node's next (or previous) split the active one; undoable.
    pub(super) fn step_split(&mut self, forward: bool) {
        let id = self.tree_pane.selected();
        let count = self.analysis.tree().split_count(id);
        if count < 2 {
            let label = self.analysis.label(id);
            self.messages.say(format!(
                "{label} has no alternative splits (s on a split node makes one)"
            ));
            return;
        }
        if self.refuse_while_busy() {
            return;
        }
        let active = self.analysis.tree().active_split(id);
        let target = match forward {
            true => (active + 1) % count,
            false => (active + count - 1) % count,
        };
        let mut tree = self.analysis.tree().clone();
        if let Err(error) = tree.switch_split(&self.analysis.data().matrix, id, target) {
            self.messages.say(error.to_string());
            return;
        }
        let label = self.analysis.label(id);
        let step = Step::Switch {
            node: id,
            split: target,
        };
        self.replace_tree(
            tree,
            format!("switched {label} to split {}", target + 1),
            vec![step],
        );
        let rule = self
            .analysis
            .tree()
            .node(id)
            .and_then(|n| n.split.as_ref())
            .map_or(String::new(), |s| s.rule.text());
        self.messages.say(format!(
            "{label}: split {} of {count} active ({rule})",
            target + 1
        ));
    }

    /// Keep the selected node's active split and drop the others; undoable.
    pub(super) fn keep_split(&mut self) {
        let id = self.tree_pane.selected();
        let label = self.analysis.label(id);
        if self.analysis.tree().split_count(id) < 2 {
            self.messages
                .say(format!("{label} has no alternative splits to drop"));
            return;
        }
        if self.refuse_while_busy() {
            return;
        }
        let mut tree = self.analysis.tree().clone();
        match tree.keep_active_split(id) {
            Ok(dropped) => {
                let change = format!("kept {label}'s active split");
                self.replace_tree(tree, change, vec![Step::Keep { node: id }]);
                self.messages.say(format!(
                    "{label}: kept the active split, dropped {dropped} alternative{} (u undoes)",
                    if dropped == 1 { "" } else { "s" }
                ));
            }
            Err(error) => self.messages.say(error.to_string()),
        }
    }

    /// Open the comparison of the marked node (A) with the selected one (B).
    fn open_comparison(&mut self) {
        let Some(a) = self.tree_pane.mark(self.analysis.tree()) else {
            self.messages
                .say("mark a node first (Space), then select another and press v");
            return;
        };
        let b = self.tree_pane.selected();
        match alternatives::comparison(&self.analysis, a, b, self.labels_shown()) {
            Ok(view) => {
                self.popup = Some(Popup::Compare {
                    view: std::sync::Arc::new(view),
                    scroll: 0,
                })
            }
            Err(error) => self.messages.say(error),
        }
    }

    /// Hide the labels, or show them again.
    fn toggle_labels(&mut self) {
        let blind = self.settings.toggle_blind();
        self.messages
            .say(match (blind, self.analysis.has_labels()) {
                (true, true) => {
                    "labels hidden, and every figure measured against them (b shows them)"
                }
                (true, false) => "labels hidden (the corpus has none)",
                (false, true) => "labels shown",
                (false, false) => "labels shown, but the corpus has none",
            });
    }

    /// `d`: add the word under the Terms tab's cursor to the stop words, rebuild the matrix and replay the tree.
    fn drop_word_under_cursor(&mut self) -> Vec<Effect> {
        if self.detail.tab() != DetailTab::Terms {
            self.messages
                .say("d drops a word from the Terms tab (1): move its cursor with ↑↓");
            return Vec::new();
        }
        let Some(word) = self.detail.term_under_cursor() else {
            self.messages.say("no term listed to drop");
            return Vec::new();
        };
        let Some(current) = self.analysis.data().reweighing().cloned() else {
            self.messages
                .say("this dataset keeps no term counts: stop words need a reload");
            return Vec::new();
        };
        let mut settings = current;
        settings.extra_stop_words.push(word.clone());
        let change = format!("dropped the word \"{word}\"");
        self.start_replay(settings, change, Step::StopWord { word })
    }

    /// Start the rebuild and replay of `settings` (`step` in the script), unless a change of the tree runs
    /// already.
    pub(super) fn start_replay(
        &mut self,
        settings: Reweigh,
        change: String,
        step: Step,
    ) -> Vec<Effect> {
        let what = format!("{change}: rebuilding the matrix and replaying the tree");
        let work = TreeWork::Replay {
            data: std::sync::Arc::clone(self.analysis.data()),
            settings,
            change,
            step,
        };
        self.start_tree_job(work, what)
    }

    /// Esc on the main screen with no job running: clear the filter (on the Documents tab) or the search.
    /// Returns whether it cleared something.
    fn clear_search(&mut self) -> bool {
        let on_documents = self.detail.tab() == DetailTab::Documents && self.focus == Pane::Detail;
        let Some((message, filter_changed)) = self.search.clear(on_documents) else {
            return false;
        };
        if filter_changed {
            self.show_selection();
        }
        self.messages.say(message);
        true
    }

    /// Open the filter prompt, on the Documents tab.
    fn open_filter(&mut self) {
        self.focus = Pane::Detail;
        self.detail.set_tab(DetailTab::Documents);
        let input = self
            .search
            .filter()
            .and_then(|f| match &f.by {
                FilterBy::Words(query) => Some(query.to_string()),
                FilterBy::Label(_) | FilterBy::Disputed { .. } => None,
            })
            .unwrap_or_default();
        self.popup = Some(Popup::Filter { input });
    }

    /// n (or N): the next (or previous) hit, wrapping around, selected in its leaf.
    fn step_hit(&mut self, forward: bool) {
        match self.search.step(forward) {
            Some(hit) => self.select_hit(hit),
            None => self
                .messages
                .say("no search: / searches the documents' texts"),
        }
    }

    /// Select hit `index`'s document in its leaf: the leaf in the tree, the Documents tab, the cursor on it.
    pub(super) fn select_hit(&mut self, index: usize) {
        let Some((document, total)) = self.search.hit(index) else {
            return;
        };
        let id = &self.analysis.data().documents[document].id;
        let Some(leaf) = self.analysis.leaf_of(document) else {
            self.messages.say(format!("{id} is in no leaf"));
            return;
        };
        let id = id.clone();
        self.reveal(leaf);
        let mut note = String::new();
        if self.search.filter_hides(document) {
            self.search.drop_filter();
            self.show_selection();
            note = " (filter cleared: it hid the document)".into();
        }
        self.focus = Pane::Detail;
        self.detail.set_tab(DetailTab::Documents);
        self.detail.rank(&shown!(self));
        self.detail.point_at_document(document);
        let label = self.analysis.label(leaf);
        self.messages.say(format!(
            "hit {} of {total}: {id} in {label}{note}",
            index + 1
        ));
    }
}

/// The status line after an export: the folder and the files' common name.
pub(super) fn exported_text(paths: &[std::path::PathBuf]) -> String {
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
