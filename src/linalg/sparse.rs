//! The inner loops over sparse vectors (sorted row indices with their values) that every product, centroid and
//! sweep of pdx runs: four-lane dot products, scatter-adds, merges of two sorted columns.
//!
//! Each keeps a fixed summation order that depends on the lengths only, never on threads, so that results are
//! the same bits on every machine.

use super::gather::GatherIndex;

/// A type sparse values are stored in: `f32` in a [`SparseMatrix`], `f64` in a dense vector or a test. Either
/// widens to `f64` exactly before any arithmetic, so the two give the same bits and differ only in the bytes
/// each pass reads.
///
/// [`SparseMatrix`]: crate::matrix::SparseMatrix
pub(super) trait StoredValue: Copy + Into<f64> + Send + Sync + std::fmt::Debug {
    /// `sum_k values[k] * x[keys[k]]`, by [`four_lane_sum`]; the data's `f32` values by
    /// [`gather::sparse_dot`](super::gather::sparse_dot), whose bits are the same.
    #[inline]
    fn sparse_dot<K: GatherIndex>(keys: &[K], values: &[Self], x: &[f64]) -> f64 {
        four_lane_sum(keys, values, |&k| x[k.into() as usize])
    }
}
impl StoredValue for f64 {}
impl StoredValue for f32 {
    #[inline]
    fn sparse_dot<K: GatherIndex>(keys: &[K], values: &[Self], x: &[f64]) -> f64 {
        super::gather::sparse_dot(keys, values, x)
    }
}

/// `sum_k values[k] * x(&keys[k])`, in four independent running sums combined in a fixed order: one running sum
/// makes every addition wait for the previous one, and these sums are the inner loops of the products, the cut
/// sweeps and 2-means (a column against a dense vector) and of the solvers' vector work. Deterministic: the
/// order depends on the length only, never on threads.
#[inline]
pub(super) fn four_lane_sum<K, W: StoredValue>(
    keys: &[K],
    values: &[W],
    x: impl Fn(&K) -> f64,
) -> f64 {
    let len = keys.len().min(values.len());
    let (keys, values) = (&keys[..len], &values[..len]);
    let body = len - len % 4;
    let mut sums = [0.0f64; 4];
    for (k, v) in keys[..body]
        .chunks_exact(4)
        .zip(values[..body].chunks_exact(4))
    {
        sums[0] += v[0].into() * x(&k[0]);
        sums[1] += v[1].into() * x(&k[1]);
        sums[2] += v[2].into() * x(&k[2]);
        sums[3] += v[3].into() * x(&k[3]);
    }
    let mut total = (sums[0] + sums[1]) + (sums[2] + sums[3]);
    for (k, &v) in keys[body..].iter().zip(&values[body..]) {
        total += v.into() * x(k);
    }
    total
}

/// A dense vector read and written at the index type a sparse column stores its rows in.
pub(super) trait IndexedVector<K> {
    fn at(&self, index: K) -> f64;
    fn set(&mut self, index: K, value: f64);
}

impl IndexedVector<usize> for [f64] {
    #[inline]
    fn at(&self, index: usize) -> f64 {
        self[index]
    }
    #[inline]
    fn set(&mut self, index: usize, value: f64) {
        self[index] = value;
    }
}

/// `x[keys[k]] += scale * values[k]` for every k, where the keys are distinct (the rows of a sparse column,
/// which strictly increase). Four entries at a time, all four read before any is written. Because the keys are
/// distinct, every entry of `x` gets exactly the addition it would get one entry at a time, bit for bit; but
/// one entry at a time, each read waits for the write just before it (the processor cannot know that the two
/// never touch the same entry), so the loop runs at the speed of that chain rather than of the memory: it is the
/// wait that costs, not cache misses (the four-at-a-time loop takes half the time; see benches/README.md). This
/// loop is every scatter of pdx: the centred operator's `B x`, centroids, 2-means and the cut sweeps.
#[inline]
pub(super) fn scatter_add<K: Copy, W: StoredValue, V: IndexedVector<K> + ?Sized>(
    keys: &[K],
    values: &[W],
    scale: f64,
    x: &mut V,
) {
    let len = keys.len().min(values.len());
    let (keys, values) = (&keys[..len], &values[..len]);
    let body = len - len % 4;
    for (k, v) in keys[..body]
        .chunks_exact(4)
        .zip(values[..body].chunks_exact(4))
    {
        let sums = [
            x.at(k[0]) + scale * v[0].into(),
            x.at(k[1]) + scale * v[1].into(),
            x.at(k[2]) + scale * v[2].into(),
            x.at(k[3]) + scale * v[3].into(),
        ];
        for lane in 0..4 {
            x.set(k[lane], sums[lane]);
        }
    }
    for (&k, &v) in keys[body..].iter().zip(&values[body..]) {
        x.set(k, x.at(k) + scale * v.into());
    }
}

/// The dot product of two sparse vectors given as sorted index lists and their values: one merge pass.
pub(super) fn sorted_sparse_dot<I: Ord, W: StoredValue, V: StoredValue>(
    rows: &[I],
    values: &[W],
    other_rows: &[I],
    other_values: &[V],
) -> f64 {
    let (mut a, mut b, mut sum) = (0, 0, 0.0);
    while a < rows.len() && b < other_rows.len() {
        match rows[a].cmp(&other_rows[b]) {
            std::cmp::Ordering::Less => a += 1,
            std::cmp::Ordering::Greater => b += 1,
            std::cmp::Ordering::Equal => {
                sum += values[a].into() * other_values[b].into();
                a += 1;
                b += 1;
            }
        }
    }
    sum
}

/// `sum_k v_k^2`, left to right.
#[inline]
pub(super) fn sum_of_squares<W: StoredValue>(values: &[W]) -> f64 {
    values
        .iter()
        .map(|&v| {
            let v: f64 = v.into();
            v * v
        })
        .sum()
}

/// `a . x`, then `x += a`, for a sparse column `a`: [`Column::dot_then_add`](super::Column::dot_then_add).
#[inline]
pub(super) fn sparse_dot_then_add<W: StoredValue>(
    rows: &[u32],
    values: &[W],
    x: &mut [f64],
) -> f64 {
    let mut sums = [0.0f64; 4];
    let len = rows.len().min(values.len());
    let body = len - len % 4;
    for (r, v) in rows[..body]
        .chunks_exact(4)
        .zip(values[..body].chunks_exact(4))
    {
        let r = [r[0] as usize, r[1] as usize, r[2] as usize, r[3] as usize];
        let before = [x[r[0]], x[r[1]], x[r[2]], x[r[3]]];
        for lane in 0..4 {
            sums[lane] += v[lane].into() * before[lane];
        }
        for lane in 0..4 {
            x[r[lane]] = before[lane] + v[lane].into();
        }
    }
    for (k, (&r, &v)) in rows[body..len].iter().zip(&values[body..len]).enumerate() {
        let r = r as usize;
        sums[k % 4] += v.into() * x[r];
        x[r] += v.into();
    }
    (sums[0] + sums[1]) + (sums[2] + sums[3])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_at_a_time_scatter_adds_exactly_what_one_at_a_time_does() {
        let mut rng = crate::rng::SplitMix64::new(9);
        for len in 0..13 {
            // Distinct keys in no particular order, as a column's rows are once renumbered or not.
            let keys: Vec<usize> = (0..len).map(|k| (k * 11 + 3) % 17).collect();
            let values: Vec<f64> = (0..len).map(|_| rng.next_f64() - 0.5).collect();
            let start: Vec<f64> = (0..17).map(|_| rng.next_f64()).collect();
            let mut grouped = start.clone();
            scatter_add(&keys, &values, 0.3, grouped.as_mut_slice());
            let mut single = start.clone();
            for (&k, v) in keys.iter().zip(&values) {
                single[k] += 0.3 * v;
            }
            let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&grouped), bits(&single), "{len} entries");
            assert_ne!(
                len > 0,
                bits(&grouped) == bits(&start),
                "{len} entries changed nothing"
            );
        }
    }
}
