//! The status line: the corpus and clustering figures, the current rule, the last message and the key hints.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::super::keys;
use super::super::model::Model;
use super::{Theme, leaves_text};

pub(super) fn draw_status(frame: &mut Frame, model: &Model, theme: Theme, area: Rect) {
    let data = &model.data();
    let width = usize::from(area.width);
    // Three decimals when there is room, two when there is not.
    let places = if width >= 100 { 3 } else { 2 };
    let mut figures = format!(
        "{}: {} docs, {} terms · {} · obj {:.places$}",
        data.source,
        data.documents.len(),
        data.matrix.rows(),
        leaves_text(model.derived().leaves.len()),
        model.derived().objective
    );
    if let Some(global) = &model.derived().global {
        figures.push_str(&format!(
            " · ent {:.places$} pur {:.places$} NMI {:.places$}",
            global.entropy, global.purity, global.nmi
        ));
    }
    let first = Line::styled(figures, theme.fg(Color::Cyan));

    let rule = format!("{} · ", model.rule_text());
    let message = if model.busy().is_some() {
        match model.job_progress().map(|progress| progress.snapshot()) {
            Some(snapshot) if !snapshot.phase.is_empty() => {
                let counts = if snapshot.total > 0 {
                    format!(" {}/{}", snapshot.done, snapshot.total)
                } else {
                    String::new()
                };
                format!(
                    "⏳ {} · {}{counts} (Esc stops)",
                    model.status(),
                    snapshot.phase
                )
            }
            _ => format!("⏳ {}", model.status()),
        }
    } else {
        model.status().to_string()
    };
    let mut hint = String::new();
    let room = width.saturating_sub(rule.chars().count() + message.chars().count() + 3);
    for (key, word) in keys::hint_pairs() {
        let piece = format!("{key} {word}");
        let extra = piece.chars().count() + usize::from(!hint.is_empty()) * 2;
        if hint.chars().count() + extra > room {
            break;
        }
        if !hint.is_empty() {
            hint.push_str("  ");
        }
        hint.push_str(&piece);
    }
    let gap =
        width.saturating_sub(rule.chars().count() + message.chars().count() + hint.chars().count());
    let second = Line::from(vec![
        Span::styled(rule, theme.fg(Color::Cyan).add_modifier(Modifier::BOLD)),
        Span::styled(message, theme.fg(Color::Yellow)),
        Span::raw(" ".repeat(gap)),
        Span::styled(hint, theme.dim()),
    ]);
    frame.render_widget(Paragraph::new(vec![first, second]), area);
}
