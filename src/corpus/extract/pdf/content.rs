//! Content streams cut down to their text before pdf-extract reads them. pdf-extract parses a whole stream into
//! operations at once, about 190 bytes for every operand and operator (a 6 MB stream of line segments took
//! 570 MB), and follows every operator it knows, though its plain-text output uses only the text and the
//! transformations that place it. So each stream is rewritten, in one pass of a tokenizer that keeps no
//! operations: the text operators, the transformations (`cm`, `q`, `Q`) and the drawing of forms (`Do`) are
//! kept as written; paths, colours, images, marked content and the rest are dropped. The text operators
//! pdf-extract does not know, `'` and `"` (move to the next line and show a string, `"` after setting the word
//! and character spacing), become the operators it does (`T*` and `Tj`, after `Tw` and `Tc`), so that their
//! text is not lost. Graphics states saved deeper than [`MAX_SAVED_STATES`] are not saved again (pdf-extract
//! copies the whole state on each `q`).
//!
//! The pass also tells what the stream draws and which fonts it sets, for the checks of
//! [`prepare`](super::prepare), and how many tokens pdf-extract will parse.

use std::ops::Range;

use rustc_hash::{FxHashMap, FxHashSet};

/// How deep saved graphics states nest before a `q` is dropped (with its `Q`). Unbalanced `q`s are common in
/// real files; PDF's own implementation limit is 28.
const MAX_SAVED_STATES: usize = 1024;

/// The most operands an operator keeps: no operator pdf-extract reads takes more than six, and a run of
/// millions of numbers before one would otherwise be held.
const MAX_OPERANDS: usize = 32;

/// A content stream cut down to its text, and what the checks need to know of it.
#[derive(Debug, Default)]
pub(super) struct Rewritten {
    pub(super) content: Vec<u8>,
    /// Operands and operators kept: what pdf-extract will hold parsed at once for this stream.
    pub(super) tokens: u64,
    /// The XObjects drawn (`Do`), by name, and how often.
    pub(super) drawn: FxHashMap<Vec<u8>, u64>,
    /// The fonts set (`Tf`), by name.
    pub(super) fonts: FxHashSet<Vec<u8>>,
}

/// One token of PDF syntax, as a range of the bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    /// A number, a name, a string: something an operator takes.
    Operand,
    Name,
    Open,
    Close,
    Keyword,
}

/// PDF's white space.
fn is_space(byte: u8) -> bool {
    matches!(byte, b'\0' | b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

fn is_delimiter(byte: u8) -> bool {
    matches!(
        byte,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

/// Where a run of regular characters starting at `at` ends.
fn regular_end(bytes: &[u8], mut at: usize) -> usize {
    while at < bytes.len() && !is_space(bytes[at]) && !is_delimiter(bytes[at]) {
        at += 1;
    }
    at
}

/// The token at or after `at`, skipping white space and comments; `None` at the end.
fn token(bytes: &[u8], mut at: usize) -> Option<(Token, Range<usize>)> {
    loop {
        while at < bytes.len() && is_space(bytes[at]) {
            at += 1;
        }
        if bytes.get(at) != Some(&b'%') {
            break;
        }
        at = memchr::memchr2(b'\n', b'\r', &bytes[at..]).map_or(bytes.len(), |end| at + end);
    }
    let start = at;
    let (kind, end) = match *bytes.get(at)? {
        b'(' => (Token::Operand, literal_string_end(bytes, at)),
        b'<' if bytes.get(at + 1) == Some(&b'<') => (Token::Open, at + 2),
        b'<' => (
            Token::Operand,
            memchr::memchr(b'>', &bytes[at..]).map_or(bytes.len(), |end| at + end + 1),
        ),
        b'>' if bytes.get(at + 1) == Some(&b'>') => (Token::Close, at + 2),
        b'[' => (Token::Open, at + 1),
        b']' => (Token::Close, at + 1),
        b'/' => (Token::Name, regular_end(bytes, at + 1)),
        b')' | b'>' | b'{' | b'}' => (Token::Keyword, at + 1),
        byte if byte.is_ascii_digit() || matches!(byte, b'+' | b'-' | b'.') => {
            (Token::Operand, regular_end(bytes, at))
        }
        _ => {
            let end = regular_end(bytes, at);
            match &bytes[at..end] {
                b"true" | b"false" | b"null" => (Token::Operand, end),
                _ => (Token::Keyword, end),
            }
        }
    };
    Some((kind, start..end.max(start + 1)))
}

/// Where a literal string that opens at `at` ends: after its balancing `)`, escapes skipped.
fn literal_string_end(bytes: &[u8], at: usize) -> usize {
    let mut depth = 0usize;
    let mut i = at;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    bytes.len()
}

/// The name whose characters start at `at` (after its `/`), `#xx` escapes decoded, and where it ends.
pub(super) fn name_at(bytes: &[u8], at: usize) -> (Vec<u8>, usize) {
    let end = regular_end(bytes, at);
    let raw = &bytes[at..end];
    let hex = |byte: u8| (byte as char).to_digit(16);
    let mut name = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'#'
            && let (Some(high), Some(low)) = (
                raw.get(i + 1).and_then(|b| hex(*b)),
                raw.get(i + 2).and_then(|b| hex(*b)),
            )
        {
            name.push((high * 16 + low) as u8);
            i += 3;
            continue;
        }
        name.push(raw[i]);
        i += 1;
    }
    (name, end)
}

/// The non-negative integer that follows `at` (after white space), if one does.
pub(super) fn integer_after(bytes: &[u8], at: usize) -> Option<u64> {
    let (Token::Operand, range) = token(bytes, at)? else {
        return None;
    };
    let text = &bytes[range];
    let digits = text.strip_prefix(b"+").unwrap_or(text);
    let whole = digits.split(|b| *b == b'.').next()?;
    if whole.is_empty() || !whole.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(whole.iter().fold(0u64, |value, digit| {
        value
            .saturating_mul(10)
            .saturating_add(u64::from(digit - b'0'))
    }))
}

/// An operand waiting for its operator: its bytes, and how many tokens it holds (an array: all of them).
struct Operand {
    range: Range<usize>,
    tokens: u64,
}

/// `content` cut down to its text, as the module says.
pub(super) fn rewrite(content: &[u8]) -> Rewritten {
    let mut out = Rewritten::default();
    let mut operands: Vec<Operand> = Vec::new();
    // An array or dictionary being read: where it opened, how deep, how many tokens so far.
    let mut open: Option<(usize, usize, u64)> = None;
    let mut saved_states = 0usize;
    let mut at = 0;
    while let Some((kind, range)) = token(content, at) {
        at = range.end;
        if let Some((start, depth, tokens)) = &mut open {
            *tokens += 1;
            match kind {
                Token::Open => *depth += 1,
                Token::Close => *depth -= 1,
                _ => {}
            }
            if *depth == 0 {
                push_operand(&mut operands, *start..range.end, *tokens);
                open = None;
            }
            continue;
        }
        match kind {
            Token::Operand | Token::Name => push_operand(&mut operands, range, 1),
            Token::Open => open = Some((range.start, 1, 1)),
            // A stray closer is no operand.
            Token::Close => {}
            Token::Keyword => {
                let operator = &content[range];
                if operator == b"BI" {
                    at = inline_image_end(content, at);
                } else {
                    operate(content, operator, &operands, &mut saved_states, &mut out);
                }
                operands.clear();
            }
        }
    }
    out
}

fn push_operand(operands: &mut Vec<Operand>, range: Range<usize>, tokens: u64) {
    if operands.len() == MAX_OPERANDS {
        operands.remove(0);
    }
    operands.push(Operand { range, tokens });
}

/// Where the inline image whose `BI` ends at `at` ends: after its `EI`, which stands alone after its data.
fn inline_image_end(content: &[u8], at: usize) -> usize {
    let mut search = at;
    // The dictionary runs to `ID`; the data after it may hold any bytes.
    while let Some((kind, range)) = token(content, search) {
        search = range.end;
        if kind == Token::Keyword && &content[range] == b"ID" {
            break;
        }
    }
    for found in memchr::memmem::find_iter(&content[search..], b"EI") {
        let start = search + found;
        let before = start.checked_sub(1).map(|i| content[i]);
        let after = content.get(start + 2).copied();
        if before.is_some_and(is_space) && after.is_none_or(|b| is_space(b) || is_delimiter(b)) {
            return start + 2;
        }
    }
    content.len()
}

/// Write what an operator becomes (if anything) and note what it draws and sets.
fn operate(
    content: &[u8],
    operator: &[u8],
    operands: &[Operand],
    saved_states: &mut usize,
    out: &mut Rewritten,
) {
    let last = |n: usize| &operands[operands.len().saturating_sub(n)..];
    match operator {
        b"BT" | b"ET" | b"Tc" | b"Tw" | b"Tz" | b"TL" | b"Tr" | b"Ts" | b"Td" | b"TD" | b"Tm"
        | b"T*" | b"Tj" | b"TJ" | b"cm" => emit(content, operands, operator, out),
        b"Tf" => {
            if let Some(name) = name_operand(content, operands.first()) {
                out.fonts.insert(name);
            }
            emit(content, operands, operator, out);
        }
        b"Do" => {
            if let Some(name) = name_operand(content, operands.last()) {
                *out.drawn.entry(name).or_insert(0) += 1;
            }
            emit(content, last(1), operator, out);
        }
        b"q" => {
            *saved_states += 1;
            if *saved_states <= MAX_SAVED_STATES {
                emit(content, &[], operator, out);
            }
        }
        b"Q" => {
            if *saved_states <= MAX_SAVED_STATES {
                emit(content, &[], operator, out);
            }
            *saved_states = saved_states.saturating_sub(1);
        }
        b"'" => show_on_next_line(content, last(1), out),
        b"\"" => {
            let three = last(3);
            if let [word_spacing, char_spacing, _] = three {
                emit(content, std::slice::from_ref(word_spacing), b"Tw", out);
                emit(content, std::slice::from_ref(char_spacing), b"Tc", out);
            }
            show_on_next_line(content, last(1), out);
        }
        _ => {}
    }
}

/// `'`: the next line (`T*`), then the string shown (`Tj`).
fn show_on_next_line(content: &[u8], string: &[Operand], out: &mut Rewritten) {
    emit(content, &[], b"T*", out);
    emit(content, string, b"Tj", out);
}

fn name_operand(content: &[u8], operand: Option<&Operand>) -> Option<Vec<u8>> {
    let range = operand?.range.clone();
    (content.get(range.start) == Some(&b'/')).then(|| name_at(content, range.start + 1).0)
}

fn emit(content: &[u8], operands: &[Operand], operator: &[u8], out: &mut Rewritten) {
    for operand in operands {
        out.content
            .extend_from_slice(&content[operand.range.clone()]);
        out.content.push(b' ');
        out.tokens += operand.tokens;
    }
    out.content.extend_from_slice(operator);
    out.content.push(b'\n');
    out.tokens += 1;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(bytes: &[u8]) -> &str {
        std::str::from_utf8(bytes).expect("ASCII")
    }

    #[test]
    fn text_operators_stay_and_paths_colours_and_images_go() {
        let content = b"q 1 0 0 1 50 50 cm 0.5 g 0 0 m 10 10 l S\n\
            BT /F1 12 Tf 72 700 Td [(Hel) -20 (lo)] TJ (a \\) paren) Tj ET\n\
            BI /W 2 /H 1 /CS /G /BPC 8 ID \x00EI\xff EI Q /Im1 Do /P <</MCID 3>> BDC EMC % note\n";
        let rewritten = rewrite(content);
        assert_eq!(
            text(&rewritten.content),
            "q\n1 0 0 1 50 50 cm\nBT\n/F1 12 Tf\n72 700 Td\n[(Hel) -20 (lo)] TJ\n(a \\) paren) Tj\nET\nQ\n/Im1 Do\n"
        );
        assert!(rewritten.fonts.contains(b"F1".as_slice()));
        assert_eq!(rewritten.drawn.get(b"Im1".as_slice()), Some(&1));
        // The array's five tokens (with its brackets), and every other kept operand and operator.
        assert_eq!(rewritten.tokens, 1 + 7 + 1 + 3 + 3 + 6 + 2 + 1 + 1 + 2);
    }

    #[test]
    fn the_quote_operators_become_next_line_and_show() {
        let rewritten = rewrite(b"BT 14 TL (Hello) ' 1 2 (World) \" ET");
        assert_eq!(
            text(&rewritten.content),
            "BT\n14 TL\nT*\n(Hello) Tj\n1 Tw\n2 Tc\nT*\n(World) Tj\nET\n"
        );
    }

    #[test]
    fn saved_states_past_the_bound_are_dropped_with_their_restores() {
        let deep = b"q ".repeat(MAX_SAVED_STATES + 10);
        let mut content = deep.clone();
        content.extend_from_slice(&b"Q ".repeat(MAX_SAVED_STATES + 10));
        let rewritten = rewrite(&content);
        let kept = |operator: &str| {
            text(&rewritten.content)
                .lines()
                .filter(|line| *line == operator)
                .count()
        };
        assert_eq!(kept("q"), MAX_SAVED_STATES);
        assert_eq!(kept("Q"), MAX_SAVED_STATES);
    }

    #[test]
    fn names_are_unescaped_and_numbers_read() {
        assert_eq!(name_at(b"/Col#75mns 5", 1), (b"Columns".to_vec(), 10));
        assert_eq!(integer_after(b"/Columns  12 >>", 8), Some(12));
        assert_eq!(integer_after(b"/Columns /Name", 8), None);
        let rewritten = rewrite(b"/F#31 9 Tf /X#30 Do /X0 Do");
        assert!(rewritten.fonts.contains(b"F1".as_slice()));
        assert_eq!(rewritten.drawn.get(b"X0".as_slice()), Some(&2));
    }
}
