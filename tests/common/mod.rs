//! What several integration tests share: rules by name, and the real corpora when `PDX_DATA` names them. A
//! folder module, so that cargo does not take it for a test of its own.

// Each test file uses its own part of this module.
#![allow(dead_code)]

pub mod hostile;
pub mod points;
pub mod trees;

use std::path::PathBuf;
use std::process::Output;

use pdx::cluster::{Params, RuleSpec};

/// The folder `PDX_DATA` names, where the real corpora are unpacked. The tests that read them are marked
/// `#[ignore = "needs PDX_DATA"]`, so that a fresh clone reports them as ignored; run with `--include-ignored`
/// (as CI does), they need it set.
pub fn corpora() -> PathBuf {
    std::env::var_os("PDX_DATA")
        .map(PathBuf::from)
        .expect("PDX_DATA names the unpacked corpora (see the README)")
}

/// The rule called `name` with the default parameters.
pub fn spec(name: &str) -> RuleSpec {
    RuleSpec::named(name).expect("a rule of the registry")
}

/// The rule called `name` with the defaults changed by `set`.
pub fn spec_with(name: &str, set: impl FnOnce(&mut Params)) -> RuleSpec {
    let mut params = Params::default();
    set(&mut params);
    RuleSpec::new(name, &params).expect("a rule of the registry, with valid parameters")
}

/// A folder corpus of `(file name, text)` pairs, read without stop list, df limits or idf, so that every word
/// counts.
pub fn folder_corpus(dir: &std::path::Path, files: &[(&str, &str)]) -> pdx::dataset::Dataset {
    for (name, text) in files {
        std::fs::write(dir.join(name), text).expect("written");
    }
    use pdx::dataset::DatasetOptions;
    use pdx::text::{StoplistChoice, TextOptions};
    use pdx::weighting::Weighting;
    let options = DatasetOptions {
        text: TextOptions {
            stoplist: StoplistChoice::None,
            min_df: 1,
            max_df: 1.0,
            ..TextOptions::default()
        },
        weighting: Some(Weighting::parse("txc").expect("a code")),
        ..DatasetOptions::default()
    };
    pdx::dataset::open(&[dir.to_path_buf()], &options, false)
        .expect("opens")
        .dataset
}

/// Assert that a run of `pdx` failed cleanly: exit code 2, one line on standard error holding every `needle`, no
/// panic or backtrace.
pub fn assert_clean_failure(output: &Output, needles: &[&str]) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
    assert_eq!(
        stderr.trim_end().lines().count(),
        1,
        "one line expected, got: {stderr}"
    );
    assert!(
        !stderr.contains("panicked") && !stderr.contains("backtrace"),
        "{stderr}"
    );
    for needle in needles {
        assert!(stderr.contains(needle), "{needle:?} not in {stderr:?}");
    }
}
