//! Clustering precomputed vectors (`--vectors`): the rows of a `.npy` matrix, matched to the documents by order
//! or by id, become the matrix the tree is grown on, while the text's weighted term matrix is kept beside it
//! ([`Dataset::text_matrix`]) for what only words can tell: each cluster's top and discriminating words, the
//! search, the snippets and the viewer.

use std::collections::HashMap;
use std::path::PathBuf;

use nalgebra::DMatrix;

use super::{Dataset, DatasetError};
use crate::corpus::{self, VectorsSource};
use crate::matrix::DataMatrix;

/// `dataset` (its text loaded with every document kept, empty or not) with its documents clustered on the
/// vectors of `source`: the vectors become the matrix, one column per document, and the term matrix moves to
/// [`Dataset::text_matrix`]. No document is empty: each has its vector. Returns the dataset and what the
/// matching noticed without failing (rows that name no document read).
pub(super) fn attach(
    mut dataset: Dataset,
    source: &VectorsSource,
) -> Result<(Dataset, Vec<String>), DatasetError> {
    let vectors = corpus::read_vectors(&source.path)?;
    let documents = dataset.documents.len();
    let mut warnings = Vec::new();
    let row_of: Vec<usize> = match &source.ids {
        None if vectors.rows != documents => {
            return Err(DatasetError::VectorRows {
                path: source.path.clone(),
                rows: vectors.rows,
                documents,
            });
        }
        None => (0..documents).collect(),
        Some(ids_path) => {
            let ids = corpus::read_vector_ids(ids_path)?;
            let vector_ids = |message: String| DatasetError::VectorIds {
                path: ids_path.clone(),
                message,
            };
            if ids.len() != vectors.rows {
                return Err(vector_ids(format!(
                    "{} ids for the {} rows of {}",
                    ids.len(),
                    vectors.rows,
                    source.path.display()
                )));
            }
            let mut row_of_id: HashMap<&str, usize> = HashMap::with_capacity(ids.len());
            for (row, id) in ids.iter().enumerate() {
                if let Some(first) = row_of_id.insert(id.as_str(), row) {
                    return Err(vector_ids(format!(
                        "line {}: id {id:?} again (first on line {})",
                        row + 1,
                        first + 1
                    )));
                }
            }
            let missing: Vec<&str> = dataset
                .documents
                .iter()
                .map(|d| d.id.as_str())
                .filter(|id| !row_of_id.contains_key(id))
                .collect();
            if let Some(first) = missing.first() {
                return Err(vector_ids(format!(
                    "no row for document {first:?}{}",
                    match missing.len() {
                        1 => String::new(),
                        n => format!(" nor {} others", n - 1),
                    }
                )));
            }
            if vectors.rows > documents {
                warnings.push(format!(
                    "{}: {} rows name no document read (skipped or empty files); left out",
                    source.path.display(),
                    vectors.rows - documents
                ));
            }
            dataset
                .documents
                .iter()
                .map(|d| row_of_id[d.id.as_str()])
                .collect()
        }
    };
    let mut values = Vec::with_capacity(documents * vectors.dimensions);
    for &row in &row_of {
        values.extend_from_slice(vectors.row(row));
    }
    let matrix = DataMatrix::Dense {
        matrix: DMatrix::from_vec(vectors.dimensions, documents, values),
        features: (1..=vectors.dimensions)
            .map(|d| format!("dimension {d}"))
            .collect(),
    };
    dataset.text_matrix = Some(std::mem::replace(&mut dataset.matrix, matrix));
    for document in &mut dataset.documents {
        document.empty = false;
    }
    Ok((dataset, warnings))
}

/// Every file a dataset with `source`'s vectors depends on besides the corpus: the vectors and their ids.
pub(super) fn inputs(source: &VectorsSource) -> impl Iterator<Item = &PathBuf> {
    std::iter::once(&source.path).chain(&source.ids)
}
