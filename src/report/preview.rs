//! The split preview of a node: its documents' coordinates on the leading principal directions, where each
//! linear rule would cut the leading one, and what each linear rule's split would give (child sizes, objective,
//! entropy and purity against the labels, the terms that set each side apart). The split a node already had is
//! in [`preview_made`].
//!
//! A preview comes in two stages, so that an interface can show the histogram and the quick rows while the rest
//! compute: [`preview_first`] runs Lanczos to [`SPLIT_TOLERANCE`] and fills the rows of the rules that need
//! nothing more ([`in_first_stage`]); [`preview_rest`] fills the others from one more run, started from the first
//! stage's direction, to the strictest tolerance they ask for. [`preview`] does both. Within a stage one Lanczos
//! run serves every rule ([`SplitRule::split_along`](crate::cluster::rules::SplitRule::split_along)). Rules with
//! a `sample` stride are previewed along the sampled directions their split would take ([`directions_by`]),
//! both stages computed that way.

mod made;
mod second;

pub use made::{MadeDirection, MadeSplit, preview_made};

use std::sync::Arc;

use rayon::prelude::*;
use serde::Serialize;

use super::metrics;
use super::terms::{self, TermWeight};
use crate::cluster::rules::{
    Directions, KnownDirections, Partition, SPLIT_TOLERANCE, SplitContext, directions_by,
    refined_directions, sampling_stride, split_all_along,
};
use crate::cluster::{CheckedParams, ClusterError, Node, Params, RuleSpec, Tree, registry};
use crate::matrix::DataMatrix;

/// What a rule's split of the node would give.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleOutcome {
    pub child_sizes: Vec<usize>,
    /// The node's scatter.
    pub objective_before: f64,
    /// The sum of the children's scatters.
    pub objective_after: f64,
    /// Normalised entropy and purity of the children against the labels, when there are labels.
    pub entropy_after: Option<f64>,
    pub purity_after: Option<f64>,
    /// Each child, in the rule's order, with the terms that set it apart (empty when no term names were given).
    pub sides: Vec<Side>,
}

/// How many distinctive terms a preview lists for each side of a split.
pub const SIDE_TERMS: usize = 8;

/// One side of a split: how many members it takes, where they lie on the leading direction, and what they are
/// about.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Side {
    pub size: usize,
    /// The mean of its members' leading coordinates, `u_1^T (c_side - c)`: which side of the cut it is on.
    pub mean_coordinate: Option<f64>,
    /// The largest entries of `c_side - c_other` ([`terms::discriminating_terms`]), `c_other` the other side's
    /// centroid for a split in two and the rest of the node's for more.
    pub terms: Vec<TermWeight>,
}

/// One linear rule on the previewed node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RulePreview {
    pub rule: RuleSpec,
    /// Where the rule cuts the leading direction, in coordinate units (0 for PDDP). For the 2-means rules, the
    /// point where their boundary hyperplane `||x - m_0|| = ||x - m_1||` crosses the leading direction.
    pub cut: Option<f64>,
    /// The split, or why the rule refuses the node; `None` until [`preview_rest`] has computed it.
    pub outcome: Option<Result<RuleOutcome, String>>,
}

impl RulePreview {
    /// The rule's split, when it is computed and the rule does not refuse the node.
    pub fn split(&self) -> Option<&RuleOutcome> {
        self.outcome.as_ref()?.as_ref().ok()
    }
}

/// The preview of one node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SplitPreview {
    pub node: usize,
    pub singular_values: Vec<f64>,
    /// Each member's coordinate on the leading principal direction, `u_1^T (a_j - c) = sigma_1 v_1[j]`, in
    /// member order.
    pub coordinates: Vec<f64>,
    /// The same on the second direction, when the node has one.
    pub second: Option<Vec<f64>>,
    pub rules: Vec<RulePreview>,
    /// The first step's principal directions, kept for the split (which takes them rather than compute them
    /// again, when they are the ones it would: [`KnownDirections`]) and for [`second_coordinates`] (which starts
    /// from their estimate of the next direction): not part of what a preview reports.
    #[serde(skip)]
    pub known: Option<Arc<KnownDirections>>,
}

/// The rules a preview compares: every rule the registry gives a preview symbol, with `params` but on one
/// direction, since the preview shows where each cuts the leading one.
pub fn compared_rules(params: &CheckedParams) -> Vec<RuleSpec> {
    let one_direction = Params {
        l: 1,
        ..Params::clone(params)
    };
    registry::all()
        .iter()
        .filter(|def| def.preview_symbol.is_some())
        .map(|def| {
            RuleSpec::new(def.name, &one_direction)
                .unwrap_or_else(|error| panic!("checked parameters with l = 1 are valid: {error}"))
        })
        .collect()
}

/// Preview `rules` on leaf `node`: both stages, [`preview_first`] and [`preview_rest`].
pub fn preview(
    tree: &Tree,
    data: &DataMatrix,
    node: usize,
    rules: &[RuleSpec],
    labels: Option<(&[Option<u32>], usize)>,
    second_direction: bool,
    names: Option<&[String]>,
) -> Result<SplitPreview, ClusterError> {
    let first = preview_first(tree, data, node, rules, labels, second_direction, names)?;
    preview_rest(tree, data, node, &first, labels, names)
}

/// Whether a preview's first stage gives `rule`'s row: the rule's direction needs no stricter tolerance than
/// [`SPLIT_TOLERANCE`] and it cuts along the coordinates alone. A 2-means refinement reads the node's columns
/// again at each of its passes, and a stricter tolerance needs a longer Lanczos run: at the root of a large
/// collection either costs as much again as the first stage, so those rows come second.
pub fn in_first_stage(rule: &RuleSpec) -> bool {
    rule.def().refines.is_none() && rule.rule().direction_tolerance() >= SPLIT_TOLERANCE
}

/// The first stage of the preview of `rules` on leaf `node`: the coordinates from one Lanczos run to
/// [`SPLIT_TOLERANCE`] and the rows of the rules [`in_first_stage`]; the other rows, in their place in the order
/// of `rules`, have no outcome yet. `labels` gives each column's label index and the number of labels. With
/// `second_direction`, the second principal coordinate is computed too (for a scatter plot); it costs a larger
/// Lanczos run, so an interface can ask for the histogram and the rule table first and the plot after
/// ([`second_coordinates`]). With the term names `names` (one per row of `data`), each rule's
/// [`RuleOutcome::sides`] holds [`SIDE_TERMS`] distinctive terms per side.
///
/// The rules run in parallel (each on its own data, so the results do not depend on the scheduling).
pub fn preview_first(
    tree: &Tree,
    data: &DataMatrix,
    node: usize,
    rules: &[RuleSpec],
    labels: Option<(&[Option<u32>], usize)>,
    second_direction: bool,
    names: Option<&[String]>,
) -> Result<SplitPreview, ClusterError> {
    let first: Vec<RuleSpec> = rules
        .iter()
        .filter(|r| in_first_stage(r))
        .cloned()
        .collect();
    let wanted = directions_wanted(rules).max(if second_direction { 2 } else { 1 });
    let start = tree.start_guess(node);
    with_leaf_context(
        tree,
        data,
        node,
        start.as_deref(),
        |leaf, centroid, context| {
            let directions =
                directions_by(context, wanted, SPLIT_TOLERANCE, direction_sample(rules))?;
            let mut preview = preview_along(
                &first,
                leaf,
                centroid,
                context,
                &directions,
                second_direction,
                Annotations { labels, names },
            );
            preview.known = Some(Arc::new(KnownDirections::new(
                context,
                wanted,
                SPLIT_TOLERANCE,
                directions,
            )));
            let mut computed = std::mem::take(&mut preview.rules).into_iter();
            preview.rules = rules
                .iter()
                .map(|rule| match in_first_stage(rule) {
                    true => computed.next().expect("one row per first-stage rule"),
                    false => RulePreview {
                        rule: rule.clone(),
                        cut: None,
                        outcome: None,
                    },
                })
                .collect();
            Ok(preview)
        },
    )
}

/// The preview `first` ([`preview_first`]'s, of leaf `node`) with every row it left for later computed: their
/// directions from one Lanczos run to the strictest tolerance those rules ask for, refined from `first`'s leading
/// direction ([`refined_directions`], a few steps), oriented as `first`'s so that every cut falls on its
/// histogram. `first` itself when it has no row left.
///
/// # Panics
/// If `first` is not a preview of `node` (its coordinates are not one per member).
pub fn preview_rest(
    tree: &Tree,
    data: &DataMatrix,
    node: usize,
    first: &SplitPreview,
    labels: Option<(&[Option<u32>], usize)>,
    names: Option<&[String]>,
) -> Result<SplitPreview, ClusterError> {
    let rest: Vec<RuleSpec> = first
        .rules
        .iter()
        .filter(|row| row.outcome.is_none())
        .map(|row| row.rule.clone())
        .collect();
    if rest.is_empty() {
        return Ok(first.clone());
    }
    let known = leading_unit(first);
    let start = tree.start_guess(node);
    with_leaf_context(
        tree,
        data,
        node,
        start.as_deref(),
        |leaf, centroid, context| {
            let (wanted, tolerance) = (directions_wanted(&rest), strictest_tolerance(&rest));
            // Sampled directions are computed again from the sample: refined on the whole node they would be
            // the exact ones.
            let mut directions = match direction_sample(&rest) {
                sample if sampling_stride(context.members.len(), sample).is_some() => {
                    directions_by(context, wanted, tolerance, sample)?
                }
                _ => refined_directions(context, wanted, tolerance, &known)?,
            };
            let along: f64 = directions.right[0]
                .iter()
                .zip(&known)
                .map(|(a, b)| a * b)
                .sum();
            if along < 0.0 {
                directions.right[0].iter_mut().for_each(|v| *v = -*v);
                directions.left[0].iter_mut().for_each(|v| *v = -*v);
            }
            let computed = preview_along(
                &rest,
                leaf,
                centroid,
                context,
                &directions,
                false,
                Annotations { labels, names },
            );
            let mut computed = computed.rules.into_iter();
            let rules = first
                .rules
                .iter()
                .map(|row| match row.outcome {
                    Some(_) => row.clone(),
                    None => computed.next().expect("one row per rule left"),
                })
                .collect();
            Ok(SplitPreview {
                rules,
                ..first.clone()
            })
        },
    )
}

/// How many principal directions `rules` need between them (at least one: the histogram's).
fn directions_wanted(rules: &[RuleSpec]) -> usize {
    rules
        .iter()
        .map(|r| r.rule().directions_needed())
        .max()
        .unwrap_or(1)
        .max(1)
}

/// The unit leading right singular vector of the node a preview is of, from its coordinates.
///
/// # Panics
/// If the preview has no leading direction (every leaf's preview has one).
fn leading_unit(preview: &SplitPreview) -> Vec<f64> {
    let sigma = preview.singular_values.first().copied().unwrap_or(0.0);
    assert!(sigma > 0.0, "a leaf's preview has a leading direction");
    preview.coordinates.iter().map(|c| c / sigma).collect()
}

/// The leaf `node`'s split context with the Lanczos `start` (the split's own, [`Tree::start_guess`], so that a
/// preview's first stage shows the split `s` would make), handed to `f` with the leaf and its centroid.
fn with_leaf_context<T>(
    tree: &Tree,
    data: &DataMatrix,
    node: usize,
    start: Option<&[f64]>,
    f: impl FnOnce(&Node, &[f64], &SplitContext) -> Result<T, ClusterError>,
) -> Result<T, ClusterError> {
    if let Some(reason) = tree.unsplittable_reason(node)? {
        return Err(ClusterError::Unsplittable { node, reason });
    }
    let leaf = tree.node(node).ok_or(ClusterError::NoSuchNode(node))?;
    let centroid = tree.dense_centroid(data, node)?;
    let context = SplitContext {
        start,
        data,
        members: &leaf.members,
        norms_squared: tree.norms_squared(),
        centroid: Some(&centroid),
        node_id: node,
        env: Default::default(),
    };
    f(leaf, &centroid, &context)
}

/// The `sample` stride `rules` take their directions at: the largest of theirs (a preview's rules share their
/// parameters, so all have the same).
fn direction_sample(rules: &[RuleSpec]) -> usize {
    rules
        .iter()
        .map(|r| r.rule().direction_sample())
        .max()
        .unwrap_or(0)
}

/// One Lanczos run serves every rule of a preview's second stage, so it meets the strictest of their tolerances.
fn strictest_tolerance(rules: &[RuleSpec]) -> f64 {
    rules
        .iter()
        .map(|r| r.rule().direction_tolerance())
        .fold(crate::cluster::rules::SPLIT_TOLERANCE, f64::min)
}

/// The preview of `rules` on `leaf` along `directions` computed for it.
fn preview_along(
    rules: &[RuleSpec],
    leaf: &Node,
    centroid: &[f64],
    context: &SplitContext,
    directions: &Directions,
    second_direction: bool,
    annotations: Annotations,
) -> SplitPreview {
    let node = context.node_id;
    let coordinates = scaled(directions, 0);
    let second = (second_direction && directions.right.len() > 1).then(|| scaled(directions, 1));
    let partitions = split_all_along(rules, context, directions);
    // Rules often make the same partition (a 2-means refinement that moves nobody): each distinct one's group
    // centroids, a pass over all but its largest group, are computed once.
    let mut distinct: Vec<&[Vec<usize>]> = Vec::new();
    let which: Vec<Option<usize>> = partitions
        .iter()
        .map(|partition| {
            let groups = partition.as_ref().ok()?.groups.as_slice();
            Some(match distinct.iter().position(|d| *d == groups) {
                Some(at) => at,
                None => {
                    distinct.push(groups);
                    distinct.len() - 1
                }
            })
        })
        .collect();
    let centroids: Vec<Vec<Vec<f64>>> = distinct
        .par_iter()
        .map(|groups| group_centroids(context, groups, centroid))
        .collect();
    let previews = rules
        .par_iter()
        .zip(&partitions)
        .zip(&which)
        .map(|((rule, partition), which)| {
            let partition = partition
                .as_ref()
                .map(|p| (p, which.map_or(&[][..], |at| centroids[at].as_slice())));
            preview_rule(
                rule,
                partition,
                context,
                directions,
                leaf.scatter,
                centroid,
                annotations,
            )
        })
        .collect();
    SplitPreview {
        node,
        singular_values: directions.values.clone(),
        coordinates,
        second,
        rules: previews,
        known: None,
    }
}

/// The members' coordinates on the second principal direction of leaf `node`, `sigma_2 v_2`, for the scatter
/// plot beside `first`, a preview already made of it (its first coordinates, table and sides stay as they are).
/// The first direction is known, so this is one Lanczos run for one direction, on the node operator with the
/// first deflated away, started from the first run's next Ritz vector, to the tolerance of the first stage
/// ([`SPLIT_TOLERANCE`], as accurate as the first direction it deflates); it agrees with a joint two-direction
/// run to that tolerance, not bit for bit, which is enough for a plot (the second coordinate never decides a
/// split). `None` when the node has a single direction.
///
/// # Panics
/// If `first` is not a preview of `node` (its coordinates are not one per member).
pub fn second_coordinates(
    tree: &Tree,
    data: &DataMatrix,
    node: usize,
    first: &SplitPreview,
) -> Result<Option<Vec<f64>>, ClusterError> {
    let start = tree.start_guess(node);
    with_leaf_context(tree, data, node, start.as_deref(), |_, _, context| {
        second::deflated_second(
            context,
            &leading_unit(first),
            first
                .known
                .as_ref()
                .and_then(|known| known.directions().following.as_deref()),
            SPLIT_TOLERANCE,
        )
    })
}

fn scaled(directions: &Directions, i: usize) -> Vec<f64> {
    directions.right[i]
        .iter()
        .map(|v| v * directions.values[i])
        .collect()
}

/// What a preview measures a split against: the labels (each column's label index and the number of labels) and
/// the term names (one per row).
#[derive(Clone, Copy)]
struct Annotations<'a> {
    labels: Option<(&'a [Option<u32>], usize)>,
    names: Option<&'a [String]>,
}

fn preview_rule(
    rule: &RuleSpec,
    partition: Result<(&Partition, &[Vec<f64>]), &ClusterError>,
    context: &SplitContext,
    directions: &Directions,
    objective_before: f64,
    centroid: &[f64],
    Annotations { labels, names }: Annotations,
) -> RulePreview {
    let implementation = rule.rule();
    let sigma = directions.values[0];
    let (partition, group_centroids) = match partition {
        Ok(found) => found,
        Err(error) => {
            return RulePreview {
                rule: rule.clone(),
                cut: None,
                outcome: Some(Err(error.to_string())),
            };
        }
    };
    let groups = &partition.groups;
    let mut objective_after = 0.0;
    for (group, c) in groups.iter().zip(group_centroids) {
        let norms: f64 = group.iter().map(|&j| context.norms_squared[j]).sum();
        let c_sq: f64 = c.iter().map(|v| v * v).sum();
        objective_after += (norms - group.len() as f64 * c_sq).max(0.0);
    }
    // A 2-means refinement cuts along a hyperplane, not at a coordinate: where it crosses the direction.
    let cut = match rule.def().refines {
        Some(_) if groups.len() == 2 => boundary_crossing(
            &group_centroids[0],
            &group_centroids[1],
            centroid,
            &directions.left[0],
        ),
        _ if implementation.directions_needed() > 0 => {
            partition.detail.cuts.first().map(|c| c * sigma)
        }
        _ => None,
    };
    let (entropy_after, purity_after) = label_figures(groups, labels);
    let sizes: Vec<usize> = groups.iter().map(Vec::len).collect();
    let sides = sides(
        group_centroids,
        &sizes,
        centroid,
        directions.left.first().map(Vec::as_slice),
        names,
    );
    RulePreview {
        rule: rule.clone(),
        cut,
        outcome: Some(Ok(RuleOutcome {
            child_sizes: groups.iter().map(Vec::len).collect(),
            objective_before,
            objective_after,
            entropy_after,
            purity_after,
            sides,
        })),
    }
}

/// Normalised entropy and purity of `groups` against the labels, when there are labels.
fn label_figures(
    groups: &[impl AsRef<[usize]>],
    labels: Option<(&[Option<u32>], usize)>,
) -> (Option<f64>, Option<f64>) {
    let Some((labels, label_count)) = labels.filter(|&(_, count)| count > 0) else {
        return (None, None);
    };
    let mut assignment: Vec<Option<usize>> = vec![None; labels.len()];
    for (g, group) in groups.iter().enumerate() {
        for &j in group.as_ref() {
            assignment[j] = Some(g);
        }
    }
    let confusion = metrics::confusion(&assignment, labels, groups.len(), label_count);
    let (_, global) = metrics::figures(&confusion, label_count);
    (Some(global.entropy), Some(global.purity))
}

/// The sides of a split into groups of `sizes` with `centroids`, of a node with centroid `centroid`: where each
/// lies along `u1` (the leading left singular vector, when the split has one) and, given `names`, its
/// distinctive terms.
fn sides(
    centroids: &[Vec<f64>],
    sizes: &[usize],
    centroid: &[f64],
    u1: Option<&[f64]>,
    names: Option<&[String]>,
) -> Vec<Side> {
    let total: usize = sizes.iter().sum();
    centroids
        .iter()
        .zip(sizes)
        .enumerate()
        .map(|(g, (side, &size))| {
            let mean_coordinate = u1.map(|u1| {
                u1.iter()
                    .zip(side.iter().zip(centroid))
                    .map(|(u, (s, c))| u * (s - c))
                    .sum()
            });
            let terms = match names {
                Some(names) if centroids.len() == 2 => {
                    terms::discriminating_terms(side, &centroids[1 - g], names, SIDE_TERMS)
                }
                Some(names) => {
                    let rest = terms::rest_centroid(centroid, total, side, size);
                    terms::discriminating_terms(side, &rest, names, SIDE_TERMS)
                }
                None => Vec::new(),
            };
            Side {
                size,
                mean_coordinate,
                terms,
            }
        })
        .collect()
}

/// The centroid of each group. Every group but the largest is one pass over its columns; the largest follows
/// from the node's centroid, `c_big = (n c - sum_g n_g c_g) / n_big`, which saves the longest pass and loses at
/// most a factor `n / n_big <= groups` of accuracy to cancellation.
fn group_centroids(
    context: &SplitContext,
    groups: &[Vec<usize>],
    centroid: &[f64],
) -> Vec<Vec<f64>> {
    let Some(largest) = (0..groups.len()).max_by_key(|&g| (groups[g].len(), std::cmp::Reverse(g)))
    else {
        return Vec::new();
    };
    let mut centroids: Vec<Vec<f64>> = groups
        .iter()
        .enumerate()
        .map(|(g, group)| {
            if g == largest {
                Vec::new()
            } else {
                context.data.centroid(group)
            }
        })
        .collect();
    let n = context.members.len() as f64;
    let mut rest: Vec<f64> = centroid.iter().map(|c| n * c).collect();
    for (group, c) in groups.iter().zip(&centroids) {
        let size = group.len() as f64;
        rest.iter_mut().zip(c).for_each(|(r, v)| *r -= size * v);
    }
    let size = groups[largest].len() as f64;
    rest.iter_mut().for_each(|r| *r /= size);
    centroids[largest] = rest;
    centroids
}

/// Where the 2-means boundary `w.x = b` (`w = m_0 - m_1`, `b = (||m_0||^2 - ||m_1||^2) / 2`) crosses the line
/// `c + t u_1`, as the coordinate t; `None` when the boundary is parallel to the direction.
fn boundary_crossing(m0: &[f64], m1: &[f64], centroid: &[f64], u1: &[f64]) -> Option<f64> {
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    let w: Vec<f64> = m0.iter().zip(m1).map(|(a, b)| a - b).collect();
    let b = 0.5 * (dot(m0, m0) - dot(m1, m1));
    let along = dot(&w, u1);
    (along.abs() > f64::EPSILON * dot(&w, &w).sqrt()).then(|| (b - dot(&w, centroid)) / along)
}

#[cfg(test)]
mod tests;
