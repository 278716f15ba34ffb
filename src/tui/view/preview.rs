//! The Preview tab: what the current rule and every previewed rule would do to the selected leaf, as a histogram
//! of the leading coordinates with each rule's cut marked under it, a table of the rules' outcomes with a cursor,
//! and what each side of the split under the cursor holds; for a split node, the split it had.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::cluster::Param;
use crate::report::preview::{MadeSplit, RulePreview, Side, SplitPreview};

use super::super::model::{Model, PREVIEW_CANCELLED, Pane};
use super::figures::split_figures;
use super::scatter::draw_scatter;
use super::{Theme, fit, percent};

/// The letter that marks row `index`'s cut under the histogram and heads its row in the rule table: the rule's
/// preview symbol from the registry, or for a second row of the same rule (the current rule with other
/// parameters) or a rule without a symbol, the row's number.
pub(super) fn rule_symbol(index: usize, rules: &[RulePreview]) -> char {
    let rule = rules[index].rule.def();
    let first_of_its_rule = rules[..index].iter().all(|r| r.rule.name() != rule.name);
    match rule.preview_symbol {
        Some(symbol) if first_of_its_rule => symbol,
        _ => char::from_digit((index % 10) as u32, 10).unwrap_or('*'),
    }
}

/// A figure for a narrow column: three decimals, fewer as it grows.
/// The histogram's heading: how many documents it counts and the leading singular value.
fn coordinate_heading(coordinates: &[f64], singular_values: &[f64]) -> String {
    format!(
        "Leading coordinate σ1·v1 of {} documents (σ1 = {:.3})",
        coordinates.len(),
        singular_values.first().copied().unwrap_or(0.0)
    )
}

pub(super) fn short_number(value: f64) -> String {
    if value.abs() >= 1000.0 {
        format!("{value:.0}")
    } else if value.abs() >= 100.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.3}")
    }
}

/// The Preview tab: what each linear rule would do to the selected leaf.
pub(super) fn draw_preview(frame: &mut Frame, model: &Model, theme: Theme, area: Rect) {
    let id = model.selected();
    if model.tree().node(id).is_some_and(|n| n.split.is_some()) {
        draw_made(frame, model, theme, area);
        return;
    }
    let message = match model.tree().unsplittable_reason(id) {
        Ok(Some(reason)) => Some(format!(
            "{} cannot be split: {reason}.",
            super::node_label(model, id)
        )),
        Ok(None) => None,
        Err(error) => Some(error.to_string()),
    };
    let entry = model.current_preview();
    let message = message.or_else(|| match entry {
        None => Some("computing the split preview…".into()),
        Some(entry) => entry
            .result
            .as_ref()
            .err()
            .map(|e| format!("no preview: {e}")),
    });
    let (Some(entry), None) = (entry, &message) else {
        let text = message.unwrap_or_default();
        frame.render_widget(
            Paragraph::new(Line::styled(text, theme.dim())).wrap(Wrap { trim: true }),
            area,
        );
        return;
    };
    let Ok(preview) = &entry.result else {
        return;
    };
    let width = usize::from(area.width);
    let histogram_rows = match area.height {
        0..12 => 2,
        12..30 => 3,
        _ => 6,
    };
    let (lines, cursor_line) = preview_lines(model, theme, preview, width, histogram_rows);
    let text_height = u16::try_from(lines.len()).unwrap_or(u16::MAX);
    // The scatter plot takes what the text leaves, if that is enough to read it.
    let plot_height = area.height.saturating_sub(text_height + 1);
    if plot_height >= 10 {
        let [text_area, _, plot_area] = Layout::vertical([
            Constraint::Length(text_height),
            Constraint::Length(1),
            Constraint::Min(0),
        ])
        .areas(area);
        frame.render_widget(Paragraph::new(lines), text_area);
        draw_scatter(
            frame,
            model,
            theme,
            preview,
            (entry.second_pending, entry.scatter.as_deref()),
            plot_area,
        );
    } else {
        // With the focus here, the page keys scroll as far as the table's cursor stays in sight.
        let height = usize::from(area.height).max(1);
        let scroll = match model.focus() {
            Pane::Detail => model
                .detail_scroll()
                .clamp((cursor_line + 1).saturating_sub(height), cursor_line),
            Pane::Tree => model.detail_scroll(),
        };
        let scroll = u16::try_from(scroll).unwrap_or(u16::MAX);
        frame.render_widget(Paragraph::new(lines).scroll((scroll, 0)), area);
    }
}

/// The text part of the preview: the current rule's outcome, the histogram with the cuts, the rule table with its
/// cursor, and what each side of the split under the cursor holds; with the line the cursor is on.
pub(super) fn preview_lines(
    model: &Model,
    theme: Theme,
    preview: &SplitPreview,
    width: usize,
    histogram_rows: usize,
) -> (Vec<Line<'static>>, usize) {
    let current = preview.rules.iter().find(|r| r.rule == *model.rule());
    let mut lines = current_rule_lines(model, theme, current, width);
    lines.push(Line::styled(
        coordinate_heading(&preview.coordinates, &preview.singular_values),
        theme.heading(),
    ));
    // One letter per rule under the histogram (the table below names them).
    let cuts: Vec<Cut> = preview
        .rules
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            r.cut.filter(|c| c.is_finite()).map(|at| Cut {
                symbol: rule_symbol(i, &preview.rules),
                at,
                current: r.rule == *model.rule(),
            })
        })
        .collect();
    lines.extend(histogram_lines(
        theme,
        &preview.coordinates,
        &cuts,
        width,
        histogram_rows,
    ));

    // The rule table.
    let labels = model.labels_shown();
    let mut header = format!(
        "  {:<15}{:>8} {:<13}{:>10}",
        "rule", "cut", "children", "scatter"
    );
    if labels {
        header.push_str(&format!("{:>8}{:>7}", "entropy", "purity"));
    }
    lines.push(Line::styled(header, theme.heading()));
    let cursor = model.preview_cursor();
    let cursor_line = lines.len() + cursor;
    for i in 0..preview.rules.len() {
        lines.push(rule_row(
            i,
            &preview.rules,
            model,
            theme,
            labels,
            i == cursor,
        ));
    }
    if let Some(row) = preview.rules.get(cursor)
        && let Some(Ok(outcome)) = &row.outcome
        && !outcome.sides.is_empty()
    {
        let names: Vec<String> = outcome
            .sides
            .iter()
            .map(|side| format!("{} documents", side.size))
            .collect();
        lines.push(Line::styled(
            format!(
                "What each side of {} holds (terms by centroid difference):",
                row.rule.name()
            ),
            theme.heading(),
        ));
        lines.extend(side_lines(theme, &outcome.sides, &names, width));
    }
    (lines, cursor_line)
}

/// A cut to mark under a histogram: its letter, where it is, and whether it is the current rule's.
pub(super) struct Cut {
    pub symbol: char,
    pub at: f64,
    pub current: bool,
}

/// A histogram of `coordinates` over a range that holds every cut, `rows` high, with the cuts marked under it
/// (`*` where several share a column) and the range's ends.
pub(super) fn histogram_lines(
    theme: Theme,
    coordinates: &[f64],
    cuts: &[Cut],
    width: usize,
    rows: usize,
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let (mut low, mut high) = coordinates
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        });
    for cut in cuts {
        low = low.min(cut.at);
        high = high.max(cut.at);
    }
    // Bins a few columns wide when there are few documents, so that the shape shows rather than single dots.
    let width = width.max(1);
    let bins_wanted = (coordinates.len() / 3).max(8).min(width);
    let columns_per_bin = width.div_ceil(bins_wanted);
    let bins = (width / columns_per_bin).max(1);
    let used = bins * columns_per_bin;
    // No spread (or no coordinates at all): a unit range, so that the columns below stay finite.
    if high.partial_cmp(&low) != Some(std::cmp::Ordering::Greater) {
        low = if low.is_finite() { low } else { 0.0 };
        high = low + 1.0;
    }
    // The screen column of coordinate x.
    let column = |x: f64| {
        (((x - low) / (high - low)) * used as f64)
            .floor()
            .clamp(0.0, (used - 1) as f64) as usize
    };
    let mut counts = vec![0usize; bins];
    for &x in coordinates {
        counts[column(x) / columns_per_bin] += 1;
    }
    let max = counts.iter().copied().max().unwrap_or(0).max(1) as f64;
    const LEVELS: [&str; 9] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"];
    for row in (0..rows).rev() {
        let text: String = counts
            .iter()
            .flat_map(|&count| {
                let eighths = (count as f64 / max * (rows * 8) as f64).round() as usize;
                // A non-empty bin shows at least a sliver.
                let eighths = if count > 0 { eighths.max(1) } else { 0 };
                std::iter::repeat_n(
                    LEVELS[eighths.saturating_sub(row * 8).min(8)],
                    columns_per_bin,
                )
            })
            .collect();
        lines.push(Line::styled(text, theme.fg(Color::Green)));
    }
    let mut marks = vec![' '; used];
    let mut current_column = None;
    for cut in cuts {
        let c = column(cut.at);
        marks[c] = if marks[c] == ' ' { cut.symbol } else { '*' };
        if cut.current {
            current_column = Some(c);
        }
    }
    let spans: Vec<Span> = marks
        .iter()
        .enumerate()
        .map(|(c, &m)| {
            let style = if Some(c) == current_column {
                theme.heading().add_modifier(Modifier::REVERSED)
            } else {
                theme.fg(Color::Cyan)
            };
            Span::styled(m.to_string(), style)
        })
        .collect();
    lines.push(Line::from(spans));
    let left = short_number(low);
    let right = short_number(high);
    let gap = used.saturating_sub(left.chars().count() + right.chars().count());
    lines.push(Line::styled(
        format!("{left}{}{right}", " ".repeat(gap)),
        theme.dim(),
    ));
    lines
}

/// The sides of a split side by side, left to right along the leading direction when they have coordinates:
/// a heading per side (`names`, with arrows for the two ends), then its terms with their weights.
pub(super) fn side_lines(
    theme: Theme,
    sides: &[Side],
    names: &[String],
    width: usize,
) -> Vec<Line<'static>> {
    let mut order: Vec<usize> = (0..sides.len()).collect();
    if sides.iter().all(|s| s.mean_coordinate.is_some()) {
        order.sort_by(|&a, &b| {
            let at = |i: usize| sides[i].mean_coordinate.unwrap_or(0.0);
            at(a).total_cmp(&at(b)).then(a.cmp(&b))
        });
    }
    // As many columns as fit at 20 characters or more each; the rest of the sides are left out, and said so.
    let columns = order.len().min((width / 20).max(1));
    let column_width = width / columns.max(1);
    let shown = &order[..columns];
    let last = shown.len().saturating_sub(1);
    let arrows = sides.iter().all(|s| s.mean_coordinate.is_some()) && shown.len() > 1;
    let mut lines = Vec::new();
    let heading: String = shown
        .iter()
        .enumerate()
        .map(|(position, &i)| {
            let name = match position {
                0 if arrows => format!("◀ {}", names[i]),
                p if arrows && p == last => format!("{} ▶", names[i]),
                _ => names[i].clone(),
            };
            format!(
                "{:<column_width$}",
                fit(&name, column_width.saturating_sub(1))
            )
        })
        .collect();
    lines.push(Line::styled(
        heading.trim_end().to_string(),
        theme.fg(Color::Cyan),
    ));
    let rows = shown
        .iter()
        .map(|&i| sides[i].terms.len())
        .max()
        .unwrap_or(0);
    for row in 0..rows {
        let text: String = shown
            .iter()
            .map(|&i| match sides[i].terms.get(row) {
                Some(term) => {
                    // The weight close to its term: a term takes up to 20 characters.
                    let weight = short_number(term.weight);
                    let room = column_width
                        .saturating_sub(weight.chars().count() + 2)
                        .min(20);
                    let cell = format!("{:<room$} {weight}", fit(&term.term, room));
                    format!("{cell:<column_width$}")
                }
                None => " ".repeat(column_width),
            })
            .collect();
        lines.push(Line::raw(text.trim_end().to_string()));
    }
    if shown.len() < order.len() {
        lines.push(Line::styled(
            format!(
                "({} more sides: a wider pane shows them)",
                order.len() - shown.len()
            ),
            theme.dim(),
        ));
    }
    lines
}

/// What the current rule would do: one line, or two when the purity does not fit on the first.
pub(super) fn current_rule_lines(
    model: &Model,
    theme: Theme,
    current: Option<&RulePreview>,
    width: usize,
) -> Vec<Line<'static>> {
    let name = model.rule_text();
    let Some(current) = current else {
        return vec![Line::styled(
            format!("{name}: not previewed (it does not cut the principal direction); s splits"),
            theme.dim(),
        )];
    };
    match &current.outcome {
        None => vec![Line::styled(
            format!("{name}: {}", row_left_text(model)),
            theme.dim(),
        )],
        Some(Err(error)) => vec![Line::styled(
            format!("{name} refuses: {error}"),
            theme.fg(Color::Red),
        )],
        Some(Ok(outcome)) => {
            let sizes: Vec<String> = outcome.child_sizes.iter().map(|s| s.to_string()).collect();
            let change = if outcome.objective_before > 0.0 {
                format!(
                    " ({:+.0}%)",
                    (outcome.objective_after / outcome.objective_before - 1.0) * 100.0
                )
            } else {
                String::new()
            };
            let style = theme.fg(Color::Cyan).add_modifier(Modifier::BOLD);
            let first = format!(
                "{name}: {} children {} · scatter {} → {}{change}",
                outcome.child_sizes.len(),
                sizes.join("+"),
                short_number(outcome.objective_before),
                short_number(outcome.objective_after),
            );
            let purity = match (
                outcome.purity_after.filter(|_| model.labels_shown()),
                model.node_figures(model.selected()),
            ) {
                (Some(after), Some(node)) => format!(
                    "purity {} → {} in the children",
                    percent(node.purity),
                    percent(after)
                ),
                _ => return vec![Line::styled(first, style)],
            };
            if first.chars().count() + purity.chars().count() + 3 <= width {
                vec![Line::styled(format!("{first} · {purity}"), style)]
            } else {
                vec![Line::styled(first, style), Line::styled(purity, style)]
            }
        }
    }
}

/// What a row the preview's first step left says: that it is computing, or that it was cancelled.
fn row_left_text(model: &Model) -> &'static str {
    if model
        .current_preview()
        .is_some_and(|entry| entry.rows_pending)
    {
        "computing…"
    } else {
        PREVIEW_CANCELLED
    }
}

pub(super) fn rule_row(
    index: usize,
    rules: &[RulePreview],
    model: &Model,
    theme: Theme,
    labels: bool,
    cursor: bool,
) -> Line<'static> {
    let symbol = rule_symbol(index, rules);
    // The cursor's mark goes between the letter and the name.
    let gap = if cursor { '▸' } else { ' ' };
    let rule_preview = &rules[index];
    // The preview compares cuts of the leading direction, so l = 1 goes without saying.
    let params: Vec<String> = rule_preview
        .rule
        .shown_params()
        .filter(|&param| !(param == Param::L && rule_preview.rule.params().l == 1))
        .map(|param| {
            format!(
                "{}={}",
                param.key(),
                param.value_text(rule_preview.rule.params())
            )
        })
        .collect();
    let name = if params.is_empty() {
        rule_preview.rule.name().to_string()
    } else {
        format!("{} {}", rule_preview.rule.name(), params.join(" "))
    };
    let cut = rule_preview.cut.map_or("-".to_string(), short_number);
    let text = match &rule_preview.outcome {
        None => format!(
            "{symbol}{gap}{:<15}{cut:>8} {}",
            fit(&name, 15),
            row_left_text(model)
        ),
        Some(Ok(outcome)) => {
            let sizes: Vec<String> = outcome.child_sizes.iter().map(|s| s.to_string()).collect();
            let mut text = format!(
                "{symbol}{gap}{:<15}{cut:>8} {:<13}{:>10}",
                fit(&name, 15),
                fit(&sizes.join("+"), 13),
                short_number(outcome.objective_after)
            );
            if labels {
                let entropy = outcome
                    .entropy_after
                    .map_or("-".into(), |e| format!("{e:.3}"));
                let purity = outcome.purity_after.map_or("-".into(), percent);
                text.push_str(&format!("{entropy:>8}{purity:>7}"));
            }
            text
        }
        Some(Err(error)) => format!(
            "{symbol}{gap}{:<15}{cut:>8} refuses: {error}",
            fit(&name, 15)
        ),
    };
    let style = if rule_preview.rule == *model.rule() {
        theme.heading()
    } else {
        Style::new()
    };
    let style = if cursor {
        style.add_modifier(Modifier::REVERSED)
    } else {
        style
    };
    Line::styled(text, style)
}

/// A split node's Preview: the split it had.
fn draw_made(frame: &mut Frame, model: &Model, theme: Theme, area: Rect) {
    let made = match model.current_made() {
        None => Err("computing the split it had…".to_string()),
        Some(Err(error)) => Err(format!("no preview: {error}")),
        Some(Ok(made)) => Ok(made),
    };
    let lines = match made {
        Ok(made) => {
            let histogram_rows = match area.height {
                0..12 => 2,
                12..30 => 3,
                _ => 6,
            };
            made_lines(model, theme, made, usize::from(area.width), histogram_rows)
        }
        Err(text) => vec![Line::styled(text, theme.dim())],
    };
    let scroll = u16::try_from(model.detail_scroll()).unwrap_or(u16::MAX);
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((scroll, 0)),
        area,
    );
}

/// The split a node had: the rule and the figures before and after, the histogram of the direction it cut (a
/// linear rule) or the figures the rule recorded, and what each child holds.
pub(super) fn made_lines(
    model: &Model,
    theme: Theme,
    made: &MadeSplit,
    width: usize,
    histogram_rows: usize,
) -> Vec<Line<'static>> {
    let tree = model.tree();
    let sizes: Vec<String> = made.sides.iter().map(|s| s.size.to_string()).collect();
    let change = if made.objective_before > 0.0 {
        format!(
            " ({:+.0}%)",
            (made.objective_after / made.objective_before - 1.0) * 100.0
        )
    } else {
        String::new()
    };
    let style = theme.fg(Color::Cyan).add_modifier(Modifier::BOLD);
    let mut lines = vec![Line::styled(
        format!(
            "{} was split by {}: {} children {} · scatter {} → {}{change}",
            super::node_label(model, made.node),
            made.rule.text(),
            made.children.len(),
            sizes.join("+"),
            short_number(made.objective_before),
            short_number(made.objective_after),
        ),
        style,
    )];
    if let (true, Some(pb), Some(pa), Some(eb), Some(ea)) = (
        model.labels_shown(),
        made.purity_before,
        made.purity_after,
        made.entropy_before,
        made.entropy_after,
    ) {
        lines.push(Line::styled(
            format!(
                "purity {} → {} · entropy {eb:.3} → {ea:.3} in the children",
                percent(pb),
                percent(pa)
            ),
            style,
        ));
    }
    match &made.direction {
        Some(direction) => {
            let cut = direction.cut.map_or("no single cut point".into(), |c| {
                format!("cut at {}", short_number(c))
            });
            lines.push(Line::styled(
                format!(
                    "{}, {cut}",
                    coordinate_heading(&direction.coordinates, &direction.singular_values)
                ),
                theme.heading(),
            ));
            let cuts: Vec<Cut> = direction
                .cut
                .filter(|c| c.is_finite())
                .map(|at| Cut {
                    symbol: made.rule.def().preview_symbol.unwrap_or('|'),
                    at,
                    current: false,
                })
                .into_iter()
                .collect();
            lines.extend(histogram_lines(
                theme,
                &direction.coordinates,
                &cuts,
                width,
                histogram_rows,
            ));
            if !direction.reproduces {
                lines.push(Line::styled(
                    "(the direction computed again does not give exactly these children: the tree was grown \
                     by another version)",
                    theme.dim(),
                ));
            }
        }
        None => {
            lines.push(Line::styled("What the rule measured:", theme.heading()));
            let figures = split_figures(&made.detail, model.labels_shown());
            lines.extend(figures.into_iter().map(Line::raw));
        }
    }
    if made.sides.iter().any(|side| !side.terms.is_empty()) {
        let names: Vec<String> = made
            .children
            .iter()
            .zip(&made.sides)
            .map(|(&child, side)| {
                let name = tree
                    .node(child)
                    .and_then(|n| n.name.clone())
                    .unwrap_or_else(|| format!("#{child}"));
                format!("{name} · {} documents", side.size)
            })
            .collect();
        lines.push(Line::styled(
            "What each child holds (terms by centroid difference):",
            theme.heading(),
        ));
        lines.extend(side_lines(theme, &made.sides, &names, width));
    }
    lines
}
