//! The TUI's rows of the scale benchmark: the dataset opened as the TUI opens it, the root's split and preview
//! from the key press to the frame, and the keys that only redraw on a large tree.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use pdx::dataset::DatasetOptions;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};

use crate::common::{self, median};
use crate::steps::{self, act, preview_frames, redraw_only_keys, run_all, split_to_frame};
use crate::{Limits, Row, max, memory_kb, ms, own_peak_mb};
use pdx::tui::effects::{self, JobKind};
use pdx::tui::keys::Command;
use pdx::tui::{Action, Effect, Model, Start, view};

/// The TUI's rows and the details behind them.
pub(crate) struct Tui {
    pub rows: Vec<Row>,
    pub detail: Value,
}

/// The TUI's steps in this process: the dataset opened as the TUI opens it (from the cache the commands wrote), the
/// root's split and the root's preview each from the key press to the frame that shows it, then the keys that only
/// redraw on a tree grown to `leaves` leaves (in stages, the growth given up past the limits).
pub(crate) fn tui_rows(file: &Path, runs: usize, leaves: usize, limits: &Limits) -> Tui {
    let start = Instant::now();
    let opened = common::open_or_exit(&[file.to_path_buf()], &DatasetOptions::default(), true);
    let open_ms = ms(start);
    println!(
        "tui       dataset opened in this process in {:.2} s (cache {:?})",
        open_ms / 1000.0,
        opened.cache
    );
    let data = Arc::new(opened.dataset);
    let peak_after_open = own_peak_mb();
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).expect("test terminal");
    let mut splits = Vec::new();
    let mut previews = Vec::new();
    let mut tables = Vec::new();
    let mut scatters = Vec::new();
    let mut after_previews = Vec::new();
    let mut made_previews = Vec::new();
    for run in 1..=runs {
        // A fresh model for each, so that neither reuses what the other computed.
        let mut model = Model::new(Start::new(Arc::clone(&data), true));
        let (elapsed, deferred) = split_to_frame(&mut model, &mut terminal);
        splits.push(elapsed);
        run_all(&mut model, deferred);
        let shown = model.leaves().len();
        let mut model = Model::new(Start::new(Arc::clone(&data), true));
        let frames = preview_frames(&mut model, &mut terminal);
        println!(
            "run {run}     TUI root split {:.0} ms ({} leaves shown), root preview {:.0} ms (the whole rule \
             table {:.0} ms, the scatter plot's second coordinate {:.0} ms)",
            splits[run - 1],
            shown,
            frames.first,
            frames.table,
            frames.scatter
        );
        previews.push(frames.first);
        tables.push(frames.table);
        scatters.push(frames.scatter);
        // The analyst's usual order: the preview, then the split, which takes the preview's directions.
        let (elapsed, deferred) = split_to_frame(&mut model, &mut terminal);
        after_previews.push(elapsed);
        // Then the Preview tab's "split it had", which takes the same directions, on its own worker in the app.
        let (previews_of_split, others): (Vec<Effect>, Vec<Effect>) = deferred
            .into_iter()
            .partition(|effect| effect.kind() == JobKind::Preview);
        let start = Instant::now();
        run_all(&mut model, previews_of_split);
        terminal
            .draw(|frame| view::view(frame, &model))
            .expect("draw");
        made_previews.push(ms(start));
        run_all(&mut model, others);
        println!(
            "run {run}     TUI root split after its preview {:.0} ms, then the split it had {:.0} ms",
            after_previews[run - 1],
            made_previews[run - 1]
        );
        // What the app's workers give back after each job, between the timed steps here.
        effects::release_freed_memory();
    }

    let busy_splits: Vec<f64> = (1..=runs)
        .map(|run| {
            let busy = steps::split_while_indexing(&data, &mut terminal);
            println!(
                "run {run}     TUI root split while the search index builds {busy:.0} ms (alone {:.0} ms)",
                splits[run - 1]
            );
            busy
        })
        .collect();

    let sampled_splits = steps::sampled_root_splits(&data, &mut terminal, runs);

    // Grown in stages, so that a growth past the time limit stops at a stage (and says so) rather than running on.
    let mut model = Model::new(Start::new(Arc::clone(&data), true));
    let start = Instant::now();
    for stage in [40, 200, leaves] {
        let target = stage.min(leaves);
        if model.leaves().len() >= target {
            continue;
        }
        let (rss_kb, _) = memory_kb(std::process::id());
        if start.elapsed().as_secs_f64() > limits.seconds || rss_kb * 1024 > limits.bytes {
            println!(
                "tui       growth stopped at {} leaves: past {:.0} s or {} GB",
                model.leaves().len(),
                limits.seconds,
                limits.bytes >> 30
            );
            break;
        }
        act(&mut model, Action::Command(Command::AutoSplit));
        for c in target.to_string().chars() {
            act(&mut model, Action::Type(c));
        }
        act(&mut model, Action::Command(Command::Confirm));
    }
    let grow_ms = ms(start);
    let grown = model.leaves().len();
    // What the process holds now, against its peak: the memory a tree of `grown` leaves keeps.
    let (rss_after_growth_kb, _) = memory_kb(std::process::id());
    println!(
        "tui       grew to {grown} leaves through the model in {:.1} s; this process's peak RSS {:.0} MB after \
         opening, {:.0} MB after growing; {:.0} MB resident now",
        grow_ms / 1000.0,
        peak_after_open.unwrap_or(f64::NAN),
        own_peak_mb().unwrap_or(f64::NAN),
        rss_after_growth_kb as f64 / 1024.0
    );
    let keys = redraw_only_keys(&mut model, &mut terminal, runs);
    let all: Vec<f64> = keys.iter().flat_map(|(_, times)| times.clone()).collect();
    let worst = max(&all);
    let mut rows = vec![
        Row::timed(
            "TUI: root split (PDDP), key to frame",
            &splits,
            1.5,
            "<= 1.5 s",
        ),
        Row::timed(
            "TUI: the same while the search index builds",
            &busy_splits,
            1.5,
            "<= 1.5 s",
        ),
        Row::timed(
            &format!(
                "TUI: root split, sample={} (approximate; an option)",
                steps::SAMPLE_STRIDE
            ),
            &sampled_splits,
            1.5,
            "<= 1.5 s",
        ),
        Row::timed(
            &format!(
                "TUI: root preview, key to frame (whole table {:.2} s, scatter plot {:.2} s)",
                median(tables.clone()) / 1000.0,
                median(scatters.clone()) / 1000.0
            ),
            &previews,
            2.5,
            "<= 2.5 s",
        ),
    ];
    rows.push(Row::timed(
        &format!(
            "TUI: redraw-only keys, {grown} leaves (max; median {:.1} ms)",
            median(all.clone())
        ),
        &[worst],
        0.05,
        "< 50 ms each",
    ));
    let detail = json!({
        "open_ms": open_ms,
        "peak_mb_after_open": peak_after_open,
        "peak_mb_after_growth": own_peak_mb(),
        "rss_mb_after_growth": rss_after_growth_kb as f64 / 1024.0,
        "root_split_ms": splits,
        "root_preview_ms": previews,
        "root_preview_table_ms": tables,
        "root_preview_scatter_ms": scatters,
        "root_split_after_preview_ms": after_previews,
        "root_made_preview_after_split_ms": made_previews,
        "root_split_while_indexing_ms": busy_splits,
        "root_split_sampled_ms": sampled_splits,
        "grow_leaves": grown,
        "grow_ms": grow_ms,
        "keys": keys.iter().map(|(what, times)| json!({
            "key": what,
            "median_ms": median(times.clone()),
            "max_ms": max(times),
        })).collect::<Vec<_>>(),
    });
    Tui { rows, detail }
}
