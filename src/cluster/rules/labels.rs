//! What a split may do with the documents' labels: measure each eigenvector against them (Cristianini,
//! Shawe-Taylor & Kandola, Fig. 1a), and, for a rule told to, use a seeded share of them to choose its threshold
//! (the same paper's transduction, end of section 3.2). A rule's split never depends on the labels unless its
//! parameters ask for them.

use std::collections::BTreeMap;

use crate::rng::SplitMix64;

/// The documents' labels, by column of the data matrix, for the splits that read them.
pub trait DocumentLabels: Sync {
    /// The label of document `column` (an index into the collection's label names), if it has one.
    fn label(&self, column: usize) -> Option<u32>;
}

impl DocumentLabels for [Option<u32>] {
    fn label(&self, column: usize) -> Option<u32> {
        self.get(column).copied().flatten()
    }
}

impl DocumentLabels for Vec<Option<u32>> {
    fn label(&self, column: usize) -> Option<u32> {
        self.as_slice().label(column)
    }
}

impl DocumentLabels for crate::dataset::Dataset {
    fn label(&self, column: usize) -> Option<u32> {
        self.documents
            .get(column)
            .and_then(|document| document.label)
    }
}

/// The generator stream of the labels shown, apart from the streams the randomised rules draw from.
const REVEAL_STREAM: u64 = 0x7265_7665_616C;

/// The labelled columns among `0..columns` whose labels a transductive split is shown: `fraction` of them
/// (rounded), drawn by `seed`. The draw is over the whole collection, not the node, so that every node of a tree
/// sees the same documents' labels. Sorted.
pub(crate) fn revealed(
    labels: &dyn DocumentLabels,
    columns: usize,
    fraction: f64,
    seed: u64,
) -> Vec<usize> {
    let labelled: Vec<usize> = (0..columns)
        .filter(|&j| labels.label(j).is_some())
        .collect();
    let count = (fraction * labelled.len() as f64).round() as usize;
    let mut shown: Vec<usize> = SplitMix64::for_stream(seed, REVEAL_STREAM)
        .distinct(count, labelled.len())
        .into_iter()
        .map(|at| labelled[at])
        .collect();
    shown.sort_unstable();
    shown
}

/// Each member's label as a small class number (`0..classes`, in label order), `None` for a member without one or
/// not among `shown` (when given).
pub(crate) fn member_classes(
    labels: &dyn DocumentLabels,
    members: &[usize],
    shown: Option<&[usize]>,
) -> (Vec<Option<usize>>, usize) {
    let visible = |j: usize| shown.is_none_or(|shown| shown.binary_search(&j).is_ok());
    let mut names: BTreeMap<u32, usize> = BTreeMap::new();
    for &j in members {
        if let Some(label) = labels.label(j).filter(|_| visible(j)) {
            names.insert(label, 0);
        }
    }
    for (class, slot) in names.values_mut().enumerate() {
        *slot = class;
    }
    let classes = members
        .iter()
        .map(|&j| {
            labels
                .label(j)
                .filter(|_| visible(j))
                .map(|label| names[&label])
        })
        .collect();
    (classes, names.len())
}

/// The alignment (Definition 1) of `v v'` with the labels' matrix `M` (`M_ij = +1` for two members of one class,
/// `-1` for two of different classes), over the labelled members: `v_L' M v_L / (||v_L||^2 m_L)`, `v_L` the
/// entries of the labelled members and `m_L` their count (`||M||_F = m_L`). With two classes `M = y y'` and this is
/// `(v . y)^2 / (||v||^2 m)`, the alignment of an eigenvector with the labels of the paper's Fig. 1a. `None` when
/// no member is labelled or `v_L` is zero.
pub(crate) fn label_alignment(v: &[f64], classes: &[Option<usize>], count: usize) -> Option<f64> {
    let mut sums = vec![0.0; count];
    let (mut squared, mut labelled) = (0.0, 0usize);
    for (&x, class) in v.iter().zip(classes) {
        if let Some(class) = class {
            sums[*class] += x;
            squared += x * x;
            labelled += 1;
        }
    }
    if labelled == 0 || squared <= 0.0 {
        return None;
    }
    let total: f64 = sums.iter().sum();
    let quadratic = 2.0 * sums.iter().map(|s| s * s).sum::<f64>() - total * total;
    Some(quadratic / (squared * labelled as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_alignment_is_definition_one_with_the_label_matrix() {
        let v: [f64; 6] = [0.3, -0.5, 0.1, 0.7, -0.2, 0.4];
        let labels: Vec<Option<u32>> = vec![Some(2), Some(0), None, Some(2), Some(5), Some(0)];
        let members: Vec<usize> = (0..6).collect();
        let (classes, count) = member_classes(&labels, &members, None);
        assert_eq!(count, 3);
        assert_eq!(classes[2], None);
        // Brute force: <v_L v_L', M>_F / (||v_L v_L'||_F ||M||_F).
        let mut inner = 0.0;
        let mut norm = 0.0f64;
        let mut m_norm = 0.0f64;
        for i in 0..6 {
            for j in 0..6 {
                let (Some(a), Some(b)) = (labels[i], labels[j]) else {
                    continue;
                };
                let m = if a == b { 1.0 } else { -1.0 };
                inner += v[i] * v[j] * m;
                norm += (v[i] * v[j]).powi(2);
                m_norm += m * m;
            }
        }
        let expected = inner / (norm.sqrt() * m_norm.sqrt());
        let found = label_alignment(&v, &classes, count).expect("labelled members");
        assert!((found - expected).abs() < 1e-12, "{found} vs {expected}");
        // Two classes: (v . y)^2 / (||v||^2 m).
        let two: Vec<Option<u32>> = vec![Some(0), Some(1), Some(1), Some(0), Some(1), Some(0)];
        let (classes, count) = member_classes(&two, &members, None);
        let y = [1.0, -1.0, -1.0, 1.0, -1.0, 1.0];
        let dot: f64 = v.iter().zip(y).map(|(a, b)| a * b).sum();
        let squared: f64 = v.iter().map(|a| a * a).sum();
        let found = label_alignment(&v, &classes, count).expect("labelled");
        assert!((found - dot * dot / (squared * 6.0)).abs() < 1e-12);
        assert_eq!(label_alignment(&v, &[None; 6], 0), None);
    }

    #[test]
    fn the_labels_shown_are_a_seeded_share_of_the_labelled_documents() {
        let labels: Vec<Option<u32>> = (0..200)
            .map(|j| (j % 7 != 0).then_some((j % 3) as u32))
            .collect();
        let labelled = labels.iter().filter(|l| l.is_some()).count();
        let shown = revealed(&labels, 200, 0.2, 5);
        assert_eq!(shown.len(), (0.2 * labelled as f64).round() as usize);
        assert!(shown.windows(2).all(|w| w[0] < w[1]));
        assert!(shown.iter().all(|&j| labels[j].is_some()));
        assert_eq!(shown, revealed(&labels, 200, 0.2, 5));
        assert_ne!(shown, revealed(&labels, 200, 0.2, 6));
        assert!(revealed(&labels, 200, 0.0, 5).is_empty());
        assert_eq!(revealed(&labels, 200, 1.0, 5).len(), labelled);
        // Only the shown members' classes are seen.
        let members: Vec<usize> = (0..200).collect();
        let (classes, _) = member_classes(&labels, &members, Some(&shown));
        let seen: Vec<usize> = (0..200).filter(|&j| classes[j].is_some()).collect();
        assert_eq!(seen, shown);
    }
}
