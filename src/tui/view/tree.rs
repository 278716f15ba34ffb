//! The tree pane: a table of the visible nodes with their description, size, scatter, share, rule and label
//! figures, each column as wide as what it shows.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Row, Table, TableState};

use crate::choice::Choice;

use super::super::model::{Model, Pane};
use super::{Theme, leaves_text, list_offset, node_label, percent};

/// The narrowest the node column gets before the label column takes what is left.
const NODE_MIN: usize = 10;

/// The width of a column of `texts` under `heading`: the longest of them.
pub(crate) fn number_width(texts: impl Iterator<Item = String>, heading: &str) -> usize {
    texts
        .map(|t| t.chars().count())
        .max()
        .unwrap_or(0)
        .max(heading.chars().count())
}

/// The widths of the tree pane's value columns, from the values shown: a root of a million documents gets a
/// seven-digit size column, a scatter of 123456.789 a ten-character one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TreeWidths {
    pub size: usize,
    pub scatter: usize,
    pub split: usize,
}

impl TreeWidths {
    /// The widths for rows of (size, scatter, rule name).
    pub(crate) fn of<'a>(rows: impl Iterator<Item = (usize, f64, &'a str)> + Clone) -> TreeWidths {
        TreeWidths {
            size: number_width(rows.clone().map(|(size, _, _)| size.to_string()), "size"),
            scatter: number_width(
                rows.clone().map(|(_, scatter, _)| scatter_text(scatter)),
                "scatter",
            ),
            split: number_width(rows.map(|(_, _, rule)| rule.to_string()), "split by"),
        }
    }
}

fn scatter_text(scatter: f64) -> String {
    format!("{scatter:.3}")
}

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
    let inner_width = usize::from(area.width.saturating_sub(2));
    let wide = inner_width >= 72;
    let labels = model.labels_shown();
    let total = model
        .tree()
        .node(model.tree().root())
        .map_or(0.0, |root| root.scatter);

    let rows_data = model.visible();
    let nodes: Vec<_> = rows_data
        .iter()
        .filter_map(|&(id, depth)| Some((model.tree().node(id)?, depth)))
        .collect();
    // The rule that split each node; with alternatives, which of its splits is active: `pddp 2/3`.
    let rules: Vec<String> = nodes
        .iter()
        .map(|(node, _)| {
            let Some(split) = &node.split else {
                return String::new();
            };
            match model.tree().split_count(node.id) {
                count if count > 1 => format!(
                    "{} {}/{count}",
                    split.rule.name(),
                    model.tree().active_split(node.id) + 1
                ),
                _ => split.rule.name().to_string(),
            }
        })
        .collect();
    let value_widths = TreeWidths::of(
        nodes
            .iter()
            .zip(&rules)
            .map(|((node, _), rule)| (node.size(), node.scatter, rule.as_str())),
    );
    let dominant_name = |id: usize| {
        model
            .node_figures(id)
            .and_then(|f| f.dominant_label)
            .and_then(|l| model.data().label_names.get(l))
            .map_or("", String::as_str)
    };
    let dominant = |id: usize| dominant_name(id).to_string();
    let dominant_width = |id: usize| dominant_name(id).chars().count();

    // Each node's first part (indent, marker, name or #id, suggestion) and, for a node without a name, its words;
    // made only for the rows on screen (a 1,000-leaf tree has 2,000 rows), measured without being made for the
    // others.
    let suggestion = |id: usize| {
        if model.derived().suggestion == Some(id) {
            " ◆"
        } else {
            ""
        }
    };
    let marked = |id: usize| if model.mark() == Some(id) { " (A)" } else { "" };
    let node_text = |node: &crate::cluster::Node, depth: usize| {
        let marker = if node.is_leaf() {
            "•"
        } else if model.is_collapsed(node.id) {
            "▸"
        } else {
            "▾"
        };
        let head = format!(
            "{}{marker} {}{}{}",
            "  ".repeat(depth),
            node_label(model, node.id),
            suggestion(node.id),
            marked(node.id)
        );
        let words = if node.name.is_some() {
            String::new()
        } else {
            model.description(node.id)
        };
        (head, words)
    };
    // The width `node_text` takes written as one (head, a space, the words), counted from its parts.
    let node_text_width = |node: &crate::cluster::Node, depth: usize| {
        let label = match node.name.as_deref() {
            Some(name) => name.chars().count(),
            None => 1 + node.id.to_string().len(),
        };
        let head = 2 * depth
            + 2
            + label
            + suggestion(node.id).chars().count()
            + marked(node.id).chars().count();
        let words = if node.name.is_some() {
            0
        } else {
            let words = model.node_words(node.id);
            words.iter().map(|w| w.chars().count()).sum::<usize>() + words.len().saturating_sub(1)
        };
        head + if words > 0 { 1 + words } else { 0 }
    };

    let mut header = vec!["node", "size"];
    let mut fixed = vec![value_widths.size];
    if wide {
        header.push("scatter");
        fixed.push(value_widths.scatter);
    }
    header.extend(["share", "split by"]);
    fixed.extend([5, value_widths.split]);
    if labels {
        header.extend(["label", "purity"]);
        fixed.push(6);
    }
    // What the node and label columns share: the pane less the value columns and the gaps between columns.
    let columns = fixed.len() + 1 + usize::from(labels);
    let room = inner_width.saturating_sub(fixed.iter().sum::<usize>() + columns - 1);
    let node_natural = nodes
        .iter()
        .map(|&(node, depth)| node_text_width(node, depth))
        .max()
        .unwrap_or(0)
        .max("node".len());
    let label_width = if labels {
        let natural = nodes
            .iter()
            .map(|(node, _)| dominant_width(node.id))
            .max()
            .unwrap_or(0)
            .max("label".len());
        let node_claim = node_natural.min(room * 3 / 5).max(NODE_MIN);
        natural.min(room.saturating_sub(node_claim))
    } else {
        0
    };
    let node_width = room.saturating_sub(label_width);
    let length = |width: usize| Constraint::Length(u16::try_from(width).unwrap_or(u16::MAX));
    let mut widths = vec![length(node_width), length(value_widths.size)];
    if wide {
        widths.push(length(value_widths.scatter));
    }
    widths.extend([length(5), length(value_widths.split)]);
    if labels {
        widths.extend([length(label_width), length(6)]);
    }

    let selected = rows_data.iter().position(|&(id, _)| id == model.selected());
    // The offset is set here, not left to the table, so that `hit` knows which node a click lands on; only the
    // rows from it down to the pane's bottom are built.
    let rows_height = area.height.saturating_sub(3);
    let offset = list_offset(selected.unwrap_or(0), rows_height);
    let rows: Vec<Row> = nodes
        .iter()
        .zip(rules)
        .skip(offset)
        .take(usize::from(rows_height))
        .map(|(&(node, depth), rule)| {
            let (head, words) = node_text(node, depth);
            let mut line = vec![Span::raw(head)];
            if !words.is_empty() {
                line.push(Span::styled(format!(" {words}"), theme.dim()));
            }
            let mut cells = vec![
                Cell::from(Line::from(line)),
                Cell::from(format!("{:>w$}", node.size(), w = value_widths.size)),
            ];
            if wide {
                cells.push(Cell::from(format!(
                    "{:>w$}",
                    scatter_text(node.scatter),
                    w = value_widths.scatter
                )));
            }
            let share = if total > 0.0 {
                node.scatter / total
            } else {
                0.0
            };
            cells.push(Cell::from(format!("{:>5}", percent(share))));
            cells.push(Cell::from(rule));
            if labels {
                match model.node_figures(node.id) {
                    Some(f) => {
                        cells.push(Cell::from(dominant(node.id)));
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
            Row::new(cells).style(style)
        })
        .collect();
    let table = Table::new(rows, widths)
        .header(Row::new(header).style(theme.heading()))
        .column_spacing(1)
        .block(block)
        .row_highlight_style(theme.selected(focused));
    let mut state = TableState::default()
        .with_offset(0)
        .with_selected(selected.map(|row| row - offset));
    frame.render_stateful_widget(table, area, &mut state);
}
