//! A split made again as a script recorded it ([`Tree::split_recorded`]): the node, the rule and parameters, and
//! the ids its children took, so that a tree grown by replaying the script names its nodes as the tree that
//! recorded it did, and the script's later steps (a name, a move into a leaf, a split of a child) find them.

use super::Tree;
use crate::cluster::ClusterError;
use crate::cluster::members::match_groups;
use crate::cluster::rules::SplitEnv;
use crate::cluster::spec::RuleSpec;
use crate::matrix::DataMatrix;

impl Tree {
    /// Split node `id` with `rule` in `env` as [`Tree::split_alternative_in`] does (a leaf, or a node already
    /// split, which keeps its split as an alternative), its children taking the ids `children`, the ids the
    /// recorded split's children took, one after another. Slots of the arena below the first of them stay empty:
    /// ids the recording tree gave to nodes this one does not have (below a split not redone) are not given to
    /// others.
    ///
    /// `continues`, when given, holds for each recorded child the columns it held in an earlier tree (sorted):
    /// the new children are then put in the order that continues them, the one-to-one matching that keeps the
    /// most documents together, as [`Tree::replay`] matches children. A split redone on other documents (a
    /// collection with documents added or gone) may come out with its sides the other way round (a singular
    /// vector's sign is arbitrary), and "#7" should still mean the documents it meant.
    ///
    /// Refused, with the tree as it was: what the rule refuses, a split that makes another number of children
    /// than recorded ([`ClusterError::OtherChildren`]), children ids not one after another or given already
    /// ([`ClusterError::IdsTaken`]), and a split the node has already ([`ClusterError::SameSplit`]).
    pub fn split_recorded(
        &mut self,
        data: &DataMatrix,
        id: usize,
        rule: &RuleSpec,
        env: SplitEnv,
        children: &[usize],
        continues: Option<&[&[usize]]>,
    ) -> Result<(), ClusterError> {
        let first = *children.first().ok_or(ClusterError::IdsTaken {
            node: id,
            next: self.nodes.len(),
        })?;
        let consecutive = children.iter().zip(first..).all(|(&c, at)| c == at);
        if !consecutive || first < self.nodes.len() {
            return Err(ClusterError::IdsTaken {
                node: id,
                next: self.nodes.len(),
            });
        }
        let mut partition = self.plan_alternative(data, id, rule, env)?;
        if partition.groups.len() != children.len() {
            return Err(ClusterError::OtherChildren {
                node: id,
                made: partition.groups.len(),
                recorded: children.len(),
            });
        }
        if let Some(old) = continues.filter(|old| old.len() == children.len()) {
            let new: Vec<&[usize]> = partition.groups.iter().map(Vec::as_slice).collect();
            // As many groups on each side (checked above): every old group has its new one.
            let order: Vec<usize> = match_groups(old, &new).into_iter().flatten().collect();
            let mut groups: Vec<Option<Vec<usize>>> = std::mem::take(&mut partition.groups)
                .into_iter()
                .map(Some)
                .collect();
            partition.groups = order
                .iter()
                .map(|&at| groups[at].take().expect("a one-to-one matching"))
                .collect();
            if let Some(scatters) = &mut partition.detail.child_kernel_scatters {
                *scatters = order.iter().map(|&at| scatters[at]).collect();
            }
        }
        self.nodes.resize_with(first, || None);
        let made = self.apply_alternative(data, id, rule, partition)?;
        debug_assert_eq!(made, children, "children numbered from the arena's end");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use nalgebra::DMatrix;

    use super::*;
    use crate::cluster::Params;

    /// Nine points in three groups of three along a line.
    fn data() -> DataMatrix {
        let points: Vec<f64> = [0.0, 0.1, 0.2, 5.0, 5.1, 5.2, 10.0, 10.1, 10.2]
            .iter()
            .flat_map(|&x| [x, 1.0])
            .collect();
        DataMatrix::Dense {
            matrix: DMatrix::from_column_slice(2, 9, &points),
            features: vec!["x".into(), "y".into()],
        }
    }

    fn members(tree: &Tree, id: usize) -> Vec<usize> {
        tree.node(id).expect("a node").members.to_vec()
    }

    #[test]
    fn a_recorded_split_gives_its_children_the_recorded_ids_in_the_order_that_continues_them() {
        let data = data();
        let rule = RuleSpec::default();
        let mut made = Tree::new(&data, (0..9).collect(), Vec::new());
        made.split(&data, 0, &rule).expect("splits");
        let (first, second) = (members(&made, 1), members(&made, 2));

        let mut again = Tree::new(&data, (0..9).collect(), Vec::new());
        again
            .split_recorded(&data, 0, &rule, SplitEnv::default(), &[1, 2], None)
            .expect("splits");
        assert!(again == made, "without an earlier tree: the rule's order");

        // An earlier tree whose #1 held the other side: the children follow it.
        let mut continued = Tree::new(&data, (0..9).collect(), Vec::new());
        let earlier: [&[usize]; 2] = [&second, &first];
        continued
            .split_recorded(
                &data,
                0,
                &rule,
                SplitEnv::default(),
                &[1, 2],
                Some(&earlier),
            )
            .expect("splits");
        assert_eq!(
            (members(&continued, 1), members(&continued, 2)),
            (second, first)
        );

        // Ids after a gap: the slots between stay empty, and the next split goes on after them.
        let mut gap = Tree::new(&data, (0..9).collect(), Vec::new());
        gap.split_recorded(&data, 0, &rule, SplitEnv::default(), &[5, 6], None)
            .expect("splits");
        assert_eq!(gap.node(0).expect("the root").children, [5, 6]);
        assert_eq!(gap.next_id(), 7);
        assert!((1..5).all(|id| gap.node(id).is_none()));
    }

    #[test]
    fn a_recorded_split_the_tree_cannot_make_as_recorded_leaves_it_as_it_was() {
        let data = data();
        let mut tree = Tree::new(&data, (0..9).collect(), Vec::new());
        let before = tree.clone();
        let rule = RuleSpec::default();
        let three = RuleSpec::new(
            "kmeans",
            &Params {
                k_way: 3,
                ..Params::default()
            },
        )
        .expect("a rule");
        let env = SplitEnv::default;
        assert!(matches!(
            tree.split_recorded(&data, 0, &three, env(), &[1, 2], None),
            Err(ClusterError::OtherChildren {
                node: 0,
                made: 3,
                recorded: 2
            })
        ));
        assert!(matches!(
            tree.split_recorded(&data, 0, &rule, env(), &[1, 3], None),
            Err(ClusterError::IdsTaken { node: 0, next: 1 })
        ));
        assert!(matches!(
            tree.split_recorded(&data, 0, &rule, env(), &[0, 1], None),
            Err(ClusterError::IdsTaken { .. })
        ));
        assert!(matches!(
            tree.split_recorded(&data, 7, &rule, env(), &[1, 2], None),
            Err(ClusterError::NoSuchNode(7))
        ));
        assert!(tree == before, "refused: the tree is as it was");
    }
}
