//! The split a node already had, as its Preview shows it: for a rule that cut along principal directions, the
//! members' coordinates on the direction it cut (recomputed as the split computed it) and the cut; for any rule,
//! the figures its split record keeps, the children's sizes and scatter, and what each child is about.

use serde::Serialize;

use super::{Side, boundary_crossing, label_figures, scaled, sides};
use crate::cluster::rules::{
    KnownDirections, SplitContext, SplitDetail, SplitEnv, directions_for_split,
};
use crate::cluster::{ClusterError, RuleSpec, Tree};
use crate::matrix::DataMatrix;

/// The direction a linear split cut along, recomputed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MadeDirection {
    pub singular_values: Vec<f64>,
    /// Each member's coordinate on the leading direction, `sigma_1 v_1[j]`, in member order.
    pub coordinates: Vec<f64>,
    /// Where the split cut it, in coordinate units (see [`super::RulePreview::cut`]).
    pub cut: Option<f64>,
    /// Whether the rule, run again along the recomputed direction, gives the node's children. It does for a
    /// tree this pdx grew; a tree from elsewhere (another version's session) may have been cut along a
    /// direction that differs in the last digits, and the histogram then is only close to the one it saw.
    pub reproduces: bool,
}

/// The split node `node` had.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MadeSplit {
    pub node: usize,
    pub rule: RuleSpec,
    pub children: Vec<usize>,
    pub objective_before: f64,
    pub objective_after: f64,
    /// Normalised entropy and purity of the node (as one cluster) and of its children, against the labels.
    pub entropy_before: Option<f64>,
    pub purity_before: Option<f64>,
    pub entropy_after: Option<f64>,
    pub purity_after: Option<f64>,
    /// The direction it cut, for a rule that cuts along principal directions.
    pub direction: Option<MadeDirection>,
    /// The figures the rule recorded (a kernel rule's alignment, cut cost, components and c*, ...).
    pub detail: SplitDetail,
    /// Each child, in child order, with its distinctive terms when term names were given.
    pub sides: Vec<Side>,
}

/// The split node `node` of `tree` had, or `None` for a leaf. `labels` gives each column's label index and the
/// number of labels; `names` (one per row of `data`) the term names for the children's distinctive terms. For a
/// linear rule the direction is computed again as the split computed it: the same start
/// ([`Tree::start_guess`]), centroid and tolerance, so the histogram is the one the split saw; or taken from
/// `known` when those are the very directions ([`KnownDirections`]: the ones the split itself took from the
/// node's preview).
pub fn preview_made(
    tree: &Tree,
    data: &DataMatrix,
    node: usize,
    labels: Option<(&[Option<u32>], usize)>,
    names: Option<&[String]>,
    known: Option<&KnownDirections>,
) -> Result<Option<MadeSplit>, ClusterError> {
    let inner = tree.node(node).ok_or(ClusterError::NoSuchNode(node))?;
    let Some(record) = &inner.split else {
        return Ok(None);
    };
    let children: Vec<&crate::cluster::Node> = inner
        .children
        .iter()
        .map(|&c| tree.node(c).ok_or(ClusterError::NoSuchNode(c)))
        .collect::<Result<_, _>>()?;
    let centroid = tree.dense_centroid(data, node)?;
    let child_centroids: Vec<Vec<f64>> = children
        .iter()
        .map(|child| tree.dense_centroid(data, child.id))
        .collect::<Result<_, _>>()?;
    let sizes: Vec<usize> = children.iter().map(|c| c.size()).collect();
    let groups: Vec<&[usize]> = children.iter().map(|c| &*c.members).collect();

    let implementation = record.rule.rule();
    let direction = match implementation.directions_needed() {
        0 => None,
        needed => {
            let start = tree.start_guess(node);
            let context = SplitContext {
                start: start.as_deref(),
                data,
                members: &inner.members,
                norms_squared: tree.norms_squared(),
                centroid: Some(&centroid),
                node_id: node,
                env: SplitEnv {
                    known,
                    ..SplitEnv::default()
                },
            };
            let directions = directions_for_split(
                &context,
                needed,
                implementation.direction_tolerance(),
                implementation.direction_sample(),
            )?;
            let reproduces =
                implementation
                    .split_along(&context, &directions)
                    .is_ok_and(|partition| {
                        partition.groups.len() == groups.len()
                            && partition
                                .groups
                                .iter()
                                .zip(&groups)
                                .all(|(made, child)| made.as_slice() == *child)
                    });
            let cut = match record.rule.def().refines {
                Some(_) if child_centroids.len() == 2 => boundary_crossing(
                    &child_centroids[0],
                    &child_centroids[1],
                    &centroid,
                    &directions.left[0],
                ),
                _ => record.detail.cuts.first().map(|c| c * directions.values[0]),
            };
            Some((
                MadeDirection {
                    singular_values: directions.values.clone(),
                    coordinates: scaled(&directions, 0),
                    cut,
                    reproduces,
                },
                directions.left.into_iter().next(),
            ))
        }
    };
    let (direction, u1) = match direction {
        Some((direction, u1)) => (Some(direction), u1),
        None => (None, None),
    };
    let (entropy_before, purity_before) = label_figures(&[&inner.members[..]], labels);
    let (entropy_after, purity_after) = label_figures(&groups, labels);
    Ok(Some(MadeSplit {
        node,
        rule: record.rule.clone(),
        children: inner.children.clone(),
        objective_before: record.objective_before,
        objective_after: record.objective_after,
        entropy_before,
        purity_before,
        entropy_after,
        purity_after,
        direction,
        detail: record.detail.clone(),
        sides: sides(&child_centroids, &sizes, &centroid, u1.as_deref(), names),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::{Params, RuleSpec};
    use crate::report::preview::tests::clumps;

    fn names() -> Vec<String> {
        vec!["x".into(), "y".into()]
    }

    #[test]
    fn a_leaf_had_no_split() {
        let data = clumps();
        let tree = Tree::new(&data, (0..7).collect(), Vec::new());
        assert_eq!(
            preview_made(&tree, &data, 0, None, None, None).expect("a node"),
            None
        );
        assert!(preview_made(&tree, &data, 9, None, None, None).is_err());
    }

    #[test]
    fn every_linear_rule_cut_where_its_children_part() {
        let data = clumps();
        let labels: Vec<Option<u32>> = [0, 0, 0, 0, 1, 1, 1].map(Some).to_vec();
        for name in ["pddp", "pddp-2means", "pddp-oc", "pddp-oc-2means"] {
            let mut tree = Tree::new(&data, (0..7).collect(), Vec::new());
            let rule = RuleSpec::named(name).expect("a rule");
            let children = tree.split(&data, 0, &rule).expect("splits");
            let made = preview_made(&tree, &data, 0, Some((&labels, 2)), Some(&names()), None)
                .expect("previews")
                .expect("a split node");
            assert_eq!(made.children, children);
            assert_eq!(made.rule, rule);
            let direction = made.direction.as_ref().expect("a linear rule");
            assert!(direction.reproduces, "{name}");
            let cut = direction.cut.expect("a cut");
            // The members above the cut are exactly one child's.
            let above: Vec<usize> = (0..7).filter(|&j| direction.coordinates[j] > cut).collect();
            let child_members: Vec<Vec<usize>> = children
                .iter()
                .map(|&c| tree.node(c).expect("child").members.to_vec())
                .collect();
            assert!(child_members.contains(&above), "{name}: {above:?}");
            assert_eq!(made.entropy_after, Some(0.0));
            assert!(made.purity_before.is_some_and(|p| p < 1.0));
            // The side with the larger x lies above the cut and is about x.
            let high = made
                .sides
                .iter()
                .max_by(|a, b| {
                    a.mean_coordinate
                        .partial_cmp(&b.mean_coordinate)
                        .expect("finite")
                })
                .expect("two sides");
            let low = made
                .sides
                .iter()
                .min_by(|a, b| {
                    a.mean_coordinate
                        .partial_cmp(&b.mean_coordinate)
                        .expect("finite")
                })
                .expect("two sides");
            assert_eq!((high.size, low.size), (above.len(), 7 - above.len()));
            // Which end of the direction holds the large x depends on its sign; the terms say which side it is.
            let large_x = if data.centroid(&above)[0] > 5.0 {
                high
            } else {
                low
            };
            assert_eq!(large_x.terms[0].term, "x");
            assert!(large_x.terms[0].weight > 5.0);
        }
    }

    #[test]
    fn a_kernel_split_keeps_its_figures() {
        let data = clumps();
        let mut tree = Tree::new(&data, (0..7).collect(), Vec::new());
        let params = Params::default();
        let rule = RuleSpec::new("alignment", &params).expect("a rule");
        tree.split(&data, 0, &rule).expect("splits");
        let made = preview_made(&tree, &data, 0, None, Some(&names()), None)
            .expect("previews")
            .expect("a split node");
        assert!(made.direction.is_none(), "no principal direction to draw");
        assert!(made.detail.alignment.is_some());
        assert_eq!(
            made.detail,
            tree.node(0)
                .expect("root")
                .split
                .as_ref()
                .expect("split")
                .detail
        );
        assert_eq!(made.sides.iter().map(|s| s.size).sum::<usize>(), 7);
        assert!(made.sides.iter().all(|s| s.mean_coordinate.is_none()));
    }
}
