//! Reading the tree: label-blind exploration, node descriptions and paths, the message log, the confusion view
//! with long labels, wrapped status messages and tree columns as wide as their numbers.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::*;
use crate::cluster::registry::DEFAULT_RULE;
use crate::tui::view::tree::{NodeRow, Showing, fit};
use crate::tui::view::wrap;

/// 13:05:09 UTC on the fourth day of 1970: the log's times in snapshots.
fn fixed_time() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(3 * 86_400 + 13 * 3600 + 5 * 60 + 9)
}

fn fixed_start() -> Start {
    Start {
        now: fixed_time(),
        // A zone that is not UTC, spelt out so that no time-zone database is needed.
        time_zone: jiff::tz::TimeZone::posix("CET-1CEST,M3.5.0,M10.5.0/3").expect("a valid rule"),
        ..start()
    }
}

/// 20 Newsgroups' label names: long, and alike in their first characters.
const NEWSGROUPS: [&str; 20] = [
    "alt.atheism",
    "comp.graphics",
    "comp.os.ms-windows.misc",
    "comp.sys.ibm.pc.hardware",
    "comp.sys.mac.hardware",
    "comp.windows.x",
    "misc.forsale",
    "rec.autos",
    "rec.motorcycles",
    "rec.sport.baseball",
    "rec.sport.hockey",
    "sci.crypt",
    "sci.electronics",
    "sci.med",
    "sci.space",
    "soc.religion.christian",
    "talk.politics.guns",
    "talk.politics.mideast",
    "talk.politics.misc",
    "talk.religion.misc",
];

/// The demo corpus with its documents spread over the 20 newsgroups' labels.
fn newsgroups_model() -> Model {
    let mut data = Dataset::clone(&demo());
    data.label_names = NEWSGROUPS.iter().map(|l| l.to_string()).collect();
    for (j, document) in data.documents.iter_mut().enumerate() {
        document.label = Some(u32::try_from(j % NEWSGROUPS.len()).expect("a label index"));
    }
    let mut model = Model::new(Start {
        now: fixed_time(),
        ..Start::new(Arc::new(data), false)
    });
    key(&mut model, KeyCode::Char('a'));
    type_text(&mut model, "24");
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.derived().leaves.len(), 24, "{}", model.status());
    model
}

#[test]
fn blind_hides_every_figure_against_the_labels() {
    let mut model = two_splits_from(fixed_start());
    let root = model.tree().root();
    assert!(model.labels_shown());
    assert!(model.global_figures().is_some());
    assert!(model.node_figures(root).is_some());
    assert!(model.label_counts(root).is_some());
    assert!(model.document_label(0).is_some());
    key(&mut model, KeyCode::Char('b'));
    assert!(!model.labels_shown());
    assert!(model.global_figures().is_none());
    assert!(model.node_figures(root).is_none());
    assert!(model.label_counts(root).is_none());
    assert!(model.document_label(0).is_none());
    assert!(
        model.status().contains("labels hidden"),
        "{}",
        model.status()
    );
    // No confusion view while blind: the status line says why.
    key(&mut model, KeyCode::Char('c'));
    assert_eq!(model.popup(), None);
    assert!(
        model.status().contains("b shows them"),
        "{}",
        model.status()
    );
    // Nothing of the labels on screen, at either size.
    for (width, height) in [(80, 24), (160, 48)] {
        for tab in ['1', '2', '3'] {
            key(&mut model, KeyCode::Char(tab));
            let text = screen_text(&model, width, height);
            for label in &model.data().label_names {
                // A folder corpus's document ids hold the label's folder (`demo/cooking/baking/01.txt`): the
                // Documents tab shows them, but not the label column before them.
                let shown = if tab == '3' {
                    text.contains(&format!("  {label:<18} "))
                } else {
                    text.contains(label.as_str())
                };
                assert!(!shown, "{label} shown at {width}x{height}: {text}");
            }
            for figure in ["purity", "NMI", " pur ", "entropy"] {
                assert!(!text.contains(figure), "{figure} shown at {width}x{height}");
            }
            assert!(text.contains("labels hidden"));
        }
    }
    key(&mut model, KeyCode::Char('b'));
    assert!(model.labels_shown());
    assert!(model.global_figures().is_some());
}

#[test]
fn the_flag_starts_blind() {
    let model = Model::new(Start {
        blind: true,
        ..fixed_start()
    });
    assert!(!model.labels_shown());
    assert!(model.global_figures().is_none());
}

#[test]
fn the_log_records_each_message_once_with_its_time() {
    let mut model = two_splits_from(fixed_start());
    let before = model.log().len();
    assert!(
        before >= 3,
        "the start note and two splits: {:?}",
        model.log()
    );
    assert_eq!(model.log()[0].message, "? for help");
    assert!(model.log().iter().all(|e| e.time == "14:05:09"));
    // A key that changes nothing says nothing new.
    key(&mut model, KeyCode::Char('j'));
    assert_eq!(model.log().len(), before);
    key(&mut model, KeyCode::Char('u'));
    key(&mut model, KeyCode::Char('u'));
    key(&mut model, KeyCode::Char('u'));
    let messages: Vec<&str> = model.log()[before..]
        .iter()
        .map(|e| e.message.as_str())
        .collect();
    assert_eq!(
        messages,
        [
            format!("undone: split #1 with {DEFAULT_RULE}"),
            format!("undone: split #0 with {DEFAULT_RULE}"),
            "nothing to undo".to_string()
        ]
    );
    assert_eq!(
        model.log().last().map(|e| e.message.as_str()),
        Some(model.status())
    );
    // Consecutive entries differ: each message once.
    assert!(model.log().windows(2).all(|w| w[0].message != w[1].message));
}

#[test]
fn a_nodes_words_are_its_top_three_and_stay_beside_its_name() {
    let mut model = two_splits_from(fixed_start());
    for id in model.tree().depth_first() {
        let words = model.node_words(id);
        assert_eq!(words.len(), 3, "node {id}: {words:?}");
    }
    // A leaf's words are the top three of its centroid, as the Terms tab lists them; an inner node's too (its
    // centroid is computed from its leaves').
    for id in model.tree().depth_first() {
        let centroid = model
            .tree()
            .dense_centroid(&model.data().matrix, id)
            .expect("a node");
        let top = crate::report::terms::top_terms(&centroid, model.data().matrix.row_words(), 3);
        let top: Vec<String> = top.into_iter().map(|t| t.term).collect();
        assert_eq!(model.node_words(id), top.as_slice(), "node {id}");
    }
    let leaf = model.derived().leaves[0];
    select(&mut model, leaf);
    key(&mut model, KeyCode::Char('e'));
    type_text(&mut model, "sport");
    key(&mut model, KeyCode::Enter);
    let words = model.node_words(leaf).join(" ");
    let screen = screen_text(&model, 80, 24);
    assert!(
        screen.contains(&format!("#{leaf} sport · {words}"))
            || screen.contains(&format!("#{leaf} ◆ sport · {words}")),
        "{screen}"
    );
}

#[test]
fn the_detail_title_is_the_path_from_the_root() {
    let mut model = two_splits_from(fixed_start());
    key(&mut model, KeyCode::Char('G'));
    let id = model.selected();
    let path = model.path(id);
    assert!(path.len() >= 2, "{path:?}");
    assert_eq!(path.first().map(String::as_str), Some("#0"));
    assert_eq!(path.last(), Some(&format!("#{id}")));
    // Name the parent: the path and the Terms tab's "Against" use the names.
    let parent = model
        .tree()
        .node(id)
        .and_then(|n| n.parent)
        .expect("a parent");
    select(&mut model, parent);
    key(&mut model, KeyCode::Char('e'));
    type_text(&mut model, "sport");
    key(&mut model, KeyCode::Enter);
    select(&mut model, id);
    let mut expected: Vec<String> = model
        .tree()
        .path_to(id)
        .iter()
        .map(|&n| format!("#{n}"))
        .collect();
    let at = expected.len() - 2;
    expected[at] = "sport".into();
    assert_eq!(model.path(id), expected);
    let text = screen_text(&model, 160, 48);
    assert!(text.contains(&expected.join(" › ")), "{text}");
    let sibling = model
        .tree()
        .node(parent)
        .and_then(|p| p.children.iter().copied().find(|&c| c != id))
        .expect("a sibling");
    assert_eq!(model.detail().against, Some(format!("#{sibling}")));
    // A named sibling: "Against" names it.
    select(&mut model, sibling);
    key(&mut model, KeyCode::Char('e'));
    type_text(&mut model, "the others");
    key(&mut model, KeyCode::Enter);
    select(&mut model, id);
    assert_eq!(model.detail().against.as_deref(), Some("the others"));
}

#[test]
fn a_long_path_is_cut_from_the_left() {
    use crate::tui::model::shorten_path;
    let parts: Vec<String> = ["#0", "politics", "guns", "#17"].map(String::from).to_vec();
    assert_eq!(shorten_path(&parts, 80), "#0 › politics › guns › #17");
    assert_eq!(shorten_path(&parts, 20), "… › guns › #17");
    assert_eq!(shorten_path(&parts, 8), "… › #17");
    assert_eq!(shorten_path(&parts, 4), "…#17");
    assert!(shorten_path(&parts, 3).chars().count() <= 3);
}

#[test]
fn tree_columns_are_as_wide_as_their_numbers() {
    let model = model();
    let root = model.tree().node(model.tree().root()).expect("a root");
    let row = |size, scatter, rule: &str| NodeRow {
        node: root,
        depth: 0,
        size,
        scatter,
        rule: rule.to_string(),
        share: 0.5,
        label: None,
        new: None,
    };
    let width = |rows: &[NodeRow], heading: &str| {
        fit(
            rows,
            Showing {
                labels: false,
                new_documents: false,
            },
            200,
            20,
        )
        .iter()
        .find(|(column, _)| column.heading == heading)
        .map(|&(_, width)| width)
    };
    let wide = [row(1_000_000, 123_456.789, "pddp"), row(3, 0.5, "")];
    assert_eq!(width(&wide, "size"), Some(7), "1000000");
    assert_eq!(width(&wide, "scatter"), Some(10), "123456.789");
    assert_eq!(width(&wide, "split by"), Some(8), "the heading 'split by'");
    let small = [row(12, 1.0, "kernel-kmeans-cut")];
    assert_eq!(
        ["size", "scatter", "split by"].map(|heading| width(&small, heading)),
        [Some(4), Some(7), Some(17)]
    );
}

#[test]
fn on_a_narrow_pane_the_scatter_is_the_last_column_to_give_way() {
    let model = model();
    let root = model.tree().node(model.tree().root()).expect("a root");
    let rows = [NodeRow {
        node: root,
        depth: 0,
        size: 18_846,
        scatter: 17_631.042,
        rule: "pddp-oc-2means 2/3".to_string(),
        share: 1.0,
        label: Some(("comp.os.ms-windows.misc", 0.05)),
        new: None,
    }];
    let shorter = [NodeRow {
        rule: "pddp".to_string(),
        label: Some(("sci.med", 0.05)),
        ..rows[0]
    }];
    let shown_for = |rows: &[NodeRow], width: usize, natural_node: usize| -> Vec<&str> {
        fit(
            rows,
            Showing {
                labels: true,
                new_documents: false,
            },
            width,
            natural_node,
        )
        .iter()
        .map(|(column, _)| column.heading)
        .collect()
    };
    let shown = |width: usize| shown_for(&rows, width, 40);
    // The tree pane of a 120-column terminal, short rules and labels: every column, the scatter among them.
    let every = [
        "node", "size", "scatter", "share", "split by", "label", "purity",
    ];
    assert_eq!(shown_for(&shorter, 64, 16), every);
    // Nodes of longer text keep it: the column of lowest rank gives way for it; so it does before a long label
    // is cut.
    let without_rule = ["node", "size", "scatter", "share", "label", "purity"];
    assert_eq!(shown_for(&shorter, 64, 26), without_rule);
    assert_eq!(shown_for(&rows, 64, 10), without_rule);
    // Narrower, the columns give way in one order, the scatter last: each width shows a subset of the wider's.
    let mut wider = shown(64);
    for width in (8..64).rev() {
        let narrower = shown(width);
        assert!(
            narrower.iter().all(|column| wider.contains(column)),
            "{width}: {narrower:?} within {wider:?}"
        );
        if narrower.len() > 1 {
            assert!(narrower.contains(&"scatter"), "{width}: {narrower:?}");
        }
        wider = narrower;
    }
    assert_eq!(shown(24), ["node", "scatter"]);
}

/// The main screen at the two usual terminal sizes, the tree split twice: the tree pane keeps every node's
/// scatter.
#[test]
fn snapshot_the_tree_pane_keeps_the_scatter_at_120x36_and_80x24() {
    let model = two_splits_from(fixed_start());
    for (width, height) in [(120, 36), (80, 24)] {
        let text = screen_text(&model, width, height);
        let header = text.lines().nth(1).expect("a header row");
        assert!(header.contains("scatter"), "{width}x{height}: {header}");
        for id in model.visible().into_iter().map(|(id, _)| id) {
            let scatter = model.tree().node(id).expect("a node").scatter;
            assert!(
                text.contains(&format!(" {scatter:.3} ")),
                "{width}x{height}: #{id}"
            );
        }
        insta::assert_snapshot!(
            format!("tree_scatter_{width}x{height}"),
            draw(&model, width, height).backend()
        );
    }
}

#[test]
fn long_messages_wrap() {
    assert_eq!(wrap("one two three", 7, 5), ["one two", "three"]);
    assert_eq!(wrap("abcdefghij", 4, 4), ["abcd", "efgh", "ij"]);
    assert_eq!(wrap("", 5, 5), [""]);
}

/// A tree whose numbers are wide: the demo's values made 10,000 times larger, so that its scatters have six
/// digits before the point.
fn wide_numbers_model() -> Model {
    let mut data = Dataset::clone(&demo());
    data.matrix = match data.matrix {
        crate::matrix::DataMatrix::Sparse { matrix, terms, .. } => {
            crate::matrix::DataMatrix::sparse(matrix.map_values(|v| v * 10_000.0), terms)
        }
        other => other,
    };
    two_splits_from(Start {
        now: fixed_time(),
        ..Start::new(Arc::new(data), false)
    })
}

#[test]
fn snapshot_wide_numbers() {
    let model = wide_numbers_model();
    let root = model.tree().node(model.tree().root()).expect("a root");
    let scatter = format!("{:.3}", root.scatter);
    assert!(scatter.len() >= 10, "{scatter}");
    let text = screen_text(&model, 160, 48);
    assert!(text.contains(&format!(" {scatter} ")), "{text}");
    insta::assert_snapshot!("wide_numbers_160x48", draw(&model, 160, 48).backend());
    insta::assert_snapshot!("wide_numbers_80x24", draw(&model, 80, 24).backend());
}

#[test]
fn snapshot_main_screen_labelled_and_blind() {
    let mut model = two_splits_from(fixed_start());
    insta::assert_snapshot!("labelled_80x24", draw(&model, 80, 24).backend());
    insta::assert_snapshot!("labelled_160x48", draw(&model, 160, 48).backend());
    key(&mut model, KeyCode::Char('b'));
    insta::assert_snapshot!("blind_80x24", draw(&model, 80, 24).backend());
    insta::assert_snapshot!("blind_160x48", draw(&model, 160, 48).backend());
}

#[test]
fn the_confusion_view_with_long_labels() {
    let mut model = newsgroups_model();
    assert_eq!(model.confusion_grid().corner, "label");
    key(&mut model, KeyCode::Char('c'));
    let grid = model.confusion_grid();
    assert_eq!(grid.rows.len(), 20);
    assert_eq!(grid.columns.len(), 24);
    for (width, height) in [(80, 24), (160, 48)] {
        let text = screen_text(&model, width, height);
        // Every label shows whole, as a row; the title is not cut.
        for label in NEWSGROUPS.iter().take(usize::from(height) - 6) {
            assert!(text.contains(label), "{label} at {width}x{height}");
        }
        assert!(
            text.contains("[n] best match · Enter: its documents"),
            "{text}"
        );
    }
    insta::assert_snapshot!("confusion_long_80x24", draw(&model, 80, 24).backend());
    insta::assert_snapshot!("confusion_long_160x48", draw(&model, 160, 48).backend());
    // Right and down: the cursor moves over the cells, and the view scrolls only to keep it in sight.
    for _ in 0..4 {
        key(&mut model, KeyCode::Char('l'));
    }
    for _ in 0..6 {
        key(&mut model, KeyCode::Char('j'));
    }
    assert_eq!(model.popup(), Some(&Popup::Confusion { row: 6, column: 4 }));
    let text = screen_text(&model, 80, 24);
    assert!(text.contains("columns 1–"), "{text}");
    for _ in 0..8 {
        key(&mut model, KeyCode::Char('l'));
    }
    let text = screen_text(&model, 80, 24);
    assert!(text.contains("–13 of 24"), "{text}");
    // At 80x24 the 20 labels fit; on a shorter screen the cursor on the last label scrolls the first away.
    for _ in 0..13 {
        key(&mut model, KeyCode::Char('j'));
    }
    let text = screen_text(&model, 80, 16);
    assert!(text.contains("–20 of 20"), "{text}");
    assert!(!text.contains("alt.atheism"), "{text}");
    assert!(text.contains("talk.religion.misc"), "{text}");
    insta::assert_snapshot!(
        "confusion_long_scrolled_80x24",
        draw(&model, 80, 24).backend()
    );
    insta::assert_snapshot!(
        "confusion_long_scrolled_160x48",
        draw(&model, 160, 48).backend()
    );
    // Scrolling stops at the last column and row.
    for _ in 0..40 {
        key(&mut model, KeyCode::Right);
        key(&mut model, KeyCode::Down);
    }
    assert_eq!(
        model.popup(),
        Some(&Popup::Confusion {
            row: 19,
            column: 23
        })
    );
    key(&mut model, KeyCode::Left);
    assert!(matches!(
        model.popup(),
        Some(Popup::Confusion { column: 22, .. })
    ));
}

#[test]
fn every_bracketed_count_shows_whole() {
    let mut model = newsgroups_model();
    key(&mut model, KeyCode::Char('c'));
    let grid = model.confusion_grid();
    let text = screen_text(&model, 160, 48);
    for row in &grid.rows {
        for cell in row.cells.iter().filter(|c| c.matched && c.count > 0) {
            assert!(
                text.contains(&format!("[{}]", cell.count)),
                "[{}]",
                cell.count
            );
        }
    }
}

#[test]
fn snapshot_a_long_status_message_wraps() {
    let mut model = two_splits_from(fixed_start());
    let name = "the documents about telescopes, planets and the night sky";
    key(&mut model, KeyCode::Char('e'));
    type_text(&mut model, name);
    key(&mut model, KeyCode::Enter);
    key(&mut model, KeyCode::Char('m'));
    let message = model.status().to_string();
    assert_eq!(message, format!("merged {name} back into a leaf"));
    for (width, height) in [(80, 24), (160, 48)] {
        let text = screen_text(&model, width, height);
        // Every word of the message shows, across the status area's lines.
        for word in message.split(' ') {
            assert!(
                text.contains(word),
                "{word:?} cut at {width}x{height}: {text}"
            );
        }
    }
    insta::assert_snapshot!("long_status_80x24", draw(&model, 80, 24).backend());
    insta::assert_snapshot!("long_status_160x48", draw(&model, 160, 48).backend());
    // Longer than two lines: the status area says where the whole message is.
    let text = screen_text(&model, 40, 24);
    assert!(text.contains("(L: whole message)"), "{text}");
}

#[test]
fn snapshot_the_message_log() {
    let mut model = two_splits_from(fixed_start());
    key(&mut model, KeyCode::Char('u'));
    key(&mut model, KeyCode::Char('b'));
    key(&mut model, KeyCode::Char('L'));
    assert!(matches!(model.popup(), Some(Popup::Log { scroll: 0 })));
    let text = screen_text(&model, 80, 24);
    for entry in model.log() {
        let start: String = entry.message.chars().take(30).collect();
        assert!(text.contains(&start), "{start:?}");
    }
    // The times are the analyst's: the start's zone (13:05:09 UTC is 14:05:09 CET), named in the title.
    assert!(text.contains("14:05:09  "), "{text}");
    assert!(text.contains("times CET"), "{text}");
    insta::assert_snapshot!("message_log_80x24", draw(&model, 80, 24).backend());
    insta::assert_snapshot!("message_log_160x48", draw(&model, 160, 48).backend());
    key(&mut model, KeyCode::Esc);
    assert_eq!(model.popup(), None);
}

#[test]
fn messages_name_named_nodes() {
    let mut model = two_splits_from(fixed_start());
    let leaf = model.derived().leaves[0];
    select(&mut model, leaf);
    key(&mut model, KeyCode::Char('e'));
    type_text(&mut model, "sky");
    key(&mut model, KeyCode::Enter);
    key(&mut model, KeyCode::Char('s'));
    let messages: Vec<&str> = model.log().iter().map(|e| e.message.as_str()).collect();
    assert!(
        messages.iter().any(|m| m.starts_with("splitting sky with")),
        "{messages:?}"
    );
    assert!(
        model.status().starts_with("split sky into #"),
        "{}",
        model.status()
    );
    key(&mut model, KeyCode::Char('m'));
    assert_eq!(model.status(), "merged sky back into a leaf");
}

#[test]
fn a_split_keeps_the_other_nodes_words_and_describes_its_children() {
    let mut model = two_splits_from(fixed_start());
    let before: Vec<(usize, Vec<String>)> = model
        .tree()
        .depth_first()
        .into_iter()
        .map(|id| (id, model.node_words(id).to_vec()))
        .collect();
    key(&mut model, KeyCode::Char('S'));
    for (id, words) in &before {
        assert_eq!(model.node_words(*id), words.as_slice(), "node {id}");
    }
    for &leaf in &model.derived().leaves {
        let centroid = model
            .tree()
            .dense_centroid(&model.data().matrix, leaf)
            .expect("a leaf");
        let top = crate::report::terms::top_terms(&centroid, model.data().matrix.row_words(), 3);
        let top: Vec<String> = top.into_iter().map(|t| t.term).collect();
        assert_eq!(model.node_words(leaf), top.as_slice(), "leaf {leaf}");
    }
    // Undo and merge: the words of the nodes left are the same.
    key(&mut model, KeyCode::Char('u'));
    for (id, words) in &before {
        assert_eq!(model.node_words(*id), words.as_slice(), "node {id}");
    }
}

/// A CSV without titles: the Documents tab lists each document by its text's first line, not by `file:line`.
#[test]
fn documents_without_titles_are_listed_by_their_first_line() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("notes.csv");
    let mut csv = String::from("text\n");
    for i in 0..6 {
        csv.push_str(&format!(
            "\"Interest rates rose again {i}\nbanks lend less and markets fall\"\n\"Tennis player {i} wins\nthe final set in a tiebreak\"\n"
        ));
    }
    std::fs::write(&path, csv).expect("write");
    let opened = crate::dataset::open(&[path], &Default::default(), false).expect("opens");
    let mut model = Model::new(Start::new(Arc::new(opened.dataset), false));
    key(&mut model, KeyCode::Char('3'));
    let text = screen_text(&model, 100, 30);
    assert!(text.contains("Interest rates rose again"), "{text}");
    // Ids are `notes.csv:LINE`; only the status line names the file.
    assert!(
        !text.contains("notes.csv:2") && !text.contains("notes.csv:4"),
        "{text}"
    );
    let first = model.detail().documents[0];
    assert!(model.document_heading(first).ends_with(char::is_numeric));
}

/// Which pane takes `j/k`, `s`, Space and Enter shows without colours: a mark in its title and its name in the
/// status line.
#[test]
fn the_pane_with_the_focus_is_marked_in_its_title_and_named_in_the_status_line() {
    let mut model = two_splits();
    for (width, height) in [(160, 48), (80, 24)] {
        let text = screen_text(&model, width, height);
        assert!(text.contains("▶ Tree ·"), "{text}");
        assert!(!text.contains("▶ #"), "{text}");
        assert!(text.contains("▶ tree"), "{text}");
    }
    key(&mut model, KeyCode::Tab);
    for (width, height) in [(160, 48), (80, 24)] {
        let text = screen_text(&model, width, height);
        assert!(!text.contains("▶ Tree"), "{text}");
        assert!(text.contains("▶ #"), "{text}");
        assert!(text.contains("▶ detail"), "{text}");
    }
}

/// At 80x24 a tree three levels deep keeps every node's id and words whole in the node column: the other
/// columns give way (the lowest ranked first) or narrow before it does.
#[test]
fn at_80x24_the_node_column_keeps_its_words() {
    let mut model = model();
    key(&mut model, KeyCode::Char('a'));
    type_text(&mut model, "6");
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.derived().leaves.len(), 6, "{}", model.status());
    key(&mut model, KeyCode::Char('g'));
    let text = screen_text(&model, 80, 24);
    let tree_pane: Vec<&str> = text
        .lines()
        .take_while(|line| !line.starts_with('└'))
        .collect();
    let mut seen = 0;
    for (id, _) in model.visible() {
        let words = crate::report::terms::words_line(model.node_words(id));
        let Some(line) = tree_pane
            .iter()
            .find(|line| line.contains(&format!("#{id} ")))
        else {
            continue;
        };
        seen += 1;
        assert!(
            line.contains(&format!("#{id} {words}")) || line.contains(&format!("#{id} ◆ {words}")),
            "#{id} {words}:\n{text}"
        );
    }
    assert!(seen >= 6, "the pane shows most of the tree:\n{text}");
}
