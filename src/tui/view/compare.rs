//! Side-by-side popups: a node's alternative splits in columns with, below them, where the active one and
//! another disagree ([`super::disagree`]); and two nodes' terms in three columns (only in A, shared, only in B).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph};

use crate::printable;
use crate::report::compare::SharedTerm;

use super::super::model::{AlternativesView, ComparisonView, Model};
use super::disagree::{disputed_lines, table_lines};
use super::popups::{popup_area, popup_block};
use super::{Theme, fit, list_offset, node_label, percent};

/// The narrowest column an alternative gets; fewer columns show when the screen is narrower.
const SPLIT_COLUMN: usize = 26;
/// Rows of the disputed list kept in sight below the columns of splits, when it has that many.
const DISPUTED_ROWS: usize = 4;

fn scroll_offset(scroll: usize) -> (u16, u16) {
    (u16::try_from(scroll).unwrap_or(u16::MAX), 0)
}

/// One alternative's column: its rule, sizes, scatter, figures, then what each child holds.
fn split_lines(
    model: &Model,
    theme: Theme,
    split: &crate::report::compare::SplitSummary,
    width: usize,
) -> Vec<Line<'static>> {
    let mark = if split.active { "● active" } else { "○" };
    let mut lines = vec![
        Line::styled(
            fit(&format!("{} · {mark}", split.index + 1), width),
            theme.heading(),
        ),
        Line::styled(fit(&split.rule, width), theme.heading()),
    ];
    let sizes: Vec<String> = split.child_sizes.iter().map(usize::to_string).collect();
    lines.push(Line::raw(fit(
        &format!("sizes {}", sizes.join(" · ")),
        width,
    )));
    let drop = if split.objective_before > 0.0 {
        format!(
            " (-{})",
            percent(1.0 - split.objective_after / split.objective_before)
        )
    } else {
        String::new()
    };
    lines.push(Line::raw(fit(
        &format!(
            "scatter {:.3} → {:.3}{drop}",
            split.objective_before, split.objective_after
        ),
        width,
    )));
    if let Some(figures) = split.figures.as_ref().filter(|_| model.labels_shown()) {
        lines.push(Line::raw(fit(
            &format!(
                "purity {} · entropy {:.2} · NMI {:.2}",
                percent(figures.purity),
                figures.entropy,
                figures.nmi
            ),
            width,
        )));
    }
    let children = split.sides.iter().zip(&split.child_sizes).enumerate();
    for (place, (side, size)) in children {
        lines.push(Line::raw(""));
        let id = split
            .children
            .get(place)
            .map_or(String::new(), |id| format!("#{id} "));
        lines.push(Line::styled(
            fit(&format!("{id}({size}) holds:"), width),
            theme.dim(),
        ));
        // Its documents per label, the most frequent first, while labels are shown.
        let labels = split.labels.get(place).filter(|_| model.labels_shown());
        if let Some(labels) = labels.filter(|labels| !labels.is_empty()) {
            let names = &model.data().label_names;
            let counts: Vec<String> = labels
                .iter()
                .filter_map(|&(label, count)| {
                    let name = names.get(label as usize)?;
                    Some(format!("{} {count}", printable::escaped(name)))
                })
                .collect();
            lines.push(Line::raw(fit(
                &format!("labels {}", counts.join(" · ")),
                width,
            )));
        }
        for term in side {
            let weight = format!("{:.3}", term.weight);
            let room = width.saturating_sub(weight.len() + 1);
            lines.push(Line::raw(format!(
                "{:<room$} {weight}",
                fit(&term.term, room)
            )));
        }
    }
    lines
}

pub(super) fn draw_alternatives(
    frame: &mut Frame,
    model: &Model,
    theme: Theme,
    view: &AlternativesView,
    scroll: usize,
    cursor: usize,
) {
    let full = frame.area();
    let area = popup_area(
        full,
        full.width.saturating_sub(2),
        full.height.saturating_sub(2),
    );
    let title = format!(
        " Splits of {} · [ ] switch · K keep the active · Enter lists · Esc closes ",
        node_label(model, view.node)
    );
    let block = popup_block(fit(&title, usize::from(area.width)), theme);
    let inner = block.inner(area);
    frame.render_widget(Clear, area);
    frame.render_widget(block, area);
    let width = usize::from(inner.width);
    let table = view
        .disagreement
        .as_ref()
        .map(|d| (d, table_lines(model, theme, view, d, width)));
    // The columns of splits take what they need of the height, but leave the table and the first disputed
    // documents in sight below them (and at least half the height); the page keys scroll them.
    let height = usize::from(inner.height);
    let columns_height = match &table {
        None => height,
        Some((d, lines)) => {
            let below = lines.len() + d.table.disputed.len().min(DISPUTED_ROWS);
            let columns = view.column_lines(model.labels_shown());
            columns.min(height.saturating_sub(below).max(height / 2))
        }
    };
    let [top, bottom] = Layout::vertical([
        Constraint::Length(u16::try_from(columns_height).unwrap_or(u16::MAX)),
        Constraint::Min(0),
    ])
    .areas(inner);
    draw_split_columns(frame, model, theme, view, scroll, top);
    if let Some((d, mut lines)) = table {
        let rows = usize::from(bottom.height).saturating_sub(lines.len());
        let offset = list_offset(cursor, u16::try_from(rows).unwrap_or(u16::MAX));
        lines.extend(disputed_lines(
            model,
            theme,
            d,
            width,
            (offset, rows),
            cursor,
        ));
        frame.render_widget(Paragraph::new(lines), bottom);
    }
}

/// The node's splits in columns, scrolled down `scroll` lines, in `area`.
fn draw_split_columns(
    frame: &mut Frame,
    model: &Model,
    theme: Theme,
    view: &AlternativesView,
    scroll: usize,
    area: Rect,
) {
    let count = view.splits.len().max(1);
    let fitting = (usize::from(area.width) / SPLIT_COLUMN).clamp(1, count);
    // The columns shown start so that the active split is among them.
    let active = view.splits.iter().position(|s| s.active).unwrap_or(0);
    let first = active.saturating_sub(fitting - 1);
    // Columns no wider than a term list needs, so that a word and its weight stay close.
    let width = (usize::from(area.width) / fitting).min(SPLIT_COLUMN * 2);
    let constraints = vec![Constraint::Length(u16::try_from(width).unwrap_or(u16::MAX)); fitting];
    let columns = Layout::horizontal(constraints).spacing(1).split(area);
    for (split, column) in view.splits.iter().skip(first).zip(columns.iter()) {
        let lines = split_lines(model, theme, split, usize::from(column.width));
        frame.render_widget(Paragraph::new(lines).scroll(scroll_offset(scroll)), *column);
    }
}

/// Which weights a column of the comparison shows.
#[derive(Clone, Copy)]
enum Column {
    OnlyA,
    Both,
    OnlyB,
}

/// A term with its weight in its column's node (both weights in the shared column), in one column's width.
fn term_cell(term: &SharedTerm, width: usize, column: Column) -> String {
    let weights = match column {
        Column::OnlyA => format!("{:.3}", term.weight_a),
        Column::Both => format!("{:.3}/{:.3}", term.weight_a, term.weight_b),
        Column::OnlyB => format!("{:.3}", term.weight_b),
    };
    let room = width.saturating_sub(weights.len() + 1);
    format!("{:<room$} {weights}", fit(&term.term, room))
}

pub(super) fn draw_comparison(
    frame: &mut Frame,
    model: &Model,
    theme: Theme,
    view: &ComparisonView,
    scroll: usize,
) {
    let full = frame.area();
    let area = popup_area(
        full,
        full.width.saturating_sub(2).min(120),
        full.height.saturating_sub(2),
    );
    let c = &view.comparison;
    let (a, b) = (node_label(model, c.a), node_label(model, c.b));
    let block = popup_block(
        fit(
            &format!(" Compare A {a} with B {b} · Esc closes "),
            usize::from(area.width),
        ),
        theme,
    );
    let width = usize::from(area.width.saturating_sub(2));
    let mut lines = vec![Line::raw(fit(
        &format!(
            "A {a}: {} documents · B {b}: {} documents · {} in both",
            c.size_a, c.size_b, c.common_members
        ),
        width,
    ))];
    lines.push(Line::raw(""));
    let column = width.saturating_sub(2) / 3;
    lines.push(Line::styled(
        format!(
            "{:<column$} {:<column$} {:<column$}",
            fit("only in A", column),
            fit("in both (A/B)", column),
            fit("only in B", column)
        ),
        theme.heading(),
    ));
    let rows = c.only_a.len().max(c.shared.len()).max(c.only_b.len());
    for row in 0..rows {
        let cell = |terms: &[SharedTerm], which: Column| {
            terms
                .get(row)
                .map_or(String::new(), |t| term_cell(t, column, which))
        };
        lines.push(Line::raw(format!(
            "{:<column$} {:<column$} {:<column$}",
            cell(&c.only_a, Column::OnlyA),
            cell(&c.shared, Column::Both),
            cell(&c.only_b, Column::OnlyB)
        )));
    }
    if !view.label_rows.is_empty() {
        let name_width = width.saturating_sub(14).min(40);
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            format!("{:<name_width$} {:>6} {:>6}", "label", "A", "B"),
            theme.heading(),
        ));
        for (label, in_a, in_b) in &view.label_rows {
            lines.push(Line::raw(format!(
                "{:<name_width$} {in_a:>6} {in_b:>6}",
                fit(label, name_width)
            )));
        }
    }
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .scroll(scroll_offset(scroll)),
        area,
    );
}
