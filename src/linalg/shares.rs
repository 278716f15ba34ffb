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

/// Each member's centred coordinate along `u`, `a_j . u - offset`, in the members' order, from
/// [`member_projections`]' bits: with `offset = c . u` ([`NodeSums::centroid_dot`]), `(a_j - c) . u`.
pub fn member_coordinates(
    data: &DataMatrix,
    members: &[usize],
    u: &[f64],
    offset: f64,
) -> Result<Vec<f64>, LinalgError> {
    let mut coordinates = member_projections(data, members, u)?;
    coordinates.iter_mut().for_each(|p| *p -= offset);
    Ok(coordinates)
}

/// The members' sides of a cut across direction `u`: `true` (the upper side) where `a_j . u - offset > cut`, in
/// the members' order, from [`member_projections`]' bits. With `offset = c . u` ([`NodeSums::centroid_dot`]),
/// `a_j . u - offset` is the member's centred coordinate `(a_j - c) . u`.
pub fn member_sides(
    data: &DataMatrix,
    members: &[usize],
    u: &[f64],
    offset: f64,
    cut: f64,
) -> Result<Vec<bool>, LinalgError> {
    let coordinates = member_coordinates(data, members, u, offset)?;
    Ok(coordinates.iter().map(|&c| c > cut).collect())
}

/// The member whose centred coordinate `a_j . u - offset` is largest in absolute value, the first in the members'
/// order among equals: its position and its coordinate; `None` without members. What the sign convention of
/// [`crate::linalg::SingularTriplets`] needs of each machine.
pub fn largest_coordinate(
    data: &DataMatrix,
    members: &[usize],
    u: &[f64],
    offset: f64,
) -> Result<Option<(usize, f64)>, LinalgError> {
    let coordinates = member_coordinates(data, members, u, offset)?;
    let mut best: Option<(usize, f64)> = None;
    for (position, &coordinate) in coordinates.iter().enumerate() {
        if best.is_none_or(|(_, value)| coordinate.abs() > value.abs()) {
            best = Some((position, coordinate));
        }
    }
    Ok(best)
}

/// A node's sums over its members, `sum_j a_j` and `sum_j ||a_j||^2` with the count: each machine's share
/// ([`NodeSums::of_members`]), added up ([`NodeSums::add`]) into the node's, from which its centroid, scatter
/// and centred Gram products follow.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeSums {
    /// Members counted.
    pub count: usize,
    /// `sum_j a_j`, one entry per row of the data.
    pub column_sum: Vec<f64>,
    /// `sum_j ||a_j||^2`.
    pub norms_squared: f64,
}

impl NodeSums {
    /// Nothing counted yet, over `rows` rows.
    pub fn zero(rows: usize) -> NodeSums {
        NodeSums {
            count: 0,
            column_sum: vec![0.0; rows],
            norms_squared: 0.0,
        }
    }

    /// The share of the `members` (columns of `data`).
    pub fn of_members(data: &DataMatrix, members: &[usize]) -> Result<NodeSums, LinalgError> {
        let column_sum = member_column_sums(data, members)?;
        let norms_squared = members.iter().map(|&j| data.column(j).norm_squared()).sum();
        Ok(NodeSums {
            count: members.len(),
            column_sum,
            norms_squared,
        })
    }

    /// Add another share of the same node.
    ///
    /// # Panics
    /// If the two have different row counts.
    pub fn add(&mut self, other: &NodeSums) {
        assert_eq!(
            self.column_sum.len(),
            other.column_sum.len(),
            "shares over the same rows"
        );
        self.count += other.count;
        self.norms_squared += other.norms_squared;
        for (sum, share) in self.column_sum.iter_mut().zip(&other.column_sum) {
            *sum += share;
        }
    }

    /// The centroid `c = sum_j a_j / n`; zeros for a node without members.
    pub fn centroid(&self) -> Vec<f64> {
        let n = self.count.max(1) as f64;
        self.column_sum.iter().map(|sum| sum / n).collect()
    }

    /// `c . u`: what centring takes off each member's projection on `u`.
    pub fn centroid_dot(&self, u: &[f64]) -> f64 {
        let n = self.count.max(1) as f64;
        dot(&self.column_sum, u) / n
    }

    /// The scatter `sum_j ||a_j - c||^2 = sum_j ||a_j||^2 - ||sum_j a_j||^2 / n`, at least 0 (the difference
    /// of two sums can round below it).
    pub fn scatter(&self) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let sum = &self.column_sum;
        (self.norms_squared - dot(sum, sum) / self.count as f64).max(0.0)
    }

    /// `||A_p||_F`, the scale below which a Gram product's entries are rounding noise (the node operator's
    /// [`LinearOperator::magnitude`]).
    pub fn magnitude(&self) -> f64 {
        self.norms_squared.sqrt()
    }

    /// The centred Gram product `B B^T q = sum_j a_j (a_j . q) - n c (c . q)` from `uncentred`, the sum of the
    /// shares' [`member_gram_product`]s, in place: the rank-one term is `s (s . q) / n` with `s = sum_j a_j`.
    pub fn centre_gram_product(&self, q: &[f64], uncentred: &mut [f64]) {
        assert_eq!(q.len(), self.column_sum.len(), "one entry per row");
        assert_eq!(uncentred.len(), self.column_sum.len(), "one entry per row");
        let factor = self.centroid_dot(q);
        for (out, sum) in uncentred.iter_mut().zip(&self.column_sum) {
            *out -= sum * factor;
        }
    }
}

/// The boundary between two groups' centroids, as [`member_coordinates`] reads it: `(u, offset)` with `u = 2 (c_0 -
/// c_1)` and `offset = ||c_0||^2 - ||c_1||^2`, so that a member's coordinate `a . u - offset = ||a - c_1||^2 -
/// ||a - c_0||^2` is negative where it is nearer `c_1`, positive where nearer `c_0` (a step of Lloyd's two-group
/// iteration, `crate::cluster::lloyd::refine`, decides by the same value's sign).
pub fn two_means_boundary(first: &NodeSums, second: &NodeSums) -> (Vec<f64>, f64) {
    let (c_0, c_1) = (first.centroid(), second.centroid());
    let offset = dot(&c_0, &c_0) - dot(&c_1, &c_1);
    let u = c_0.iter().zip(&c_1).map(|(a, b)| 2.0 * (a - b)).collect();
    (u, offset)
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
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
    use crate::linalg::test_util::{
        assert_close, explicit_centred, explicit_columns, random_sparse, random_vector,
    };
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
    fn shares_added_up_give_the_centred_operator_s_product_scatter_and_coordinates() {
        for (data, members) in cases() {
            let op = CentredColumns::new(&data, &members);
            let u = random_vector(&mut SplitMix64::new(9), data.rows());
            // Three machines holding interleaved thirds of the members.
            let thirds: Vec<Vec<usize>> = (0..3)
                .map(|s| members.iter().skip(s).step_by(3).copied().collect())
                .collect();
            let mut sums = NodeSums::zero(data.rows());
            let mut product = vec![0.0; data.rows()];
            for third in &thirds {
                sums.add(&NodeSums::of_members(&data, third).expect("a share"));
                let share = member_gram_product(&data, third, &u).expect("a share");
                product.iter_mut().zip(&share).for_each(|(p, s)| *p += s);
            }
            sums.centre_gram_product(&u, &mut product);
            let mut expected = vec![0.0; data.rows()];
            let mut coordinates = vec![0.0; members.len()];
            op.apply_gram(&u, &mut expected, &mut coordinates);
            assert_close(&product, &expected, 1e-10, "B B^T u");
            let b = explicit_centred(&data, &members);
            assert!((sums.scatter() - b.norm_squared()).abs() <= 1e-10 * b.norm_squared());
            assert_eq!(sums.count, members.len());
            // Each machine's coordinates are B^T u's entries for its members.
            let offset = sums.centroid_dot(&u);
            let mut transposed = vec![0.0; members.len()];
            op.apply_transpose(&u, &mut transposed);
            let of = |j: usize| transposed[members.iter().position(|&m| m == j).expect("a member")];
            for third in &thirds {
                let projections = member_projections(&data, third, &u).expect("projections");
                let centred: Vec<f64> = projections.iter().map(|p| p - offset).collect();
                let expected: Vec<f64> = third.iter().map(|&j| of(j)).collect();
                assert_close(&centred, &expected, 1e-10, "(a_j - c) . u");
                let sides = member_sides(&data, third, &u, offset, 0.0).expect("sides");
                assert_eq!(sides, centred.iter().map(|&c| c > 0.0).collect::<Vec<_>>());
                let (position, value) = largest_coordinate(&data, third, &u, offset)
                    .expect("members")
                    .expect("one");
                assert!(centred.iter().all(|c| c.abs() <= value.abs()));
                assert_eq!(centred[position], value);
            }
        }
    }

    #[test]
    fn the_two_means_boundary_s_sign_says_which_centroid_is_nearer() {
        let data = random_sparse(60, 40, 0.2, 6);
        let (first, second): (Vec<usize>, Vec<usize>) = (0..40).partition(|j| j % 3 == 0);
        let sums = |members: &[usize]| NodeSums::of_members(&data, members).expect("sums");
        let (a, b) = (sums(&first), sums(&second));
        let (u, offset) = two_means_boundary(&a, &b);
        let (c_0, c_1) = (a.centroid(), b.centroid());
        let all: Vec<usize> = (0..40).collect();
        let coordinates = member_coordinates(&data, &all, &u, offset).expect("coordinates");
        for (&j, coordinate) in all.iter().zip(coordinates) {
            let column = explicit_columns(&data, &[j]);
            let distance = |c: &[f64]| {
                column
                    .column(0)
                    .iter()
                    .zip(c)
                    .map(|(x, c)| (x - c) * (x - c))
                    .sum::<f64>()
            };
            let expected = distance(&c_1) - distance(&c_0);
            assert!(
                (coordinate - expected).abs() <= 1e-10 * (1.0 + expected.abs()),
                "{j}"
            );
        }
    }

    #[test]
    fn the_first_of_equal_coordinates_is_the_largest_and_no_members_give_none() {
        let data = random_sparse(30, 20, 0.2, 4);
        let u = vec![0.0; 30];
        // Every coordinate is -offset: equal, so the first member wins.
        assert_eq!(
            largest_coordinate(&data, &[7, 3, 5], &u, 2.0).expect("ok"),
            Some((0, -2.0))
        );
        assert_eq!(largest_coordinate(&data, &[], &u, 2.0).expect("ok"), None);
        assert_eq!(NodeSums::zero(30).scatter(), 0.0);
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
