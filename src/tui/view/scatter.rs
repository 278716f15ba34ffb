//! The Preview tab's scatter plot: the members on the first two principal coordinates, by label.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::widgets::canvas::{Canvas, Points};

use crate::report::preview::SplitPreview;

use super::super::loading::thousands;
use super::super::model::{Model, ScatterSample};
use super::{Theme, fit};

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
pub(super) fn label_symbol(label: Option<usize>) -> char {
    const SYMBOLS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    match label {
        Some(l) => SYMBOLS.get(l).map_or('#', |&c| char::from(c)),
        None => '?',
    }
}

/// The members on the first two principal coordinates, by label while labels are shown: Braille dots coloured by
/// label, or without colours, one letter per label in each cell (the label with most members there). A huge node's plot draws the
/// `sample` the model chose (and says so); the legend counts every member.
pub(super) fn draw_scatter(
    frame: &mut Frame,
    model: &Model,
    theme: Theme,
    preview: &SplitPreview,
    (second_pending, sample): (bool, Option<&ScatterSample>),
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
    let Some(node) = model.tree().node(preview.node) else {
        return;
    };
    let data = &model.data();
    // Label-blind, every member is drawn alike: no colour, letter or legend tells the labels apart.
    let labels_shown = model.labels_shown();
    let label_of = |member: usize| -> Option<usize> {
        node.members
            .get(member)
            .and_then(|&j| data.documents.get(j))
            .and_then(|d| d.label)
            .map(|l| l as usize)
            .filter(|_| labels_shown)
    };
    // The legend: the labels present in the node, most members first.
    let label_count = if labels_shown {
        data.label_names.len()
    } else {
        0
    };
    let mut present = vec![0usize; label_count];
    match sample {
        Some(sample) => present
            .iter_mut()
            .zip(&sample.label_counts)
            .for_each(|(p, &c)| *p = c),
        None => {
            for member in 0..preview.coordinates.len() {
                if let Some(l) = label_of(member).filter(|&l| l < label_count) {
                    present[l] += 1;
                }
            }
        }
    }
    // The points drawn: the sample's, or every member's.
    let drawn: Vec<(usize, f64, f64)> = match sample {
        Some(sample) => sample
            .positions
            .iter()
            .filter_map(|&m| Some((m, *preview.coordinates.get(m)?, *second.get(m)?)))
            .collect(),
        None => preview
            .coordinates
            .iter()
            .zip(second)
            .enumerate()
            .map(|(m, (&x, &y))| (m, x, y))
            .collect(),
    };
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
    let heading = if label_count > 0 {
        "Principal coordinates 1 (→) and 2 (↑), by label"
    } else {
        "Principal coordinates 1 (→) and 2 (↑)"
    };
    let mut title = vec![Line::styled(heading, theme.heading())];
    // A huge node's plot is a sample: a line under the heading says so (the histogram above counts them all).
    if let Some(sample) = sample.filter(|s| s.sampled()) {
        let note = format!(
            "scatter: {} of {} documents, sampled",
            thousands(sample.positions.len() as u64),
            thousands(sample.members as u64)
        );
        title.push(Line::styled(
            fit(&note, usize::from(area.width)),
            theme.dim(),
        ));
    }
    let title_rows = u16::try_from(title.len()).unwrap_or(u16::MAX);
    let legend_rows = u16::try_from(legend.len()).unwrap_or(u16::MAX);
    let [title_area, plot_area, legend_area] = Layout::vertical([
        Constraint::Length(title_rows),
        Constraint::Min(0),
        Constraint::Length(legend_rows),
    ])
    .areas(area);
    frame.render_widget(Paragraph::new(legend), legend_area);
    frame.render_widget(Paragraph::new(title), title_area);

    let bounds = |values: &mut dyn Iterator<Item = f64>| {
        let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
            (lo.min(x), hi.max(x))
        });
        if hi > lo {
            [lo, hi]
        } else {
            [lo - 1.0, lo + 1.0]
        }
    };
    let x_bounds = bounds(&mut drawn.iter().map(|&(_, x, _)| x));
    let y_bounds = bounds(&mut drawn.iter().map(|&(_, _, y)| y));
    if theme.color {
        let mut groups: Vec<Vec<(f64, f64)>> = vec![Vec::new(); label_count + 1];
        for &(member, x, y) in &drawn {
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
        for &(member, x, y) in &drawn {
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
                            // No labels to tell apart (none, or hidden): one mark for every member.
                            _ if label_count == 0 => '•',
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
