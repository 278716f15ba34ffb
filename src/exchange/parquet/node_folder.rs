//! A node of a tree grown elsewhere (the distributed driver's top tree) written as a Parquet folder of its own,
//! which pdx opens as any collection: the node's members' columns from each shard of the whole collection that
//! holds some ([`write_columns_of`]), then the whole collection's vocabulary and a manifest naming the node
//! ([`write_node_manifest`]). The weights are the whole collection's, never made again on the node.

use std::path::Path;

use super::read::read_manifest;
use super::{
    FORMAT_VERSION, MANIFEST, Manifest, ManifestFile, NodeOfTree, ParquetError, VOCABULARY,
    write_manifest, write_shard,
};
use crate::exchange::ExchangedDocument;
use crate::matrix::SparseMatrix;

/// Shard `index` of the node's folder being written into `temporary` (`folder` is its name once written, for
/// messages): the `columns` of `matrix`, in the given order, with their documents. Returns the file's manifest
/// entry and its stored entries.
///
/// # Panics
/// If `documents` does not have one document per column of `matrix`, or a column is outside it.
pub fn write_columns_of(
    temporary: &Path,
    folder: &Path,
    index: usize,
    matrix: &SparseMatrix,
    documents: &[ExchangedDocument],
    columns: &[usize],
) -> Result<(ManifestFile, u64), ParquetError> {
    assert_eq!(documents.len(), matrix.cols(), "a document per column");
    let part = matrix.select_columns(columns);
    let non_zeros = part.nnz() as u64;
    let chosen: Vec<ExchangedDocument> = columns.iter().map(|&j| documents[j].clone()).collect();
    let file = write_shard(temporary, folder, index, &part, &chosen)?;
    Ok((file, non_zeros))
}

/// Finish the node's folder being written into `temporary`: the vocabulary of the whole collection's folder
/// `source` (the file copied as it is, so its manifest entry stays true) and a manifest with `source`'s settings,
/// the node's `shards` in order, its `non_zeros`, and `node`.
pub fn write_node_manifest(
    temporary: &Path,
    folder: &Path,
    source: &Path,
    shards: Vec<ManifestFile>,
    non_zeros: u64,
    node: NodeOfTree,
) -> Result<Manifest, ParquetError> {
    let whole = read_manifest(&source.join(MANIFEST))?;
    if let Some(problem) = node.problem() {
        return Err(ParquetError::invalid(&folder.join(MANIFEST), problem));
    }
    std::fs::copy(source.join(VOCABULARY), temporary.join(VOCABULARY))
        .map_err(ParquetError::io(&folder.join(VOCABULARY)))?;
    let manifest = Manifest {
        format_version: FORMAT_VERSION,
        node: Some(node),
        pdx_version: env!("CARGO_PKG_VERSION").to_string(),
        settings: whole.settings,
        documents: shards.iter().map(|shard| shard.rows).sum(),
        terms: whole.terms,
        non_zeros,
        vocabulary: whole.vocabulary,
        shards,
    };
    write_manifest(temporary, folder, &manifest)?;
    Ok(manifest)
}
