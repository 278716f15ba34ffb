//! The loading screen.

use ratatui::Frame;
use ratatui::style::Color;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph};

use super::super::loading::Loading;
use super::popups::{popup_area, popup_block};
use super::{Theme, bar, fit};

/// The screen while the corpus loads: what, for how long, the loader's phase and counts with a bar, and the key.
/// `tick` counts tenths of a second since loading started.
pub fn view_loading(frame: &mut Frame, loading: &Loading, tick: usize, colors: bool) {
    let theme = Theme { color: colors };
    let spinner = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"][tick % 10];
    let area = popup_area(frame.area(), 64, 7);
    let inner_width = usize::from(area.width.saturating_sub(2));
    let (progress, fraction) = loading.progress_text();
    let bar_line = match fraction {
        Some(fraction) => Line::styled(
            format!(
                "{} {:>3.0}%",
                bar(fraction, 1.0, inner_width.saturating_sub(5)),
                fraction * 100.0
            ),
            theme.fg(Color::Green),
        ),
        None => Line::raw(""),
    };
    let key_line = if loading.cancelling {
        Line::styled("cancelling…", theme.heading())
    } else {
        Line::styled("Esc stops loading and quits", theme.dim())
    };
    let lines = vec![
        Line::raw(fit(
            &format!("{spinner} Loading {}… {} s", loading.what, tick / 10),
            inner_width,
        )),
        Line::raw(fit(&progress, inner_width)),
        bar_line,
        Line::raw(""),
        key_line,
    ];
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines).block(popup_block(" pdx ".into(), theme)),
        area,
    );
    super::neutralise(frame.buffer_mut());
}
