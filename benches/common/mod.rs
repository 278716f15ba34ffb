//! What every benchmark does first: find the unpacked corpora (`PDX_DATA`) or say it skipped, read its run count,
//! and open 20 Newsgroups (train + test). A folder module, so that cargo does not take it for a benchmark.

// Each benchmark uses its own part of this module.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use pdx::dataset::{self, DatasetOptions, Opened};

/// `PDX_DATA`, or `None` after printing that `bench` skipped.
pub fn corpora(bench: &str) -> Option<PathBuf> {
    let data = std::env::var_os("PDX_DATA").map(PathBuf::from);
    if data.is_none() {
        println!(
            "skipped: PDX_DATA not set (PDX_DATA=/path/to/corpora cargo bench --bench {bench}; see the README)"
        );
    }
    data
}

/// A count from the environment variable `name` (at least 1), or `default`.
pub fn env_count(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
        .max(1)
}

/// The two halves of 20 Newsgroups under the corpora folder.
pub fn twenty_newsgroups(data: &Path) -> Vec<PathBuf> {
    vec![
        data.join("20news-bydate-train"),
        data.join("20news-bydate-test"),
    ]
}

/// Open `paths` with pdx's defaults, or print the error and exit with code 2.
pub fn open_or_exit(paths: &[PathBuf], options: &DatasetOptions, use_cache: bool) -> Opened {
    match dataset::open(paths, options, use_cache) {
        Ok(opened) => opened,
        Err(error) => {
            eprintln!("pdx: {error}");
            std::process::exit(2);
        }
    }
}

/// The median (the upper one of an even count).
pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The machine-wide CPU time counters of `/proc/stat` (Linux), to tell how much of a measurement's time the
/// virtual machine's host took for itself ("steal"): on a shared host this swings from nothing to half of all
/// CPU time, and every timing swings with it.
#[derive(Debug, Clone, Copy)]
pub struct CpuTimes {
    steal: u64,
    total: u64,
}

impl CpuTimes {
    /// The counters now; `None` where `/proc/stat` is not readable.
    pub fn now() -> Option<CpuTimes> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let line = stat.lines().find(|line| line.starts_with("cpu "))?;
        let fields: Vec<u64> = line
            .split_whitespace()
            .skip(1)
            .map(|field| field.parse().ok())
            .collect::<Option<_>>()?;
        // user nice system idle iowait irq softirq steal (guest time is already counted in user).
        let total = fields.iter().take(8).sum();
        Some(CpuTimes {
            steal: *fields.get(7)?,
            total,
        })
    }

    /// The percentage of CPU time stolen by the host since `self`, as text ("n/a" without counters).
    pub fn steal_since(self) -> String {
        match CpuTimes::now() {
            Some(now) if now.total > self.total => format!(
                "{:.0}%",
                100.0 * (now.steal - self.steal) as f64 / (now.total - self.total) as f64
            ),
            _ => "n/a".into(),
        }
    }
}
