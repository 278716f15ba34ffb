//! JSON Lines: one object per line with a string field `text` and optional `label`, `id`, `title` (strings or
//! numbers). Blank lines are ignored. The file is split at line ends into chunks whose lines are parsed in parallel
//! (borrowing the text from the file's bytes when it has no escapes), and a line is parsed again, by the same
//! [`parse_line`], when its text is read on demand.

use std::borrow::Cow;
use std::io::Read;
use std::path::Path;

use rayon::prelude::*;
use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::source::{Location, Stream};
use super::{CorpusError, Document, LoadReport, TextEncoding, decode_text, file_name};

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

/// Read the documents of a JSON Lines file held whole in memory. `file` is the index of the file in the source
/// table when its lines can be read again (a regular UTF-8 file); with a stream, each chunk's texts go to it and
/// only the documents' other fields are kept.
pub(super) fn load(
    path: &Path,
    bytes: Vec<u8>,
    file: Option<u32>,
    encoding: TextEncoding,
    stream: Option<&Stream>,
    report: &mut LoadReport,
) -> Result<Vec<Document>, CorpusError> {
    // Offsets into the decoded text are offsets into the file only when the text is the file's bytes (UTF-8,
    // after a byte-order mark).
    let decoded = decode_text(bytes, encoding);
    report.count_encoding(decoded.encoding);
    let file = file.filter(|_| decoded.start.is_some());
    let lines = Lines {
        path,
        name: file_name(path),
        file,
        chunk_bytes: chunk_bytes(decoded.text.len()),
    };
    let start = decoded.start.unwrap_or(0) as usize;
    Ok(lines.parse(&decoded.text, start, 0, stream)?.0)
}

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// [`load`] for a regular file whose texts go to a stream, reading it a window at a time rather than whole, so
/// that a load holds a window of the file, not all of it (1.26 GB for a million documents). `None` when the file
/// is not UTF-8 (it is then read whole and decoded as before), with what it streamed taken back: each window is
/// checked as it is parsed, since a pass that checked the whole file first would read it twice.
pub(super) fn load_windows(
    path: &Path,
    file: u32,
    stream: &Stream,
) -> Result<Option<Vec<Document>>, CorpusError> {
    read_windows(path, file, stream, None)
}

/// [`load_windows`] with windows of `window` bytes (by default, [`WINDOW_CHUNKS`] chunks per thread): small ones
/// let the tests cross every boundary.
fn read_windows(
    path: &Path,
    file: u32,
    stream: &Stream,
    window: Option<usize>,
) -> Result<Option<Vec<Document>>, CorpusError> {
    let io_error = |error| CorpusError::Io {
        path: path.to_path_buf(),
        error,
    };
    let size = std::fs::metadata(path).map_err(io_error)?.len();
    let lines = Lines {
        path,
        name: file_name(path),
        file: Some(file),
        chunk_bytes: chunk_bytes(usize::try_from(size).unwrap_or(usize::MAX)),
    };
    let window =
        window.unwrap_or(WINDOW_CHUNKS * rayon::current_num_threads().max(1) * lines.chunk_bytes);
    let mut reader = std::fs::File::open(path).map_err(io_error)?;
    let mut buffer: Vec<u8> = Vec::with_capacity(window);
    let first_chunk = stream.next_number();
    let mut offset = 0usize;
    let mut lines_before = 0usize;
    let mut documents = Vec::new();
    let mut at_end = false;
    while !at_end {
        // Fill the window; a line longer than the window grows it until its end is in.
        let filled = buffer.len();
        let wanted = window.max(filled + (window / 2)) - filled;
        // Into the spare capacity, which `read_to_end` does not zero first as a resize would.
        let read = (&mut reader)
            .take(wanted as u64)
            .read_to_end(&mut buffer)
            .map_err(io_error)?;
        at_end = read < wanted;
        let skip = if offset == 0 && buffer.starts_with(UTF8_BOM) {
            UTF8_BOM.len()
        } else {
            0
        };
        let cut = match at_end {
            true => buffer.len(),
            false => match memchr::memrchr(b'\n', &buffer) {
                Some(last) => last + 1,
                None => continue,
            },
        };
        // A window ends at a line end (or the file's), never inside a UTF-8 character, so a file is UTF-8 when
        // every window is. UTF-16's byte-order mark is not UTF-8 either.
        let Ok(text) = std::str::from_utf8(&buffer[skip..cut]) else {
            stream.rewind(first_chunk);
            return Ok(None);
        };
        let (mut parsed, lines) = lines.parse(text, offset + skip, lines_before, Some(stream))?;
        documents.append(&mut parsed);
        lines_before += lines;
        offset += cut;
        buffer.drain(..cut);
    }
    Ok(Some(documents))
}

/// Windows hold this many chunks per thread: enough that the threads share a window's work evenly.
const WINDOW_CHUNKS: usize = 4;

/// Bytes per chunk for a file of `len` bytes (see [`MIN_CHUNK_BYTES`]).
fn chunk_bytes(len: usize) -> usize {
    (len / (4 * rayon::current_num_threads().max(1))).clamp(MIN_CHUNK_BYTES, MAX_CHUNK_BYTES)
}

/// What parsing a file's lines needs besides the lines.
struct Lines<'p> {
    path: &'p Path,
    name: String,
    file: Option<u32>,
    chunk_bytes: usize,
}

impl Lines<'_> {
    /// The documents of `text`, which starts at byte `file_offset` of the file after `lines_before` lines, and
    /// how many lines it holds: cut into chunks at line ends, parsed in parallel, each chunk's texts handed to
    /// `stream` (or kept in the documents without one). The first bad line is the one reported.
    fn parse(
        &self,
        text: &str,
        file_offset: usize,
        lines_before: usize,
        stream: Option<&Stream>,
    ) -> Result<(Vec<Document>, usize), CorpusError> {
        // Chunks end at line ends, so that line numbers are counted chunk by chunk and added up after.
        let mut chunks: Vec<&str> = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            let end = match rest.len() <= self.chunk_bytes {
                true => rest.len(),
                false => memchr::memchr(b'\n', &rest.as_bytes()[self.chunk_bytes..])
                    .map_or(rest.len(), |at| self.chunk_bytes + at + 1),
            };
            chunks.push(&rest[..end]);
            rest = &rest[end..];
        }
        let line_counts: Vec<usize> = chunks
            .par_iter()
            .map(|chunk| chunk.lines().count())
            .collect();
        let mut first_lines = Vec::with_capacity(chunks.len());
        let mut lines = lines_before;
        for count in line_counts {
            first_lines.push(lines);
            lines += count;
        }
        let base = text.as_ptr() as usize;
        // With a stream, each chunk of lines is one chunk of documents for it, numbered in file order.
        let first_chunk = stream.map_or(0, |stream| stream.reserve(chunks.len()));
        let parsed: Vec<Result<Vec<Document>, CorpusError>> = chunks
            .par_iter()
            .zip(&first_lines)
            .enumerate()
            .map(|(index, (chunk, &lines_before))| {
                let offset = chunk.as_ptr() as usize - base + file_offset;
                let (mut documents, texts) = parse_chunk(
                    chunk,
                    lines_before,
                    offset,
                    self.path,
                    &self.name,
                    self.file,
                )?;
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
        Ok((parsed.into_iter().flatten().collect(), lines - lines_before))
    }
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

#[cfg(test)]
mod window_tests {
    use std::sync::Mutex;

    use super::super::TextSink;
    use super::*;

    /// Every chunk's texts, by chunk number.
    #[derive(Default)]
    struct Collect(Mutex<Vec<(usize, Vec<String>)>>);

    impl TextSink for Collect {
        fn take(&self, index: usize, texts: &[&str]) {
            let texts = texts.iter().map(|text| text.to_string()).collect();
            self.0
                .lock()
                .expect("no panic while held")
                .push((index, texts));
        }

        fn discard_from(&self, first: usize) {
            self.0
                .lock()
                .expect("no panic while held")
                .retain(|(index, _)| *index < first);
        }
    }

    impl Collect {
        fn texts(self) -> Vec<String> {
            let mut chunks = self.0.into_inner().expect("no panic while held");
            chunks.sort_by_key(|(index, _)| *index);
            chunks.into_iter().flat_map(|(_, texts)| texts).collect()
        }
    }

    /// A file whose lines cross small windows and blocks: a byte-order mark, CRLF and LF line ends, a blank
    /// line, a line longer than a window, characters of two to four bytes, an escape, no line end at the end.
    fn awkward_file(dir: &Path) -> std::path::PathBuf {
        let mut text = String::from("\u{feff}");
        for i in 0..40 {
            let body = match i % 5 {
                0 => "caf\u{e9} na\u{ef}ve \u{1f600} \u{4e2d}\u{6587}".to_string(),
                1 => format!("{} long", "word ".repeat(60)),
                2 => "a \\\"quoted\\\" word".to_string(),
                _ => format!("plain text number {i}"),
            };
            text.push_str(&format!("{{\"id\":\"d{i}\",\"text\":\"{body}\"}}"));
            text.push_str(if i % 3 == 0 { "\r\n" } else { "\n" });
            if i == 7 {
                text.push('\n');
            }
        }
        text.push_str("{\"text\":\"the last line, unterminated\"}");
        let path = dir.join("awkward.jsonl");
        std::fs::write(&path, text).expect("temporary file");
        path
    }

    fn whole(path: &Path) -> (Vec<Document>, Vec<String>) {
        let sink = Collect::default();
        let stream = Stream::new(&sink);
        let bytes = std::fs::read(path).expect("readable");
        let documents = load(
            path,
            bytes,
            Some(0),
            TextEncoding::Detect,
            Some(&stream),
            &mut LoadReport::default(),
        )
        .expect("valid JSON Lines");
        (documents, sink.texts())
    }

    #[test]
    fn windows_of_any_size_read_what_the_whole_file_gives() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let path = awkward_file(dir.path());
        let (expected, expected_texts) = whole(&path);
        assert_eq!(expected.len(), 41);
        for window in [64, 100, 333, 4096] {
            let sink = Collect::default();
            let stream = Stream::new(&sink);
            let documents = read_windows(&path, 0, &stream, Some(window))
                .expect("valid JSON Lines")
                .expect("UTF-8");
            assert_eq!(documents, expected, "window {window}");
            assert_eq!(sink.texts(), expected_texts, "window {window}");
        }
        // The ids name the lines: the blank line counts, as in the whole file.
        assert_eq!(
            expected.last().map(|d| d.id.as_str()),
            Some("awkward.jsonl:42")
        );
    }

    #[test]
    fn a_file_that_is_not_utf8_is_left_to_the_whole_read_with_nothing_streamed() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let path = dir.path().join("latin1.jsonl");
        let mut bytes = b"{\"text\":\"fine\"}\n".repeat(50);
        bytes.extend_from_slice(b"{\"text\":\"costs \xA340\"}\n");
        std::fs::write(&path, bytes).expect("temporary file");
        let sink = Collect::default();
        let stream = Stream::new(&sink);
        // An earlier file's chunk stays; this file's windows before the bad byte are taken back.
        stream.take(stream.reserve(1), &mut [], &[]);
        let read = read_windows(&path, 1, &stream, Some(64)).expect("readable");
        assert!(read.is_none());
        let utf16 = dir.path().join("utf16.jsonl");
        std::fs::write(&utf16, b"\xFF\xFE{\x00}\x00").expect("temporary file");
        assert!(
            read_windows(&utf16, 2, &stream, Some(64))
                .expect("readable")
                .is_none()
        );
        assert_eq!(
            stream.next_number(),
            1,
            "numbering goes on after the earlier file"
        );
        let chunks = sink.0.into_inner().expect("no panic while held");
        assert_eq!(
            chunks,
            vec![(0, Vec::new())],
            "nothing of the fallbacks streamed"
        );
    }

    #[test]
    fn the_utf8_check_gives_one_answer_however_the_file_is_cut() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let valid = awkward_file(dir.path());
        let bytes = std::fs::read(&valid).expect("readable");
        // A byte that is not UTF-8, a character cut short, a stray continuation byte: at the start, the middle
        // and the end, so that some window's end falls right before, inside or after each.
        let mut damaged = Vec::new();
        for at in [3, bytes.len() / 2, bytes.len() - 1] {
            for bad in [&b"\xA3"[..], b"\xE4\xB8", b"\x80"] {
                let mut file = bytes.clone();
                file.splice(at..at, bad.iter().copied());
                damaged.push(file);
            }
        }
        let mut cut_short = bytes.clone();
        cut_short.extend_from_slice(b"\xF0\x9F\x98");
        damaged.push(cut_short);
        for window in [16, 64, 100, 333, 1 << 20] {
            let sink = Collect::default();
            let stream = Stream::new(&sink);
            let read = read_windows(&valid, 0, &stream, Some(window)).expect("readable");
            assert!(read.is_some(), "window {window}");
            for (index, file) in damaged.iter().enumerate() {
                let path = dir.path().join("damaged.jsonl");
                std::fs::write(&path, file).expect("temporary file");
                let sink = Collect::default();
                let stream = Stream::new(&sink);
                let read = read_windows(&path, 0, &stream, Some(window));
                assert!(
                    matches!(read, Ok(None)),
                    "damage {index}, window {window}: {read:?}"
                );
                assert_eq!(stream.next_number(), 0);
                assert!(sink.texts().is_empty(), "damage {index}, window {window}");
            }
        }
    }

    #[test]
    fn a_bad_line_in_a_later_window_is_named_by_its_line() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let path = dir.path().join("bad.jsonl");
        let mut text = "{\"text\":\"fine\"}\n".repeat(30);
        text.push_str("{\"text\": 3\n");
        std::fs::write(&path, text).expect("temporary file");
        let sink = Collect::default();
        let stream = Stream::new(&sink);
        let error = read_windows(&path, 0, &stream, Some(50)).expect_err("a bad line");
        assert!(error.to_string().contains("bad.jsonl:31:"), "{error}");
    }
}
