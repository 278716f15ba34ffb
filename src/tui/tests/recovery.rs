//! The tree kept when a signal stops pdx: written without replacing another, offered once at the next start on
//! the same corpus, reopened (unsaved) or discarded; and the signals caught as flags.

use std::path::{Path, PathBuf};

use super::*;
use crate::tui::recovery::{self, Offer};
use crate::tui::session::Session;

/// A model on the demo corpus that can write sessions, split `splits` times.
fn changed(splits: usize) -> Model {
    let mut model = Model::new(Start {
        source: Some(demo_source()),
        ..start()
    });
    key(&mut model, KeyCode::Char('s'));
    for _ in 1..splits {
        key(&mut model, KeyCode::Char('S'));
    }
    model
}

/// Keep `model`'s tree in `dir` as SIGTERM would.
fn keep(model: &Model, dir: &Path) -> PathBuf {
    recovery::keep(model, Some(dir), 15)
        .expect("kept")
        .expect("a changed tree is kept")
}

fn claim(dir: &Path) -> Option<Offer> {
    recovery::claim(dir, &demo_source()).expect("the recovery folder reads")
}

#[test]
fn a_clean_tree_is_not_kept_and_a_changed_one_is() {
    let dir = tempfile::tempdir().expect("temp dir");
    let clean = Model::new(Start {
        source: Some(demo_source()),
        ..start()
    });
    assert_eq!(recovery::keep(&clean, Some(dir.path()), 15), Ok(None));
    // A model without a source cannot write a session: nothing to keep either.
    assert_eq!(
        recovery::keep(&two_splits(), Some(dir.path()), 15),
        Ok(None)
    );
    let path = keep(&changed(2), dir.path());
    let session = session::read(&path).expect("a session file");
    assert_eq!(session.tree.leaves().len(), 3);
    assert!(
        path.parent()
            .and_then(|p| p.file_name())
            .is_some_and(|n| n.to_string_lossy().ends_with("-SIGTERM")),
        "{}",
        path.display()
    );
    // No folder for it: one line that says how to give one.
    let error = recovery::keep(&changed(1), None, 15).expect_err("no folder");
    assert!(error.contains("PDX_STATE_DIR"), "{error}");
}

#[test]
fn recoveries_never_replace_one_another_and_each_is_offered_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let first = keep(&changed(2), dir.path());
    let second = keep(&changed(2), dir.path());
    assert_ne!(first, second);
    assert_eq!(
        first.file_name(),
        second.file_name(),
        "the writer names both alike"
    );
    assert!(first.is_file() && second.is_file());

    // Another corpus's start is not offered them.
    let other = Source {
        paths: vec![PathBuf::from("elsewhere")],
        ..demo_source()
    };
    assert_eq!(recovery::claim(dir.path(), &other), Ok(None));

    let offered = claim(dir.path()).expect("an offer");
    assert_eq!(offered.signal, "SIGTERM");
    assert_eq!(offered.session.tree.leaves().len(), 3);
    assert!(offered.path.is_file() && offered.path.starts_with(dir.path().join("offered")));
    let again = claim(dir.path()).expect("the other one");
    assert_ne!(again.path, offered.path);
    assert_eq!(claim(dir.path()), None, "each is offered once");
}

#[test]
fn a_damaged_recovery_is_reported_once_naming_its_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = keep(&changed(1), dir.path());
    std::fs::write(&path, "{\"format\": \"pdx-session\"").expect("write");
    let error = recovery::claim(dir.path(), &demo_source()).expect_err("damaged");
    assert!(
        error.contains(&*path.file_name().expect("a name").to_string_lossy()),
        "{error}"
    );
    assert!(error.contains("offered"), "{error}");
    assert_eq!(claim(dir.path()), None);
}

/// A model with the offer of a 3-leaf tree kept in `dir` open.
fn offered(dir: &Path) -> (Model, PathBuf) {
    keep(&changed(2), dir);
    let offer = claim(dir).expect("an offer");
    let path = offer.path.clone();
    let mut model = Model::new(Start {
        source: Some(demo_source()),
        ..start()
    });
    act(&mut model, Action::Recovered(Ok(Box::new(offer))));
    assert!(matches!(model.popup(), Some(Popup::Recovery(_))));
    (model, path)
}

#[test]
fn the_offer_is_drawn_on_the_first_frame_with_its_keys_at_any_size() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (model, path) = offered(dir.path());
    for (width, height) in [(160, 48), (80, 24), (50, 12)] {
        let text = screen_text(&model, width, height).replace('│', " ");
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            text.contains("Recovered tree"),
            "at {width}x{height}: {text}"
        );
        for needed in [
            "y/Enter reopen the recovered tree",
            "d discard it",
            "Esc/Ctrl-c decide later",
        ] {
            assert!(
                text.contains(needed),
                "{needed:?} at {width}x{height}: {text}"
            );
        }
    }
    let text = screen_text(&model, 160, 48);
    assert!(text.contains(&path.display().to_string()), "{text}");
}

#[test]
fn y_reopens_the_kept_tree_unsaved_and_deletes_its_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut model, path) = offered(dir.path());
    key(&mut model, KeyCode::Char('y'));
    assert_eq!(model.popup(), None);
    assert_eq!(model.derived().leaves.len(), 3);
    assert!(model.dirty(), "reopened, not saved: q asks");
    assert!(
        model
            .status()
            .starts_with("reopened the tree SIGTERM stopped"),
        "{}",
        model.status()
    );
    assert!(!path.exists());
    key(&mut model, KeyCode::Char('q'));
    assert_eq!(model.popup(), Some(&Popup::ConfirmQuit));
}

#[test]
fn d_discards_the_kept_tree_and_esc_or_ctrl_c_puts_the_offer_off() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut model, path) = offered(dir.path());
    key(&mut model, KeyCode::Char('d'));
    assert_eq!(model.popup(), None);
    assert_eq!(model.derived().leaves.len(), 1);
    assert!(!model.dirty());
    assert!(!path.exists());
    assert!(
        model.status().starts_with("recovered tree discarded"),
        "{}",
        model.status()
    );

    for put_off in [KeyCode::Esc, KeyCode::Char('c')] {
        let (mut model, path) = offered(dir.path());
        if put_off == KeyCode::Esc {
            key(&mut model, put_off);
        } else {
            ctrl(&mut model, 'c');
        }
        assert_eq!(model.popup(), None);
        assert!(!model.quit_requested());
        assert!(path.is_file(), "kept");
        assert!(
            model.status().contains(&path.display().to_string()),
            "{}",
            model.status()
        );
    }
}

#[test]
fn a_kept_tree_that_no_longer_fits_stays_and_says_why() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (_, path) = offered(dir.path());
    let mut session: Session = session::read(&path).expect("a session");
    session.documents += 1;
    let mut model = model();
    let offer = Box::new(Offer {
        path: path.clone(),
        session: Box::new(session),
        signal: "SIGHUP".into(),
    });
    act(&mut model, Action::Recovered(Ok(offer)));
    key(&mut model, KeyCode::Char('y'));
    assert_eq!(model.derived().leaves.len(), 1);
    assert!(path.is_file());
    assert!(
        model.status().contains(&path.display().to_string()),
        "{}",
        model.status()
    );
}
