//! Drawing: [`view`] draws the main screen from `&Model`, [`hit`] finds what a mouse event points at on it, and
//! [`view_loading`] draws the loading screen. Reads the model, never changes it. One file per part of the screen.
//!
//! Every string of the collection (a label, an id, a title, a word, a name, a file name in a message) is drawn
//! [`printable`]: `fit` escapes what it cuts, and the strings drawn whole are escaped where they are drawn.
//! ratatui drops the C0 and C1 controls itself (silently: the escape shows them), but draws a bidirectional
//! override as it is; `neutralise` takes out whatever of that kind a drawing let through.

mod compare;
mod detail;
mod disagree;
mod figures;
mod hits;
mod incoming;
mod loading;
mod moves;
mod popups;
mod preview;
mod replay;
mod scatter;
mod status;
pub(crate) mod tree;

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Span;

use super::model::{DetailTab, Model, Region};
use crate::printable;
use detail::draw_detail;
use popups::draw_popup;
use status::{draw_status, status_height};
use tree::draw_tree;

pub use loading::view_loading;
// What the tests check directly: the status area's wrapping and the tree's column widths.
#[cfg(test)]
pub(super) use status::wrap;
use tree::number_width;

/// The tree pane's columns, in the order it draws them, each with what the help screen says of it.
pub(crate) fn tree_columns() -> impl Iterator<Item = (&'static str, &'static str)> {
    tree::COLUMNS
        .iter()
        .map(|column| (column.heading, column.help))
}

/// What marks the pane with the focus, in its title and in the status line.
const FOCUS_MARK: &str = "▶ ";

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

    /// A pane's title, marked when the pane has the focus: the movement keys, `s`, Space and Enter act there, so
    /// it must show without colours too.
    fn pane_title(self, focused: bool, text: String) -> Span<'static> {
        if focused {
            Span::styled(
                format!(" {FOCUS_MARK}{text}"),
                self.fg(Color::Cyan).add_modifier(Modifier::BOLD),
            )
        } else {
            Span::raw(format!(" {text}"))
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

/// `text` escaped (it may come from the collection) and cut to `width` terminal columns, marking the cut with
/// `…`.
fn fit(text: &str, width: usize) -> String {
    printable::cut(text, width)
}

/// The last guard before the terminal: a cell whose text still holds what [`printable`] escapes (ratatui keeps a
/// bidirectional control, as a zero-width part of the cell before it) loses it, so that nothing drawn makes the
/// terminal reorder or act on what follows. The strings of the collection are escaped where they are drawn, where
/// the code shows faithfully what was there; this only catches a place that missed it.
fn neutralise(buffer: &mut Buffer) {
    for cell in &mut buffer.content {
        if cell.symbol().contains(printable::needs_escape) {
            let kept: String = cell
                .symbol()
                .chars()
                .filter(|&c| !printable::needs_escape(c))
                .collect();
            cell.set_symbol(if kept.is_empty() { " " } else { &kept });
        }
    }
}

fn leaves_text(count: usize) -> String {
    if count == 1 {
        "1 leaf".into()
    } else {
        format!("{count} leaves")
    }
}

/// A node as the screen names it: its name (escaped: it may come from a session file) or `#id`.
fn node_label(model: &Model, id: usize) -> String {
    printable::escaped(&model.label(id)).into_owned()
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
    /// The parts of `area` for `model` (the status area grows when its message wraps).
    fn of(area: Rect, model: &Model) -> Areas {
        let [main, status] = Layout::vertical([
            Constraint::Min(4),
            Constraint::Length(status_height(model, area.width)),
        ])
        .areas(area);
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
    if model.popup().is_some() {
        return Region::Popup;
    }
    let areas = Areas::of(area, model);
    let position = ratatui::layout::Position::new(column, row);
    if areas.tree.contains(position) {
        let rows = areas.tree_rows();
        if rows.contains(position) {
            let visible = model.visible();
            let selected = visible
                .iter()
                .position(|&(id, _)| id == model.selected())
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
    if areas.body.contains(position) && model.tab() == DetailTab::Documents {
        let index = list_offset(model.document_cursor(), areas.body.height)
            + usize::from(row - areas.body.y);
        if index < model.detail().documents.len() {
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
        color: model.colors(),
    };
    let areas = Areas::of(frame.area(), model);
    draw_tree(frame, model, theme, areas.tree);
    draw_detail(frame, model, theme, areas.detail);
    draw_status(frame, model, theme, areas.status);
    if let Some(popup) = &model.popup() {
        draw_popup(frame, model, theme, popup);
    }
    neutralise(frame.buffer_mut());
}
