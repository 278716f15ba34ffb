//! A hostile collection on the screen: titles, ids and labels holding escape sequences and bidirectional overrides
//! show as their codes (`\u{202e}`), never as what a terminal would act on.

use std::sync::Arc;

use crossterm::event::KeyCode;

use super::*;
use crate::tui::model::FIELD_CHARS;

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

/// A phrase of the texts longer than the 60 characters the prompts once stopped at, without a sign.
const LONG_PHRASE: &str = "\"minister parliament vote policy budget cabinet election minister\"";

#[test]
fn a_phrase_longer_than_sixty_characters_is_searched_and_filtered_whole() {
    assert!(LONG_PHRASE.chars().count() > 60);
    let (_dir, mut model) = hostile_model();
    key(&mut model, KeyCode::Char('/'));
    type_text(&mut model, LONG_PHRASE);
    key(&mut model, KeyCode::Enter);
    let search = model.search().expect("a search");
    // The query as the status line and the hits' title show it: the phrase whole (a single phrase unquoted).
    assert_eq!(search.query.to_string(), LONG_PHRASE.trim_matches('"'));
    assert_eq!(search.documents, 8, "{}", model.status());
    key(&mut model, KeyCode::Esc);
    // The Documents tab's filter.
    key(&mut model, KeyCode::Char('3'));
    key(&mut model, KeyCode::Tab);
    key(&mut model, KeyCode::Char('f'));
    type_text(&mut model, LONG_PHRASE);
    key(&mut model, KeyCode::Enter);
    let query = model.filter_by().map(|q| q.to_string());
    assert_eq!(
        query.as_deref(),
        Some(LONG_PHRASE.trim_matches('"')),
        "{}",
        model.status()
    );
    assert_eq!(model.detail().documents.len(), 8, "{}", model.status());
}

#[test]
fn a_long_name_is_kept_whole_and_a_full_field_says_so() {
    let mut model = model();
    let name: String = "a long name for the root of the demo corpus, kept whole: ".repeat(2);
    assert!(name.chars().count() > 60);
    key(&mut model, KeyCode::Char('e'));
    type_text(&mut model, &name);
    key(&mut model, KeyCode::Enter);
    assert_eq!(
        model.label(model.selected()),
        name.trim(),
        "{}",
        model.status()
    );
    // A field takes many characters, and says when it takes no more.
    key(&mut model, KeyCode::Char('/'));
    let full = "x".repeat(FIELD_CHARS + 5);
    type_text(&mut model, &full);
    let text = screen_text(&model, 120, 30);
    assert!(
        text.contains(&format!("full: {FIELD_CHARS} characters")),
        "{text}"
    );
    match model.popup() {
        Some(Popup::Find { input }) => assert_eq!(input.chars().count(), FIELD_CHARS),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_session_refused_stays_on_the_status_line_until_a_key_is_pressed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut model = Model::new(Start {
        export_dir: dir.path().to_path_buf(),
        ..start()
    });
    // An export started before the session was refused ends after it, as the cache entry written and the search
    // index do at the start.
    let export = update(&mut model, Action::Command(Command::Export));
    let mut other = model.session(&demo_source());
    other.tree = crate::cluster::Tree::new(&model.data().matrix, vec![0, 1, 2], Vec::new());
    open_session(&mut model, std::path::Path::new("x.json"), other);
    let refused = model.status().to_string();
    assert!(refused.contains("made for other data"), "{refused}");
    run_effects(&mut model, export);
    assert_eq!(model.status(), refused);
    assert!(screen_text(&model, 160, 48).contains("made for other data"));
    // What came meanwhile is in the message log, after the refusal.
    let log: Vec<&str> = model.log().iter().map(|e| e.message.as_str()).collect();
    let at = |prefix: &str| log.iter().position(|m| m.starts_with(prefix));
    assert!(
        at("started without the session") < at("exported to "),
        "{log:?}"
    );
    assert!(at("exported to ").is_some(), "{log:?}");
    // The analyst's next key lets the status line move on.
    key(&mut model, KeyCode::Char('s'));
    assert!(
        !model.status().contains("made for other data"),
        "{}",
        model.status()
    );
}
