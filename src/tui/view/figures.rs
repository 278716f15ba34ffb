//! The figures a rule recorded of a split, one per line, for the Preview tab's account of a split node.

use crate::cluster::rules::SplitDetail;

/// The figures `detail` has, one per line; those measured against the labels only when `labels_shown` (not in
/// label-blind mode).
pub(super) fn split_figures(detail: &SplitDetail, labels_shown: bool) -> Vec<String> {
    let list = |values: &[f64]| {
        values
            .iter()
            .map(|v| format!("{v:.4}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut lines = Vec::new();
    if let (Some(alignment), Some(bound)) = (detail.alignment, detail.alignment_bound) {
        lines.push(format!(
            "alignment {alignment:.4} (its upper bound λmax/‖K‖F {bound:.4})"
        ));
    }
    if let (Some(cost), Some(bound)) = (detail.cut_cost, detail.cut_cost_bound) {
        let sized = detail
            .cut_cost_split_bound
            .map_or(String::new(), |b| format!("; for these sizes {b:.4}"));
        lines.push(format!(
            "cut cost {cost:.4} (lower bound λ/(2‖K‖F) of an even split {bound:.4}{sized})"
        ));
    }
    if let Some(known) = detail.known_labels {
        lines.push(format!(
            "threshold chosen on K + C0·M with {known} members' labels shown"
        ));
    }
    if let Some(components) = detail.kernel_components {
        lines.push(format!(
            "geodesic graph: {components} connected component(s)"
        ));
    }
    if let Some(c_star) = detail.kernel_c_star {
        lines.push(format!("c* {c_star:.4}"));
    }
    if let Some(sigma) = detail.kernel_sigma {
        lines.push(format!("Gaussian width σ {sigma:.4}"));
    }
    if let Some(curve) = &detail.kernel_sigma_curve {
        lines.push("gaussian:auto, λmax/‖Kc‖F by width σ (the largest chosen):".into());
        lines.extend(
            curve
                .iter()
                .map(|[sigma, ratio]| format!("  σ {sigma:>10.4}  {ratio:.4}")),
        );
    }
    if let Some(scatter) = detail.kernel_scatter {
        let children = detail
            .child_kernel_scatters
            .as_deref()
            .map_or(String::new(), |c| format!(" → children {}", list(c)));
        lines.push(format!("kernel scatter {scatter:.4}{children}"));
    }
    match (&detail.label_alignments, detail.eigenvalues.as_deref()) {
        (Some(alignments), Some(values)) if labels_shown => {
            lines.push("leading eigenvectors: eigenvalue, alignment with the labels:".into());
            lines.extend(values.iter().zip(alignments).enumerate().map(
                |(i, (value, alignment))| format!("  v{:<3} {value:>12.4}  {alignment:.4}", i + 1),
            ));
        }
        (_, Some(values)) if !values.is_empty() => {
            // Label-blind: the eigenvalue the split used, not the others measured against the labels.
            let used = if detail.label_alignments.is_some() {
                &values[..1]
            } else {
                values
            };
            lines.push(format!("eigenvalues used: {}", list(used)));
        }
        _ => {}
    }
    if !detail.singular_values.is_empty() {
        lines.push(format!(
            "singular values: {}",
            list(&detail.singular_values)
        ));
    }
    if let Some(iterations) = detail.iterations {
        lines.push(format!("{iterations} Lloyd iterations"));
    }
    if let Some(start) = detail.start_objective {
        lines.push(format!("objective of the starting split {start:.4}"));
    }
    if lines.is_empty() {
        lines.push("no figures beyond the children's sizes and scatter".into());
    }
    lines
}
