//! Scale benchmark (issue 18): pdx on a seeded synthetic corpus of 100,000 or 1,000,000 documents, each step of
//! the table against its target, with the child's peak memory and `wc -w` on the same file in the same run
//! as the yardstick; for each of the two synthetic models (`common/synthetic.rs`: `grouped`, whose leading
//! directions have gaps, and `flat`, whose nearly tie), then both side by side with their ratio.
//!
//! Run: `cargo bench --bench scale` (100,000 documents). `PDX_SCALE_DOCS=1000000` (or `100000,1000000`) for the
//! million, which takes GBs: run it under the shared lock, `flock /work/data/scale/1m.lock cargo bench --bench
//! scale`. `PDX_SCALE_MODEL` the models (default `grouped,flat`); `PDX_BENCH_RUNS` repetitions (default 2);
//! `PDX_SCALE_DIR` the corpora's folder (default `/work/data/scale`; the bench skips with one line when it cannot
//! be written); `PDX_SCALE_LEAVES` the tree the
//! redraw-only keys are timed on (default 1,000 leaves); `PDX_SCALE_TIMEOUT` seconds and `PDX_SCALE_MAX_GB` after
//! which a child is stopped and reported as such (default 180 s, 16 GB). `PDX_DATA` is not needed. The figures go
//! to `target/bench/scale/scale-MODEL-N.json`; the command's cache, emptied before the first open, is
//! `target/bench/scale/cache`. `cargo bench --bench scale -- generate` only writes the corpora;
//! `PDX_SCALE_ONLY=tui` runs only the TUI's steps (on the cache the commands left, or a fresh load).
//!
//! The commands are the `pdx` binary's (`stats`, `cluster`); the TUI's steps run in this process, as
//! `benches/tui.rs` drives it: the library's interface (`pdx::tui`), `update` then `view` on a 160x48 TestBackend,
//! the jobs run on this thread as the worker threads run them.

mod common;
#[path = "scale_tui/rows.rs"]
mod rows;
#[path = "scale_tui/steps.rs"]
mod steps;
#[path = "common/synthetic.rs"]
mod synthetic;

use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use common::median;
use rows::tui_rows;
use synthetic::Model;

const PDX: &str = env!("CARGO_BIN_EXE_pdx");
const GNU_TIME: &str = "/usr/bin/time";

/// What every model's and size's run shares: the corpora's folder, the repetitions, the tree the redraw-only keys
/// are timed on, the limits, where the figures go and the commands' cache.
struct Setup {
    dir: PathBuf,
    runs: usize,
    leaves: usize,
    limits: Limits,
    out: PathBuf,
    cache: PathBuf,
}

/// Limits past which a child is stopped: the issue asks for no step to run on past minutes or GBs.
struct Limits {
    seconds: f64,
    bytes: u64,
}

/// One run of a command: its wall time, its peak resident memory, what it printed, and whether it was stopped.
struct Measured {
    seconds: f64,
    /// User and system CPU time, where GNU time reports it: on a shared machine the wall time swings with the load.
    cpu_seconds: Option<f64>,
    peak_mb: Option<f64>,
    stdout: String,
    stopped: Option<String>,
}

fn main() {
    let dir = std::env::var_os("PDX_SCALE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/data/scale"));
    let sizes: Vec<usize> = match std::env::var("PDX_SCALE_DOCS") {
        Ok(value) => value
            .split(',')
            .filter_map(|v| v.trim().parse().ok())
            .collect(),
        Err(_) => vec![100_000],
    };
    let models: Vec<Model> = match std::env::var("PDX_SCALE_MODEL") {
        Ok(value) => {
            let named: Option<Vec<Model>> = value
                .split(',')
                .map(|name| Model::from_name(name.trim()))
                .collect();
            match named {
                Some(models) if !models.is_empty() => models,
                _ => {
                    eprintln!("PDX_SCALE_MODEL: {value:?} is not a list of grouped, flat");
                    std::process::exit(2);
                }
            }
        }
        Err(_) => Model::ALL.to_vec(),
    };
    let runs = common::env_count("PDX_BENCH_RUNS", 2);
    let leaves = common::env_count("PDX_SCALE_LEAVES", 1_000);
    let limits = Limits {
        seconds: common::env_count("PDX_SCALE_TIMEOUT", 180) as f64,
        bytes: common::env_count("PDX_SCALE_MAX_GB", 16) as u64 * (1 << 30),
    };
    if let Err(error) = synthetic::writable(&dir) {
        println!(
            "skipped: cannot write the corpora's folder {} ({error}; PDX_SCALE_DIR chooses it)",
            dir.display()
        );
        return;
    }
    let out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/bench/scale");
    let cache = out.join("cache");
    if let Err(error) = std::fs::create_dir_all(&cache) {
        eprintln!("cannot make {}: {error}", cache.display());
        std::process::exit(2);
    }
    // SAFETY: no other thread runs yet; the in-process TUI steps open the dataset from the cache the commands wrote.
    unsafe { std::env::set_var("PDX_CACHE_DIR", &cache) };
    if std::env::args().any(|arg| arg == "generate") {
        for documents in sizes {
            for &model in &models {
                corpus_or_exit(&dir, model, documents);
            }
        }
        return;
    }
    let setup = Setup {
        dir,
        runs,
        leaves,
        limits,
        out,
        cache,
    };
    for documents in sizes {
        let tables: Vec<(Model, Vec<Row>)> = models
            .iter()
            .map(|&model| (model, bench(&setup, model, documents)))
            .collect();
        side_by_side(documents, &tables);
    }
}

/// Each step's median time on every model, and each model's ratio to the first's.
fn side_by_side(documents: usize, tables: &[(Model, Vec<Row>)]) {
    let Some((first, first_rows)) = tables.first() else {
        return;
    };
    if tables.len() < 2 {
        return;
    }
    println!();
    println!(
        "{documents} documents, the models side by side (median times; ratio to {})",
        first.name()
    );
    let mut header = format!("{:<58}", "step");
    for (model, _) in tables {
        header.push_str(&format!(" {:>10}", model.name()));
    }
    for (model, _) in &tables[1..] {
        header.push_str(&format!(
            " {:>8}",
            format!("{}/{}", model.name(), first.name())
        ));
    }
    println!("{header}");
    for (index, row) in first_rows.iter().enumerate() {
        // The step without the first model's own details in brackets.
        let step = row.step.split(" (").next().unwrap_or(&row.step);
        let mut line = format!("{step:<58}");
        for (_, rows) in tables {
            line.push_str(&format!(
                " {:>10}",
                rows.get(index).map_or(String::new(), Row::time)
            ));
        }
        for (_, rows) in &tables[1..] {
            let ratio = rows.get(index).map(|other| other.seconds / row.seconds);
            line.push_str(&format!(
                " {:>8}",
                ratio.map_or(String::new(), |r| format!("{r:.2}x"))
            ));
        }
        println!("{line}");
    }
}

fn corpus_or_exit(dir: &Path, model: Model, documents: usize) -> PathBuf {
    match synthetic::corpus(dir, model, documents, synthetic::DEFAULT_SEED) {
        Ok((path, summary, reused)) => {
            println!(
                "corpus    {} ({} model): {} documents, {:.1} MB, {} words, {} document-word pairs ({} in {:.1} s)",
                path.display(),
                model.name(),
                summary.documents,
                summary.bytes as f64 / 1e6,
                summary.tokens,
                summary.pairs,
                if reused {
                    "reused, generated"
                } else {
                    "generated"
                },
                summary.seconds
            );
            path
        }
        Err(error) => {
            eprintln!("cannot generate the corpus in {}: {error}", dir.display());
            std::process::exit(2);
        }
    }
}

/// Every row of the table for one model and corpus size, `runs` times, then the table and the JSON file;
/// returns the rows.
fn bench(setup: &Setup, model: Model, documents: usize) -> Vec<Row> {
    let (runs, leaves, limits, out) = (setup.runs, setup.leaves, &setup.limits, &setup.out);
    let file = corpus_or_exit(&setup.dir, model, documents);
    if std::env::var("PDX_SCALE_ONLY").is_ok_and(|only| only == "tui") {
        let tui = tui_rows(&file, runs, leaves, limits);
        for row in &tui.rows {
            println!("{}", row.line());
        }
        return tui.rows;
    }
    let load_before = load_average();
    println!(
        "machine   {} threads; load average {load_before} (other work on the machine slows every wall time)",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    let file_arg = file.to_string_lossy().into_owned();
    let json_out = out.join(format!("cluster-{}-{documents}.json", model.name()));
    let json_arg = json_out.to_string_lossy().into_owned();
    // One untimed pass so that every timed command reads the file from the page cache alike.
    let _ = measure("wc", &["-w", &file_arg], limits);
    let mut rows: Vec<Row> = Vec::new();
    let mut wc = Vec::new();
    let mut first = Vec::new();
    let mut reopen = Vec::new();
    let mut cluster = Vec::new();
    let mut shape = Value::Null;
    let mut cluster_split = Vec::new();
    for run in 1..=runs {
        let counted = measure("wc", &["-w", &file_arg], limits);
        println!(
            "run {run}     wc -w: {} ({})",
            counted.describe(),
            counted.stdout.split_whitespace().next().unwrap_or("?")
        );
        wc.push(counted);

        empty_folder(&setup.cache);
        let opened = measure(PDX, &["stats", "--json", &file_arg], limits);
        let stats: Value = serde_json::from_str(&opened.stdout).unwrap_or(Value::Null);
        println!(
            "run {run}     first open (pdx stats, empty cache): {}; cache {}; {} docs, {} terms, {} nnz",
            opened.describe(),
            stats["cache"],
            stats["docs"],
            stats["terms"],
            stats["nnz"]
        );
        shape = json!({"docs": stats["docs"], "terms": stats["terms"], "nnz": stats["nnz"]});
        first.push(opened);

        let again = measure(PDX, &["stats", "--json", &file_arg], limits);
        let stats: Value = serde_json::from_str(&again.stdout).unwrap_or(Value::Null);
        let hit = stats["cache"] == "hit";
        println!(
            "run {run}     open from the cache: {}; cache {}{}",
            again.describe(),
            stats["cache"],
            if hit { "" } else { " (NOT a hit)" }
        );
        reopen.push(again);

        let grown = measure(
            PDX,
            &["cluster", &file_arg, "--k", "40", "--json", &json_arg],
            limits,
        );
        let timings = std::fs::read(&json_out)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
            .map(|report| report["timings_ms"].clone())
            .unwrap_or(Value::Null);
        let _ = std::fs::remove_file(&json_out);
        println!(
            "run {run}     pdx cluster --k 40: {}; of which load {:.0} ms, matrix {:.0} ms, cluster {:.0} ms",
            grown.describe(),
            timings["load"].as_f64().unwrap_or(f64::NAN),
            timings["matrix"].as_f64().unwrap_or(f64::NAN),
            timings["cluster"].as_f64().unwrap_or(f64::NAN)
        );
        cluster_split.push(timings);
        cluster.push(grown);
    }
    let yardstick = median(wc.iter().map(|m| m.seconds).collect());
    // Each run's command is measured against the same run's `wc -w`: the host's speed moves between runs.
    let yardsticks: Vec<f64> = wc.iter().map(|m| m.seconds).collect();
    rows.push(Row::command(
        "wc -w (the yardstick)",
        &wc,
        None,
        None,
        &yardsticks,
    ));
    rows.push(Row::command(
        "first open (pdx stats, no cache)",
        &first,
        Some(2.0),
        Some(3.0),
        &yardsticks,
    ));
    rows.push(Row::command(
        "open from the cache (pdx stats)",
        &reopen,
        Some(0.5),
        None,
        &yardsticks,
    ));
    rows.push(Row::command(
        "PDDP to 40 leaves (pdx cluster --k 40)",
        &cluster,
        Some(4.0),
        Some(3.0),
        &yardsticks,
    ));
    let tui = tui_rows(&file, runs, leaves, limits);
    rows.extend(tui.rows);

    println!();
    println!(
        "{documents} documents, {} model; wc -w {yardstick:.2} s (median of {runs}); medians of {runs} runs, peaks the highest; \
         x wc the highest of the runs' own ratios; met only when every run meets the target",
        model.name()
    );
    println!(
        "{:<58} {:>10} {:>8} {:>10} {:>10}  {:<26} verdict",
        "step", "wall", "x wc", "cpu", "peak", "target"
    );
    for row in &rows {
        println!("{}", row.line());
    }
    println!("load average at the end {}", load_average());
    if let Some(peak) = own_peak_mb() {
        println!(
            "(the TUI steps ran in this process; its peak RSS, the dataset included: {peak:.0} MB)"
        );
    }

    let report = json!({
        "model": model.name(),
        "documents": documents,
        "corpus": file,
        "matrix": shape,
        "runs": runs,
        "yardstick_s": yardstick,
        "load_average": [load_before, load_average()],
        "cluster_timings_ms": cluster_split,
        "tui": tui.detail,
        "bench_peak_mb": own_peak_mb(),
        "rows": rows.iter().map(Row::to_json).collect::<Vec<_>>(),
    });
    let path = out.join(format!("scale-{}-{documents}.json", model.name()));
    let text = serde_json::to_string_pretty(&report).unwrap_or_default();
    match pdx::files::write_atomically(&path, text.as_bytes()) {
        Ok(()) => println!("figures written to {}", path.display()),
        Err(error) => eprintln!("{}: cannot write: {error}", path.display()),
    }
    rows
}

/// One row of the table: a time (and its ratio to the yardstick) or a key press, its peak, its target, its verdict.
struct Row {
    step: String,
    seconds: f64,
    cpu_seconds: Option<f64>,
    ratio: Option<f64>,
    peak_mb: Option<f64>,
    target: String,
    verdict: &'static str,
}

impl Row {
    /// A command's row: the median time over the runs, the highest peak, and the highest of the runs' ratios
    /// to their own yardstick (`yardsticks`, one per run); met when every run's time is within `ratio_target`
    /// times its yardstick and the peak within `peak_gb` (each when given).
    fn command(
        step: &str,
        runs: &[Measured],
        ratio_target: Option<f64>,
        peak_gb: Option<f64>,
        yardsticks: &[f64],
    ) -> Row {
        assert_eq!(runs.len(), yardsticks.len(), "a yardstick per run");
        let seconds = median(runs.iter().map(|m| m.seconds).collect());
        let cpu: Vec<f64> = runs.iter().filter_map(|m| m.cpu_seconds).collect();
        let cpu_seconds = (!cpu.is_empty()).then(|| median(cpu));
        let peak_mb = runs.iter().filter_map(|m| m.peak_mb).reduce(f64::max);
        let ratio = max(&runs
            .iter()
            .zip(yardsticks)
            .map(|(m, wc)| m.seconds / wc)
            .collect::<Vec<_>>());
        let stopped = runs.iter().find_map(|m| m.stopped.clone());
        let mut target = Vec::new();
        let mut met = stopped.is_none();
        if let Some(limit) = ratio_target {
            target.push(format!("<= {limit}x wc"));
            met &= ratio <= limit;
        }
        if let Some(limit) = peak_gb {
            target.push(format!("peak <= {limit} GB"));
            met &= peak_mb.is_some_and(|peak| peak <= limit * 1024.0);
        }
        let verdict = match (&stopped, target.is_empty()) {
            (Some(_), _) => "STOPPED",
            (None, true) => "",
            (None, false) if met => "met",
            (None, false) => "missed",
        };
        Row {
            step: match stopped {
                Some(reason) => format!("{step} [{reason}]"),
                None => step.into(),
            },
            seconds,
            cpu_seconds,
            ratio: Some(ratio),
            peak_mb,
            target: target.join(", "),
            verdict,
        }
    }

    /// An in-process step: its median time over the runs (milliseconds); met when every run is within
    /// `limit_s`.
    fn timed(step: &str, runs_ms: &[f64], limit_s: f64, target: &str) -> Row {
        Row {
            step: step.into(),
            seconds: median(runs_ms.to_vec()) / 1000.0,
            cpu_seconds: None,
            ratio: None,
            peak_mb: None,
            target: target.into(),
            verdict: if max(runs_ms) / 1000.0 <= limit_s {
                "met"
            } else {
                "missed"
            },
        }
    }

    /// The median time, in milliseconds below a second.
    fn time(&self) -> String {
        if self.seconds < 1.0 {
            format!("{:.1} ms", self.seconds * 1000.0)
        } else {
            format!("{:.2} s", self.seconds)
        }
    }

    fn line(&self) -> String {
        format!(
            "{:<58} {:>10} {:>8} {:>10} {:>10}  {:<26} {}",
            self.step,
            self.time(),
            self.ratio.map_or(String::new(), |r| format!("{r:.2}x")),
            self.cpu_seconds
                .map_or(String::new(), |c| format!("{c:.2} s")),
            self.peak_mb.map_or(String::new(), |p| format!("{p:.0} MB")),
            self.target,
            self.verdict
        )
    }

    fn to_json(&self) -> Value {
        json!({
            "step": self.step,
            "seconds": self.seconds,
            "cpu_seconds": self.cpu_seconds,
            "x_wc": self.ratio,
            "peak_mb": self.peak_mb,
            "target": self.target,
            "verdict": self.verdict,
        })
    }
}

impl Measured {
    fn describe(&self) -> String {
        let peak = self
            .peak_mb
            .map_or("peak n/a".into(), |p| format!("peak {p:.0} MB"));
        let cpu = self
            .cpu_seconds
            .map_or(String::new(), |cpu| format!(" (cpu {cpu:.2} s)"));
        match &self.stopped {
            Some(reason) => format!("STOPPED {reason} after {:.2} s{cpu}, {peak}", self.seconds),
            None => format!("{:.2} s{cpu}, {peak}", self.seconds),
        }
    }
}

/// Remove what is inside `folder` (the bench's own cache), so that the next open builds and writes its entry.
fn empty_folder(folder: &Path) {
    if let Ok(entries) = std::fs::read_dir(folder) {
        for entry in entries.flatten() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Run `program` with `args` and time it. Its peak resident memory is GNU time's (the kernel's own count, from
/// `wait4`) where `/usr/bin/time` runs, else the highest of the `VmHWM` values polled every 20 ms. A child that
/// passes `limits` is killed and reported as stopped.
fn measure(program: &str, args: &[&str], limits: &Limits) -> Measured {
    let out = std::env::temp_dir().join(format!("pdx-scale-bench-{}.time", std::process::id()));
    let with_time = Path::new(GNU_TIME).exists();
    let mut command = if with_time {
        let mut command = Process::new(GNU_TIME);
        command
            .arg("-f")
            .arg("%M %U %S")
            .arg("-o")
            .arg(&out)
            .arg(program);
        command
    } else {
        Process::new(program)
    };
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let start = Instant::now();
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(error) => {
            eprintln!("cannot run {program}: {error}");
            std::process::exit(2);
        }
    };
    // Read standard output on its own thread, so that a child that prints much never blocks on a full pipe.
    let mut stdout = child.stdout.take();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(stdout) = stdout.as_mut() {
            let _ = std::io::Read::read_to_string(stdout, &mut text);
        }
        text
    });
    let mut polled_kb: u64 = 0;
    let mut stopped = None;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) => {}
            Err(_) => break None,
        }
        // With GNU time in between, the measured process is its child.
        let pid = if with_time {
            children(child.id()).into_iter().next()
        } else {
            Some(child.id())
        };
        if let Some(pid) = pid {
            let (rss, hwm) = memory_kb(pid);
            polled_kb = polled_kb.max(hwm);
            let reason = if start.elapsed().as_secs_f64() > limits.seconds {
                Some(format!("past {:.0} s", limits.seconds))
            } else if rss * 1024 > limits.bytes {
                Some(format!("past {} GB", limits.bytes >> 30))
            } else {
                None
            };
            if let Some(reason) = reason {
                stopped = Some(reason);
                let _ = Process::new("kill")
                    .arg("-KILL")
                    .arg(pid.to_string())
                    .status();
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let seconds = start.elapsed().as_secs_f64();
    let stdout = reader.join().unwrap_or_default();
    // GNU time's last line: peak KiB, user seconds, system seconds.
    let timed: Vec<f64> = std::fs::read_to_string(&out)
        .ok()
        .and_then(|text| {
            let line = text.lines().last()?.to_owned();
            line.split_whitespace()
                .map(|field| field.parse().ok())
                .collect::<Option<Vec<f64>>>()
        })
        .filter(|fields| fields.len() == 3)
        .unwrap_or_default();
    let timed_kb = timed.first().map(|&kb| kb as u64);
    let cpu_seconds = (timed.len() == 3).then(|| timed[1] + timed[2]);
    let _ = std::fs::remove_file(&out);
    if stopped.is_none() && !status.is_some_and(|status| status.success()) {
        eprintln!("{program} {} failed ({status:?})", args.join(" "));
        std::process::exit(2);
    }
    let peak_kb = timed_kb.unwrap_or(polled_kb);
    Measured {
        seconds,
        cpu_seconds,
        peak_mb: (peak_kb > 0).then_some(peak_kb as f64 / 1024.0),
        stdout,
        stopped,
    }
}

/// The children of process `pid` (Linux's `/proc/PID/task/PID/children`).
fn children(pid: u32) -> Vec<u32> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .map(|text| {
            text.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// `VmRSS` and `VmHWM` of process `pid` in KiB (0 when not readable).
fn memory_kb(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|line| line.starts_with(name))
            .and_then(|line| line.split_whitespace().nth(1)?.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// The one-minute load average (Linux), as text.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| text.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "n/a".into())
}

fn own_peak_mb() -> Option<f64> {
    let (_, hwm) = memory_kb(std::process::id());
    (hwm > 0).then_some(hwm as f64 / 1024.0)
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

fn max(values: &[f64]) -> f64 {
    values.iter().copied().fold(0.0, f64::max)
}
