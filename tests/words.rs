//! Terms are shown as words, not stems: `pdx cluster` on a small stemmed corpus prints "company", not "compani";
//! its JSON keeps each stem beside its word; its CSV and Newick name no stem; and a load from the cache shows the
//! same words as a load from the text.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

/// A run of the `pdx` binary with its cache in `cache`.
fn pdx(cache: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pdx"));
    command.env("PDX_CACHE_DIR", cache);
    command.env_remove("RUST_BACKTRACE");
    command
}

fn succeed(command: &mut Command) -> Output {
    let output = command.output().expect("pdx runs");
    assert!(
        output.status.success(),
        "{command:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Stems that the English stemmer gives for the corpus's words and that are not words themselves.
const STEMS: [&str; 4] = ["compani", "injuri", "librari", "govern"];

/// Two topics of six documents each, in a folder per label. "company" outnumbers "companies", "injuries"
/// outnumbers "injury", and "government" outnumbers "governments" (all three stems differ from every word).
fn write_corpus(root: &Path) {
    let business = [
        "The company raised prices; the company hired staff and another company followed.",
        "Companies compete, but this company and the government agreed on company taxes.",
        "A company report: the government asked the company for its accounts.",
        "The company board met the government minister about the company merger.",
        "Governments and companies: the company paid the government a company fee.",
        "The company shares rose after the government cut company rates.",
    ];
    let health = [
        "Injuries at the library: two injuries and one injury among readers.",
        "The library closed after injuries; library staff reported injuries.",
        "Libraries count injuries: the library nurse treated injuries.",
        "The library recorded injuries among library visitors with injuries.",
        "Injuries and an injury in the library; the library treated injuries.",
        "The library hall saw injuries; libraries share injuries data.",
    ];
    for (label, texts) in [("business", business), ("health", health)] {
        let folder = root.join(label);
        fs::create_dir_all(&folder).expect("label folder");
        for (i, text) in texts.iter().enumerate() {
            fs::write(folder.join(format!("{i}.txt")), text).expect("document");
        }
    }
}

/// Whole whitespace- or punctuation-separated tokens of `text` that are one of the stems.
fn stems_in(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|token| STEMS.contains(token))
        .map(str::to_string)
        .collect()
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .expect("an array")
        .iter()
        .map(|v| v.as_str().expect("a string").to_string())
        .collect()
}

/// `pdx cluster` of the corpus into two leaves, with every output written in `out`: (stdout, JSON, CSV, Newick).
fn cluster(
    corpus: &Path,
    cache: &Path,
    out: &Path,
    extra: &[&str],
) -> (String, Value, String, String) {
    let (json, csv, newick) = (out.join("r.json"), out.join("r.csv"), out.join("r.nwk"));
    for path in [&json, &csv, &newick] {
        let _ = fs::remove_file(path);
    }
    let output = succeed(
        pdx(cache)
            .arg("cluster")
            .arg(corpus)
            .args(["--k", "2", "--min-df", "2"])
            .args(extra)
            .arg("--json")
            .arg(&json)
            .arg("--csv")
            .arg(&csv)
            .arg("--newick")
            .arg(&newick),
    );
    let report: Value = serde_json::from_str(&fs::read_to_string(&json).expect("JSON written"))
        .expect("valid JSON");
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        report,
        fs::read_to_string(&csv).expect("CSV written"),
        fs::read_to_string(&newick).expect("Newick written"),
    )
}

#[test]
fn the_report_shows_words_and_the_json_keeps_the_stems_beside_them() {
    let dir = tempfile::tempdir().expect("temp dir");
    let corpus = dir.path().join("corpus");
    write_corpus(&corpus);
    let cache = dir.path().join("cache");
    let (stdout, report, csv, newick) = cluster(&corpus, &cache, dir.path(), &["--no-cache"]);

    assert!(stdout.contains("company"), "{stdout}");
    assert!(stdout.contains("injuries"), "{stdout}");
    assert_eq!(stems_in(&stdout), Vec::<String>::new(), "{stdout}");
    assert_eq!(stems_in(&csv), Vec::<String>::new(), "{csv}");
    assert_eq!(stems_in(&newick), Vec::<String>::new(), "{newick}");

    // Each leaf lists its rows twice, in the same order: as terms (the stems, as before) and as words.
    let mut pairs = Vec::new();
    for leaf in report["leaves"].as_array().expect("leaves") {
        for (terms, words) in [
            ("top_terms", "top_words"),
            ("discriminating_terms", "discriminating_words"),
        ] {
            let (terms, words) = (strings(&leaf[terms]), strings(&leaf[words]));
            assert_eq!(terms.len(), words.len(), "{leaf}");
            assert!(!terms.is_empty(), "{leaf}");
            pairs.extend(terms.into_iter().zip(words));
        }
    }
    for (stem, word) in [
        ("compani", "company"),
        ("injuri", "injuries"),
        ("librari", "library"),
        ("govern", "government"),
    ] {
        assert!(
            pairs.contains(&(stem.to_string(), word.to_string())),
            "{stem} -> {word} not among {pairs:?}"
        );
    }
}

#[test]
fn without_stemming_the_words_are_the_terms() {
    let dir = tempfile::tempdir().expect("temp dir");
    let corpus = dir.path().join("corpus");
    write_corpus(&corpus);
    let cache = dir.path().join("cache");
    let (stdout, report, _, _) = cluster(
        &corpus,
        &cache,
        dir.path(),
        &["--no-cache", "--stem", "none"],
    );
    assert_eq!(stems_in(&stdout), Vec::<String>::new(), "{stdout}");
    for leaf in report["leaves"].as_array().expect("leaves") {
        assert_eq!(leaf["top_terms"], leaf["top_words"], "{leaf}");
        assert_eq!(
            leaf["discriminating_terms"], leaf["discriminating_words"],
            "{leaf}"
        );
    }
}

#[test]
fn a_load_from_the_cache_shows_the_same_words() {
    let dir = tempfile::tempdir().expect("temp dir");
    let corpus = dir.path().join("corpus");
    write_corpus(&corpus);
    let cache = dir.path().join("cache");
    let stats = |what: &str| {
        let output = succeed(
            pdx(&cache)
                .arg("stats")
                .arg(&corpus)
                .args(["--min-df", "2"]),
        );
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(stdout.contains(what), "{what:?} not in {stdout}");
    };
    stats("cache written");
    stats("cache hit");
    let (fresh_stdout, fresh, _, _) = cluster(&corpus, &cache, dir.path(), &["--no-cache"]);
    let (cached_stdout, cached, _, _) = cluster(&corpus, &cache, dir.path(), &[]);
    // The report, without the first line (it ends with a time) and the loading notes (they say whether the
    // cache was read): from the leaves on.
    let table = |stdout: &str| {
        stdout
            .lines()
            .skip_while(|line| *line != "Leaves")
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(!table(&fresh_stdout).is_empty(), "{fresh_stdout}");
    assert_eq!(table(&cached_stdout), table(&fresh_stdout));
    assert_eq!(cached["leaves"], fresh["leaves"]);
    assert!(cached_stdout.contains("company"), "{cached_stdout}");
}
