//! The analyst's workbench in a real terminal: merging a leaf into another across branches, a confusion cell's
//! documents moved in one step, and new documents added to the open tree. tmux runs the real `pdx` on the demo
//! corpus; skipped (with a message) when tmux is not installed.

#[path = "common/tmux.rs"]
mod tmux;

#[path = "common/launch.rs"]
mod launch;

use launch::{launch, quit_without_saving};

/// The demo's medicine, split across the root's two branches by plain PDDP at six leaves, joined again: `M` on
/// `#10`, the leaf picker, `#7`, Enter; then undone.
#[test]
#[ignore = "needs tmux"]
fn merge_a_leaf_into_another_across_branches() {
    let work = tempfile::tempdir().expect("temp dir");
    // Plain PDDP's six leaves: its medicine is split across the root's two branches (#7 and #10).
    let (tmux, exit_file) = launch(work.path(), "merge-into", &["--rule", "pddp"]);
    let enter = || tmux.run(&["send-keys", "-t", &tmux.session, "Enter"]);
    tmux.wait_for_text("Tree · 1 leaf");
    tmux.send("a6");
    enter();
    let screen = tmux.wait_for_text("Tree · 6 leaves");
    assert!(screen.contains("• #10"), "{screen}");

    // The last node of the tree is #10.
    tmux.send("GM");
    let screen = tmux.wait_for_text("Merge #10 (17) into the leaf");
    assert!(screen.contains("Enter merges"), "{screen}");
    tmux.send("#7");
    enter();
    let screen = tmux.wait_for_text("merged #10 into #7 (17 documents)");
    assert!(screen.contains("Tree · 5 leaves"), "{screen}");
    assert!(
        !screen.contains("• #10") && !screen.contains("• #9"),
        "{screen}"
    );
    assert!(
        screen
            .lines()
            .any(|line| line.contains("• #7") && line.contains(" 69 ")),
        "{screen}"
    );

    tmux.send("u");
    let screen = tmux.wait_for_text("undone: merged #10 into #7");
    assert!(screen.contains("Tree · 6 leaves"), "{screen}");

    // On a split node M says why not, and opens nothing.
    tmux.send("g");
    tmux.send("M");
    let screen = tmux.wait_for_text("not merged: #0 is split");
    assert!(!screen.contains("into the leaf"), "{screen}");

    quit_without_saving(&tmux, &exit_file);
}

/// From a figure to the documents behind it: Enter on a confusion cell lists that leaf's documents of that label,
/// `*` marks them all and `M` moves them in one step.
#[test]
#[ignore = "needs tmux"]
fn a_confusion_cell_to_a_move() {
    let work = tempfile::tempdir().expect("temp dir");
    let (tmux, exit_file) = launch(work.path(), "cell", &[]);
    let key = |name: &str| {
        tmux.run(&["send-keys", "-t", &tmux.session, name]);
    };
    tmux.wait_for_text("Tree · 1 leaf");
    tmux.send("s");
    tmux.wait_for_text("Tree · 2 leaves");
    tmux.send("c");
    tmux.wait_for_text("Enter: its documents");
    // The demo's labels are the rows; the second column is the second leaf.
    tmux.send("l");
    key("Enter");
    let screen = tmux.wait_for_text("labelled astronomy");
    assert!(screen.contains("filter label astronomy"), "{screen}");
    // "#2: its N documents labelled astronomy": N is what * marks and M moves.
    let listed: usize = screen
        .split("its ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("a count in the status line:\n{screen}"));
    assert!(listed > 1, "{screen}");
    tmux.send("*");
    tmux.wait_for_text(&format!("{listed} listed documents marked"));
    tmux.send("M");
    tmux.wait_for_text(&format!("Move {listed} documents to the leaf"));
    key("Enter");
    tmux.wait_for_text(&format!("moved {listed} documents"));
    quit_without_saving(&tmux, &exit_file);
}

/// New documents added to the open tree: `+`, a folder, Enter; the list, Enter on a row selects its leaf, and the
/// tree pane counts them per node.
#[test]
#[ignore = "needs tmux"]
fn new_documents_added_to_the_open_tree() {
    let work = tempfile::tempdir().expect("temp dir");
    let incoming = work.path().join("incoming");
    std::fs::create_dir_all(&incoming).expect("folder");
    std::fs::write(
        incoming.join("clinic.txt"),
        "The patients saw the doctors at the clinic about heart disease, diet and vitamin doses.",
    )
    .expect("written");
    std::fs::write(
        incoming.join("match.txt"),
        "The team won the game; the players thanked their coaches after the season.",
    )
    .expect("written");
    let (tmux, exit_file) = launch(work.path(), "new-documents", &[]);
    let enter = || tmux.run(&["send-keys", "-t", &tmux.session, "Enter"]);
    tmux.wait_for_text("Tree · 1 leaf");
    tmux.send("a6");
    enter();
    tmux.wait_for_text("Tree · 6 leaves");

    tmux.send("+");
    tmux.wait_for_text("Add new documents");
    tmux.send(&incoming.display().to_string());
    enter();
    let screen = tmux.wait_for_text("2 new documents from");
    assert!(screen.contains("New documents: 2 documents"), "{screen}");
    assert!(
        screen.contains("clinic.txt") && screen.contains("match.txt"),
        "{screen}"
    );
    // Enter on the first row selects its leaf; the tree pane counts the new documents per node.
    enter();
    let screen = tmux.wait_for_text("went to #");
    assert!(screen.contains(" new "), "{screen}");
    assert!(screen.contains("+2"), "{screen}");

    quit_without_saving(&tmux, &exit_file);
}
