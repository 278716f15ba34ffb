//! The string kernels of Gkotsopoulou & Monge (*Kernel based methods for text clustering*, "String kernels"): `k(x,
//! y) = sum_r num_r(x) num_r(y)` over character substrings r, with r of one length n (*spectrum*) or of every length
//! from 1 to n (*boundrange*), normalised to `k(x, y) / sqrt(k(x, x) k(y, y))` "to remove any bias introduced by
//! document length" (a document with no substring of the lengths asked for has zero similarity to everything, itself
//! included).
//!
//! Substrings are taken over the Unicode characters of the text as stored, with no case folding or other clean-up
//! (Gkotsopoulou & Monge ran the kernels on Reuters text that was already lower-cased and reduced to letters; pdx
//! leaves that to the corpus). Each document becomes a sparse vector of substring counts: a substring is named by a
//! 64-bit hash of its characters (extended one character at a time, so all lengths from one start cost one pass),
//! and the Gram matrix is the documents' inner products through the same inverted index as sparse text. Two
//! different substrings share a hash with probability about `s^2 / 2^65` for s distinct substrings in the node
//! (below 1e-5 for ten million).
//!
//! Memory beyond the Gram matrix: about 20 bytes per (document, distinct substring) pair.

use std::ops::RangeInclusive;

use rayon::prelude::*;

use super::super::Gram;
use super::KernelError;
use super::inner::{CompactColumns, sparse_inner_products};
use crate::document_texts::DocumentTexts;
use crate::progress::Progress;

/// Hash of a substring, extended one character at a time.
#[inline]
fn extend_hash(state: u64, c: char) -> u64 {
    (state.rotate_left(5) ^ u64::from(c)).wrapping_mul(0x517c_c1b7_2722_0a95)
}

/// A final mix (SplitMix64's), so that related prefixes spread over all 64 bits.
#[inline]
fn finish_hash(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Sorted `(substring hash, count)` of the substrings of `text` whose length (in characters) is in `lengths`.
fn substring_counts(text: &str, lengths: &RangeInclusive<usize>) -> Vec<(u64, u32)> {
    let chars: Vec<char> = text.chars().collect();
    let (shortest, longest) = (*lengths.start(), *lengths.end());
    let mut hashes = Vec::new();
    for start in 0..chars.len() {
        let mut state = 0x243f_6a88_85a3_08d3;
        for (offset, &c) in chars[start..].iter().take(longest).enumerate() {
            state = extend_hash(state, c);
            if offset + 1 >= shortest {
                hashes.push(finish_hash(state));
            }
        }
    }
    hashes.sort_unstable();
    let mut counts: Vec<(u64, u32)> = Vec::new();
    for hash in hashes {
        match counts.last_mut() {
            Some((last, count)) if *last == hash => *count += 1,
            _ => counts.push((hash, 1)),
        }
    }
    counts
}

/// The members' substring-count vectors as compact sparse columns.
fn count_columns(
    texts: &dyn DocumentTexts,
    members: &[usize],
    lengths: &RangeInclusive<usize>,
    progress: Option<&Progress>,
) -> Result<CompactColumns, KernelError> {
    let per_document: Vec<Vec<(u64, u32)>> = members
        .par_iter()
        .map(|&j| {
            if let Some(progress) = progress {
                progress.check()?;
            }
            let text = texts.text(j).map_err(KernelError::TextUnreadable)?;
            Ok(substring_counts(&text, lengths))
        })
        .collect::<Result<_, KernelError>>()?;
    let mut vocabulary: Vec<u64> = per_document
        .iter()
        .flat_map(|counts| counts.iter().map(|&(hash, _)| hash))
        .collect();
    vocabulary.par_sort_unstable();
    vocabulary.dedup();
    let mut columns = CompactColumns {
        rows: vocabulary.len(),
        offsets: Vec::with_capacity(members.len() + 1),
        indices: Vec::new(),
        values: Vec::new(),
    };
    columns.offsets.push(0);
    for counts in per_document {
        for (hash, count) in counts {
            // Present by construction; ids follow the sorted hashes, so each column stays sorted.
            let id = vocabulary.partition_point(|&h| h < hash);
            columns.indices.push(id as u32);
            columns.values.push(f64::from(count));
        }
        columns.offsets.push(columns.indices.len());
    }
    Ok(columns)
}

/// The normalised string kernel over substrings with lengths in `lengths`.
pub(crate) fn string_kernel(
    texts: &dyn DocumentTexts,
    members: &[usize],
    lengths: RangeInclusive<usize>,
    progress: Option<&Progress>,
) -> Result<Gram, KernelError> {
    let columns = count_columns(texts, members, &lengths, progress)?;
    let mut gram = sparse_inner_products(&columns, progress)?;
    super::normalise_in_place(&mut gram);
    Ok(gram)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;
    use std::collections::HashMap;

    struct Texts(Vec<&'static str>);

    impl DocumentTexts for Texts {
        fn text(&self, column: usize) -> Result<Cow<'_, str>, String> {
            Ok(Cow::Borrowed(self.0[column]))
        }
    }

    /// Counts of every substring with a length in `lengths`, by brute force on strings.
    fn brute_counts(text: &str, lengths: &RangeInclusive<usize>) -> HashMap<String, f64> {
        let chars: Vec<char> = text.chars().collect();
        let mut counts = HashMap::new();
        for length in lengths.clone() {
            for window in chars.windows(length) {
                *counts
                    .entry(window.iter().collect::<String>())
                    .or_insert(0.0) += 1.0;
            }
        }
        counts
    }

    fn brute_kernel(a: &str, b: &str, lengths: &RangeInclusive<usize>) -> f64 {
        let (ca, cb) = (brute_counts(a, lengths), brute_counts(b, lengths));
        ca.iter().map(|(s, x)| x * cb.get(s).unwrap_or(&0.0)).sum()
    }

    #[test]
    fn spectrum_and_boundrange_match_brute_force_counts() {
        let texts = Texts(vec![
            "the cat sat on the mat",
            "a cat and a hat",
            "mississippi",
            "naïve café, naïve",
            "ab",
            "",
        ]);
        let members: Vec<usize> = (0..texts.0.len()).collect();
        for lengths in [2..=2, 3..=3, 1..=4, 1..=1] {
            let gram =
                string_kernel(&texts, &members, lengths.clone(), None).expect("not cancelled");
            for (i, a) in texts.0.iter().enumerate() {
                for (j, b) in texts.0.iter().enumerate() {
                    let norm = (brute_kernel(a, a, &lengths) * brute_kernel(b, b, &lengths)).sqrt();
                    let expected = if norm > 0.0 {
                        brute_kernel(a, b, &lengths) / norm
                    } else {
                        0.0
                    };
                    assert!(
                        (gram.get(i, j) - expected).abs() < 1e-12,
                        "{lengths:?} {a:?} {b:?}: {} vs {expected}",
                        gram.get(i, j)
                    );
                }
            }
        }
    }
}
