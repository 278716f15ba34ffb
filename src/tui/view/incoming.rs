//! The new documents' list (`=`): each new document with the leaf it went to, whether it fits there, and the
//! margin of its least sure step; with labels shown, its own label and its leaf's.

use ratatui::Frame;
use ratatui::style::Color;
use ratatui::text::{Line, Span};
use ratatui::widgets::{List, ListItem, ListState, Paragraph};

use super::super::model::{Model, count};
use super::popups::draw_list_popup;
use super::{Theme, fit, list_offset};

pub(super) fn draw_new_documents(frame: &mut Frame, model: &Model, theme: Theme, cursor: usize) {
    let rows: Vec<_> = model.new_documents().rows().collect();
    let routed = model.new_documents().routed_for(model.analysis_revision());
    let counts = format!(
        " New documents: {}{} ",
        count(rows.len(), "document"),
        if routed { "" } else { " (routing again…)" }
    );
    let keys = "· Enter selects its leaf · Esc closes ";
    let [heading, body] = draw_list_popup(frame, theme, rows.len(), counts, keys);
    let width = usize::from(body.width);
    let labels = model.labels_shown();
    let leaf_width = (width / 5).clamp(6, 28);
    let fit_width = 14;
    let margin_width = 8;
    let label_width = if labels { (width / 8).clamp(6, 16) } else { 0 };
    let label_columns = if labels { 2 * (label_width + 1) } else { 0 };
    let id_width =
        width.saturating_sub(2 + leaf_width + fit_width + margin_width + 3 + label_columns);
    let mut head = format!(
        "  {:<id_width$} {:<leaf_width$} {:<fit_width$} {:>margin_width$}",
        "new document", "leaf", "fit", "margin"
    );
    if labels {
        head.push_str(&format!(
            " {:<label_width$} {:<label_width$}",
            "label", "leaf's"
        ));
    }
    frame.render_widget(Paragraph::new(Line::styled(head, theme.heading())), heading);
    let offset = list_offset(cursor, body.height);
    let items: Vec<ListItem> = rows
        .iter()
        .skip(offset)
        .take(usize::from(body.height))
        .map(|row| {
            let leaf = model.label(row.leaf);
            let margin = row
                .least_margin
                .map_or_else(|| "-".to_string(), |m| format!("{m:.3}"));
            let fit_style = match row.fit {
                "fits" => theme.fg(Color::Green),
                _ => theme.fg(Color::Yellow),
            };
            let mut spans = vec![
                Span::raw(format!(
                    "  {:<id_width$} ",
                    crate::printable::cut_start(&row.id, id_width)
                )),
                Span::styled(
                    format!("{:<leaf_width$} ", fit(&leaf, leaf_width)),
                    theme.fg(Color::Cyan),
                ),
                Span::styled(format!("{:<fit_width$} ", row.fit), fit_style),
                Span::raw(format!("{margin:>margin_width$}")),
            ];
            if labels {
                let own = row.label.as_deref().unwrap_or("");
                let leafs = row.leaf_label.as_deref().unwrap_or("");
                spans.push(Span::raw(format!(
                    " {:<label_width$} {:<label_width$}",
                    fit(own, label_width),
                    fit(leafs, label_width)
                )));
            }
            ListItem::new(Line::from(spans))
        })
        .collect();
    let list = List::new(items).highlight_style(theme.selected(true));
    let mut state = ListState::default().with_selected(Some(cursor.saturating_sub(offset)));
    frame.render_stateful_widget(list, body, &mut state);
}
