//! Alternatives on one node (split again, switch, compare, keep one) and the comparison of two nodes.

use super::*;

/// The nodes under the root after [`two_splits`]: #1 #2, and #1's children #3 #4.
const FIRST_SPLIT: [usize; 4] = [1, 2, 3, 4];

/// The demo after two splits, the root then split again with `pddp-oc`: two splits on the root, the second
/// active.
pub(super) fn with_alternative() -> Model {
    let mut model = two_splits();
    pick_rule(&mut model, "pddp-oc", &[]);
    key(&mut model, KeyCode::Char('g'));
    key(&mut model, KeyCode::Char('s'));
    model
}

fn leaf_members(model: &Model) -> Vec<Vec<usize>> {
    model
        .derived()
        .leaves
        .iter()
        .map(|&leaf| model.tree().node(leaf).expect("live").members.to_vec())
        .collect()
}

#[test]
fn splitting_a_split_node_adds_an_alternative_and_keeps_the_subtree() {
    let mut first = two_splits();
    let original = leaf_members(&first);
    let named = first.derived().leaves[2];
    select(&mut first, named);
    key(&mut first, KeyCode::Char('e'));
    type_text(&mut first, "kept");
    key(&mut first, KeyCode::Enter);
    key(&mut first, KeyCode::Char('g'));

    let mut model = first;
    let first_words: Vec<Vec<String>> = FIRST_SPLIT
        .iter()
        .map(|&id| model.node_words(id).to_vec())
        .collect();
    pick_rule(&mut model, "pddp-oc", &[]);
    key(&mut model, KeyCode::Char('s'));
    // The shelved split's nodes keep their words for when they come back (nothing to describe again).
    let shelved: Vec<Vec<String>> = FIRST_SPLIT
        .iter()
        .map(|&id| model.node_words(id).to_vec())
        .collect();
    assert_eq!(shelved, first_words);
    assert!(shelved.iter().all(|words| !words.is_empty()));
    let root = model.tree().root();
    assert_eq!(model.tree().split_count(root), 2);
    assert_eq!(model.derived().leaves.len(), 2, "{}", model.status());
    assert!(
        model.status().contains("split 2 of 2"),
        "{}",
        model.status()
    );

    key(&mut model, KeyCode::Char('['));
    assert_eq!(model.tree().active_split(root), 0);
    assert_eq!(leaf_members(&model), original);
    assert_eq!(model.label(named), "kept");
    assert!(
        model.status().contains("split 1 of 2"),
        "{}",
        model.status()
    );
    key(&mut model, KeyCode::Char(']'));
    assert_eq!(model.tree().active_split(root), 1);
    assert_eq!(model.derived().leaves.len(), 2);
    // Switching is a tree change: undo goes back to the first split.
    key(&mut model, KeyCode::Char('u'));
    assert_eq!(leaf_members(&model), original);
}

#[test]
fn keeping_one_drops_the_others_and_undo_brings_them_back() {
    let mut model = with_alternative();
    let root = model.tree().root();
    let active = leaf_members(&model);
    key(&mut model, KeyCode::Char('K'));
    assert_eq!(model.tree().split_count(root), 1);
    assert_eq!(leaf_members(&model), active);
    assert!(
        model.status().contains("dropped 1 alternative"),
        "{}",
        model.status()
    );
    key(&mut model, KeyCode::Char(']'));
    assert!(
        model.status().contains("no alternative"),
        "{}",
        model.status()
    );
    key(&mut model, KeyCode::Char('u'));
    assert_eq!(model.tree().split_count(root), 2);
}

#[test]
fn the_side_by_side_view_lists_every_split_of_the_node() {
    let mut model = with_alternative();
    key(&mut model, KeyCode::Char('A'));
    let Some(Popup::Alternatives { view, .. }) = model.popup() else {
        panic!("the alternatives open: {:?}", model.popup());
    };
    assert_eq!(view.splits.len(), 2);
    assert!(view.splits[1].active);
    assert!(view.splits.iter().all(|s| s.figures.is_some()));
    let text = screen_text(&model, 160, 48);
    assert!(
        text.contains("pddp-oc") && text.contains("● active"),
        "{text}"
    );
    insta::assert_snapshot!("alternatives_80x24", draw(&model, 80, 24).backend());
    insta::assert_snapshot!("alternatives_160x48", draw(&model, 160, 48).backend());
    key(&mut model, KeyCode::Esc);
    assert_eq!(model.popup(), None);
    // A leaf has no splits to compare.
    key(&mut model, KeyCode::Char('j'));
    key(&mut model, KeyCode::Char('A'));
    assert_eq!(model.popup(), None);
    assert!(model.status().contains("leaf"), "{}", model.status());
}

#[test]
fn the_tree_pane_shows_which_split_is_active() {
    let model = with_alternative();
    let text = screen_text(&model, 160, 48);
    assert!(text.contains("pddp-oc 2/2"), "{text}");
}

#[test]
fn a_marked_node_compares_with_the_selected_one() {
    let mut model = two_splits();
    key(&mut model, KeyCode::Char('v'));
    assert!(
        model.status().contains("mark a node first"),
        "{}",
        model.status()
    );
    let leaves = model.derived().leaves.clone();
    select(&mut model, leaves[0]);
    key(&mut model, KeyCode::Char(' '));
    assert_eq!(model.mark(), Some(leaves[0]));
    assert!(screen_text(&model, 160, 48).contains("(A)"));
    select(&mut model, leaves[2]);
    key(&mut model, KeyCode::Char('v'));
    let Some(Popup::Compare { view, .. }) = model.popup() else {
        panic!("the comparison opens: {:?}", model.popup());
    };
    let c = &view.comparison;
    assert_eq!((c.a, c.b), (leaves[0], leaves[2]));
    assert!(!view.label_rows.is_empty(), "the demo has labels");
    assert_eq!(
        c.only_a.len() + c.shared.len(),
        crate::tui::model::DETAIL_TERMS
    );
    insta::assert_snapshot!("compare_80x24", draw(&model, 80, 24).backend());
    insta::assert_snapshot!("compare_160x48", draw(&model, 160, 48).backend());
    key(&mut model, KeyCode::Esc);
    // Space on the marked node clears the mark.
    select(&mut model, leaves[0]);
    key(&mut model, KeyCode::Char(' '));
    assert_eq!(model.mark(), None);
}

#[test]
fn a_saved_session_keeps_every_alternative_and_exports_the_active_one() {
    let dir = tempfile::tempdir().expect("temp dir");
    let model = with_alternative();
    let root = model.tree().root();
    let path = session::save(&model.session(&demo_source()), "demo", dir.path()).expect("saved");
    let mut reopened = super::model();
    open_session(&mut reopened, &path, session::read(&path).expect("reads"));
    assert_eq!(reopened.tree().split_count(root), 2);
    assert_eq!(leaf_members(&reopened), leaf_members(&model));
    key(&mut reopened, KeyCode::Char('['));
    assert_eq!(reopened.derived().leaves.len(), 3);
    // Exports write the active tree: its leaves, not the shelved ones.
    let csv = crate::report::to_csv(model.data(), model.tree(), false);
    let leaf_ids: std::collections::BTreeSet<String> = csv
        .lines()
        .skip(1)
        .filter_map(|line| line.split(',').nth(1).map(str::to_string))
        .collect();
    assert_eq!(leaf_ids.len(), 2, "{leaf_ids:?}");
}

/// Each column of the comparison shows its own node's weight: a term only in A's top terms, heavier in B (whose
/// top terms it misses, B having heavier ones), still shows A's weight.
#[test]
fn each_column_of_the_comparison_shows_its_nodes_weight() {
    let mut model = two_splits();
    key(&mut model, KeyCode::Char('S'));
    key(&mut model, KeyCode::Char('S'));
    // The first pair of nodes (A marked, B selected) where a term of A's column weighs more in B: which pair it
    // is depends on the tree, the column's rendering does not.
    let nodes: Vec<usize> = model.tree().depth_first();
    let mut found = None;
    'pairs: for &a in &nodes {
        for &b in &nodes {
            if a == b {
                continue;
            }
            select(&mut model, a);
            key(&mut model, KeyCode::Char(' '));
            select(&mut model, b);
            key(&mut model, KeyCode::Char('v'));
            if let Some(Popup::Compare { view, .. }) = model.popup()
                && view
                    .comparison
                    .only_a
                    .iter()
                    .any(|t| t.weight_b > t.weight_a)
            {
                found = Some((a, b));
                break 'pairs;
            }
            // Close, and clear the mark for the next pair.
            key(&mut model, KeyCode::Esc);
            select(&mut model, a);
            key(&mut model, KeyCode::Char(' '));
        }
    }
    assert!(found.is_some(), "a term of A's column heavier in B");
    let Some(Popup::Compare { view, .. }) = model.popup() else {
        panic!("the comparison opens");
    };
    let only_a = view.comparison.only_a.clone();
    let text = screen_text(&model, 160, 48);
    let rows: Vec<&str> = text
        .lines()
        .skip_while(|line| !line.contains("only in A"))
        .skip(1)
        .collect();
    for (term, row) in only_a.iter().zip(&rows) {
        let cell: String = row
            .split_once(&format!("│{} ", term.term))
            .map(|(_, rest)| rest.trim_start().chars().take(5).collect())
            .unwrap_or_default();
        assert_eq!(
            cell,
            format!("{:.3}", term.weight_a),
            "{}: {row}",
            term.term
        );
    }
}

#[test]
fn s_again_with_the_same_rule_is_refused_and_names_the_split() {
    let mut model = two_splits();
    key(&mut model, KeyCode::Char('g'));
    key(&mut model, KeyCode::Char('s'));
    let root = model.tree().root();
    assert_eq!(model.tree().split_count(root), 1, "{}", model.status());
    assert!(
        model.status().contains("the same split exists: 1 of 1"),
        "{}",
        model.status()
    );
    // Another rule makes an alternative; s with the first rule again is refused by its number.
    pick_rule(&mut model, "pddp-oc", &[]);
    key(&mut model, KeyCode::Char('s'));
    assert_eq!(model.tree().split_count(root), 2);
    key(&mut model, KeyCode::Char('s'));
    assert_eq!(model.tree().split_count(root), 2);
    assert!(
        model.status().contains("the same split exists: 2 of 2"),
        "{}",
        model.status()
    );
}
