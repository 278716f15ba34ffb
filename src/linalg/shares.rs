//! A machine's share of a node's sums when the node's columns are spread over several machines (each holding a
//! shard of the collection): the node's Gram product `B B^T u = sum_j a_j (a_j . u) - n c (c . u)` and its
//! centroid `c = (sum_j a_j) / n` are sums over the node's columns, so each machine sums over the members it
//! holds, and whoever adds the shares up divides by `n` and subtracts the rank-one term once. The shares run on
//! the node operator's own kernels ([`CentredColumns::uncentred`]): the same fused read of each column, in the
//! same fixed order of sums, on any number of threads.

use super::{CentredColumns, LinalgError, LinearOperator};
use crate::matrix::DataMatrix;

/// `sum over members j of a_j (a_j . u)`, the uncentred Gram product of the `members` (columns of `data`), of
/// `data`'s row count.
pub fn member_gram_product(
    data: &DataMatrix,
    members: &[usize],
    u: &[f64],
) -> Result<Vec<f64>, LinalgError> {
    let operator = uncentred(data, members, u)?;
    let mut out = vec![0.0; data.rows()];
    let mut projections = vec![0.0; members.len()];
    operator.apply_gram(u, &mut out, &mut projections);
    Ok(out)
}

/// `a_j . u` for each of the `members`, in their order: the bits [`member_gram_product`] computes on its way,
/// so that the sides a cut gives agree with the product the direction came from.
pub fn member_projections(
    data: &DataMatrix,
    members: &[usize],
    u: &[f64],
) -> Result<Vec<f64>, LinalgError> {
    let operator = uncentred(data, members, u)?;
    let mut projections = vec![0.0; members.len()];
    operator.apply_transpose(u, &mut projections);
    Ok(projections)
}

/// `sum over members j of a_j`, of `data`'s row count, each row summed as [`DataMatrix::centroid`] sums it.
pub fn member_column_sums(data: &DataMatrix, members: &[usize]) -> Result<Vec<f64>, LinalgError> {
    check_members(data, members)?;
    Ok(data.column_sum(members))
}

fn check_members(data: &DataMatrix, members: &[usize]) -> Result<(), LinalgError> {
    let cols = data.cols();
    match members.iter().find(|&&column| column >= cols) {
        Some(&column) => Err(LinalgError::ColumnOutOfRange { column, cols }),
        None => Ok(()),
    }
}

/// The members' uncentred operator, once `u` is known to have one entry per row of `data`.
fn uncentred<'a>(
    data: &'a DataMatrix,
    members: &'a [usize],
    u: &[f64],
) -> Result<CentredColumns<'a>, LinalgError> {
    if u.len() != data.rows() {
        return Err(LinalgError::VectorLength {
            found: u.len(),
            rows: data.rows(),
        });
    }
    CentredColumns::uncentred(data, members)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::test_util::{assert_close, explicit_columns, random_sparse, random_vector};
    use crate::rng::SplitMix64;

    /// Members in no particular order, some columns left out, on a sequential node, a column-chunked one (many
    /// entries per row) and a row-blocked one (few): every way the node operator runs.
    fn cases() -> Vec<(DataMatrix, Vec<usize>)> {
        [
            (random_sparse(300, 200, 0.05, 1), 200),
            (random_sparse(400, 4000, 0.05, 2), 4000),
            (random_sparse(70_000, 3000, 0.0005, 3), 3000),
        ]
        .into_iter()
        .map(|(data, n)| {
            let members = (0..n).rev().filter(|j| j % 5 != 1).collect();
            (data, members)
        })
        .collect()
    }

    #[test]
    fn the_gram_share_is_the_members_own_gram_product() {
        for (data, members) in cases() {
            let u = random_vector(&mut SplitMix64::new(7), data.rows());
            let a = explicit_columns(&data, &members);
            let expected = &a * (a.transpose() * nalgebra::DVector::from_column_slice(&u));
            let share = member_gram_product(&data, &members, &u).expect("a share");
            assert_close(&share, expected.as_slice(), 1e-12, "A_p A_p^T u");
        }
    }

    #[test]
    fn projections_are_the_members_dot_products_in_their_order() {
        for (data, members) in cases() {
            let u = random_vector(&mut SplitMix64::new(8), data.rows());
            let expected: Vec<f64> = members.iter().map(|&j| data.column(j).dot(&u)).collect();
            let projections = member_projections(&data, &members, &u).expect("projections");
            assert_close(&projections, &expected, 1e-12, "a_j . u");
        }
    }

    #[test]
    fn column_sums_are_the_centroid_times_the_count() {
        for (data, members) in cases() {
            let sums = member_column_sums(&data, &members).expect("sums");
            let n = members.len() as f64;
            let scaled: Vec<f64> = data.centroid(&members).iter().map(|c| c * n).collect();
            assert_close(&sums, &scaled, 1e-12, "sum_j a_j");
            let a = explicit_columns(&data, &members);
            let explicit: Vec<f64> = a.row_iter().map(|row| row.sum()).collect();
            assert_close(&sums, &explicit, 1e-12, "sum_j a_j");
        }
    }

    #[test]
    fn a_member_outside_the_data_or_a_vector_of_the_wrong_length_is_refused() {
        let data = random_sparse(30, 20, 0.2, 4);
        let u = vec![1.0; 30];
        let outside = LinalgError::ColumnOutOfRange {
            column: 20,
            cols: 20,
        }
        .to_string();
        let refusal =
            |result: Result<Vec<f64>, LinalgError>| result.expect_err("refused").to_string();
        assert_eq!(refusal(member_gram_product(&data, &[3, 20], &u)), outside);
        assert_eq!(refusal(member_projections(&data, &[20], &u)), outside);
        assert_eq!(refusal(member_column_sums(&data, &[0, 20])), outside);
        let short = "a vector of 29 entries, and the data has 30 rows";
        assert_eq!(refusal(member_gram_product(&data, &[3], &u[1..])), short);
        assert_eq!(refusal(member_projections(&data, &[3], &u[1..])), short);
        // No members: a share of zeros, as a machine holding none of a node contributes.
        assert_eq!(
            member_gram_product(&data, &[], &u).expect("empty"),
            vec![0.0; 30]
        );
        assert_eq!(
            member_column_sums(&data, &[]).expect("empty"),
            vec![0.0; 30]
        );
    }
}
