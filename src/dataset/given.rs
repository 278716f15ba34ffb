//! Collections whose weights are given ([`crate::exchange`]'s formats): a dataset made from the matrix as read,
//! never weighted again, and a dataset's matrix handed to those formats.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::{
    CacheUse, Dataset, DatasetError, DatasetOptions, DocumentMeta, Opened, Reweigh, Timings,
    index_labels,
};
use crate::corpus::{self, LoadReport, TextSource};
use crate::exchange::{self, CollectionView, ExchangedCollection, ExchangedDocument};
use crate::matrix::DataMatrix;
use crate::weighting::Weighting;

/// An exchange format, which a collection of given weights is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum GivenFormat {
    /// A `.mtx` file ([`exchange::market`]).
    MatrixMarket,
    /// A folder holding a manifest ([`exchange::parquet`]).
    Parquet,
}

/// The exchange format `paths` name, when they name one, and the path in it: a collection in such a format is
/// opened alone.
pub(super) fn given_format(paths: &[PathBuf]) -> Option<(GivenFormat, &Path)> {
    paths.iter().find_map(|path| {
        let format = if exchange::market::is_market(path) {
            GivenFormat::MatrixMarket
        } else if exchange::parquet::is_parquet_folder(path) {
            GivenFormat::Parquet
        } else {
            return None;
        };
        Some((format, path.as_path()))
    })
}

/// Open the collection at `path` as its weights are given.
pub(super) fn open_given(
    paths: &[PathBuf],
    (format, path): (GivenFormat, &Path),
    options: &DatasetOptions,
) -> Result<Opened, DatasetError> {
    let start = Instant::now();
    let refuse = |what: &'static str| {
        Err(DatasetError::GivenWeights {
            path: path.to_path_buf(),
            what,
        })
    };
    if paths.len() > 1 {
        return refuse("a collection on its own: give no other path with it");
    }
    if options.weighting.is_some() {
        return refuse("its own weights, and a weighting cannot be applied to them");
    }
    if options.standardize {
        return refuse("weighted text, which standardising does not apply to");
    }
    if options.vectors.is_some() {
        return refuse("its own matrix, and precomputed vectors cannot replace it");
    }
    let collection = match format {
        GivenFormat::MatrixMarket => exchange::market::read(path)?,
        GivenFormat::Parquet => exchange::parquet::read(path)?,
    };
    let dataset = Dataset::from_weighted(&path.display().to_string(), collection);
    Ok(Opened {
        warnings: dataset.report.notes.clone(),
        dataset,
        timings: Timings::read_only(start),
        cache: CacheUse::Off,
        cache_file: None,
    })
}

impl Dataset {
    /// A dataset of `collection`, read from `source` (or made by a library user, with
    /// [`SparseMatrix::from_sprs`](crate::matrix::SparseMatrix::from_sprs) from a sprs matrix): its matrix as
    /// given (`Weighting::None`: pdx weighs it no further), its documents' labels indexed, ids made unique, and
    /// each text read from its own file when that file can be read. A document without entries is kept as an
    /// empty column, as `keep_empty` keeps one.
    pub fn from_weighted(source: &str, collection: ExchangedCollection) -> Dataset {
        let ExchangedCollection {
            matrix,
            terms,
            words,
            mut documents,
            notes,
            node_of_tree,
        } = collection;
        let mut report = LoadReport {
            files_read: 1,
            notes,
            ..LoadReport::default()
        };
        report.notes.push(format!(
            "{source}: the weights are as given; pdx weighs them no further"
        ));
        corpus::make_ids_unique(
            documents.iter_mut().map(|document| &mut document.id),
            &mut report,
        );
        let (label_names, labels) = index_labels(documents.iter().map(|d| d.label.as_deref()));
        let mut sources = Vec::new();
        let mut unreadable = 0usize;
        let metas: Vec<DocumentMeta> = documents
            .into_iter()
            .zip(labels)
            .enumerate()
            .map(|(column, (document, label))| {
                let source = match &document.source {
                    Some(file) => match corpus::whole_file(file, sources.len() as u32) {
                        Ok((source_file, source)) => {
                            sources.push(source_file);
                            source
                        }
                        Err(_) => {
                            unreadable += 1;
                            TextSource::Inline(String::new())
                        }
                    },
                    None => TextSource::Inline(String::new()),
                };
                DocumentMeta {
                    id: document.id,
                    path: document.source,
                    headline: None,
                    title: document.title,
                    label,
                    tokens: 0,
                    empty: matrix.column_range(column).is_empty(),
                    source,
                }
            })
            .collect();
        if unreadable > 0 {
            report.notes.push(format!(
            "{unreadable} documents name a text file that cannot be read; their texts are not shown"
        ));
        }
        let empty_documents: Vec<String> = metas
            .iter()
            .filter(|meta| meta.empty)
            .map(|meta| meta.id.clone())
            .collect();
        Dataset {
            source: source.to_string(),
            documents: metas,
            label_names,
            matrix: DataMatrix::sparse(matrix, terms).with_words(words),
            text_matrix: None,
            weighting: Weighting::None,
            report,
            empty_documents,
            counts: None,
            sources,
            node_of_tree,
        }
    }

    /// The matrix the tree is grown on, with its words and documents, for [`crate::exchange`]'s writers; `None`
    /// for numeric data and precomputed vectors, which are not a term-document matrix.
    pub fn exchange_view(&self) -> Option<CollectionView<'_>> {
        let DataMatrix::Sparse { matrix, terms, .. } = &self.matrix else {
            return None;
        };
        if !self.clusters_terms() {
            return None;
        }
        let documents = self
            .documents
            .iter()
            .map(|document| ExchangedDocument {
                id: document.id.clone(),
                label: document
                    .label
                    .map(|label| self.label_names[label as usize].clone()),
                title: document.title.clone(),
                source: corpus::own_file(&self.sources, &document.source).map(Path::to_path_buf),
            })
            .collect();
        Some(CollectionView {
            matrix,
            terms,
            words: self.matrix.row_words(),
            documents,
            settings: exchange_settings(&self.source, self.weighting, self.reweighing()),
            global_weights: None,
        })
    }

    /// [`Dataset::exchange_view`] with each row's global weight, for the formats that carry it (Parquet's
    /// vocabulary): computed from the counts the dataset keeps, which takes reading them (from the cache
    /// entry, after an open from the cache). Without counts (weights given by another tool) there is nothing to
    /// compute them from, and counts a damaged cache entry cannot give are as good as none: `None` then.
    pub fn exchange_view_with_global_weights(&self) -> Option<CollectionView<'_>> {
        let mut view = self.exchange_view()?;
        view.global_weights = self.global_weights().ok();
        Some(view)
    }
}

/// What made a matrix, as the exchange formats record it ([`CollectionView::settings`]): what was opened, the
/// weighting and the settings of the counts it was weighted from (none when weights were given).
pub(super) fn exchange_settings(
    source: &str,
    weighting: Weighting,
    counts: Option<&Reweigh>,
) -> serde_json::Value {
    serde_json::json!({
        "source": source,
        "weighting": weighting.code(),
        "matrix": counts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::{Params, RuleSpec, SelectPolicy, Tree};

    /// A library user's sprs matrix, with words and documents, grows a tree and comes back as a sprs view.
    #[test]
    fn a_sprs_matrix_becomes_a_dataset_and_comes_back() {
        // Two groups of documents over two groups of terms.
        let mut triplets = sprs::TriMat::new((4, 6));
        for column in 0..6 {
            let rows = if column < 3 { [0, 1] } else { [2, 3] };
            for row in rows {
                triplets.add_triplet(row, column, 1.0 + column as f64 / 10.0);
            }
        }
        let csc: sprs::CsMat<f64> = triplets.to_csc();
        let collection = ExchangedCollection {
            matrix: crate::matrix::SparseMatrix::from_sprs(&csc).expect("a valid matrix"),
            terms: ["apple", "pear", "bolt", "nut"].map(String::from).to_vec(),
            words: Vec::new(),
            documents: (0..6)
                .map(|column| ExchangedDocument {
                    id: format!("d{column}"),
                    label: Some(if column < 3 { "fruit" } else { "hardware" }.to_string()),
                    ..ExchangedDocument::default()
                })
                .collect(),
            notes: Vec::new(),
            node_of_tree: None,
        };
        let dataset = Dataset::from_weighted("mine", collection);
        assert_eq!(dataset.label_names, ["fruit", "hardware"]);
        let spec = RuleSpec::new("pddp", &Params::default()).expect("a rule");
        let mut tree = Tree::for_dataset(&dataset);
        tree.grow(&dataset.matrix, &spec, 2, SelectPolicy::default())
            .expect("grows");
        let mut sides: Vec<Vec<usize>> = tree
            .leaves()
            .into_iter()
            .filter_map(|leaf| Some(tree.node(leaf)?.members.to_vec()))
            .collect();
        sides.sort();
        assert_eq!(sides, [vec![0, 1, 2], vec![3, 4, 5]]);
        let view = dataset.matrix.sparse_view().expect("a sparse matrix");
        assert_eq!(view.nnz(), 12);
        assert_eq!(view.get(2, 4), Some(&1.4f32));
    }
}
