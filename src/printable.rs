//! Text from a collection as it may be shown to a person: every string that comes from the files (a label, an
//! id, a title, a file name, a word, a column name, a parser's message quoting the input) is made printable here
//! before it is laid out in a report, a message or a screen.
//!
//! A terminal acts on what it is sent: ESC starts a sequence that can set the clipboard or the window title or
//! redraw the screen (`ESC ] 52 ; c ; BASE64 BEL` puts a command on the clipboard), CR and BS write over what was
//! written, and a bidirectional override or isolate reorders what follows it, so that a label can read as
//! another. So each such character is shown as its code in Rust's notation, `\u{1b}`: visible, and faithful
//! (the code says which character it was, where silently dropping it would make `a\u{7}b` and `ab` alike).
//! A backslash is left as it is: a name that holds the six characters `\u{1b}` reads like one that holds the
//! escape, a price paid for keeping ordinary paths and text unchanged.
//!
//! What is escaped (see [`needs_escape`]): the control characters of Unicode's category Cc (C0, DEL and C1, such
//! as U+009B, a terminal's one-character CSI), the bidirectional embeddings, overrides and isolates (U+202A to
//! U+202E, U+2066 to U+2069), and the line and paragraph separators (U+2028, U+2029). A string is escaped before
//! it is cut to a width, and widths are measured in terminal columns ([`width`]), so that a cut never falls inside
//! an escape and a table's columns line up.

use std::borrow::Cow;

use unicode_width::UnicodeWidthChar;

/// Whether `c` is shown as its code: a control character, a bidirectional control, a line or paragraph separator.
pub fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{2028}' | '\u{2029}'
        )
}

/// `text` as one line: every character [`needs_escape`] names, line breaks and tabs among them, as its code
/// (`\u{1b}`); the rest as it is.
pub fn escaped(text: &str) -> Cow<'_, str> {
    escaped_keeping(text, |_| false)
}

/// `text` laid out in lines, by pdx (a report) or by its author (a document): as [`escaped`], but line feeds and
/// tabs are kept.
pub fn escaped_lines(text: &str) -> Cow<'_, str> {
    escaped_keeping(text, |c| matches!(c, '\n' | '\t'))
}

fn escaped_keeping(text: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    let escape = |c: char| needs_escape(c) && !keep(c);
    let Some(first) = text.find(escape) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        if escape(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The columns a character of printable text takes on a terminal (0 for a combining mark, 2 for a wide one).
fn char_width(c: char) -> usize {
    c.width().unwrap_or(0)
}

/// The columns `text` takes on a terminal once escaped.
pub fn width(text: &str) -> usize {
    escaped(text).chars().map(char_width).sum()
}

/// `text` escaped and cut to at most `columns` terminal columns, ending in `…` when cut. An escape is kept whole
/// or left out whole: a cut never leaves half of one.
pub fn cut(text: &str, columns: usize) -> String {
    if width(text) <= columns {
        return escaped(text).into_owned();
    }
    let mut kept = String::new();
    let mut used = 0;
    let room = columns.saturating_sub(1);
    for c in text.chars() {
        let escape = needs_escape(c);
        // An escape is ASCII: as many columns as characters.
        let next = used
            + if escape {
                c.escape_unicode().len()
            } else {
                char_width(c)
            };
        if next > room {
            break;
        }
        match escape {
            true => kept.extend(c.escape_unicode()),
            false => kept.push(c),
        }
        used = next;
    }
    if columns > 0 {
        kept.push('…');
    }
    kept
}

/// `text` escaped and cut to at most `columns` terminal columns from its start, beginning with `…` when cut: for a
/// path or an id, whose end (the file's name) tells it apart. An escape is kept whole or left out whole.
pub fn cut_start(text: &str, columns: usize) -> String {
    if width(text) <= columns {
        return escaped(text).into_owned();
    }
    let room = columns.saturating_sub(1);
    let mut pieces: Vec<String> = Vec::new();
    let mut used = 0;
    for c in text.chars().rev() {
        let piece: String = match needs_escape(c) {
            true => c.escape_unicode().collect(),
            false => c.to_string(),
        };
        let next = used + piece.chars().map(char_width).sum::<usize>();
        if next > room {
            break;
        }
        pieces.push(piece);
        used = next;
    }
    let mut kept = String::new();
    if columns > 0 {
        kept.push('…');
    }
    kept.extend(pieces.into_iter().rev());
    kept
}

/// `text` escaped, cut to `columns` terminal columns and padded with spaces to exactly `columns`: one cell of a
/// table.
pub fn padded(text: &str, columns: usize) -> String {
    let mut cell = cut(text, columns);
    let used: usize = cell.chars().map(char_width).sum();
    cell.extend(std::iter::repeat_n(' ', columns.saturating_sub(used)));
    cell
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a hostile label folder was named: the clipboard set to a command, the window title changed.
    const HOSTILE: &str =
        "\u{1b}]52;c;Y3VybCBldmlsLmV4YW1wbGUveCB8IHNo\u{7}\u{1b}]0;TITLE\u{7}news";

    #[test]
    fn controls_and_bidi_controls_show_as_their_codes() {
        assert_eq!(
            escaped(HOSTILE),
            "\\u{1b}]52;c;Y3VybCBldmlsLmV4YW1wbGUveCB8IHNo\\u{7}\\u{1b}]0;TITLE\\u{7}news"
        );
        assert_eq!(escaped("a\u{9b}2Jb"), "a\\u{9b}2Jb");
        assert_eq!(escaped("\u{202e}txt.exe"), "\\u{202e}txt.exe");
        assert_eq!(escaped("a\u{2067}b\u{2069}"), "a\\u{2067}b\\u{2069}");
        assert_eq!(
            escaped("one\ntwo\tthree\r"),
            "one\\u{a}two\\u{9}three\\u{d}"
        );
        assert_eq!(escaped("\u{7f}\u{0}"), "\\u{7f}\\u{0}");
        // Text with nothing to escape is not copied; letters of every script stay.
        assert!(matches!(escaped("comp.graphics"), Cow::Borrowed(_)));
        assert_eq!(escaped("naïve 北京 עברית"), "naïve 北京 עברית");
    }

    #[test]
    fn lines_keep_their_breaks_and_tabs() {
        assert_eq!(
            escaped_lines("a\tb\nc\u{1b}[2J\r\n"),
            "a\tb\nc\\u{1b}[2J\\u{d}\n"
        );
    }

    #[test]
    fn a_cut_from_the_start_keeps_the_end_and_every_escape_whole() {
        assert_eq!(cut_start("mail/2026/ann/12.eml", 11), "…ann/12.eml");
        assert_eq!(cut_start("short", 10), "short");
        let id = "a/\u{1b}]0;T\u{7}/b.txt";
        for columns in 0..30 {
            let shown = cut_start(id, columns);
            assert!(width(&shown) <= columns, "{shown:?} in {columns}");
            assert!(!shown.contains(needs_escape), "{shown:?}");
            if columns < width(id) && columns > 0 {
                let kept = shown.trim_start_matches('…');
                assert!(escaped(id).ends_with(kept), "{shown:?}");
                // Never half an escape: no digits and brace left of a cut `\u{`.
                assert!(
                    !kept.starts_with('{') && !kept.starts_with('u'),
                    "{shown:?}"
                );
            }
        }
    }

    #[test]
    fn a_cut_from_the_start_keeps_the_end_and_whole_escapes() {
        assert_eq!(
            cut_start("demo/medicine/nutrition/iron.txt", 12),
            "…on/iron.txt"
        );
        assert_eq!(cut_start("short", 12), "short");
        assert_eq!(cut_start("abc\u{1b}", 7), "…\\u{1b}");
        assert_eq!(cut_start("abc\u{1b}", 6), "…");
        assert_eq!(cut_start("北京北京", 5), "…北京");
        assert_eq!(cut_start("anything", 0), "");
    }

    #[test]
    fn a_cut_never_falls_inside_an_escape() {
        let label = "\u{1b}]0;TITLE\u{7}";
        for columns in 0..30 {
            let shown = cut(label, columns);
            assert!(width(&shown) <= columns, "{shown:?} in {columns}");
            assert!(!shown.contains(needs_escape), "{shown:?}");
            // Every escape whole: `\u{` then hex digits then `}`.
            for (at, _) in shown.match_indices("\\u{") {
                let rest = &shown[at + 3..];
                let close = rest.find('}').expect("an escape is closed");
                assert!(
                    rest[..close].chars().all(|c| c.is_ascii_hexdigit()),
                    "{shown:?}"
                );
            }
            if columns >= width(label) {
                assert_eq!(shown, escaped(label));
            } else if columns > 0 {
                assert!(shown.ends_with('…'), "{shown:?}");
                assert!(escaped(label).starts_with(shown.trim_end_matches('…')));
            }
        }
    }

    #[test]
    fn widths_are_terminal_columns() {
        assert_eq!(width("北京"), 4);
        assert_eq!(width("e\u{301}"), 1);
        assert_eq!(width("\u{1b}"), "\\u{1b}".len());
        assert_eq!(cut("北京大学", 5), "北京…");
        assert_eq!(padded("北京", 6), "北京  ");
        assert_eq!(padded("\u{7}x", 4), "…   ");
        assert_eq!(padded("x\u{7}", 8), "x\\u{7}  ");
        assert_eq!(width(&padded("abcdef", 4)), 4);
    }
}
