//! Files in legacy encodings: detected per file, or forced by the load options (`--encoding`, or `encoding` in
//! the config file), read again on demand in the same encoding, counted by encoding in the load report, and kept
//! apart in the cache.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pdx::corpus::TextEncoding;
use pdx::dataset::{self, Dataset, DatasetOptions};

/// Three Russian news items, each sharing words with another so that the document-frequency limits keep them.
const RUSSIAN: [&str; 3] = [
    "Правительство утвердило бюджет на следующий год. Цены на газ вырастут с января, сообщило министерство.",
    "Министерство финансов представило бюджет страны: расходы на оборону и на газ будут больше, чем в прошлом году.",
    "Экспорт газ в Европу упал, и бюджет потеряет доходы, считают экономисты правительство страны.",
];

/// `dir/corpus/LABEL/N.txt` for each text, written in `encoding`; returns the corpus folder (the cache and the
/// config file go beside it, not in it).
fn write_encoded(
    dir: &Path,
    label: &str,
    texts: &[&str],
    encoding: &'static encoding_rs::Encoding,
) -> PathBuf {
    let corpus = dir.join("corpus");
    let folder = corpus.join(label);
    fs::create_dir_all(&folder).expect("folder");
    for (n, text) in texts.iter().enumerate() {
        let (bytes, _, unmappable) = encoding.encode(text);
        assert!(!unmappable, "{text} in {}", encoding.name());
        fs::write(folder.join(format!("{n}.txt")), bytes).expect("writes");
    }
    corpus
}

fn every_term_options() -> DatasetOptions {
    let mut options = DatasetOptions::default();
    options.text.min_df = 1;
    options.text.max_df = 1.0;
    options
}

fn open(path: &Path, options: &DatasetOptions) -> Dataset {
    dataset::open(&[path.to_path_buf()], options, false)
        .unwrap_or_else(|error| panic!("{error}"))
        .dataset
}

fn has_term(dataset: &Dataset, word: &str) -> bool {
    dataset.matrix.row_words().iter().any(|w| w == word)
}

fn counts(pairs: &[(&str, usize)]) -> BTreeMap<String, usize> {
    pairs
        .iter()
        .map(|&(name, n)| (name.to_string(), n))
        .collect()
}

fn pdx(cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pdx"))
        .env("PDX_CONFIG", "")
        .env("PDX_CACHE_DIR", cache)
        .env_remove("RUST_BACKTRACE")
        .args(args)
        .output()
        .expect("pdx runs")
}

fn stats_json(output: &Output) -> serde_json::Value {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("one JSON object")
}

#[test]
fn koi8_r_files_give_russian_terms() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = write_encoded(dir.path(), "news", &RUSSIAN, encoding_rs::KOI8_R);
    let dataset = open(&root, &every_term_options());
    for word in ["бюджет", "газ", "министерство", "правительство"]
    {
        assert!(
            has_term(&dataset, word),
            "{word} missing from {:?}",
            &dataset.matrix.row_words()[..10.min(dataset.matrix.rows())]
        );
    }
    // The Windows-1252 reading of KOI8-R bytes: what pdx made of these files before it detected encodings.
    assert!(!has_term(&dataset, "âàäöåô"));
    assert_eq!(dataset.report.encodings, counts(&[("KOI8-R", 3)]));
    // Read again on demand (the viewer, search), a text is decoded as it was counted.
    let text = dataset.text(0).expect("read again");
    assert!(RUSSIAN.contains(&text.as_ref()), "{text}");
}

#[test]
fn the_report_counts_files_by_encoding() {
    let dir = tempfile::tempdir().expect("temp dir");
    write_encoded(dir.path(), "ru", &RUSSIAN, encoding_rs::KOI8_R);
    let english = [
        "The budget for gas rises next year.",
        "Gas prices and the budget: the ministry reports.",
    ];
    let root = write_encoded(dir.path(), "en", &english, encoding_rs::UTF_8);
    let dataset = open(&root, &every_term_options());
    assert_eq!(
        dataset.report.encodings,
        counts(&[("KOI8-R", 3), ("UTF-8", 2)])
    );
    assert!(has_term(&dataset, "бюджет") && has_term(&dataset, "budget"));
    // As pdx stats prints it, the commonest first, and in its JSON.
    let cache = dir.path().join("cache");
    let root_arg = root.to_str().expect("a UTF-8 path");
    let output = pdx(&cache, &["stats", "--min-df", "1", root_arg]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("encodings   KOI8-R 3 \u{b7} UTF-8 2\n"),
        "{stdout}"
    );
    let json = stats_json(&pdx(
        &cache,
        &["stats", "--json", "--min-df", "1", root_arg],
    ));
    assert_eq!(json["encodings"]["KOI8-R"], 3);
    assert_eq!(json["encodings"]["UTF-8"], 2);
}

#[test]
fn a_forced_encoding_reads_what_detection_cannot_tell() {
    let dir = tempfile::tempdir().expect("temp dir");
    // A word or two tell too little for detection, which misreads them.
    let root = write_encoded(
        dir.path(),
        "short",
        &["газ бюджет", "газ"],
        encoding_rs::KOI8_R,
    );
    let detected = open(&root, &every_term_options());
    assert!(!has_term(&detected, "газ"));
    assert!(!detected.report.encodings.contains_key("KOI8-R"));
    let mut options = every_term_options();
    options.load.encoding = TextEncoding::from_label("koi8-r").expect("a label");
    let forced = open(&root, &options);
    assert!(has_term(&forced, "газ") && has_term(&forced, "бюджет"));
    assert_eq!(forced.report.encodings, counts(&[("KOI8-R", 2)]));
    // Read again on demand in the forced encoding, not detected afresh.
    assert_eq!(forced.text(0).expect("read again"), "газ бюджет");
}

#[test]
fn the_encoding_flag_forces_keeps_its_cache_entry_apart_and_refuses_a_bad_label() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = write_encoded(dir.path(), "news", &RUSSIAN, encoding_rs::KOI8_R);
    let root = root.to_str().expect("a UTF-8 path");
    let cache = dir.path().join("cache");
    let detected = stats_json(&pdx(&cache, &["stats", "--json", root]));
    assert_eq!(detected["encodings"]["KOI8-R"], 3);
    assert_eq!(detected["cache"], "miss");
    // The same files forced into another encoding are another corpus: not the detected load's entry.
    let forced = stats_json(&pdx(
        &cache,
        &["stats", "--json", "--encoding", "windows-1251", root],
    ));
    assert_eq!(forced["cache"], "miss");
    assert_eq!(forced["encodings"]["windows-1251"], 3);
    let again = stats_json(&pdx(&cache, &["stats", "--json", root]));
    assert_eq!(again["cache"], "hit");
    assert_eq!(again["encodings"]["KOI8-R"], 3);
    // A label that names no encoding: one line, exit code 2.
    let refused = pdx(&cache, &["stats", "--encoding", "klingon", root]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("--encoding") && stderr.contains("unknown encoding \"klingon\""),
        "{stderr}"
    );
}

#[test]
fn the_config_file_sets_the_encoding_and_print_config_shows_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = write_encoded(
        dir.path(),
        "short",
        &["газ бюджет", "газ"],
        encoding_rs::KOI8_R,
    );
    let config = dir.path().join("config.toml");
    let run = |body: &str, args: &[&str]| {
        fs::write(&config, body).expect("writes");
        Command::new(env!("CARGO_BIN_EXE_pdx"))
            .env("PDX_CONFIG", &config)
            .env("PDX_CACHE_DIR", dir.path().join("cache"))
            .env_remove("RUST_BACKTRACE")
            .args(args)
            .output()
            .expect("pdx runs")
    };
    let root = root.to_str().expect("a UTF-8 path");
    let json = stats_json(&run(
        "encoding = \"koi8-r\"\n",
        &["stats", "--json", "--min-df", "1", root],
    ));
    assert_eq!(json["encodings"]["KOI8-R"], 2);
    let printed = run("encoding = \"koi8-r\"\n", &["--print-config"]);
    let printed = String::from_utf8_lossy(&printed.stdout);
    assert!(
        printed.contains("encoding = \"koi8-r\"  # config file, line 1"),
        "{printed}"
    );
    let default = run("", &["--print-config"]);
    assert!(String::from_utf8_lossy(&default.stdout).contains("encoding = \"auto\"  # default"));
    let refused = run("k = 3\nencoding = \"klingon\"\n", &["stats", root]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("config.toml:2: encoding = klingon") && stderr.contains("unknown encoding"),
        "{stderr}"
    );
}

#[test]
fn an_html_page_keeps_the_charset_it_declares() {
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = dir.path().join("corpus/menus");
    fs::create_dir_all(&folder).expect("folder");
    // ISO-8859-15's euro sign (0xA4) is a currency sign in Windows-1252, which detection guesses for these bytes.
    let page = "<html><head><meta charset=\"iso-8859-15\"><title>Menu</title></head><body><p>Le café \
                coûte 3 € et le thé 2 €, l'œuf 1 €.</p></body></html>";
    let (bytes, _, unmappable) = encoding_rs::ISO_8859_15.encode(page);
    assert!(!unmappable);
    fs::write(folder.join("menu.html"), bytes).expect("writes");
    let dataset = open(&dir.path().join("corpus"), &every_term_options());
    let text = dataset.text(0).expect("read again");
    assert!(text.contains("coûte 3 € et le thé 2 €, l'œuf"), "{text}");
    assert_eq!(dataset.report.encodings, counts(&[("ISO-8859-15", 1)]));
}
