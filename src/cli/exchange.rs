//! `pdx stats`'s matrix outputs: the weighted matrix in the formats other tools read ([`pdx::exchange`]).

use std::path::{Path, PathBuf};

use anyhow::Context;
use pdx::dataset::Dataset;
use pdx::exchange::{market, parquet};

use super::outputs::{Outputs, check_outputs};

/// Where to write the matrix, in each format asked for.
#[derive(clap::Args, Debug)]
pub(crate) struct MatrixOutputs {
    /// Write the weighted matrix (terms x documents) as Matrix Market to FILE.mtx, with FILE.terms.txt (a word
    /// per row) and FILE.docs.tsv (id, label, title, source per column) beside it: for scipy, MATLAB and TMG.
    /// None of the three may exist
    #[arg(long, value_name = "FILE.mtx", help_heading = "Output")]
    write_matrix: Option<PathBuf>,
    /// Write the weighted matrix as Parquet shards into the new folder DIR: docs-00000.parquet, ... (a row per
    /// document: id, label, title, source, terms, weights), vocabulary.parquet and manifest.json, for Spark,
    /// Ray, DuckDB or pandas. DIR must not exist; it is written whole or not at all
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    write_parquet: Option<PathBuf>,
    /// Documents per Parquet shard
    #[arg(
        long,
        value_name = "N",
        default_value_t = parquet::DEFAULT_SHARD_DOCUMENTS as u64,
        value_parser = clap::value_parser!(u64).range(1..),
        requires = "write_parquet",
        help_heading = "Output"
    )]
    parquet_shard_docs: u64,
}

impl Default for MatrixOutputs {
    fn default() -> MatrixOutputs {
        MatrixOutputs {
            write_matrix: None,
            write_parquet: None,
            parquet_shard_docs: parquet::DEFAULT_SHARD_DOCUMENTS as u64,
        }
    }
}

impl MatrixOutputs {
    /// Refuse, before any work, outputs that cannot be written or would replace something.
    pub(crate) fn check(&self, inputs: &[PathBuf]) -> anyhow::Result<()> {
        let mut others: Vec<(&str, PathBuf)> = Vec::new();
        if let Some(matrix) = &self.write_matrix {
            let files = market::files_of(matrix)?;
            if let Some(taken) = files.iter().find(|file| file.symlink_metadata().is_ok()) {
                return Err(market::MarketError::Exists(taken.clone()).into());
            }
            others.extend(files.into_iter().map(|file| ("--write-matrix", file)));
        }
        if let Some(folder) = &self.write_parquet {
            if folder.symlink_metadata().is_ok() {
                return Err(parquet::ParquetError::Exists(folder.clone()).into());
            }
            others.push(("--write-parquet", folder.clone()));
        }
        let others: Vec<(&str, &Path)> = others
            .iter()
            .map(|(flag, path)| (*flag, path.as_path()))
            .collect();
        let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
        check_outputs(&Outputs::default(), &others, &inputs)?;
        Ok(())
    }

    /// Write the outputs asked for from `dataset`.
    pub(crate) fn write(&self, dataset: &Dataset) -> anyhow::Result<()> {
        let asked = [
            ("--write-matrix", &self.write_matrix),
            ("--write-parquet", &self.write_parquet),
        ];
        let Some((flag, path)) = asked
            .iter()
            .find_map(|(flag, path)| path.as_ref().map(|path| (flag, path)))
        else {
            return Ok(());
        };
        let view = match self.write_parquet {
            Some(_) => dataset.exchange_view_with_global_weights(),
            None => dataset.exchange_view(),
        };
        let view = view.with_context(|| {
            format!(
                "{}: {flag} writes a term-document matrix, and this collection is numeric data or \
                 precomputed vectors",
                path.display()
            )
        })?;
        if let Some(matrix) = &self.write_matrix {
            market::write(matrix, &view)?;
        }
        if let Some(folder) = &self.write_parquet {
            // At most the documents there are: the count only says how many go in one file.
            let shard_documents = usize::try_from(self.parquet_shard_docs).unwrap_or(usize::MAX);
            parquet::write(folder, &view, shard_documents)?;
        }
        Ok(())
    }
}
