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
use pdx::report::preview::{RulePreview, SplitPreview};
use pdx::report::terms::TermWeight;
use ratatui::symbols::Marker;
use ratatui::widgets::canvas::{Canvas, Points};

use super::keys;
use super::loading::Loading;
use super::model::{
    DetailTab, Model, PARAMS, Pane, Popup, RULE_COUNT, Region, RulePicker, policy_name, rule_name,
    used_by,
};

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

/// Where the main screen's parts are: one function for drawing and for finding what a mouse click hits.
struct Areas {
    tree: Rect,
    detail: Rect,
    status: Rect,
    /// The detail pane's tab titles and the body under them.
    tabs: Rect,
    body: Rect,
}

impl Areas {
    fn of(area: Rect) -> Areas {
        let [main, status] =
            Layout::vertical([Constraint::Min(4), Constraint::Length(2)]).areas(area);
        let [tree, detail] = if area.width >= 120 {
            Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(main)
        } else {
            Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(main)
        };
        let [tabs, body] = Layout::vertical([Constraint::Length(1), Constraint::Min(0)])
            .areas(detail.inner(ratatui::layout::Margin::new(1, 1)));
        Areas {
            tree,
            detail,
            status,
            tabs,
            body,
        }
    }

    /// The tree table's rows on screen (inside the border, under the header).
    fn tree_rows(&self) -> Rect {
        let inner = self.tree.inner(ratatui::layout::Margin::new(1, 1));
        Rect {
            y: inner.y.saturating_add(1),
            height: inner.height.saturating_sub(1),
            ..inner
        }
    }
}

/// The first row shown of a list of `height` rows whose row `selected` must show: the smallest scroll that shows
/// it, as ratatui's table and list would choose from the top.
fn list_offset(selected: usize, height: u16) -> usize {
    selected.saturating_sub(usize::from(height).saturating_sub(1))
}

fn tab_titles() -> [String; 4] {
    DetailTab::ALL.map(|t| format!("{} {}", t.index() + 1, t.title()))
}

/// What the mouse at (`column`, `row`) points at on the main screen drawn in `area` (the popups cover it: with
/// a popup open, everything is [`Region::Popup`]).
pub fn hit(model: &Model, area: Rect, column: u16, row: u16) -> Region {
    if model.popup.is_some() {
        return Region::Popup;
    }
    let areas = Areas::of(area);
    let position = ratatui::layout::Position::new(column, row);
    if areas.tree.contains(position) {
        let rows = areas.tree_rows();
        if rows.contains(position) {
            let visible = model.visible();
            let selected = visible
                .iter()
                .position(|&(id, _)| id == model.selected)
                .unwrap_or(0);
            let index = list_offset(selected, rows.height) + usize::from(row - rows.y);
            if let Some(&(id, _)) = visible.get(index) {
                return Region::TreeRow(id);
            }
        }
        return Region::Tree;
    }
    if areas.tabs.contains(position) {
        // Tabs draws " title " and a one-cell divider after each.
        let mut x = areas.tabs.x;
        for (tab, title) in DetailTab::ALL.iter().zip(tab_titles()) {
            let width = u16::try_from(title.chars().count() + 2).unwrap_or(u16::MAX);
            if column >= x && column < x.saturating_add(width) {
                return Region::Tab(*tab);
            }
            x = x.saturating_add(width + 1);
        }
        return Region::Detail;
    }
    if areas.body.contains(position) && model.tab == DetailTab::Documents {
        let index =
            list_offset(model.document_cursor, areas.body.height) + usize::from(row - areas.body.y);
        if index < model.detail.documents.len() {
            return Region::DocumentRow(index);
        }
    }
    if areas.detail.contains(position) {
        return Region::Detail;
    }
    Region::Elsewhere
}

pub fn view(frame: &mut Frame, model: &Model) {
    let theme = Theme {
        color: model.colors,
    };
    let areas = Areas::of(frame.area());
    draw_tree(frame, model, theme, areas.tree);
    draw_detail(frame, model, theme, areas.detail);
    draw_status(frame, model, theme, areas.status);
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
    // The offset is set here, not left to the table, so that `hit` knows which node a click lands on.
    let rows_height = area.height.saturating_sub(3);
    let mut state = TableState::default()
        .with_offset(list_offset(selected.unwrap_or(0), rows_height))
        .with_selected(selected);
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
    let tabs = Tabs::new(tab_titles())
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
            // Only the rows on screen are built: the root of a large corpus has tens of thousands of members.
            let offset = list_offset(model.document_cursor, body.height);
            let shown = detail
                .documents
                .iter()
                .enumerate()
                .skip(offset)
                .take(usize::from(body.height));
            let items: Vec<ListItem> = shown
                .map(|(rank, &j)| {
                    let Some(document) = model.data.documents.get(j) else {
                        return ListItem::new("");
                    };
                    let label = document
                        .label
                        .and_then(|l| model.data.label_names.get(l as usize))
                        .map_or(String::new(), |l| format!("{:<18} ", fit(l, 18)));
                    let title = document.title.as_deref().unwrap_or(&document.id);
                    let mark = if rank == 0 { "★ " } else { "  " };
                    ListItem::new(format!("{mark}{label}{}", title.trim()))
                })
                .collect();
            let list = List::new(items).highlight_style(theme.selected(focused));
            let mut state =
                ListState::default().with_selected(Some(model.document_cursor - offset));
            frame.render_stateful_widget(list, body, &mut state);
        }
        DetailTab::Preview => draw_preview(frame, model, theme, body),
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
        match model
            .job_progress
            .as_ref()
            .map(|progress| progress.snapshot())
        {
            Some(snapshot) if !snapshot.phase.is_empty() => {
                let counts = if snapshot.total > 0 {
                    format!(" {}/{}", snapshot.done, snapshot.total)
                } else {
                    String::new()
                };
                format!(
                    "⏳ {} · {}{counts} (Esc stops)",
                    model.status, snapshot.phase
                )
            }
            _ => format!("⏳ {}", model.status),
        }
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
                    Some(title) => lines.push(Line::styled(title, theme.heading())),
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
    // Linear rules on the left, kernel rules on the right, so that every row fits 24 lines.
    let rule_rows = RuleSpec::NAMES.len().max(RuleSpec::KERNEL_NAMES.len());
    let height = u16::try_from(rule_rows + PARAMS.len() + 4).unwrap_or(u16::MAX);
    let area = popup_area(full, 76, height);
    let mut lines = Vec::new();
    let cell = |index: usize| -> Span<'static> {
        let Some(name) = rule_name(index) else {
            return Span::raw(String::new());
        };
        let radio = if index == picker.rule_index {
            "(•)"
        } else {
            "( )"
        };
        let text = format!(" {radio} {name:<24}");
        if index == picker.cursor {
            Span::styled(text, theme.selected(true))
        } else {
            Span::raw(text)
        }
    };
    for row in 0..rule_rows {
        lines.push(Line::from(vec![
            cell(row),
            cell(RuleSpec::NAMES.len() + row),
        ]));
    }
    for (index, param) in PARAMS.iter().enumerate() {
        let row = RULE_COUNT + index;
        let value = match (&picker.typed, row == picker.cursor) {
            (Some(typed), true) => format!("{typed}▏"),
            _ => (param.get)(&picker.params),
        };
        let users = used_by(param);
        let used_by = if users.len() == RuleSpec::KERNEL_NAMES.len()
            && users
                .iter()
                .all(|name| RuleSpec::KERNEL_NAMES.contains(name))
        {
            "every kernel rule".to_string()
        } else {
            users.join(", ")
        };
        let name = param.name;
        let mut line = Line::from(vec![
            Span::raw(format!("     {name:<10}{value:<20}")),
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

/// The screen while the corpus loads: what, for how long, the loader's phase and counts with a bar, and the key.
/// `tick` counts tenths of a second since loading started.
pub fn view_loading(frame: &mut Frame, loading: &Loading, tick: usize, colors: bool) {
    let theme = Theme { color: colors };
    let spinner = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"][tick % 10];
    let area = popup_area(frame.area(), 64, 7);
    let inner_width = usize::from(area.width.saturating_sub(2));
    let (progress, fraction) = loading.progress_text();
    let bar_line = match fraction {
        Some(fraction) => Line::styled(
            format!(
                "{} {:>3.0}%",
                bar(fraction, 1.0, inner_width.saturating_sub(5)),
                fraction * 100.0
            ),
            theme.fg(Color::Green),
        ),
        None => Line::raw(""),
    };
    let key_line = if loading.cancelling {
        Line::styled("cancelling…", theme.heading())
    } else {
        Line::styled("Esc stops loading and quits", theme.dim())
    };
    let lines = vec![
        Line::raw(fit(
            &format!("{spinner} Loading {}… {} s", loading.what, tick / 10),
            inner_width,
        )),
        Line::raw(fit(&progress, inner_width)),
        bar_line,
        Line::raw(""),
        key_line,
    ];
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines).block(popup_block(" pdx ".into(), theme)),
        area,
    );
}

/// The letter that marks a rule's cut under the histogram and heads its row in the rule table.
fn rule_symbol(index: usize, rule: &RuleSpec) -> char {
    match rule {
        RuleSpec::Pddp { l: 1 } => 'P',
        RuleSpec::Pddp2Means => 'M',
        RuleSpec::PddpOc => 'O',
        RuleSpec::PddpOc2Means => 'm',
        RuleSpec::PddpOcpc { l: 1 } => 'C',
        RuleSpec::Pdgp { .. } => 'G',
        _ => char::from_digit((index % 10) as u32, 10).unwrap_or('*'),
    }
}

/// Colours of the labels in the scatter plot, in turn.
const LABEL_COLORS: [Color; 12] = [
    Color::Red,
    Color::Green,
    Color::Yellow,
    Color::Blue,
    Color::Magenta,
    Color::Cyan,
    Color::LightRed,
    Color::LightGreen,
    Color::LightYellow,
    Color::LightBlue,
    Color::LightMagenta,
    Color::LightCyan,
];

/// The symbol of label `l` in the plain (NO_COLOR) scatter plot: a-z, then A-Z, then `#`.
fn label_symbol(label: Option<usize>) -> char {
    const SYMBOLS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    match label {
        Some(l) => SYMBOLS.get(l).map_or('#', |&c| char::from(c)),
        None => '?',
    }
}

/// A figure for a narrow column: three decimals, fewer as it grows.
fn short_number(value: f64) -> String {
    if value.abs() >= 1000.0 {
        format!("{value:.0}")
    } else if value.abs() >= 100.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.3}")
    }
}

/// The Preview tab: what each linear rule would do to the selected leaf.
fn draw_preview(frame: &mut Frame, model: &Model, theme: Theme, area: Rect) {
    let id = model.selected;
    let message = match model.tree.unsplittable_reason(id) {
        Ok(Some(_)) if model.tree.node(id).is_some_and(|n| !n.is_leaf()) => Some(format!(
            "{} is split already; select a leaf to preview its split.",
            model.label(id)
        )),
        Ok(Some(reason)) => Some(format!("{} cannot be split: {reason}.", model.label(id))),
        Ok(None) => None,
        Err(error) => Some(error.to_string()),
    };
    let entry = model.current_preview();
    let message = message.or_else(|| match entry {
        None => Some("computing the split preview…".into()),
        Some(entry) => entry
            .result
            .as_ref()
            .err()
            .map(|e| format!("no preview: {e}")),
    });
    let (Some(entry), None) = (entry, &message) else {
        let text = message.unwrap_or_default();
        frame.render_widget(
            Paragraph::new(Line::styled(text, theme.dim())).wrap(Wrap { trim: true }),
            area,
        );
        return;
    };
    let Ok(preview) = &entry.result else {
        return;
    };
    let width = usize::from(area.width);
    let histogram_rows = match area.height {
        0..12 => 2,
        12..30 => 3,
        _ => 6,
    };
    let lines = preview_lines(model, theme, preview, width, histogram_rows);
    let text_height = u16::try_from(lines.len()).unwrap_or(u16::MAX);
    // The scatter plot takes what the text leaves, if that is enough to read it.
    let plot_height = area.height.saturating_sub(text_height + 1);
    if plot_height >= 10 {
        let [text_area, _, plot_area] = Layout::vertical([
            Constraint::Length(text_height),
            Constraint::Length(1),
            Constraint::Min(0),
        ])
        .areas(area);
        frame.render_widget(Paragraph::new(lines), text_area);
        draw_scatter(
            frame,
            model,
            theme,
            preview,
            entry.second_pending,
            plot_area,
        );
    } else {
        let scroll = u16::try_from(model.detail_scroll).unwrap_or(u16::MAX);
        frame.render_widget(Paragraph::new(lines).scroll((scroll, 0)), area);
    }
}

/// The text part of the preview: the current rule's outcome, the histogram with the cuts, the rule table.
fn preview_lines(
    model: &Model,
    theme: Theme,
    preview: &SplitPreview,
    width: usize,
    histogram_rows: usize,
) -> Vec<Line<'static>> {
    let current = preview.rules.iter().find(|r| r.rule == model.rule);
    let mut lines = current_rule_lines(model, theme, current, width);

    // The histogram of the leading coordinates, over a range that holds every cut.
    let cuts: Vec<(usize, f64)> = preview
        .rules
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.cut.filter(|c| c.is_finite()).map(|c| (i, c)))
        .collect();
    let (mut low, mut high) = preview
        .coordinates
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        });
    for &(_, cut) in &cuts {
        low = low.min(cut);
        high = high.max(cut);
    }
    // Bins a few columns wide when there are few documents, so that the shape shows rather than single dots.
    let width = width.max(1);
    let bins_wanted = (preview.coordinates.len() / 3).max(8).min(width);
    let columns_per_bin = width.div_ceil(bins_wanted);
    let bins = (width / columns_per_bin).max(1);
    let used = bins * columns_per_bin;
    // No spread (or no coordinates at all): a unit range, so that the columns below stay finite.
    if high.partial_cmp(&low) != Some(std::cmp::Ordering::Greater) {
        low = if low.is_finite() { low } else { 0.0 };
        high = low + 1.0;
    }
    // The screen column of coordinate x.
    let column = |x: f64| {
        (((x - low) / (high - low)) * used as f64)
            .floor()
            .clamp(0.0, (used - 1) as f64) as usize
    };
    let mut counts = vec![0usize; bins];
    for &x in &preview.coordinates {
        counts[column(x) / columns_per_bin] += 1;
    }
    let max = counts.iter().copied().max().unwrap_or(0).max(1) as f64;
    lines.push(Line::styled(
        format!(
            "Leading coordinate σ1·v1 of {} documents (σ1 = {:.3})",
            preview.coordinates.len(),
            preview.singular_values.first().copied().unwrap_or(0.0)
        ),
        theme.heading(),
    ));
    const LEVELS: [&str; 9] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"];
    for row in (0..histogram_rows).rev() {
        let text: String = counts
            .iter()
            .flat_map(|&count| {
                let eighths = (count as f64 / max * (histogram_rows * 8) as f64).round() as usize;
                // A non-empty bin shows at least a sliver.
                let eighths = if count > 0 { eighths.max(1) } else { 0 };
                std::iter::repeat_n(
                    LEVELS[eighths.saturating_sub(row * 8).min(8)],
                    columns_per_bin,
                )
            })
            .collect();
        lines.push(Line::styled(text, theme.fg(Color::Green)));
    }
    // The cut marks: one letter per rule (the table below names them); `*` where several cuts share a column.
    let mut marks = vec![' '; used];
    let mut current_column = None;
    for &(i, cut) in &cuts {
        let c = column(cut);
        marks[c] = if marks[c] == ' ' {
            rule_symbol(i, &preview.rules[i].rule)
        } else {
            '*'
        };
        if preview.rules[i].rule == model.rule {
            current_column = Some(c);
        }
    }
    let spans: Vec<Span> = marks
        .iter()
        .enumerate()
        .map(|(c, &m)| {
            let style = if Some(c) == current_column {
                theme.heading().add_modifier(Modifier::REVERSED)
            } else {
                theme.fg(Color::Cyan)
            };
            Span::styled(m.to_string(), style)
        })
        .collect();
    lines.push(Line::from(spans));
    let left = short_number(low);
    let right = short_number(high);
    let gap = used.saturating_sub(left.chars().count() + right.chars().count());
    lines.push(Line::styled(
        format!("{left}{}{right}", " ".repeat(gap)),
        theme.dim(),
    ));

    // The rule table.
    let labels = model.has_labels();
    let mut header = format!(
        "  {:<15}{:>8} {:<13}{:>10}",
        "rule", "cut", "children", "scatter"
    );
    if labels {
        header.push_str(&format!("{:>8}{:>7}", "entropy", "purity"));
    }
    lines.push(Line::styled(header, theme.heading()));
    for (i, rule_preview) in preview.rules.iter().enumerate() {
        lines.push(rule_row(i, rule_preview, model, theme, labels));
    }
    lines
}

/// What the current rule would do: one line, or two when the purity does not fit on the first.
fn current_rule_lines(
    model: &Model,
    theme: Theme,
    current: Option<&RulePreview>,
    width: usize,
) -> Vec<Line<'static>> {
    let name = model.rule_text();
    let Some(current) = current else {
        return vec![Line::styled(
            format!("{name}: not previewed (it does not cut the principal direction); s splits"),
            theme.dim(),
        )];
    };
    match &current.outcome {
        Err(error) => vec![Line::styled(
            format!("{name} refuses: {error}"),
            theme.fg(Color::Red),
        )],
        Ok(outcome) => {
            let sizes: Vec<String> = outcome.child_sizes.iter().map(|s| s.to_string()).collect();
            let change = if outcome.objective_before > 0.0 {
                format!(
                    " ({:+.0}%)",
                    (outcome.objective_after / outcome.objective_before - 1.0) * 100.0
                )
            } else {
                String::new()
            };
            let style = theme.fg(Color::Cyan).add_modifier(Modifier::BOLD);
            let first = format!(
                "{name}: {} children {} · scatter {} → {}{change}",
                outcome.child_sizes.len(),
                sizes.join("+"),
                short_number(outcome.objective_before),
                short_number(outcome.objective_after),
            );
            let purity = match (
                outcome.purity_after,
                model.derived.node_figures.get(&model.selected),
            ) {
                (Some(after), Some(node)) => format!(
                    "purity {} → {} in the children",
                    percent(node.purity),
                    percent(after)
                ),
                _ => return vec![Line::styled(first, style)],
            };
            if first.chars().count() + purity.chars().count() + 3 <= width {
                vec![Line::styled(format!("{first} · {purity}"), style)]
            } else {
                vec![Line::styled(first, style), Line::styled(purity, style)]
            }
        }
    }
}

fn rule_row(
    index: usize,
    rule_preview: &RulePreview,
    model: &Model,
    theme: Theme,
    labels: bool,
) -> Line<'static> {
    let symbol = rule_symbol(index, &rule_preview.rule);
    // `l=1` is the default of the rules that take it: only other values are worth the room.
    let default_l = matches!(
        rule_preview.rule,
        RuleSpec::Pddp { l: 1 } | RuleSpec::PddpOcpc { l: 1 }
    );
    let params = rule_preview.rule.params_text();
    let name = if params.is_empty() || default_l {
        rule_preview.rule.name().to_string()
    } else {
        format!("{} {params}", rule_preview.rule.name())
    };
    let cut = rule_preview.cut.map_or("-".to_string(), short_number);
    let text = match &rule_preview.outcome {
        Ok(outcome) => {
            let sizes: Vec<String> = outcome.child_sizes.iter().map(|s| s.to_string()).collect();
            let mut text = format!(
                "{symbol} {:<15}{cut:>8} {:<13}{:>10}",
                fit(&name, 15),
                fit(&sizes.join("+"), 13),
                short_number(outcome.objective_after)
            );
            if labels {
                let entropy = outcome
                    .entropy_after
                    .map_or("-".into(), |e| format!("{e:.3}"));
                let purity = outcome.purity_after.map_or("-".into(), percent);
                text.push_str(&format!("{entropy:>8}{purity:>7}"));
            }
            text
        }
        Err(error) => format!("{symbol} {:<15}{cut:>8} refuses: {error}", fit(&name, 15)),
    };
    let style = if rule_preview.rule == model.rule {
        theme.heading()
    } else {
        Style::new()
    };
    Line::styled(text, style)
}

/// The members on the first two principal coordinates, by label: Braille dots coloured by label, or without
/// colours, one letter per label in each cell (the label with most members there).
fn draw_scatter(
    frame: &mut Frame,
    model: &Model,
    theme: Theme,
    preview: &SplitPreview,
    second_pending: bool,
    area: Rect,
) {
    let Some(second) = &preview.second else {
        let text = if second_pending {
            "computing the scatter plot (second principal direction)…"
        } else {
            "no scatter plot: the node has a single principal direction"
        };
        frame.render_widget(Paragraph::new(Line::styled(text, theme.dim())), area);
        return;
    };
    let Some(node) = model.tree.node(preview.node) else {
        return;
    };
    let data = &model.data;
    let label_of = |member: usize| -> Option<usize> {
        node.members
            .get(member)
            .and_then(|&j| data.documents.get(j))
            .and_then(|d| d.label)
            .map(|l| l as usize)
    };
    // The legend: the labels present in the node, most members first.
    let label_count = data.label_names.len();
    let mut present = vec![0usize; label_count];
    for member in 0..preview.coordinates.len() {
        if let Some(l) = label_of(member).filter(|&l| l < label_count) {
            present[l] += 1;
        }
    }
    let mut order: Vec<usize> = (0..label_count).filter(|&l| present[l] > 0).collect();
    order.sort_by(|&a, &b| present[b].cmp(&present[a]).then(a.cmp(&b)));
    // Legend entries packed into lines as wide as the area.
    let mut legend: Vec<Line> = Vec::new();
    let mut line: Vec<Span> = Vec::new();
    let mut used = 0;
    for &l in &order {
        let name = fit(&data.label_names[l], 18);
        let (mark, style) = if theme.color {
            (
                "•".to_string(),
                Style::new().fg(LABEL_COLORS[l % LABEL_COLORS.len()]),
            )
        } else {
            (
                label_symbol(Some(l)).to_string(),
                Style::new().add_modifier(Modifier::BOLD),
            )
        };
        let entry_width = name.chars().count() + 4;
        if used > 0 && used + entry_width > usize::from(area.width) {
            legend.push(Line::from(std::mem::take(&mut line)));
            used = 0;
        }
        line.push(Span::styled(mark, style));
        line.push(Span::raw(format!(" {name}  ")));
        used += entry_width;
    }
    if !line.is_empty() {
        legend.push(Line::from(line));
    }
    legend.truncate(usize::from(area.height / 3));
    let title = Line::styled(
        "Principal coordinates 1 (→) and 2 (↑), by label",
        theme.heading(),
    );
    let legend_rows = u16::try_from(legend.len()).unwrap_or(u16::MAX);
    let [title_area, plot_area, legend_area] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(legend_rows),
    ])
    .areas(area);
    frame.render_widget(Paragraph::new(legend), legend_area);
    frame.render_widget(Paragraph::new(title), title_area);

    let bounds = |values: &[f64]| {
        let (lo, hi) = values
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
                (lo.min(x), hi.max(x))
            });
        if hi > lo {
            [lo, hi]
        } else {
            [lo - 1.0, lo + 1.0]
        }
    };
    let x_bounds = bounds(&preview.coordinates);
    let y_bounds = bounds(second);
    if theme.color {
        let mut groups: Vec<Vec<(f64, f64)>> = vec![Vec::new(); label_count + 1];
        for (member, (&x, &y)) in preview.coordinates.iter().zip(second).enumerate() {
            let group = label_of(member)
                .filter(|&l| l < label_count)
                .unwrap_or(label_count);
            groups[group].push((x, y));
        }
        let canvas = Canvas::default()
            .marker(Marker::Braille)
            .x_bounds(x_bounds)
            .y_bounds(y_bounds)
            .paint(move |ctx| {
                for (group, coords) in groups.iter().enumerate() {
                    let color = if group == label_count {
                        Color::Gray
                    } else {
                        LABEL_COLORS[group % LABEL_COLORS.len()]
                    };
                    ctx.draw(&Points { coords, color });
                }
            });
        frame.render_widget(canvas, plot_area);
    } else {
        let (w, h) = (usize::from(plot_area.width), usize::from(plot_area.height));
        if w == 0 || h == 0 {
            return;
        }
        // Per cell, members per label (the last slot for unlabelled members).
        let slots = label_count + 1;
        let mut counts = vec![0u32; w * h * slots];
        let cell_of = |value: f64, [lo, hi]: [f64; 2], n: usize| {
            (((value - lo) / (hi - lo)) * n as f64)
                .floor()
                .clamp(0.0, (n - 1) as f64) as usize
        };
        for (member, (&x, &y)) in preview.coordinates.iter().zip(second).enumerate() {
            let column = cell_of(x, x_bounds, w);
            let row = h - 1 - cell_of(y, y_bounds, h);
            let slot = label_of(member)
                .filter(|&l| l < label_count)
                .unwrap_or(label_count);
            counts[(row * w + column) * slots + slot] += 1;
        }
        let lines: Vec<Line> = counts
            .chunks(w * slots)
            .map(|row| {
                let text: String = row
                    .chunks(slots)
                    .map(|cell| {
                        // The label with most members in the cell; the lower index on a tie.
                        let (slot, &count) = cell
                            .iter()
                            .enumerate()
                            .rev()
                            .max_by_key(|&(_, count)| count)
                            .unwrap_or((0, &0));
                        match count {
                            0 => ' ',
                            _ => label_symbol((slot < label_count).then_some(slot)),
                        }
                    })
                    .collect();
                Line::raw(text)
            })
            .collect();
        frame.render_widget(Paragraph::new(lines), plot_area);
    }
}
