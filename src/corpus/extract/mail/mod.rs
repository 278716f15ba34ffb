//! E-mail: one message (an `.eml` file, a Maildir message, a message of an mbox) becomes its subject and its
//! text body; the other headers and the attachments are left out. A body given only as HTML is read as an HTML
//! page is. The text is the subject, a line break, then the body, as `--strip-headers` makes of a plain-text
//! post, so that a message reads the same from an mbox as from a folder of posts.
//!
//! An mbox is split at its `From ` lines (one at the start of the file or after an empty line); lines that
//! the writer quoted as `>From ` (mboxrd) lose one `>`.
//!
//! A message whose messages could nest deeper than the parser's recursion can take is refused before it is
//! parsed ([`nesting`]).

mod nesting;

use std::borrow::Cow;
use std::ops::Range;

use mail_parser::{Encoding, Message, MessageParser, MessagePart, MimeHeaders, PartType};

use super::{ExtractError, Extracted, html};
use crate::corpus::{TextEncoding, decode_text, headline};

/// A message's subject and text body; `from_mbox` when its bytes were cut from an mbox (its quoted `>From `
/// lines are unquoted). `encoding` decodes the text parts that name no charset.
pub(super) fn read_message(
    bytes: &[u8],
    from_mbox: bool,
    encoding: TextEncoding,
) -> Result<Extracted, ExtractError> {
    let bytes = match from_mbox {
        true => unquote_from_lines(bytes),
        false => Cow::Borrowed(bytes),
    };
    nesting::check(&bytes)?;
    let message = MessageParser::new()
        .parse(bytes.as_ref())
        .ok_or_else(|| ExtractError::Damaged("not an e-mail message".to_string()))?;
    let subject = message
        .subject()
        .map(str::trim)
        .filter(|subject| !subject.is_empty());
    let mut body = String::new();
    for part in message.text_bodies() {
        let text = match &part.body {
            PartType::Text(text) => part_text(&message, part, text, encoding),
            PartType::Html(page) => Cow::Owned(html::visible_text(page).1),
            _ => continue,
        };
        if !body.is_empty() && !text.is_empty() {
            body.push_str("\n\n");
        }
        body.push_str(&text);
    }
    let title = subject.map(str::to_string).or_else(|| headline(&body));
    let text = match subject {
        Some(subject) => format!("{subject}\n{body}"),
        None => body,
    };
    // Not counted by encoding: the parts name their own charsets, and a message may hold several.
    Ok(Extracted {
        title,
        text,
        encoding: None,
    })
}

/// A text part's characters. A part that names no charset and is not transfer-encoded holds the bytes as they
/// were written, and is decoded as pdx decodes a plain-text file (UTF-8, else detected; or as `encoding`
/// forces), not with the replacement character the parser puts for bytes that are not UTF-8.
fn part_text<'a>(
    message: &'a Message<'_>,
    part: &MessagePart<'_>,
    parsed: &'a str,
    encoding: TextEncoding,
) -> Cow<'a, str> {
    let names_charset = part
        .content_type()
        .is_some_and(|content_type| content_type.attribute("charset").is_some());
    let raw = raw_body(message, part);
    let parsed_as_written = encoding == TextEncoding::Detect && std::str::from_utf8(raw).is_ok();
    if names_charset || part.encoding != Encoding::None || parsed_as_written {
        return Cow::Borrowed(parsed);
    }
    Cow::Owned(decode_text(raw.to_vec(), encoding).text)
}

/// The bytes of a part's body as they stand in the message.
fn raw_body<'a>(message: &'a Message<'_>, part: &MessagePart<'_>) -> &'a [u8] {
    let start = part.offset_body as usize;
    let end = (part.offset_end as usize).min(message.raw_message.len());
    message.raw_message.get(start..end).unwrap_or_default()
}

/// Whether `head` starts like an mbox: a `From ` line naming a sender, then a header field.
pub(super) fn starts_mbox(head: &[u8]) -> bool {
    let Some(rest) = head.strip_prefix(b"From ") else {
        return false;
    };
    let Some(end) = memchr::memchr(b'\n', rest) else {
        return false;
    };
    let sender_and_date = &rest[..end];
    let next = &rest[end + 1..];
    let field_name = next.split(|b| *b == b':').next().unwrap_or_default();
    sender_and_date
        .split(|b| *b == b' ')
        .filter(|w| !w.is_empty())
        .count()
        >= 2
        && next.contains(&b':')
        && !field_name.is_empty()
        && field_name.iter().all(|b| b.is_ascii_graphic())
}

/// The messages of an mbox: the bytes of each, after its `From ` line and without the empty line that ends it
/// (before the next `From ` line, or at the end of the file). A file that does not start with a `From ` line has none.
pub(crate) fn mbox_messages(bytes: &[u8]) -> Vec<Range<usize>> {
    let mut starts = Vec::new();
    let mut line_start = 0;
    let mut previous_empty = true;
    while line_start < bytes.len() {
        let line_end = memchr::memchr(b'\n', &bytes[line_start..])
            .map_or(bytes.len(), |at| line_start + at + 1);
        let line = &bytes[line_start..line_end];
        if previous_empty && line.starts_with(b"From ") {
            starts.push((line_start, line_end));
        }
        previous_empty = matches!(line, b"\n" | b"\r\n");
        line_start = line_end;
    }
    let mut messages = Vec::with_capacity(starts.len());
    for (index, &(_, body_start)) in starts.iter().enumerate() {
        let mut end = starts.get(index + 1).map_or(bytes.len(), |&(next, _)| next);
        // The empty line a writer puts after each message (before the next `From `) belongs to the mbox.
        let message = &bytes[body_start..end];
        if message.ends_with(b"\r\n\r\n") {
            end -= 2;
        } else if message.ends_with(b"\n\n") {
            end -= 1;
        }
        messages.push(body_start..end.max(body_start));
    }
    if bytes.starts_with(b"From ") {
        messages
    } else {
        Vec::new()
    }
}

/// mboxrd's quoting undone: a line `>From `, `>>From `, ... loses one `>`.
fn unquote_from_lines(bytes: &[u8]) -> Cow<'_, [u8]> {
    let quoted = |line: &[u8]| {
        let rest = &line[line.iter().take_while(|b| **b == b'>').count()..];
        line.first() == Some(&b'>') && rest.starts_with(b"From ")
    };
    if !bytes.split(|b| *b == b'\n').any(quoted) {
        return Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len());
    for (index, line) in bytes.split(|b| *b == b'\n').enumerate() {
        if index > 0 {
            out.push(b'\n');
        }
        out.extend_from_slice(if quoted(line) { &line[1..] } else { line });
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subject_and_text_body_without_the_other_headers() {
        let message = b"From: a@b.c\r\nTo: d@e.f\r\nSubject: =?utf-8?q?Launch_=E2=80=94_delayed?=\r\n\r\nThe launch slipped.\r\n";
        let read = read_message(message, false, TextEncoding::Detect).expect("reads");
        assert_eq!(read.title.as_deref(), Some("Launch \u{2014} delayed"));
        assert_eq!(
            read.text,
            "Launch \u{2014} delayed\nThe launch slipped.\r\n"
        );
    }

    #[test]
    fn an_html_body_is_read_as_a_page_and_attachments_are_dropped() {
        let message = concat!(
            "Subject: orbit\n",
            "MIME-Version: 1.0\n",
            "Content-Type: multipart/mixed; boundary=\"B7\"\n\n",
            "--B7\n",
            "Content-Type: text/html; charset=utf-8\n\n",
            "<html><body><p>Stable <b>orbit</b></p><script>x()</script></body></html>\n",
            "--B7\n",
            "Content-Type: application/octet-stream\n",
            "Content-Disposition: attachment; filename=\"data.bin\"\n",
            "Content-Transfer-Encoding: base64\n\n",
            "c2VjcmV0IHBheWxvYWQ=\n",
            "--B7--\n"
        );
        let read = read_message(message.as_bytes(), false, TextEncoding::Detect).expect("reads");
        assert_eq!(read.text, "orbit\nStable orbit");
    }

    #[test]
    fn a_body_without_a_charset_is_decoded_as_plain_text_is() {
        let read = read_message(
            b"Subject: price\n\ncosts \xA340\n",
            false,
            TextEncoding::Detect,
        )
        .expect("reads");
        assert_eq!(read.text, "price\ncosts \u{a3}40\n");
    }

    #[test]
    fn messages_nested_to_the_limit_are_read_on_a_small_stack_and_deeper_ones_refused() {
        use nesting::MAX_NESTED_MESSAGES;
        use nesting::tests::{chain, encoded};
        // A quarter of the stack of the threads documents are read on (2 MiB): a chain at the limit, plain or
        // transfer-encoded (whose owned copy the parser makes by recursion), fits in it with room to spare.
        let small_stack = 512 << 10;
        for message in [
            chain(MAX_NESTED_MESSAGES),
            encoded(&chain(MAX_NESTED_MESSAGES - 1)),
        ] {
            let read = std::thread::Builder::new()
                .stack_size(small_stack)
                .spawn(move || read_message(message.as_bytes(), false, TextEncoding::Detect))
                .expect("a thread")
                .join()
                .expect("no panic");
            assert!(read.is_ok(), "{read:?}");
        }
        // 40,000 levels (2 MB) overflowed every thread's stack and aborted pdx.
        for message in [chain(40_000), encoded(&chain(40_000))] {
            let error =
                read_message(message.as_bytes(), false, TextEncoding::Detect).expect_err("refused");
            assert!(matches!(error, ExtractError::Damaged(_)), "{error:?}");
            assert!(error.to_string().contains("nested"), "{error}");
        }
    }

    #[test]
    fn an_mbox_splits_at_from_lines_and_unquotes_them() {
        let mbox = b"From a@b Mon Jan  1 00:00:00 2024\nSubject: one\n\n>From here on.\n>>From the top.\n\nFrom c@d Mon Jan  1 00:00:01 2024\nSubject: two\n\nSecond.\n";
        assert!(starts_mbox(mbox));
        let ranges = mbox_messages(mbox);
        assert_eq!(ranges.len(), 2, "{ranges:?}");
        let first =
            read_message(&mbox[ranges[0].clone()], true, TextEncoding::Detect).expect("reads");
        // A writer quotes a body line that starts with "From "; reading takes one quote off.
        assert_eq!(first.text, "one\nFrom here on.\n>From the top.\n");
        let second =
            read_message(&mbox[ranges[1].clone()], true, TextEncoding::Detect).expect("reads");
        assert_eq!(second.text, "two\nSecond.\n");
        assert!(mbox_messages(b"no mbox here\n").is_empty());
    }
}
