//! A large node's detail (its centroid's terms, its ranked documents) comes from a worker: the key that selects
//! it only redraws, the pane says what it computes meanwhile, and a result for a node left since is kept for
//! later, never shown on the node selected now.

use super::*;

/// The demo tree after two splits, with every pass over members sent to a worker.
fn with_jobs() -> Model {
    let mut model = two_splits();
    model.set_detail_inline(0);
    model
}

/// Press a key, keep the jobs it asks for unrun, and return them.
fn press(model: &mut Model, code: KeyCode) -> Vec<Effect> {
    let event = KeyEvent::new(code, KeyModifiers::NONE);
    let action = model.action_for(&event).expect("a bound key");
    update(model, action)
}

#[test]
fn a_new_inner_node_shows_a_placeholder_until_its_centroid_arrives() {
    let mut model = with_jobs();
    let inline = {
        let mut plain = two_splits();
        select(&mut plain, 0);
        plain.detail().top_terms.clone()
    };
    // The root is an inner node and no centroid of it is kept: the key asks a worker.
    let jobs = press(&mut model, KeyCode::Char('g'));
    assert_eq!(model.selected(), 0);
    assert!(model.detail().pending, "the root's terms wait for a worker");
    assert!(model.detail().top_terms.is_empty());
    assert!(
        jobs.iter().any(|e| matches!(e.work, Work::Detail(_))),
        "the key asked for a detail job"
    );
    let text = screen_text(&model, 80, 24);
    assert!(text.contains("computing the centroid of"), "{text}");
    insta::assert_snapshot!("computing_centroid_80x24", draw(&model, 80, 24).backend());
    run_effects(&mut model, jobs);
    assert!(!model.detail().pending);
    assert_eq!(
        model.detail().top_terms,
        inline,
        "the same terms as at once"
    );
}

#[test]
fn the_documents_tab_says_it_ranks_until_the_ranking_arrives() {
    let mut model = with_jobs();
    // Let the selected node's centroid arrive first.
    let jobs = press(&mut model, KeyCode::Char('g'));
    run_effects(&mut model, jobs);
    let jobs = press(&mut model, KeyCode::Char('3'));
    assert_eq!(model.tab(), DetailTab::Documents);
    assert!(model.detail().ranking_pending);
    assert!(model.detail().documents.is_empty());
    let text = screen_text(&model, 80, 24);
    assert!(text.contains("ranking"), "{text}");
    insta::assert_snapshot!("ranking_documents_80x24", draw(&model, 80, 24).backend());
    run_effects(&mut model, jobs);
    assert!(!model.detail().ranking_pending);
    let size = model.tree().node(model.selected()).expect("a node").size();
    assert_eq!(model.detail().documents.len(), size);
}

#[test]
fn a_result_for_a_node_left_meanwhile_is_kept_not_shown() {
    let mut model = with_jobs();
    let mut jobs = press(&mut model, KeyCode::Char('g'));
    // Leave the root before its job's result comes back: one job at a time, so this key asks for none.
    let more = press(&mut model, KeyCode::Char('j'));
    assert!(!more.iter().any(|e| matches!(e.work, Work::Detail(_))));
    jobs.extend(more);
    let now = model.selected();
    assert_ne!(now, 0);
    assert!(model.detail().pending);
    run_effects(&mut model, jobs);
    // The root's result did not show on this node; this node's job followed it.
    assert_eq!(model.detail().node, now);
    assert!(!model.detail().pending);
    let mut plain = two_splits();
    select(&mut plain, now);
    assert_eq!(model.detail().top_terms, plain.detail().top_terms);
    // The root's centroid was kept: going back asks no worker.
    let back = press(&mut model, KeyCode::Char('g'));
    assert!(!back.iter().any(|e| matches!(e.work, Work::Detail(_))));
    assert!(!model.detail().pending);
}

#[test]
fn a_pass_is_made_at_once_by_the_entries_it_reads_not_its_members() {
    let data = demo();
    let (documents, entries) = (data.matrix.cols(), data.matrix.nnz());
    assert!(
        entries > 2 * documents,
        "the demo's documents hold several entries each"
    );
    // The root's pass (no centroid of an inner node is kept) reads every entry: a limit of as many entries as the
    // root has members sends it to a worker.
    let mut model = two_splits();
    model.set_detail_inline(documents);
    let jobs = press(&mut model, KeyCode::Char('g'));
    assert!(model.detail().pending, "the root's pass waits for a worker");
    assert!(jobs.iter().any(|e| matches!(e.work, Work::Detail(_))));
    // A limit of its members times the mean entries per document makes it at once.
    let mut model = two_splits();
    model.set_detail_inline(documents * entries.div_ceil(documents));
    let jobs = press(&mut model, KeyCode::Char('g'));
    assert!(
        !model.detail().pending,
        "the root's pass is made as the key is handled"
    );
    assert!(!jobs.iter().any(|e| matches!(e.work, Work::Detail(_))));
    assert!(!model.detail().top_terms.is_empty());
}
