//! The tree pane: a table of the visible nodes, one row of [`COLUMNS`] per column, each as wide as what it shows.
//! On a pane too narrow for them all, the columns of lowest rank give way first; the scatter, what pdx is for,
//! goes last.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Row, Table, TableState};

use crate::choice::Choice;
use crate::cluster::Node;
use crate::printable;
use crate::report::terms;

use super::super::model::{Model, Pane};
use super::{FOCUS_MARK, Theme, leaves_text, list_offset, percent};

/// The narrowest the node column gets before other columns give way (and before the label column takes what is
/// left).
const NODE_MIN: usize = 10;

/// One column of the tree pane: its heading, what the help screen says of it, how wide it is, what its cell
/// shows, and its rank: on a narrow pane the columns of lowest rank give way first.
pub(crate) struct Column {
    pub heading: &'static str,
    pub help: &'static str,
    width: Width,
    /// When it shows.
    shown: Shown,
    /// The node column has none: it always shows.
    rank: Option<u8>,
    /// Numbers are right-aligned, words left-aligned.
    right_aligned: bool,
    /// The cell's text.
    cell: fn(&NodeRow) -> String,
}

/// When a column shows.
#[derive(Clone, Copy, PartialEq)]
enum Shown {
    Always,
    /// While labels are shown.
    WithLabels,
    /// Once new documents were added (`+`).
    WithNewDocuments,
}

/// What the tree pane shows besides the columns every tree has.
#[derive(Clone, Copy)]
pub(crate) struct Showing {
    pub labels: bool,
    pub new_documents: bool,
}

impl Showing {
    fn shows(self, column: &Column) -> bool {
        match column.shown {
            Shown::Always => true,
            Shown::WithLabels => self.labels,
            Shown::WithNewDocuments => self.new_documents,
        }
    }
}

/// How wide a column is.
#[derive(Clone, Copy, PartialEq)]
enum Width {
    /// The node's marker, name and words: what the other columns leave.
    Node,
    /// The widest of its values and its heading.
    Values,
    /// At most as wide as its widest value; it shares what is left with the node column.
    Shared,
    /// Always this wide.
    Fixed(usize),
}

/// What a row of the tree pane shows of a node.
pub(crate) struct NodeRow<'a> {
    pub node: &'a Node,
    pub depth: usize,
    pub size: usize,
    pub scatter: f64,
    /// The rule that split the node; with alternatives, which of its splits is active: `pddp 2/3`.
    pub rule: String,
    /// Its scatter over the root's.
    pub share: f64,
    /// Its most frequent label and its purity, when labels are shown.
    pub label: Option<(&'a str, f64)>,
    /// How many new documents went into it (none while they are routed again).
    pub new: Option<usize>,
}

/// The heading of the rule's column, which says which alternative split is active.
const RULE_HEADING: &str = "split by";

/// The tree pane's columns, in the order they are drawn; the help screen lists them from here.
pub(crate) static COLUMNS: &[Column] = &[
    Column {
        heading: "node",
        help: "• a leaf, ▾ a split node, ▸ a collapsed one; its #id, then ◆ on the suggested next split, (A) on \
               the node marked for v, and [2/3] on a node whose second of three alternative splits is active when \
               the split column gives way; its name when it has one, and its top three words",
        width: Width::Node,
        shown: Shown::Always,
        rank: None,
        right_aligned: false,
        cell: |_| String::new(),
    },
    Column {
        heading: "size",
        help: "how many documents the node holds",
        width: Width::Values,
        shown: Shown::Always,
        rank: Some(6),
        right_aligned: true,
        cell: |row| row.size.to_string(),
    },
    Column {
        heading: "scatter",
        help: "the spread of its documents (see the figures below); the last column to give way on a narrow pane",
        width: Width::Values,
        shown: Shown::Always,
        rank: Some(7),
        right_aligned: true,
        cell: |row| scatter_text(row.scatter),
    },
    Column {
        heading: "share",
        help: "its scatter as a share of the root's",
        width: Width::Fixed(5),
        shown: Shown::Always,
        rank: Some(3),
        right_aligned: true,
        cell: |row| percent(row.share),
    },
    Column {
        heading: RULE_HEADING,
        help: "the rule that split the node (empty on a leaf); pddp 2/3: the second of its three alternative splits \
               is active",
        width: Width::Values,
        shown: Shown::Always,
        rank: Some(1),
        right_aligned: false,
        cell: |row| row.rule.clone(),
    },
    Column {
        heading: "new",
        help: "how many of the new documents added with + went into the node (shown once there are some; … while \
               they are routed down a changed tree)",
        width: Width::Values,
        shown: Shown::WithNewDocuments,
        rank: Some(5),
        right_aligned: true,
        cell: |row| match row.new {
            Some(0) => String::new(),
            Some(count) => format!("+{count}"),
            None => "…".into(),
        },
    },
    Column {
        heading: "label",
        help: "the most frequent label among its documents (corpora with labels)",
        width: Width::Shared,
        shown: Shown::WithLabels,
        rank: Some(2),
        right_aligned: false,
        cell: |row| {
            row.label.map_or(String::new(), |(name, _)| {
                printable::escaped(name).into_owned()
            })
        },
    },
    Column {
        heading: "purity",
        help: "the share of its documents that carry that label",
        width: Width::Fixed(6),
        shown: Shown::WithLabels,
        rank: Some(4),
        right_aligned: true,
        cell: |row| {
            row.label
                .map_or(String::new(), |(_, purity)| percent(purity))
        },
    },
];

/// The width of a column of `texts` under `heading`: the longest of them.
pub(crate) fn number_width(texts: impl Iterator<Item = String>, heading: &str) -> usize {
    texts
        .map(|t| t.chars().count())
        .max()
        .unwrap_or(0)
        .max(heading.chars().count())
}

fn scatter_text(scatter: f64) -> String {
    format!("{scatter:.3}")
}

/// The columns shown on a pane `inner_width` wide and the width of each (the node column's and the label
/// column's what is left), for `rows`, as wide as their values; `natural_node` is the node column's widest text.
pub(crate) fn fit(
    rows: &[NodeRow],
    showing: Showing,
    inner_width: usize,
    natural_node: usize,
) -> Vec<(&'static Column, usize)> {
    let mut shown: Vec<(&'static Column, usize)> = COLUMNS
        .iter()
        .filter(|column| showing.shows(column))
        .map(|column| {
            let width = match column.width {
                Width::Node => 0,
                Width::Fixed(width) => width,
                Width::Values | Width::Shared => {
                    number_width(rows.iter().map(column.cell), column.heading)
                }
            };
            (column, width)
        })
        .collect();
    // What the node column keeps before any other column narrows it: its widest text, up to three fifths of
    // the pane (a tree nested deep would take it all), and never less than its minimum.
    let node_claim = natural_node
        .max("node".len())
        .min(inner_width * 3 / 5)
        .max(NODE_MIN);
    // The room the node column would have: the pane less the others, the gaps, and a shared column at its full
    // width (`full`) or narrowed to its heading.
    let room = |shown: &[(&Column, usize)], full: bool| {
        let others: usize = shown
            .iter()
            .map(|(column, width)| match column.width {
                Width::Node => 0,
                Width::Shared if !full => column.heading.chars().count(),
                _ => *width,
            })
            .sum();
        inner_width.saturating_sub(others + shown.len().saturating_sub(1))
    };
    // The columns of lowest rank give way until the node column has its claim, a shared column at its full
    // width; when the shared column is the lowest left, it narrows instead, if that is enough.
    while room(&shown, true) < node_claim {
        let lowest = shown
            .iter()
            .enumerate()
            .filter_map(|(at, (column, _))| column.rank.map(|rank| (rank, at)))
            .min();
        match lowest {
            Some((_, at))
                if shown[at].0.width == Width::Shared && room(&shown, false) >= node_claim =>
            {
                break;
            }
            Some((_, at)) => {
                shown.remove(at);
            }
            None => break,
        }
    }
    // The node and the shared (label) column split what is left: the label as wide as its widest value, unless
    // that leaves the node column less than its claim.
    let others: usize = shown
        .iter()
        .filter(|(column, _)| !matches!(column.width, Width::Node | Width::Shared))
        .map(|(_, width)| width)
        .sum();
    let left = inner_width.saturating_sub(others + shown.len().saturating_sub(1));
    for (column, width) in shown.iter_mut() {
        if column.width == Width::Shared {
            *width = (*width).min(left.saturating_sub(node_claim));
        }
    }
    let shared: usize = shown
        .iter()
        .filter(|(column, _)| column.width == Width::Shared)
        .map(|(_, width)| width)
        .sum();
    for (column, width) in shown.iter_mut() {
        if column.width == Width::Node {
            *width = left.saturating_sub(shared);
        }
    }
    shown
}

pub(super) fn draw_tree(frame: &mut Frame, model: &Model, theme: Theme, area: Rect) {
    let focused = model.focus() == Pane::Tree;
    let growth = format!(
        "{} · ◆ next by {} ",
        leaves_text(model.derived().leaves.len()),
        model.policy().name()
    );
    let title = match &model.data().node_of_tree {
        None => format!("Tree · {growth}"),
        Some(node) => {
            // The collection's place in the larger tree goes first, cut to what the border leaves of the pane's
            // width (its corners, the title's space and focus mark, the words around it): the path ahead of the
            // file.
            let around = printable::width("Tree · ") + printable::width(" · ");
            let room = usize::from(area.width).saturating_sub(
                2 + 1 + printable::width(FOCUS_MARK) + around + printable::width(&growth),
            );
            format!(
                "Tree · {} · {growth}",
                printable::cut(&crate::stats::node_text(node), room)
            )
        }
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(focused))
        .title(theme.pane_title(focused, title));
    let inner_width = usize::from(area.width.saturating_sub(2));
    let labels = model.labels_shown();
    let new_documents = model.new_documents();
    let revision = model.analysis_revision();
    let tree = model.tree();
    let total = tree.node(tree.root()).map_or(0.0, |root| root.scatter);

    let visible = model.visible();
    let rows: Vec<NodeRow> = visible
        .iter()
        .filter_map(|&(id, depth)| {
            let node = tree.node(id)?;
            let rule = match &node.split {
                None => String::new(),
                Some(split) => match tree.split_count(id) {
                    count if count > 1 => format!(
                        "{} {}/{count}",
                        split.rule.name(),
                        tree.active_split(id) + 1
                    ),
                    _ => split.rule.name().to_string(),
                },
            };
            let label = model.node_figures(id).map(|figures| {
                let name = figures
                    .dominant_label
                    .and_then(|l| model.data().label_names.get(l))
                    .map_or("", String::as_str);
                (name, figures.purity)
            });
            Some(NodeRow {
                node,
                depth,
                size: node.size(),
                scatter: node.scatter,
                rule,
                share: if total > 0.0 {
                    node.scatter / total
                } else {
                    0.0
                },
                label,
                new: new_documents.in_node(node.id, revision),
            })
        })
        .collect();

    // Each node's first part (indent, marker, #id and name, suggestion) and its words, after a `·` when it has a
    // name; made only for the rows on screen (a 1,000-leaf tree has 2,000 rows), measured without being made for
    // the others.
    let suggestion = |id: usize| match model.derived().suggestion == Some(id) {
        true => " ◆",
        false => "",
    };
    let marked = |id: usize| if model.mark() == Some(id) { " (A)" } else { "" };
    // Which of a node's alternative splits is active, `[2/3]` (the keys that switch), in the node column when the
    // split column has given way (a narrow pane): that the node has alternatives must show at every width.
    let alternatives = |id: usize| match tree.split_count(id) {
        count if count > 1 => format!(" [{}/{count}]", tree.active_split(id) + 1),
        _ => String::new(),
    };
    let node_text = |node: &Node, depth: usize, rule_shown: bool| {
        let marker = if node.is_leaf() {
            "•"
        } else if model.is_collapsed(node.id) {
            "▸"
        } else {
            "▾"
        };
        // The id, its marks, then the name: the marks stay where they are whether the node is named or not.
        let name = match node.name.as_deref() {
            Some(name) => format!(" {}", printable::escaped(name)),
            None => String::new(),
        };
        let head = format!(
            "{}{marker} #{}{}{}{}{name}",
            "  ".repeat(depth),
            node.id,
            suggestion(node.id),
            marked(node.id),
            if rule_shown {
                String::new()
            } else {
                alternatives(node.id)
            }
        );
        let words = printable::escaped(&terms::words_line(model.node_words(node.id))).into_owned();
        let words = match node.name {
            Some(_) if !words.is_empty() => format!("· {words}"),
            _ => words,
        };
        (head, words)
    };
    // The width `node_text` takes written as one (head, a space, the words), counted from its parts.
    let node_text_width = |node: &Node, depth: usize| {
        let id = 1 + node.id.to_string().len();
        let label = match node.name.as_deref() {
            Some(name) => id + 1 + printable::width(name),
            None => id,
        };
        let head = 2 * depth
            + 2
            + label
            + suggestion(node.id).chars().count()
            + marked(node.id).chars().count();
        let words = model.node_words(node.id);
        let separators = match words.iter().any(|word| word.contains(' ')) {
            true => 2,
            false => 1,
        };
        let words = match words.is_empty() {
            true => 0,
            false => {
                words.iter().map(|w| printable::width(w)).sum::<usize>()
                    + separators * (words.len() - 1)
                    + if node.name.is_some() { 2 } else { 0 }
            }
        };
        head + if words > 0 { 1 + words } else { 0 }
    };
    let natural_node = rows
        .iter()
        .map(|row| node_text_width(row.node, row.depth))
        .max()
        .unwrap_or(0);
    let showing = Showing {
        labels,
        new_documents: !new_documents.is_empty(),
    };
    let columns = fit(&rows, showing, inner_width, natural_node);
    let rule_shown = columns
        .iter()
        .any(|(column, _)| column.heading == RULE_HEADING);
    let length = |width: usize| Constraint::Length(u16::try_from(width).unwrap_or(u16::MAX));
    let widths: Vec<Constraint> = columns.iter().map(|&(_, width)| length(width)).collect();
    let header: Vec<&str> = columns.iter().map(|(column, _)| column.heading).collect();

    let selected = visible.iter().position(|&(id, _)| id == model.selected());
    // The offset is set here, not left to the table, so that `hit` knows which node a click lands on; only the
    // rows from it down to the pane's bottom are built.
    let rows_height = area.height.saturating_sub(3);
    let offset = list_offset(selected.unwrap_or(0), rows_height);
    let table_rows: Vec<Row> = rows
        .iter()
        .skip(offset)
        .take(usize::from(rows_height))
        .map(|row| {
            let cells = columns.iter().map(|&(column, width)| match column.width {
                Width::Node => {
                    let (head, words) = node_text(row.node, row.depth, rule_shown);
                    let mut line = vec![Span::raw(head)];
                    if !words.is_empty() {
                        line.push(Span::styled(format!(" {words}"), theme.dim()));
                    }
                    Cell::from(Line::from(line))
                }
                _ if column.right_aligned => Cell::from(format!("{:>width$}", (column.cell)(row))),
                _ => Cell::from((column.cell)(row)),
            });
            let style = match row.node.is_leaf() {
                true => Style::new(),
                false => theme.dim(),
            };
            Row::new(cells.collect::<Vec<_>>()).style(style)
        })
        .collect();
    let table = Table::new(table_rows, widths)
        .header(Row::new(header).style(theme.heading()))
        .column_spacing(1)
        .block(block)
        .row_highlight_style(theme.selected(focused));
    let mut state = TableState::default()
        .with_offset(0)
        .with_selected(selected.map(|row| row - offset));
    frame.render_stateful_widget(table, area, &mut state);
}
