//! Byte decoding: UTF-16 when the bytes start with its byte-order mark, else UTF-8 when they are valid UTF-8 (the
//! fast path: the buffer becomes the text, nothing else looks at it), else the encoding `chardetng` detects from
//! the bytes (a KOI8-R Russian file, a Big5 signature; Windows-1252 for a stray symbol such as the latin-1 pound
//! sign in BBC `sport/199.txt`), or the one the load options force for every file. Bytes an encoding does not
//! define and malformed multi-byte text become U+FFFD, so decoding never aborts a load.

use std::borrow::Cow;

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::Encoding;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::CorpusError;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// How the bytes of a text file become characters: detected per file, or forced for every file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TextEncoding {
    /// UTF-8 when the bytes are valid UTF-8, else what `chardetng` guesses from them.
    #[default]
    Detect,
    /// Every file in this encoding, valid UTF-8 or not. A byte-order mark still wins (it cannot be mistaken),
    /// and so does a charset an e-mail part declares (the message parser decodes those parts).
    Forced(&'static Encoding),
}

impl TextEncoding {
    /// The name of [`TextEncoding::Detect`].
    pub const DETECT: &'static str = "auto";

    /// The encoding a WHATWG label names (`koi8-r`, `windows-1251`, `latin1`, `shift_jis`, ...; any case), or
    /// [`TextEncoding::Detect`] for `auto`.
    pub fn from_label(label: &str) -> Result<TextEncoding, CorpusError> {
        let label = label.trim();
        if label.eq_ignore_ascii_case(Self::DETECT) {
            return Ok(TextEncoding::Detect);
        }
        match Encoding::for_label(label.as_bytes()) {
            // The labels of the "replacement" encoding name encodings that are unsafe to decode; the WHATWG
            // decoder turns a whole file in one into a single U+FFFD, which is no reading of it.
            Some(encoding) if encoding != encoding_rs::REPLACEMENT => {
                Ok(TextEncoding::Forced(encoding))
            }
            _ => Err(CorpusError::UnknownEncoding {
                label: label.to_string(),
            }),
        }
    }

    /// `auto`, or the encoding's canonical name (which [`TextEncoding::from_label`] reads back).
    pub fn name(self) -> &'static str {
        match self {
            TextEncoding::Detect => Self::DETECT,
            TextEncoding::Forced(encoding) => encoding.name(),
        }
    }
}

// By name, so that a cache entry or a session file holds `"KOI8-R"`, and reads it back as the same encoding.
impl Serialize for TextEncoding {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for TextEncoding {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = Cow::<'de, str>::deserialize(deserializer)?;
        TextEncoding::from_label(&name).map_err(serde::de::Error::custom)
    }
}

/// A file's text and how it was read.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    pub text: String,
    /// The encoding the text was read in.
    pub encoding: &'static Encoding,
    /// Where the text starts in the bytes when it *is* the bytes from there on (UTF-8, or text that decodes to
    /// the same bytes, after an optional byte-order mark): offsets into the text plus this are offsets into the
    /// file, so that a record can be read again from it. `None` when decoding changed the bytes.
    pub start: Option<u64>,
}

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

/// Decode a file's `bytes`: UTF-16 LE or BE when they start with its byte-order mark (Windows' "Unicode" text
/// files); UTF-8 after a UTF-8 byte-order mark (which is dropped); else in the encoding `choice` forces; else
/// UTF-8 when they are valid UTF-8, keeping the buffer (no copy, no detection); else the encoding `chardetng`
/// detects. Bytes that are UTF-8 but for a character cut off at the very end (a file cut at a byte count) stay
/// UTF-8, the cut character becoming U+FFFD.
pub fn decode_text(mut bytes: Vec<u8>, choice: TextEncoding) -> Decoded {
    if let Some(encoding) = utf16_encoding(&bytes) {
        let (text, _had_errors) = encoding.decode_without_bom_handling(&bytes[2..]);
        return Decoded {
            text: text.into_owned(),
            encoding,
            start: None,
        };
    }
    let bom = bytes.starts_with(UTF8_BOM);
    if bom {
        bytes.drain(..UTF8_BOM.len());
    }
    let start = if bom { UTF8_BOM.len() as u64 } else { 0 };
    let encoding = match choice {
        TextEncoding::Forced(encoding) if !bom => encoding,
        _ => match String::from_utf8(bytes) {
            Ok(text) => {
                return Decoded {
                    text,
                    encoding: encoding_rs::UTF_8,
                    start: Some(start),
                };
            }
            Err(error) => {
                // `error_len` is `None` when the input ended inside a character that was valid so far.
                let cut_short = error.utf8_error().error_len().is_none();
                bytes = error.into_bytes();
                match bom || cut_short {
                    true => encoding_rs::UTF_8,
                    false => detect(&bytes),
                }
            }
        },
    };
    let (text, _had_errors) = encoding.decode_without_bom_handling(&bytes);
    // Borrowed: the bytes were their own text (ASCII in a legacy encoding, valid UTF-8 forced as UTF-8).
    let unchanged = matches!(text, Cow::Borrowed(_));
    Decoded {
        text: text.into_owned(),
        encoding,
        start: unchanged.then_some(start),
    }
}

/// How many bytes from the first one that is not ASCII the detector is shown: its guess settles long before a
/// megabyte of non-ASCII text, and a large file in a legacy encoding then costs no more to detect than a
/// megabyte of it.
const DETECTION_WINDOW: usize = 1 << 20;

/// Fewer bytes outside ASCII than this are read as Windows-1252 without asking the detector. A stray symbol or
/// two in English text (BBC `sport/199.txt`'s pound sign; µ, ¶ and ¹ in 20 Newsgroups posts) tells no language,
/// and `chardetng`, tuned for whole web pages, then guesses a Central European sibling: windows-1250 read the
/// pound sign as Ł, ISO-8859-2 read µ as ľ. Windows-1252, the commonest legacy encoding, reads them right. Four
/// bytes are already two Big5 characters, which it detects (a 20 Newsgroups signature).
const FEW_NON_ASCII: usize = 4;

/// The encoding `chardetng` guesses for `bytes`, which are not UTF-8 (so it is not asked to consider UTF-8);
/// Windows-1252 when they hold too few bytes outside ASCII to tell ([`FEW_NON_ASCII`]). No top-level domain
/// hints the guess: files have none.
fn detect(bytes: &[u8]) -> &'static Encoding {
    let first_non_ascii = Encoding::ascii_valid_up_to(bytes);
    let end = first_non_ascii
        .saturating_add(DETECTION_WINDOW)
        .min(bytes.len());
    let non_ascii = bytes[first_non_ascii..end]
        .iter()
        .filter(|byte| !byte.is_ascii())
        .take(FEW_NON_ASCII)
        .count();
    if non_ascii < FEW_NON_ASCII {
        return encoding_rs::WINDOWS_1252;
    }
    let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
    detector.feed(&bytes[..end], end == bytes.len());
    match detector.guess(None, Utf8Detection::Deny) {
        koi8 if koi8 == encoding_rs::KOI8_U => koi8_variant(bytes),
        guess => guess,
    }
}

/// KOI8-R, unless `bytes` hold a byte that KOI8-U reads otherwise. `chardetng` knows the KOI8 family as KOI8-U,
/// which puts Ukrainian and Belarusian letters where KOI8-R has box-drawing characters; Russian text uses none of
/// those bytes, reads the same in both, and goes by the name KOI8-R, which the load report should say.
fn koi8_variant(bytes: &[u8]) -> &'static Encoding {
    let mut differs = [false; 128];
    for (high, differs) in (0x80..=0xFF_u8).zip(&mut differs) {
        let byte = [high];
        let read = |encoding: &'static Encoding| encoding.decode_without_bom_handling(&byte).0;
        *differs = read(encoding_rs::KOI8_R) != read(encoding_rs::KOI8_U);
    }
    match bytes
        .iter()
        .any(|&byte| !byte.is_ascii() && differs[usize::from(byte - 0x80)])
    {
        true => encoding_rs::KOI8_U,
        false => encoding_rs::KOI8_R,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(bytes: &[u8]) -> Decoded {
        decode_text(bytes.to_vec(), TextEncoding::Detect)
    }

    #[test]
    fn valid_utf8_is_kept() {
        let decoded = decode("café".as_bytes());
        assert_eq!(decoded.text, "café");
        assert_eq!(decoded.encoding, encoding_rs::UTF_8);
        assert_eq!(decoded.start, Some(0));
    }

    #[test]
    fn bom_is_dropped() {
        let decoded = decode(b"\xEF\xBB\xBFhello");
        assert_eq!(decoded.text, "hello");
        assert_eq!(decoded.encoding, encoding_rs::UTF_8);
        assert_eq!(decoded.start, Some(3));
    }

    #[test]
    fn latin1_pound_is_detected_as_windows_1252() {
        // 0xA3 is the pound sign in ISO-8859-1 and Windows-1252, and not valid UTF-8 on its own.
        let decoded = decode(b"The ticket costs \xA340 at the gate, the club said on Tuesday.");
        assert_eq!(
            decoded.text,
            "The ticket costs \u{a3}40 at the gate, the club said on Tuesday."
        );
        assert_eq!(decoded.encoding, encoding_rs::WINDOWS_1252);
        assert_eq!(decoded.start, None);
    }

    #[test]
    fn a_stray_symbol_is_windows_1252_and_two_big5_characters_are_big5() {
        // µ alone, which the detector took for ISO-8859-2's ľ (a 20 Newsgroups post).
        let decoded = decode(b"delays of >16\xB5sec occur when the bus is busy");
        assert_eq!(
            decoded.text,
            "delays of >16\u{b5}sec occur when the bus is busy"
        );
        assert_eq!(decoded.encoding, encoding_rs::WINDOWS_1252);
        // A 20 Newsgroups signature: a name in three Big5 characters, of which two bytes are ASCII letters.
        let signature = b"Chun-Hung Lin ( \xAA\x4C\xAB\x54\xA7\xBB )";
        let decoded = decode(signature);
        assert_eq!(decoded.encoding, encoding_rs::BIG5);
        assert_eq!(decoded.text, encoding_rs::BIG5.decode(signature).0);
        assert_eq!(decoded.text.chars().filter(|c| !c.is_ascii()).count(), 3);
    }

    #[test]
    fn windows_1252_specific_bytes_decode() {
        // 0x93 / 0x94 are curly double quotes in Windows-1252 (C1 controls in ISO-8859-1).
        let decoded = decode(b"He said \x93quoted\x94 and left.");
        assert_eq!(decoded.text, "He said \u{201c}quoted\u{201d} and left.");
        assert_eq!(decoded.encoding, encoding_rs::WINDOWS_1252);
    }

    #[test]
    fn koi8_r_russian_is_detected() {
        let russian = "Правительство утвердило бюджет на следующий год, цены на газ вырастут.";
        let (bytes, _, _) = encoding_rs::KOI8_R.encode(russian);
        let decoded = decode(&bytes);
        assert_eq!(decoded.encoding, encoding_rs::KOI8_R);
        assert_eq!(decoded.text, russian);
    }

    #[test]
    fn ukrainian_in_koi8_is_koi8_u() {
        let ukrainian =
            "Україна експортує зерно до Європи, і ціни на хліб знижуються вже третій місяць.";
        let (bytes, _, unmappable) = encoding_rs::KOI8_U.encode(ukrainian);
        assert!(!unmappable);
        let decoded = decode(&bytes);
        assert_eq!(decoded.encoding, encoding_rs::KOI8_U);
        assert_eq!(decoded.text, ukrainian);
    }

    #[test]
    fn a_forced_encoding_is_used_even_for_utf8() {
        let forced = TextEncoding::from_label("latin1").expect("a label");
        assert_eq!(forced, TextEncoding::Forced(encoding_rs::WINDOWS_1252));
        let decoded = decode_text("café".as_bytes().to_vec(), forced);
        assert_eq!(decoded.text, "cafÃ©");
        assert_eq!(decoded.encoding, encoding_rs::WINDOWS_1252);
        assert_eq!(decoded.start, None);
        // ASCII decodes to its own bytes in an ASCII-compatible encoding: still located.
        let ascii = decode_text(b"plain".to_vec(), forced);
        assert_eq!((ascii.text.as_str(), ascii.start), ("plain", Some(0)));
        // A byte-order mark cannot be mistaken, and wins.
        let marked = decode_text(b"\xEF\xBB\xBFcaf\xC3\xA9".to_vec(), forced);
        assert_eq!(
            (marked.text.as_str(), marked.encoding),
            ("café", encoding_rs::UTF_8)
        );
    }

    #[test]
    fn utf8_cut_inside_its_last_character_stays_utf8() {
        let mut bytes = "naïve café".as_bytes().to_vec();
        bytes.pop();
        let decoded = decode(&bytes);
        assert_eq!(decoded.encoding, encoding_rs::UTF_8);
        assert_eq!(decoded.text, "naïve caf\u{fffd}");
    }

    #[test]
    fn labels_are_read_and_refused() {
        assert_eq!(
            TextEncoding::from_label("AUTO").ok(),
            Some(TextEncoding::Detect)
        );
        assert_eq!(
            TextEncoding::from_label("koi8-r").ok(),
            Some(TextEncoding::Forced(encoding_rs::KOI8_R))
        );
        for bad in ["klingon", "", "iso-2022-kr"] {
            let error = TextEncoding::from_label(bad).expect_err(bad);
            assert!(error.to_string().contains("unknown encoding"), "{error}");
        }
        // The name reads back as the same encoding.
        let forced = TextEncoding::Forced(encoding_rs::SHIFT_JIS);
        assert_eq!(TextEncoding::from_label(forced.name()).ok(), Some(forced));
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
        let little = decode(&little);
        assert_eq!(
            (little.text.as_str(), little.encoding),
            ("café", encoding_rs::UTF_16LE)
        );
        let big = decode(&big);
        assert_eq!(
            (big.text.as_str(), big.encoding),
            ("café", encoding_rs::UTF_16BE)
        );
    }
}
