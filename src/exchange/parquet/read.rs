//! Reading a Parquet folder: the manifest checked, each file checked against it, then the matrix built
//! straight from the shards' rows, one record batch at a time.
//!
//! Types are read as the Parquet file declares them, not as an Arrow schema stored beside them says
//! (`with_skip_arrow_metadata`): a string column is text whether pyarrow, polars or Spark wrote it. Besides
//! what pdx writes (`list<uint32>` terms, `list<float>` weights) the signed integers and doubles other engines
//! write are read (Spark has no unsigned types; pandas' floats are doubles), each checked as pdx's own are.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Float64Type, Int32Type, Int64Type, UInt32Type};
use arrow_array::{Array, ListArray, RecordBatch, StringArray};
use arrow_schema::{DataType, Schema};
use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
use xxhash_rust::xxh3::Xxh3;

use super::{FORMAT_VERSION, MANIFEST, Manifest, ManifestFile, ParquetError, checksum_text};
use crate::exchange::{ExchangedCollection, ExchangedDocument};
use crate::input::{self, Bound, InputError};
use crate::matrix::SparseMatrix;

/// The most read of a manifest: a few hundred bytes per shard, so room for far more shards than any
/// collection pdx opens has.
const MANIFEST_BOUND: Bound = Bound {
    file: Some(16 << 20),
    pipe: 16 << 20,
    what: "as a Parquet folder's manifest",
};

/// Rows decoded at once: what is held of a shard beside the matrix being built.
const BATCH_ROWS: usize = 4096;

/// Bytes hashed at a time when a file is checked against its checksum.
const HASH_CHUNK: usize = 1 << 20;

/// The types each column is read as, and how a message names them.
const TEXT: &str = "utf8 (a string)";
const TERM_IDS: &str = "uint32, int32 or int64";
const TERM_ID_LIST: &str = "a list of uint32, int32 or int64";
const WEIGHT_LIST: &str = "a list of float or double";

/// Read the Parquet folder `folder` (see the module documentation of [`super`]).
pub fn read(folder: &Path) -> Result<ExchangedCollection, ParquetError> {
    let manifest_path = folder.join(MANIFEST);
    let manifest = read_manifest(&manifest_path)?;
    let vocabulary = checked_file(folder, &manifest.vocabulary)?;
    let (terms, words) = read_vocabulary(&vocabulary, &manifest)?;
    let mut shards = Vec::with_capacity(manifest.shards.len());
    let mut shard_bytes = 0u64;
    for shard in &manifest.shards {
        shards.push(checked_file(folder, shard)?);
        shard_bytes = shard_bytes.saturating_add(shard.bytes);
    }
    let entries = usize::try_from(manifest.non_zeros.min(shard_bytes)).unwrap_or(usize::MAX);
    let columns = usize::try_from(manifest.documents).map_err(|_| {
        ParquetError::invalid(&manifest_path, "more documents than this machine can index")
    })?;
    // The counts are only claimed until the rows are decoded (the manifest's, and the footers' the manifest
    // was checked against), so what is reserved is at most one entry, and one document, per byte of the shards:
    // pdx's own shards take over four bytes an entry and far more a document, and a collection that holds more
    // grows its arrays as it is read.
    let reserved_columns = columns.min(usize::try_from(shard_bytes).unwrap_or(usize::MAX));
    let mut matrix = Columns {
        rows: terms.len(),
        offsets: Vec::with_capacity(reserved_columns + 1),
        indices: Vec::with_capacity(entries),
        values: Vec::with_capacity(entries),
        documents: Vec::with_capacity(reserved_columns),
    };
    matrix.offsets.push(0);
    for path in &shards {
        append_shard(path, &mut matrix)?;
    }
    if matrix.indices.len() as u64 != manifest.non_zeros {
        return Err(ParquetError::invalid(
            &manifest_path,
            format!(
                "{} non-zeros, and the shards hold {}",
                manifest.non_zeros,
                matrix.indices.len()
            ),
        ));
    }
    let (matrix, documents) = matrix.into_matrix(folder)?;
    Ok(ExchangedCollection {
        matrix,
        terms,
        words,
        documents,
        notes: Vec::new(),
        node_of_tree: manifest.node.map(|node| node.resolved(folder)),
    })
}

/// Shard `index` of the Parquet folder `folder` alone: its documents as the columns of a matrix over the
/// folder's whole vocabulary (every term a row, as in [`read`]), so that a machine that holds one shard
/// computes its share of a product over the whole collection in the collection's term numbers. The manifest,
/// the vocabulary and the shard are checked as [`read`] checks them; the other shards are not read.
pub fn read_shard(folder: &Path, index: usize) -> Result<ExchangedCollection, ParquetError> {
    let manifest_path = folder.join(MANIFEST);
    let manifest = read_manifest(&manifest_path)?;
    let Some(listed) = manifest.shards.get(index) else {
        return Err(ParquetError::invalid(
            &manifest_path,
            format!(
                "no shard {index}: the folder has {} (numbered from 0)",
                manifest.shards.len()
            ),
        ));
    };
    let vocabulary = checked_file(folder, &manifest.vocabulary)?;
    let (terms, words) = read_vocabulary(&vocabulary, &manifest)?;
    let path = checked_file(folder, listed)?;
    // Reserved as `read` reserves: no more than one entry, and one document, per byte of the shard.
    let reserved = usize::try_from(listed.bytes.min(listed.rows)).unwrap_or(usize::MAX);
    let mut matrix = Columns {
        rows: terms.len(),
        offsets: Vec::with_capacity(reserved + 1),
        indices: Vec::new(),
        values: Vec::new(),
        documents: Vec::with_capacity(reserved),
    };
    matrix.offsets.push(0);
    append_shard(&path, &mut matrix)?;
    let (matrix, documents) = matrix.into_matrix(&path)?;
    Ok(ExchangedCollection {
        matrix,
        terms,
        words,
        documents,
        notes: Vec::new(),
        node_of_tree: manifest.node.map(|node| node.resolved(folder)),
    })
}

/// The manifest, its version checked before its fields (another version's fields may differ), its counts
/// checked against each other.
pub(super) fn read_manifest(path: &Path) -> Result<Manifest, ParquetError> {
    let text = input::read_text(path, MANIFEST_BOUND).map_err(|error| ParquetError::Input {
        path: path.to_path_buf(),
        error,
    })?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|error| ParquetError::invalid(path, format!("not JSON: {error}")))?;
    match value.get("format_version").map(serde_json::Value::as_u64) {
        Some(Some(version)) if version == u64::from(FORMAT_VERSION) => {}
        Some(Some(version)) => {
            return Err(ParquetError::invalid(
                path,
                format!(
                    "pdx exchange format version {version}; this pdx reads version {FORMAT_VERSION}"
                ),
            ));
        }
        _ => {
            return Err(ParquetError::invalid(
                path,
                "no format_version: not the manifest of a pdx Parquet folder",
            ));
        }
    }
    let manifest: Manifest = serde_json::from_value(value).map_err(|error| {
        ParquetError::invalid(path, format!("not a pdx Parquet manifest: {error}"))
    })?;
    if let Some(problem) = manifest.node.as_ref().and_then(super::NodeOfTree::problem) {
        return Err(ParquetError::invalid(path, problem));
    }
    let files = std::iter::once(&manifest.vocabulary).chain(&manifest.shards);
    let mut names = std::collections::HashSet::new();
    for file in files {
        let plain = Path::new(&file.name).file_name() == Some(file.name.as_ref())
            && !file.name.starts_with('.');
        if !plain {
            return Err(ParquetError::invalid(
                path,
                format!("{:?} is not the name of a file in the folder", file.name),
            ));
        }
        if !names.insert(file.name.as_str()) {
            return Err(ParquetError::invalid(
                path,
                format!("{:?} is listed twice", file.name),
            ));
        }
    }
    let shard_rows: u64 = manifest.shards.iter().map(|shard| shard.rows).sum();
    let mismatch = if shard_rows != manifest.documents {
        Some(format!(
            "{} documents, and its shards' rows add up to {shard_rows}",
            manifest.documents
        ))
    } else if manifest.vocabulary.rows != manifest.terms {
        Some(format!(
            "{} terms, and its vocabulary has {} rows",
            manifest.terms, manifest.vocabulary.rows
        ))
    } else if manifest.terms > 1 << 32 {
        Some(format!("{} terms: pdx's rows are 32-bit", manifest.terms))
    } else if manifest.non_zeros > manifest.terms.saturating_mul(manifest.documents) {
        Some(format!(
            "{} non-zeros cannot be in {} terms x {} documents",
            manifest.non_zeros, manifest.terms, manifest.documents
        ))
    } else {
        None
    };
    match mismatch {
        Some(message) => Err(ParquetError::invalid(path, message)),
        None => Ok(manifest),
    }
}

/// The path of `file` in `folder`, once its size and checksum are the manifest's and its row count (from its
/// own footer) too.
fn checked_file(folder: &Path, file: &ManifestFile) -> Result<PathBuf, ParquetError> {
    let path = folder.join(&file.name);
    let mut handle = input::open_regular(&path).map_err(|error| match error {
        InputError::Io(error) if error.kind() == std::io::ErrorKind::NotFound => {
            ParquetError::invalid(&path, format!("listed in {MANIFEST} and not found"))
        }
        error => ParquetError::Input {
            path: path.clone(),
            error,
        },
    })?;
    let size = handle.metadata().map_err(ParquetError::io(&path))?.len();
    if size != file.bytes {
        return Err(ParquetError::invalid(
            &path,
            format!(
                "changed since it was written: {size} bytes, and {MANIFEST} says {}",
                file.bytes
            ),
        ));
    }
    let mut hasher = Xxh3::new();
    let mut chunk = vec![0u8; HASH_CHUNK];
    loop {
        let read = handle.read(&mut chunk).map_err(ParquetError::io(&path))?;
        if read == 0 {
            break;
        }
        hasher.update(&chunk[..read]);
    }
    let checksum = checksum_text(hasher.digest());
    if !checksum.eq_ignore_ascii_case(&file.xxh3_64) {
        return Err(ParquetError::invalid(
            &path,
            format!(
                "changed since it was written: its xxh3-64 is {checksum}, and {MANIFEST} says {}",
                file.xxh3_64
            ),
        ));
    }
    let rows = open(&path)?.metadata().file_metadata().num_rows();
    if u64::try_from(rows).ok() != Some(file.rows) {
        return Err(ParquetError::invalid(
            &path,
            format!("{rows} rows, and {MANIFEST} says {}", file.rows),
        ));
    }
    Ok(path)
}

/// A reader of the Parquet file at `path`, its footer read.
fn open(path: &Path) -> Result<ParquetRecordBatchReaderBuilder<File>, ParquetError> {
    let file = input::open_regular(path).map_err(|error| ParquetError::Input {
        path: path.to_path_buf(),
        error,
    })?;
    let options = ArrowReaderOptions::new().with_skip_arrow_metadata(true);
    ParquetRecordBatchReaderBuilder::try_new_with_options(file, options)
        .map_err(ParquetError::parquet(path))
}

/// The index of column `name` in `schema` when its type is one `accepts` takes; `None` when there is none.
fn optional_column(
    path: &Path,
    schema: &Schema,
    name: &str,
    accepts: fn(&DataType) -> bool,
    expected: &str,
) -> Result<Option<usize>, ParquetError> {
    let Ok(index) = schema.index_of(name) else {
        return Ok(None);
    };
    let found = schema.field(index).data_type();
    match accepts(found) {
        true => Ok(Some(index)),
        false => Err(ParquetError::invalid(
            path,
            format!("column {name:?} is {found}; pdx reads {expected}"),
        )),
    }
}

/// [`optional_column`], refusing a file without it.
fn required_column(
    path: &Path,
    schema: &Schema,
    name: &str,
    accepts: fn(&DataType) -> bool,
    expected: &str,
) -> Result<usize, ParquetError> {
    optional_column(path, schema, name, accepts, expected)?
        .ok_or_else(|| ParquetError::invalid(path, format!("no column {name:?}")))
}

fn is_text(data_type: &DataType) -> bool {
    *data_type == DataType::Utf8
}

fn is_term_id(data_type: &DataType) -> bool {
    matches!(
        data_type,
        DataType::UInt32 | DataType::Int32 | DataType::Int64
    )
}

fn is_weight(data_type: &DataType) -> bool {
    matches!(data_type, DataType::Float32 | DataType::Float64)
}

fn is_list_of_term_ids(data_type: &DataType) -> bool {
    matches!(data_type, DataType::List(field) if is_term_id(field.data_type()))
}

fn is_list_of_weights(data_type: &DataType) -> bool {
    matches!(data_type, DataType::List(field) if is_weight(field.data_type()))
}

/// The decoded batches of the file at `path`, with `take` given each one and the number of the file's rows
/// before it.
fn each_batch(
    path: &Path,
    builder: ParquetRecordBatchReaderBuilder<File>,
    mut take: impl FnMut(&RecordBatch, u64) -> Result<(), ParquetError>,
) -> Result<(), ParquetError> {
    let reader = builder
        .with_batch_size(BATCH_ROWS)
        .build()
        .map_err(ParquetError::parquet(path))?;
    let mut before = 0u64;
    for batch in reader {
        let batch = batch.map_err(|error| {
            ParquetError::invalid(path, format!("not a Parquet file pdx can read: {error}"))
        })?;
        take(&batch, before)?;
        before += batch.num_rows() as u64;
    }
    Ok(())
}

/// A term id of a batch's column of term ids, whichever integer type it has.
fn term_id(values: &dyn Array, at: usize) -> i64 {
    match values.data_type() {
        DataType::UInt32 => i64::from(values.as_primitive::<UInt32Type>().value(at)),
        DataType::Int32 => i64::from(values.as_primitive::<Int32Type>().value(at)),
        _ => values.as_primitive::<Int64Type>().value(at),
    }
}

/// The vocabulary's stems (the terms) and words, by term id.
fn read_vocabulary(
    path: &Path,
    manifest: &Manifest,
) -> Result<(Vec<String>, Vec<String>), ParquetError> {
    let builder = open(path)?;
    let schema = builder.schema().clone();
    let term = required_column(path, &schema, "term", is_term_id, TERM_IDS)?;
    let word = required_column(path, &schema, "word", is_text, TEXT)?;
    let stem = required_column(path, &schema, "stem", is_text, TEXT)?;
    let count = manifest.terms;
    // Held as read, not reserved from the counts: the footer's row count is only claimed until the rows are
    // decoded. Each id with its row, for a message.
    let (mut ids_read, mut stems, mut words) = (Vec::new(), Vec::new(), Vec::new());
    each_batch(path, builder, |batch, before| {
        let ids = batch.column(term);
        let word_column = batch.column(word).as_string::<i32>();
        let stem_column = batch.column(stem).as_string::<i32>();
        for at in 0..batch.num_rows() {
            let row = before + at as u64 + 1;
            let refuse = |message: String| ParquetError::Row {
                path: path.to_path_buf(),
                row,
                message,
            };
            if ids.is_null(at) || stem_column.is_null(at) {
                return Err(refuse("a term without an id or a stem".into()));
            }
            let id = term_id(ids, at);
            // Below the count, which is at most 2^32 (checked with the manifest): a u32.
            let Some(id) = u64::try_from(id)
                .ok()
                .filter(|&id| id < count)
                .and_then(|id| u32::try_from(id).ok())
            else {
                return Err(refuse(format!(
                    "term id {id} is not below the manifest's {count} terms"
                )));
            };
            let stem = stem_column.value(at);
            if stem.is_empty() {
                return Err(refuse("an empty stem".into()));
            }
            // A missing word is the stem, as a term with no word of its own is shown.
            let word = match word_column.is_null(at) || word_column.value(at).is_empty() {
                true => stem,
                false => word_column.value(at),
            };
            ids_read.push((id, row));
            stems.push(stem.to_string());
            words.push(word.to_string());
        }
        Ok(())
    })?;
    if ids_read.len() as u64 != count {
        return Err(ParquetError::invalid(
            path,
            format!("{} rows, and {MANIFEST} says {count}", ids_read.len()),
        ));
    }
    // pdx writes the ids in order; another tool may not.
    if ids_read
        .iter()
        .enumerate()
        .all(|(at, &(id, _))| id as usize == at)
    {
        return Ok((stems, words));
    }
    let mut order: Vec<(u32, u64, usize)> = ids_read
        .into_iter()
        .enumerate()
        .map(|(at, (id, row))| (id, row, at))
        .collect();
    order.sort_unstable();
    if let Some(pair) = order.windows(2).find(|pair| pair[0].0 == pair[1].0) {
        return Err(ParquetError::Row {
            path: path.to_path_buf(),
            row: pair[1].1,
            message: format!("term id {} is listed twice", pair[1].0),
        });
    }
    // As many ids as terms, each below the count and none twice: each of 0..count once.
    let take = |strings: &mut Vec<String>| -> Vec<String> {
        order
            .iter()
            .map(|&(_, _, at)| std::mem::take(&mut strings[at]))
            .collect()
    };
    Ok((take(&mut stems), take(&mut words)))
}

/// The matrix as it is built: compressed columns, and a document per column.
struct Columns {
    rows: usize,
    offsets: Vec<u64>,
    indices: Vec<u32>,
    values: Vec<f32>,
    documents: Vec<ExchangedDocument>,
}

impl Columns {
    /// The columns read, as pdx's matrix (checked; a refusal names `path`), and their documents.
    fn into_matrix(
        self,
        path: &Path,
    ) -> Result<(SparseMatrix, Vec<ExchangedDocument>), ParquetError> {
        let Columns {
            rows,
            offsets,
            indices,
            values,
            documents,
        } = self;
        let matrix = SparseMatrix::from_csc_parts(rows, documents.len(), offsets, indices, values)
            .map_err(|error| ParquetError::Matrix {
                path: path.to_path_buf(),
                error,
            })?;
        Ok((matrix, documents))
    }
}

/// A shard's columns in a batch, by index.
struct ShardLayout {
    id: usize,
    label: Option<usize>,
    title: Option<usize>,
    source: Option<usize>,
    terms: usize,
    weights: usize,
}

/// Append the documents of the shard at `path` to `matrix`, each row checked.
fn append_shard(path: &Path, matrix: &mut Columns) -> Result<(), ParquetError> {
    let builder = open(path)?;
    let schema = builder.schema().clone();
    let text = |name| optional_column(path, &schema, name, is_text, TEXT);
    let layout = ShardLayout {
        id: required_column(path, &schema, "id", is_text, TEXT)?,
        label: text("label")?,
        title: text("title")?,
        source: text("source")?,
        terms: required_column(path, &schema, "terms", is_list_of_term_ids, TERM_ID_LIST)?,
        weights: required_column(path, &schema, "weights", is_list_of_weights, WEIGHT_LIST)?,
    };
    each_batch(path, builder, |batch, before| {
        read_rows(path, batch, before, &layout, matrix)
    })
}

/// The documents of one batch appended to `matrix`.
fn read_rows(
    path: &Path,
    batch: &RecordBatch,
    before: u64,
    layout: &ShardLayout,
    matrix: &mut Columns,
) -> Result<(), ParquetError> {
    let text = |index: Option<usize>| index.map(|index| batch.column(index).as_string::<i32>());
    let ids: &StringArray = batch.column(layout.id).as_string::<i32>();
    let [labels, titles, sources] = [layout.label, layout.title, layout.source].map(text);
    let terms: &ListArray = batch.column(layout.terms).as_list::<i32>();
    let weights: &ListArray = batch.column(layout.weights).as_list::<i32>();
    let (term_values, weight_values) = (terms.values(), weights.values());
    let rows = matrix.rows as i64;
    for at in 0..batch.num_rows() {
        let refuse = |message: String| ParquetError::Row {
            path: path.to_path_buf(),
            row: before + at as u64 + 1,
            message,
        };
        if ids.is_null(at) || ids.value(at).is_empty() {
            return Err(refuse("a document without an id".into()));
        }
        if terms.is_null(at) || weights.is_null(at) {
            return Err(refuse("no terms or no weights (null)".into()));
        }
        let term_range = terms.value_offsets()[at] as usize..terms.value_offsets()[at + 1] as usize;
        let weight_range =
            weights.value_offsets()[at] as usize..weights.value_offsets()[at + 1] as usize;
        if term_range.len() != weight_range.len() {
            return Err(refuse(format!(
                "{} terms and {} weights",
                term_range.len(),
                weight_range.len()
            )));
        }
        let mut previous: Option<i64> = None;
        for (term_at, weight_at) in term_range.zip(weight_range) {
            if term_values.is_null(term_at) || weight_values.is_null(weight_at) {
                return Err(refuse("a null term id or weight".into()));
            }
            let term = term_id(term_values, term_at);
            if !(0..rows).contains(&term) {
                return Err(refuse(format!(
                    "term id {term} is not in the vocabulary, whose {rows} terms are numbered from 0"
                )));
            }
            if let Some(previous) = previous.filter(|&previous| term <= previous) {
                let what = match term == previous {
                    true => format!("term id {term} is repeated"),
                    false => format!("term ids are not ascending ({term} after {previous})"),
                };
                return Err(refuse(what));
            }
            previous = Some(term);
            // A double is rounded to the single precision pdx's matrix holds; pdx's own weights are floats.
            let weight = match weight_values.data_type() {
                DataType::Float32 => weight_values.as_primitive::<Float32Type>().value(weight_at),
                _ => weight_values.as_primitive::<Float64Type>().value(weight_at) as f32,
            };
            if !weight.is_finite() {
                return Err(refuse(format!(
                    "the weight of term {term} is {weight}, not a finite number"
                )));
            }
            // Checked to be in 0..rows, which is at most 2^32.
            matrix.indices.push(term as u32);
            matrix.values.push(weight);
        }
        matrix.offsets.push(matrix.indices.len() as u64);
        let field = |column: Option<&StringArray>| {
            column
                .filter(|column| !column.is_null(at) && !column.value(at).is_empty())
                .map(|column| column.value(at).to_string())
        };
        matrix.documents.push(ExchangedDocument {
            id: ids.value(at).to_string(),
            label: field(labels),
            title: field(titles),
            source: field(sources).map(PathBuf::from),
        });
    }
    Ok(())
}
