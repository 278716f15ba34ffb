//! The Preview tab: what the current rule and every previewed rule would do to the selected leaf, as a histogram
//! of the leading coordinates with each rule's cut marked under it and a table of the rules' outcomes.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use pdx::cluster::Param;
use pdx::report::preview::{RulePreview, SplitPreview};

use super::super::model::Model;
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
    let message = match model.tree().unsplittable_reason(id) {
        Ok(Some(_)) if model.tree().node(id).is_some_and(|n| !n.is_leaf()) => Some(format!(
            "{} is split already; select a leaf to preview its split.",
            model.label(id)
        )),
        Ok(Some(reason)) => Some(format!("{} cannot be split: {reason}.", model.label(id))),
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
    let lines = preview_lines(model, theme, preview, width, histogram_rows);
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
            entry.second_pending,
            plot_area,
        );
    } else {
        let scroll = u16::try_from(model.detail_scroll()).unwrap_or(u16::MAX);
        frame.render_widget(Paragraph::new(lines).scroll((scroll, 0)), area);
    }
}

/// The text part of the preview: the current rule's outcome, the histogram with the cuts, the rule table.
pub(super) fn preview_lines(
    model: &Model,
    theme: Theme,
    preview: &SplitPreview,
    width: usize,
    histogram_rows: usize,
) -> Vec<Line<'static>> {
    let current = preview.rules.iter().find(|r| r.rule == *model.rule());
    let mut lines = current_rule_lines(model, theme, current, width);

    // The histogram of the leading coordinates, over a range that holds every cut.
    let cuts: Vec<(usize, f64)> = preview
        .rules
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.cut.filter(|c| c.is_finite()).map(|c| (i, c)))
        .collect();
    let (mut low, mut high) = preview
        .coordinates
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        });
    for &(_, cut) in &cuts {
        low = low.min(cut);
        high = high.max(cut);
    }
    // Bins a few columns wide when there are few documents, so that the shape shows rather than single dots.
    let width = width.max(1);
    let bins_wanted = (preview.coordinates.len() / 3).max(8).min(width);
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
    for &x in &preview.coordinates {
        counts[column(x) / columns_per_bin] += 1;
    }
    let max = counts.iter().copied().max().unwrap_or(0).max(1) as f64;
    lines.push(Line::styled(
        format!(
            "Leading coordinate σ1·v1 of {} documents (σ1 = {:.3})",
            preview.coordinates.len(),
            preview.singular_values.first().copied().unwrap_or(0.0)
        ),
        theme.heading(),
    ));
    const LEVELS: [&str; 9] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"];
    for row in (0..histogram_rows).rev() {
        let text: String = counts
            .iter()
            .flat_map(|&count| {
                let eighths = (count as f64 / max * (histogram_rows * 8) as f64).round() as usize;
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
    // The cut marks: one letter per rule (the table below names them); `*` where several cuts share a column.
    let mut marks = vec![' '; used];
    let mut current_column = None;
    for &(i, cut) in &cuts {
        let c = column(cut);
        marks[c] = if marks[c] == ' ' {
            rule_symbol(i, &preview.rules)
        } else {
            '*'
        };
        if preview.rules[i].rule == *model.rule() {
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
    for i in 0..preview.rules.len() {
        lines.push(rule_row(i, &preview.rules, model, theme, labels));
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
        Err(error) => vec![Line::styled(
            format!("{name} refuses: {error}"),
            theme.fg(Color::Red),
        )],
        Ok(outcome) => {
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
                outcome.purity_after,
                model.derived().node_figures.get(&model.selected()),
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

pub(super) fn rule_row(
    index: usize,
    rules: &[RulePreview],
    model: &Model,
    theme: Theme,
    labels: bool,
) -> Line<'static> {
    let symbol = rule_symbol(index, rules);
    let rule_preview = &rules[index];
    // The preview compares cuts of the leading direction, so l = 1 goes without saying.
    let params: Vec<String> = rule_preview
        .rule
        .def()
        .params
        .iter()
        .filter(|&&param| !(param == Param::L && rule_preview.rule.params().l == 1))
        .map(|&param| {
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
        Ok(outcome) => {
            let sizes: Vec<String> = outcome.child_sizes.iter().map(|s| s.to_string()).collect();
            let mut text = format!(
                "{symbol} {:<15}{cut:>8} {:<13}{:>10}",
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
        Err(error) => format!("{symbol} {:<15}{cut:>8} refuses: {error}", fit(&name, 15)),
    };
    let style = if rule_preview.rule == *model.rule() {
        theme.heading()
    } else {
        Style::new()
    };
    Line::styled(text, style)
}
