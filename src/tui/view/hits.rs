//! The search's hits list, and the highlighted text the Documents tab and the viewer show: a match or a
//! distinctive word in its style, and without colours (NO_COLOR) between visible marks.

use std::ops::Range;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{List, ListItem, ListState, Paragraph};

use crate::printable;
use crate::text::index::{Snippet, snippet};

use super::super::effects::Unreadable;
use super::super::model::{InContext, Mark, MarkKind, Model, count};
use super::popups::draw_list_popup;
use super::{Theme, fit, list_offset};

/// What surrounds a highlight without colours, so that it still shows: a search match, a distinctive word.
const SEARCH_MARKS: (&str, &str) = ("«", "»");
const WORD_MARKS: (&str, &str) = ("‹", "›");

/// How many characters the marks of a highlight take without colours.
pub(super) fn marks_width(theme: Theme) -> usize {
    if theme.color { 0 } else { 2 }
}

fn mark_style(kind: MarkKind, theme: Theme) -> Style {
    match (kind, theme.color) {
        (MarkKind::Search, true) => Style::new()
            .bg(Color::Yellow)
            .fg(Color::Black)
            .add_modifier(Modifier::BOLD),
        (MarkKind::Distinctive, true) => Style::new()
            .fg(Color::Cyan)
            .add_modifier(Modifier::UNDERLINED),
        (MarkKind::Search, false) => Style::new().add_modifier(Modifier::BOLD),
        (MarkKind::Distinctive, false) => Style::new().add_modifier(Modifier::UNDERLINED),
    }
}

/// A piece of a document's text as drawn: its controls and bidirectional overrides as their codes, its tabs kept
/// (its line breaks are the lines').
fn shown(text: &str) -> String {
    printable::escaped_lines(text).into_owned()
}

/// The spans of `text` with `range` highlighted as `kind`.
fn highlighted(
    text: &str,
    range: Range<usize>,
    kind: MarkKind,
    theme: Theme,
) -> Vec<Span<'static>> {
    let mut spans = vec![Span::raw(shown(&text[..range.start]))];
    let style = mark_style(kind, theme);
    if !theme.color {
        let (open, close) = match kind {
            MarkKind::Search => SEARCH_MARKS,
            MarkKind::Distinctive => WORD_MARKS,
        };
        spans.push(Span::styled(
            format!("{open}{}{close}", shown(&text[range.clone()])),
            style,
        ));
    } else {
        spans.push(Span::styled(shown(&text[range.clone()]), style));
    }
    spans.push(Span::raw(shown(&text[range.end..])));
    spans
}

/// What a row shows of a document's text in context, on one line of at most `width` characters: the mark in its
/// context highlighted, the text's start, "reading…" until the text is read, or why it cannot be shown.
pub(super) fn in_context_spans(
    context: InContext<'_>,
    width: usize,
    theme: Theme,
) -> Vec<Span<'static>> {
    match context {
        InContext::Reading => vec![Span::styled("reading…", theme.dim())],
        InContext::Unreadable(why) => vec![Span::styled(unreadable_short(&why), theme.dim())],
        InContext::Shown {
            text,
            mark: Some(mark),
        } => snippet_spans(text, &mark, width, theme),
        InContext::Shown { text, mark: None } => {
            let start = Mark {
                range: 0..0,
                kind: MarkKind::Distinctive,
            };
            snippet_spans(text, &start, width, theme)
        }
    }
}

/// Why a row shows no text, in a few words.
fn unreadable_short(why: &Unreadable) -> String {
    match why {
        Unreadable::Changed => "(changed since it was read)".into(),
        Unreadable::Failed(_) => "(cannot be read: the viewer says why)".into(),
    }
}

/// Why the viewer shows no text.
pub(super) fn unreadable_text(why: &Unreadable) -> String {
    match why {
        Unreadable::Changed => {
            "(the file changed since it was read: its text is not the one counted; \
                                reopen the collection to read it again)"
                .into()
        }
        Unreadable::Failed(reason) => {
            format!("(the text cannot be read: {})", printable::escaped(reason))
        }
    }
}

/// `mark` of `text` in its context, on one line of at most `width` characters, highlighted.
fn snippet_spans(text: &str, mark: &Mark, width: usize, theme: Theme) -> Vec<Span<'static>> {
    let Snippet {
        text: line,
        highlight,
    } = snippet(
        text,
        mark.range.clone(),
        width.saturating_sub(marks_width(theme)),
    );
    highlighted(&line, highlight, mark.kind, theme)
}

/// The viewer's text of `document` in `area`, from line `scroll` (counting the title and the blank line after
/// it): "reading…" until the text is read, or why it cannot be shown. Only the lines the area can show are made
/// (a text may be hundreds of megabytes), each at most as long as the area can show wrapped.
pub(super) fn viewer_text(
    model: &Model,
    document: usize,
    scroll: usize,
    area: Rect,
    theme: Theme,
) -> Text<'static> {
    let shown = match model.document_reading(document) {
        None => return Text::styled("reading…", theme.dim()),
        Some(Err(why)) => return Text::styled(unreadable_text(why), theme.dim()),
        Some(Ok(shown)) => shown,
    };
    let mut text = Text::default();
    let heading: Vec<Line<'static>> = match shown.title() {
        Some(title) => vec![
            Line::styled(printable::escaped(title).into_owned(), theme.heading()),
            Line::raw(""),
        ],
        None => Vec::new(),
    };
    let first = scroll.saturating_sub(heading.len());
    for line in heading.into_iter().skip(scroll) {
        text.push_line(line);
    }
    let rows = usize::from(area.height);
    let body = shown.text();
    let from = shown.line_start(first);
    let mut to = shown.line_start(first + rows);
    // What the area can show of them: a line longer than that shows its start.
    let room = usize::from(area.width).max(1) * rows.max(1) * 4;
    if to - from > room {
        to = from + room;
        while !body.is_char_boundary(to) {
            to -= 1;
        }
    }
    let marks = match model.document_marks(document, shown, &(from..to)) {
        Ok(marks) => marks,
        Err(why) => return Text::styled(unreadable_text(&why), theme.dim()),
    };
    // The marks within the lines made, counted from their start.
    let marks: Vec<Mark> = marks
        .into_iter()
        .map(|mark| Mark {
            range: mark.range.start.clamp(from, to) - from..mark.range.end.clamp(from, to) - from,
            kind: mark.kind,
        })
        .collect();
    for line in marked_lines(&body[from..to], &marks, theme) {
        text.push_line(line);
    }
    text
}

/// A document's text as lines with `marks` highlighted (a mark across lines is highlighted on each).
fn marked_lines(text: &str, marks: &[Mark], theme: Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let mut offset = 0;
    let mut marks = marks.iter().peekable();
    for raw in text.split_inclusive('\n') {
        let line = raw.trim_end_matches('\n').trim_end_matches('\r');
        let (start, end) = (offset, offset + line.len());
        offset += raw.len();
        let mut spans = Vec::new();
        let mut at = start;
        // Marks that end before this line are behind; one that runs on stays for the next line too.
        while let Some(mark) = marks.peek() {
            if mark.range.end <= at {
                marks.next();
                continue;
            }
            if mark.range.start >= end {
                break;
            }
            let from = mark.range.start.max(at);
            let to = mark.range.end.min(end);
            spans.push(Span::raw(shown(&text[at..from])));
            spans.extend(
                highlighted(&text[from..to], 0..to - from, mark.kind, theme)
                    .into_iter()
                    .filter(|s| !s.content.is_empty()),
            );
            at = to;
            if mark.range.end <= end {
                marks.next();
            } else {
                break;
            }
        }
        spans.push(Span::raw(shown(&text[at..end])));
        lines.push(Line::from(spans));
    }
    lines
}

/// The hits list: each hit's document, its leaf and the match in context; the cursor on the current hit.
pub(super) fn draw_hits(frame: &mut Frame, model: &Model, theme: Theme) {
    let Some(search) = model.search() else {
        return;
    };
    let counts = format!(
        " Search {}: {} in {} ",
        printable::escaped(&search.query.to_string()),
        count(search.hits.len(), "hit"),
        count(search.documents, "document")
    );
    let keys = "· Enter opens · Esc closes, then n/N step ";
    let [heading, body] = draw_list_popup(frame, theme, search.hits.len(), counts, keys);
    let width = usize::from(body.width);
    let title_width = (width / 4).clamp(10, 40);
    let leaf_width = (width / 8).clamp(6, 16);
    let snippet_width = width.saturating_sub(title_width + leaf_width + 4);
    frame.render_widget(
        Paragraph::new(Line::styled(
            format!(
                "  {:<title_width$} {:<leaf_width$} in context",
                "document", "leaf"
            ),
            theme.heading(),
        )),
        heading,
    );
    let offset = list_offset(search.current, body.height);
    let items: Vec<ListItem> = search
        .hits
        .iter()
        .enumerate()
        .skip(offset)
        .take(usize::from(body.height))
        .map(|(_, hit)| {
            let Some(_) = model.data().documents.get(hit.document) else {
                return ListItem::new("");
            };
            let leaf = model.leaf_label(hit.document).unwrap_or_default();
            let mut spans = vec![Span::raw(format!(
                "  {:<title_width$} ",
                fit(&model.document_heading(hit.document), title_width)
            ))];
            spans.push(Span::styled(
                format!("{:<leaf_width$} ", fit(&leaf, leaf_width)),
                theme.fg(Color::Cyan),
            ));
            spans.extend(in_context_spans(
                model.hit_in_context(hit),
                snippet_width,
                theme,
            ));
            ListItem::new(Line::from(spans))
        })
        .collect();
    let list = List::new(items).highlight_style(theme.selected(true));
    let mut state = ListState::default().with_selected(Some(search.current - offset));
    frame.render_stateful_widget(list, body, &mut state);
}
