//! Where a node's alternative splits disagree: the cross-table, the agreement and the disputed documents in the
//! side-by-side view (`A`), going to a disputed document, and the tree pane's mark of a node with alternatives.

use std::collections::{BTreeSet, HashMap};

use super::alternatives::with_alternative;
use super::blind::renamed_labels;
use super::*;
use crate::cluster::Tree;

/// Every one-to-one pairing of `rows` children with `columns` children (a row left over pairs with none).
fn pairings(rows: usize, columns: usize) -> Vec<Vec<Option<usize>>> {
    if rows == 0 {
        return vec![Vec::new()];
    }
    let mut all = Vec::new();
    for rest in pairings(rows - 1, columns) {
        let taken = |c: usize| rest.contains(&Some(c));
        for column in (0..columns).filter(|&c| !taken(c)) {
            let mut pairing = rest.clone();
            pairing.push(Some(column));
            all.push(pairing);
        }
        // A row with no partner only when the columns are fewer.
        if rows > columns {
            let mut pairing = rest;
            pairing.push(None);
            all.push(pairing);
        }
    }
    all
}

/// Splits `a` and `b` of node `id` as an analyst would check them by hand: the pairing of children that keeps
/// the most documents together (every pairing tried; the demo's splits have two or three children), its count,
/// and the documents off it. Independent of the library's matching.
fn by_hand(tree: &Tree, id: usize, a: usize, b: usize) -> (usize, BTreeSet<usize>) {
    let side_of = |index: usize| -> (usize, HashMap<usize, usize>) {
        let (_, children) = tree.split_children(id, index).expect("a split");
        let sides = children
            .iter()
            .enumerate()
            .flat_map(|(side, child)| child.members.iter().map(move |&m| (m, side)))
            .collect();
        (children.len(), sides)
    };
    let ((rows, in_a), (columns, in_b)) = (side_of(a), side_of(b));
    let agreement = |pairing: &[Option<usize>]| {
        in_a.iter()
            .filter(|(document, side)| pairing[**side] == in_b.get(document).copied())
            .count()
    };
    let all = pairings(rows, columns);
    let best = all.iter().map(|p| agreement(p)).max().expect("a pairing");
    let winners: Vec<&Vec<Option<usize>>> = all.iter().filter(|p| agreement(p) == best).collect();
    assert_eq!(winners.len(), 1, "one best pairing: {winners:?}");
    let disputed = in_a
        .iter()
        .filter(|(document, side)| winners[0][**side] != in_b.get(document).copied())
        .map(|(&document, _)| document)
        .collect();
    (best, disputed)
}

/// The root with a third split, by `kmeans`: three alternatives, the third active.
fn with_three_splits() -> Model {
    let mut model = with_alternative();
    pick_rule(&mut model, "kmeans", &[]);
    key(&mut model, KeyCode::Char('g'));
    key(&mut model, KeyCode::Char('s'));
    let root = model.tree().root();
    assert_eq!(model.tree().split_count(root), 3, "{}", model.status());
    model
}

#[test]
fn the_alternatives_show_the_agreement_the_cross_table_and_the_disputed_documents() {
    let mut model = with_alternative();
    let root = model.tree().root();
    let size = model.tree().node(root).expect("the root").size();
    // The active split (the second) against the other.
    let (agreement, disputed) = by_hand(model.tree(), root, 1, 0);
    assert!(
        !disputed.is_empty(),
        "the demo's two rules disagree somewhere"
    );
    key(&mut model, KeyCode::Char('A'));
    let headline = format!(
        "{agreement} of {size} documents on matched sides, {} disputed",
        disputed.len()
    );
    for (width, height) in [(80, 24), (160, 48)] {
        let text = screen_text(&model, width, height);
        assert!(text.contains(&headline), "{width}x{height}:\n{text}");
        assert!(text.contains("split 2 (active) × split 1"), "{text}");
    }
    // Each child of the active split is a row of the table, its matched cell in brackets.
    let text = screen_text(&model, 160, 48);
    let (_, active) = model.tree().split_children(root, 1).expect("a split");
    for child in &active {
        let row = text
            .lines()
            .find(|line| line.contains(&format!("│#{} ", child.id)) && line.contains('['))
            .unwrap_or_else(|| panic!("a row for #{}:\n{text}", child.id));
        assert!(row.contains(']'), "{row}");
    }
    // Every disputed document is listed (the demo's two rules dispute few), by the end of its id (ids are paths
    // cut from the start), with its child in each split.
    let child_of = |index: usize, document: usize| {
        let (_, children) = model.tree().split_children(root, index).expect("a split");
        children
            .iter()
            .find(|child| child.members.contains(&document))
            .map(|child| child.id)
            .expect("a child holds it")
    };
    for &document in &disputed {
        let id = &model.data().documents[document].id;
        let end: String = id
            .chars()
            .rev()
            .take(12)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let row = text
            .lines()
            .find(|line| line.contains(&end) && line.contains(" → #"))
            .unwrap_or_else(|| panic!("a row for {id}:\n{text}"));
        let sides = format!("#{} → #{}", child_of(1, document), child_of(0, document));
        assert!(row.contains(&sides), "{id}: {sides} in {row}");
    }
}

#[test]
fn enter_on_a_disputed_document_lists_the_disputed_ones_in_the_documents_tab() {
    let mut model = with_alternative();
    let root = model.tree().root();
    let (_, disputed) = by_hand(model.tree(), root, 1, 0);
    key(&mut model, KeyCode::Char('A'));
    key(&mut model, KeyCode::Down);
    let Some(Popup::Alternatives { view, .. }) = model.popup() else {
        panic!("the alternatives open");
    };
    let chosen = view
        .disagreement
        .as_ref()
        .expect("two splits")
        .table
        .disputed[1]
        .column;
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.popup(), None, "{}", model.status());
    assert_eq!(model.focus(), Pane::Detail);
    assert_eq!(model.tab(), DetailTab::Documents);
    assert_eq!(model.selected(), root);
    let listed: BTreeSet<usize> = model.detail().documents.iter().copied().collect();
    assert_eq!(listed, disputed);
    assert_eq!(model.detail().documents[model.document_cursor()], chosen);
    let text = screen_text(&model, 160, 48);
    assert!(text.contains("filter disputed"), "{text}");
    assert!(
        model.status().contains(&format!(
            "the {} documents splits 2 and 1 dispute",
            disputed.len()
        )),
        "{}",
        model.status()
    );
    // Esc clears the filter, as after any other.
    key(&mut model, KeyCode::Esc);
    assert_eq!(model.filter_by(), None);
}

#[test]
fn tab_compares_the_active_split_with_each_other_one_in_turn() {
    let mut model = with_three_splits();
    key(&mut model, KeyCode::Char('A'));
    let heading = |model: &Model| {
        let text = screen_text(model, 160, 48);
        ["split 1", "split 2"]
            .into_iter()
            .find(|other| text.contains(&format!("split 3 (active) × {other}")))
            .unwrap_or_else(|| panic!("the active split against another:\n{text}"))
    };
    assert_eq!(heading(&model), "split 1");
    key(&mut model, KeyCode::Tab);
    assert_eq!(heading(&model), "split 2");
    let root = model.tree().root();
    let (agreement, disputed) = by_hand(model.tree(), root, 2, 1);
    let size = model.tree().node(root).expect("the root").size();
    assert!(screen_text(&model, 160, 48).contains(&format!(
        "{agreement} of {size} documents on matched sides, {} disputed",
        disputed.len()
    )));
    // The cursor moves down the list; the list scrolls to keep it in sight.
    for _ in 0..disputed.len().min(6) {
        key(&mut model, KeyCode::Down);
    }
    insta::assert_snapshot!("three_splits_80x24", draw(&model, 80, 24).backend());
    insta::assert_snapshot!("three_splits_160x48", draw(&model, 160, 48).backend());
    key(&mut model, KeyCode::Tab);
    assert_eq!(heading(&model), "split 1");
    assert_eq!(model.tree().active_split(root), 2, "Tab changes no tree");
}

#[test]
fn switching_in_the_popup_compares_the_new_active_split_with_the_one_left() {
    let mut model = with_alternative();
    let root = model.tree().root();
    key(&mut model, KeyCode::Char('A'));
    key(&mut model, KeyCode::Char('['));
    assert_eq!(model.tree().active_split(root), 0);
    assert!(
        matches!(model.popup(), Some(Popup::Alternatives { .. })),
        "{}",
        model.status()
    );
    let text = screen_text(&model, 160, 48);
    assert!(text.contains("split 1 (active) × split 2"), "{text}");
    assert!(text.contains("1 · ● active"), "{text}");
    // The agreement is the same read either way.
    let (agreement, _) = by_hand(model.tree(), root, 0, 1);
    assert!(text.contains(&format!("{agreement} of ")), "{text}");
    // K keeps the active split: nothing left to compare, the view closes; u brings the other back.
    key(&mut model, KeyCode::Char('K'));
    assert_eq!(model.popup(), None);
    assert_eq!(model.tree().split_count(root), 1);
    key(&mut model, KeyCode::Char('u'));
    assert_eq!(model.tree().split_count(root), 2);
}

#[test]
fn label_blind_alternatives_name_no_label_and_labelled_ones_do() {
    let labelled = |blind: bool| {
        let mut model = two_splits_from(Start {
            blind,
            ..Start::new(renamed_labels(), false)
        });
        pick_rule(&mut model, "pddp-oc", &[]);
        key(&mut model, KeyCode::Char('g'));
        key(&mut model, KeyCode::Char('s'));
        key(&mut model, KeyCode::Char('A'));
        model
    };
    // With labels shown, the disputed documents and the children say their labels: the check below can fail.
    let model = labelled(false);
    let text = screen_text(&model, 160, 48);
    assert!(
        text.lines()
            .any(|line| line.contains(" → #") && line.contains("Qlabel")),
        "{text}"
    );
    assert!(text.contains("labels Qlabel"), "{text}");

    let mut model = labelled(true);
    for (width, height) in [(80, 24), (160, 48), (100, 30)] {
        let text = screen_text(&model, width, height);
        assert!(text.contains("disputed"), "{text}");
        assert!(!text.contains("Qlabel"), "{width}x{height}:\n{text}");
    }
    key(&mut model, KeyCode::Enter);
    let text = screen_text(&model, 160, 48);
    assert!(!text.contains("Qlabel"), "{text}");
    assert!(!model.status().contains("Qlabel"), "{}", model.status());
}

#[test]
fn the_tree_pane_says_which_split_is_active_at_every_width() {
    let model = with_alternative();
    for (width, height) in [(80, 24), (100, 30), (160, 48)] {
        let text = screen_text(&model, width, height);
        let row = text
            .lines()
            .find(|line| line.contains("▾ #0"))
            .unwrap_or_else(|| panic!("the root's row:\n{text}"));
        assert!(
            row.contains("2/2"),
            "{width}x{height}: the root's row {row:?}"
        );
    }
    // Once one split is kept, no mark.
    let mut kept = with_alternative();
    key(&mut kept, KeyCode::Char('K'));
    let text = screen_text(&kept, 80, 24);
    assert!(!text.contains("2/2") && !text.contains("1/1"), "{text}");
}

#[test]
fn a_node_split_once_shows_its_split_and_nothing_to_compare() {
    let mut model = two_splits();
    key(&mut model, KeyCode::Char('g'));
    key(&mut model, KeyCode::Char('A'));
    let Some(Popup::Alternatives { view, .. }) = model.popup() else {
        panic!("the view opens on a node split once: {}", model.status());
    };
    assert_eq!((view.splits.len(), view.disagreement.is_none()), (1, true));
    assert!(!screen_text(&model, 80, 24).contains("matched sides"));
    key(&mut model, KeyCode::Tab);
    assert!(model.status().contains("one split"), "{}", model.status());
    key(&mut model, KeyCode::Enter);
    assert!(
        model.status().contains("no disputed document"),
        "{}",
        model.status()
    );
    assert!(matches!(model.popup(), Some(Popup::Alternatives { .. })));
    key(&mut model, KeyCode::Esc);
    assert_eq!(model.popup(), None);
}
