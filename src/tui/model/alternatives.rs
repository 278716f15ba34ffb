//! Side-by-side views: a node's alternative splits (`A`), and a marked node with the selected one (`v`).

use crate::report::compare::{self, NodeComparison, SplitSummary};
use crate::report::terms;

use super::analysis::Analysis;
use super::detail::DETAIL_TERMS;

/// Terms per child in the comparison of alternatives.
const SIDE_TERMS: usize = 8;

/// A node's splits side by side, as the popup shows them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AlternativesView {
    pub node: usize,
    pub splits: Vec<SplitSummary>,
}

/// Two nodes side by side: the comparison, and each node's members per label (empty without labels).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ComparisonView {
    pub comparison: NodeComparison,
    pub label_rows: Vec<(String, usize, usize)>,
}

/// Node `id`'s splits side by side, measured against the labels when they are shown.
pub(super) fn alternatives(
    analysis: &mut Analysis,
    id: usize,
    labels_shown: bool,
) -> Result<AlternativesView, String> {
    if analysis.tree().split_count(id) == 0 {
        return Err(format!(
            "{} is a leaf: no split to compare",
            analysis.label(id)
        ));
    }
    let labels = analysis.document_labels();
    let label_count = analysis.data().label_names.len();
    let labelled = (labels_shown && label_count > 0).then_some((&labels[..], label_count));
    compare::compare_splits(
        analysis.tree(),
        terms::Words::of(analysis.data()),
        id,
        labelled,
        SIDE_TERMS,
    )
    .map(|splits| AlternativesView { node: id, splits })
    .map_err(|error| error.to_string())
}

/// Node `a` (the marked one) and node `b` side by side, with their members per label when labels are shown.
pub(super) fn comparison(
    analysis: &Analysis,
    a: usize,
    b: usize,
    labels_shown: bool,
) -> Result<ComparisonView, String> {
    let comparison = compare::compare_nodes(
        analysis.tree(),
        terms::Words::of(analysis.data()),
        a,
        b,
        DETAIL_TERMS,
    )
    .map_err(|error| error.to_string())?;
    let counts = |id: usize| analysis.derived().label_counts.get(&id);
    let label_rows = match (labels_shown, counts(a), counts(b)) {
        (true, Some(in_a), Some(in_b)) => analysis
            .data()
            .label_names
            .iter()
            .zip(in_a.iter().zip(in_b))
            .filter(|(_, (x, y))| **x > 0 || **y > 0)
            .map(|(name, (&x, &y))| (name.clone(), x, y))
            .collect(),
        _ => Vec::new(),
    };
    Ok(ComparisonView {
        comparison,
        label_rows,
    })
}
