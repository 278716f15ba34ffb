//! The weighting and filters form (`W`) and the report of a rebuild and replay: which leaves kept their size.

use ratatui::Frame;
use ratatui::style::Color;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};

use super::super::model::{ReplaySummary, WeightingForm};
use super::popups::{popup_area, popup_block};
use super::{Theme, fit};

pub(super) fn draw_weighting_form(frame: &mut Frame, theme: Theme, form: &WeightingForm) {
    let area = popup_area(frame.area(), 72, 12);
    let code = form.by_code();
    let values = form.values();
    let value_width = usize::from(area.width.saturating_sub(26));
    let mut lines: Vec<Line> = WeightingForm::ROWS
        .iter()
        .zip(values)
        .enumerate()
        .map(|(row, (name, value))| {
            // The letters mean nothing under pdgp or none: shown dim.
            let unused = !code && (1..=3).contains(&row);
            let value_style = if row == form.row() {
                theme.selected(true)
            } else if unused {
                theme.dim()
            } else {
                theme.fg(Color::Cyan)
            };
            Line::from(vec![
                Span::raw(format!(" {:<20} ", name)),
                Span::styled(format!("‹ {} ›", fit(&value, value_width)), value_style),
            ])
        })
        .collect();
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        format!(
            " now: {} · min df {} · max df {:.2}",
            form.current().weighting.code(),
            form.current().min_df,
            form.current().max_df
        ),
        theme.dim(),
    ));
    lines.push(Line::styled(
        " ↑↓ row · ←→ value · Enter rebuild and replay · Esc close",
        theme.dim(),
    ));
    let code_text = if code {
        format!(" Weighting and filters: {} ", form.weighting().code())
    } else {
        " Weighting and filters ".to_string()
    };
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines).block(popup_block(code_text, theme)),
        area,
    );
}

pub(super) fn draw_replay_summary(
    frame: &mut Frame,
    theme: Theme,
    summary: &ReplaySummary,
    scroll: usize,
) {
    const MOVED: &str = "  moved > 5%";
    let full = frame.area();
    let area = popup_area(full, 100, full.height.saturating_sub(2));
    let mut lines: Vec<Line> = summary
        .headline
        .iter()
        .map(|line| Line::raw(crate::printable::escaped(line).into_owned()))
        .collect();
    lines.push(Line::raw(""));
    // The name column takes what the sizes and the mark leave, so that a row never wraps at 80 columns.
    let inner = usize::from(area.width.saturating_sub(2));
    let name = inner.saturating_sub(3 * 9 + 1 + MOVED.len()).clamp(8, 24);
    lines.push(Line::styled(
        format!(
            "{:<name$} {:>8} {:>8} {:>8}",
            "leaf", "size was", "is now", "shared"
        ),
        theme.heading(),
    ));
    for leaf in &summary.leaves {
        let text = format!(
            "{:<name$} {:>8} {:>8} {:>8}",
            fit(&leaf.label, name),
            leaf.old_size,
            leaf.new_size,
            leaf.shared
        );
        lines.push(if leaf.moved {
            Line::from(vec![
                Span::styled(text, theme.fg(Color::Yellow)),
                Span::styled(MOVED, theme.fg(Color::Yellow)),
            ])
        } else {
            Line::raw(text)
        });
    }
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines)
            .block(popup_block(
                " Rebuilt and replayed · u undoes · Esc closes ".into(),
                theme,
            ))
            .wrap(Wrap { trim: false })
            .scroll((u16::try_from(scroll).unwrap_or(u16::MAX), 0)),
        area,
    );
}
