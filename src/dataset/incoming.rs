//! Documents a collection never saw, weighted as its own: read by the corpus loaders, tokenised, filtered and
//! stemmed with the collection's text options, counted over the collection's terms (a word it does not know is
//! not counted) and weighted with the collection's global weights (computed from its counts, never from the new
//! documents). What routing new documents down a kept tree starts from (`cluster::assign`).

use std::path::{Path, PathBuf};

use super::{Dataset, DatasetOptions};
use crate::corpus::{self, CorpusError, LoadOptions, LoadReport, Loaded};
use crate::matrix::{DataMatrix, SparseMatrix};
use crate::text::{self, RawCounts, TextError, TextOptions};
use crate::weighting::{CountColumns, Weighting, global_weights, weigh_column};

/// Why new documents cannot be weighted as the collection's own.
#[derive(Debug, thiserror::Error)]
pub enum IncomingError {
    #[error(transparent)]
    Corpus(#[from] CorpusError),
    #[error(transparent)]
    Text(#[from] TextError),
    #[error(
        "{path}: numeric rows; new documents are weighted over a text collection's terms, and this collection is {what}"
    )]
    NumericRows { path: PathBuf, what: &'static str },
    #[error(
        "new documents need the collection's term counts to be weighted, and it keeps none: {0}"
    )]
    NoCounts(&'static str),
    #[error("{0}")]
    Counts(String),
}

/// One new document as read: what the outputs name it by.
#[derive(Debug, Clone, PartialEq)]
pub struct IncomingDocument {
    pub id: String,
    pub path: Option<PathBuf>,
    pub title: Option<String>,
    /// Its label as read (a folder's name, a label column), not a label of the collection's.
    pub label: Option<String>,
    /// Tokens the token filters kept.
    pub tokens: usize,
    /// How many of the collection's terms it holds (0: nothing of it is measured, whatever the tree says).
    pub known_terms: usize,
}

/// New documents weighted as the collection's: `matrix` has the collection's rows and one column per document.
#[derive(Debug, Clone)]
pub struct Incoming {
    pub documents: Vec<IncomingDocument>,
    pub matrix: DataMatrix,
    pub report: LoadReport,
}

/// The raw counts of a collection seen through the rows of its matrix (terms kept by name, in row order): the
/// counts its matrix was weighted from, whatever filters, stop words or selection made the rows.
struct CountsByRow<'a> {
    raw: &'a RawCounts,
    /// The row of each raw term, `u32::MAX` for a term the matrix does not keep.
    row_of: Vec<u32>,
    rows: &'a [String],
}

impl CountColumns for CountsByRow<'_> {
    fn terms(&self) -> &[String] {
        self.rows
    }
    fn words(&self) -> &[String] {
        &[]
    }
    fn documents(&self) -> usize {
        self.raw.documents()
    }
    fn column(&self, j: usize) -> impl Iterator<Item = (u32, u32)> + '_ {
        let range = self.raw.column_starts[j] as usize..self.raw.column_starts[j + 1] as usize;
        let mut entries: Vec<(u32, u32)> = self.raw.term_ids[range.clone()]
            .iter()
            .zip(&self.raw.counts[range])
            .filter_map(|(&term, &count)| {
                let row = self.row_of[term as usize];
                (row != u32::MAX).then_some((row, count))
            })
            .collect();
        entries.sort_unstable();
        entries.into_iter()
    }
}

impl Dataset {
    /// The global weight of each row of the matrix, from the counts the matrix was weighted from.
    pub fn global_weights(&self) -> Result<Vec<f64>, IncomingError> {
        if !self.clusters_terms() {
            return Err(IncomingError::NoCounts(
                "its tree is grown on precomputed vectors, which new documents do not have",
            ));
        }
        let kept = self.counts.as_ref().ok_or(IncomingError::NoCounts(
            "numeric data, weights given by a Matrix Market or Parquet file, or a load too large to keep them",
        ))?;
        let raw = kept
            .raw()
            .map_err(|error| IncomingError::Counts(error.to_string()))?;
        let rows = self.matrix.row_names();
        let by_name: rustc_hash::FxHashMap<&str, u32> = rows
            .iter()
            .enumerate()
            .map(|(row, term)| (term.as_str(), row as u32))
            .collect();
        let row_of = raw
            .terms
            .iter()
            .map(|term| by_name.get(term.as_str()).copied().unwrap_or(u32::MAX))
            .collect();
        let view = CountsByRow { raw, row_of, rows };
        Ok(global_weights(&view, self.weighting))
    }

    /// `texts` weighted as this collection's documents (see the module documentation), with the text options the
    /// collection was counted with: one column each, over the matrix's rows; and each text's counts.
    pub fn weigh_texts(
        &self,
        texts: &[&str],
        options: &TextOptions,
    ) -> Result<(DataMatrix, Vec<text::KnownCounts>), IncomingError> {
        let global = self.global_weights()?;
        let stop_words = options.stop_words()?;
        let terms = self.matrix.row_names();
        let counts = text::count_known_terms(texts, options, &stop_words, terms);
        let matrix = weigh_known(&counts, &global, self.weighting, terms.to_vec());
        Ok((matrix, counts))
    }

    /// The documents at `paths`, read with `load` (the corpus loaders: files, folders, JSONL, CSV, ...) and
    /// weighted as this collection's, with the text options of `options` (those the collection was loaded with).
    pub fn weigh_incoming(
        &self,
        paths: &[PathBuf],
        load: &LoadOptions,
        options: &DatasetOptions,
    ) -> Result<Incoming, IncomingError> {
        let first = paths
            .first()
            .map(PathBuf::as_path)
            .unwrap_or(Path::new("."));
        if !self.clusters_terms() {
            return Err(IncomingError::NoCounts(
                "its tree is grown on precomputed vectors, which new documents do not have",
            ));
        }
        let (loaded, report) = corpus::load(paths, load)?;
        let documents = match loaded {
            Loaded::Text(documents) => documents,
            Loaded::Numeric(_) => {
                return Err(IncomingError::NumericRows {
                    path: first.to_path_buf(),
                    what: "text",
                });
            }
        };
        // A load that is not streamed keeps every text in its document.
        let borrowed: Vec<&str> = documents.iter().map(|d| d.text.as_str()).collect();
        let (matrix, counts) = self.weigh_texts(&borrowed, &options.text)?;
        let documents = documents
            .into_iter()
            .zip(&counts)
            .map(|(document, counted)| IncomingDocument {
                id: document.id,
                path: document.path,
                title: document.title,
                label: document.label,
                tokens: counted.tokens,
                known_terms: counted.entries.len(),
            })
            .collect();
        Ok(Incoming {
            documents,
            matrix,
            report,
        })
    }
}

/// Counts over the rows weighted into a sparse matrix of one column per document.
fn weigh_known(
    counts: &[text::KnownCounts],
    global: &[f64],
    weighting: Weighting,
    terms: Vec<String>,
) -> DataMatrix {
    let mut offsets = vec![0u64];
    let (mut indices, mut values) = (Vec::new(), Vec::new());
    for counted in counts {
        let (rows, weights) = weigh_column(&counted.entries, global, weighting);
        indices.extend(rows);
        values.extend(weights);
        offsets.push(indices.len() as u64);
    }
    // Rows come ascending and below the row count, values finite and non-zero (`weigh_column`): the checks
    // cannot fail, and one that did would be a bug in the weighting, not in the input.
    let matrix =
        match SparseMatrix::from_csc_parts(terms.len(), counts.len(), offsets, indices, values) {
            Ok(matrix) => matrix,
            Err(error) => panic!("weighted counts made an invalid matrix: {error}"),
        };
    DataMatrix::sparse(matrix, terms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::open_demo;
    use crate::weighting::Weighting;

    /// Every weighting, the collection's own texts weighted as new documents: each is its own column of the
    /// matrix, bit for bit.
    #[test]
    fn the_collection_s_own_texts_weigh_as_its_columns() {
        for code in ["lfc", "tfc", "txx", "lex", "bgx", "anc", "tpx", "pdgp"] {
            let options = DatasetOptions {
                weighting: Some(Weighting::parse(code).expect("a weighting")),
                ..DatasetOptions::default()
            };
            let data = open_demo(&options).expect("demo").dataset;
            let texts: Vec<String> = data
                .texts(0..data.documents.len())
                .into_iter()
                .map(|text| text.expect("inline").into_owned())
                .collect();
            let borrowed: Vec<&str> = texts.iter().map(String::as_str).collect();
            let (matrix, _) = data.weigh_texts(&borrowed, &options.text).expect("weighs");
            assert_eq!(matrix.cols(), data.matrix.cols());
            for j in 0..matrix.cols() {
                let (new, own) = (matrix.column(j), data.matrix.column(j));
                let entries = |c: crate::linalg::Column| c.entries().collect::<Vec<_>>();
                assert_eq!(entries(new), entries(own), "{code}: document {j}");
            }
        }
    }
}
