//! How deep a message's messages can nest, bounded without parsing it. mail-parser keeps a message inside a
//! message (a part of type `message/rfc822` or `message/global`, or a part of a `multipart/digest` that names no
//! type) as a value inside its parent's, and both the owned copy it makes of one that was transfer-encoded and
//! the dropping of the whole walk that chain by recursion, a frame (up to a kilobyte) per level: a 2 MB message
//! of 40,000 levels overflows any thread's stack, and a stack overflow aborts the process, which no guard can
//! catch. So a message that could nest deeper than [`MAX_NESTED_MESSAGES`] is refused before the parser sees
//! it.
//!
//! Each level needs a part whose `Content-Type` names the subtype `rfc822`, `global` or `digest`, so the count of
//! those words on `Content-Type` lines bounds the depth from above (siblings count too: a digest of 300
//! explicitly typed messages counts 300). A transfer-encoded message hides its own parts' types in its
//! encoding, so such a part (or, in a message with a digest, any encoded part that names no type) is decoded,
//! from its body to the end of the message (more than the parser decodes, never less), and counted the same
//! way, as deep as the parser goes into encoded messages.

use super::super::ExtractError;

/// The most messages a message may hold within one another (counted as above). A chain this deep takes a
/// quarter of a megabyte of stack to parse and drop, an eighth of the smallest stack a document is read on
/// (a worker thread's 2 MiB); a digest of more explicitly typed messages than this is refused too.
pub(in crate::corpus::extract) const MAX_NESTED_MESSAGES: usize = 256;

/// How deep mail-parser parses transfer-encoded messages within one another (its `MAX_NESTED_ENCODED`).
const ENCODED_LEVELS: usize = 3;

/// The most transfer-encoded messages a message may hold in all: each is decoded to the end of the message to
/// be counted, and the standard (RFC 2046) allows no transfer encoding on a message at all.
const MAX_ENCODED_MESSAGES: usize = 16;

/// `Err` when the messages in `bytes` could nest deeper than [`MAX_NESTED_MESSAGES`].
pub(super) fn check(bytes: &[u8]) -> Result<(), ExtractError> {
    let mut encoded_left = MAX_ENCODED_MESSAGES;
    nested_messages(bytes, ENCODED_LEVELS, &mut encoded_left).map(|_| ())
}

fn too_deep() -> ExtractError {
    ExtractError::Damaged(format!(
        "messages nested within messages more than {MAX_NESTED_MESSAGES} deep"
    ))
}

/// How a part's body is transfer-encoded.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Transfer {
    Base64,
    QuotedPrintable,
}

/// What one block of header-like lines (lines between two empty lines) says of the part it would head.
#[derive(Default)]
struct Block {
    names_type: bool,
    names_message: bool,
    transfer: Option<Transfer>,
}

/// Which header field a line (or its continuation lines) belongs to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    ContentType,
    TransferEncoding,
    Other,
}

/// An upper bound on the depth of the messages within `bytes`, encoded ones decoded `levels` deep; `Err` once
/// it passes the limit or the encoded messages are too many.
fn nested_messages(
    bytes: &[u8],
    levels: usize,
    encoded_left: &mut usize,
) -> Result<usize, ExtractError> {
    let mut count = 0usize;
    let mut has_digest = false;
    // The encoded blocks, with where their bodies start.
    let mut encoded: Vec<(usize, Block)> = Vec::new();
    let mut block = Block::default();
    let mut field = Field::Other;
    let mut start = 0;
    while start < bytes.len() {
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |at| start + at + 1);
        let line = bytes[start..end].trim_ascii_end();
        start = end;
        if line.is_empty() {
            let finished = std::mem::take(&mut block);
            if finished.transfer.is_some() {
                encoded.push((end, finished));
            }
            field = Field::Other;
            continue;
        }
        if !matches!(line[0], b' ' | b'\t') {
            field = if starts_with_ignoring_case(line, b"content-type") {
                Field::ContentType
            } else if starts_with_ignoring_case(line, b"content-transfer-encoding") {
                Field::TransferEncoding
            } else {
                Field::Other
            };
        }
        match field {
            Field::ContentType => {
                block.names_type = true;
                let words = [&b"rfc822"[..], b"global", b"digest"]
                    .iter()
                    .map(|word| occurrences_ignoring_case(line, word))
                    .sum::<usize>();
                block.names_message |= words > 0;
                has_digest |= occurrences_ignoring_case(line, b"digest") > 0;
                count += words;
                if count > MAX_NESTED_MESSAGES {
                    return Err(too_deep());
                }
            }
            Field::TransferEncoding => {
                if occurrences_ignoring_case(line, b"base64") > 0 {
                    block.transfer = Some(Transfer::Base64);
                } else if occurrences_ignoring_case(line, b"quoted-printable") > 0 {
                    block.transfer = Some(Transfer::QuotedPrintable);
                }
            }
            Field::Other => {}
        }
    }
    if levels == 0 {
        return Ok(count);
    }
    for (body, block) in encoded {
        let is_message = block.names_message || (has_digest && !block.names_type);
        let Some(transfer) = block.transfer.filter(|_| is_message) else {
            continue;
        };
        if *encoded_left == 0 {
            return Err(ExtractError::Damaged(format!(
                "more than {MAX_ENCODED_MESSAGES} transfer-encoded messages"
            )));
        }
        *encoded_left -= 1;
        let decoded = match transfer {
            Transfer::Base64 => decode_base64(&bytes[body..]),
            Transfer::QuotedPrintable => decode_quoted_printable(&bytes[body..]),
        };
        count += nested_messages(&decoded, levels - 1, encoded_left)?;
        if count > MAX_NESTED_MESSAGES {
            return Err(too_deep());
        }
    }
    Ok(count)
}

fn starts_with_ignoring_case(line: &[u8], prefix: &[u8]) -> bool {
    line.len() >= prefix.len() && line[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// How often `word` (lower case) occurs in `line`, in any case.
fn occurrences_ignoring_case(line: &[u8], word: &[u8]) -> usize {
    line.windows(word.len())
        .filter(|window| window.eq_ignore_ascii_case(word))
        .count()
}

/// Base64 decoded leniently: what is not of the alphabet is skipped, and `=` ends a group.
fn decode_base64(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let (mut group, mut bits) = (0u32, 0u32);
    for &byte in text {
        let value = match byte {
            b'A'..=b'Z' => byte - b'A',
            b'a'..=b'z' => byte - b'a' + 26,
            b'0'..=b'9' => byte - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => {
                (group, bits) = (0, 0);
                continue;
            }
            _ => continue,
        };
        group = (group << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((group >> bits) as u8);
            group &= (1 << bits) - 1;
        }
    }
    out
}

/// Quoted-printable decoded leniently: `=XX` is the byte, `=` at a line's end joins it to the next, anything
/// else is itself.
fn decode_quoted_printable(text: &[u8]) -> Vec<u8> {
    let hex = |byte: u8| (byte as char).to_digit(16).map(|digit| digit as u8);
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'=' {
            let pair = (text.get(i + 1).copied(), text.get(i + 2).copied());
            match pair {
                (Some(high), Some(low)) if hex(high).is_some() && hex(low).is_some() => {
                    out.push(hex(high).unwrap_or(0) << 4 | hex(low).unwrap_or(0));
                    i += 3;
                    continue;
                }
                (Some(b'\r'), Some(b'\n')) => {
                    i += 3;
                    continue;
                }
                (Some(b'\n'), _) => {
                    i += 2;
                    continue;
                }
                _ => {}
            }
        }
        out.push(text[i]);
        i += 1;
    }
    out
}

#[cfg(test)]
pub(in crate::corpus::extract) mod tests {
    use super::*;

    /// A message holding `depth` messages, each inside the one before.
    pub(in crate::corpus::extract) fn chain(depth: usize) -> String {
        let mut message = String::from("Subject: top\nContent-Type: message/rfc822\n\n");
        for level in 1..depth {
            message.push_str(&format!(
                "Subject: level {level}\nContent-Type: message/rfc822\n\n"
            ));
        }
        message.push_str("Subject: bottom\n\nThe innermost text.\n");
        message
    }

    /// `message` as the base64-encoded body of a `message/rfc822` part of a message.
    pub(in crate::corpus::extract) fn encoded(message: &str) -> String {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut body = String::new();
        for (index, group) in message.as_bytes().chunks(3).enumerate() {
            let bytes = [
                group[0],
                *group.get(1).unwrap_or(&0),
                *group.get(2).unwrap_or(&0),
            ];
            let value = u32::from(bytes[0]) << 16 | u32::from(bytes[1]) << 8 | u32::from(bytes[2]);
            for k in 0..4 {
                body.push(match k <= group.len() {
                    true => ALPHABET[(value >> (18 - 6 * k) & 63) as usize] as char,
                    false => '=',
                });
            }
            if index % 19 == 18 {
                body.push('\n');
            }
        }
        format!(
            "Subject: outer\nContent-Type: message/rfc822\nContent-Transfer-Encoding: base64\n\n{body}\n"
        )
    }

    #[test]
    fn the_count_follows_the_nesting_and_stops_past_the_limit() {
        let count = |text: &str| nested_messages(text.as_bytes(), ENCODED_LEVELS, &mut 16);
        assert_eq!(count(&chain(3)).expect("counts"), 3);
        assert!(count(&chain(MAX_NESTED_MESSAGES)).is_ok());
        assert!(count(&chain(MAX_NESTED_MESSAGES + 1)).is_err());
        // Hidden in a transfer encoding, the levels still count, the encoded part among them.
        assert_eq!(count(&encoded(&chain(3))).expect("counts"), 4);
        assert!(count(&encoded(&chain(MAX_NESTED_MESSAGES))).is_err());
    }

    #[test]
    fn ordinary_words_and_attachments_do_not_count() {
        let message = "Subject: global digest of rfc822\nContent-Type: multipart/mixed; boundary=b\n\n\
            --b\nContent-Type: text/plain\n\nA global digest.\n--b\nContent-Type: application/pdf\n\
            Content-Transfer-Encoding: base64\n\nJVBERi0xLjQ=\n--b--\n";
        assert_eq!(
            nested_messages(message.as_bytes(), ENCODED_LEVELS, &mut 16).expect("counts"),
            0
        );
    }

    #[test]
    fn the_lenient_decoders_read_what_the_encoders_wrote() {
        assert_eq!(decode_base64(b"aGVs\nbG8=\n"), b"hello");
        assert_eq!(
            decode_quoted_printable(b"caf=C3=A9 =\nau lait"),
            "café au lait".as_bytes()
        );
    }
}
