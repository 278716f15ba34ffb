//! JSON Lines: one object per line with a string field `text` and optional `label`, `id`, `title` (strings or
//! numbers). Blank lines are ignored. The file is split at line ends into chunks whose lines are parsed in parallel
//! (borrowing the text from the file's bytes when it has no escapes), and a line is parsed again, by the same
//! [`parse_line`], when its text is read on demand.

use std::borrow::Cow;
use std::path::Path;

use rayon::prelude::*;
use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::decode::utf16_encoding;
use super::source::{Location, Stream};
use super::{CorpusError, Document, LoadReport, decode_text, file_name};

/// One parsed line: the fields pdx reads, borrowed from the line where they have no escapes.
pub(super) struct Line<'a> {
    pub(super) text: Cow<'a, str>,
    pub(super) id: Option<Cow<'a, str>>,
    pub(super) title: Option<Cow<'a, str>>,
    pub(super) label: Option<Cow<'a, str>>,
}

/// A field's value as given: a string, a number (kept as written by `serde_json`), or anything else (refused by
/// [`parse_line`] with the field's name).
enum Field<'a> {
    Text(Cow<'a, str>),
    Other,
}

impl<'de> Deserialize<'de> for Field<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FieldVisitor;
        impl<'de> Visitor<'de> for FieldVisitor {
            type Value = Field<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string or a number")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Field::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Field::Text(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Field::Text(Cow::Owned(v)))
            }
            // Numbers are written as `serde_json::Value` writes them, so that ids read as before.
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(Field::Text(Cow::Owned(
                    serde_json::Number::from(v).to_string(),
                )))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(Field::Text(Cow::Owned(
                    serde_json::Number::from(v).to_string(),
                )))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(serde_json::Number::from_f64(v)
                    .map_or(Field::Other, |n| Field::Text(Cow::Owned(n.to_string()))))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Field::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Field::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Field::Other)
            }
        }
        deserializer.deserialize_any(FieldVisitor)
    }
}

/// The object of a line; `null` reads as an absent field, a repeated key keeps its last value (as a JSON object
/// read into a map does).
#[derive(Default)]
struct Record<'a> {
    text: Option<Field<'a>>,
    id: Option<Field<'a>>,
    title: Option<Field<'a>>,
    label: Option<Field<'a>>,
}

impl<'de> Deserialize<'de> for Record<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct RecordVisitor;
        impl<'de> Visitor<'de> for RecordVisitor {
            type Value = Record<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut record = Record::default();
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    let slot = match key.as_ref() {
                        "text" => &mut record.text,
                        "id" => &mut record.id,
                        "title" => &mut record.title,
                        "label" => &mut record.label,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    *slot = map.next_value::<Option<Field<'de>>>()?;
                }
                Ok(record)
            }
        }
        deserializer.deserialize_map(RecordVisitor)
    }
}

/// Parse one line (not blank) into its fields, or say what is wrong with it. The loader and the on-demand reader
/// both call this, so that they cannot disagree on a text.
pub(super) fn parse_line(line: &str) -> Result<Line<'_>, String> {
    if !line.trim_start().starts_with('{') {
        // Not an object: say whether it is JSON at all, as a parse into any value would.
        return Err(match serde_json::from_str::<IgnoredAny>(line) {
            Ok(_) => "expected a JSON object".into(),
            Err(error) => format!("not valid JSON: {error}"),
        });
    }
    let record: Record =
        serde_json::from_str(line).map_err(|error| format!("not valid JSON: {error}"))?;
    fn field<'a>(key: &str, value: Option<Field<'a>>) -> Result<Option<Cow<'a, str>>, String> {
        match value {
            None => Ok(None),
            Some(Field::Text(text)) => Ok(Some(text)),
            Some(Field::Other) => Err(format!("field {key:?} must be a string")),
        }
    }
    let Some(text) = field("text", record.text)? else {
        return Err("no \"text\" field".into());
    };
    Ok(Line {
        text,
        id: field("id", record.id)?,
        title: field("title", record.title)?,
        label: field("label", record.label)?,
    })
}

/// Bytes of the file per chunk of lines parsed and tokenised together: about four chunks per thread, within
/// these bounds. Each chunk numbers its own distinct words, and merging those tables is sequential, so chunks
/// much smaller than the file's share per thread cost time (4 MiB chunks spent about 7 s merging a million
/// documents' tables; see benches/README.md); one chunk per file would leave threads idle.
const MIN_CHUNK_BYTES: usize = 4 << 20;
const MAX_CHUNK_BYTES: usize = 64 << 20;

/// Read the documents of a JSON Lines file. `file` is the index of the file in the source table when its lines
/// can be read again (a regular UTF-8 file); with a stream, each chunk's texts go to it and only the documents'
/// other fields are kept.
pub(super) fn load(
    path: &Path,
    bytes: Vec<u8>,
    file: Option<u32>,
    stream: Option<&Stream>,
    report: &mut LoadReport,
) -> Result<Vec<Document>, CorpusError> {
    // Offsets into the decoded text are offsets into the file only when it is UTF-8 (after a byte-order mark).
    let bom = if bytes.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let utf16 = utf16_encoding(&bytes).is_some();
    let (text, fell_back) = decode_text(bytes);
    report.fallback_decoded += usize::from(fell_back);
    let file = file.filter(|_| !fell_back && !utf16);
    let name = file_name(path);

    // Chunks end at line ends, so that line numbers are counted chunk by chunk and added up after.
    let chunk_bytes =
        (text.len() / (4 * rayon::current_num_threads())).clamp(MIN_CHUNK_BYTES, MAX_CHUNK_BYTES);
    let mut chunks: Vec<&str> = Vec::new();
    let mut rest = text.as_str();
    while !rest.is_empty() {
        let end = match rest.len() <= chunk_bytes {
            true => rest.len(),
            false => memchr::memchr(b'\n', &rest.as_bytes()[chunk_bytes..])
                .map_or(rest.len(), |at| chunk_bytes + at + 1),
        };
        chunks.push(&rest[..end]);
        rest = &rest[end..];
    }
    let mut first_lines = Vec::with_capacity(chunks.len());
    let mut lines_before = 0;
    for chunk in &chunks {
        first_lines.push(lines_before);
        lines_before += chunk.lines().count();
    }
    let base = text.as_ptr() as usize;
    // With a stream, each chunk of lines is one chunk of documents for it, numbered in file order.
    let first_chunk = stream.map_or(0, |stream| stream.reserve(chunks.len()));
    let parsed: Vec<Result<Vec<Document>, CorpusError>> = chunks
        .par_iter()
        .zip(&first_lines)
        .enumerate()
        .map(|(index, (chunk, &lines_before))| {
            let offset = chunk.as_ptr() as usize - base + bom;
            let (mut documents, texts) =
                parse_chunk(chunk, lines_before, offset, path, &name, file)?;
            match stream {
                None => Ok(keep_texts(documents, texts)),
                Some(stream) => {
                    let borrowed: Vec<&str> = texts.iter().map(|text| text.as_ref()).collect();
                    stream.take(first_chunk + index, &mut documents, &borrowed);
                    Ok(documents)
                }
            }
        })
        .collect();
    // The first bad line in the file is the one reported, whichever thread met it first.
    let parsed = parsed.into_iter().collect::<Result<Vec<_>, _>>()?;
    Ok(parsed.into_iter().flatten().collect())
}

/// Parse the lines of one chunk, which starts after `lines_before` lines at byte `offset` of the file. Without a
/// stream the texts stay in the documents; with one they are returned beside them, borrowed where possible.
fn parse_chunk<'t>(
    chunk: &'t str,
    lines_before: usize,
    offset: usize,
    path: &Path,
    name: &str,
    file: Option<u32>,
) -> Result<(Vec<Document>, Vec<Cow<'t, str>>), CorpusError> {
    let mut documents = Vec::new();
    let mut texts = Vec::new();
    let mut line_start = 0;
    for (index, line) in chunk.lines().enumerate() {
        let line_number = lines_before + index + 1;
        let at = line_start;
        // `lines` drops a `\n` or `\r\n`; the next line starts after it.
        line_start += line.len();
        if chunk[line_start..].starts_with("\r\n") {
            line_start += 2;
        } else if chunk[line_start..].starts_with('\n') {
            line_start += 1;
        }
        if line.trim().is_empty() {
            continue;
        }
        let parsed = parse_line(line).map_err(|message| CorpusError::Parse {
            path: path.to_path_buf(),
            line: line_number,
            message,
        })?;
        documents.push(Document {
            id: parsed
                .id
                .map_or_else(|| format!("{name}:{line_number}"), Cow::into_owned),
            path: Some(path.to_path_buf()),
            title: parsed.title.map(Cow::into_owned),
            label: parsed.label.map(Cow::into_owned),
            text: String::new(),
            location: file.map(|file| Location {
                file,
                offset: (offset + at) as u64,
                len: line.len() as u64,
            }),
            headline: None,
        });
        texts.push(parsed.text);
    }
    Ok((documents, texts))
}

/// Move each text into its document (a load without a stream keeps the texts).
fn keep_texts(mut documents: Vec<Document>, texts: Vec<Cow<str>>) -> Vec<Document> {
    for (document, text) in documents.iter_mut().zip(texts) {
        document.text = text.into_owned();
    }
    documents
}
