//! The screens as drawn: snapshots at two sizes, without colours, and the loading screen.

use super::*;

#[test]
fn snapshot_main_screen_80x24() {
    let model = two_splits();
    insta::assert_snapshot!(draw(&model, 80, 24).backend());
}

#[test]
fn snapshot_main_screen_160x48() {
    let model = two_splits();
    insta::assert_snapshot!(draw(&model, 160, 48).backend());
}

#[test]
fn snapshot_labels_and_documents_tabs_80x24() {
    let mut model = two_splits();
    key(&mut model, KeyCode::Char('2'));
    insta::assert_snapshot!("labels_tab_80x24", draw(&model, 80, 24).backend());
    key(&mut model, KeyCode::Char('3'));
    insta::assert_snapshot!("documents_tab_80x24", draw(&model, 80, 24).backend());
}

#[test]
fn snapshot_help_popup_80x24() {
    let mut model = two_splits();
    key(&mut model, KeyCode::Char('?'));
    insta::assert_snapshot!(draw(&model, 80, 24).backend());
}

#[test]
fn snapshot_confusion_and_rule_picker_160x48() {
    let mut model = two_splits();
    key(&mut model, KeyCode::Char('c'));
    insta::assert_snapshot!("confusion_160x48", draw(&model, 160, 48).backend());
    key(&mut model, KeyCode::Esc);
    key(&mut model, KeyCode::Char('r'));
    insta::assert_snapshot!("rule_picker_160x48", draw(&model, 160, 48).backend());
}

#[test]
fn without_colours_nothing_is_coloured() {
    use ratatui::style::Color;
    let coloured = |model: &Model| {
        let terminal = draw(model, 120, 40);
        terminal
            .backend()
            .buffer()
            .content()
            .iter()
            .filter(|cell| cell.fg != Color::Reset || cell.bg != Color::Reset)
            .count()
    };
    let mut plain = two_splits_from(Start {
        colors: false,
        ..start()
    });
    key(&mut plain, KeyCode::Char('c'));
    assert_eq!(coloured(&plain), 0, "NO_COLOR: no colour anywhere");
    let mut colours = two_splits_from(Start {
        colors: true,
        ..start()
    });
    key(&mut colours, KeyCode::Char('c'));
    assert!(coloured(&colours) > 0);
}

#[test]
fn snapshot_preview_tab() {
    let mut model = two_splits();
    key(&mut model, KeyCode::Char('G'));
    key(&mut model, KeyCode::Char('4'));
    insta::assert_snapshot!("preview_tab_80x24", draw(&model, 80, 24).backend());
    insta::assert_snapshot!("preview_tab_160x48", draw(&model, 160, 48).backend());
    // With colours, the scatter plot is drawn in Braille dots.
    let mut model = two_splits_from(Start {
        colors: true,
        ..start()
    });
    key(&mut model, KeyCode::Char('G'));
    key(&mut model, KeyCode::Char('4'));
    let terminal = draw(&model, 160, 48);
    let braille = terminal.backend().buffer().content().iter().any(|cell| {
        ('\u{2801}'..='\u{28ff}').contains(&cell.symbol().chars().next().unwrap_or(' '))
    });
    assert!(braille, "a Braille scatter plot");
    // Small terminals draw without panicking.
    for (width, height) in [(10, 5), (30, 10), (60, 16), (119, 30), (120, 60)] {
        draw(&model, width, height);
    }
}

#[test]
fn snapshot_loading_screen_80x24() {
    use crate::progress::Progress;
    use crate::tui::loading::Loading;
    let progress = Arc::new(Progress::default());
    progress.start_phase(crate::corpus::PHASE_READING, 18846);
    progress.advance(7530);
    let loading = Loading::new("20news-bydate-train 20news-bydate-test".into(), progress);
    assert_eq!(
        loading.progress_text(),
        (
            "reading files: 7530 / 18846 files".to_string(),
            Some(7530.0 / 18846.0)
        )
    );
    loading
        .progress
        .start_phase(crate::dataset::PHASE_TOKENISING, 18846);
    loading.progress.advance(100);
    loading.progress.add_tokens(123_456);
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).expect("test terminal");
    terminal
        .draw(|frame| view::view_loading(frame, &loading, 34, false))
        .expect("draw");
    insta::assert_snapshot!(terminal.backend());
}

#[test]
fn esc_while_loading_cancels_the_load_and_pdx_quits() {
    use crate::progress::Progress;
    use crate::tui::loading::{LoadEnd, Loading};
    let source = Source {
        paths: ["folder", "news", "mini.sgm", "docs.csv"]
            .iter()
            .map(|name| {
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/fixtures")
                    .join(name)
            })
            .collect(),
        options: Default::default(),
        use_cache: false,
    };
    // Not cancelled: the corpus loads.
    let loading = Loading::new(source.what(), Arc::new(Progress::default()));
    let result = source.open(&loading.progress);
    assert!(result.is_ok(), "{:?}", result.err());
    assert!(matches!(loading.finished(result), LoadEnd::Loaded(_)));

    let mut loading = Loading::new(source.what(), Arc::new(Progress::default()));
    let q = KeyEvent::new(KeyCode::Char('s'), KeyModifiers::NONE);
    assert_eq!(loading.command_for(&q), None, "only Esc and q do anything");
    let esc = KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE);
    let command = loading.command_for(&esc).expect("Esc means something");
    loading.update(command);
    assert!(loading.cancelling);
    assert!(loading.progress.is_cancelled(), "the loader is told");
    let result = source.open(&loading.progress);
    let error = result.as_ref().err().map(|e| e.to_string());
    assert_eq!(error.as_deref(), Some("loading cancelled"));
    assert!(matches!(loading.finished(result), LoadEnd::Cancelled));

    // Another error is an error.
    let missing = Source {
        paths: vec!["/nonexistent/pdx-corpus".into()],
        ..source
    };
    let loading = Loading::new(missing.what(), Arc::new(Progress::default()));
    assert!(matches!(
        loading.finished(missing.open(&loading.progress)),
        LoadEnd::Failed(_)
    ));
}

#[test]
fn thousands_are_grouped() {
    use crate::tui::loading::thousands;
    assert_eq!(thousands(0), "0");
    assert_eq!(thousands(999), "999");
    assert_eq!(thousands(1000), "1,000");
    assert_eq!(thousands(1234567), "1,234,567");
}

/// The help screen, drawn: every binding of the key table shows there with its keys and what it does, and so
/// does the mouse.
#[test]
fn the_help_screen_shows_every_binding() {
    use crate::tui::keys::{BINDINGS, MOUSE, keys_label};
    let mut model = model();
    key(&mut model, KeyCode::Char('?'));
    let height = u16::try_from(crate::tui::help::help_rows(98).len() + 4).expect("a screen height");
    let text = screen_text(&model, 100, height);
    for binding in BINDINGS {
        let line = format!("{:<14}{}", keys_label(binding), binding.help);
        assert!(text.contains(&line), "{line:?} not on the help screen");
    }
    for (what, help) in MOUSE {
        assert!(text.contains(help) && text.contains(what), "{help}");
    }
}
