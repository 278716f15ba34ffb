//! A small seeded generator, shared by the randomised split rules (bisecting k-means, k-means) and the Lanczos
//! start vector.
//!
//! SplitMix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014). pdx promises
//! the same tree for the same seed, across machines and across versions of its dependencies; a generator written
//! here cannot change under us the way a crate's default generator may between releases, and the rules only need
//! a handful of uniform draws per split.

/// SplitMix64 state.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator whose state starts at `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// A generator for one use, mixing the user's seed with a stream number (e.g. the node id) so that different
    /// nodes draw different numbers from the same seed.
    pub fn for_stream(seed: u64, stream: u64) -> Self {
        let mut generator = SplitMix64(seed ^ stream.wrapping_mul(0xA24B_AED4_963E_E407));
        generator.next_u64();
        generator
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1), from the top 53 bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [-1, 1).
    pub fn next_symmetric(&mut self) -> f64 {
        2.0 * self.next_f64() - 1.0
    }

    pub fn fill_symmetric(&mut self, x: &mut [f64]) {
        x.iter_mut().for_each(|v| *v = self.next_symmetric());
    }

    /// Uniform in `0..bound` (bound > 0), by rejection so that no value is favoured.
    pub fn below(&mut self, bound: usize) -> usize {
        let bound = bound as u64;
        let zone = u64::MAX - u64::MAX % bound;
        loop {
            let draw = self.next_u64();
            if draw < zone {
                return (draw % bound) as usize;
            }
        }
    }

    /// `count` distinct values from `0..population`, in the order drawn (partial Fisher-Yates on a sparse map).
    pub fn distinct(&mut self, count: usize, population: usize) -> Vec<usize> {
        let count = count.min(population);
        let mut swapped: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
        let mut picked = Vec::with_capacity(count);
        for i in 0..count {
            let j = i + self.below(population - i);
            let at_j = *swapped.get(&j).unwrap_or(&j);
            let at_i = *swapped.get(&i).unwrap_or(&i);
            swapped.insert(j, at_i);
            picked.push(at_j);
        }
        picked
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_draws_and_distinct_values() {
        let mut a = SplitMix64::for_stream(7, 3);
        let mut b = SplitMix64::for_stream(7, 3);
        assert_eq!(a.next_u64(), b.next_u64());
        assert_ne!(
            SplitMix64::for_stream(7, 3).next_u64(),
            SplitMix64::for_stream(7, 4).next_u64()
        );
        let picked = SplitMix64::for_stream(1, 1).distinct(10, 12);
        let mut sorted = picked.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 10);
        assert!(picked.iter().all(|&p| p < 12));
    }
}
