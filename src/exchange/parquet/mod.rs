//! Parquet shards: the weighted matrix as a folder a cluster's engines (Spark, Ray, DuckDB) and one machine's
//! data frames (pandas, polars through pyarrow) read, and pdx reads back.
//!
//! The folder holds `docs-00000.parquet`, `docs-00001.parquet`, ... (one row per document, a fixed number of
//! documents per shard, in column order: `id`, `label`, `title`, `source`, and the document's column of the
//! matrix as `terms` (ascending row numbers) with their `weights`), `vocabulary.parquet` (one row per term:
//! `term`, the number the shards use, `word`, `stem`, `df` and `global_weight`) and `manifest.json` (the format's
//! version, pdx's, the settings the weights were made with, the counts, and each file's rows, size and xxh3-64).
//! Shards are documents, not terms, so that an engine splits the work by document as a tree splits documents.
//!
//! The folder is written whole under a temporary name beside it and renamed into place: its name never holds
//! a part. The reader takes the manifest as untrusted (read within a size bound, its counts checked against the
//! files' own before anything is reserved, every file checked against its size and checksum) and builds the
//! matrix straight from the rows, one record batch at a time, without tokenising or weighting anything.

mod node;
mod node_folder;
mod read;
mod write;

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::input::InputError;
use crate::matrix::SparseError;

pub use node::NodeOfTree;
pub use node_folder::{write_columns_of, write_node_manifest};
pub use read::{read, read_shard};
pub use write::{
    VocabularyRows, abandon_folder, finish_folder, row_document_frequencies, start_folder, write,
    write_manifest, write_shard, write_vocabulary,
};

/// The version of the folder's layout this pdx writes and reads. A reader refuses any other: a field added
/// or changed in meaning is a new version.
pub const FORMAT_VERSION: u32 = 1;

/// The documents per shard when none is asked for.
pub const DEFAULT_SHARD_DOCUMENTS: usize = 100_000;

/// The manifest's name in the folder; a folder holding it is read as Parquet shards.
pub const MANIFEST: &str = "manifest.json";

/// The vocabulary's name in the folder.
pub const VOCABULARY: &str = "vocabulary.parquet";

/// Why a Parquet folder cannot be written or read. Every message starts with the file it is about.
#[derive(Debug, thiserror::Error)]
pub enum ParquetError {
    #[error("{}: exists; pdx does not replace it (remove it, or give another name)", .0.display())]
    Exists(PathBuf),
    #[error("{}: {error}", path.display())]
    Io { path: PathBuf, error: io::Error },
    #[error("{}: {error}", path.display())]
    Input { path: PathBuf, error: InputError },
    #[error("{}: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
    #[error("{}: row {row}: {message}", path.display())]
    Row {
        path: PathBuf,
        /// Counted from 1, as lines are.
        row: u64,
        message: String,
    },
    #[error("{}: not a Parquet file pdx can read: {error}", path.display())]
    Parquet {
        path: PathBuf,
        error: ::parquet::errors::ParquetError,
    },
    #[error("{}: {error}", path.display())]
    Matrix { path: PathBuf, error: SparseError },
}

impl ParquetError {
    fn invalid(path: &Path, message: impl Into<String>) -> ParquetError {
        ParquetError::Invalid {
            path: path.to_path_buf(),
            message: message.into(),
        }
    }

    fn io(path: &Path) -> impl FnOnce(io::Error) -> ParquetError + '_ {
        move |error| ParquetError::Io {
            path: path.to_path_buf(),
            error,
        }
    }

    fn parquet(path: &Path) -> impl FnOnce(::parquet::errors::ParquetError) -> ParquetError + '_ {
        move |error| ParquetError::Parquet {
            path: path.to_path_buf(),
            error,
        }
    }
}

/// `manifest.json`: what the folder holds and how to tell that it is whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// [`FORMAT_VERSION`] of the pdx that wrote it.
    pub format_version: u32,
    /// The version of that pdx.
    pub pdx_version: String,
    /// What made the weights (the text and weighting options), as the writer's collection gave them.
    pub settings: serde_json::Value,
    pub documents: u64,
    pub terms: u64,
    pub non_zeros: u64,
    pub vocabulary: ManifestFile,
    /// In column order: the first shard's documents are the first columns.
    pub shards: Vec<ManifestFile>,
    /// Set when the folder is a node of a tree grown elsewhere (a leaf of the top tree a cluster grew); absent
    /// otherwise, so that a folder without it reads and writes as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<NodeOfTree>,
}

/// One file of the folder, as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestFile {
    /// Its name in the folder (no folder of its own).
    pub name: String,
    pub rows: u64,
    pub bytes: u64,
    /// The xxh3-64 of its bytes, 16 hexadecimal digits (a string: many JSON readers hold numbers as doubles,
    /// which cannot hold 64 bits).
    pub xxh3_64: String,
}

/// The name of shard `index`.
pub fn shard_name(index: usize) -> String {
    format!("docs-{index:05}.parquet")
}

/// A checksum as the manifest writes it.
fn checksum_text(checksum: u64) -> String {
    format!("{checksum:016x}")
}

/// Whether `path` is a Parquet folder, as a corpus format: a folder holding [`MANIFEST`] and the vocabulary or the
/// first shard. A folder of texts that happens to hold a `manifest.json` of its own stays a folder of texts; one
/// that lost a file is still taken for what it was, and refused naming what it lacks.
pub fn is_parquet_folder(path: &Path) -> bool {
    let holds = |name: &str| path.join(name).symlink_metadata().is_ok();
    path.is_dir() && holds(MANIFEST) && (holds(VOCABULARY) || holds(&shard_name(0)))
}

#[cfg(test)]
mod tests;
