//! A hostile collection cannot hurt the analyst: a document's file that changed after it was read (its hit shown
//! as such, never a crash), a text whose grapheme clusters are made to be huge, and the reads of texts kept off
//! the thread that runs `update` and `view`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crossterm::event::KeyCode;

use crossterm::event::{KeyEvent, KeyModifiers};

use super::{Action, Effect, Model, Start, effects, key, screen_text, type_text, update};
use crate::corpus::source_files_opened_here;
use crate::dataset::{self, Dataset, DatasetOptions};

/// A folder corpus of text files under `dir`: two topics of six documents each, the first document long, with
/// a word of its own (`zebra`) near its end.
fn folder_corpus(dir: &Path) -> PathBuf {
    let root = dir.join("corpus");
    for (topic, words) in [
        ("space", "orbit rocket moon planet"),
        ("kitchen", "bread oven flour yeast"),
    ] {
        std::fs::create_dir_all(root.join(topic)).expect("mkdir");
        for i in 0..6 {
            let text = format!("{words} {words} note{i} zebra{}", i % 2);
            std::fs::write(root.join(topic).join(format!("{i}.txt")), text).expect("write");
        }
    }
    let long = format!(
        "{} the zebra is here at the end\n",
        "orbit rocket moon ".repeat(80)
    );
    std::fs::write(root.join("space/0.txt"), long).expect("write");
    root
}

/// The dataset of `root`, its texts located in their files (read again on demand, not held).
fn open_folder(root: &Path) -> Arc<Dataset> {
    let options = DatasetOptions {
        text: crate::text::TextOptions {
            min_df: 1,
            ..Default::default()
        },
        ..DatasetOptions::default()
    };
    let opened = dataset::open(&[root.to_path_buf()], &options, false).expect("opens");
    Arc::new(opened.dataset)
}

fn search(model: &mut Model, query: &str) {
    key(model, KeyCode::Char('/'));
    type_text(model, query);
    key(model, KeyCode::Enter);
}

/// A file that changed after the search index was built: its hit lies past the end of what the file holds now.
/// Before, drawing the hit's snippet panicked (`text/index.rs`, exit 101, nothing kept); its hit, its row and its
/// viewer now say it changed.
#[test]
fn a_hit_in_a_file_changed_since_it_was_read_says_so() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = folder_corpus(dir.path());
    let data = open_folder(&root);
    let mut model = Model::new(Start::new(Arc::clone(&data), false));
    std::fs::write(root.join("space/0.txt"), "small now").expect("rewrite");
    search(&mut model, "zebra");
    let hits = model.search().expect("the index holds it").hits.clone();
    let changed = data
        .documents
        .iter()
        .position(|d| d.id.ends_with("space/0.txt"))
        .expect("a document of the file");
    let at = hits
        .iter()
        .position(|h| h.document == changed)
        .expect("a hit in the changed file");
    assert!(hits[at].range.start > "small now".len());
    let screen = screen_text(&model, 160, 48);
    assert!(screen.contains("changed since it was read"), "{screen}");
    // Its row on the Documents tab, and the viewer.
    for _ in 0..at {
        key(&mut model, KeyCode::Down);
    }
    key(&mut model, KeyCode::Enter);
    let screen = screen_text(&model, 160, 48);
    assert!(screen.contains("changed since it was read"), "{screen}");
    key(&mut model, KeyCode::Enter);
    let screen = screen_text(&model, 160, 48);
    assert!(screen.contains("changed since it was read"), "{screen}");
}

/// Apply `action`, and run the jobs it asks for (and those their results ask for) each on a thread of its own,
/// as the app does; how many times those threads opened a source file.
fn act_with_workers(model: &mut Model, action: Action) -> usize {
    let mut pending: Vec<Effect> = update(model, action);
    let mut opened = 0;
    while let Some(effect) = pending.pop() {
        let data = Arc::clone(model.data());
        let (action, count) = std::thread::spawn(move || {
            let action = effects::perform(effect, &data);
            (action, source_files_opened_here())
        })
        .join()
        .expect("the worker ends");
        opened += count;
        pending.extend(update(model, action));
    }
    opened
}

/// Press `code`, its jobs run on threads of their own; how many times they opened a source file.
fn press(model: &mut Model, code: KeyCode) -> usize {
    let event = KeyEvent::new(code, KeyModifiers::NONE);
    model
        .action_for(&event)
        .map_or(0, |action| act_with_workers(model, action))
}

/// Every text the Documents tab, the hits list and the viewer show is read by a job on another thread: handling
/// a key and drawing a frame open no file. Before, the Documents tab read each row's text twice per frame on the
/// thread that draws (five keys on a tab of heavy PDFs froze the screen for 25.6 s), the viewer and the search
/// read theirs there too, and a stalled file froze the interface.
#[test]
fn texts_are_read_by_jobs_never_where_keys_are_handled_and_frames_drawn() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = folder_corpus(dir.path());
    let mut model = Model::new(Start::new(open_folder(&root), false));
    // The search index was built on this thread, as a test builds it: counted from here.
    let here = source_files_opened_here();
    let mut on_workers = press(&mut model, KeyCode::Char('3'));
    let screen = screen_text(&model, 160, 48);
    assert!(
        screen.contains('‹'),
        "the rows show their words in context:\n{screen}"
    );
    on_workers += press(&mut model, KeyCode::Tab);
    on_workers += press(&mut model, KeyCode::Down);
    on_workers += press(&mut model, KeyCode::Char('/'));
    for c in "zebra".chars() {
        on_workers += press(&mut model, KeyCode::Char(c));
    }
    on_workers += press(&mut model, KeyCode::Enter);
    let screen = screen_text(&model, 160, 48);
    assert!(screen.contains("«zebra»"), "the hits list:\n{screen}");
    on_workers += press(&mut model, KeyCode::Enter);
    on_workers += press(&mut model, KeyCode::Enter);
    let screen = screen_text(&model, 160, 48);
    assert!(
        screen.contains("(Esc closes)") && screen.contains("«zebra»"),
        "the viewer:\n{screen}"
    );
    assert_eq!(
        source_files_opened_here(),
        here,
        "no file opened where keys are handled and frames drawn"
    );
    assert!(on_workers > 0, "the workers read the texts");
}

/// A key that shows texts not read yet: the rows say "reading…" until the job's result, an action, brings them.
#[test]
fn a_row_says_reading_until_its_text_arrives_by_an_action() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = folder_corpus(dir.path());
    let mut model = Model::new(Start::new(open_folder(&root), false));
    let event = KeyEvent::new(KeyCode::Char('3'), KeyModifiers::NONE);
    let action = model.action_for(&event).expect("a bound key");
    let jobs = update(&mut model, action);
    let [read] = <[Effect; 1]>::try_from(jobs).expect("one job: the texts of the rows");
    assert_eq!(read.kind(), effects::JobKind::Read);
    let screen = screen_text(&model, 160, 48);
    assert!(screen.contains("reading…"), "{screen}");
    let done = effects::perform(read, model.data());
    let more = update(&mut model, done);
    assert!(
        more.is_empty(),
        "every row on screen was read in one batch: {more:?}"
    );
    let screen = screen_text(&model, 160, 48);
    assert!(
        !screen.contains("reading…") && screen.contains('‹'),
        "{screen}"
    );
}

/// A text of one letter followed by 100 000 combining marks is one grapheme cluster, which the terminal draws in
/// one cell: before, the viewer put all of it in that cell (the screen then corrupted, and a text of 200 MB
/// took 42 s to open). Every cell now holds at most [`MAX_CLUSTER_CHARS`] characters.
#[test]
fn no_cell_holds_more_than_a_few_characters_of_one_cluster() {
    let mut data = Dataset::clone(&super::demo());
    let document = 5;
    let text = format!("e{} then the rest", "\u{301}".repeat(100_000));
    data.documents[document].source = crate::corpus::TextSource::Inline(text);
    let mut model = Model::new(Start::new(Arc::new(data), false));
    key(&mut model, KeyCode::Char('3'));
    key(&mut model, KeyCode::Tab);
    let row = model
        .detail()
        .documents
        .iter()
        .position(|&d| d == document)
        .expect("the document is listed");
    for _ in 0..row {
        key(&mut model, KeyCode::Down);
    }
    key(&mut model, KeyCode::Enter);
    let terminal = super::draw(&model, 160, 48);
    let screen = screen_text(&model, 160, 48);
    assert!(
        screen.contains("then the rest"),
        "the viewer shows it:\n{screen}"
    );
    let buffer = terminal.backend().buffer();
    let widest = buffer
        .content()
        .iter()
        .map(|cell| cell.symbol().chars().count())
        .max()
        .unwrap_or(0);
    assert!(
        widest <= crate::tui::effects::texts::MAX_CLUSTER_CHARS,
        "a cell of {widest} characters"
    );
}

/// A job whose work panics (here a node's details computed against a dataset it is not of: an index out of
/// bounds) is a failed job: the pane it was for says so and asks for it no more, the status line says what
/// failed, and the interface goes on. Before, the panic ended the worker's thread and the pane waited for ever.
#[test]
fn a_job_that_panics_is_a_failed_job() {
    let mut model = super::two_splits();
    model.set_detail_inline(0);
    let event = KeyEvent::new(KeyCode::Char('g'), KeyModifiers::NONE);
    let action = model.action_for(&event).expect("a bound key");
    let jobs = update(&mut model, action);
    let detail = jobs
        .into_iter()
        .find(|e| e.kind() == effects::JobKind::Detail)
        .expect("the root's details go to a job");
    let dir = tempfile::tempdir().expect("temp dir");
    let other = open_folder(&folder_corpus(dir.path()));
    assert!(other.matrix.cols() < model.data().matrix.cols());
    let failed = effects::perform(detail, &other);
    let more = update(&mut model, failed);
    assert!(
        model
            .status()
            .starts_with("internal error: the node's details failed"),
        "{}",
        model.status()
    );
    assert!(
        !more.iter().any(|e| e.kind() == effects::JobKind::Detail),
        "asked for no more"
    );
    let screen = screen_text(&model, 160, 48);
    assert!(screen.contains("could not be computed"), "{screen}");
}
