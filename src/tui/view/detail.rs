//! The detail pane of the selected node: its tabs, and the Terms, Labels and Documents tabs (the Preview tab is in
//! `preview`).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Color;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, List, ListItem, ListState, Paragraph, Tabs};

use crate::printable;
use crate::report::terms::TermWeight;

use super::super::model::shorten_path;
use super::super::model::{DetailTab, InContext, Model, Pane};
use super::hits::in_context_spans;
use super::preview::draw_preview;
use super::{FOCUS_MARK, Theme, bar, fit, list_offset, percent, tab_titles};

pub(super) fn term_lines(
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
    // As wide as the largest weight written out (a corpus of large values has weights of several digits).
    let value_width = terms
        .iter()
        .map(|t| format!("{:.3}", t.weight).len())
        .max()
        .unwrap_or(0)
        .max(6);
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

pub(super) fn draw_detail(frame: &mut Frame, model: &Model, theme: Theme, area: Rect) {
    let focused = model.focus() == Pane::Detail;
    let detail = &model.detail();
    let size = model.tree().node(detail.node).map_or(0, |n| n.size());
    // The node's path from the root, cut from the left when the pane is narrow: the node's end always shows.
    let documents = match model.filter_by() {
        Some(query) => format!(
            " · {} of {size} documents · filter {} ",
            detail.documents.len(),
            printable::escaped(&query.to_string())
        ),
        None => format!(" · {size} documents "),
    };
    let room = usize::from(area.width)
        .saturating_sub(documents.chars().count() + 3 + FOCUS_MARK.chars().count())
        .max(1);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(focused))
        .title(theme.pane_title(
            focused,
            format!(
                "{}{documents}",
                shorten_path(&shown_path(model, detail.node), room)
            ),
        ));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [tabs_area, body] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(inner);
    let tabs = Tabs::new(tab_titles())
        .select(model.tab().index())
        .highlight_style(theme.selected(true))
        .divider("│");
    frame.render_widget(tabs, tabs_area);

    let width = usize::from(body.width);
    let scroll = u16::try_from(model.detail_scroll()).unwrap_or(u16::MAX);
    // A large node's centroid or ranking comes from a worker: say what it is computing until then.
    if let Some(waiting) = model.detail_waiting() {
        frame.render_widget(Paragraph::new(Line::from(waiting).style(theme.dim())), body);
        return;
    }
    match model.tab() {
        DetailTab::Terms => {
            let against = detail
                .against
                .as_deref()
                .unwrap_or("(the root has no sibling)");
            let top_title = "Top terms (centroid weight)".to_string();
            let discriminating_title = format!("Against {}", printable::escaped(against));
            // The cursor `d` acts on: a row of the top terms, then of the discriminating ones; the scroll follows
            // it down when it leaves the pane.
            let cursor = model.term_cursor();
            let top_count = detail.top_terms.len();
            let on_top = cursor < top_count;
            let cursor_style = theme.selected(focused);
            let mark = |lines: &mut Vec<Line<'static>>, row: usize| {
                // Only where the keys reach it: with the focus elsewhere the tab reads as it always did.
                if let Some(line) = lines.get_mut(row).filter(|_| focused) {
                    *line = std::mem::take(line).style(cursor_style);
                }
            };
            let follow = |row: usize| {
                let shown = u16::try_from(list_offset(row, body.height)).unwrap_or(u16::MAX);
                scroll.max(shown)
            };
            if width >= 64 {
                let [left, right] =
                    Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                        .areas(body);
                let half = usize::from(left.width).saturating_sub(1);
                let mut top = term_lines(top_title, &detail.top_terms, half, theme);
                let mut disc =
                    term_lines(discriminating_title, &detail.discriminating, half, theme);
                let row = 1 + if on_top { cursor } else { cursor - top_count };
                mark(if on_top { &mut top } else { &mut disc }, row);
                let scroll = follow(row);
                frame.render_widget(Paragraph::new(top).scroll((scroll, 0)), left);
                frame.render_widget(Paragraph::new(disc).scroll((scroll, 0)), right);
            } else {
                let mut lines = term_lines(top_title, &detail.top_terms, width, theme);
                lines.push(Line::raw(""));
                let row = if on_top {
                    1 + cursor
                } else {
                    lines.len() + 1 + cursor - top_count
                };
                lines.extend(term_lines(
                    discriminating_title,
                    &detail.discriminating,
                    width,
                    theme,
                ));
                mark(&mut lines, row);
                frame.render_widget(Paragraph::new(lines).scroll((follow(row), 0)), body);
            }
        }
        DetailTab::Labels => {
            let lines = label_lines(model, theme, width);
            frame.render_widget(Paragraph::new(lines).scroll((scroll, 0)), body);
        }
        DetailTab::Documents => {
            // Only the rows on screen are built: the root of a large corpus has tens of thousands of members.
            let offset = list_offset(model.document_cursor(), body.height);
            let shown = detail
                .documents
                .iter()
                .enumerate()
                .skip(offset)
                .take(usize::from(body.height));
            let filtered = model.filter_by().is_some();
            let items: Vec<ListItem> = shown
                .map(|(rank, &j)| {
                    let label = model
                        .document_label(j)
                        .map_or(String::new(), |l| format!("{:<18} ", fit(l, 18)));
                    // A document marked for a move shows it in place of the most representative's star; the
                    // first in the list is nearest the centroid, unless a filter hid some.
                    let mark = if model.marked_documents().contains(&j) {
                        "● "
                    } else if rank == 0 && !filtered {
                        "★ "
                    } else {
                        "  "
                    };
                    ListItem::new(document_row(
                        model,
                        j,
                        format!("{mark}{label}"),
                        width,
                        theme,
                    ))
                })
                .collect();
            let list = List::new(items).highlight_style(theme.selected(focused));
            let mut state =
                ListState::default().with_selected(Some(model.document_cursor() - offset));
            frame.render_stateful_widget(list, body, &mut state);
        }
        DetailTab::Preview => draw_preview(frame, model, theme, body),
    }
}

/// The narrowest snippet worth showing beside a document's heading.
const MIN_SNIPPET: usize = 16;

/// A Documents tab row: `prefix` (the star and the label), the heading, and when there is room the document's
/// keyword in context (the search's match, or the node's most distinctive word), or "reading…" until its text
/// is read, or why it cannot be shown.
fn document_row(
    model: &Model,
    document: usize,
    prefix: String,
    width: usize,
    theme: Theme,
) -> Line<'static> {
    let heading = model.document_heading(document);
    let room = width.saturating_sub(prefix.chars().count());
    let heading_width = (room * 2 / 5).clamp(12, 40);
    let snippet_width = room.saturating_sub(heading_width + 2);
    let context = model.document_in_context(document);
    if snippet_width < MIN_SNIPPET || matches!(context, InContext::Shown { mark: None, .. }) {
        return Line::raw(format!("{prefix}{}", printable::escaped(&heading)));
    }
    let mut spans = vec![
        Span::raw(prefix),
        Span::raw(format!(
            "{:<heading_width$}  ",
            fit(&heading, heading_width)
        )),
    ];
    spans.extend(in_context_spans(context, snippet_width, theme));
    Line::from(spans)
}

/// The names from the root to `node`, escaped (a name may come from a session file).
fn shown_path(model: &Model, node: usize) -> Vec<String> {
    model
        .path(node)
        .iter()
        .map(|name| printable::escaped(name).into_owned())
        .collect()
}

pub(super) fn label_lines(model: &Model, theme: Theme, width: usize) -> Vec<Line<'static>> {
    let id = model.detail().node;
    if model.blind() {
        return vec![Line::styled(
            "Labels are hidden (b shows them).",
            theme.dim(),
        )];
    }
    let (Some(counts), Some(figures)) = (model.label_counts(id), model.node_figures(id)) else {
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
        let name = model.data().label_names.get(l).cloned().unwrap_or_default();
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
