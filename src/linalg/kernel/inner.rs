//! Inner products `x_i^T x_j` of a node's members, the base every other kernel here is derived from.
//!
//! Sparse columns go through an inverted index of the node: for each row (term), the members holding it, in member
//! order. Row i of the Gram matrix is then accumulated from the postings of column i's own terms, keeping only
//! members `j >= i` (the upper triangle), so the work is `sum_t df_t^2 / 2` multiply-adds over the node's terms —
//! the pairs that really share a term — instead of `n^2 / 2` merges of two sorted term lists. Rows run in
//! parallel; each one reports progress and first polls for cancellation.

use rayon::prelude::*;

use super::super::Gram;
use crate::matrix::DataMatrix;
use crate::progress::{Cancelled, Progress};

/// Columns with sorted row indices into a compact row space `0..rows`: a node's documents, or the substring
/// counts of the string kernels.
#[derive(Debug, Clone, Default)]
pub(crate) struct CompactColumns {
    pub rows: usize,
    /// Column c holds entries `offsets[c]..offsets[c + 1]`.
    pub offsets: Vec<usize>,
    pub indices: Vec<u32>,
    pub values: Vec<f64>,
}

impl CompactColumns {
    pub(super) fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    fn column(&self, c: usize) -> (&[u32], &[f64]) {
        let range = self.offsets[c]..self.offsets[c + 1];
        (&self.indices[range.clone()], &self.values[range])
    }

    /// The members' columns of a sparse matrix, with rows renumbered to the terms the node uses (in their original
    /// order, so each column stays sorted). `None` for dense data.
    pub(super) fn from_members(data: &DataMatrix, members: &[usize]) -> Option<CompactColumns> {
        if matches!(data, DataMatrix::Dense { .. }) {
            return None;
        }
        const UNUSED: u32 = u32::MAX;
        let mut renumber = vec![UNUSED; data.rows()];
        let mut used: Vec<usize> = Vec::new();
        for &j in members {
            for (row, _) in data.column(j).entries() {
                if renumber[row] == UNUSED {
                    renumber[row] = 0;
                    used.push(row);
                }
            }
        }
        used.sort_unstable();
        for (id, &row) in used.iter().enumerate() {
            renumber[row] = id as u32;
        }
        let mut columns = CompactColumns {
            rows: used.len(),
            offsets: Vec::with_capacity(members.len() + 1),
            indices: Vec::new(),
            values: Vec::new(),
        };
        columns.offsets.push(0);
        for &j in members {
            for (row, value) in data.column(j).entries() {
                columns.indices.push(renumber[row]);
                columns.values.push(value);
            }
            columns.offsets.push(columns.indices.len());
        }
        Some(columns)
    }

    /// For each row, the columns holding it (ascending) and their values: the transpose, in CSR form.
    fn postings(&self) -> (Vec<usize>, Vec<u32>, Vec<f64>) {
        let mut offsets = vec![0usize; self.rows + 1];
        for &row in &self.indices {
            offsets[row as usize + 1] += 1;
        }
        for r in 0..self.rows {
            offsets[r + 1] += offsets[r];
        }
        let mut next = offsets.clone();
        let mut members = vec![0u32; self.indices.len()];
        let mut values = vec![0.0; self.indices.len()];
        for c in 0..self.len() {
            let (rows, column_values) = self.column(c);
            for (&row, &value) in rows.iter().zip(column_values) {
                let slot = &mut next[row as usize];
                members[*slot] = c as u32;
                values[*slot] = value;
                *slot += 1;
            }
        }
        (offsets, members, values)
    }
}

/// The Gram matrix `C^T C` of compact sparse columns, by the inverted index (module doc). Progress counts rows.
pub(crate) fn sparse_inner_products(
    columns: &CompactColumns,
    progress: Option<&Progress>,
) -> Result<Gram, Cancelled> {
    let n = columns.len();
    let (offsets, posting_members, posting_values) = columns.postings();
    let mut values = vec![0.0; n * n];
    values.par_chunks_mut(n.max(1)).enumerate().try_for_each(
        |(i, row)| -> Result<(), Cancelled> {
            if let Some(progress) = progress {
                progress.check()?;
            }
            let (rows, column_values) = columns.column(i);
            for (&r, &value) in rows.iter().zip(column_values) {
                let range = offsets[r as usize]..offsets[r as usize + 1];
                let members = &posting_members[range.clone()];
                let weights = &posting_values[range];
                // Postings are in member order: skip the members before i (the lower triangle).
                let start = members.partition_point(|&m| (m as usize) < i);
                for (&m, &w) in members[start..].iter().zip(&weights[start..]) {
                    row[m as usize] += value * w;
                }
            }
            if let Some(progress) = progress {
                progress.advance(1);
            }
            Ok(())
        },
    )?;
    finish_upper(n, values)
}

/// The Gram matrix of dense columns (numeric data), upper triangle by rows in parallel.
pub(crate) fn dense_inner_products(
    data: &DataMatrix,
    members: &[usize],
    progress: Option<&Progress>,
) -> Result<Gram, Cancelled> {
    let n = members.len();
    let mut values = vec![0.0; n * n];
    values.par_chunks_mut(n.max(1)).enumerate().try_for_each(
        |(i, row)| -> Result<(), Cancelled> {
            if let Some(progress) = progress {
                progress.check()?;
            }
            let column = data.column(members[i]);
            for (j, value) in row.iter_mut().enumerate().skip(i) {
                *value = column.dot_column(&data.column(members[j]));
            }
            if let Some(progress) = progress {
                progress.advance(1);
            }
            Ok(())
        },
    )?;
    finish_upper(n, values)
}

fn finish_upper(n: usize, values: Vec<f64>) -> Result<Gram, Cancelled> {
    let mut gram = Gram::from_row_major(n, values).expect("n * n values were allocated");
    gram.mirror_upper();
    Ok(gram)
}

/// The node's inner products, sparse or dense.
pub(crate) fn inner_products(
    data: &DataMatrix,
    members: &[usize],
    progress: Option<&Progress>,
) -> Result<Gram, Cancelled> {
    match CompactColumns::from_members(data, members) {
        Some(columns) => sparse_inner_products(&columns, progress),
        None => dense_inner_products(data, members, progress),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::DMatrix;

    fn random_sparse(rows: usize, cols: usize, seed: u64) -> DataMatrix {
        crate::linalg::test_util::random_sparse(rows, cols, 0.3, seed)
    }

    #[test]
    fn inverted_index_matches_pairwise_dot_products() {
        let data = random_sparse(30, 25, 11);
        let members = [0, 3, 4, 7, 8, 12, 13, 20, 24];
        let gram = inner_products(&data, &members, None).expect("not cancelled");
        for (a, &i) in members.iter().enumerate() {
            for (b, &j) in members.iter().enumerate() {
                let expected = data.column(i).dot_column(&data.column(j));
                assert!((gram.get(a, b) - expected).abs() < 1e-12, "{a} {b}");
            }
        }
    }

    #[test]
    fn dense_inner_products_are_dot_products() {
        let matrix = DMatrix::from_fn(3, 5, |r, c| (r * 5 + c) as f64 - 6.0);
        let data = DataMatrix::Dense {
            matrix: matrix.clone(),
            features: vec!["a".into(), "b".into(), "c".into()],
        };
        let gram = inner_products(&data, &[4, 1, 2], None).expect("not cancelled");
        assert_eq!(gram.get(0, 1), matrix.column(4).dot(&matrix.column(1)));
        assert_eq!(gram.get(2, 0), matrix.column(2).dot(&matrix.column(4)));
    }

    #[test]
    fn a_cancelled_progress_stops_the_work() {
        let data = random_sparse(10, 10, 3);
        let progress = Progress::default();
        progress.cancel();
        let members: Vec<usize> = (0..10).collect();
        assert!(inner_products(&data, &members, Some(&progress)).is_err());
    }
}
