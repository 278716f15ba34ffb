//! Format auto-detection for [`Format::Auto`].

use std::io::Read;
use std::path::Path;

use crate::input::{self, InputError, InputKind};

use super::{CorpusError, Format, TextEncoding, decode, decode_text};

/// Pick a format for one path.
///
/// - A folder holding `reut2-*.sgm` files is Reuters-21578; a folder whose regular files all start with a SMART
///   `.I` record is a SMART collection; any other folder is a folder tree (sub-folder = label).
/// - A file is chosen by its extension (`.sgm` Reuters, `.jsonl`/`.ndjson` JSONL, `.tsv`/`.tab` TSV,
///   `.data` numeric), then by its first bytes: a `.I` record start is SMART; a first line that is a JSON object
///   is JSON Lines (unless the name says `.csv`); a file whose first data row is all numbers (allowing one text
///   column at either end, the label) is numeric, else CSV text.
///
/// Only a folder or a regular file can be looked at here: a pipe's first bytes are gone once read, so
/// [`load`](super::load) reads a pipe once and detects its format from what it read.
pub fn detect_format(path: &Path) -> Result<Format, CorpusError> {
    let io_error = |error| CorpusError::Io {
        path: path.to_path_buf(),
        error,
    };
    match input::kind_of(path).map_err(io_error)? {
        InputKind::Folder => detect_folder(path),
        InputKind::File => detect_file(path, &read_head(path)?),
        InputKind::Pipe => Err(CorpusError::Input {
            path: path.to_path_buf(),
            error: InputError::NotRegular("a pipe, whose format is known only once it is read"),
        }),
        InputKind::Other(kind) => Err(CorpusError::Input {
            path: path.to_path_buf(),
            error: InputError::NotRegular(kind),
        }),
    }
}

/// The format of a file from its name and its first bytes (any number of them; the first [`HEAD_BYTES`] count).
/// Whether `path`'s name says JSON Lines (`.jsonl`, `.ndjson`), which [`detect_file`] trusts before the content.
pub(super) fn named_jsonl(path: &Path) -> bool {
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    matches!(extension.as_deref(), Some("jsonl" | "ndjson"))
}

pub(super) fn detect_file(path: &Path, bytes: &[u8]) -> Result<Format, CorpusError> {
    if named_jsonl(path) {
        return Ok(Format::Jsonl);
    }
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "sgm" => return Ok(Format::Reuters),
        "tsv" | "tab" => return Ok(Format::Tsv),
        "data" => return Ok(Format::Numeric),
        _ => {}
    }
    let head = head_text(bytes);
    if starts_smart_record(&head) {
        return Ok(Format::Smart);
    }
    // A `.csv` name is taken at its word; any other file whose first line is a JSON object is JSON Lines.
    if extension != "csv" && starts_json_object_line(&head, bytes.len() <= HEAD_BYTES) {
        return Ok(Format::Jsonl);
    }
    if looks_numeric(&head) {
        return Ok(Format::Numeric);
    }
    if extension == "csv" || head.contains(',') {
        return Ok(Format::Csv);
    }
    Err(CorpusError::UnknownFormat {
        path: path.to_path_buf(),
    })
}

pub(super) fn detect_folder(path: &Path) -> Result<Format, CorpusError> {
    let entries = std::fs::read_dir(path).map_err(|error| CorpusError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    let mut files = Vec::new();
    let mut has_subfolder = false;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let entry_path = entry.path();
        if entry_path.is_dir() {
            has_subfolder = true;
        } else if entry_path.is_file() {
            files.push((name, entry_path));
        }
    }
    if files
        .iter()
        .any(|(name, _)| name.starts_with("reut2-") && name.ends_with(".sgm"))
    {
        return Ok(Format::Reuters);
    }
    if !has_subfolder
        && !files.is_empty()
        && files.iter().all(|(_, file)| {
            read_head(file)
                .map(|head| starts_smart_record(&head_text(&head)))
                .unwrap_or(false)
        })
    {
        return Ok(Format::Smart);
    }
    Ok(Format::Folder)
}

/// How much of a file detection looks at.
const HEAD_BYTES: usize = 4096;

/// The first [`HEAD_BYTES`] of a regular file.
fn read_head(path: &Path) -> Result<Vec<u8>, CorpusError> {
    let io_error = |error| CorpusError::Io {
        path: path.to_path_buf(),
        error,
    };
    let file = std::fs::File::open(path).map_err(io_error)?;
    let mut buffer = Vec::with_capacity(HEAD_BYTES);
    file.take(HEAD_BYTES as u64)
        .read_to_end(&mut buffer)
        .map_err(io_error)?;
    Ok(buffer)
}

/// The first [`HEAD_BYTES`] of `bytes` as text: UTF-16 with a byte-order mark decoded, anything else leniently
/// after a UTF-8 byte-order mark, which the loaders drop too.
fn head_text(bytes: &[u8]) -> String {
    let head = &bytes[..bytes.len().min(HEAD_BYTES)];
    if decode::utf16_encoding(head).is_some() {
        return decode_text(head.to_vec(), TextEncoding::Detect).text;
    }
    String::from_utf8_lossy(head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head)).into_owned()
}

/// Whether the first non-empty line of `head` is a JSON object, as a JSON Lines file's lines are. A line that
/// ends within the head (or a head that is the whole file, `whole`) is parsed; one longer than the head, whose end
/// detection cannot see, counts when it opens an object with a key (`{"`), which no CSV header or SMART record
/// does.
fn starts_json_object_line(head: &str, whole: bool) -> bool {
    let start = head.trim_start();
    if !start.starts_with('{') {
        return false;
    }
    match start.find('\n') {
        Some(end) => {
            serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&start[..end])
                .is_ok()
        }
        None if whole => {
            serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(start).is_ok()
        }
        None => start[1..].trim_start().starts_with('"'),
    }
}

fn starts_smart_record(head: &str) -> bool {
    head.lines()
        .find(|line| !line.trim().is_empty())
        .is_some_and(|line| line.trim_end() == ".I" || line.starts_with(".I "))
}

/// True when the first non-empty line that is not a header is comma-separated numbers, with at most one
/// non-numeric cell at either end (a class label).
fn looks_numeric(head: &str) -> bool {
    let mut lines = head.lines().filter(|line| !line.trim().is_empty());
    let Some(first) = lines.next() else {
        return false;
    };
    let row_is_numeric = |line: &str| {
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        if cells.len() < 2 {
            return false;
        }
        let numeric: Vec<bool> = cells
            .iter()
            .map(|cell| *cell == "?" || cell.parse::<f64>().is_ok())
            .collect();
        let inner_all_numeric = numeric[1..numeric.len() - 1].iter().all(|n| *n);
        let ends_text = usize::from(!numeric[0]) + usize::from(!numeric[numeric.len() - 1]);
        // Two numbers at least: `id,text` rows (one number, one text) are documents, not objects.
        inner_all_numeric && ends_text <= 1 && numeric.iter().filter(|n| **n).count() >= 2
    };
    if row_is_numeric(first) {
        return true;
    }
    // A header row followed by numbers; a header naming a `text` column is a text CSV whatever follows.
    let header_names_text = first
        .split(',')
        .any(|name| name.trim().eq_ignore_ascii_case("text"));
    !header_names_text && lines.next().is_some_and(row_is_numeric)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_rows_are_recognised() {
        assert!(looks_numeric("5.1,3.5,1.4,0.2,Iris-setosa\n"));
        assert!(looks_numeric("1,14.23,1.71\n"));
        assert!(looks_numeric("a,b,c\n1,2,3\n"));
        assert!(!looks_numeric("id,text,label\n1,hello world,greeting\n"));
        assert!(!looks_numeric("id,body\n1,hello\n"));
        assert!(!looks_numeric("id,text\n1,2\n"));
    }

    #[test]
    fn json_lines_are_recognised_by_their_first_line() {
        let detect = |name: &str, bytes: &[u8]| detect_file(Path::new(name), bytes).ok();
        let lines = b"\n{\"text\": \"a, b\", \"label\": 1}\n{\"text\": \"c\"}\n";
        assert_eq!(detect("data.txt", lines), Some(Format::Jsonl));
        assert_eq!(detect("data", lines), Some(Format::Jsonl));
        assert_eq!(
            detect("data", b"{\"text\": \"one line, no end\"}"),
            Some(Format::Jsonl)
        );
        // A first line longer than the head: its start is enough.
        let long = format!("{{\"text\": \"{}\"}}\n", "word ".repeat(HEAD_BYTES));
        assert_eq!(detect("data", long.as_bytes()), Some(Format::Jsonl));
        // The name wins; a brace that opens no object, or a JSON array, is no JSON Lines file.
        assert_eq!(detect("data.csv", lines), Some(Format::Csv));
        assert_eq!(
            detect("data", b"{not json},text\nhello,world\n"),
            Some(Format::Csv)
        );
        assert_ne!(detect("data", b"[1, 2]\n"), Some(Format::Jsonl));
    }

    #[test]
    fn smart_records_are_recognised() {
        assert!(starts_smart_record(".I 1\n.W\ntext"));
        assert!(starts_smart_record(&head_text(
            b"\xEF\xBB\xBF.I 1\n.W\ntext"
        )));
        assert!(!starts_smart_record("I 1\n.W\ntext"));
    }
}
