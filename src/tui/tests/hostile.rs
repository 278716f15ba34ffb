//! A hostile collection on the screen: titles, ids and labels holding escape sequences and bidirectional overrides
//! show as their codes (`\u{202e}`), never as what a terminal would act on.

use std::sync::Arc;

use ratatui::crossterm::event::KeyCode;

use super::*;

/// What a terminal would act on or reorder (ratatui drops the C0 and C1 controls itself; not the bidirectional
/// ones); the screen's text ends each row with a line feed.
fn is_hostile(c: char) -> bool {
    (c.is_control() && c != '\n') || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Sixteen documents of two topics whose titles, ids and labels are hostile.
fn hostile_model() -> (tempfile::TempDir, Model) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("hostile.jsonl");
    let topics = [
        "election minister parliament vote policy budget cabinet",
        "match goal league striker season trophy coach stadium",
    ];
    let mut lines = String::new();
    for document in 0..16 {
        let line = serde_json::json!({
            "id": format!("\u{1b}]0;ID{document}\u{7}"),
            "title": format!("\u{202e}evil title {document}"),
            "label": format!("\u{1b}]52;c;Y3VybA==\u{7}topic\u{202e}{}", document % 2),
            "text": format!("{} {document}", format!("{} ", topics[document % 2]).repeat(3)),
        });
        lines.push_str(&line.to_string());
        lines.push('\n');
    }
    std::fs::write(&path, lines).expect("write");
    let opened = crate::dataset::open(&[path], &Default::default(), false).expect("opens");
    let model = Model::new(Start::new(Arc::new(opened.dataset), false));
    (dir, model)
}

#[test]
fn the_documents_list_and_the_viewer_show_hostile_strings_escaped() {
    let (_dir, mut model) = hostile_model();
    key(&mut model, KeyCode::Char('3'));
    key(&mut model, KeyCode::Tab);
    let text = screen_text(&model, 160, 40);
    assert!(!text.contains(is_hostile), "{text}");
    assert!(text.contains("\\u{202e}evil title"), "{text}");
    assert!(text.contains("\\u{1b}]52;c;"), "{text}");
    // The viewer: the title above the text, and the id and label in its frame.
    key(&mut model, KeyCode::Enter);
    assert!(
        matches!(model.popup(), Some(Popup::Viewer { .. })),
        "{}",
        model.status()
    );
    // It opens at the first distinctive word: its top shows the title.
    key(&mut model, KeyCode::Home);
    let text = screen_text(&model, 160, 40);
    assert!(!text.contains(is_hostile), "{text}");
    assert!(text.contains("\\u{202e}evil title"), "{text}");
    assert!(text.contains("\\u{1b}]0;ID"), "{text}");
}

#[test]
fn every_screen_of_a_hostile_collection_is_free_of_what_a_terminal_acts_on() {
    let (_dir, mut model) = hostile_model();
    key(&mut model, KeyCode::Char('s'));
    assert_eq!(model.derived().leaves.len(), 2, "{}", model.status());
    for tab in ['1', '2', '3', '4'] {
        key(&mut model, KeyCode::Char(tab));
        for (width, height) in [(160, 48), (80, 24)] {
            let text = screen_text(&model, width, height);
            assert!(!text.contains(is_hostile), "tab {tab}: {text}");
        }
    }
    // The confusion view and the message log.
    for popup in ['c', 'L'] {
        key(&mut model, KeyCode::Char(popup));
        let text = screen_text(&model, 160, 48);
        assert!(!text.contains(is_hostile), "{popup}: {text}");
        key(&mut model, KeyCode::Esc);
    }
}
