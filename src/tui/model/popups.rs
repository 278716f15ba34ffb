//! Popups: what each one holds, which keys it takes, and what a key does while it is open (the rule picker's
//! keys included).

use super::super::help::{HELP_WIDTH, help_rows_for};
use super::super::keys::{Command, Context};
use super::super::recovery::Offer;
use super::jobs::{Effect, Work};
use super::moves::{LeafPicker, leaf_picker_command};
use super::picker::{RulePicker, field_message, row_of, rule_at, rule_count};
use super::update::scrolled;
use super::{AlternativesView, ComparisonView, DetailTab, Model};
use pdx::cluster::{ClusterError, Params, RuleSpec};
use pdx::report::preview;
use std::sync::Arc;

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
    /// The confusion view, scrolled down `scroll` rows and right `column` columns.
    Confusion {
        scroll: usize,
        column: usize,
    },
    /// The message log, newest first, scrolled down `scroll` messages.
    Log {
        scroll: usize,
    },
    Viewer {
        document: usize,
        scroll: usize,
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
    /// A node's splits side by side.
    Alternatives {
        view: Arc<AlternativesView>,
        scroll: usize,
    },
    /// The marked node and the selected one side by side.
    Compare {
        view: Arc<ComparisonView>,
        scroll: usize,
    },
    /// Where documents moved by hand go.
    Leaves(LeafPicker),
}

impl Popup {
    pub(crate) fn context(&self) -> Context {
        match self {
            Popup::Help { .. }
            | Popup::Confusion { .. }
            | Popup::Log { .. }
            | Popup::Viewer { .. }
            | Popup::Alternatives { .. }
            | Popup::Compare { .. }
            | Popup::Replayed { .. } => Context::Reader,
            Popup::Weighting(_) => Context::WeightingForm,
            Popup::Rules(_) => Context::RulePicker,
            Popup::AutoSplit { .. } => Context::Prompt,
            Popup::Name { .. } | Popup::Find { .. } | Popup::Filter { .. } => Context::TextPrompt,
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
                input: String::new(),
            }),
            Command::RulePicker => {
                let row = row_of(self.rule.name())
                    .unwrap_or_else(|| panic!("{} is a rule of the registry", self.rule.name()));
                Some(Popup::Rules(RulePicker {
                    cursor: row,
                    rule_index: row,
                    params: Params::clone(&self.params),
                    typed: None,
                    error: None,
                }))
            }
            Command::Confusion if self.labels_shown() => Some(Popup::Confusion {
                scroll: 0,
                column: 0,
            }),
            Command::Confusion if self.blind() => {
                self.status = "labels are hidden (b shows them): no confusion view".into();
                None
            }
            Command::Confusion => {
                self.status = "the corpus has no labels: no confusion view".into();
                None
            }
            Command::OpenDocument => self
                .detail
                .documents
                .get(self.document_cursor)
                .filter(|_| self.tab == DetailTab::Documents)
                .map(|&document| Popup::Viewer {
                    document,
                    scroll: self.first_marked_line(document),
                }),
            Command::Rename => Some(Popup::Name {
                node: self.selected,
                input: self
                    .tree
                    .node(self.selected)
                    .and_then(|n| n.name.clone())
                    .unwrap_or_default(),
            }),
            Command::Find => Some(Popup::Find {
                input: String::new(),
            }),
            Command::Help => Some(Popup::Help { scroll: 0 }),
            Command::MessageLog => Some(Popup::Log { scroll: 0 }),
            other => panic!("{other:?} opens no popup"),
        };
    }

    /// Lines a scrollable popup holds, to bound its scrolling.
    pub(super) fn popup_lines(&self, popup: &Popup) -> usize {
        match popup {
            Popup::Help { .. } => help_rows_for(&self.keys, usize::from(HELP_WIDTH - 2)).len(),
            Popup::Confusion { .. } => self.confusion_grid().rows.len(),
            Popup::Log { .. } => self.log().len(),
            Popup::Viewer { document, .. } => self
                .document_text(*document)
                .map_or(0, |text| text.lines().count() + 4),
            Popup::Alternatives { view, .. } => view
                .splits
                .iter()
                .map(|s| s.sides.iter().map(|side| side.len() + 1).sum::<usize>() + 6)
                .max()
                .unwrap_or(0),
            Popup::Compare { view, .. } => {
                let c = &view.comparison;
                view.label_rows.len() + c.only_a.len().max(c.shared.len()).max(c.only_b.len()) + 6
            }
            Popup::Replayed { summary, .. } => summary.headline.len() + summary.leaves.len() + 2,
            _ => 0,
        }
    }
}

/// A command while `popup` is open (it has been taken out of the model; put it back to keep it open).
pub(super) fn popup_command(model: &mut Model, mut popup: Popup, command: Command) -> Vec<Effect> {
    let lines = model.popup_lines(&popup);
    let mut effects = Vec::new();
    let keep = match (&mut popup, command) {
        (Popup::Recovery(offer), Command::Yes | Command::No | Command::Cancel) => {
            effects = model.answer_recovery(offer, command);
            false
        }
        (_, Command::Cancel) => false,
        (Popup::ConfirmQuit, Command::Yes) => {
            model.quit = true;
            false
        }
        (Popup::ConfirmQuit, Command::No) => false,
        (Popup::Confusion { column, .. }, Command::Left | Command::Right) => {
            let last = model.confusion_grid().columns.len().saturating_sub(1);
            *column = if command == Command::Left {
                column.saturating_sub(1)
            } else {
                (*column + 1).min(last)
            };
            true
        }
        (
            Popup::Help { scroll }
            | Popup::Confusion { scroll, .. }
            | Popup::Log { scroll }
            | Popup::Viewer { scroll, .. }
            | Popup::Alternatives { scroll, .. }
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
            | Popup::Filter { input },
            Command::Backspace,
        ) => {
            input.pop();
            true
        }
        (Popup::Name { node, input }, Command::Confirm) => {
            model.rename(*node, input);
            false
        }
        (Popup::Find { input }, Command::Confirm) => {
            model.run_search(input);
            false
        }
        (Popup::Filter { input }, Command::Confirm) => {
            model.apply_filter(input);
            false
        }
        (Popup::Hits, command) => model.hits_command(command),
        (Popup::AutoSplit { input }, Command::Confirm) => match input.parse::<usize>() {
            // Growing never merges: a K the tree has reached already would do nothing, so say so.
            Ok(k) if k >= 1 && k <= model.derived.leaves.len() => {
                let leaves = model.derived.leaves.len();
                model.status = format!(
                    "the tree has {leaves} leaves already: growing to {k} splits nothing (type more than \
                     {leaves}; m merges)"
                );
                true
            }
            Ok(k) if k >= 1 => {
                let what = format!("growing to {k} leaves with {}", model.rule_text());
                effects = model.start(
                    Work::Grow {
                        k,
                        rule: model.rule.clone(),
                        policy: model.policy,
                    },
                    what,
                );
                false
            }
            _ => {
                model.status = "type a number of leaves, at least 1".into();
                true
            }
        },
        (Popup::Rules(picker), command) => rule_picker_command(model, picker, command),
        (Popup::Leaves(picker), command) => leaf_picker_command(model, picker, command),
        (Popup::Weighting(form), command) => {
            let (keep, started) = model.weighting_form_command(form, command);
            effects = started;
            keep
        }
        _ => true,
    };
    if keep {
        model.popup = Some(popup);
    }
    effects
}

/// Returns whether the picker stays open.
fn rule_picker_command(model: &mut Model, picker: &mut RulePicker, command: Command) -> bool {
    let rows = RulePicker::rows();
    match command {
        Command::Up | Command::Down => {
            picker.typed = None;
            picker.cursor = if command == Command::Up {
                (picker.cursor + rows - 1) % rows
            } else {
                (picker.cursor + 1) % rows
            };
        }
        Command::Increase | Command::Decrease => picker.step(command == Command::Increase),
        Command::Backspace => {
            if let Some(typed) = &mut picker.typed {
                typed.pop();
            }
            picker.apply_typed();
        }
        Command::Choose if picker.cursor < rule_count() => {
            picker.rule_index = picker.cursor;
        }
        Command::Confirm => {
            if picker.cursor < rule_count() {
                picker.rule_index = picker.cursor;
            }
            let checked = match picker.params.check() {
                Ok(checked) => checked,
                Err(error) => {
                    picker.error = Some(field_message(&error));
                    return true;
                }
            };
            let Some(def) = rule_at(picker.rule_index) else {
                panic!("the picker's rule row {} is a rule", picker.rule_index);
            };
            match RuleSpec::new(def.name, &checked) {
                Ok(rule) => {
                    // Previews compare the current rule and the registry's previewed rules: when either changes,
                    // the cached ones compare something else.
                    if rule != model.rule
                        || preview::compared_rules(&checked)
                            != preview::compared_rules(&model.params)
                    {
                        model.previews.outdate();
                    }
                    model.rule = rule;
                    model.params = checked;
                    model.status = format!("rule: {}", model.rule_text());
                    return false;
                }
                Err(ClusterError::Param(error)) => picker.error = Some(field_message(&error)),
                Err(other) => picker.error = Some(other.to_string()),
            }
        }
        _ => {}
    }
    true
}
