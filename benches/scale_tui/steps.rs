//! The scale bench's TUI steps: actions applied and their jobs run as the app's workers run them, the preview's
//! two frames timed, a key press timed to its frame.

use std::sync::Arc;
use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;

use crate::common::median;
use crate::{max, ms};
use pdx::cluster::{Params, RuleSpec};
use pdx::dataset::Dataset;
use pdx::tui::effects::{self, JobKind};
use pdx::tui::keys::Command;
use pdx::tui::{Action, DetailTab, Effect, Model, Start, update, view};

/// Apply an action and run the jobs it starts synchronously with the app's effect runner, as the worker threads
/// would.
pub(crate) fn act(model: &mut Model, action: Action) {
    let deferred = act_but_side_jobs(model, action);
    run_all(model, deferred);
    effects::release_freed_memory();
}

/// Run `effects` and every job their results start. The memory the jobs free is not given back here: the app's
/// workers do that after sending each result, beside the frame that shows it, so it is no part of a timed step.
pub(crate) fn run_all(model: &mut Model, effects: Vec<Effect>) {
    let mut pending = effects;
    while let Some(effect) = pending.pop() {
        let action = effects::perform(effect, model.data());
        pending.extend(update(model, action));
    }
}

/// [`act`] but for the detail pane's and the Preview tab's jobs, returned unrun: in the app every job runs on a
/// worker thread of its own, and the frame that shows a split does not wait for them.
pub(crate) fn act_but_side_jobs(model: &mut Model, action: Action) -> Vec<Effect> {
    let side_job = |effect: &Effect| matches!(effect.kind(), JobKind::Detail | JobKind::Preview);
    act_but_then(model, action, side_job, |_| {})
}

/// Apply `action` and run the jobs it starts, and the jobs their results start, but those `defer` picks, which
/// are returned unrun; `after_each` is called on the model after each job's result is applied. The memory the
/// jobs free is not given back here (see [`run_all`]).
fn act_but_then(
    model: &mut Model,
    action: Action,
    defer: impl Fn(&Effect) -> bool,
    mut after_each: impl FnMut(&mut Model),
) -> Vec<Effect> {
    let mut deferred = Vec::new();
    let mut pending = update(model, action);
    while let Some(effect) = pending.pop() {
        if defer(&effect) {
            deferred.push(effect);
            continue;
        }
        let action = effects::perform(effect, model.data());
        pending.extend(update(model, action));
        after_each(model);
    }
    deferred
}

/// The milliseconds from the preview's key to each of its frames.
pub(crate) struct PreviewFrames {
    /// The histogram and the rows of the first step (the other rows say they are computing).
    pub first: f64,
    /// The whole rule table.
    pub table: f64,
    /// The scatter plot, its second coordinate arrived.
    pub scatter: f64,
}

/// The preview's key (`4` on the root) to its frames: the first step's (the histogram and the quick rows), the
/// one where the rule table is whole, and the one where the scatter plot's second coordinate arrives. The jobs
/// run in the order the app starts them, the detail pane's after (on another worker in the app).
pub(crate) fn preview_frames(
    model: &mut Model,
    terminal: &mut Terminal<TestBackend>,
) -> PreviewFrames {
    let start = Instant::now();
    let (mut first, mut table) = (None, None);
    let detail = |effect: &Effect| effect.kind() == JobKind::Detail;
    let deferred = act_but_then(
        model,
        Action::Command(Command::Tab(DetailTab::Preview)),
        detail,
        |model| {
            let Some(whole) = model.preview_table_complete() else {
                return;
            };
            if first.is_none() || (whole && table.is_none()) {
                terminal
                    .draw(|frame| view::view(frame, model))
                    .expect("draw");
                first.get_or_insert_with(|| ms(start));
                if whole {
                    table.get_or_insert_with(|| ms(start));
                }
            }
        },
    );
    terminal
        .draw(|frame| view::view(frame, model))
        .expect("draw");
    let scatter = ms(start);
    run_all(model, deferred);
    PreviewFrames {
        first: first.unwrap_or(scatter),
        table: table.unwrap_or(scatter),
        scatter,
    }
}

/// The time of `command` on `model`: the update and a full redraw at 160x48, as a key press costs. A job the key
/// starts (a preview of the newly selected node, a large node's centroid or ranking) is not part of it: the app
/// runs it on a worker thread, and the frame says what it computes meanwhile.
pub(crate) fn press(
    model: &mut Model,
    terminal: &mut Terminal<TestBackend>,
    command: Command,
) -> f64 {
    let start = Instant::now();
    let jobs = update(model, Action::Command(command));
    terminal
        .draw(|frame| view::view(frame, model))
        .expect("draw");
    let elapsed = ms(start);
    // The detail pane's jobs finish, untimed, as a worker would finish them: the next key finds their results
    // kept. Other jobs (a preview) are not run.
    let detail: Vec<Effect> = jobs
        .into_iter()
        .filter(|e| e.kind() == JobKind::Detail)
        .collect();
    run_all(model, detail);
    elapsed
}

/// The root split's key to its frame while a worker builds the search index, as the app starts it right after
/// loading: what the index's work costs a split asked for at once. The index is left half a second to get under
/// way first, as it would while the first screen is read.
pub(crate) fn split_while_indexing(
    data: &Arc<Dataset>,
    terminal: &mut Terminal<TestBackend>,
) -> f64 {
    let mut model = Model::new(Start::without_index(Arc::clone(data), true));
    let Some(indexing) = update(&mut model, Action::Opened(None)).pop() else {
        panic!("a model started without an index builds it in the background");
    };
    let worker = {
        let data = Arc::clone(data);
        std::thread::spawn(move || effects::perform(indexing, &data))
    };
    std::thread::sleep(Duration::from_millis(500));
    let (elapsed, deferred) = split_to_frame(&mut model, terminal);
    let indexed = worker.join().expect("the index's worker");
    let mut pending = update(&mut model, indexed);
    pending.extend(deferred);
    run_all(&mut model, pending);
    elapsed
}

/// The stride of the sampled root split's row: the `sample` the option's measurements use.
pub(crate) const SAMPLE_STRIDE: usize = 8;

/// `runs` times, the root's split by `pddp` with `sample` = [`SAMPLE_STRIDE`] (its directions approximated from
/// one document in eight), from the key press to the frame that shows it, each on a fresh model.
pub(crate) fn sampled_root_splits(
    data: &Arc<Dataset>,
    terminal: &mut Terminal<TestBackend>,
    runs: usize,
) -> Vec<f64> {
    (1..=runs)
        .map(|run| {
            let elapsed = sampled_root_split(data, terminal);
            println!("run {run}     TUI root split with sample={SAMPLE_STRIDE} {elapsed:.0} ms");
            elapsed
        })
        .collect()
}

fn sampled_root_split(data: &Arc<Dataset>, terminal: &mut Terminal<TestBackend>) -> f64 {
    let params = Params {
        sample: SAMPLE_STRIDE,
        ..Params::default()
    };
    let mut model = Model::new(Start {
        rule: RuleSpec::new("pddp", &params).expect("pddp takes a sample"),
        ..Start::new(Arc::clone(data), true)
    });
    let (elapsed, deferred) = split_to_frame(&mut model, terminal);
    run_all(&mut model, deferred);
    elapsed
}

/// The split key (`s`) on the selected node, timed to the frame that shows the split: the milliseconds, and the
/// side jobs it started (the detail pane's, the Preview tab's), left for the caller to run untimed.
pub(crate) fn split_to_frame(
    model: &mut Model,
    terminal: &mut Terminal<TestBackend>,
) -> (f64, Vec<Effect>) {
    let start = Instant::now();
    let deferred = act_but_side_jobs(model, Action::Command(Command::Split));
    terminal
        .draw(|frame| view::view(frame, model))
        .expect("draw");
    (ms(start), deferred)
}

/// Every key on the main screen that changes only what is shown, each pressed in pairs that undo each other (so
/// that each press starts from the same screen), `runs` x 10 times: update and a full redraw at 160x48.
pub(crate) fn redraw_only_keys(
    model: &mut Model,
    terminal: &mut Terminal<TestBackend>,
    runs: usize,
) -> Vec<(String, Vec<f64>)> {
    act(model, Action::Command(Command::Top));
    let pairs: [(&str, Command, Command); 9] = [
        ("move down / up", Command::Down, Command::Up),
        ("page down / up", Command::PageDown, Command::PageUp),
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
    let mut results = Vec::new();
    for (what, there, back) in pairs {
        let mut times = Vec::new();
        for _ in 0..runs * 10 {
            times.push(press(model, terminal, there));
            times.push(press(model, terminal, back));
        }
        println!(
            "tui       redraw-only key, {what:<24} median {:.2} ms, max {:.2} ms",
            median(times.clone()),
            max(&times)
        );
        results.push((what.to_string(), times));
    }
    results
}
