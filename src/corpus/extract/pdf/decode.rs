//! A PDF's compressed streams, decoded within bounds. lopdf inflates a stream whole, however large it comes
//! out: a content stream of 74 KB that inflates to 48 MiB took pdx to 5 GB, and one of a few megabytes aborts
//! it. Here every stream is decoded as lopdf decodes it (the same filters, the same fallback to raw deflate,
//! the same PNG predictors), but never past a limit; and before lopdf loads a file at all, every stream in its
//! bytes is measured whatever its dictionary says ([`check_raw`]), because lopdf inflates the cross-reference
//! streams and object streams as it loads, with no way in between.

use std::borrow::Cow;
use std::io::Read;

use lopdf::{Object, Stream};

use super::super::ExtractError;

/// The most one stream of a PDF may inflate to: a file whose stream holds more is skipped as too large.
pub(super) const STREAM_LIMIT: u64 = 256 << 20;

/// The most all the streams of a file may inflate to together, as [`check_raw`] measures them (images
/// included): the measuring costs time in proportion, a few seconds at this bound.
pub(super) const FILE_STREAMS_LIMIT: u64 = 2 << 30;

/// How many filters deep [`check_raw`] follows a stream's data: a stream deflated twice over is measured as
/// lopdf would inflate it twice. No writer stacks more than two.
const RAW_LAYERS: usize = 2;

/// The least decoded data that a further filter could inflate past [`STREAM_LIMIT`]: no filter lopdf knows
/// makes more than 4,096 bytes of one byte (an LZW code, 9 bits at least, stands for at most 4,096 bytes;
/// deflate makes at most 1,032 of a byte, ASCII base-85 four). Less is not decoded again.
const SMALLEST_BOMB: usize = (STREAM_LIMIT / 4096) as usize;

/// A decoding that would pass its limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct TooLarge;

/// The filters lopdf decodes (it leaves a stream with any other as it is).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Filter {
    Flate,
    /// LZW, with the early change of code width (the default) or without.
    Lzw {
        early_change: bool,
    },
    Ascii85,
}

impl Filter {
    fn named(name: &[u8]) -> Option<Filter> {
        match name {
            b"FlateDecode" => Some(Filter::Flate),
            b"LZWDecode" => Some(Filter::Lzw { early_change: true }),
            b"ASCII85Decode" => Some(Filter::Ascii85),
            _ => None,
        }
    }
}

/// `stream`'s data as lopdf's `decompressed_content` gives it, and as its callers take it (a stream it cannot
/// decode is its raw bytes), within `limit` bytes.
pub(super) fn decoded(stream: &Stream, limit: u64) -> Result<Vec<u8>, TooLarge> {
    let raw = || {
        if stream.content.len() as u64 > limit {
            return Err(TooLarge);
        }
        Ok(stream.content.clone())
    };
    let Ok(names) = stream.filters() else {
        return raw();
    };
    let params = stream
        .dict
        .get(b"DecodeParms")
        .and_then(Object::as_dict)
        .ok();
    let predictor = params.and_then(Predictor::from_params);
    let mut data = Cow::Borrowed(stream.content.as_slice());
    for name in names {
        let Some(mut filter) = Filter::named(name) else {
            return raw();
        };
        if let Filter::Lzw { early_change } = &mut filter {
            *early_change = params
                .and_then(|p| p.get(b"EarlyChange").and_then(Object::as_i64).ok())
                .is_none_or(|value| value != 0);
        }
        let Some(mut out) = decode(filter, &data, limit)? else {
            return raw();
        };
        if filter != Filter::Ascii85
            && let Some(predictor) = predictor
        {
            match predictor.undo(&out) {
                Some(undone) => out = undone,
                None => return raw(),
            }
        }
        data = Cow::Owned(out);
    }
    Ok(data.into_owned())
}

/// `input` decoded by `filter`, at most `limit` bytes: `Ok(None)` when lopdf would fail on it (so take the
/// raw bytes), `Err` past the limit.
fn decode(filter: Filter, input: &[u8], limit: u64) -> Result<Option<Vec<u8>>, TooLarge> {
    match filter {
        Filter::Flate => inflate(input, limit).map(Some),
        Filter::Lzw { early_change } => unlzw(input, early_change, limit).map(Some),
        Filter::Ascii85 => ascii85(input, limit),
    }
}

/// Zlib data inflated as lopdf does: what comes out before an error is kept, and data that gives nothing is
/// tried again as raw deflate from its third byte (a zlib header with a wrong checksum, in some encrypted files).
fn inflate(input: &[u8], limit: u64) -> Result<Vec<u8>, TooLarge> {
    let mut out = Vec::new();
    if input.is_empty() {
        return Ok(out);
    }
    let zlib = flate2::read::ZlibDecoder::new(input)
        .take(limit.saturating_add(1))
        .read_to_end(&mut out);
    if zlib.is_err() && out.is_empty() && input.len() > 2 {
        // The error is lopdf's too: what was read before it stands.
        let _ = flate2::read::DeflateDecoder::new(&input[2..])
            .take(limit.saturating_add(1))
            .read_to_end(&mut out);
    }
    within(out, limit)
}

fn within(out: Vec<u8>, limit: u64) -> Result<Vec<u8>, TooLarge> {
    match out.len() as u64 > limit {
        true => Err(TooLarge),
        false => Ok(out),
    }
}

/// LZW data decoded as lopdf does (most significant bit first, 8-bit symbols; what comes out before an error
/// is kept), through a small buffer of its own (weezl's stream adapter clears a large one on every call, which
/// for the few hundred attempts on a file's streams cost more than the decoding).
fn unlzw(input: &[u8], early_change: bool, limit: u64) -> Result<Vec<u8>, TooLarge> {
    use weezl::{BitOrder, LzwStatus, decode::Decoder};
    let mut decoder = match early_change {
        true => Decoder::with_tiff_size_switch(BitOrder::Msb, 8),
        false => Decoder::new(BitOrder::Msb, 8),
    };
    let mut out = Vec::new();
    let mut chunk = [0u8; 4096];
    let mut rest = input;
    loop {
        let result = decoder.decode_bytes(rest, &mut chunk);
        rest = &rest[result.consumed_in..];
        if (out.len() + result.consumed_out) as u64 > limit {
            return Err(TooLarge);
        }
        out.extend_from_slice(&chunk[..result.consumed_out]);
        let stuck = result.consumed_in == 0 && result.consumed_out == 0;
        if stuck || !matches!(result.status, Ok(LzwStatus::Ok)) {
            return Ok(out);
        }
    }
}

/// ASCII base-85 decoded as lopdf does: white space skipped, `z` four zero bytes, the first byte outside the
/// alphabet ends the data; `Ok(None)` where lopdf reports an error.
fn ascii85(input: &[u8], limit: u64) -> Result<Option<Vec<u8>>, TooLarge> {
    let input = input.strip_suffix(b"~>").unwrap_or(input);
    let mut out = Vec::new();
    let (mut group, mut count) = (0u32, 0usize);
    for &byte in input {
        if byte == b'z' {
            if count != 0 {
                return Ok(None);
            }
            out.extend_from_slice(&[0; 4]);
        } else if byte.is_ascii_whitespace() {
            continue;
        } else if !(b'!'..=b'u').contains(&byte) {
            break;
        } else {
            let Some(next) = group.checked_mul(85) else {
                return Ok(None);
            };
            group = next + u32::from(byte - b'!');
            count += 1;
            if count == 5 {
                out.extend_from_slice(&group.to_be_bytes());
                (group, count) = (0, 0);
            }
        }
        if out.len() as u64 > limit {
            return Err(TooLarge);
        }
    }
    if count > 0 {
        for _ in count..5 {
            let Some(next) = group.checked_mul(85) else {
                return Ok(None);
            };
            group = next + 84;
        }
        out.extend_from_slice(&group.to_be_bytes()[..count - 1]);
    }
    within(out, limit).map(Some)
}

/// A PNG predictor (`/Predictor` 10 to 15) and the shape of its rows.
#[derive(Debug, Clone, Copy)]
struct Predictor {
    bytes_per_pixel: usize,
    pixels_per_row: usize,
}

impl Predictor {
    fn from_params(params: &lopdf::Dictionary) -> Option<Predictor> {
        let number =
            |key: &[u8], default: i64| params.get(key).and_then(Object::as_i64).unwrap_or(default);
        if !(10..=15).contains(&number(b"Predictor", 1)) {
            return None;
        }
        let colors = usize::try_from(number(b"Colors", 1).max(1)).ok()?;
        let bits = usize::try_from(number(b"BitsPerComponent", 8).max(8)).ok()?;
        Some(Predictor {
            bytes_per_pixel: colors.checked_mul(bits)? / 8,
            pixels_per_row: usize::try_from(number(b"Columns", 1).max(1)).ok()?,
        })
    }

    /// The rows un-predicted, or `None` where lopdf fails (and its callers take the raw bytes). A row wider than
    /// the data is refused before lopdf would reserve room for it (two rows' worth, from numbers in the file).
    fn undo(self, data: &[u8]) -> Option<Vec<u8>> {
        let row = self.bytes_per_pixel.checked_mul(self.pixels_per_row)?;
        if row > data.len() {
            return None;
        }
        lopdf::filters::png::decode_frame(data, self.bytes_per_pixel, self.pixels_per_row).ok()
    }
}

/// Measure every stream in a PDF's bytes before lopdf loads them: the data after each `stream` keyword, decoded
/// by each filter lopdf knows and each pair of them, must come to at most [`STREAM_LIMIT`] bytes, and all of it
/// to at most [`FILE_STREAMS_LIMIT`]. The dictionaries are not read, so that no way of writing one (an indirect
/// length, an escaped name) hides a stream: a decoder reads what it can and stops where its data ends.
pub(super) fn check_raw(bytes: &[u8]) -> Result<(), ExtractError> {
    let mut total = 0u64;
    for at in memchr::memmem::find_iter(bytes, b"stream") {
        if bytes[..at].ends_with(b"end") {
            continue;
        }
        let Some(start) = data_start(bytes, at + b"stream".len()) else {
            continue;
        };
        measure(&bytes[start..], RAW_LAYERS, &mut total)?;
    }
    check_predictor_rows(bytes)
}

/// Where a stream's data starts after its keyword, as lopdf finds it: spaces, then an end of line.
fn data_start(bytes: &[u8], mut at: usize) -> Option<usize> {
    while matches!(bytes.get(at), Some(b' ' | b'\t')) {
        at += 1;
    }
    match (bytes.get(at), bytes.get(at + 1)) {
        (Some(b'\r'), Some(b'\n')) => Some(at + 2),
        (Some(b'\n' | b'\r'), _) => Some(at + 1),
        _ => None,
    }
}

/// Decode `data` by every filter, and what comes out by every filter again, `layers` deep, adding what each
/// gives to `total`.
fn measure(data: &[u8], layers: usize, total: &mut u64) -> Result<(), ExtractError> {
    const FILTERS: [Filter; 4] = [
        Filter::Flate,
        Filter::Lzw { early_change: true },
        Filter::Lzw {
            early_change: false,
        },
        Filter::Ascii85,
    ];
    for filter in FILTERS {
        let out = match decode(filter, data, STREAM_LIMIT) {
            Ok(Some(out)) => out,
            Ok(None) => continue,
            Err(TooLarge) => return Err(too_large_stream()),
        };
        *total += out.len() as u64;
        if *total > FILE_STREAMS_LIMIT {
            return Err(ExtractError::TooLarge(format!(
                "its streams inflate to more than {} GiB",
                FILE_STREAMS_LIMIT >> 30
            )));
        }
        if layers > 1 && out.len() >= SMALLEST_BOMB {
            measure(&out, layers - 1, total)?;
        }
    }
    Ok(())
}

pub(super) fn too_large_stream() -> ExtractError {
    ExtractError::TooLarge(format!(
        "a stream inflates to more than {} MiB",
        STREAM_LIMIT >> 20
    ))
}

/// The most a stream's PNG predictor rows may declare: lopdf reserves two rows before it reads one.
const PREDICTOR_ROW_LIMIT: u64 = 64 << 20;

/// Refuse a file in which `/Columns`, `/Colors` or `/BitsPerComponent` names a number so large that a predictor
/// row of it passes [`PREDICTOR_ROW_LIMIT`]. Every name is read wherever it stands (escapes decoded), not only
/// in dictionaries this reader can parse.
fn check_predictor_rows(bytes: &[u8]) -> Result<(), ExtractError> {
    let (mut columns, mut colors, mut bits) = (1u64, 1u64, 8u64);
    for at in memchr::memchr_iter(b'/', bytes) {
        let (name, end) = super::content::name_at(bytes, at + 1);
        let slot = match name.as_slice() {
            b"Columns" => &mut columns,
            b"Colors" => &mut colors,
            b"BitsPerComponent" => &mut bits,
            _ => continue,
        };
        let Some(value) = super::content::integer_after(bytes, end) else {
            continue;
        };
        *slot = (*slot).max(value);
        let row = columns
            .saturating_mul(colors)
            .saturating_mul(bits.max(8) / 8);
        if row > PREDICTOR_ROW_LIMIT {
            return Err(ExtractError::TooLarge(format!(
                "a stream's predictor rows are wider than {} MiB",
                PREDICTOR_ROW_LIMIT >> 20
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use flate2::Compression;
    use flate2::write::ZlibEncoder;

    pub(super) fn deflated(data: &[u8]) -> Vec<u8> {
        let mut encoder = ZlibEncoder::new(Vec::new(), Compression::best());
        encoder.write_all(data).expect("compresses");
        encoder.finish().expect("compresses")
    }

    #[test]
    fn a_stream_is_decoded_as_lopdf_decodes_it() {
        let content = b"BT /F1 12 Tf (Hello) Tj ET".repeat(100);
        let mut stream = Stream::new(lopdf::dictionary! {}, deflated(&content));
        stream.dict.set("Filter", "FlateDecode");
        assert_eq!(decoded(&stream, STREAM_LIMIT).expect("decodes"), content);
        assert_eq!(
            stream.decompressed_content().expect("lopdf decodes"),
            content
        );
        assert_eq!(decoded(&stream, 100), Err(TooLarge));
        // Filters lopdf does not know leave the bytes as they are.
        stream.dict.set("Filter", "RunLengthDecode");
        assert_eq!(decoded(&stream, STREAM_LIMIT).expect("raw"), stream.content);
    }

    #[test]
    fn lzw_and_ascii85_decode_as_lopdf_decodes_them() {
        let text = b"the quick brown fox jumps over the lazy dog ".repeat(20);
        let lzw = weezl::encode::Encoder::with_tiff_size_switch(weezl::BitOrder::Msb, 8)
            .encode(&text)
            .expect("encodes");
        assert_eq!(unlzw(&lzw, true, STREAM_LIMIT).expect("decodes"), text);
        assert_eq!(unlzw(&lzw, true, 10), Err(TooLarge));
        let a85 = b"87cURD]i,\"Ebo80~>";
        assert_eq!(
            ascii85(a85, STREAM_LIMIT).expect("decodes"),
            Some(b"Hello World!".to_vec())
        );
    }

    #[test]
    fn a_bomb_anywhere_in_the_bytes_is_found_whatever_its_dictionary_says() {
        let bomb = deflated(&vec![b' '; (STREAM_LIMIT + 1) as usize]);
        for dictionary in [
            &b"<< /Length 5 0 R >>"[..],
            b"<< /Type /Obj#53tm /Length 9 >>",
        ] {
            let mut file = b"%PDF-1.5\n1 0 obj\n".to_vec();
            file.extend_from_slice(dictionary);
            file.extend_from_slice(b"\nstream\r\n");
            file.extend_from_slice(&bomb);
            file.extend_from_slice(b"\nendstream\nendobj\n");
            let error = check_raw(&file).expect_err("too large");
            assert!(matches!(error, ExtractError::TooLarge(_)), "{error:?}");
        }
        // Deflated twice over: the inner bomb is found too.
        let twice = deflated(&bomb);
        let mut file = b"1 0 obj << /Filter [/FlateDecode /FlateDecode] >> stream\n".to_vec();
        file.extend_from_slice(&twice);
        assert!(check_raw(&file).is_err());
        // An ordinary stream passes.
        let mut file = b"1 0 obj << /Filter /FlateDecode >> stream\n".to_vec();
        file.extend_from_slice(&deflated(b"BT (fine) Tj ET"));
        assert!(check_raw(&file).is_ok());
    }

    #[test]
    fn a_predictor_row_wider_than_the_bound_is_refused_and_a_normal_one_is_not() {
        assert!(check_raw(b"<< /DecodeParms << /Predictor 12 /Columns 5 >> >>").is_ok());
        let wide = b"<< /DecodeParms << /Predictor 12 /Col#75mns 900000000 /Colors 4 >> >>";
        assert!(check_raw(wide).is_err());
    }
}
