//! Label-blind exploration, walked screen by screen: with the labels hidden no tab, popup or message draws a
//! label's name, a colour or letter chosen by label, or a figure measured against the labels.

use std::sync::Arc;

use super::*;

/// Label names no document text, word or id contains, so that finding one on screen means a label was drawn.
pub(super) fn renamed_labels() -> Arc<Dataset> {
    let mut data = (*demo()).clone();
    for (at, name) in data.label_names.iter_mut().enumerate() {
        *name = format!("Qlabel{at}x");
    }
    Arc::new(data)
}

/// Words that name a figure measured against the labels, as the screens write them.
const FIGURES: [&str; 8] = [
    "purity",
    "entropy",
    "NMI",
    "accuracy",
    "by label",
    " pur ",
    " ent ",
    "Confusion",
];

/// What is on screen at both sizes, for each screen the walk reaches.
fn assert_nothing_of_the_labels(model: &Model, screen: &str) {
    for (width, height) in [(80, 24), (160, 48)] {
        let text = screen_text(model, width, height);
        assert!(
            !text.contains("Qlabel"),
            "{screen}: a label's name at {width}x{height}:\n{text}"
        );
        // The help names the figures the label-blind key hides; that is no figure.
        if screen != "help" {
            for figure in FIGURES {
                assert!(
                    !text.contains(figure),
                    "{screen}: {figure:?} at {width}x{height}:\n{text}"
                );
            }
        }
    }
}

/// Every tab of the selected node.
fn walk_tabs(model: &mut Model, node: &str) {
    for (tab, name) in [
        ('1', "terms"),
        ('2', "labels"),
        ('3', "documents"),
        ('4', "preview"),
    ] {
        key(model, KeyCode::Char(tab));
        assert_nothing_of_the_labels(model, &format!("{node}, {name} tab"));
    }
}

#[test]
fn label_blind_draws_nothing_of_the_labels_on_any_screen() {
    let mut model = Model::new(Start {
        blind: true,
        ..Start::new(renamed_labels(), true)
    });
    assert_nothing_of_the_labels(&model, "the first screen");
    walk_tabs(&mut model, "the unsplit root");
    key(&mut model, KeyCode::Char('s'));
    key(&mut model, KeyCode::Char('S'));
    walk_tabs(&mut model, "the split root");
    key(&mut model, KeyCode::Char('j'));
    walk_tabs(&mut model, "a child");
    let leaf = model.derived().leaves[0];
    select(&mut model, leaf);
    walk_tabs(&mut model, "a leaf");

    // The root split again by another rule: its alternatives side by side.
    pick_rule(&mut model, "pddp-oc", &[]);
    key(&mut model, KeyCode::Char('g'));
    key(&mut model, KeyCode::Char('s'));
    walk_tabs(&mut model, "the root split twice");
    key(&mut model, KeyCode::Char('A'));
    assert!(
        matches!(model.popup(), Some(Popup::Alternatives { .. })),
        "{}",
        model.status()
    );
    assert_nothing_of_the_labels(&model, "alternatives");
    key(&mut model, KeyCode::Esc);

    // Two nodes compared.
    key(&mut model, KeyCode::Char(' '));
    key(&mut model, KeyCode::Char('j'));
    key(&mut model, KeyCode::Char('v'));
    assert!(
        matches!(model.popup(), Some(Popup::Compare { .. })),
        "{}",
        model.status()
    );
    assert_nothing_of_the_labels(&model, "compare");
    key(&mut model, KeyCode::Esc);

    // The confusion view is refused, and says why.
    key(&mut model, KeyCode::Char('c'));
    assert_eq!(model.popup(), None);
    assert_nothing_of_the_labels(&model, "after c");

    // A search's hits, and a document read.
    key(&mut model, KeyCode::Char('/'));
    type_text(&mut model, "the");
    key(&mut model, KeyCode::Enter);
    assert_eq!(model.popup(), Some(&Popup::Hits));
    assert_nothing_of_the_labels(&model, "search hits");
    key(&mut model, KeyCode::Esc);
    let leaf = model.derived().leaves[0];
    select(&mut model, leaf);
    key(&mut model, KeyCode::Tab);
    key(&mut model, KeyCode::Char('3'));
    key(&mut model, KeyCode::Enter);
    assert!(
        matches!(model.popup(), Some(Popup::Viewer { .. })),
        "{}",
        model.status()
    );
    assert_nothing_of_the_labels(&model, "the viewer");
    key(&mut model, KeyCode::Esc);

    // Where documents moved by hand go.
    key(&mut model, KeyCode::Char('M'));
    assert!(
        matches!(model.popup(), Some(Popup::Leaves(_))),
        "{}",
        model.status()
    );
    assert_nothing_of_the_labels(&model, "the leaf picker");
    key(&mut model, KeyCode::Esc);
    key(&mut model, KeyCode::Tab);

    // The rule picker, the message log and the help.
    key(&mut model, KeyCode::Char('r'));
    assert!(matches!(model.popup(), Some(Popup::Rules(_))));
    assert_nothing_of_the_labels(&model, "the rule picker");
    key(&mut model, KeyCode::Esc);
    key(&mut model, KeyCode::Char('L'));
    assert!(matches!(model.popup(), Some(Popup::Log { .. })));
    assert_nothing_of_the_labels(&model, "the message log");
    key(&mut model, KeyCode::Esc);
    key(&mut model, KeyCode::Char('?'));
    assert!(matches!(model.popup(), Some(Popup::Help { .. })));
    assert_nothing_of_the_labels(&model, "help");
}

#[test]
fn the_message_log_keeps_no_figure_from_before_the_labels_were_hidden() {
    let mut model = Model::new(Start::new(renamed_labels(), true));
    key(&mut model, KeyCode::Char('s'));
    key(&mut model, KeyCode::Char('S'));
    key(&mut model, KeyCode::Char('b'));
    key(&mut model, KeyCode::Char('L'));
    assert!(matches!(model.popup(), Some(Popup::Log { .. })));
    assert_nothing_of_the_labels(&model, "the message log after b");
}

#[test]
fn snapshot_label_blind_preview_draws_one_mark_for_every_member() {
    let mut model = Model::new(Start {
        blind: true,
        ..Start::new(demo(), false)
    });
    key(&mut model, KeyCode::Char('4'));
    insta::assert_snapshot!("blind_preview_160x48", draw(&model, 160, 48).backend());
}

#[test]
fn an_export_made_label_blind_leaves_the_labels_out_and_says_so() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut model = two_splits_from(Start {
        export_dir: dir.path().to_path_buf(),
        source: Some(demo_source()),
        blind: true,
        ..Start::new(renamed_labels(), false)
    });
    key(&mut model, KeyCode::Char('x'));
    assert!(
        model
            .status()
            .ends_with("; made label-blind: no labels, no figures measured against them"),
        "{}",
        model.status()
    );
    let read = |extension: &str| {
        std::fs::read_to_string(dir.path().join(format!("pdx-demo-3leaves.{extension}")))
            .expect("written")
    };
    for extension in ["json", "csv", "nwk", "html"] {
        let text = read(extension);
        assert!(!text.contains("Qlabel"), "{extension}: a label's name");
        for figure in ["purity", "entropy", "nmi", "accuracy"] {
            assert!(!text.contains(figure), "{extension}: {figure}");
        }
    }
    let json: serde_json::Value = serde_json::from_str(&read("json")).expect("json");
    assert_eq!(json["labels_hidden"], true);
    assert!(read("html").contains(crate::report::html::LABELS_HIDDEN));
    // Shown again, the labels are in the next export, which no longer says it was made blind.
    key(&mut model, KeyCode::Char('b'));
    key(&mut model, KeyCode::Char('x'));
    assert!(
        !model.status().contains("label-blind"),
        "{}",
        model.status()
    );
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("pdx-demo-3leaves-2.json")).expect("written"),
    )
    .expect("json");
    assert!(json.get("labels_hidden").is_none());
    assert!(json["metrics"].get("nmi").is_some(), "{}", json["metrics"]);
    // The CSV's label column: each document's own label, shown again.
    let csv = std::fs::read_to_string(dir.path().join("pdx-demo-3leaves-2.csv")).expect("written");
    let data = model.data();
    for (row, document) in csv.lines().skip(1).zip(&data.documents) {
        let label = document
            .label
            .map(|l| data.label_names[l as usize].as_str())
            .expect("the demo is labelled");
        assert!(row.ends_with(&format!(",{label}")), "{row}");
    }
}
