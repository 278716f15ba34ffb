//! Agreement between a clustering (the leaves) and known labels: the confusion matrix, entropy, purity, NMI, the
//! adjusted Rand index, variation of information, and accuracy under the best one-to-one matching of clusters to
//! labels. Documents without a label take no part in these figures.

use crate::cluster::match_shared;
use serde::Serialize;

/// Counts of labelled documents: `counts[cluster][label]`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Confusion {
    pub counts: Vec<Vec<usize>>,
}

/// Per-cluster figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterFigures {
    /// Labelled members.
    pub labelled: usize,
    /// `-sum_i p_i log p_i / log L` over the cluster's label distribution (L = number of labels), in [0, 1].
    pub entropy: f64,
    /// Share of the cluster's labelled members that carry its dominant label.
    pub purity: f64,
    pub dominant_label: Option<usize>,
    /// The label this cluster is matched to by the best one-to-one matching, if any.
    pub matched_label: Option<usize>,
    /// Of the cluster's labelled members, the share carrying the matched label.
    pub precision: Option<f64>,
    /// Of the matched label's documents, the share in this cluster.
    pub recall: Option<f64>,
}

/// Whole-clustering figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GlobalFigures {
    pub labelled: usize,
    /// `sum_j (n_j / n) E_j`, each cluster's entropy normalised by `log L` for L labels — the normalised entropy of
    /// the PDGP paper (Abbey et al., section 5.1: Boley's entropy divided by `log2 k` for k true classes), in [0, 1].
    pub entropy: f64,
    pub purity: f64,
    /// Normalised mutual information, `I(C; K) / ((H(C) + H(K)) / 2)` (the arithmetic-mean normalisation).
    pub nmi: f64,
    /// Adjusted Rand index (Hubert & Arabie 1985).
    pub ari: f64,
    /// Variation of information `H(C | K) + H(K | C)` in nats (Meila 2007; Gkotsopoulou & Monge).
    pub vi: f64,
    /// Share of labelled documents in a cluster matched to their label by the best one-to-one matching
    /// (Hungarian algorithm; with more clusters than labels, the unmatched clusters count as errors, and
    /// vice versa).
    pub accuracy: f64,
    pub error_rate: f64,
}

/// The matching of clusters to labels that maximises the documents on the diagonal: `matching[cluster]`
/// ([`match_shared`] on the confusion counts, the matching pdx uses wherever two groupings meet).
pub fn best_matching(confusion: &Confusion, labels: usize) -> Vec<Option<usize>> {
    match_shared(&confusion.counts, labels)
}

/// The confusion matrix of `clusters` (cluster per document, `None` if outside every cluster) against `labels`.
pub fn confusion(
    clusters: &[Option<usize>],
    labels: &[Option<u32>],
    cluster_count: usize,
    label_count: usize,
) -> Confusion {
    let mut counts = vec![vec![0usize; label_count]; cluster_count];
    for (cluster, label) in clusters.iter().zip(labels) {
        if let (Some(c), Some(l)) = (cluster, label) {
            counts[*c][*l as usize] += 1;
        }
    }
    Confusion { counts }
}

fn entropy_of(counts: impl Iterator<Item = usize> + Clone) -> f64 {
    let total: usize = counts.clone().sum();
    if total == 0 {
        return 0.0;
    }
    let n = total as f64;
    let sum: f64 = counts
        .filter(|&c| c > 0)
        .map(|c| {
            let p = c as f64 / n;
            p * p.ln()
        })
        .sum();
    // A pure distribution sums to -0.0; report it as 0.
    (-sum).max(0.0)
}

fn choose2(n: usize) -> f64 {
    let n = n as f64;
    n * (n - 1.0) / 2.0
}

/// Per-cluster and global figures from a confusion matrix.
pub fn figures(confusion: &Confusion, label_count: usize) -> (Vec<ClusterFigures>, GlobalFigures) {
    let counts = &confusion.counts;
    let label_totals: Vec<usize> = (0..label_count)
        .map(|l| counts.iter().map(|row| row[l]).sum())
        .collect();
    let cluster_totals: Vec<usize> = counts.iter().map(|row| row.iter().sum()).collect();
    let n: usize = cluster_totals.iter().sum();
    let log_labels = (label_count as f64).ln();
    let matching = best_matching(confusion, label_count);

    let per_cluster: Vec<ClusterFigures> = counts
        .iter()
        .zip(&cluster_totals)
        .zip(&matching)
        .map(|((row, &size), &matched)| {
            let dominant = (size > 0).then(|| {
                // The first label of the largest count, so ties resolve the same way every time.
                (0..label_count).fold(0, |best, l| if row[l] > row[best] { l } else { best })
            });
            let entropy = if label_count > 1 {
                entropy_of(row.iter().copied()) / log_labels
            } else {
                0.0
            };
            ClusterFigures {
                labelled: size,
                entropy,
                purity: dominant.map_or(0.0, |d| row[d] as f64 / size as f64),
                dominant_label: dominant,
                matched_label: matched,
                precision: matched
                    .filter(|_| size > 0)
                    .map(|l| row[l] as f64 / size as f64),
                recall: matched
                    .filter(|&l| label_totals[l] > 0)
                    .map(|l| row[l] as f64 / label_totals[l] as f64),
            }
        })
        .collect();

    let total = n.max(1) as f64;
    let entropy = per_cluster
        .iter()
        .map(|c| c.labelled as f64 / total * c.entropy)
        .sum();
    let purity = per_cluster
        .iter()
        .zip(counts)
        .map(|(c, row)| c.dominant_label.map_or(0, |d| row[d]))
        .sum::<usize>() as f64
        / total;
    let h_clusters = entropy_of(cluster_totals.iter().copied());
    let h_labels = entropy_of(label_totals.iter().copied());
    let joint = entropy_of(counts.iter().flat_map(|row| row.iter().copied()));
    let mutual = (h_clusters + h_labels - joint).max(0.0);
    let nmi = if h_clusters + h_labels > 0.0 {
        2.0 * mutual / (h_clusters + h_labels)
    } else {
        1.0
    };
    // H(C | K) + H(K | C) = (H(C, K) - H(K)) + (H(C, K) - H(C)).
    let vi = (2.0 * joint - h_clusters - h_labels).max(0.0);
    let index: f64 = counts.iter().flatten().map(|&c| choose2(c)).sum();
    let sum_rows: f64 = cluster_totals.iter().map(|&c| choose2(c)).sum();
    let sum_cols: f64 = label_totals.iter().map(|&c| choose2(c)).sum();
    let pairs = choose2(n);
    let expected = if pairs > 0.0 {
        sum_rows * sum_cols / pairs
    } else {
        0.0
    };
    let maximum = 0.5 * (sum_rows + sum_cols);
    let ari = if (maximum - expected).abs() > 0.0 {
        (index - expected) / (maximum - expected)
    } else {
        1.0
    };
    let matched: usize = matching
        .iter()
        .enumerate()
        .filter_map(|(c, l)| l.map(|l| counts[c][l]))
        .sum();
    let accuracy = matched as f64 / total;
    (
        per_cluster,
        GlobalFigures {
            labelled: n,
            entropy,
            purity,
            nmi,
            ari,
            vi,
            accuracy,
            error_rate: 1.0 - accuracy,
        },
    )
}

#[cfg(test)]
// The expected values are decimals worked out by hand, on purpose, not library constants.
#[allow(clippy::approx_constant)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    #[test]
    fn two_clusters_two_labels_by_hand() {
        // clusters x labels: [[3, 1], [0, 2]], n = 6.
        let confusion = Confusion {
            counts: vec![vec![3, 1], vec![0, 2]],
        };
        let (clusters, global) = figures(&confusion, 2);
        // Cluster 0: p = (3/4, 1/4), H = 0.562335 nats, / ln 2 = 0.811278. Cluster 1 is pure.
        assert!(close(clusters[0].entropy, 0.811278));
        assert!(close(clusters[1].entropy, 0.0));
        // Global entropy 4/6 * 0.811278 = 0.540852; purity (3 + 2) / 6.
        assert!(close(global.entropy, 0.540852));
        assert!(close(global.purity, 5.0 / 6.0));
        // Best matching c0 -> l0, c1 -> l1: 5 of 6 on the diagonal.
        assert!(close(global.accuracy, 5.0 / 6.0));
        assert!(close(global.error_rate, 1.0 / 6.0));
        assert_eq!(clusters[0].matched_label, Some(0));
        assert!(close(clusters[0].precision.unwrap_or(f64::NAN), 0.75));
        assert!(close(clusters[0].recall.unwrap_or(f64::NAN), 1.0));
        assert!(close(clusters[1].precision.unwrap_or(f64::NAN), 1.0));
        assert!(close(clusters[1].recall.unwrap_or(f64::NAN), 2.0 / 3.0));
        // H(C) = 0.636514, H(K) = ln 2 = 0.693147, H(C, K) = 1.011404, I = 0.318257.
        // NMI = 2 I / (H(C) + H(K)) = 0.478704; VI = 2 H(C, K) - H(C) - H(K) = 0.693147.
        assert!(close(global.nmi, 0.478704), "{}", global.nmi);
        assert!(close(global.vi, 0.693147), "{}", global.vi);
        // ARI: index 3 + 1 = 4; rows C(4,2) + C(2,2) = 7; columns 3 + 3 = 6; pairs 15; expected 7 * 6 / 15 = 2.8;
        // max (7 + 6) / 2 = 6.5; ARI = 1.2 / 3.7 = 0.324324.
        assert!(close(global.ari, 0.324324), "{}", global.ari);
    }

    #[test]
    fn more_clusters_than_labels_leave_one_unmatched() {
        let confusion = Confusion {
            counts: vec![vec![3, 0], vec![0, 2], vec![1, 0]],
        };
        let (clusters, global) = figures(&confusion, 2);
        assert_eq!(
            clusters.iter().map(|c| c.matched_label).collect::<Vec<_>>(),
            [Some(0), Some(1), None]
        );
        assert!(close(global.accuracy, 5.0 / 6.0));
        assert_eq!(clusters[2].precision, None);
    }

    #[test]
    fn fewer_clusters_than_labels() {
        // One cluster holding every document of three labels: it matches its largest label.
        let confusion = Confusion {
            counts: vec![vec![1, 4, 2]],
        };
        let (clusters, global) = figures(&confusion, 3);
        assert_eq!(clusters[0].matched_label, Some(1));
        assert!(close(global.accuracy, 4.0 / 7.0));
        assert!(close(global.nmi, 0.0));
        assert!(close(global.ari, 0.0));
    }

    #[test]
    fn perfect_clustering() {
        let confusion = Confusion {
            counts: vec![vec![0, 5], vec![4, 0]],
        };
        let (_, global) = figures(&confusion, 2);
        assert!(close(global.accuracy, 1.0));
        assert!(close(global.nmi, 1.0));
        assert!(close(global.ari, 1.0));
        assert!(close(global.vi, 0.0));
        assert!(close(global.entropy, 0.0));
    }

    #[test]
    fn confusion_skips_unlabelled_and_unassigned() {
        let clusters = [Some(0), Some(1), None, Some(1)];
        let labels = [Some(1), None, Some(0), Some(0)];
        let confusion = confusion(&clusters, &labels, 2, 2);
        assert_eq!(confusion.counts, vec![vec![0, 1], vec![1, 0]]);
    }
}
