//! The leaf picker: every leaf with its name or `#id`, its size and top words, to choose where documents moved
//! by hand go, or which leaf a leaf is merged into.

use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::super::model::{LeafPicker, Model, Picking};
use super::popups::{popup_area, popup_block};
use super::{Theme, fit};

/// The picker's width at most.
const LEAF_PICKER_WIDTH: u16 = 72;

pub(super) fn draw_leaf_picker(
    frame: &mut Frame,
    model: &Model,
    theme: Theme,
    picker: &LeafPicker,
) {
    let full = frame.area();
    let rows = model.leaf_rows(picker.picking());
    let count = model.picked_count(picker.picking());
    let width = LEAF_PICKER_WIDTH.min(full.width.saturating_sub(2));
    let inner_width = usize::from(width.saturating_sub(2));
    // The rows, a blank line, what is typed and the keys; the list scrolls to keep the cursor in view.
    let height = u16::try_from(rows.len() + 5)
        .unwrap_or(u16::MAX)
        .min(full.height.saturating_sub(2));
    let area = popup_area(full, width, height);
    let list_height = usize::from(area.height.saturating_sub(5)).max(1);
    let offset = picker.cursor().saturating_sub(list_height - 1);
    let label_width = rows
        .iter()
        .map(|row| row.label.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(4, 24);
    let size_width = rows
        .iter()
        .map(|row| row.size.to_string().len())
        .max()
        .unwrap_or(1);
    let mut lines: Vec<Line> = rows
        .iter()
        .enumerate()
        .skip(offset)
        .take(list_height)
        .map(|(index, row)| {
            let here = if row.holds == count {
                "all here"
            } else if row.holds > 0 {
                "some here"
            } else {
                ""
            };
            // The cursor is marked in text too, for a screen without colours.
            let pointer = if index == picker.cursor() { '›' } else { ' ' };
            let text = format!(
                "{pointer}{:<label_width$} {:>size_width$}  {:<9} ",
                fit(&row.label, label_width),
                row.size,
                here
            );
            let words = fit(
                &crate::report::terms::words_line(&row.words),
                inner_width.saturating_sub(text.chars().count()),
            );
            let text = format!("{text}{words}");
            if index == picker.cursor() {
                Line::styled(format!("{text:<inner_width$}"), theme.selected(true))
            } else {
                Line::raw(text)
            }
        })
        .collect();
    lines.push(Line::raw(""));
    lines.push(Line::from(vec![
        Span::raw(" jump to: "),
        Span::styled(
            format!("{}▏", crate::printable::escaped(picker.query())),
            theme.heading(),
        ),
    ]));
    let (verb, title) = match picker.picking() {
        Picking::Documents(_) if count == 1 => {
            ("moves", " Move 1 document to the leaf ".to_string())
        }
        Picking::Documents(_) => ("moves", format!(" Move {count} documents to the leaf ")),
        Picking::MergeOf(leaf) => (
            "merges",
            format!(
                " Merge {} ({count}) into the leaf ",
                fit(&model.label(*leaf), 24)
            ),
        ),
    };
    lines.push(Line::styled(
        format!(" ↑↓ choose · type #id, a name or a word · Enter {verb} · Esc cancels"),
        theme.dim(),
    ));
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines).block(popup_block(title, theme)), area);
}
