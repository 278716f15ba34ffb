//! Popups: help, the rule picker, prompts, the quit question, the confusion view and the document viewer.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, Borders, Cell, Clear, Paragraph, Row, Table, Wrap};

use super::super::help::{HELP_WIDTH, help_rows_for, wrap};
use super::super::keys::Context;
use super::super::model::{
    FIELD_CHARS, FIELDS, Model, Popup, RulePicker, rule_at, rule_count, used_by,
};
use crate::cluster::registry::Family;
use crate::printable::escaped;

use super::hits::{draw_hits, viewer_text};
use super::{Theme, fit, number_width, percent};

/// A list popup (the search's hits, the new documents): as tall as `rows` with its border and heading, at most the
/// screen less a line above and below; its title `counts`, then `keys` when the width allows. Drawn empty; the
/// heading's row and the list's area below it.
pub(super) fn draw_list_popup(
    frame: &mut Frame,
    theme: Theme,
    rows: usize,
    counts: String,
    keys: &str,
) -> [Rect; 2] {
    let full = frame.area();
    let height = u16::try_from(rows.saturating_add(3)).unwrap_or(u16::MAX);
    let area = popup_area(
        full,
        full.width.saturating_sub(4).min(140),
        height.min(full.height.saturating_sub(2)),
    );
    let title = if counts.chars().count() + keys.chars().count() + 2 <= usize::from(area.width) {
        format!("{counts}{keys}")
    } else {
        counts
    };
    let block = popup_block(title, theme);
    frame.render_widget(Clear, area);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(inner)
}

/// A popup rectangle of at most `width` x `height` centred in `area`.
pub(super) fn popup_area(area: Rect, width: u16, height: u16) -> Rect {
    area.centered(
        Constraint::Length(width.min(area.width)),
        Constraint::Length(height.min(area.height)),
    )
}

/// A question that waits for an answer: what it asks (`body`, each part with its style), wrapped, and under it
/// what each key does, on rows of their own at the bottom so that no length of path or message and no size of
/// terminal pushes them out of sight.
fn draw_question(
    frame: &mut Frame,
    theme: Theme,
    title: &str,
    body: &[(String, Style)],
    keys: &str,
) {
    let full = frame.area();
    // As wide as its longest part (a long path on one line), from 76 columns up to the terminal's width.
    let longest = body
        .iter()
        .map(|(text, _)| text.chars().count())
        .max()
        .unwrap_or(0);
    let wanted = u16::try_from(longest + 2).unwrap_or(u16::MAX);
    let width = wanted
        .clamp(76, full.width.saturating_sub(4).max(76))
        .min(full.width);
    let inner_width = usize::from(width.saturating_sub(2));
    let key_lines: Vec<Line> = wrap(keys, inner_width)
        .into_iter()
        .map(|line| Line::styled(line, theme.heading()))
        .collect();
    let body_lines: Vec<Line> = body
        .iter()
        .flat_map(|(text, style)| {
            wrap(text, inner_width)
                .into_iter()
                .map(|line| Line::styled(line, *style))
        })
        .collect();
    let count = |lines: &[Line]| u16::try_from(lines.len()).unwrap_or(u16::MAX);
    let area = popup_area(
        full,
        width,
        count(&body_lines).saturating_add(count(&key_lines) + 3),
    );
    let block = popup_block(title.to_string(), theme);
    let inner = block.inner(area);
    let key_rows = count(&key_lines).min(inner.height);
    let [body_area, keys_area] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(key_rows)]).areas(inner);
    frame.render_widget(Clear, area);
    frame.render_widget(block, area);
    frame.render_widget(Paragraph::new(body_lines), body_area);
    frame.render_widget(Paragraph::new(key_lines), keys_area);
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
            let rows = help_rows_for(model.keys(), usize::from(area.width.saturating_sub(2)));
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
            let title = format!(" Name {} ", super::node_label(model, *node));
            draw_text_prompt(frame, theme, title, "Name (empty clears it):", input);
        }
        Popup::Find { input } => {
            draw_text_prompt(
                frame,
                theme,
                " Search the texts ".into(),
                "A word or phrase (\"a b\" c: both):",
                input,
            );
        }
        Popup::Filter { input } => {
            draw_text_prompt(
                frame,
                theme,
                " Filter the documents ".into(),
                "Only those holding (empty clears):",
                input,
            );
        }
        Popup::Hits => draw_hits(frame, model, theme),
        Popup::AddDocuments { input } => draw_text_prompt(
            frame,
            theme,
            " Add new documents ".into(),
            "A folder, or a file of documents (JSONL, CSV, ...):",
            input,
        ),
        Popup::NewDocuments { cursor } => {
            super::incoming::draw_new_documents(frame, model, theme, *cursor)
        }
        Popup::ConfirmQuit => draw_question(
            frame,
            theme,
            " Quit ",
            &[("The tree changed and is not saved.".into(), Style::new())],
            &model.keys().prompt_keys(Context::Confirm),
        ),
        Popup::Recovery(offer) => draw_question(
            frame,
            theme,
            " Recovered tree ",
            &[
                (
                    format!(
                        "pdx was stopped by {} with a tree not saved: {} leaves, rule {}. Reopen it?",
                        offer.signal,
                        offer.session.tree.leaves().len(),
                        offer.session.settings.rule.name()
                    ),
                    Style::new(),
                ),
                (
                    escaped(&offer.path.display().to_string()).into_owned(),
                    theme.dim(),
                ),
            ],
            &model.keys().prompt_keys(Context::Recovery),
        ),
        Popup::Weighting(form) => super::replay::draw_weighting_form(frame, theme, form),
        Popup::Replayed { summary, scroll } => {
            super::replay::draw_replay_summary(frame, theme, summary, *scroll)
        }
        Popup::Confusion { row, column } => draw_confusion(frame, model, theme, *row, *column),
        Popup::Log { scroll } => draw_log(frame, model, theme, *scroll),
        Popup::Alternatives {
            view,
            scroll,
            cursor,
        } => super::compare::draw_alternatives(frame, model, theme, view, *scroll, *cursor),
        Popup::Compare { view, scroll } => {
            super::compare::draw_comparison(frame, model, theme, view, *scroll)
        }
        Popup::Leaves(picker) => super::moves::draw_leaf_picker(frame, model, theme, picker),
        Popup::Viewer {
            document, scroll, ..
        } => {
            let area = popup_area(full, 100, full.height.saturating_sub(2));
            let Some(doc) = model.data().documents.get(*document) else {
                return;
            };
            let label = model
                .document_label(*document)
                .map(|l| format!(" [{}]", escaped(l)))
                .unwrap_or_default();
            let block = popup_block(format!(" {}{label} (Esc closes) ", escaped(&doc.id)), theme);
            let text = viewer_text(model, *document, *scroll, block.inner(area), theme);
            frame.render_widget(Clear, area);
            frame.render_widget(
                Paragraph::new(text).block(block).wrap(Wrap { trim: false }),
                area,
            );
        }
    }
}

/// The rule picker's width on a screen wide enough: every "used by" list shows whole.
const PICKER_WIDTH: u16 = 116;

/// A one-line text prompt: a question, the typed text (its end, where the typing happens, when it is longer than
/// the line), the keys, and when the field takes no more, that it is full.
pub(super) fn draw_text_prompt(
    frame: &mut Frame,
    theme: Theme,
    title: String,
    question: &str,
    input: &str,
) {
    let area = popup_area(frame.area(), 56, 5);
    let width = usize::from(area.width.saturating_sub(4));
    let typed = escaped(input);
    let shown: String = {
        let count = typed.chars().count();
        typed.chars().skip(count.saturating_sub(width)).collect()
    };
    let keys = match input.chars().count() >= FIELD_CHARS {
        true => format!("full: {FIELD_CHARS} characters · Enter confirm · Esc cancel"),
        false => "Enter confirm · Esc cancel".to_string(),
    };
    let lines = vec![
        Line::raw(question.to_string()),
        Line::styled(format!("{shown}▏"), theme.heading()),
        Line::styled(keys, theme.dim()),
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
    // One field a row with the rules that use it when the screen has the lines; else two a row, and the rules
    // that use a field are in the description of the one under the cursor.
    let paired = rule_rows + FIELDS.len() + about.len() + 3 > usize::from(full.height);
    let field_rows = if paired {
        FIELDS.len().div_ceil(2)
    } else {
        FIELDS.len()
    };
    let height = u16::try_from(rule_rows + field_rows + about.len() + 3).unwrap_or(u16::MAX);
    let area = popup_area(full, width, height);
    let mut lines = Vec::new();
    let cell = |index: Option<&usize>| -> Span<'static> {
        let Some((index, rule)) = index.and_then(|&i| rule_at(i).map(|rule| (i, rule))) else {
            return Span::raw(String::new());
        };
        let radio = if index == picker.rule_index() {
            "(•)"
        } else {
            "( )"
        };
        let text = format!(" {radio} {:<24}", rule.name);
        if index == picker.cursor() {
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
    let name_width = FIELDS
        .iter()
        .map(|f| f.name.chars().count())
        .max()
        .unwrap_or(0)
        + 1;
    let field_text = |index: usize| {
        let value = picker.shown_value(index);
        format!(
            "     {:<name_width$}{value:<value_width$}",
            FIELDS[index].name
        )
    };
    let selected = |index: usize| rule_count() + index == picker.cursor();
    if paired {
        let half = text_width / 2;
        for row in 0..field_rows {
            let spans = [row, row + field_rows]
                .into_iter()
                .filter(|&index| index < FIELDS.len())
                .map(|index| {
                    let text = fit(field_text(index).trim_end(), half);
                    let text = format!("{text:<half$}");
                    match selected(index) {
                        true => Span::styled(text, theme.selected(true)),
                        false => Span::raw(text),
                    }
                });
            lines.push(Line::from(spans.collect::<Vec<_>>()));
        }
    } else {
        for (index, field) in FIELDS.iter().enumerate() {
            let values = field_text(index);
            // A list too long for a narrow screen is marked cut; the field's description lists it whole.
            let users = fit(
                &used_by(field.param),
                text_width.saturating_sub(values.chars().count()),
            );
            let mut line = Line::from(vec![Span::raw(values), Span::styled(users, theme.dim())]);
            if selected(index) {
                line = line.style(theme.selected(true));
            }
            lines.push(line);
        }
    }
    lines.extend(
        about
            .into_iter()
            .map(|line| Line::styled(line, theme.dim())),
    );
    // An error takes the keys' line: the help (?) lists them too.
    lines.push(match picker.error() {
        Some(error) => Line::styled(error.to_string(), theme.fg(Color::Red)),
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

/// The confusion view: a table of counts, rows and columns as [`ConfusionGrid`](crate::report::summary::ConfusionGrid) lays them out, its
/// cursor on the cell of row `cursor_row` and column `cursor_column`, scrolled just enough to show it. Every
/// column is wide enough for its heading and its largest `[n]`, and the title is short enough for an 80-column
/// screen.
pub(super) fn draw_confusion(
    frame: &mut Frame,
    model: &Model,
    theme: Theme,
    cursor_row: usize,
    cursor_column: usize,
) {
    let full = frame.area();
    let mut grid = model.confusion_grid();
    // Labels and names as they show, so that they are measured as they show.
    for row in &mut grid.rows {
        row.name = escaped(&row.name).into_owned();
    }
    for column in &mut grid.columns {
        *column = escaped(column).into_owned();
    }
    let accuracy = model.global_figures().map_or(0.0, |g| g.accuracy);
    let name_width = number_width(grid.rows.iter().map(|r| r.name.clone()), grid.corner);
    let sizes = grid.rows.iter().any(|r| r.size.is_some());
    let size_width = if sizes {
        number_width(
            grid.rows.iter().map(|r| r.size.unwrap_or(0).to_string()),
            "size",
        )
    } else {
        0
    };
    let largest = grid
        .rows
        .iter()
        .flat_map(|r| r.cells.iter().map(|c| c.count))
        .max()
        .unwrap_or(0);
    let cell = number_width(grid.columns.iter().cloned(), "")
        .max(format!("[{largest}]").len())
        .max(
            grid.column_sizes
                .iter()
                .flatten()
                .map(|s| s.to_string().len())
                .max()
                .unwrap_or(0),
        )
        .max(3);
    let title = format!(
        " Confusion · accuracy {} · [n] best match · Enter: its documents ",
        percent(accuracy)
    );
    let fixed = 2 + name_width + if sizes { size_width + 1 } else { 0 };
    let wanted = (fixed + grid.columns.len() * (cell + 1)).max(title.chars().count() + 2);
    let width = u16::try_from(wanted).unwrap_or(u16::MAX).min(full.width);
    let shown_columns = usize::from(width)
        .saturating_sub(fixed)
        .checked_div(cell + 1)
        .unwrap_or(0)
        .max(1);
    // Scrolled just far enough to show the cursor, and no further than shows the last column and row at the
    // popup's edge.
    let cursor_column = cursor_column.min(grid.columns.len().saturating_sub(1));
    let first = (cursor_column + 1)
        .saturating_sub(shown_columns)
        .min(grid.columns.len().saturating_sub(shown_columns));
    let last = (first + shown_columns).min(grid.columns.len());
    let header_height = if grid.column_sizes.is_some() { 2 } else { 1 };
    let height = u16::try_from(grid.rows.len() + header_height + 2).unwrap_or(u16::MAX);
    let area = popup_area(full, width, height);
    let shown_rows = usize::from(area.height).saturating_sub(header_height + 2);
    let cursor_row = cursor_row.min(grid.rows.len().saturating_sub(1));
    let scroll = (cursor_row + 1)
        .saturating_sub(shown_rows)
        .min(grid.rows.len().saturating_sub(shown_rows));

    let mut corner = vec![Line::raw(grid.corner)];
    if grid.column_sizes.is_some() {
        corner.push(Line::styled("size", theme.dim()));
    }
    let mut header = vec![Cell::from(Text::from(corner))];
    if sizes {
        header.push(Cell::from(format!("{:>size_width$}", "size")));
    }
    for index in first..last {
        let mut lines = vec![Line::raw(format!("{:>cell$}", grid.columns[index]))];
        if let Some(size) = grid.column_sizes.as_ref().and_then(|s| s.get(index)) {
            lines.push(Line::styled(format!("{size:>cell$}"), theme.dim()));
        }
        header.push(Cell::from(Text::from(lines)));
    }
    let rows: Vec<Row> = grid
        .rows
        .iter()
        .enumerate()
        .skip(scroll)
        .map(|(index, row)| {
            let mut cells = vec![Cell::from(row.name.clone())];
            if let Some(size) = row.size {
                cells.push(Cell::from(format!("{size:>size_width$}")));
            }
            for (at, c) in (first..).zip(row.cells.get(first..last).unwrap_or(&[])) {
                let text = match (c.count, c.matched) {
                    (0, _) => format!("{:>cell$}", "·"),
                    (n, true) => format!("{:>cell$}", format!("[{n}]")),
                    (n, false) => format!("{n:>cell$}"),
                };
                let mut style = theme.heat(c.share);
                if (index, at) == (cursor_row, cursor_column) {
                    style = style.add_modifier(Modifier::REVERSED | Modifier::BOLD);
                }
                cells.push(Cell::from(text).style(style));
            }
            Row::new(cells)
        })
        .collect();
    let length = |width: usize| Constraint::Length(u16::try_from(width).unwrap_or(u16::MAX));
    let mut widths = vec![length(name_width)];
    if sizes {
        widths.push(length(size_width));
    }
    widths.extend((first..last).map(|_| length(cell)));
    // Where the view is, when it does not show everything: which rows and columns, and how to see the others.
    let mut position = Vec::new();
    if last - first < grid.columns.len() {
        position.push(format!(
            "←→ columns {}–{} of {}",
            first + 1,
            last,
            grid.columns.len()
        ));
    }
    if scroll > 0 || shown_rows < grid.rows.len() {
        position.push(format!(
            "↑↓ rows {}–{} of {}",
            (scroll + 1).min(grid.rows.len()),
            (scroll + shown_rows).min(grid.rows.len()),
            grid.rows.len()
        ));
    }
    let mut block = popup_block(title, theme);
    if !position.is_empty() {
        block = block.title_bottom(format!(" {} ", position.join(" · ")));
    }
    let table = Table::new(rows, widths)
        .header(
            Row::new(header)
                .style(theme.heading())
                .height(u16::try_from(header_height).unwrap_or(1)),
        )
        .column_spacing(1)
        .block(block);
    frame.render_widget(Clear, area);
    frame.render_widget(table, area);
}

/// The message log: every status message of the session with its time, newest first, scrolled `scroll`
/// messages down; long messages wrap.
pub(super) fn draw_log(frame: &mut Frame, model: &Model, theme: Theme, scroll: usize) {
    let full = frame.area();
    let area = popup_area(full, 100, full.height.saturating_sub(2));
    let mut lines = Vec::new();
    for entry in model.log().iter().rev().skip(scroll) {
        lines.push(Line::from(vec![
            Span::styled(format!("{}  ", entry.time), theme.dim()),
            Span::raw(escaped(&entry.message).into_owned()),
        ]));
    }
    if model.log().is_empty() {
        lines.push(Line::styled("No messages yet.", theme.dim()));
    }
    let block = popup_block(
        format!(
            " Messages ({}) · newest first · times {} · Esc closes ",
            model.log().len(),
            model.log_zone()
        ),
        theme,
    );
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(Wrap { trim: false }),
        area,
    );
}
