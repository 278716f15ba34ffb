//! Matrix Market: the weighted matrix as scipy (`scipy.io.mmread`), MATLAB and TMG read and write it, terms x
//! documents, with two files beside it: `NAME.terms.txt` (one word per row, as TMG's dictionary) and
//! `NAME.docs.tsv` (a header, then one row per column: id, label, title, and the file that is the document's text).
//!
//! sprs writes the matrix (`sprs::io`); pdx's own lines, the version and the settings the weights were made
//! with, go after its banner, where the format allows comments. Values are written as the shortest decimal that
//! reads back to the same single-precision number, so a matrix written and read is the same matrix, bit for bit.
//!
//! The reader is pdx's own rather than `sprs::io::read_matrix_market`, which trusts its input: it reserves the
//! entry count the header claims, and asserts (panics) on an index outside the matrix. A collection is untrusted
//! input, so this one bounds every line and what it reserves, and names the file and line of what it refuses.
//! It reads the `coordinate` `real` (or `integer`) `general` matrices that are a term-document matrix.
//!
//! In the TSV, a backslash, a tab, a line feed and a carriage return in a field are written `\\`, `\t`, `\n` and
//! `\r`, so that every row is one line of exactly its fields.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use super::{CollectionView, ExchangedCollection, ExchangedDocument};
use crate::input::{self, Bound, InputError};
use crate::matrix::{SparseError, SparseMatrix};

/// Why a Matrix Market collection cannot be written or read.
#[derive(Debug, thiserror::Error)]
pub enum MarketError {
    #[error("{}: a Matrix Market file's name ends in .mtx", .0.display())]
    NotMtxName(PathBuf),
    #[error("{}: exists; pdx does not replace it (remove it, or give another name)", .0.display())]
    Exists(PathBuf),
    #[error("{}: {error}", path.display())]
    Io { path: PathBuf, error: io::Error },
    #[error("{}: {error}", path.display())]
    Input { path: PathBuf, error: InputError },
    #[error("{}:{line}: {message}", path.display())]
    Line {
        path: PathBuf,
        line: u64,
        message: String,
    },
    #[error("{}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
    #[error("{}: {error}", path.display())]
    Matrix { path: PathBuf, error: SparseError },
}

/// The header of the documents' file, and its columns' order.
const DOCS_HEADER: [&str; 4] = ["id", "label", "title", "source"];

/// The longest line read from the matrix file: the format's own limit is 1,024 characters.
const MAX_LINE: u64 = 1024;

/// The shortest entry line, `1 1 1` and its line feed: a file of `size` bytes holds at most `size / 6` entries,
/// which bounds what a header's count may reserve.
const MIN_ENTRY_BYTES: u64 = 6;

/// The most read of a terms or documents file: far more than any vocabulary or document list pdx opens.
const SIDECAR_BOUND: Bound = Bound {
    file: Some(4 << 30),
    pipe: 4 << 30,
    what: "beside a Matrix Market file",
};

/// What writes one of the files.
type FileWriter<'a> = dyn Fn(&mut File) -> io::Result<()> + 'a;

/// The files written for `matrix`, a path ending in `.mtx`: the matrix, its terms and its documents.
pub fn files_of(matrix: &Path) -> Result<[PathBuf; 3], MarketError> {
    let stem = matrix
        .to_str()
        .and_then(|name| name.strip_suffix(".mtx"))
        .filter(|stem| !stem.is_empty() && !stem.ends_with('/'))
        .ok_or_else(|| MarketError::NotMtxName(matrix.to_path_buf()))?;
    Ok([
        matrix.to_path_buf(),
        PathBuf::from(format!("{stem}.terms.txt")),
        PathBuf::from(format!("{stem}.docs.tsv")),
    ])
}

/// Whether `path` names a Matrix Market file (by its name, as a corpus format).
pub fn is_market(path: &Path) -> bool {
    path.extension().is_some_and(|extension| extension == "mtx")
}

/// Write `collection` as `matrix` (a path ending in `.mtx`) and the two files beside it. Each must not exist yet;
/// each is written whole or not at all, and when one cannot be written those already written are removed.
pub fn write(matrix: &Path, collection: &CollectionView) -> Result<(), MarketError> {
    collection.assert_shape();
    let files = files_of(matrix)?;
    if let Some(taken) = files.iter().find(|file| file.symlink_metadata().is_ok()) {
        return Err(MarketError::Exists(taken.clone()));
    }
    let writers: [&FileWriter; 3] = [
        &|file| write_matrix(file, collection),
        &|file| write_terms(file, collection.words),
        &|file| write_documents(file, &collection.documents),
    ];
    for (done, (path, write)) in files.iter().zip(writers).enumerate() {
        if let Err(error) = crate::files::write_new_with(path, |file| write(file)) {
            for written in &files[..done] {
                let _ = std::fs::remove_file(written);
            }
            return Err(match error.kind() {
                io::ErrorKind::AlreadyExists => MarketError::Exists(path.clone()),
                _ => MarketError::Io {
                    path: path.clone(),
                    error,
                },
            });
        }
    }
    Ok(())
}

fn write_matrix(file: &mut File, collection: &CollectionView) -> io::Result<()> {
    let view = collection.matrix.view();
    let settings = serde_json::to_string(&collection.settings).unwrap_or_default();
    let comments = format!(
        "% terms x documents, weighted by pdx {}\n% settings: {settings}\n",
        env!("CARGO_PKG_VERSION")
    );
    let mut writer = AfterBanner::new(io::BufWriter::new(file), comments);
    sprs::io::write_matrix_market_to_bufwrite(&mut writer, view)?;
    writer.finish()
}

fn write_terms(file: &mut File, words: &[String]) -> io::Result<()> {
    let mut writer = io::BufWriter::new(file);
    for word in words {
        // A word holds no line break (the tokeniser splits on white space); one that did would shift every row.
        writeln!(writer, "{}", escape_field(word))?;
    }
    writer.flush()
}

fn write_documents(file: &mut File, documents: &[ExchangedDocument]) -> io::Result<()> {
    let mut writer = io::BufWriter::new(file);
    writeln!(writer, "{}", DOCS_HEADER.join("\t"))?;
    for document in documents {
        let source = document
            .source
            .as_ref()
            .map(|path| path.to_string_lossy().into_owned());
        let fields = [
            Some(document.id.as_str()),
            document.label.as_deref(),
            document.title.as_deref(),
            source.as_deref(),
        ];
        let line: Vec<String> = fields
            .iter()
            .map(|field| escape_field(field.unwrap_or("")))
            .collect();
        writeln!(writer, "{}", line.join("\t"))?;
    }
    writer.flush()
}

/// A writer that passes everything through and puts `comments` after the first line (the banner).
struct AfterBanner<W: Write> {
    inner: W,
    comments: Option<String>,
}

impl<W: Write> AfterBanner<W> {
    fn new(inner: W, comments: String) -> AfterBanner<W> {
        AfterBanner {
            inner,
            comments: Some(comments),
        }
    }

    fn finish(mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write> Write for AfterBanner<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let Some(comments) = &self.comments else {
            return self.inner.write(bytes);
        };
        match memchr::memchr(b'\n', bytes) {
            None => self.inner.write(bytes),
            Some(end) => {
                self.inner.write_all(&bytes[..=end])?;
                self.inner.write_all(comments.as_bytes())?;
                self.comments = None;
                Ok(end + 1)
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// `field` with the characters that would break a TSV row escaped.
fn escape_field(field: &str) -> String {
    let mut escaped = String::with_capacity(field.len());
    for c in field.chars() {
        match c {
            '\\' => escaped.push_str("\\\\"),
            '\t' => escaped.push_str("\\t"),
            '\n' => escaped.push_str("\\n"),
            '\r' => escaped.push_str("\\r"),
            c => escaped.push(c),
        }
    }
    escaped
}

/// [`escape_field`] undone; an unknown escape keeps its backslash.
fn unescape_field(field: &str) -> String {
    let mut text = String::with_capacity(field.len());
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            text.push(c);
            continue;
        }
        match chars.next() {
            Some('\\') => text.push('\\'),
            Some('t') => text.push('\t'),
            Some('n') => text.push('\n'),
            Some('r') => text.push('\r'),
            Some(other) => {
                text.push('\\');
                text.push(other);
            }
            None => text.push('\\'),
        }
    }
    text
}

/// Read the collection at `matrix` (a `.mtx` file) and the files beside it when they exist: without the terms
/// file the rows are named `t1`, `t2`, ...; without the documents file the columns are `d1`, `d2`, ... and have no
/// labels (each absence is noted).
pub fn read(matrix: &Path) -> Result<ExchangedCollection, MarketError> {
    let [matrix_file, terms_file, docs_file] = files_of(matrix)?;
    let matrix = read_matrix(&matrix_file)?;
    let mut notes = Vec::new();
    let terms = match sidecar(&terms_file)? {
        Some(text) => read_terms(&terms_file, &text, matrix.rows())?,
        None => {
            notes.push(format!(
                "{}: not found; the rows are named t1 to t{}",
                terms_file.display(),
                matrix.rows()
            ));
            (1..=matrix.rows()).map(|row| format!("t{row}")).collect()
        }
    };
    let documents = match sidecar(&docs_file)? {
        Some(text) => read_documents(&docs_file, &text, matrix.cols())?,
        None => {
            notes.push(format!(
                "{}: not found; the documents are named d1 to d{} and have no labels",
                docs_file.display(),
                matrix.cols()
            ));
            (1..=matrix.cols())
                .map(|column| ExchangedDocument {
                    id: format!("d{column}"),
                    ..ExchangedDocument::default()
                })
                .collect()
        }
    };
    Ok(ExchangedCollection {
        matrix,
        terms,
        words: Vec::new(),
        documents,
        notes,
        node_of_tree: None,
    })
}

/// The text of a file beside the matrix, or `None` when there is none.
fn sidecar(path: &Path) -> Result<Option<String>, MarketError> {
    if path.symlink_metadata().is_err() {
        return Ok(None);
    }
    input::read_text(path, SIDECAR_BOUND)
        .map(Some)
        .map_err(|error| MarketError::Input {
            path: path.to_path_buf(),
            error,
        })
}

/// The next line of `reader` into `line` (without its line ending), counting `number`; `false` at the end. A line
/// longer than [`MAX_LINE`] is refused.
fn next_line(
    reader: &mut impl BufRead,
    line: &mut String,
    number: &mut u64,
    path: &Path,
) -> Result<bool, MarketError> {
    line.clear();
    let read = reader
        .by_ref()
        .take(MAX_LINE + 1)
        .read_line(line)
        .map_err(|error| MarketError::Io {
            path: path.to_path_buf(),
            error,
        })?;
    if read == 0 {
        return Ok(false);
    }
    *number += 1;
    if !line.ends_with('\n') && read as u64 > MAX_LINE {
        return Err(line_error(
            path,
            *number,
            format!("a line longer than {MAX_LINE} bytes"),
        ));
    }
    let content = line.trim_end_matches(['\n', '\r']).len();
    line.truncate(content);
    Ok(true)
}

fn line_error(path: &Path, line: u64, message: impl Into<String>) -> MarketError {
    MarketError::Line {
        path: path.to_path_buf(),
        line,
        message: message.into(),
    }
}

/// The matrix of a `.mtx` file, checked as every matrix is.
fn read_matrix(path: &Path) -> Result<SparseMatrix, MarketError> {
    let file = input::open_regular(path).map_err(|error| MarketError::Input {
        path: path.to_path_buf(),
        error,
    })?;
    let size = file.metadata().map(|metadata| metadata.len()).unwrap_or(0);
    let mut reader = BufReader::new(file);
    let (mut line, mut number) = (String::new(), 0u64);
    if !next_line(&mut reader, &mut line, &mut number, path)? {
        return Err(line_error(path, 1, "empty, not a Matrix Market file"));
    }
    check_banner(path, &line)?;
    // Comments, then the size line.
    loop {
        if !next_line(&mut reader, &mut line, &mut number, path)? {
            return Err(line_error(path, number + 1, "no size line"));
        }
        if !line.starts_with('%') && !line.trim().is_empty() {
            break;
        }
    }
    let (rows, cols, entries) = size_line(path, number, &line, size)?;
    let mut triplets: Vec<(u32, u32, f32)> = Vec::with_capacity(entries);
    while triplets.len() < entries {
        if !next_line(&mut reader, &mut line, &mut number, path)? {
            return Err(line_error(
                path,
                number + 1,
                format!(
                    "the file ends after {} of the {entries} entries its size line gives",
                    triplets.len()
                ),
            ));
        }
        if line.trim().is_empty() {
            continue;
        }
        triplets.push(entry(path, number, &line, rows, cols)?);
    }
    while next_line(&mut reader, &mut line, &mut number, path)? {
        if !line.trim().is_empty() {
            return Err(line_error(
                path,
                number,
                format!("more entries than the {entries} the size line gives"),
            ));
        }
    }
    compressed_columns(path, rows, cols, triplets)
}

/// Refuse anything but a general coordinate matrix of real (or integer) values.
fn check_banner(path: &Path, banner: &str) -> Result<(), MarketError> {
    let words: Vec<String> = banner
        .split_whitespace()
        .map(str::to_ascii_lowercase)
        .collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    match words[..] {
        [
            "%%matrixmarket",
            "matrix",
            "coordinate",
            "real" | "integer",
            "general",
        ] => Ok(()),
        ["%%matrixmarket", "matrix", layout, field, symmetry] => Err(line_error(
            path,
            1,
            format!(
                "a {layout} {field} {symmetry} matrix; pdx reads a term-document matrix: coordinate, real or \
                 integer, general"
            ),
        )),
        _ => Err(line_error(
            path,
            1,
            "not a Matrix Market banner (%%MatrixMarket matrix coordinate real general)",
        )),
    }
}

/// Rows, columns and entries from the size line; rows and columns must fit pdx's 32-bit indices and the entries
/// the file's size.
fn size_line(
    path: &Path,
    number: u64,
    line: &str,
    file_size: u64,
) -> Result<(u32, u32, usize), MarketError> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let parsed: Option<Vec<u64>> = fields.iter().map(|field| field.parse().ok()).collect();
    let Some([rows, cols, entries]) = parsed.as_deref().and_then(|p| <[u64; 3]>::try_from(p).ok())
    else {
        return Err(line_error(
            path,
            number,
            "not a size line (rows, columns and entries, three whole numbers)",
        ));
    };
    let (Ok(rows), Ok(cols)) = (u32::try_from(rows), u32::try_from(cols)) else {
        return Err(line_error(
            path,
            number,
            format!("{rows} x {cols}: pdx's rows and columns are 32-bit"),
        ));
    };
    if entries > u64::from(rows) * u64::from(cols) || entries > file_size / MIN_ENTRY_BYTES {
        return Err(line_error(
            path,
            number,
            format!("{entries} entries cannot be in a {rows} x {cols} matrix in {file_size} bytes"),
        ));
    }
    Ok((rows, cols, entries as usize))
}

/// One entry line: 1-based row and column inside the matrix, and a finite value.
fn entry(
    path: &Path,
    number: u64,
    line: &str,
    rows: u32,
    cols: u32,
) -> Result<(u32, u32, f32), MarketError> {
    // Read field by field: a vector of the fields for each of millions of entries would cost an allocation each.
    let mut fields = line.split_whitespace();
    let (Some(row), Some(col), Some(value), None) =
        (fields.next(), fields.next(), fields.next(), fields.next())
    else {
        return Err(line_error(
            path,
            number,
            "an entry is a row, a column and a value",
        ));
    };
    let index = |field: &str, count: u32, what: &str| {
        field
            .parse::<u32>()
            .ok()
            .filter(|&index| (1..=count).contains(&index))
            .map(|index| index - 1)
            .ok_or_else(|| {
                line_error(
                    path,
                    number,
                    format!("{what} {field:?} is not between 1 and {count}"),
                )
            })
    };
    let (row, col) = (index(row, rows, "row")?, index(col, cols, "column")?);
    let value = value
        .parse::<f32>()
        .ok()
        .filter(|value| value.is_finite())
        .ok_or_else(|| {
            line_error(
                path,
                number,
                format!("{value:?} is not a finite single-precision number"),
            )
        })?;
    Ok((row, col, value))
}

/// The entries in compressed columns; an entry given twice is refused.
fn compressed_columns(
    path: &Path,
    rows: u32,
    cols: u32,
    mut triplets: Vec<(u32, u32, f32)>,
) -> Result<SparseMatrix, MarketError> {
    let key = |&(row, col, _): &(u32, u32, f32)| (col, row);
    // pdx writes its entries column after column: already in order, and then not sorted again.
    if !triplets
        .windows(2)
        .all(|pair| key(&pair[0]) <= key(&pair[1]))
    {
        triplets.sort_unstable_by_key(key);
    }
    if let Some(pair) = triplets
        .windows(2)
        .find(|pair| key(&pair[0]) == key(&pair[1]))
    {
        return Err(MarketError::Invalid {
            path: path.to_path_buf(),
            message: format!(
                "the entry at row {}, column {} is given twice",
                pair[0].0 + 1,
                pair[0].1 + 1
            ),
        });
    }
    let mut offsets = vec![0u64; cols as usize + 1];
    for &(_, col, _) in &triplets {
        offsets[col as usize + 1] += 1;
    }
    for column in 0..cols as usize {
        offsets[column + 1] += offsets[column];
    }
    let indices = triplets.iter().map(|&(row, _, _)| row).collect();
    let values = triplets.iter().map(|&(_, _, value)| value).collect();
    drop(triplets);
    SparseMatrix::from_csc_parts(rows as usize, cols as usize, offsets, indices, values).map_err(
        |error| MarketError::Matrix {
            path: path.to_path_buf(),
            error,
        },
    )
}

/// One term per line, as many as the rows.
fn read_terms(path: &Path, text: &str, rows: usize) -> Result<Vec<String>, MarketError> {
    let terms: Vec<String> = text.lines().map(unescape_field).collect();
    if let Some(empty) = terms.iter().position(String::is_empty) {
        return Err(line_error(path, empty as u64 + 1, "an empty term"));
    }
    if terms.len() != rows {
        return Err(MarketError::Invalid {
            path: path.to_path_buf(),
            message: format!("{} terms for the matrix's {rows} rows", terms.len()),
        });
    }
    Ok(terms)
}

/// The documents' rows after the header: the id and, when the header has them, label, title and source.
fn read_documents(
    path: &Path,
    text: &str,
    cols: usize,
) -> Result<Vec<ExchangedDocument>, MarketError> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split('\t').collect();
    let column = |name: &str| header.iter().position(|field| *field == name);
    let Some(id_column) = column("id") else {
        return Err(line_error(
            path,
            1,
            format!(
                "the header names no id column (it is: {})",
                DOCS_HEADER.join(", ")
            ),
        ));
    };
    let [label, title, source] = ["label", "title", "source"].map(column);
    let mut documents = Vec::with_capacity(cols.min(text.len()));
    for (at, line) in lines.enumerate() {
        let number = at as u64 + 2;
        let fields: Vec<&str> = line.split('\t').collect();
        if fields.len() != header.len() {
            return Err(line_error(
                path,
                number,
                format!("{} fields for the header's {}", fields.len(), header.len()),
            ));
        }
        let field = |index: Option<usize>| {
            index
                .map(|index| unescape_field(fields[index]))
                .filter(|value| !value.is_empty())
        };
        let id = unescape_field(fields[id_column]);
        if id.is_empty() {
            return Err(line_error(path, number, "an empty id"));
        }
        documents.push(ExchangedDocument {
            id,
            label: field(label),
            title: field(title),
            source: field(source).map(PathBuf::from),
        });
    }
    if documents.len() != cols {
        return Err(MarketError::Invalid {
            path: path.to_path_buf(),
            message: format!(
                "{} documents for the matrix's {cols} columns",
                documents.len()
            ),
        });
    }
    Ok(documents)
}

#[cfg(test)]
mod tests;
