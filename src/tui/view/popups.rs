//! Popups: help, the rule picker, prompts, the quit question, the confusion view and the document viewer.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Color;
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, Borders, Cell, Clear, Paragraph, Row, Table, Wrap};

use super::super::help::{HELP_WIDTH, help_rows, wrap};
use super::super::model::{FIELDS, Model, Popup, RulePicker, rule_at, rule_count, used_by};
use pdx::cluster::registry::Family;

use super::{Theme, fit, node_label, percent};

/// A popup rectangle of at most `width` x `height` centred in `area`.
pub(super) fn popup_area(area: Rect, width: u16, height: u16) -> Rect {
    area.centered(
        Constraint::Length(width.min(area.width)),
        Constraint::Length(height.min(area.height)),
    )
}

pub(super) fn popup_block(title: String, theme: Theme) -> Block<'static> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(true))
        .title(title)
}

pub(super) fn draw_popup(frame: &mut Frame, model: &Model, theme: Theme, popup: &Popup) {
    let full = frame.area();
    match popup {
        Popup::Help { scroll } => {
            let area = popup_area(full, HELP_WIDTH, full.height.saturating_sub(2));
            let rows = help_rows(usize::from(area.width.saturating_sub(2)));
            // The last page stays full: scrolling stops where the last row reaches the bottom.
            let scroll = (*scroll).min(
                rows.len()
                    .saturating_sub(usize::from(area.height.saturating_sub(2))),
            );
            let lines: Vec<Line> = rows
                .into_iter()
                .map(|row| {
                    if row.heading {
                        Line::styled(row.text, theme.heading())
                    } else {
                        Line::from(vec![
                            Span::styled(row.label, theme.fg(Color::Cyan)),
                            Span::raw(row.text),
                        ])
                    }
                })
                .collect();
            let block = popup_block(
                " Help: the tree, keys, rules · ↑↓ PgDn scroll · Esc closes ".into(),
                theme,
            );
            frame.render_widget(Clear, area);
            frame.render_widget(
                Paragraph::new(lines)
                    .block(block)
                    .scroll((u16::try_from(scroll).unwrap_or(u16::MAX), 0)),
                area,
            );
        }
        Popup::Rules(picker) => draw_rule_picker(frame, theme, picker),
        Popup::AutoSplit { input } => {
            let area = popup_area(full, 48, 5);
            let lines = vec![
                Line::raw(format!(
                    "Split with {} until how many leaves?",
                    model.rule().name()
                )),
                Line::from(vec![
                    Span::raw("K = "),
                    Span::styled(format!("{input}▏"), theme.heading()),
                    Span::styled(
                        format!("  (now {})", model.derived().leaves.len()),
                        theme.dim(),
                    ),
                ]),
                Line::styled("Enter go · Esc cancel", theme.dim()),
            ];
            frame.render_widget(Clear, area);
            frame.render_widget(
                Paragraph::new(lines).block(popup_block(" Auto-split ".into(), theme)),
                area,
            );
        }
        Popup::Name { node, input } => {
            let title = format!(" Name {} ", model.label(*node));
            draw_text_prompt(frame, theme, title, "Name (empty clears it):", input);
        }
        Popup::Find { input } => {
            draw_text_prompt(
                frame,
                theme,
                " Find ".into(),
                "A term or part of a document title:",
                input,
            );
        }
        Popup::ConfirmQuit => {
            let area = popup_area(full, 44, 4);
            let lines = vec![
                Line::raw("The tree changed and is not saved."),
                Line::styled("Quit anyway? y / n (w saves)", theme.heading()),
            ];
            frame.render_widget(Clear, area);
            frame.render_widget(
                Paragraph::new(lines).block(popup_block(" Quit ".into(), theme)),
                area,
            );
        }
        Popup::Recovery(offer) => {
            let area = popup_area(full, 72, 8);
            let lines = vec![
                Line::raw(format!(
                    "pdx was stopped by {} with a tree not saved: {} leaves, rule {}.",
                    offer.signal,
                    offer.session.tree.leaves().len(),
                    offer.session.rule.name()
                )),
                Line::styled(offer.path.display().to_string(), theme.dim()),
                Line::raw(""),
                Line::styled(
                    "Reopen it? y reopens (it replaces this tree) · d deletes it · Esc later",
                    theme.heading(),
                ),
            ];
            frame.render_widget(Clear, area);
            frame.render_widget(
                Paragraph::new(lines)
                    .block(popup_block(" Recovered tree ".into(), theme))
                    .wrap(Wrap { trim: false }),
                area,
            );
        }
        Popup::Confusion { scroll } => draw_confusion(frame, model, theme, *scroll),
        Popup::Alternatives { view, scroll } => {
            super::compare::draw_alternatives(frame, model, theme, view, *scroll)
        }
        Popup::Compare { view, scroll } => {
            super::compare::draw_comparison(frame, model, theme, view, *scroll)
        }
        Popup::Viewer { document, scroll } => {
            let area = popup_area(full, 100, full.height.saturating_sub(2));
            let Some(doc) = model.data().documents.get(*document) else {
                return;
            };
            let label = doc
                .label
                .and_then(|l| model.data().label_names.get(l as usize))
                .map(|l| format!(" [{l}]"))
                .unwrap_or_default();
            let mut text = Text::default();
            if let Some(title) = doc
                .title
                .as_ref()
                .filter(|t| !doc.text.trim_start().starts_with(t.trim()))
            {
                text.push_line(Line::styled(title.clone(), theme.heading()));
                text.push_line(Line::raw(""));
            }
            for line in doc.text.lines() {
                text.push_line(Line::raw(line.to_string()));
            }
            let block = popup_block(format!(" {}{label} (Esc closes) ", doc.id), theme);
            frame.render_widget(Clear, area);
            frame.render_widget(
                Paragraph::new(text)
                    .block(block)
                    .wrap(Wrap { trim: false })
                    .scroll((u16::try_from(*scroll).unwrap_or(u16::MAX), 0)),
                area,
            );
        }
    }
}

/// The rule picker's width on a screen wide enough: every "used by" list shows whole.
const PICKER_WIDTH: u16 = 104;

/// A one-line text prompt: a question, the typed text, the keys.
pub(super) fn draw_text_prompt(
    frame: &mut Frame,
    theme: Theme,
    title: String,
    question: &str,
    input: &str,
) {
    let area = popup_area(frame.area(), 56, 5);
    let width = usize::from(area.width.saturating_sub(4));
    // Show the end of a long input: that is where the typing happens.
    let shown: String = {
        let count = input.chars().count();
        input.chars().skip(count.saturating_sub(width)).collect()
    };
    let lines = vec![
        Line::raw(question.to_string()),
        Line::styled(format!("{shown}▏"), theme.heading()),
        Line::styled("Enter confirm · Esc cancel", theme.dim()),
    ];
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines).block(popup_block(title, theme)), area);
}

pub(super) fn draw_rule_picker(frame: &mut Frame, theme: Theme, picker: &RulePicker) {
    let full = frame.area();
    // Linear rules on the left, kernel rules on the right, so that every row fits 24 lines.
    let linear: Vec<usize> = (0..rule_count())
        .filter(|&i| rule_at(i).is_some_and(|rule| rule.family() == Family::Linear))
        .collect();
    let kernel: Vec<usize> = (0..rule_count())
        .filter(|&i| rule_at(i).is_some_and(|rule| rule.family() == Family::Kernel))
        .collect();
    let rule_rows = linear.len().max(kernel.len());
    // Wide enough for the longest "used by" list when the screen allows; the two descriptions of what the cursor is
    // on are wrapped, never cut.
    let width = PICKER_WIDTH.min(full.width.saturating_sub(2));
    let text_width = usize::from(width.saturating_sub(2));
    let (rule_about, param_about) = picker.about();
    let about: Vec<String> = [rule_about, param_about]
        .iter()
        .flat_map(|text| wrap(text, text_width))
        .collect();
    let height = u16::try_from(rule_rows + FIELDS.len() + about.len() + 3).unwrap_or(u16::MAX);
    let area = popup_area(full, width, height);
    let mut lines = Vec::new();
    let cell = |index: Option<&usize>| -> Span<'static> {
        let Some((index, rule)) = index.and_then(|&i| rule_at(i).map(|rule| (i, rule))) else {
            return Span::raw(String::new());
        };
        let radio = if index == picker.rule_index {
            "(•)"
        } else {
            "( )"
        };
        let text = format!(" {radio} {:<24}", rule.name);
        if index == picker.cursor {
            Span::styled(text, theme.selected(true))
        } else {
            Span::raw(text)
        }
    };
    for row in 0..rule_rows {
        lines.push(Line::from(vec![
            cell(linear.get(row)),
            cell(kernel.get(row)),
        ]));
    }
    // The values' column as wide as the widest value, so that the lists of rules have the room.
    let value_width = (0..FIELDS.len())
        .map(|index| picker.shown_value(index).chars().count() + 2)
        .max()
        .unwrap_or(0)
        .max(10);
    for (index, field) in FIELDS.iter().enumerate() {
        let row = rule_count() + index;
        let value = picker.shown_value(index);
        let name = field.name;
        let values = format!("     {name:<10}{value:<value_width$}");
        // A list too long for a narrow screen is marked cut; the field's description lists it whole.
        let users = fit(
            &used_by(field.param),
            text_width.saturating_sub(values.chars().count()),
        );
        let mut line = Line::from(vec![Span::raw(values), Span::styled(users, theme.dim())]);
        if row == picker.cursor {
            line = line.style(theme.selected(true));
        }
        lines.push(line);
    }
    lines.extend(
        about
            .into_iter()
            .map(|line| Line::styled(line, theme.dim())),
    );
    // An error takes the keys' line: the help (?) lists them too.
    lines.push(match &picker.error {
        Some(error) => Line::styled(error.clone(), theme.fg(Color::Red)),
        None => Line::styled(
            "a-z jump · Space choose · +/- or digits set · Enter use · Esc cancel",
            theme.dim(),
        ),
    });
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines).block(popup_block(" Split rule ".into(), theme)),
        area,
    );
}

pub(super) fn draw_confusion(frame: &mut Frame, model: &Model, theme: Theme, scroll: usize) {
    let full = frame.area();
    let derived = &model.derived();
    let labels = &model.data().label_names;
    let accuracy = derived.global.as_ref().map_or(0.0, |g| g.accuracy);
    // Columns: leaf name, size, then one per label, as wide as the screen allows (at least 3 characters).
    let leaf_width = derived
        .leaves
        .iter()
        .map(|&id| node_label(model, id).chars().count())
        .max()
        .unwrap_or(0)
        .max(4);
    let label_count = labels.len().max(1);
    let available = usize::from(full.width).saturating_sub(2 + leaf_width + 1 + 5);
    let cell = (available / label_count).saturating_sub(1).clamp(3, 6);
    let width =
        u16::try_from(2 + leaf_width + 1 + 5 + label_count * (cell + 1)).unwrap_or(u16::MAX);
    let height = u16::try_from(derived.leaves.len() + 3).unwrap_or(u16::MAX);
    let area = popup_area(full, width, height);
    // Column headings: label names cut to the cell width (the full names are in the Labels tab).
    let mut header = vec![Cell::from("leaf"), Cell::from("size")];
    header.extend(
        labels
            .iter()
            .map(|l| Cell::from(fit(l.rsplit('/').next().unwrap_or(l), cell))),
    );
    let rows: Vec<Row> = derived
        .leaves
        .iter()
        .enumerate()
        .skip(scroll)
        .map(|(index, &id)| {
            let row = derived.confusion.counts.get(index);
            let total: usize = row.map_or(0, |r| r.iter().sum());
            let mut cells = vec![
                Cell::from(node_label(model, id)),
                Cell::from(format!("{total:>4}")),
            ];
            for l in 0..labels.len() {
                let count = row.and_then(|r| r.get(l)).copied().unwrap_or(0);
                let share = if total > 0 {
                    count as f64 / total as f64
                } else {
                    0.0
                };
                let matched = derived
                    .leaf_figures
                    .get(index)
                    .and_then(|f| f.matched_label)
                    == Some(l);
                let bracketed = format!("[{count}]");
                let text = match (count, matched) {
                    (0, _) => format!("{:>cell$}", "·"),
                    (_, true) if bracketed.len() <= cell => format!("{bracketed:>cell$}"),
                    (c, _) => format!("{c:>cell$}"),
                };
                cells.push(Cell::from(text).style(theme.heat(share)));
            }
            Row::new(cells)
        })
        .collect();
    let mut widths = vec![
        Constraint::Length(u16::try_from(leaf_width).unwrap_or(u16::MAX)),
        Constraint::Length(4),
    ];
    let cell_width = u16::try_from(cell).unwrap_or(u16::MAX);
    widths.extend(labels.iter().map(|_| Constraint::Length(cell_width)));
    let title = format!(
        " Confusion: leaves x labels · accuracy {} ([n] = best matching) · Esc closes ",
        percent(accuracy)
    );
    let table = Table::new(rows, widths)
        .header(Row::new(header).style(theme.heading()))
        .column_spacing(1)
        .block(popup_block(title, theme));
    frame.render_widget(Clear, area);
    frame.render_widget(table, area);
}
