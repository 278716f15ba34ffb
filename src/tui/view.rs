//! Drawing: `view(frame, &Model)` and the loading screen. Reads the model, never changes it.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{
    Block, Borders, Cell, Clear, List, ListItem, ListState, Paragraph, Row, Table, TableState,
    Tabs, Wrap,
};

use pdx::cluster::RuleSpec;
use pdx::report::terms::TermWeight;

use super::keys;
use super::model::{DetailTab, Model, PARAMS, Pane, Popup, RulePicker, policy_name};

/// Styles, or plain text attributes when colours are off (NO_COLOR).
#[derive(Clone, Copy)]
struct Theme {
    color: bool,
}

impl Theme {
    fn fg(self, color: Color) -> Style {
        if self.color {
            Style::new().fg(color)
        } else {
            Style::new()
        }
    }

    fn selected(self, focused: bool) -> Style {
        match (self.color, focused) {
            (true, true) => Style::new().bg(Color::Blue).fg(Color::White),
            (true, false) => Style::new().bg(Color::DarkGray),
            (false, true) => Style::new().add_modifier(Modifier::REVERSED),
            (false, false) => Style::new().add_modifier(Modifier::UNDERLINED),
        }
    }

    fn border(self, focused: bool) -> Style {
        if focused {
            self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
        } else {
            self.fg(Color::DarkGray)
        }
    }

    fn heading(self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
    }

    fn dim(self) -> Style {
        if self.color {
            Style::new().fg(Color::DarkGray)
        } else {
            Style::new()
        }
    }

    /// A cell of a heat table: darker to brighter with `share` in [0, 1].
    fn heat(self, share: f64) -> Style {
        if !self.color {
            return if share >= 0.5 {
                Style::new().add_modifier(Modifier::BOLD)
            } else {
                Style::new()
            };
        }
        let level = (share.clamp(0.0, 1.0) * 5.0).round() as u8;
        let bg = match level {
            0 => return Style::new().fg(Color::DarkGray),
            1 => Color::Rgb(40, 40, 90),
            2 => Color::Rgb(60, 60, 150),
            3 => Color::Rgb(110, 60, 170),
            4 => Color::Rgb(190, 70, 120),
            _ => Color::Rgb(230, 120, 50),
        };
        Style::new().bg(bg).fg(Color::White)
    }
}

/// A horizontal bar of `width` cells for `value / max`, with eighth blocks.
fn bar(value: f64, max: f64, width: usize) -> String {
    if max <= 0.0 || width == 0 {
        return " ".repeat(width);
    }
    let eighths = ((value / max).clamp(0.0, 1.0) * (width * 8) as f64).round() as usize;
    let mut text = "█".repeat(eighths / 8);
    let partial = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"][eighths % 8];
    text.push_str(partial);
    let used = eighths / 8 + usize::from(!partial.is_empty());
    text.push_str(&" ".repeat(width.saturating_sub(used)));
    text
}

fn percent(share: f64) -> String {
    format!("{:.0}%", share * 100.0)
}

/// Cut `text` to `width` characters, marking the cut with `…`.
fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        text.to_string()
    } else if width == 0 {
        String::new()
    } else {
        let mut cut: String = text.chars().take(width - 1).collect();
        cut.push('…');
        cut
    }
}

fn leaves_text(count: usize) -> String {
    if count == 1 {
        "1 leaf".into()
    } else {
        format!("{count} leaves")
    }
}

fn node_label(model: &Model, id: usize) -> String {
    model.label(id)
}

pub fn view(frame: &mut Frame, model: &Model) {
    let theme = Theme {
        color: model.colors,
    };
    let area = frame.area();
    let [main, status] = Layout::vertical([Constraint::Min(4), Constraint::Length(2)]).areas(area);
    let [tree_area, detail_area] = if area.width >= 120 {
        Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(main)
    } else {
        Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(main)
    };
    draw_tree(frame, model, theme, tree_area);
    draw_detail(frame, model, theme, detail_area);
    draw_status(frame, model, theme, status);
    if let Some(popup) = &model.popup {
        draw_popup(frame, model, theme, popup);
    }
}

fn draw_tree(frame: &mut Frame, model: &Model, theme: Theme, area: Rect) {
    let focused = model.focus == Pane::Tree;
    let title = format!(
        " Tree · {} · ◆ next by {} ",
        leaves_text(model.derived.leaves.len()),
        policy_name(model.policy)
    );
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(focused))
        .title(title);
    let inner_width = area.width.saturating_sub(2);
    let wide = inner_width >= 72;
    let labels = model.has_labels();
    let total = model
        .tree
        .node(model.tree.root())
        .map_or(0.0, |root| root.scatter);

    let mut header = vec!["node", "size"];
    if wide {
        header.push("scatter");
    }
    header.extend(["share", "split by"]);
    if labels {
        header.extend(["label", "purity"]);
    }
    let mut widths = vec![Constraint::Min(10), Constraint::Length(5)];
    if wide {
        widths.push(Constraint::Length(9));
    }
    widths.extend([
        Constraint::Length(5),
        Constraint::Length(if wide { 14 } else { 9 }),
    ]);
    if labels {
        widths.extend([
            Constraint::Length(if wide { 16 } else { 11 }),
            Constraint::Length(6),
        ]);
    }

    let rows_data = model.visible();
    let rows: Vec<Row> = rows_data
        .iter()
        .filter_map(|&(id, depth)| {
            let node = model.tree.node(id)?;
            let marker = if node.is_leaf() {
                "•"
            } else if model.collapsed.contains(&id) {
                "▸"
            } else {
                "▾"
            };
            let suggestion = if model.derived.suggestion == Some(id) {
                " ◆"
            } else {
                ""
            };
            let mut cells = vec![
                Cell::from(format!(
                    "{}{marker} {}{suggestion}",
                    "  ".repeat(depth),
                    node_label(model, id)
                )),
                Cell::from(format!("{:>5}", node.size())),
            ];
            if wide {
                cells.push(Cell::from(format!("{:>9.3}", node.scatter)));
            }
            let share = if total > 0.0 {
                node.scatter / total
            } else {
                0.0
            };
            cells.push(Cell::from(format!("{:>5}", percent(share))));
            cells.push(Cell::from(
                node.split
                    .as_ref()
                    .map_or(String::new(), |s| s.rule.name().to_string()),
            ));
            if labels {
                match model.derived.node_figures.get(&id) {
                    Some(f) => {
                        let name = f
                            .dominant_label
                            .and_then(|l| model.data.label_names.get(l))
                            .cloned()
                            .unwrap_or_default();
                        cells.push(Cell::from(name));
                        cells.push(Cell::from(format!("{:>6}", percent(f.purity))));
                    }
                    None => cells.extend([Cell::from(""), Cell::from("")]),
                }
            }
            let style = if node.is_leaf() {
                Style::new()
            } else {
                theme.dim()
            };
            Some(Row::new(cells).style(style))
        })
        .collect();
    let selected = rows_data.iter().position(|&(id, _)| id == model.selected);
    let table = Table::new(rows, widths)
        .header(Row::new(header).style(theme.heading()))
        .column_spacing(1)
        .block(block)
        .row_highlight_style(theme.selected(focused));
    let mut state = TableState::default().with_selected(selected);
    frame.render_stateful_widget(table, area, &mut state);
}

fn term_lines(
    title: String,
    terms: &[TermWeight],
    width: usize,
    theme: Theme,
) -> Vec<Line<'static>> {
    let mut lines = vec![Line::styled(title, theme.heading())];
    if terms.is_empty() {
        lines.push(Line::styled("  (none)", theme.dim()));
    }
    let max = terms.first().map_or(0.0, |t| t.weight);
    let value_width = 6;
    let term_width = (width.saturating_sub(value_width + 2) / 2).clamp(6, 18);
    let bar_width = width.saturating_sub(term_width + value_width + 2);
    for t in terms {
        lines.push(Line::from(vec![
            Span::raw(format!("{:<term_width$} ", fit(&t.term, term_width))),
            Span::styled(bar(t.weight, max, bar_width), theme.fg(Color::Green)),
            Span::raw(format!(" {:>value_width$.3}", t.weight)),
        ]));
    }
    lines
}

fn draw_detail(frame: &mut Frame, model: &Model, theme: Theme, area: Rect) {
    let focused = model.focus == Pane::Detail;
    let detail = &model.detail;
    let size = model.tree.node(detail.node).map_or(0, |n| n.size());
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(focused))
        .title(format!(
            " {} · {size} documents ",
            node_label(model, detail.node)
        ));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [tabs_area, body] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(inner);
    let tabs = Tabs::new(DetailTab::ALL.map(|t| format!("{} {}", t.index() + 1, t.title())))
        .select(model.tab.index())
        .highlight_style(theme.selected(true))
        .divider("│");
    frame.render_widget(tabs, tabs_area);

    let width = usize::from(body.width);
    let scroll = u16::try_from(model.detail_scroll).unwrap_or(u16::MAX);
    match model.tab {
        DetailTab::Terms => {
            let against = detail
                .against
                .as_deref()
                .unwrap_or("(the root has no sibling)");
            let top_title = "Top terms (centroid weight)".to_string();
            let discriminating_title = format!("Against {against}");
            if width >= 64 {
                let [left, right] =
                    Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                        .areas(body);
                let half = usize::from(left.width).saturating_sub(1);
                let top = term_lines(top_title, &detail.top_terms, half, theme);
                let disc = term_lines(discriminating_title, &detail.discriminating, half, theme);
                frame.render_widget(Paragraph::new(top).scroll((scroll, 0)), left);
                frame.render_widget(Paragraph::new(disc).scroll((scroll, 0)), right);
            } else {
                let mut lines = term_lines(top_title, &detail.top_terms, width, theme);
                lines.push(Line::raw(""));
                lines.extend(term_lines(
                    discriminating_title,
                    &detail.discriminating,
                    width,
                    theme,
                ));
                frame.render_widget(Paragraph::new(lines).scroll((scroll, 0)), body);
            }
        }
        DetailTab::Labels => {
            let lines = label_lines(model, theme, width);
            frame.render_widget(Paragraph::new(lines).scroll((scroll, 0)), body);
        }
        DetailTab::Documents => {
            let items: Vec<ListItem> = detail
                .documents
                .iter()
                .enumerate()
                .filter_map(|(rank, &j)| {
                    let document = model.data.documents.get(j)?;
                    let label = document
                        .label
                        .and_then(|l| model.data.label_names.get(l as usize))
                        .map_or(String::new(), |l| format!("{:<18} ", fit(l, 18)));
                    let title = document.title.as_deref().unwrap_or(&document.id);
                    let mark = if rank == 0 { "★ " } else { "  " };
                    Some(ListItem::new(format!("{mark}{label}{}", title.trim())))
                })
                .collect();
            let list = List::new(items).highlight_style(theme.selected(focused));
            let mut state = ListState::default().with_selected(Some(model.document_cursor));
            frame.render_stateful_widget(list, body, &mut state);
        }
    }
}

fn label_lines(model: &Model, theme: Theme, width: usize) -> Vec<Line<'static>> {
    let id = model.detail.node;
    let (Some(counts), Some(figures)) = (
        model.derived.label_counts.get(&id),
        model.derived.node_figures.get(&id),
    ) else {
        return vec![Line::styled("The corpus has no labels.", theme.dim())];
    };
    let mut lines = vec![Line::from(vec![
        Span::styled("entropy ", theme.heading()),
        Span::raw(format!("{:.3}", figures.entropy)),
        Span::styled("   purity ", theme.heading()),
        Span::raw(format!("{:.3}", figures.purity)),
        Span::styled("   labelled ", theme.heading()),
        Span::raw(figures.labelled.to_string()),
    ])];
    let mut order: Vec<usize> = (0..counts.len()).filter(|&l| counts[l] > 0).collect();
    order.sort_by(|&a, &b| counts[b].cmp(&counts[a]).then(a.cmp(&b)));
    let max = order.first().map_or(0, |&l| counts[l]) as f64;
    let label_width = (width / 3).clamp(8, 24);
    let bar_width = width.saturating_sub(label_width + 13);
    for l in order {
        let name = model.data.label_names.get(l).cloned().unwrap_or_default();
        let share = counts[l] as f64 / figures.labelled.max(1) as f64;
        lines.push(Line::from(vec![
            Span::raw(format!("{:<label_width$} ", fit(&name, label_width))),
            Span::styled(
                bar(counts[l] as f64, max, bar_width),
                theme.fg(Color::Magenta),
            ),
            Span::raw(format!(" {:>5} {:>5}", counts[l], percent(share))),
        ]));
    }
    lines
}

fn draw_status(frame: &mut Frame, model: &Model, theme: Theme, area: Rect) {
    let data = &model.data;
    let width = usize::from(area.width);
    // Three decimals when there is room, two when there is not.
    let places = if width >= 100 { 3 } else { 2 };
    let mut figures = format!(
        "{}: {} docs, {} terms · {} · obj {:.places$}",
        data.source,
        data.documents.len(),
        data.matrix.rows(),
        leaves_text(model.derived.leaves.len()),
        model.derived.objective
    );
    if let Some(global) = &model.derived.global {
        figures.push_str(&format!(
            " · ent {:.places$} pur {:.places$} NMI {:.places$}",
            global.entropy, global.purity, global.nmi
        ));
    }
    let first = Line::styled(figures, theme.fg(Color::Cyan));

    let rule = format!("{} · ", model.rule_text());
    let message = if model.busy.is_some() {
        format!("⏳ {}", model.status)
    } else {
        model.status.clone()
    };
    let mut hint = String::new();
    let room = width.saturating_sub(rule.chars().count() + message.chars().count() + 3);
    for (key, word) in keys::hint_pairs() {
        let piece = format!("{key} {word}");
        let extra = piece.chars().count() + usize::from(!hint.is_empty()) * 2;
        if hint.chars().count() + extra > room {
            break;
        }
        if !hint.is_empty() {
            hint.push_str("  ");
        }
        hint.push_str(&piece);
    }
    let gap =
        width.saturating_sub(rule.chars().count() + message.chars().count() + hint.chars().count());
    let second = Line::from(vec![
        Span::styled(rule, theme.fg(Color::Cyan).add_modifier(Modifier::BOLD)),
        Span::styled(message, theme.fg(Color::Yellow)),
        Span::raw(" ".repeat(gap)),
        Span::styled(hint, theme.dim()),
    ]);
    frame.render_widget(Paragraph::new(vec![first, second]), area);
}

/// A popup rectangle of at most `width` x `height` centred in `area`.
fn popup_area(area: Rect, width: u16, height: u16) -> Rect {
    area.centered(
        Constraint::Length(width.min(area.width)),
        Constraint::Length(height.min(area.height)),
    )
}

fn popup_block(title: String, theme: Theme) -> Block<'static> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(true))
        .title(title)
}

fn draw_popup(frame: &mut Frame, model: &Model, theme: Theme, popup: &Popup) {
    let full = frame.area();
    match popup {
        Popup::Help { scroll } => {
            let area = popup_area(full, 76, full.height.saturating_sub(2));
            let mut lines = vec![
                Line::styled(
                    "Tree: • leaf  ▾ split node  ▸ collapsed  ◆ the suggested next split",
                    theme.dim(),
                ),
                Line::raw(""),
            ];
            for (heading, keys, help) in keys::help_lines() {
                match heading {
                    Some(context) => lines.push(Line::styled(context.title(), theme.heading())),
                    None => lines.push(Line::from(vec![
                        Span::styled(format!("  {keys:<14}"), theme.fg(Color::Cyan)),
                        Span::raw(help),
                    ])),
                }
            }
            let block = popup_block(" Keys · ↑↓ scroll · Esc closes ".into(), theme);
            frame.render_widget(Clear, area);
            frame.render_widget(
                Paragraph::new(lines)
                    .block(block)
                    .scroll((u16::try_from(*scroll).unwrap_or(u16::MAX), 0)),
                area,
            );
        }
        Popup::Rules(picker) => draw_rule_picker(frame, theme, picker),
        Popup::AutoSplit { input } => {
            let area = popup_area(full, 48, 5);
            let lines = vec![
                Line::raw(format!(
                    "Split with {} until how many leaves?",
                    model.rule.name()
                )),
                Line::from(vec![
                    Span::raw("K = "),
                    Span::styled(format!("{input}▏"), theme.heading()),
                    Span::styled(
                        format!("  (now {})", model.derived.leaves.len()),
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
        Popup::Confusion { scroll } => draw_confusion(frame, model, theme, *scroll),
        Popup::Viewer { document, scroll } => {
            let area = popup_area(full, 100, full.height.saturating_sub(2));
            let Some(doc) = model.data.documents.get(*document) else {
                return;
            };
            let label = doc
                .label
                .and_then(|l| model.data.label_names.get(l as usize))
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

/// A one-line text prompt: a question, the typed text, the keys.
fn draw_text_prompt(frame: &mut Frame, theme: Theme, title: String, question: &str, input: &str) {
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

fn draw_rule_picker(frame: &mut Frame, theme: Theme, picker: &RulePicker) {
    let full = frame.area();
    let height = u16::try_from(RulePicker::rows() + 4).unwrap_or(u16::MAX);
    let area = popup_area(full, 62, height);
    let mut lines = Vec::new();
    for (index, name) in RuleSpec::NAMES.iter().enumerate() {
        let radio = if index == picker.rule_index {
            "(•)"
        } else {
            "( )"
        };
        let mut line = Line::raw(format!(" {radio} {name}"));
        if index == picker.cursor {
            line = line.style(theme.selected(true));
        }
        lines.push(line);
    }
    for (index, param) in PARAMS.iter().enumerate() {
        let row = RuleSpec::NAMES.len() + index;
        let value = match (&picker.typed, row == picker.cursor) {
            (Some(typed), true) => format!("{typed}▏"),
            _ => picker.param_text(index),
        };
        let used_by = match index {
            0 => "pddp, pddp-ocpc",
            1 => "pdgp",
            2 => "bisecting-kmeans, kmeans",
            3 => "bisecting-kmeans, kmeans",
            _ => "kmeans",
        };
        let mut line = Line::from(vec![
            Span::raw(format!("     {param:<7}{value:<8}")),
            Span::styled(used_by, theme.dim()),
        ]);
        if row == picker.cursor {
            line = line.style(theme.selected(true));
        }
        lines.push(line);
    }
    match &picker.error {
        Some(error) => lines.push(Line::styled(error.clone(), theme.fg(Color::Red))),
        None => lines.push(Line::raw("")),
    }
    lines.push(Line::styled(
        "Space choose · +/- or digits set · Enter use · Esc cancel",
        theme.dim(),
    ));
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines).block(popup_block(" Split rule ".into(), theme)),
        area,
    );
}

fn draw_confusion(frame: &mut Frame, model: &Model, theme: Theme, scroll: usize) {
    let full = frame.area();
    let derived = &model.derived;
    let labels = &model.data.label_names;
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

/// The screen while the corpus loads.
/// `tick` counts tenths of a second since loading started.
pub fn view_loading(frame: &mut Frame, what: &str, tick: usize, colors: bool) {
    let theme = Theme { color: colors };
    let spinner = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"][tick % 10];
    let area = popup_area(frame.area(), 60, 5);
    let lines = vec![
        Line::raw(format!("{spinner} Loading {what}… {} s", tick / 10)),
        Line::raw(""),
        Line::styled("Esc quits", theme.dim()),
    ];
    frame.render_widget(
        Paragraph::new(lines).block(popup_block(" pdx ".into(), theme)),
        area,
    );
}
