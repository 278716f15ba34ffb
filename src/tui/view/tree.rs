//! The tree pane: a table of the visible nodes with their size, scatter, share, rule and label figures.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Style;
use ratatui::widgets::{Block, Borders, Cell, Row, Table, TableState};

use pdx::choice::Choice;

use super::super::model::{Model, Pane};
use super::{Theme, leaves_text, list_offset, node_label, percent};

pub(super) fn draw_tree(frame: &mut Frame, model: &Model, theme: Theme, area: Rect) {
    let focused = model.focus() == Pane::Tree;
    let title = format!(
        " Tree · {} · ◆ next by {} ",
        leaves_text(model.derived().leaves.len()),
        model.policy().name()
    );
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(focused))
        .title(title);
    let inner_width = area.width.saturating_sub(2);
    let wide = inner_width >= 72;
    let labels = model.has_labels();
    let total = model
        .tree()
        .node(model.tree().root())
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
            let node = model.tree().node(id)?;
            let marker = if node.is_leaf() {
                "•"
            } else if model.is_collapsed(id) {
                "▸"
            } else {
                "▾"
            };
            let suggestion = if model.derived().suggestion == Some(id) {
                " ◆"
            } else {
                ""
            };
            let marked = if model.mark() == Some(id) { " (A)" } else { "" };
            let mut cells = vec![
                Cell::from(format!(
                    "{}{marker} {}{suggestion}{marked}",
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
            // A node with alternatives shows which of its splits is active: `pddp 2/3`.
            let splits = model.tree().split_count(id);
            let alternative = if splits > 1 {
                format!(" {}/{splits}", model.tree().active_split(id) + 1)
            } else {
                String::new()
            };
            cells.push(Cell::from(node.split.as_ref().map_or(String::new(), |s| {
                format!("{}{alternative}", s.rule.name())
            })));
            if labels {
                match model.derived().node_figures.get(&id) {
                    Some(f) => {
                        let name = f
                            .dominant_label
                            .and_then(|l| model.data().label_names.get(l))
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
    let selected = rows_data.iter().position(|&(id, _)| id == model.selected());
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
