//! HTML: the text a reader sees. A WHATWG tokenizer (`html5gum`) reads the markup, so that tag names,
//! attributes and comments never reach the text and character references (`&amp;`, `&#8217;`) are decoded; the
//! contents of `<script>`, `<style>` and the other elements a browser does not show as text are dropped; block
//! elements end lines and paragraphs, and runs of white space become one space, as on the screen. The title is
//! the `<title>` element's text. E-mail bodies in HTML are read by the same code.

use html5gum::{DefaultEmitter, Token, Tokenizer};

use super::Extracted;
use crate::corpus::{TextEncoding, decode_text};

pub(super) fn read(bytes: &[u8], encoding: TextEncoding) -> Extracted {
    let (page, encoding) = decode(bytes, encoding);
    let (title, text) = visible_text(&page);
    Extracted {
        title,
        text,
        encoding: Some(encoding),
    }
}

/// The page's characters and the encoding they were read in: UTF-8 (or UTF-16 with its byte-order mark) when
/// they are that, else the encoding a `charset` near the start names, else the one `chardetng` detects; an
/// encoding the load options force is used whatever the page says (but for a byte-order mark), since the user
/// who forces one knows better than the page.
fn decode(bytes: &[u8], encoding: TextEncoding) -> (String, &'static encoding_rs::Encoding) {
    if encoding == TextEncoding::Detect
        && std::str::from_utf8(bytes).is_err()
        && let Some(declared) = declared_charset(bytes)
    {
        let (text, used, _) = declared.decode(bytes);
        return (text.into_owned(), used);
    }
    let decoded = decode_text(bytes.to_vec(), encoding);
    (decoded.text, decoded.encoding)
}

/// How far into a page a `charset` declaration is looked for (the HTML standard's prescan looks at 1024 bytes).
const CHARSET_PRESCAN: usize = 1024;

/// The encoding a `charset=NAME` (in `<meta charset>` or a `content` attribute) in the page's first bytes names.
fn declared_charset(bytes: &[u8]) -> Option<&'static encoding_rs::Encoding> {
    let head = &bytes[..bytes.len().min(CHARSET_PRESCAN)];
    let at = head
        .windows(b"charset=".len())
        .position(|window| window.eq_ignore_ascii_case(b"charset="))?;
    let name: Vec<u8> = head[at + b"charset=".len()..]
        .iter()
        .copied()
        .skip_while(|b| *b == b'"' || *b == b'\'')
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b':' | b'.'))
        .collect();
    encoding_rs::Encoding::for_label(&name)
}

/// Elements whose contents a browser does not show as text. Not `<head>`, whose end tag pages often leave
/// out: what it holds besides the title is one of these, or no text.
const HIDDEN: &[&[u8]] = &[
    b"script",
    b"style",
    b"noscript",
    b"template",
    b"iframe",
    b"noembed",
    b"noframes",
];

/// Elements that end a paragraph.
const PARAGRAPHS: &[&[u8]] = &[
    b"p",
    b"div",
    b"h1",
    b"h2",
    b"h3",
    b"h4",
    b"h5",
    b"h6",
    b"table",
    b"ul",
    b"ol",
    b"dl",
    b"blockquote",
    b"pre",
    b"section",
    b"article",
    b"aside",
    b"header",
    b"footer",
    b"nav",
    b"main",
    b"figure",
    b"figcaption",
    b"form",
    b"fieldset",
    b"details",
    b"address",
    b"hr",
];

/// Elements that end a line.
const LINES: &[&[u8]] = &[
    b"br", b"li", b"tr", b"dt", b"dd", b"caption", b"summary", b"option",
];

/// Elements that stand apart from their neighbours on a line.
const CELLS: &[&[u8]] = &[b"td", b"th"];

/// The `<title>` and the visible text of `html`.
pub(super) fn visible_text(html: &str) -> (Option<String>, String) {
    let mut emitter = DefaultEmitter::default();
    // Raw text for <script>, <style>, <title>, <textarea>...: without it a `<` in a script would open a tag.
    emitter.naively_switch_states(true);
    let mut text = Text::default();
    let mut title: Option<String> = None;
    let mut in_title = false;
    let mut hidden_depth = 0usize;
    let mut pre_depth = 0usize;
    for token in Tokenizer::new_with_emitter(html, emitter).flatten() {
        match token {
            Token::StartTag(tag) => {
                let name = tag.name.as_slice();
                if name == b"title" {
                    in_title = !tag.self_closing;
                    title.get_or_insert_with(String::new);
                } else if HIDDEN.contains(&name) {
                    hidden_depth += usize::from(!tag.self_closing);
                } else if hidden_depth == 0 {
                    text.at_boundary(name);
                    pre_depth += usize::from(name == b"pre" && !tag.self_closing);
                }
            }
            Token::EndTag(tag) => {
                let name = tag.name.as_slice();
                if name == b"title" {
                    in_title = false;
                } else if HIDDEN.contains(&name) {
                    hidden_depth = hidden_depth.saturating_sub(1);
                } else if hidden_depth == 0 {
                    text.at_boundary(name);
                    if name == b"pre" {
                        pre_depth = pre_depth.saturating_sub(1);
                    }
                }
            }
            Token::String(string) => {
                let string = String::from_utf8_lossy(&string.value);
                if in_title {
                    if let Some(title) = title.as_mut() {
                        title.push_str(&string);
                    }
                } else if hidden_depth == 0 {
                    text.push(&string, pre_depth > 0);
                }
            }
            Token::Comment(_) | Token::Doctype(_) | Token::Error(_) => {}
        }
    }
    let title = title
        .map(|title| title.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|title| !title.is_empty());
    (title, text.finish())
}

/// Visible text as it is laid out: spaces collapsed, lines and paragraphs ended by elements.
#[derive(Default)]
struct Text {
    out: String,
    /// A space is owed before the next word (white space was seen after the last one).
    space: bool,
}

impl Text {
    fn push(&mut self, string: &str, preformatted: bool) {
        if preformatted {
            self.out.push_str(string);
            self.space = false;
            return;
        }
        for (index, word) in string.split(char::is_whitespace).enumerate() {
            if index > 0 {
                self.space = true;
            }
            if word.is_empty() {
                continue;
            }
            if self.space && !self.out.is_empty() && !self.out.ends_with('\n') {
                self.out.push(' ');
            }
            self.space = false;
            self.out.push_str(word);
        }
    }

    /// An element starts or ends: end the paragraph or the line, or set a cell apart.
    fn at_boundary(&mut self, name: &[u8]) {
        if PARAGRAPHS.contains(&name) {
            self.end_with("\n\n");
        } else if LINES.contains(&name) {
            self.end_with("\n");
        } else if CELLS.contains(&name) {
            self.space = true;
        }
    }

    /// End the text so far with `breaks` (line breaks), unless it already ends with as many, or is empty.
    fn end_with(&mut self, breaks: &str) {
        if self.out.is_empty() {
            return;
        }
        let trailing = self.out.len() - self.out.trim_end_matches('\n').len();
        let wanted = breaks.len();
        if trailing < wanted {
            let trimmed = self.out.trim_end_matches([' ', '\t']).len();
            self.out.truncate(trimmed);
            for _ in trailing..wanted {
                self.out.push('\n');
            }
        }
        self.space = false;
    }

    fn finish(self) -> String {
        self.out.trim().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_styles_tags_and_attributes_are_not_text() {
        let page = r#"<!DOCTYPE html><html><head><title> Orbit &amp; re-entry </title>
            <style>p { color: red }</style><script>if (a < b && c > d) { alert("<p>x</p>") }</script>
            </head><body class="main"><h1 id="top">Shuttle</h1><p>The crew&#8217;s <b>heat</b> shield
            held.<br>It landed.</p><!-- a comment --><noscript>enable scripts</noscript>
            <table><tr><td>one</td><td>two</td></tr></table></body></html>"#;
        let (title, text) = visible_text(page);
        assert_eq!(title.as_deref(), Some("Orbit & re-entry"));
        assert_eq!(
            text,
            "Shuttle\n\nThe crew\u{2019}s heat shield held.\nIt landed.\n\none two"
        );
    }

    #[test]
    fn preformatted_text_keeps_its_spaces() {
        let (_, text) = visible_text("<p>a</p><pre>x   y\n  z</pre><p>b</p>");
        assert_eq!(text, "a\n\nx   y\n  z\n\nb");
    }

    #[test]
    fn a_declared_charset_decodes_a_page_that_is_not_utf8() {
        let page = b"<html><head><meta charset=\"iso-8859-2\"></head><body>\xB1</body></html>";
        let (page, used) = decode(page, TextEncoding::Detect);
        let (_, text) = visible_text(&page);
        // 0xB1 is a-ogonek in ISO-8859-2 (a plus-minus sign in Windows-1252).
        assert_eq!(text, "\u{105}");
        assert_eq!(used, encoding_rs::ISO_8859_2);
    }
}
