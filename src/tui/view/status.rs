//! The status area: the corpus and clustering figures, the current rule, the last message (wrapped onto a second
//! line when it does not fit on one; the message log has it whole) and the key hints.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::super::model::Model;
use super::{FOCUS_MARK, Theme, fit, leaves_text};

/// The most lines a message takes in the status area; a longer one ends with [`CUT_NOTE`].
const MESSAGE_LINES: usize = 2;

/// How a message cut in the status area ends: where to read it whole.
const CUT_NOTE: &str = "… (L: whole message)";

/// Rows the status area takes at `width`: the figures and one line of message, or two when the message does not
/// fit on one.
pub(super) fn status_height(model: &Model, width: u16) -> u16 {
    let (_, lines) = message_lines(model, usize::from(width));
    if lines.len() > 1 { 3 } else { 2 }
}

/// The status message, with the running job's progress.
fn message_text(model: &Model) -> String {
    // A message may quote the collection: a file's name, a label, a word.
    let status = crate::printable::escaped(model.status());
    if model.busy().is_none() {
        return match model.indexing() {
            Some(indexing) => format!("{status} · {indexing}"),
            None => status.into_owned(),
        };
    }
    match model.job_progress().map(|progress| progress.snapshot()) {
        Some(snapshot) if !snapshot.phase.is_empty() => {
            let counts = if snapshot.total > 0 {
                format!(" {}/{}", snapshot.done, snapshot.total)
            } else {
                String::new()
            };
            format!("⏳ {status} · {}{counts} (Esc stops)", snapshot.phase)
        }
        _ => format!("⏳ {status}"),
    }
}

/// The rule prefix and the message's lines at `width`: the first line after the prefix, at most
/// [`MESSAGE_LINES`], the last ending with [`CUT_NOTE`] when the message is longer. The last line leaves room
/// for the name of the pane with the focus, which a terminal without colours shows nowhere else: a message
/// that fills its line takes another for it.
fn message_lines(model: &Model, width: usize) -> (String, Vec<String>) {
    let rule = fit(&format!("{} · ", model.rule_text()), width / 2);
    let first = width.saturating_sub(rule.chars().count());
    let mut lines = wrap(&message_text(model), first, width);
    let focus = focus_text(model).chars().count() + 1;
    let last_used = |lines: &[String]| {
        let prefix = if lines.len() == 1 { first } else { width };
        width - prefix + lines.last().map_or(0, |line| line.chars().count())
    };
    let cut = lines.len() > MESSAGE_LINES;
    lines.truncate(MESSAGE_LINES);
    if !cut && last_used(&lines) + focus > width && lines.len() < MESSAGE_LINES {
        lines.push(String::new());
    }
    if cut || last_used(&lines) + focus > width {
        let lead = width - if lines.len() == 1 { first } else { width };
        if let Some(last) = lines.last_mut() {
            let room = width.saturating_sub(lead + focus + CUT_NOTE.chars().count());
            *last = format!("{}{CUT_NOTE}", fit_plain(last, room));
        }
    }
    (rule, lines)
}

/// The mark and name of the pane with the focus, as the status line ends.
fn focus_text(model: &Model) -> String {
    format!("{FOCUS_MARK}{}", model.focus().name())
}

/// The first `width` characters of `text`.
fn fit_plain(text: &str, width: usize) -> String {
    text.chars().take(width).collect()
}

/// `text` in lines of at most `first` characters (the first line) and `width` (the others), broken at spaces,
/// a word longer than a line broken where the line ends.
pub(crate) fn wrap(text: &str, first: usize, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    let room = |lines: &Vec<String>| if lines.is_empty() { first } else { width }.max(1);
    for word in text.split(' ') {
        let mut word = word.to_string();
        loop {
            let used = line.chars().count();
            let gap = usize::from(used > 0);
            if used + gap + word.chars().count() <= room(&lines) {
                if gap == 1 {
                    line.push(' ');
                }
                line.push_str(&word);
                break;
            }
            if used > 0 {
                lines.push(std::mem::take(&mut line));
                continue;
            }
            // A word longer than a whole line: as much as fits, the rest on the next.
            let take = room(&lines);
            let head: String = word.chars().take(take).collect();
            word = word.chars().skip(take).collect();
            lines.push(head);
            if word.is_empty() {
                break;
            }
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

pub(super) fn draw_status(frame: &mut Frame, model: &Model, theme: Theme, area: Rect) {
    let data = &model.data();
    let width = usize::from(area.width);
    // Three decimals when there is room, fewer when there is not.
    let figures_at = |places: usize| {
        let mut figures = format!(
            "{} docs, {} terms · {}",
            data.documents.len(),
            data.term_matrix().rows(),
            leaves_text(model.derived().leaves.len()),
        );
        if model.blind() {
            figures.push_str(" · labels hidden (b)");
        }
        figures.push_str(&format!(" · obj {:.places$}", model.derived().objective));
        if let Some(global) = model.global_figures() {
            figures.push_str(&format!(
                " · ent {:.places$} pur {:.places$} NMI {:.places$}",
                global.entropy, global.purity, global.nmi
            ));
        }
        figures
    };
    let first_places = if width >= 100 { 3 } else { 2 };
    let figures = (1..=first_places)
        .rev()
        .map(figures_at)
        .find(|f| f.chars().count() <= width)
        .unwrap_or_else(|| figures_at(1));
    // The corpus's name first when it fits (a long list of paths may not); the figures always.
    let named = format!("{}: {figures}", crate::printable::escaped(&data.source));
    let figures = if named.chars().count() <= width {
        named
    } else {
        fit(&figures, width)
    };
    let mut lines = vec![Line::styled(figures, theme.fg(Color::Cyan))];

    let (rule, message) = message_lines(model, width);
    let last = message.len().saturating_sub(1);
    for (index, text) in message.into_iter().enumerate() {
        let mut spans = Vec::new();
        let mut used = text.chars().count();
        if index == 0 {
            used += rule.chars().count();
            spans.push(Span::styled(
                rule.clone(),
                theme.fg(Color::Cyan).add_modifier(Modifier::BOLD),
            ));
        }
        spans.push(Span::styled(text, theme.fg(Color::Yellow)));
        if index == last {
            let hint = hint_text(model, width.saturating_sub(used + 3));
            let gap = width.saturating_sub(used + hint.chars().count());
            spans.push(Span::raw(" ".repeat(gap)));
            spans.push(Span::styled(hint, theme.dim()));
        }
        lines.push(Line::from(spans));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// The pane with the focus, then as many `key word` hints as fit in `room`.
fn hint_text(model: &Model, room: usize) -> String {
    let mut hint = fit(&focus_text(model), room);
    for (key, word) in model.keys().hint_pairs() {
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
    hint
}
