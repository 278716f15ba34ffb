//! TUI speed on 20 Newsgroups (train + test), against the targets: a key press that only moves the selection or
//! changes what is shown redraws in under 50 ms with a 64-leaf tree, and so does switching between two
//! alternative splits of its root; the split preview of the root (linear rules, each side's terms included)
//! appears in under 200 ms. It drives the library's interface (`pdx::tui`) as the event loop does: `update(model,
//! action)`, then `view` on a TestBackend, and the jobs as the worker threads run them.
//!
//! Run: `PDX_DATA=/work/corpora PDX_CACHE_DIR=/tmp/pdxcache cargo bench --bench tui` (`PDX_BENCH_RUNS`, default
//! 41 key presses per size, 7 previews).

use std::sync::Arc;
use std::time::Instant;

use pdx::dataset::{self, DatasetOptions};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use pdx::tui::effects::{self, JobKind};
use pdx::tui::keys::Command;
use pdx::tui::{Action, DetailTab, Model, Start, update, view};

mod common;

use common::median;

fn max(values: &[f64]) -> f64 {
    values.iter().copied().fold(0.0, f64::max)
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

/// Apply an action and run the jobs it starts synchronously with the app's effect runner, as the worker threads
/// would.
fn act(model: &mut Model, action: Action) {
    let mut pending = update(model, action);
    while let Some(effect) = pending.pop() {
        let action = effects::perform(effect, model.data());
        pending.extend(update(model, action));
    }
}

fn main() {
    if let Some(path) = std::env::var_os("PDX_TUI_SCALE") {
        scale(std::path::PathBuf::from(path));
        return;
    }
    let Some(data) = common::corpora("tui") else {
        return;
    };
    let runs = common::env_count("PDX_BENCH_RUNS", 41);
    let paths = common::twenty_newsgroups(&data);
    let start = Instant::now();
    let opened = common::open_or_exit(&paths, &DatasetOptions::default(), true);
    let data = Arc::new(opened.dataset);
    println!(
        "20 Newsgroups: {} documents, {} terms, opened in {:.0} ms (cache {:?})",
        data.documents.len(),
        data.matrix.rows(),
        ms(start),
        opened.cache
    );

    // The root's split preview, as the TUI runs it: the first direction (histogram and rule table), then the
    // second (scatter plot), then the frame that shows it.
    let mut first = Vec::new();
    let mut second = Vec::new();
    let mut frames = Vec::new();
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).expect("test terminal");
    for _ in 0..runs.min(7) {
        let mut model = Model::new(Start::new(Arc::clone(&data), true));
        let mut effects = update(
            &mut model,
            Action::Command(Command::Tab(DetailTab::Preview)),
        );
        for times in [&mut first, &mut second] {
            let Some(job) = effects.pop().filter(|job| job.kind() == JobKind::Preview) else {
                eprintln!("no preview job");
                std::process::exit(2);
            };
            let start = Instant::now();
            let done = effects::perform(job, &data);
            times.push(ms(start));
            effects = update(&mut model, done);
        }
        let start = Instant::now();
        terminal
            .draw(|frame| view::view(frame, &model))
            .expect("draw");
        frames.push(ms(start));
    }
    println!(
        "root preview, first direction (histogram, table, terms): median {:.1} ms, max {:.1} ms",
        median(first.clone()),
        max(&first)
    );
    println!(
        "root preview, second direction (scatter plot):           median {:.1} ms, max {:.1} ms",
        median(second.clone()),
        max(&second)
    );
    println!(
        "frame with the preview at 160x48:                        median {:.1} ms",
        median(frames)
    );

    // Where the preview's time goes: the Lanczos run for one and two directions, and a plain PDDP split.
    let tree = pdx::cluster::Tree::for_dataset(&data);
    let Some(root) = tree.node(tree.root()) else {
        eprintln!("no root");
        std::process::exit(2);
    };
    let Ok(centroid) = tree.dense_centroid(&data.matrix, root.id) else {
        eprintln!("no root");
        std::process::exit(2);
    };
    let context = pdx::cluster::rules::SplitContext {
        start: None,
        data: &data.matrix,
        members: &root.members,
        norms_squared: tree.norms_squared(),
        centroid: Some(&centroid),
        node_id: root.id,
        env: Default::default(),
    };
    for directions in [1, 2] {
        let times: Vec<f64> = (0..runs.min(7))
            .map(|_| {
                let start = Instant::now();
                let result = pdx::cluster::rules::principal_directions(
                    &context,
                    directions,
                    pdx::cluster::rules::SPLIT_TOLERANCE,
                );
                std::hint::black_box(result.is_ok());
                ms(start)
            })
            .collect();
        println!(
            "  of which Lanczos for {directions} direction(s) of the root:          median {:.1} ms",
            median(times)
        );
    }
    // Each rule's preview alone (its Lanczos run included).
    let labels: Vec<Option<u32>> = data.documents.iter().map(|d| d.label).collect();
    let defaults = pdx::cluster::Params::default()
        .check()
        .expect("valid defaults");
    for rule in pdx::report::preview::compared_rules(&defaults) {
        let times: Vec<f64> = (0..runs.min(5))
            .map(|_| {
                let start = Instant::now();
                let result = pdx::report::preview::preview(
                    &tree,
                    &data.matrix,
                    tree.root(),
                    std::slice::from_ref(&rule),
                    Some((&labels, data.label_names.len())),
                    false,
                    None,
                );
                std::hint::black_box(result.is_ok());
                ms(start)
            })
            .collect();
        println!(
            "  preview of {:<15} alone:                       median {:.1} ms",
            rule.name(),
            median(times)
        );
    }
    let times: Vec<f64> = (0..runs.min(7))
        .map(|_| {
            let mut copy = tree.clone();
            let start = Instant::now();
            let result = copy.split(
                &data.matrix,
                copy.root(),
                &pdx::cluster::RuleSpec::default(),
            );
            std::hint::black_box(result.is_ok());
            ms(start)
        })
        .collect();
    println!(
        "  for comparison, a PDDP split of the root:                median {:.1} ms",
        median(times)
    );

    // Loading with and without a progress report (no cache), alternated: the report must not slow loading.
    let mut plain = Vec::new();
    let mut reported = Vec::new();
    for _ in 0..3 {
        let start = Instant::now();
        let opened = dataset::open(&paths, &DatasetOptions::default(), false);
        plain.push(ms(start));
        std::hint::black_box(opened.is_ok());
        let progress = pdx::progress::Progress::default();
        let start = Instant::now();
        let opened =
            dataset::open_with_progress(&paths, &DatasetOptions::default(), false, Some(&progress));
        reported.push(ms(start));
        std::hint::black_box(opened.is_ok());
    }
    println!(
        "loading without the cache: median {:.0} ms plain, {:.0} ms with a progress report",
        median(plain),
        median(reported)
    );

    // A 64-leaf PDDP tree grown through the model, then selection moves with a full redraw each.
    let mut model = Model::new(Start::new(Arc::clone(&data), true));
    let start = Instant::now();
    act(&mut model, Action::Command(Command::AutoSplit));
    for c in "64".chars() {
        act(&mut model, Action::Type(c));
    }
    act(&mut model, Action::Command(Command::Confirm));
    println!(
        "grew to {} leaves in {:.0} ms",
        model.leaves().len(),
        ms(start)
    );
    for (width, height) in [(160, 48), (80, 24)] {
        let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
        for tab in [DetailTab::Terms, DetailTab::Documents, DetailTab::Preview] {
            act(&mut model, Action::Command(Command::Tab(tab)));
            act(&mut model, Action::Command(Command::Top));
            let mut updates = Vec::new();
            let mut totals = Vec::new();
            let rows = model.visible().len();
            for press in 0..runs {
                // Down through the tree, back to the top when at the bottom.
                let command = if press % rows == rows - 1 {
                    Command::Top
                } else {
                    Command::Down
                };
                let start = Instant::now();
                let effects = update(&mut model, Action::Command(command));
                let updated = ms(start);
                terminal
                    .draw(|frame| view::view(frame, &model))
                    .expect("draw");
                totals.push(ms(start));
                updates.push(updated);
                // A preview the move asked for is not part of the key press: it runs on a worker thread.
                drop(effects);
            }
            println!(
                "{width}x{height} tab {}: move + redraw median {:.2} ms, max {:.2} ms (update alone median {:.2} ms)",
                tab.index() + 1,
                median(totals.clone()),
                max(&totals),
                median(updates)
            );
        }
    }
    redraw_only_keys(&mut model, runs);
    alternatives(&mut model, runs);
}

/// The time of `command` on `model`: the update and a full redraw at 160x48, as a key press costs.
fn press(model: &mut Model, terminal: &mut Terminal<TestBackend>, command: Command) -> f64 {
    let start = Instant::now();
    act(model, Action::Command(command));
    terminal
        .draw(|frame| view::view(frame, model))
        .expect("draw");
    ms(start)
}

/// Every key on the main screen that changes only what is shown (tabs, panes, popups, collapse, mark), each
/// pressed `runs` times on the 64-leaf tree with the root selected.
fn redraw_only_keys(model: &mut Model, runs: usize) {
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).expect("test terminal");
    act(model, Action::Command(Command::Top));
    // Pairs that undo each other, so that each press starts from the same screen.
    let pairs: [(&str, Command, Command); 7] = [
        (
            "tab Terms / Labels",
            Command::Tab(DetailTab::Labels),
            Command::Tab(DetailTab::Terms),
        ),
        (
            "tab Documents / Terms",
            Command::Tab(DetailTab::Documents),
            Command::Tab(DetailTab::Terms),
        ),
        ("pane switch", Command::NextPane, Command::NextPane),
        ("collapse / expand", Command::Collapse, Command::Expand),
        ("help open / close", Command::Help, Command::Cancel),
        (
            "confusion open / close",
            Command::Confusion,
            Command::Cancel,
        ),
        ("mark / unmark", Command::Mark, Command::Mark),
    ];
    let mut worst: f64 = 0.0;
    for (what, there, back) in pairs {
        let mut times = Vec::new();
        for _ in 0..runs.min(21) {
            times.push(press(model, &mut terminal, there));
            times.push(press(model, &mut terminal, back));
        }
        worst = worst.max(max(&times));
        println!(
            "redraw-only key, {what:<24} median {:.2} ms, max {:.2} ms",
            median(times.clone()),
            max(&times)
        );
    }
    println!(
        "redraw-only keys on the {}-leaf tree: worst {worst:.2} ms",
        model.leaves().len()
    );
}

/// The root of the 64-leaf tree split again (an alternative, the 64 leaves shelved), then switched back and
/// forth, kept, and compared side by side.
fn alternatives(model: &mut Model, runs: usize) {
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).expect("test terminal");
    act(model, Action::Command(Command::Top));
    let start = Instant::now();
    act(model, Action::Command(Command::Split));
    println!(
        "alternative split of the root (PDDP again): {:.0} ms, {} leaves active, {} splits on the root",
        ms(start),
        model.leaves().len(),
        model.tree().split_count(model.tree().root())
    );
    let mut switches = Vec::new();
    for _ in 0..runs.min(21) {
        switches.push(press(model, &mut terminal, Command::PrevSplit));
        switches.push(press(model, &mut terminal, Command::NextSplit));
    }
    println!(
        "switching alternatives (64 leaves <-> 2), update + redraw: median {:.2} ms, max {:.2} ms",
        median(switches.clone()),
        max(&switches)
    );
    let mut compare = Vec::new();
    for _ in 0..runs.min(11) {
        compare.push(press(model, &mut terminal, Command::CompareSplits));
        act(model, Action::Command(Command::Cancel));
    }
    println!(
        "side-by-side view of the root's splits: median {:.2} ms, max {:.2} ms",
        median(compare.clone()),
        max(&compare)
    );
}

/// The TUI at scale: a large collection (`PDX_TUI_SCALE=FILE`, e.g. a synthetic JSONL of 100k-1M documents) grown
/// to `PDX_TUI_LEAVES` leaves (default 1,000), then every key that only redraws timed from key to drawn frame at
/// 160x48 (target: under 50 ms), the root's Documents tab opened, paged and sent to its end, and the root's Preview.
/// Run: `PDX_TUI_SCALE=/tmp/synthetic.jsonl PDX_CACHE_DIR=/tmp/cache cargo bench --bench tui`.
fn scale(path: std::path::PathBuf) {
    let runs = common::env_count("PDX_BENCH_RUNS", 11);
    let leaves = common::env_count("PDX_TUI_LEAVES", 1000);
    let start = Instant::now();
    let opened = common::open_or_exit(&[path], &DatasetOptions::default(), true);
    let data = Arc::new(opened.dataset);
    println!(
        "{} documents, {} terms, {} non-zeros, opened in {:.0} ms (cache {:?})",
        data.documents.len(),
        data.matrix.rows(),
        data.matrix.nnz(),
        ms(start),
        opened.cache
    );
    // The search index (built on the loading thread in the app), then the model (built after loading).
    let start = Instant::now();
    let index = Arc::new(effects::search_index(&data));
    println!("search index built in {:.0} ms", ms(start));
    let start = Instant::now();
    let mut model = Model::new(Start {
        index: Some(index),
        ..Start::new(Arc::clone(&data), true)
    });
    println!("model made in {:.0} ms", ms(start));
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).expect("test terminal");

    // The root's Preview (every rule on the leaf, then the scatter plot's direction), then its split and the
    // Preview of the split it had, as a user first sees them.
    let mut effects = update(
        &mut model,
        Action::Command(Command::Tab(DetailTab::Preview)),
    );
    for what in [
        "first job (histogram, table, sides)",
        "second job (scatter plot)",
    ] {
        let Some(job) = effects.pop().filter(|job| job.kind() == JobKind::Preview) else {
            eprintln!("no preview job");
            std::process::exit(2);
        };
        let start = Instant::now();
        let done = effects::perform(job, &data);
        effects = update(&mut model, done);
        terminal
            .draw(|frame| view::view(frame, &model))
            .expect("draw");
        println!("root Preview, {what}, drawn: {:.0} ms", ms(start));
    }
    let frame = press(&mut model, &mut terminal, Command::NextPane);
    println!("a frame of the root's Preview: {frame:.1} ms");
    act(&mut model, Action::Command(Command::NextPane));
    let start = Instant::now();
    act(&mut model, Action::Command(Command::Split));
    println!(
        "root split and the Preview of the split it had (jobs run in turn): {:.0} ms",
        ms(start)
    );
    let frame = press(&mut model, &mut terminal, Command::NextPane);
    println!("a frame of the root's split Preview: {frame:.1} ms");
    act(&mut model, Action::Command(Command::NextPane));
    act(&mut model, Action::Command(Command::Tab(DetailTab::Terms)));
    act(&mut model, Action::Command(Command::Undo));
    let mut copy = model.tree().clone();
    let library = Instant::now();
    let split = copy.split(
        &data.matrix,
        copy.root(),
        &pdx::cluster::RuleSpec::default(),
    );
    std::hint::black_box(split.is_ok());
    println!(
        "  of which the library's split alone: {:.0} ms",
        ms(library)
    );
    let start = Instant::now();
    act(&mut model, Action::Command(Command::Split));
    println!(
        "root split on the Terms tab (update + job + result): {:.0} ms",
        ms(start)
    );
    act(&mut model, Action::Command(Command::Undo));

    let start = Instant::now();
    act(&mut model, Action::Command(Command::AutoSplit));
    for c in leaves.to_string().chars() {
        act(&mut model, Action::Type(c));
    }
    act(&mut model, Action::Command(Command::Confirm));
    println!(
        "grew to {} leaves in {:.0} ms",
        model.leaves().len(),
        ms(start)
    );

    // The root's Documents tab, first opened (its members ranked), paged, sent to its end and back.
    act(&mut model, Action::Command(Command::Top));
    let members = model
        .tree()
        .node(model.tree().root())
        .map_or(0, |n| n.size());
    let open = press(
        &mut model,
        &mut terminal,
        Command::Tab(DetailTab::Documents),
    );
    act(&mut model, Action::Command(Command::NextPane));
    let mut pages = Vec::new();
    for _ in 0..runs {
        pages.push(press(&mut model, &mut terminal, Command::PageDown));
    }
    let end = press(&mut model, &mut terminal, Command::Bottom);
    let top = press(&mut model, &mut terminal, Command::Top);
    println!(
        "Documents tab of the root ({members} members): open {open:.2} ms, page down median {:.2} ms, \
         end {end:.2} ms, top {top:.2} ms",
        median(pages)
    );
    act(&mut model, Action::Command(Command::NextPane));
    act(&mut model, Action::Command(Command::Tab(DetailTab::Terms)));

    // Moves through the tree on each tab, down and back up (the preview a move asks for runs on a worker thread:
    // not part of the key press).
    for tab in DetailTab::ALL {
        act(&mut model, Action::Command(Command::Tab(tab)));
        act(&mut model, Action::Command(Command::Top));
        let mut down = Vec::new();
        for _ in 0..runs.max(41) {
            down.push(move_and_draw(&mut model, &mut terminal, Command::Down));
        }
        let mut up = Vec::new();
        for _ in 0..runs.max(41) {
            up.push(move_and_draw(&mut model, &mut terminal, Command::Up));
        }
        up.push(move_and_draw(&mut model, &mut terminal, Command::Bottom));
        up.push(move_and_draw(&mut model, &mut terminal, Command::Top));
        println!(
            "tab {}: move + redraw, down median {:.2} ms, max {:.2} ms; back up median {:.2} ms, max {:.2} ms",
            tab.index() + 1,
            median(down.clone()),
            max(&down),
            median(up.clone()),
            max(&up)
        );
    }
    act(&mut model, Action::Command(Command::Tab(DetailTab::Terms)));
    redraw_only_keys(&mut model, runs);
}

/// The time of a move: the update and a full redraw at 160x48, without the jobs it starts (a worker's).
fn move_and_draw(model: &mut Model, terminal: &mut Terminal<TestBackend>, command: Command) -> f64 {
    let start = Instant::now();
    let effects = update(model, Action::Command(command));
    terminal
        .draw(|frame| view::view(frame, model))
        .expect("draw");
    drop(effects);
    ms(start)
}
