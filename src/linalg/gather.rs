//! The dot product of a sparse column (sorted row indices and `f32` values) with a dense `f64` vector, four
//! entries at a time by the processor's gather instruction where it has one (AVX2 on x86-64).
//!
//! The loop reads three things per entry (an index, a value, and the vector at that index), and with one load
//! each it is bound by the processor's loads rather than by memory; a gather fetches four entries of the vector
//! from one vector of indices. The arithmetic is [`four_lane_sum`]'s, lane for lane: entry `k` goes to lane
//! `k % 4`, each lane multiplies then adds (never a fused multiply-add, which rounds once instead of twice), the
//! lanes are combined as `(s0 + s1) + (s2 + s3)` and the tail added after. So the result is the same bits,
//! whichever path runs: a tree does not depend on the machine it was grown on.
//!
//! [`four_lane_sum`]: super::sparse::four_lane_sum

use super::sparse::four_lane_sum;

/// A row index type that the gather can load four of at once.
pub(super) trait GatherIndex: Copy + Into<u32> {
    /// Four consecutive indices from `keys[at..at + 4]`, widened to 32 bits.
    ///
    /// # Safety
    /// `at + 4 <= keys.len()`, and the processor has AVX2.
    #[cfg(target_arch = "x86_64")]
    unsafe fn load_four(keys: &[Self], at: usize) -> std::arch::x86_64::__m128i;
}

impl GatherIndex for u32 {
    #[cfg(target_arch = "x86_64")]
    #[inline]
    unsafe fn load_four(keys: &[Self], at: usize) -> std::arch::x86_64::__m128i {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128};
        debug_assert!(at + 4 <= keys.len());
        // SAFETY: the caller guarantees four indices from `at`; the load is unaligned.
        unsafe { _mm_loadu_si128(keys.as_ptr().add(at).cast::<__m128i>()) }
    }
}

impl GatherIndex for u16 {
    #[cfg(target_arch = "x86_64")]
    #[inline]
    unsafe fn load_four(keys: &[Self], at: usize) -> std::arch::x86_64::__m128i {
        use std::arch::x86_64::{__m128i, _mm_cvtepu16_epi32, _mm_loadl_epi64};
        debug_assert!(at + 4 <= keys.len());
        // SAFETY: the caller guarantees four indices (eight bytes) from `at`, and SSE4.1 with AVX2.
        unsafe { _mm_cvtepu16_epi32(_mm_loadl_epi64(keys.as_ptr().add(at).cast::<__m128i>())) }
    }
}

/// `sum_k values[k] * x[keys[k]]` with [`four_lane_sum`]'s arithmetic (see the module notes), gathered where the
/// processor can.
///
/// # Panics
/// If an index is not below `x.len()` (checked before anything is read, as indexing would).
#[inline]
pub(super) fn sparse_dot<K: GatherIndex>(keys: &[K], values: &[f32], x: &[f64]) -> f64 {
    #[cfg(target_arch = "x86_64")]
    {
        // The gather's indices are signed 32-bit numbers: a longer vector (never a vocabulary) takes the loop.
        if x.len() <= i32::MAX as usize && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 is present.
            return unsafe { gathered(keys, values, x) };
        }
    }
    four_lane_sum(keys, values, |&k| x[k.into() as usize])
}

/// [`sparse_dot`] by AVX2 gathers.
///
/// # Safety
/// The processor has AVX2, and `x.len() <= i32::MAX`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn gathered<K: GatherIndex>(keys: &[K], values: &[f32], x: &[f64]) -> f64 {
    use std::arch::x86_64::{
        _mm_cmpgt_epi32, _mm_loadu_ps, _mm_movemask_epi8, _mm_set1_epi32, _mm_xor_si128,
        _mm256_add_pd, _mm256_cvtps_pd, _mm256_i32gather_pd, _mm256_mul_pd, _mm256_setzero_pd,
        _mm256_storeu_pd,
    };
    let len = keys.len().min(values.len());
    // Every index is checked before its gather, so that a damaged column panics as indexing would rather than
    // read outside `x`. The processor compares signed numbers; flipping the top bit of both sides makes the
    // comparison unsigned.
    let flip = _mm_set1_epi32(i32::MIN);
    let limit = _mm_set1_epi32((x.len() as u32 ^ 0x8000_0000) as i32);
    let body = len - len % 4;
    let mut sums = _mm256_setzero_pd();
    let mut at = 0;
    while at < body {
        // SAFETY: `at + 4 <= body <= len` for both slices; AVX2 is present.
        let (indices, four) = unsafe {
            (
                K::load_four(keys, at),
                _mm256_cvtps_pd(_mm_loadu_ps(values.as_ptr().add(at))),
            )
        };
        // `index >= bound` for any lane: some lane's `bound > index` is false.
        let below = _mm_cmpgt_epi32(limit, _mm_xor_si128(indices, flip));
        assert!(
            _mm_movemask_epi8(below) == 0xffff,
            "a row index beyond the vector's {} entries",
            x.len()
        );
        // SAFETY: every index is below `x.len()` (asserted just above), which is at most `i32::MAX`, so the
        // gather's signed indices are the same numbers; scale 8 is the size of an f64.
        let gathered = unsafe { _mm256_i32gather_pd::<8>(x.as_ptr(), indices) };
        sums = _mm256_add_pd(sums, _mm256_mul_pd(four, gathered));
        at += 4;
    }
    let mut lanes = [0.0f64; 4];
    // SAFETY: four f64 into a four-element array.
    unsafe { _mm256_storeu_pd(lanes.as_mut_ptr(), sums) };
    let mut total = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
    for (&key, &value) in keys[body..len].iter().zip(&values[body..len]) {
        total += f64::from(value) * x[key.into() as usize];
    }
    total
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn reference<K: GatherIndex>(keys: &[K], values: &[f32], x: &[f64]) -> f64 {
        four_lane_sum(keys, values, |&k| x[k.into() as usize])
    }

    proptest! {
        #[test]
        fn the_gathered_sum_is_the_four_lane_sum_bit_for_bit(
            x in prop::collection::vec(-1e3f64..1e3, 1..300),
            entries in prop::collection::vec((0usize..300, -1e3f32..1e3), 0..70),
        ) {
            let keys: Vec<u32> = entries.iter().map(|&(k, _)| (k % x.len()) as u32).collect();
            let narrow: Vec<u16> = keys.iter().map(|&k| k as u16).collect();
            let values: Vec<f32> = entries.iter().map(|&(_, v)| v).collect();
            let expected = reference(&keys, &values, &x);
            prop_assert_eq!(sparse_dot(&keys, &values, &x).to_bits(), expected.to_bits());
            prop_assert_eq!(sparse_dot(&narrow, &values, &x).to_bits(), expected.to_bits());
        }
    }

    // Without AVX2 the plain loop's indexing panics instead, with its own message.
    #[test]
    #[should_panic]
    fn an_index_past_the_vector_panics_rather_than_reads() {
        let x = vec![1.0; 8];
        sparse_dot(&[0u32, 1, 2, 8, 3], &[1.0; 5], &x);
    }

    #[test]
    #[should_panic]
    fn an_index_with_the_top_bit_set_panics_rather_than_reads() {
        let x = vec![1.0; 8];
        sparse_dot(&[0u32, 1, 2, u32::MAX], &[1.0; 4], &x);
    }
}
