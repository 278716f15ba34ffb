//! Term selection: keeping the N terms that rank highest by document frequency or by mutual information with the
//! documents' labels (Kim, Shim & Choi, 20 Newsgroups experiment: "we selected top 1000 words by ranking the
//! values of mutual information").
//!
//! The paper's words are "mutual information between terms and documents", and its term-document matrices come
//! from McCallum's Bow toolkit, whose vocabulary pruning ranks words by information gain with the class labels.
//! pdx reads it so: the mutual information between a term's presence in a document (a binary variable) and the
//! document's label, over the labelled documents,
//! `I(T; C) = sum_{t in {0, 1}} sum_c P(t, c) log(P(t, c) / (P(t) P(c)))`, from document counts. Documents
//! without a label take no part; the log's base does not change the ranking (natural logs are used).

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::{KeptTerms, TermCounts, TextError, TextOption};

/// Which terms to keep, after the document-frequency filters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TermSelection {
    /// `df:N`: the N terms in the most documents (ties: alphabetical order), as `max_terms` keeps them.
    DocumentFrequency(usize),
    /// `mi:N`: the N terms of highest mutual information with the labels (ties: alphabetical order); a
    /// collection without labels is refused.
    MutualInformation(usize),
}

impl TermSelection {
    /// `mi:N` or `df:N`.
    pub fn parse(text: &str) -> Result<TermSelection, TextError> {
        let refused = || {
            TextError::OutOfRange {
            option: TextOption::SelectTerms,
            value: text.to_string(),
            expected: "mi:N (mutual information with the labels) or df:N (document frequency), N at least 1"
                .into(),
        }
        };
        let (kind, count) = text.trim().split_once(':').ok_or_else(refused)?;
        let count: usize = count.trim().parse().map_err(|_| refused())?;
        if count == 0 {
            return Err(refused());
        }
        match kind.trim().to_ascii_lowercase().as_str() {
            "mi" => Ok(TermSelection::MutualInformation(count)),
            "df" => Ok(TermSelection::DocumentFrequency(count)),
            _ => Err(refused()),
        }
    }

    /// How many terms are kept.
    pub fn count(&self) -> usize {
        match *self {
            TermSelection::DocumentFrequency(count) | TermSelection::MutualInformation(count) => {
                count
            }
        }
    }
}

impl std::fmt::Display for TermSelection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TermSelection::DocumentFrequency(count) => write!(f, "df:{count}"),
            TermSelection::MutualInformation(count) => write!(f, "mi:{count}"),
        }
    }
}

/// Each term's mutual information with the labels: `columns` yields each document's terms (each at most once,
/// numbered below `terms`), `labels` each document's class (numbered below `classes`), or `None` for a document
/// that takes no part. Every term gets 0 when no document is labelled. The values are rounded to a multiple of
/// [`MI_RESOLUTION`], so that terms whose counts are alike but for the class they mark (a word in three of one
/// class's four documents, another in three of another's) tie exactly, as they do in exact arithmetic, rather
/// than by the order the sum was taken in; ties then go to the alphabetically first term.
pub fn mutual_information<I: Iterator<Item = u32>>(
    terms: usize,
    classes: usize,
    labels: &[Option<u32>],
    mut columns: impl FnMut(usize) -> I,
) -> Vec<f64> {
    // joint[t * classes + c]: labelled documents of class c holding term t.
    let mut joint = vec![0u64; terms * classes];
    let mut class_sizes = vec![0u64; classes];
    for (j, label) in labels.iter().enumerate() {
        let Some(class) = label.map(|c| c as usize) else {
            continue;
        };
        assert!(class < classes, "a class below the number of classes");
        class_sizes[class] += 1;
        for term in columns(j) {
            joint[term as usize * classes + class] += 1;
        }
    }
    let labelled: u64 = class_sizes.iter().sum();
    if labelled == 0 {
        return vec![0.0; terms];
    }
    let n = labelled as f64;
    // One cell's share of the sum: P(t, c) log(P(t, c) / (P(t) P(c))), with 0 log 0 = 0.
    let cell = |both: u64, term_side: u64, class_side: u64| -> f64 {
        if both == 0 {
            return 0.0;
        }
        let both = both as f64;
        (both / n) * (both * n / (term_side as f64 * class_side as f64)).ln()
    };
    (0..terms)
        .map(|t| {
            let row = &joint[t * classes..(t + 1) * classes];
            let holding: u64 = row.iter().sum();
            let lacking = labelled - holding;
            row.iter()
                .zip(&class_sizes)
                .map(|(&with, &size)| cell(with, holding, size) + cell(size - with, lacking, size))
                .sum::<f64>()
        })
        .map(|information| (information / MI_RESOLUTION).round() * MI_RESOLUTION)
        .collect()
}

/// The step mutual information is rounded to: far below any difference of counts in a collection of fewer
/// than a billion documents, far above the rounding of a sum of a few hundred terms.
pub const MI_RESOLUTION: f64 = 1e-12;

/// The `count` indices of the highest `scores` (ties: the alphabetically first of `names`, one per score),
/// ascending. Ties go by name rather than by number, so that what is kept does not depend on how terms are
/// numbered.
pub fn top_by_score(scores: &[f64], names: &[String], count: usize) -> Vec<usize> {
    assert_eq!(scores.len(), names.len(), "one name per score");
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| {
        scores[b]
            .total_cmp(&scores[a])
            .then(names[a].cmp(&names[b]))
    });
    order.truncate(count);
    order.sort_unstable();
    order
}

impl KeptTerms {
    /// Only the kept terms `keep` (numbers among the kept terms, ascending), renumbered in their order.
    pub fn restricted(&self, keep: &[usize]) -> KeptTerms {
        let mut renumbered = vec![u32::MAX; self.terms.len()];
        for (new, &old) in keep.iter().enumerate() {
            renumbered[old] = new as u32;
        }
        KeptTerms {
            new_index: self
                .new_index
                .iter()
                .map(|&kept| match kept {
                    u32::MAX => u32::MAX,
                    kept => renumbered[kept as usize],
                })
                .collect(),
            terms: keep.iter().map(|&t| self.terms[t].clone()).collect(),
            words: match self.words.is_empty() {
                true => Vec::new(),
                false => keep.iter().map(|&t| self.words[t].clone()).collect(),
            },
        }
    }
}

impl TermCounts {
    /// Only the terms `keep` (ascending term numbers), renumbered in their order; the words follow.
    pub fn restricted(mut self, keep: &[usize]) -> TermCounts {
        let mut renumbered = vec![u32::MAX; self.terms.len()];
        for (new, &old) in keep.iter().enumerate() {
            renumbered[old] = new as u32;
        }
        self.documents.par_iter_mut().for_each(|document| {
            document.retain_mut(|(term, _)| {
                *term = renumbered[*term as usize];
                *term != u32::MAX
            });
        });
        self.terms = keep
            .iter()
            .map(|&t| std::mem::take(&mut self.terms[t]))
            .collect();
        if !self.words.is_empty() {
            self.words = keep
                .iter()
                .map(|&t| std::mem::take(&mut self.words[t]))
                .collect();
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mutual information of a term with the labels straight from its definition, over a joint table of
    /// document counts: `table[t][c]`, t = 0 absent, 1 present.
    fn by_definition(table: [[f64; 2]; 2]) -> f64 {
        let n: f64 = table.iter().flatten().sum();
        let mut total = 0.0;
        for t in 0..2 {
            for c in 0..2 {
                let p = table[t][c] / n;
                let p_t = (table[t][0] + table[t][1]) / n;
                let p_c = (table[0][c] + table[1][c]) / n;
                if p > 0.0 {
                    total += p * (p / (p_t * p_c)).ln();
                }
            }
        }
        total
    }

    #[test]
    fn a_hand_made_two_by_two_case_matches_the_definition() {
        // Six documents, classes 0 0 0 1 1 1. Term 0 is in documents 0, 1, 2 (all of class 0): it tells the
        // class, I = ln 2. Term 1 is in documents 0 and 3 (one of each): I = 0. Term 2 is in 0, 1, 3.
        let documents: Vec<Vec<u32>> = vec![
            vec![0, 1, 2],
            vec![0, 2],
            vec![0],
            vec![1, 2],
            vec![],
            vec![],
        ];
        let labels = [Some(0), Some(0), Some(0), Some(1), Some(1), Some(1)];
        let scores = mutual_information(3, 2, &labels, |j| documents[j].iter().copied());
        assert!(
            (scores[0] - std::f64::consts::LN_2).abs() <= MI_RESOLUTION,
            "{scores:?}"
        );
        assert!(scores[1].abs() <= MI_RESOLUTION, "{scores:?}");
        // Term 2: present in two of class 0 and one of class 1; absent in one of class 0, two of class 1.
        let expected = by_definition([[1.0, 2.0], [2.0, 1.0]]);
        assert!(
            (scores[2] - expected).abs() <= MI_RESOLUTION,
            "{} vs {expected}",
            scores[2]
        );
        assert_eq!(
            top_by_score(&scores, &names(&["a", "b", "c"]), 2),
            vec![0, 2]
        );
    }

    #[test]
    fn unlabelled_documents_take_no_part() {
        let documents: Vec<Vec<u32>> = vec![vec![0], vec![], vec![0], vec![0]];
        // The last two are unlabelled: among the labelled, term 0 marks class 0 exactly.
        let labels = [Some(0), Some(1), None, None];
        let scores = mutual_information(1, 2, &labels, |j| documents[j].iter().copied());
        assert!((scores[0] - std::f64::consts::LN_2).abs() <= MI_RESOLUTION);
        let none = mutual_information(1, 2, &[None, None], |j| documents[j].iter().copied());
        assert_eq!(none, vec![0.0]);
    }

    #[test]
    fn selections_parse_and_print_back() {
        for text in ["mi:1000", "df:5"] {
            assert_eq!(TermSelection::parse(text).expect(text).to_string(), text);
        }
        assert_eq!(
            TermSelection::parse("MI: 7").expect("case and spaces"),
            TermSelection::MutualInformation(7)
        );
        for bad in ["mi", "mi:0", "mi:x", "chi:10", ":3", ""] {
            assert!(TermSelection::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn terms_alike_but_for_their_class_tie_exactly() {
        // Three classes of four documents; term c marks three documents of class c. Summed in class order, the
        // three values could differ in their last bits; rounded, they are equal.
        let documents: Vec<Vec<u32>> = (0..12)
            .map(|j| {
                if j % 4 < 3 {
                    vec![(j / 4) as u32]
                } else {
                    vec![]
                }
            })
            .collect();
        let labels: Vec<Option<u32>> = (0..12).map(|j| Some(j / 4)).collect();
        let scores = mutual_information(3, 3, &labels, |j| documents[j].iter().copied());
        assert!(
            scores[0] > 0.0 && scores[0] == scores[1] && scores[1] == scores[2],
            "{scores:?}"
        );
        assert_eq!(top_by_score(&scores, &names(&["a", "b", "c"]), 1), vec![0]);
    }

    #[test]
    fn ties_go_to_the_alphabetically_first_name_whatever_its_number() {
        let in_order = names(&["a", "b", "c", "d"]);
        assert_eq!(
            top_by_score(&[1.0, 2.0, 2.0, 0.5], &in_order, 2),
            vec![1, 2]
        );
        assert_eq!(
            top_by_score(&[1.0, 1.0, 1.0], &in_order[..3], 2),
            vec![0, 1]
        );
        assert_eq!(top_by_score(&[1.0], &in_order[..1], 5), vec![0]);
        // Terms numbered by frequency: "c" (number 0) loses its tie to "a" (number 2).
        let by_frequency = names(&["c", "b", "a"]);
        assert_eq!(top_by_score(&[1.0, 2.0, 1.0], &by_frequency, 2), vec![1, 2]);
    }

    fn names(names: &[&str]) -> Vec<String> {
        names.iter().map(|name| name.to_string()).collect()
    }
}
