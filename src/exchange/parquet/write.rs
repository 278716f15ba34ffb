//! Writing a collection as a Parquet folder: the shards, the vocabulary, the manifest, in a temporary folder
//! moved into place when all are written.

use std::fs::File;
use std::io::{self, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::builder::{
    Float32Builder, Float64Builder, ListBuilder, StringBuilder, UInt32Builder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use xxhash_rust::xxh3::Xxh3;

use super::{
    FORMAT_VERSION, MANIFEST, Manifest, ManifestFile, ParquetError, VOCABULARY, checksum_text,
    shard_name,
};
use crate::exchange::{CollectionView, ExchangedDocument};
use crate::files;
use crate::matrix::SparseMatrix;

/// Documents per record batch and per row group: the arrays built at once, and what the writer holds encoded
/// before it goes to the file, whatever the shard's size; a reader too decodes a row group at a time.
const BATCH_DOCUMENTS: usize = 8192;

/// Write `collection` as the folder `folder`, `shard_documents` documents per shard (at least one). `folder`
/// must not exist; it is written whole or not at all. Returns the manifest written.
pub fn write(
    folder: &Path,
    collection: &CollectionView,
    shard_documents: usize,
) -> Result<Manifest, ParquetError> {
    collection.assert_shape();
    assert!(shard_documents > 0, "a shard holds at least one document");
    let temporary = start_folder(folder)?;
    let written = write_files(&temporary, folder, collection, shard_documents)
        .and_then(|manifest| finish_folder(&temporary, folder).map(|()| manifest));
    if written.is_err() {
        abandon_folder(&temporary);
    }
    written
}

/// Begin writing the folder `folder`, which must not exist: the temporary folder beside it that its files are
/// written into ([`write_shard`], [`write_vocabulary`], [`write_manifest`]) before [`finish_folder`] moves it
/// into place, or [`abandon_folder`] removes it.
pub fn start_folder(folder: &Path) -> Result<PathBuf, ParquetError> {
    if folder.symlink_metadata().is_ok() {
        return Err(ParquetError::Exists(folder.to_path_buf()));
    }
    files::create_temporary_folder(folder).map_err(ParquetError::io(folder))
}

/// Move the temporary folder `temporary`, its files all written, into place as `folder`.
pub fn finish_folder(temporary: &Path, folder: &Path) -> Result<(), ParquetError> {
    match files::move_folder_into_place_unless_taken(temporary, folder) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
            Err(ParquetError::Exists(folder.to_path_buf()))
        }
        Err(error) => Err(ParquetError::io(folder)(error)),
    }
}

/// Remove a temporary folder and whatever was written into it: nothing half-written stays, under the folder's
/// name or beside it.
pub fn abandon_folder(temporary: &Path) {
    let _ = std::fs::remove_dir_all(temporary);
}

/// Every file into `temporary`; errors name the file as it will be called in `folder`.
fn write_files(
    temporary: &Path,
    folder: &Path,
    collection: &CollectionView,
    shard_documents: usize,
) -> Result<Manifest, ParquetError> {
    let documents = collection.documents.len();
    let mut shards = Vec::with_capacity(documents.div_ceil(shard_documents));
    for (index, first) in (0..documents).step_by(shard_documents).enumerate() {
        let columns = first..(first + shard_documents).min(documents);
        shards.push(write_columns(
            temporary,
            folder,
            index,
            collection.matrix,
            &collection.documents,
            columns,
        )?);
    }
    let vocabulary = write_vocabulary(
        temporary,
        folder,
        &VocabularyRows {
            terms: collection.terms,
            words: collection.words,
            df: &row_document_frequencies(collection.matrix),
            global_weights: collection.global_weights.as_deref(),
        },
    )?;
    let manifest = Manifest {
        format_version: FORMAT_VERSION,
        // A node's place in a tree is the grower's to record, beside that tree: not carried to another folder.
        node: None,
        pdx_version: env!("CARGO_PKG_VERSION").to_string(),
        settings: collection.settings.clone(),
        documents: documents as u64,
        terms: collection.terms.len() as u64,
        non_zeros: collection.matrix.nnz() as u64,
        vocabulary,
        shards,
    };
    write_manifest(temporary, folder, &manifest)?;
    Ok(manifest)
}

/// Write `manifest` as the manifest of the folder being written into `temporary`.
pub fn write_manifest(
    temporary: &Path,
    folder: &Path,
    manifest: &Manifest,
) -> Result<(), ParquetError> {
    let mut text = serde_json::to_string_pretty(manifest)
        .map_err(|error| ParquetError::invalid(&folder.join(MANIFEST), error.to_string()))?;
    text.push('\n');
    let path = temporary.join(MANIFEST);
    let shown = folder.join(MANIFEST);
    let mut file = File::create_new(&path).map_err(ParquetError::io(&shown))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(ParquetError::io(&shown))
}

/// The documents holding each row of `matrix`: its stored entries per row (a weight that is zero is not stored).
pub fn row_document_frequencies(matrix: &SparseMatrix) -> Vec<u32> {
    let mut df = vec![0u32; matrix.rows()];
    for &row in matrix.indices() {
        df[row as usize] += 1;
    }
    df
}

/// Write shard `index` of the folder being written into `temporary`: every column of `matrix`, with
/// `documents` (one per column).
pub fn write_shard(
    temporary: &Path,
    folder: &Path,
    index: usize,
    matrix: &SparseMatrix,
    documents: &[ExchangedDocument],
) -> Result<ManifestFile, ParquetError> {
    assert_eq!(documents.len(), matrix.cols(), "a document per column");
    write_columns(
        temporary,
        folder,
        index,
        matrix,
        documents,
        0..matrix.cols(),
    )
}

/// Shard `index` as the documents `columns` of `matrix`.
fn write_columns(
    temporary: &Path,
    folder: &Path,
    index: usize,
    matrix: &SparseMatrix,
    documents: &[ExchangedDocument],
    columns: Range<usize>,
) -> Result<ManifestFile, ParquetError> {
    let schema = shard_schema();
    write_parquet(temporary, folder, &shard_name(index), &schema, |writer| {
        for start in columns.clone().step_by(BATCH_DOCUMENTS) {
            let end = (start + BATCH_DOCUMENTS).min(columns.end);
            writer.write(&shard_batch(matrix, documents, start..end, &schema)?)?;
        }
        Ok(columns.len() as u64)
    })
}

/// The vocabulary's rows: each term (row of the matrix), its word, the documents holding it and its global weight.
#[derive(Debug, Clone, Copy)]
pub struct VocabularyRows<'a> {
    pub terms: &'a [String],
    /// As many as the terms.
    pub words: &'a [String],
    /// As many as the terms ([`row_document_frequencies`]).
    pub df: &'a [u32],
    /// As many as the terms, when known.
    pub global_weights: Option<&'a [f64]>,
}

/// Write the vocabulary of the folder being written into `temporary`.
pub fn write_vocabulary(
    temporary: &Path,
    folder: &Path,
    rows: &VocabularyRows,
) -> Result<ManifestFile, ParquetError> {
    assert_eq!(rows.words.len(), rows.terms.len(), "a word per term");
    assert_eq!(rows.df.len(), rows.terms.len(), "a df per term");
    let schema = vocabulary_schema();
    write_parquet(temporary, folder, VOCABULARY, &schema, |writer| {
        writer.write(&vocabulary_batch(rows, &schema)?)?;
        Ok(rows.terms.len() as u64)
    })
}

/// A writer that passes everything through and keeps the xxh3-64 and the count of what passed: a file's
/// checksum without reading it again.
struct Hashing<W> {
    inner: W,
    hasher: Xxh3,
    bytes: u64,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let written = self.inner.write(bytes)?;
        self.hasher.update(&bytes[..written]);
        self.bytes += written as u64;
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Write the Parquet file `name` in `temporary` with `schema`, its batches written by `fill` (which returns the
/// rows it wrote), and flush it to the disk.
fn write_parquet(
    temporary: &Path,
    folder: &Path,
    name: &str,
    schema: &SchemaRef,
    fill: impl FnOnce(&mut ArrowWriter<Hashing<File>>) -> Result<u64, parquet::errors::ParquetError>,
) -> Result<ManifestFile, ParquetError> {
    let shown = folder.join(name);
    let file = File::create_new(temporary.join(name)).map_err(ParquetError::io(&shown))?;
    let hashing = Hashing {
        inner: file,
        hasher: Xxh3::new(),
        bytes: 0,
    };
    // Snappy: what Spark writes by default and every Parquet reader reads, fast to decode, and it halves the
    // shards (the term ids and weights of a row compress little; the strings do).
    let properties = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_created_by(format!("pdx {}", env!("CARGO_PKG_VERSION")))
        .set_max_row_group_row_count(Some(BATCH_DOCUMENTS))
        .build();
    let mut writer = ArrowWriter::try_new(hashing, Arc::clone(schema), Some(properties))
        .map_err(ParquetError::parquet(&shown))?;
    let rows = fill(&mut writer).map_err(ParquetError::parquet(&shown))?;
    let hashing = writer.into_inner().map_err(ParquetError::parquet(&shown))?;
    hashing.inner.sync_all().map_err(ParquetError::io(&shown))?;
    Ok(ManifestFile {
        name: name.to_string(),
        rows,
        bytes: hashing.bytes,
        xxh3_64: checksum_text(hashing.hasher.digest()),
    })
}

/// A list column's items: never null.
fn item(data_type: DataType) -> Arc<Field> {
    Arc::new(Field::new_list_field(data_type, false))
}

fn shard_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Utf8, false),
        Field::new("label", DataType::Utf8, true),
        Field::new("title", DataType::Utf8, true),
        Field::new("source", DataType::Utf8, true),
        Field::new("terms", DataType::List(item(DataType::UInt32)), false),
        Field::new("weights", DataType::List(item(DataType::Float32)), false),
    ]))
}

fn vocabulary_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("term", DataType::UInt32, false),
        Field::new("word", DataType::Utf8, false),
        Field::new("stem", DataType::Utf8, false),
        Field::new("df", DataType::UInt32, false),
        Field::new("global_weight", DataType::Float64, true),
    ]))
}

/// The documents `columns` of `matrix` as one batch.
fn shard_batch(
    matrix: &SparseMatrix,
    documents: &[ExchangedDocument],
    columns: std::ops::Range<usize>,
    schema: &SchemaRef,
) -> Result<RecordBatch, parquet::errors::ParquetError> {
    let documents: &[ExchangedDocument] = &documents[columns.clone()];
    let strings = |field: fn(&ExchangedDocument) -> Option<&str>| {
        let mut builder = StringBuilder::new();
        documents
            .iter()
            .for_each(|document| builder.append_option(field(document)));
        Arc::new(builder.finish()) as ArrayRef
    };
    let ids = strings(|document| Some(&document.id));
    let labels = strings(|document| document.label.as_deref());
    let titles = strings(|document| document.title.as_deref());
    // A source that is not UTF-8 is written as lossily as a terminal shows it: the column is text.
    let sources = {
        let mut builder = StringBuilder::new();
        for document in documents {
            builder.append_option(
                document
                    .source
                    .as_deref()
                    .map(|path| path.to_string_lossy()),
            );
        }
        Arc::new(builder.finish()) as ArrayRef
    };
    let entries = {
        let range =
            matrix.offsets()[columns.start] as usize..matrix.offsets()[columns.end] as usize;
        range.len()
    };
    let mut terms =
        ListBuilder::with_capacity(UInt32Builder::with_capacity(entries), documents.len())
            .with_field(item(DataType::UInt32));
    let mut weights =
        ListBuilder::with_capacity(Float32Builder::with_capacity(entries), documents.len())
            .with_field(item(DataType::Float32));
    for column in columns {
        let (rows, values) = matrix.column(column);
        terms.values().append_slice(rows);
        terms.append(true);
        weights.values().append_slice(values);
        weights.append(true);
    }
    let arrays: Vec<ArrayRef> = vec![
        ids,
        labels,
        titles,
        sources,
        Arc::new(terms.finish()),
        Arc::new(weights.finish()),
    ];
    Ok(RecordBatch::try_new(Arc::clone(schema), arrays)?)
}

/// The vocabulary as one batch: a few strings and numbers per term, small beside the shards.
fn vocabulary_batch(
    vocabulary: &VocabularyRows,
    schema: &SchemaRef,
) -> Result<RecordBatch, parquet::errors::ParquetError> {
    let rows = vocabulary.terms.len();
    let mut term = UInt32Builder::with_capacity(rows);
    let mut word = StringBuilder::new();
    let mut stem = StringBuilder::new();
    for row in 0..rows {
        // The matrix has at most 2^32 rows (its row indices are 32-bit), so every row number fits.
        term.append_value(row as u32);
        word.append_value(&vocabulary.words[row]);
        stem.append_value(&vocabulary.terms[row]);
    }
    let mut global = Float64Builder::with_capacity(rows);
    match vocabulary.global_weights {
        Some(weights) => global.append_slice(weights),
        None => global.append_nulls(rows),
    }
    let arrays: Vec<ArrayRef> = vec![
        Arc::new(term.finish()),
        Arc::new(word.finish()),
        Arc::new(stem.finish()),
        Arc::new(arrow_array::UInt32Array::from(vocabulary.df.to_vec())),
        Arc::new(global.finish()),
    ];
    Ok(RecordBatch::try_new(Arc::clone(schema), arrays)?)
}
