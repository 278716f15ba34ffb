//! Popups: what each one holds, which keys it takes, and what a command does while one is open (the rule
//! picker's included).

use std::sync::Arc;

use crate::report::preview;
use crate::steps::Step;

use super::super::effects::{Effect, TreeWork};
use super::super::help::{HELP_WIDTH, help_rows_for};
use super::super::keys::{Command, Context};
use super::super::recovery::Offer;
use super::moves::{LeafPicker, PickerOutcome, Picking};
use super::picker::{PickerAnswer, RulePicker};
use super::replay::FormOutcome;
use super::{AlternativesView, ComparisonView, Model, Quitting, scrolled};

/// The most characters a text field takes (a name, a search, a filter, the leaf picker's query): more than any
/// phrase or name a person types; the prompt says when it is full.
pub(crate) const FIELD_CHARS: usize = 1_000;

/// An open popup and what it holds.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Popup {
    Help {
        scroll: usize,
    },
    Rules(RulePicker),
    /// Asks K for auto-split.
    AutoSplit {
        input: String,
    },
    ConfirmQuit,
    /// The confusion view, its cursor on the cell of row `row` and column `column` of the grid
    /// ([`super::ConfusionGrid`]); the view scrolls to show it.
    Confusion {
        row: usize,
        column: usize,
    },
    /// The message log, newest first, scrolled down `scroll` messages.
    Log {
        scroll: usize,
    },
    /// A document's text, scrolled down `scroll` lines; `placed` once it was put on its first highlighted line
    /// (or scrolled by hand): a viewer opened before its text was read is put there when the text arrives.
    Viewer {
        document: usize,
        scroll: usize,
        placed: bool,
    },
    /// Asks a name for `node`.
    Name {
        node: usize,
        input: String,
    },
    /// Asks a word or phrase to search the documents' texts for.
    Find {
        input: String,
    },
    /// The active search's hits (the model holds them and the cursor).
    Hits,
    /// Asks a word or phrase to filter the Documents tab by.
    Filter {
        input: String,
    },
    /// Offers to reopen the tree kept when a signal stopped pdx.
    Recovery(Box<Offer>),
    /// The weighting and filters form (`W`).
    Weighting(super::WeightingForm),
    /// What a rebuild and replay changed.
    Replayed {
        summary: Arc<super::ReplaySummary>,
        scroll: usize,
    },
    /// A node's splits side by side, their columns scrolled down `scroll` lines, the cursor on disputed
    /// document `cursor` (of the view's list).
    Alternatives {
        view: Arc<AlternativesView>,
        scroll: usize,
        cursor: usize,
    },
    /// The marked node and the selected one side by side.
    Compare {
        view: Arc<ComparisonView>,
        scroll: usize,
    },
    /// Where documents moved by hand go.
    Leaves(LeafPicker),
    /// Asks a file or folder of new documents to route down the tree (`+`).
    AddDocuments {
        input: String,
    },
    /// The new documents, the cursor on row `cursor`.
    NewDocuments {
        cursor: usize,
    },
}

impl Popup {
    pub(crate) fn context(&self) -> Context {
        match self {
            Popup::Help { .. }
            | Popup::Log { .. }
            | Popup::Viewer { .. }
            | Popup::Compare { .. }
            | Popup::Replayed { .. } => Context::Reader,
            Popup::Alternatives { .. } => Context::Alternatives,
            Popup::Confusion { .. } => Context::Confusion,
            Popup::Weighting(_) => Context::WeightingForm,
            Popup::Rules(_) => Context::RulePicker,
            Popup::AutoSplit { .. } => Context::Prompt,
            Popup::Name { .. }
            | Popup::Find { .. }
            | Popup::Filter { .. }
            | Popup::AddDocuments { .. } => Context::TextPrompt,
            Popup::NewDocuments { .. } => Context::NewDocuments,
            Popup::Hits => Context::Hits,
            Popup::ConfirmQuit => Context::Confirm,
            Popup::Recovery(_) => Context::Recovery,
            Popup::Leaves(_) => Context::LeafPicker,
        }
    }
}

impl Model {
    /// Open the popup a main-screen command asks for.
    pub(super) fn open_popup(&mut self, command: Command) {
        self.popup = match command {
            Command::AutoSplit => Some(Popup::AutoSplit {
                input: self
                    .settings
                    .auto_leaves()
                    .map_or_else(String::new, |leaves| leaves.to_string()),
            }),
            Command::RulePicker => Some(Popup::Rules(RulePicker::new(
                self.analysis.rule(),
                self.analysis.params(),
            ))),
            Command::Confusion if self.labels_shown() => {
                Some(Popup::Confusion { row: 0, column: 0 })
            }
            Command::Confusion if self.settings.blind() => {
                self.messages
                    .say("labels are hidden (b shows them): no confusion view");
                None
            }
            Command::Confusion => {
                self.messages
                    .say("the corpus has no labels: no confusion view");
                None
            }
            Command::OpenDocument => self.detail.document_under_cursor().map(|document| {
                let line = self.first_marked_line(document);
                Popup::Viewer {
                    document,
                    scroll: line.unwrap_or(0),
                    placed: line.is_some(),
                }
            }),
            Command::Rename => {
                let node = self.tree_pane.selected();
                let input = self
                    .analysis
                    .tree()
                    .node(node)
                    .and_then(|n| n.name.clone())
                    .unwrap_or_default();
                Some(Popup::Name { node, input })
            }
            Command::Find => Some(Popup::Find {
                input: String::new(),
            }),
            Command::Help => Some(Popup::Help { scroll: 0 }),
            Command::MessageLog => Some(Popup::Log { scroll: 0 }),
            other => panic!("{other:?} opens no popup"),
        };
    }

    /// Lines a scrollable popup holds, to bound its scrolling.
    fn popup_lines(&self, popup: &Popup) -> usize {
        match popup {
            Popup::Help { .. } => {
                help_rows_for(self.settings.keys(), usize::from(HELP_WIDTH - 2)).len()
            }
            Popup::Confusion { .. } => self.confusion_grid().rows.len(),
            Popup::Log { .. } => self.messages.log().len(),
            Popup::Viewer { document, .. } => self.viewer_lines(*document),
            Popup::Compare { view, .. } => {
                let c = &view.comparison;
                view.label_rows.len() + c.only_a.len().max(c.shared.len()).max(c.only_b.len()) + 6
            }
            Popup::Replayed { summary, .. } => summary.headline.len() + summary.leaves.len() + 2,
            _ => 0,
        }
    }

    /// A command while `popup` is open (it has been taken out of the model; it is put back to stay open).
    pub(super) fn popup_command(&mut self, mut popup: Popup, command: Command) -> Vec<Effect> {
        let lines = self.popup_lines(&popup);
        let mut effects = Vec::new();
        let keep = match (&mut popup, command) {
            (Popup::Recovery(offer), Command::Yes | Command::No | Command::Cancel) => {
                effects = self.answer_recovery(offer, command);
                false
            }
            (_, Command::Cancel) => false,
            (
                Popup::Alternatives {
                    view,
                    scroll,
                    cursor,
                },
                _,
            ) => {
                // The view may be rebuilt (another split compared, another made active) or closed.
                self.popup = self.alternatives_command(Arc::clone(view), *scroll, *cursor, command);
                false
            }
            (Popup::ConfirmQuit, Command::Yes) => {
                self.quit = Quitting::Now;
                false
            }
            (Popup::ConfirmQuit, Command::Save) => {
                effects = self.save();
                if effects.is_empty() {
                    // Nothing to save into: the status line says why, and the question stays.
                    true
                } else {
                    self.quit = Quitting::WhenSaved;
                    self.messages
                        .say("saving the session; pdx quits once it is saved…");
                    false
                }
            }
            (Popup::ConfirmQuit, Command::No) => false,
            (Popup::Confusion { row, column }, Command::Confirm) => {
                self.list_confusion_cell(*row, *column);
                false
            }
            (Popup::Confusion { column, .. }, Command::Left | Command::Right) => {
                let last = self.confusion_grid().columns.len().saturating_sub(1);
                *column = if command == Command::Left {
                    column.saturating_sub(1)
                } else {
                    (*column + 1).min(last)
                };
                true
            }
            (Popup::Viewer { scroll, placed, .. }, _) => {
                *scroll = scrolled(*scroll, command, lines.saturating_sub(1));
                *placed = true;
                true
            }
            (
                Popup::Help { scroll }
                | Popup::Confusion { row: scroll, .. }
                | Popup::Log { scroll }
                | Popup::Compare { scroll, .. }
                | Popup::Replayed { scroll, .. },
                _,
            ) => {
                *scroll = scrolled(*scroll, command, lines.saturating_sub(1));
                true
            }
            (
                Popup::AutoSplit { input }
                | Popup::Name { input, .. }
                | Popup::Find { input }
                | Popup::Filter { input }
                | Popup::AddDocuments { input },
                Command::Backspace,
            ) => {
                input.pop();
                true
            }
            (Popup::Name { node, input }, Command::Confirm) => {
                self.rename(*node, input);
                false
            }
            (Popup::Find { input }, Command::Confirm) => {
                effects = self.start_search(input, false);
                false
            }
            (Popup::Filter { input }, Command::Confirm) => {
                effects = self.apply_filter(input);
                false
            }
            (Popup::AddDocuments { input }, Command::Confirm) => {
                self.add_new_documents(input);
                false
            }
            (Popup::NewDocuments { cursor }, Command::Confirm) => {
                self.go_to_new_document(*cursor);
                false
            }
            (Popup::NewDocuments { cursor }, command) => {
                let last = self.incoming.row_count().saturating_sub(1);
                *cursor = scrolled(*cursor, command, last);
                true
            }
            (Popup::Hits, Command::Confirm) => {
                if let Some(current) = self.search.search().map(|s| s.current) {
                    self.select_hit(current);
                }
                false
            }
            (Popup::Hits, command) => {
                self.search.move_cursor(command);
                self.search.search().is_some()
            }
            (Popup::AutoSplit { input }, Command::Confirm) => match input.parse::<usize>() {
                // Growing never merges: a K the tree has reached already would do nothing, so say so.
                Ok(k) if k >= 1 && k <= self.analysis.derived().leaves.len() => {
                    let leaves = self.analysis.derived().leaves.len();
                    self.messages.say(format!(
                        "the tree has {leaves} leaves already: growing to {k} splits nothing (type more than \
                         {leaves}; m merges)"
                    ));
                    true
                }
                Ok(k) if k >= 1 => {
                    let rule = self.analysis.rule().clone();
                    let what = format!("growing to {k} leaves with {}", rule.text());
                    let policy = self.analysis.policy();
                    effects = self.start_tree_job(TreeWork::Grow { k, rule, policy }, what);
                    false
                }
                _ => {
                    self.messages.say("type a number of leaves, at least 1");
                    true
                }
            },
            (Popup::Rules(picker), command) => self.rule_picker_command(picker, command),
            (Popup::Leaves(picker), command) => match picker.command(command, &self.analysis) {
                PickerOutcome::Stay => true,
                PickerOutcome::MoveTo(to) => {
                    match picker.picking().clone() {
                        Picking::Documents(columns) => self.move_documents(&columns, to),
                        Picking::MergeOf(from) => self.merge_into(from, to),
                    }
                    false
                }
            },
            (Popup::Weighting(form), command) => match form.command(command) {
                FormOutcome::Stay => true,
                FormOutcome::Unchanged => {
                    self.messages.say("weighting and filters unchanged");
                    false
                }
                FormOutcome::Apply(settings, change, step) => {
                    effects = self.start_replay(settings, change, *step);
                    false
                }
            },
            _ => true,
        };
        if keep {
            self.popup = Some(popup);
        }
        effects
    }

    /// A command in the rule picker; returns whether it stays open.
    fn rule_picker_command(&mut self, picker: &mut RulePicker, command: Command) -> bool {
        let PickerAnswer::Use(chosen) = picker.command(command) else {
            return true;
        };
        let (rule, checked) = *chosen;
        // Previews compare the current rule and the registry's previewed rules: when either changes, the kept ones
        // compare something else.
        let outdated = rule != *self.analysis.rule()
            || preview::compared_rules(&checked) != preview::compared_rules(self.analysis.params());
        self.analysis.set_rule(rule, checked);
        if outdated {
            self.outdate_previews();
        }
        let text = self.analysis.rule().text();
        self.messages.say(format!("rule: {text}"));
        false
    }

    /// Name `node` (an empty name clears it): a tree change, undoable.
    fn rename(&mut self, node: usize, input: &str) {
        if self.refuse_while_busy() {
            return;
        }
        let name = Some(input.trim())
            .filter(|n| !n.is_empty())
            .map(str::to_string);
        let Some(current) = self.analysis.tree().node(node) else {
            return;
        };
        if current.name == name {
            self.messages.say("name unchanged");
            return;
        }
        let mut tree = self.analysis.tree().clone();
        if let Err(error) = tree.set_name(node, name.clone()) {
            self.messages.say(error.to_string());
            return;
        }
        let change = match &name {
            Some(name) => format!("named #{node} \"{name}\""),
            None => format!("cleared the name of #{node}"),
        };
        self.replace_tree(tree, change.clone(), vec![Step::Name { node, name }]);
        self.messages.say(change);
    }

    /// The filter typed after `f`: an empty one clears it, another is searched for by a job.
    fn apply_filter(&mut self, input: &str) -> Vec<Effect> {
        if !input.trim().is_empty() {
            return self.start_search(input, true);
        }
        self.search.drop_filter();
        self.show_selection();
        self.messages.say("filter cleared");
        Vec::new()
    }
}
