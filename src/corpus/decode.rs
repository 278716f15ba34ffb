//! Byte decoding: UTF-16 when the bytes start with its byte-order mark, else UTF-8 when they are valid UTF-8, else
//! Windows-1252, so that a stray byte (the latin-1 pound sign in BBC `sport/199.txt`, the bytes in Reuters
//! `reut2-017.sgm`) never aborts a load.

use encoding_rs::Encoding;

/// UTF-16 (little- or big-endian) when `bytes` start with its byte-order mark. Such text is full of NUL bytes, so
/// it must be recognised before anything takes NUL bytes for a binary file.
pub(super) fn utf16_encoding(bytes: &[u8]) -> Option<&'static Encoding> {
    if bytes.starts_with(b"\xFF\xFE") {
        Some(encoding_rs::UTF_16LE)
    } else if bytes.starts_with(b"\xFE\xFF") {
        Some(encoding_rs::UTF_16BE)
    } else {
        None
    }
}

/// Decode `bytes`: UTF-16 LE or BE when they start with its byte-order mark (Windows' "Unicode" text files), else
/// UTF-8 (a leading byte-order mark is dropped), falling back to Windows-1252 for the whole file when it is not
/// valid UTF-8. Returns the text and whether the fallback was used.
///
/// Windows-1252 is a superset of the printable part of ISO-8859-1, and every byte maps to some character, so the
/// fallback cannot fail; malformed UTF-16 (an unpaired surrogate) becomes U+FFFD.
pub fn decode_text(mut bytes: Vec<u8>) -> (String, bool) {
    if let Some(encoding) = utf16_encoding(&bytes) {
        let (text, _had_errors) = encoding.decode_without_bom_handling(&bytes[2..]);
        return (text.into_owned(), false);
    }
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    // Valid UTF-8 keeps its buffer: no copy of the text.
    match String::from_utf8(bytes) {
        Ok(text) => (text, false),
        Err(error) => {
            let bytes = error.into_bytes();
            let (text, _had_errors) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(&bytes);
            (text.into_owned(), true)
        }
    }
}

/// [`decode_text`], with where the text starts in `bytes` when they are its own UTF-8 (after an optional
/// byte-order mark): offsets into the text plus that start are offsets into the file, so that a record can be read
/// again from it. `None` when decoding changed the bytes (UTF-16, or not UTF-8 and read as Windows-1252).
pub(super) fn decode_with_start(bytes: Vec<u8>) -> (String, bool, Option<u64>) {
    let start = match utf16_encoding(&bytes) {
        Some(_) => None,
        None if bytes.starts_with(b"\xEF\xBB\xBF") => Some(3),
        None => Some(0),
    };
    let (text, fell_back) = decode_text(bytes);
    (text, fell_back, start.filter(|_| !fell_back))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_utf8_is_kept() {
        let (text, fell_back) = decode_text("café".as_bytes().to_vec());
        assert_eq!(text, "café");
        assert!(!fell_back);
    }

    #[test]
    fn bom_is_dropped() {
        let (text, fell_back) = decode_text(b"\xEF\xBB\xBFhello".to_vec());
        assert_eq!(text, "hello");
        assert!(!fell_back);
    }

    #[test]
    fn latin1_pound_falls_back_to_windows_1252() {
        // 0xA3 is the pound sign in ISO-8859-1 and Windows-1252, and not valid UTF-8 on its own.
        let (text, fell_back) = decode_text(b"costs \xA340".to_vec());
        assert_eq!(text, "costs \u{a3}40");
        assert!(fell_back);
    }

    #[test]
    fn windows_1252_specific_bytes_decode() {
        // 0x93 / 0x94 are curly double quotes in Windows-1252 (C1 controls in ISO-8859-1).
        let (text, fell_back) = decode_text(b"\x93quoted\x94".to_vec());
        assert_eq!(text, "\u{201c}quoted\u{201d}");
        assert!(fell_back);
    }

    #[test]
    fn utf16_with_a_byte_order_mark_is_decoded() {
        let little: Vec<u8> = b"\xFF\xFE"
            .iter()
            .copied()
            .chain("café".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let big: Vec<u8> = b"\xFE\xFF"
            .iter()
            .copied()
            .chain("café".encode_utf16().flat_map(u16::to_be_bytes))
            .collect();
        assert_eq!(decode_text(little), ("café".to_string(), false));
        assert_eq!(decode_text(big), ("café".to_string(), false));
    }
}
