//! The report `pdx cluster` prints: loading notes, leaves with their matched labels and words, the confusion
//! table, the figures, the files written and the legend, readable at 80 columns, with and without labels.

use std::path::Path;
use std::process::{Command, Output};

fn pdx(cache: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pdx"));
    command.env("PDX_CACHE_DIR", cache);
    command.env("PDX_CONFIG", "");
    command.env_remove("RUST_BACKTRACE");
    command
}

fn run(cache: &Path, args: &[&str]) -> Output {
    let output = pdx(cache).args(args).output().expect("pdx runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every line of `report` fits in 80 columns.
fn assert_fits(report: &str) {
    for line in report.lines() {
        assert!(
            line.chars().count() <= 80,
            "{} > 80: {line:?}",
            line.chars().count()
        );
    }
}

/// A folder corpus: one sub-folder per label, each document a file of the given text.
fn folder_corpus(root: &Path, documents: &[(&str, &str, String)]) {
    for (label, name, body) in documents {
        let folder = root.join(label);
        std::fs::create_dir_all(&folder).expect("mkdir");
        std::fs::write(folder.join(name), body).expect("write");
    }
}

/// The section of `report` that begins with the line `heading`, up to the next blank line.
fn section<'a>(report: &'a str, heading: &str) -> Vec<&'a str> {
    report
        .lines()
        .skip_while(|line| *line != heading)
        .skip(1)
        .take_while(|line| !line.is_empty())
        .collect()
}

#[test]
fn a_labelled_corpus_gets_every_section_and_its_figures_match_the_json() {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("out.json");
    let json_arg = json.to_string_lossy().into_owned();
    let output = run(dir.path(), &["cluster", "--k", "6", "--json", &json_arg]);
    let report = text(&output.stdout);
    assert_fits(&report);
    assert!(
        report.starts_with("demo: 223 documents, rule pddp"),
        "{report}"
    );
    for heading in ["Loading", "Leaves", "Figures", "Legend"] {
        assert!(
            report.lines().any(|line| line == heading),
            "{heading}: {report}"
        );
    }
    assert!(report.contains("Confusion (labels x leaves"), "{report}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).expect("the JSON")).expect("JSON");
    let leaves = json["leaves"].as_array().expect("leaves");
    let rows = section(&report, "Leaves");
    assert!(rows[0].contains("matched label") && rows[0].contains("precision"));
    for leaf in leaves {
        // The leaf's line: index, node, size, then its matched label, precision and recall as the JSON has them.
        let line = rows
            .iter()
            .find(|row| {
                row.split_whitespace().take(2).collect::<Vec<_>>()
                    == [
                        leaf["index"].to_string().as_str(),
                        leaf["id"].to_string().as_str(),
                    ]
            })
            .unwrap_or_else(|| panic!("leaf {} not in {rows:?}", leaf["index"]));
        let expected = format!(
            "{} {:.3} {:.3}",
            leaf["matched_label"].as_str().expect("a label"),
            leaf["precision"].as_f64().expect("precision"),
            leaf["recall"].as_f64().expect("recall")
        );
        assert!(
            line.split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .ends_with(&expected),
            "{line}"
        );
        // Its descriptive words are the JSON's top words, in order, with their shares.
        let words = leaf["top_words"].as_array().expect("words");
        let first = words[0].as_str().expect("a word");
        assert!(
            rows.iter().any(|row| row
                .trim_start()
                .starts_with(&format!("descriptive     {first} "))),
            "{first}: {rows:?}"
        );
    }
    let figures = section(&report, "Figures").join("\n");
    let nmi = json["metrics"]["nmi"].as_f64().expect("NMI");
    assert!(
        figures.contains(&format!("NMI {nmi:.4} (arithmetic mean)")),
        "{figures}"
    );
    assert!(figures.contains(&format!(
        "k-means objective {:.4}",
        json["metrics"]["objective"].as_f64().expect("objective")
    )));
    assert!(
        report.contains(&format!("Files written: --json {json_arg}\n")),
        "{report}"
    );
    let legend = section(&report, "Legend").join(" ");
    for term in [
        "scatter",
        "k-means objective",
        "precision",
        "recall",
        "NMI",
        "Hungarian",
    ] {
        assert!(legend.contains(term), "{term}: {legend}");
    }
}

#[test]
fn an_unlabelled_corpus_has_no_label_parts() {
    let dir = tempfile::tempdir().expect("temp dir");
    let csv = dir.path().join("docs.csv");
    let mut body = String::from("id,text\n");
    for i in 0..12 {
        let words = if i % 2 == 0 {
            "planet orbit moon star telescope"
        } else {
            "bread flour oven yeast dough"
        };
        body.push_str(&format!("d{i},{words} note{i}\n"));
    }
    std::fs::write(&csv, body).expect("write");
    let csv = csv.to_string_lossy().into_owned();
    let output = run(dir.path(), &["cluster", &csv, "--k", "2", "--min-df", "1"]);
    let report = text(&output.stdout);
    assert_fits(&report);
    for absent in [
        "Confusion",
        "matched label",
        "precision",
        "NMI",
        "purity",
        "recall",
    ] {
        assert!(!report.contains(absent), "{absent}: {report}");
    }
    let leaves = section(&report, "Leaves");
    assert!(leaves[0].trim_end().ends_with("scatter"), "{leaves:?}");
    assert!(report.contains("descriptive     bread") || report.contains("descriptive     dough"));
    assert!(report.contains("Files written: none"), "{report}");
}

#[test]
fn long_labels_are_rows_and_many_leaves_wrap_into_column_blocks() {
    let dir = tempfile::tempdir().expect("temp dir");
    let corpus = dir.path().join("corpus");
    let topics: Vec<String> = (0..20)
        .map(|t| format!("comp.sys.topic-{t:02}.hardware"))
        .collect();
    let mut documents = Vec::new();
    for (t, topic) in topics.iter().enumerate() {
        for d in 0..3 {
            let body = format!("word{t}a word{t}b word{t}c word{t}d shared{d}");
            documents.push((topic.as_str(), ["a.txt", "b.txt", "c.txt"][d], body));
        }
    }
    folder_corpus(&corpus, &documents);
    let corpus = corpus.to_string_lossy().into_owned();
    let output = run(
        dir.path(),
        &[
            "cluster",
            &corpus,
            "--k",
            "20",
            "--min-df",
            "1",
            "--no-stoplist",
        ],
    );
    let report = text(&output.stdout);
    assert_fits(&report);
    let confusion: Vec<&str> = report
        .lines()
        .skip_while(|line| !line.starts_with("Confusion"))
        .take_while(|line| !line.starts_with("Figures"))
        .collect();
    assert!(confusion[0].contains("labels x leaves"), "{confusion:?}");
    // Each label's whole name heads a row, once per block of columns; 20 leaves need more than one block.
    for topic in &topics {
        let rows = confusion
            .iter()
            .filter(|line| line.starts_with(topic.as_str()))
            .count();
        assert!(rows >= 2, "{topic}: {confusion:?}");
    }
    let headers: Vec<&&str> = confusion
        .iter()
        .filter(|line| line.starts_with("label "))
        .collect();
    assert!(headers.len() >= 2, "{confusion:?}");
    // Every leaf shows as a column exactly once.
    let columns: Vec<&str> = headers
        .iter()
        .flat_map(|line| line.split_whitespace().skip(1))
        .collect();
    assert_eq!(columns.len(), 20, "{columns:?}");
    // The leaves' table names each matched label whole.
    let leaves = section(&report, "Leaves").join("\n");
    assert!(leaves.contains("comp.sys.topic-"), "{leaves}");
}

#[test]
fn the_files_line_names_every_output_and_standard_output() {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("a.json").to_string_lossy().into_owned();
    let csv = dir.path().join("b.csv").to_string_lossy().into_owned();
    let output = run(
        dir.path(),
        &[
            "cluster", "--k", "3", "--json", &json, "--csv", &csv, "--newick", "-",
        ],
    );
    // The tree goes to standard output, so the report goes to standard error.
    assert!(
        text(&output.stdout).starts_with('('),
        "{}",
        text(&output.stdout)
    );
    let report = text(&output.stderr);
    let line = report
        .lines()
        .find(|line| line.starts_with("Files written: "))
        .expect("a files line");
    assert_eq!(
        line,
        format!("Files written: --json {json}, --csv {csv}, --newick to standard output")
    );
    assert!(Path::new(&json).is_file() && Path::new(&csv).is_file());
}

#[test]
fn loading_notes_name_a_dropped_document() {
    let dir = tempfile::tempdir().expect("temp dir");
    let corpus = dir.path().join("corpus");
    let mut documents = Vec::new();
    for d in 0..4 {
        documents.push((
            "space",
            ["a.txt", "b.txt", "c.txt", "d.txt"][d],
            "planet orbit moon".to_string(),
        ));
        documents.push((
            "baking",
            ["a.txt", "b.txt", "c.txt", "d.txt"][d],
            "bread flour oven".to_string(),
        ));
    }
    // Nothing but stop words: empty after filtering, so dropped.
    documents.push(("baking", "empty.txt", "the and of to".to_string()));
    folder_corpus(&corpus, &documents);
    let corpus_arg = corpus.to_string_lossy().into_owned();
    let output = run(
        dir.path(),
        &["cluster", &corpus_arg, "--k", "2", "--no-cache"],
    );
    let report = text(&output.stdout);
    let loading = section(&report, "Loading")
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(loading.contains("8 documents kept"), "{loading}");
    assert!(loading.contains("built without the cache"), "{loading}");
    assert!(
        loading.contains("1 dropped (no term left after filtering): ")
            && loading.contains("empty.txt"),
        "{loading}"
    );
    // The same corpus again through the cache: the note says so.
    run(dir.path(), &["cluster", &corpus_arg, "--k", "2"]);
    let cached = text(&run(dir.path(), &["cluster", &corpus_arg, "--k", "2"]).stdout);
    assert!(
        section(&cached, "Loading")
            .join(" ")
            .contains("read from the cache"),
        "{cached}"
    );
}

#[test]
fn brief_keeps_the_old_table() {
    let dir = tempfile::tempdir().expect("temp dir");
    let output = run(dir.path(), &["cluster", "--k", "4", "--brief"]);
    let table = text(&output.stdout);
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].starts_with("demo: 223 documents"), "{table}");
    assert!(
        lines[1]
            .split_whitespace()
            .collect::<Vec<_>>()
            .starts_with(&["leaf", "node", "size", "scatter", "entropy"])
    );
    assert_eq!(lines.len(), 1 + 1 + 4 + 2, "{table}");
    assert!(
        lines[6].starts_with("leaves 4, k-means objective "),
        "{table}"
    );
    assert!(lines[7].contains("accuracy") && lines[7].contains("NMI"));
}
