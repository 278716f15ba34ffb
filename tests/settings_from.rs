//! The settings every export records, read back: `pdx cluster` writes them into its JSON, and
//! `pdx cluster --settings-from FILE` makes them a run's settings (a flag given besides wins over the file, the
//! config file does not), so that the same corpus gives the same tree; a file that cannot give them is one line
//! naming it, exit code 2.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pdx::weighting::Weighting;

/// `pdx` run in `dir`, with a cache of its own and no config file.
fn pdx(dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pdx"));
    command
        .current_dir(dir)
        .env("PDX_CACHE_DIR", dir.join("cache"))
        .env("PDX_CONFIG", "")
        .env_remove("RUST_BACKTRACE");
    command
}

fn succeeded(output: Output) -> Output {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn run(dir: &Path, args: &[&str]) -> Output {
    succeeded(pdx(dir).args(args).output().expect("pdx runs"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&read(path)).expect("JSON")
}

/// A JSON Lines corpus of four labelled topics in `dir`, and a stop list beside it.
fn corpus(dir: &Path) {
    let topics: [(&str, [&str; 8]); 4] = [
        (
            "space",
            [
                "star",
                "planet",
                "orbit",
                "telescope",
                "comet",
                "moon",
                "galaxy",
                "rocket",
            ],
        ),
        (
            "cooking",
            [
                "bread", "grill", "oven", "flour", "dough", "fire", "salt", "butter",
            ],
        ),
        (
            "markets",
            [
                "bank", "price", "market", "stock", "rate", "loan", "trade", "money",
            ],
        ),
        (
            "sport",
            [
                "ball", "goal", "team", "match", "score", "coach", "field", "player",
            ],
        ),
    ];
    let mut lines = String::new();
    for (topic, (label, words)) in topics.iter().enumerate() {
        for n in 0..15 {
            let mut text: Vec<&str> = (0..14).map(|i| words[(n * 3 + i * i) % 8]).collect();
            // A few words of the next topic, and words every topic shares.
            let (_, next) = topics[(topic + 1) % 4];
            text.extend([next[n % 8], next[(n + 5) % 8], "the", "and", "2024"]);
            let record = serde_json::json!({"id": format!("{label}-{n}"), "label": label, "text": text.join(" ")});
            lines.push_str(&format!("{record}\n"));
        }
    }
    std::fs::write(dir.join("corpus.jsonl"), lines).expect("write the corpus");
    std::fs::write(dir.join("stop.txt"), "the\nand\nmoney\n").expect("write the stop list");
}

/// Flags away from every default that decides the matrix or the tree.
const UNUSUAL: [&str; 16] = [
    "--k",
    "4",
    "--rule",
    "pddp-oc",
    "--select",
    "size",
    "--stem",
    "none",
    "--min-df",
    "3",
    "--ngrams",
    "2",
    "--weighting",
    "tfc",
    "--stoplist",
    "stop.txt",
];

/// The first run: the corpus in `dir` with [`UNUSUAL`] flags, writing `a.json`, `a.csv` and `a.nwk`.
fn first_run(dir: &Path) {
    corpus(dir);
    let mut args = vec!["cluster", "corpus.jsonl", "--keep-numbers"];
    args.extend(UNUSUAL);
    args.extend(["--json", "a.json", "--csv", "a.csv", "--newick", "a.nwk"]);
    run(dir, &args);
}

#[test]
fn a_batch_run_is_reproduced_from_the_settings_its_json_records() {
    let dir = tempfile::tempdir().expect("temp dir");
    first_run(dir.path());
    let first = json(&dir.path().join("a.json"));
    let block = &first["settings"];
    // The block says what the flags said.
    let text = &block["options"]["text"];
    assert_eq!(text["stem"], serde_json::Value::Null, "{block}");
    assert_eq!(
        (&text["min_df"], &text["ngrams"]),
        (&3.into(), &2.into()),
        "{block}"
    );
    assert_eq!(text["keep_numbers"], true, "{block}");
    let weighting: Weighting =
        serde_json::from_value(block["options"]["weighting"].clone()).expect("a weighting");
    assert_eq!(weighting.code(), "tfc");
    assert_eq!(block["rule"]["rule"], "pddp-oc", "{block}");
    assert_eq!(block["policy"], "size", "{block}");
    assert_eq!(block["k"], 4, "{block}");
    // Paths are kept absolute, so that the run can be reproduced from anywhere.
    let path = |value: &serde_json::Value| PathBuf::from(value.as_str().unwrap_or_default());
    let corpus = path(&block["paths"][0]);
    assert!(
        corpus.is_absolute() && corpus.ends_with("corpus.jsonl"),
        "{block}"
    );
    let stoplist = path(&text["stoplist"]["File"]);
    assert!(
        stoplist.is_absolute() && stoplist.ends_with("stop.txt"),
        "{block}"
    );

    // From another folder, with no flag but the outputs.
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).expect("mkdir");
    run(
        &elsewhere,
        &[
            "cluster",
            "--settings-from",
            "../a.json",
            "--json",
            "b.json",
            "--csv",
            "b.csv",
            "--newick",
            "b.nwk",
        ],
    );
    for (a, b) in [("a.csv", "b.csv"), ("a.nwk", "b.nwk")] {
        assert_eq!(
            read(&dir.path().join(a)),
            read(&elsewhere.join(b)),
            "{a} and {b}"
        );
    }
    // The settings read back are the settings written: the block round-trips.
    let again = json(&elsewhere.join("b.json"));
    assert_eq!(again["assignments"], first["assignments"]);
    assert_eq!(again["settings"], first["settings"]);

    // The settings matter: the defaults make another tree of the same corpus.
    run(
        dir.path(),
        &["cluster", "corpus.jsonl", "--k", "4", "--csv", "c.csv"],
    );
    assert_ne!(
        read(&dir.path().join("a.csv")),
        read(&dir.path().join("c.csv"))
    );
}

#[test]
fn a_flag_given_with_settings_from_wins_and_the_config_file_does_not() {
    let dir = tempfile::tempdir().expect("temp dir");
    first_run(dir.path());
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "min-df = 7\nselect = \"scatter\"\nk = 9\n").expect("write");
    succeeded(
        pdx(dir.path())
            .env("PDX_CONFIG", &config)
            .args([
                "cluster",
                "--settings-from",
                "a.json",
                "--k",
                "3",
                "--weighting",
                "txc",
                "--json",
                "d.json",
            ])
            .output()
            .expect("pdx runs"),
    );
    let first = json(&dir.path().join("a.json"));
    let other = json(&dir.path().join("d.json"));
    let settings = &other["settings"];
    assert_eq!(settings["k"], 3, "the flag");
    assert_eq!(other["metrics"]["leaves"], 3);
    let weighting: Weighting =
        serde_json::from_value(settings["options"]["weighting"].clone()).expect("a weighting");
    assert_eq!(weighting.code(), "txc", "the flag");
    assert_eq!(
        settings["options"]["text"]["min_df"], 3,
        "the file, not the config"
    );
    assert_eq!(settings["policy"], "size", "the file, not the config");
    assert_eq!(settings["rule"], first["settings"]["rule"]);
    assert_eq!(settings["paths"], first["settings"]["paths"]);
}

/// Assert a run failed cleanly: exit code 2, one line on stderr holding every needle, no panic.
fn assert_clean_failure(output: &Output, needles: &[&str]) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "stderr: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for needle in needles {
        assert!(stderr.contains(needle), "{needle:?} not in {stderr:?}");
    }
}

#[test]
fn a_settings_file_that_cannot_give_the_settings_is_one_line_naming_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    first_run(dir.path());
    let good = json(&dir.path().join("a.json"));
    let with_settings = |change: &dyn Fn(&mut serde_json::Value)| {
        let mut report = good.clone();
        change(&mut report["settings"]);
        report.to_string()
    };
    let cases: Vec<(&str, String, &str)> = vec![
        ("not-json.json", "hello".into(), "not JSON"),
        ("no-settings.json", "{\"docs\": []}".into(), "no settings"),
        (
            "unknown-rule.json",
            with_settings(&|s| s["rule"]["rule"] = "nope".into()),
            "nope",
        ),
        (
            "bad-option.json",
            with_settings(&|s| s["options"]["text"]["min_len"] = 0.into()),
            "min_len",
        ),
        (
            "wrong-type.json",
            with_settings(&|s| s["options"] = 3.into()),
            "damaged",
        ),
        (
            "no-k.json",
            with_settings(&|s| {
                s.as_object_mut().map(|s| s.remove("k"));
            }),
            "--k",
        ),
        (
            "unknown-word.json",
            with_settings(&|s| {
                s["reweigh"] = serde_json::json!({
                    "extra_stop_words": ["zyzzyva"],
                    "weighting": s["options"]["weighting"].clone(),
                    "min_df": 3,
                    "max_df": 0.95,
                    "max_terms": null,
                });
            }),
            "zyzzyva",
        ),
    ];
    for (name, text, reason) in &cases {
        std::fs::write(dir.path().join(name), text).expect("write");
        let output = pdx(dir.path())
            .args(["cluster", "--settings-from", name])
            .output()
            .expect("pdx runs");
        assert_clean_failure(&output, &[name, reason]);
    }
    let output = pdx(dir.path())
        .args(["cluster", "--settings-from", "missing.json"])
        .output()
        .expect("pdx runs");
    assert_clean_failure(&output, &["missing.json"]);
}
