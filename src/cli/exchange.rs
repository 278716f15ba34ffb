//! `pdx stats`'s matrix outputs: the weighted matrix in the formats other tools read ([`pdx::exchange`]).

use std::path::{Path, PathBuf};

use anyhow::Context;
use pdx::dataset::Dataset;
use pdx::exchange::market;

use super::outputs::{Outputs, check_outputs};

/// Where to write the matrix, in each format asked for.
#[derive(clap::Args, Debug, Default)]
pub(crate) struct MatrixOutputs {
    /// Write the weighted matrix (terms x documents) as Matrix Market to FILE.mtx, with FILE.terms.txt (a word
    /// per row) and FILE.docs.tsv (id, label, title, source per column) beside it: for scipy, MATLAB and TMG.
    /// None of the three may exist
    #[arg(long, value_name = "FILE.mtx", help_heading = "Output")]
    write_matrix: Option<PathBuf>,
}

impl MatrixOutputs {
    /// Refuse, before any work, outputs that cannot be written or would replace something.
    pub(crate) fn check(&self, inputs: &[PathBuf]) -> anyhow::Result<()> {
        let Some(matrix) = &self.write_matrix else {
            return Ok(());
        };
        let files = market::files_of(matrix)?;
        if let Some(taken) = files.iter().find(|file| file.symlink_metadata().is_ok()) {
            return Err(market::MarketError::Exists(taken.clone()).into());
        }
        let others: Vec<(&str, &Path)> = files
            .iter()
            .map(|file| ("--write-matrix", file.as_path()))
            .collect();
        let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
        check_outputs(&Outputs::default(), &others, &inputs)?;
        Ok(())
    }

    /// Write the outputs asked for from `dataset`.
    pub(crate) fn write(&self, dataset: &Dataset) -> anyhow::Result<()> {
        let Some(matrix) = &self.write_matrix else {
            return Ok(());
        };
        let view = dataset.exchange_view().with_context(|| {
            format!(
                "{}: --write-matrix writes a term-document matrix, and this collection is numeric data or \
                 precomputed vectors",
                matrix.display()
            )
        })?;
        market::write(matrix, &view)?;
        Ok(())
    }
}
