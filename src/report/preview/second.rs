//! The second principal direction of a node whose first is known, for a preview's scatter plot: the leading
//! direction of the node operator with the first deflated away, `B (I - v_1 v_1^T)`.

use crate::cluster::ClusterError;
use crate::cluster::rules::SplitContext;
use crate::linalg::{self, CentredColumns, KnownSummary, LanczosOptions, LinearOperator};

/// `B (I - v v^T)` for a unit `v` of length `B.cols()`: `B` with the direction `v` removed from its row space.
/// When `v` is `B`'s leading right singular vector, the leading singular triplet of this operator is `B`'s
/// second (`B` and the projection share their right singular vectors). The projections cost a pass over `v`
/// per product, nothing beside the product itself, and are sequential sums, so the result does not depend on
/// the number of threads.
struct Deflated<'a> {
    operator: &'a dyn LinearOperator,
    removed: &'a [f64],
}

impl Deflated<'_> {
    fn project(&self, x: &mut [f64]) {
        let along: f64 = self.removed.iter().zip(x.iter()).map(|(v, x)| v * x).sum();
        x.iter_mut()
            .zip(self.removed)
            .for_each(|(x, v)| *x -= along * v);
    }
}

impl LinearOperator for Deflated<'_> {
    fn rows(&self) -> usize {
        self.operator.rows()
    }

    fn cols(&self) -> usize {
        self.operator.cols()
    }

    fn apply(&self, x: &[f64], y: &mut [f64]) {
        let mut projected = x.to_vec();
        self.project(&mut projected);
        self.operator.apply(&projected, y);
    }

    fn apply_transpose(&self, y: &[f64], x: &mut [f64]) {
        self.operator.apply_transpose(y, x);
        self.project(x);
    }

    fn magnitude(&self) -> Option<f64> {
        self.operator.magnitude()
    }
}

/// The members' coordinates on the node's second principal direction, `sigma_2 v_2`, given its first right
/// singular vector `first` (unit length, member order) and, when there is one, an estimate of the second to
/// start from (the first run's next Ritz vector). One Lanczos run for one direction, to `tolerance`; `None` when
/// the node has a single direction.
pub(super) fn deflated_second(
    context: &SplitContext,
    first: &[f64],
    start: Option<&[f64]>,
    tolerance: f64,
) -> Result<Option<Vec<f64>>, ClusterError> {
    assert_eq!(
        first.len(),
        context.members.len(),
        "one first-direction entry per member"
    );
    let known = context.centroid.map(|centroid| KnownSummary {
        centroid,
        norms_squared: context.norms_squared,
    });
    let operator = CentredColumns::compact_of(context.data, context.members, known);
    let deflated = Deflated {
        operator: &operator,
        removed: first,
    };
    // A start along the removed direction would be projected to nothing.
    let start = start.filter(|s| s.len() == first.len()).map(|s| {
        let mut s = s.to_vec();
        deflated.project(&mut s);
        s
    });
    let start = start.filter(|s| s.iter().any(|v| *v != 0.0));
    let options = LanczosOptions {
        tolerance,
        start,
        ..LanczosOptions::default()
    };
    let triplets = linalg::leading_singular_auto(&deflated, 1, &options)?;
    Ok(match (triplets.values.first(), triplets.right.first()) {
        (Some(&sigma), Some(right)) if sigma > 0.0 => {
            Some(right.iter().map(|v| v * sigma).collect())
        }
        _ => None,
    })
}
