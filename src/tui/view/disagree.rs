//! The lower part of the side-by-side view of alternatives: the active split against another, as the
//! cross-table of their children (its columns ordered so that the matched pairs make the diagonal, their cells
//! emphasised and in brackets), the agreement, and the disputed documents with a cursor. Labels show only while they are shown (never label-blind).

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::printable;
use crate::report::compare::{Disagreement, Disputed, SplitSummary};
use crate::report::terms;

use super::super::model::{AlternativesView, Model};
use super::{Theme, fit};

/// The widest a column of the cross-table gets: its child's id and first words.
const TABLE_COLUMN: usize = 26;
/// The widest a document id and a label get in the disputed list.
const ID_WIDTH: usize = 24;
const LABEL_WIDTH: usize = 18;

/// Child `id` (at `place` in `split`) as the tree pane names it: its id and top words (the words that set it
/// apart from its siblings when the tree has none for it).
fn child_name(model: &Model, split: Option<&SplitSummary>, place: usize, id: usize) -> String {
    let words = model.node_words(id);
    let words = if words.is_empty() {
        split
            .and_then(|s| s.sides.get(place))
            .map(|side| {
                let top: Vec<&str> = side.iter().take(3).map(|t| t.term.as_str()).collect();
                terms::words_line(&top)
            })
            .unwrap_or_default()
    } else {
        terms::words_line(words)
    };
    printable::escaped(&format!("#{id} {words}"))
        .trim_end()
        .to_string()
}

/// The lines above the disputed list: what is compared, the agreement, the cross-table, the list's heading.
pub(super) fn table_lines(
    model: &Model,
    theme: Theme,
    view: &AlternativesView,
    d: &Disagreement,
    width: usize,
) -> Vec<Line<'static>> {
    let table = &d.table;
    let more = match view.splits.len() > 2 {
        true => " · Tab: another",
        false => "",
    };
    let mut lines = vec![
        // A rule under the columns of splits, naming what the table compares.
        Line::styled(
            {
                let heading = fit(
                    &format!("── split {} (active) × split {}{more} ", d.a + 1, d.b + 1),
                    width,
                );
                let rest = width.saturating_sub(printable::width(&heading));
                format!("{heading}{}", "─".repeat(rest))
            },
            theme.heading(),
        ),
        Line::raw(fit(
            &format!(
                "{} of {} documents on matched sides, {} disputed",
                table.agreement,
                table.placed,
                table.disputed.len()
            ),
            width,
        )),
    ];
    let split = |index: usize| view.splits.iter().find(|s| s.index == index);
    let rows: Vec<String> = (d.children_a.iter().enumerate())
        .map(|(place, &id)| child_name(model, split(d.a), place, id))
        .collect();
    // The columns in the order of their partners, so that the matched pairs make the diagonal; a column no row
    // is matched with comes last.
    let mut order: Vec<usize> = table.matched.iter().flatten().copied().collect();
    order.extend((0..d.children_b.len()).filter(|place| !table.matched.contains(&Some(*place))));
    let columns: Vec<String> = (order.iter())
        .filter_map(|&place| {
            let id = *d.children_b.get(place)?;
            Some(child_name(model, split(d.b), place, id))
        })
        .collect();
    let corner = format!("{} \\ {}", d.a + 1, d.b + 1);
    let digits = (table.cross.iter().flatten().max()).map_or(1, |&most| most.to_string().len());
    // A matched count in brackets, another with a space after it: the digits line up.
    let number = digits + 2;
    let row_width = (rows.iter().chain([&corner]))
        .map(|name| printable::width(name))
        .max()
        .unwrap_or(0)
        .min((width * 2 / 5).max(12));
    let column_width =
        (width.saturating_sub(row_width) / columns.len().max(1)).clamp(number + 1, TABLE_COLUMN);
    let mut header = vec![Span::styled(format!("{corner:<row_width$}"), theme.dim())];
    header.extend(columns.iter().map(|name| {
        Span::styled(
            format!("{:>column_width$}", fit(name, column_width - 1)),
            theme.dim(),
        )
    }));
    lines.push(Line::from(header));
    let matched = theme.fg(Color::Green).add_modifier(Modifier::BOLD);
    for (place, (name, counts)) in rows.iter().zip(&table.cross).enumerate() {
        let mut spans = vec![Span::raw(format!("{:<row_width$}", fit(name, row_width)))];
        for (column, count) in order.iter().filter_map(|&c| Some((c, counts.get(c)?))) {
            spans.push(match table.partner(place) == Some(column) {
                true => Span::styled(format!("{:>column_width$}", format!("[{count}]")), matched),
                false => Span::raw(format!("{:>column_width$}", format!("{count} "))),
            });
        }
        lines.push(Line::from(spans));
    }
    lines.push(Line::styled(
        fit(
            match table.disputed.is_empty() {
                true => "no disputed document: the two splits agree side for side",
                false => "disputed: ↑↓ choose · Enter lists them in the Documents tab",
            },
            width,
        ),
        theme.dim(),
    ));
    lines
}

/// `rows` rows of the disputed list from `offset`, the one at `cursor` highlighted: each document's id, its
/// heading, its two sides, and its label while labels are shown.
pub(super) fn disputed_lines(
    model: &Model,
    theme: Theme,
    d: &Disagreement,
    width: usize,
    (offset, rows): (usize, usize),
    cursor: usize,
) -> Vec<Line<'static>> {
    let shown: Vec<(usize, &Disputed)> = d
        .table
        .disputed
        .iter()
        .enumerate()
        .skip(offset)
        .take(rows)
        .collect();
    let documents = &model.data().documents;
    let id_of = |column: usize| documents.get(column).map_or("", |doc| doc.id.as_str());
    let sides = |item: &Disputed| {
        let child = |children: &[usize], place: usize| {
            children
                .get(place)
                .map_or_else(|| "?".to_string(), |id| format!("#{id}"))
        };
        format!(
            "{} → {}",
            child(&d.children_a, item.side_a),
            child(&d.children_b, item.side_b)
        )
    };
    let label_of = |item: &Disputed| {
        item.label
            .filter(|_| model.labels_shown())
            .and_then(|label| model.data().label_names.get(label as usize))
            .map(String::as_str)
    };
    let id_width = (shown.iter())
        .map(|(_, item)| printable::width(id_of(item.column)))
        .max()
        .unwrap_or(0)
        .min(ID_WIDTH);
    let sides_width = (shown.iter())
        .map(|(_, item)| sides(item).chars().count())
        .max()
        .unwrap_or(0);
    let label_width = (shown.iter())
        .filter_map(|(_, item)| label_of(item))
        .map(printable::width)
        .max()
        .unwrap_or(0)
        .min(LABEL_WIDTH);
    let label_room = if label_width > 0 { label_width + 1 } else { 0 };
    let heading_width = width.saturating_sub(2 + id_width + 1 + 1 + sides_width + label_room);
    shown
        .into_iter()
        .map(|(at, item)| {
            let id = id_of(item.column);
            let heading = model.document_heading(item.column);
            // An untitled document's heading is its id: shown once.
            let heading = if heading == id {
                String::new()
            } else {
                heading
            };
            // Ids are often paths that differ at their end: cut from the start.
            let id = printable::cut_start(id, id_width);
            let id_pad = id_width.saturating_sub(printable::width(&id));
            let mut text = format!(
                "{} {id}{} {} {:<sides_width$}",
                if at == cursor { "›" } else { " " },
                " ".repeat(id_pad),
                printable::padded(&heading, heading_width),
                sides(item)
            );
            if let Some(label) = label_of(item) {
                text.push(' ');
                text.push_str(&fit(label, label_width));
            }
            match at == cursor {
                true => Line::styled(text, theme.selected(true)),
                false => Line::styled(text, Style::new()),
            }
        })
        .collect()
}
