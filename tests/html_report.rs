//! The HTML report (`report::html`): what it says, that what comes from users' files is escaped, that it refers
//! to nothing outside itself, that `pdx cluster --html` writes it like the other outputs, and, in headless
//! Chromium, that the page a browser builds from it holds the whole tree.

use std::path::{Path, PathBuf};
use std::process::Command;

use pdx::cluster::{RuleSpec, SelectPolicy, Tree};
use pdx::dataset::{self, Dataset, DatasetOptions, Reweigh};
use pdx::report::settings::Settings;
use pdx::report::{self, html};
use pdx::text::StoplistChoice;
use pdx::weighting::Weighting;

#[path = "common/chromium.rs"]
mod chromium;
mod common;

use common::trees::{demo, grown};

use chromium::dump_dom;

/// Every node named `Topic <id>`.
fn name_every_node(tree: &mut Tree) {
    for id in tree.depth_first() {
        tree.set_name(id, Some(format!("Topic {id}")))
            .expect("a live node");
    }
}

/// The settings of a corpus loaded with the defaults and grown by the default rule.
fn settings() -> Settings {
    Settings {
        paths: Vec::new(),
        options: DatasetOptions::default(),
        reweigh: None,
        rule: RuleSpec::default(),
        policy: SelectPolicy::default(),
        k: None,
        memory_budget: None,
    }
}

/// A JSON Lines corpus in `dir` of three topics under labels far longer than a heat-map column.
const LONG_LABELS: [&str; 3] = [
    "Astronomy and everything the night sky shows through a small telescope",
    "Cooking over an open fire, with bread baked in the embers",
    "Markets, banks and the prices of things",
];

fn long_label_corpus(dir: &Path) -> PathBuf {
    let topics = [
        ["star", "planet", "orbit", "telescope", "comet", "moon"],
        ["bread", "grill", "oven", "flour", "dough", "fire"],
        ["bank", "price", "market", "stock", "rate", "loan"],
    ];
    let mut lines = String::new();
    for (topic, words) in topics.iter().enumerate() {
        for n in 0..8 {
            let text: Vec<&str> = (0..12).map(|i| words[(n + i * (i + 1)) % 6]).collect();
            let record = serde_json::json!({
                "id": format!("t{topic}-{n}"),
                "label": LONG_LABELS[topic],
                "text": text.join(" "),
            });
            lines.push_str(&format!("{record}\n"));
        }
    }
    let path = dir.join("long-labels.jsonl");
    std::fs::write(&path, lines).expect("write the corpus");
    path
}

fn open(path: &Path) -> Dataset {
    dataset::open(&[path.to_path_buf()], &DatasetOptions::default(), false)
        .expect("the corpus opens")
        .dataset
}

#[test]
fn what_comes_from_users_files_is_escaped() {
    let (mut dataset, mut tree) = demo(4);
    for document in &mut dataset.documents {
        document.title = Some("<script>alert('title')</script> & more".into());
    }
    dataset.label_names[0] = "<img src=x onerror=alert(1)>".into();
    tree.set_name(tree.root(), Some("<b>bold</b> \"quoted\"".into()))
        .expect("the root");
    // A stop word added after loading comes from the collection, a stop list's name from the user.
    let mut settings = settings();
    settings.options.text.stoplist = StoplistChoice::File("<u>stop</u>.txt".into());
    settings.reweigh = Some(Reweigh {
        extra_stop_words: vec!["<i>word</i>".into()],
        ..Reweigh::from_load(&settings.options.text, Weighting::TEXT_DEFAULT)
    });
    let page = html::to_html(&dataset, &tree, Some(&settings), false);
    assert_eq!(
        page.matches("<script").count(),
        1,
        "only the page's own script"
    );
    assert!(!page.contains("<img"), "a label became an element");
    assert!(!page.contains("<b>bold"), "a name became an element");
    assert!(
        !page.contains("<i>") && !page.contains("<u>"),
        "a setting became an element"
    );
    assert!(page.contains(
        "<dt>stop list</dt><dd>&lt;u&gt;stop&lt;/u&gt;.txt, and 1 word added since loading: \
         &lt;i&gt;word&lt;/i&gt;</dd>"
    ));
    assert!(page.contains("&lt;script&gt;alert(&#39;title&#39;)&lt;/script&gt; &amp; more"));
    assert!(page.contains("&lt;img src=x onerror=alert(1)&gt;"));
    assert!(page.contains("&lt;b&gt;bold&lt;/b&gt; &quot;quoted&quot;"));
}

#[test]
fn the_page_refers_to_nothing_outside_itself() {
    let (dataset, tree) = demo(6);
    let page = html::to_html(&dataset, &tree, Some(&settings()), false);
    for reference in ["http://", "https://", "src=", "url(", "@import", "//cdn"] {
        assert!(!page.contains(reference), "{reference} in the page");
    }
    // Links lead to the page's own nodes only.
    for (at, _) in page.match_indices("href=") {
        assert!(
            page[at..].starts_with("href=\"#node-"),
            "{}",
            &page[at..at + 40]
        );
    }
    assert!(
        page.contains("<style>") && page.contains("<script>"),
        "inline"
    );
}

#[test]
fn the_page_describes_the_corpus_the_settings_and_every_node() {
    let (dataset, mut tree) = demo(6);
    name_every_node(&mut tree);
    let page = html::to_html(&dataset, &tree, Some(&settings()), false);
    let default_rule = RuleSpec::default().text();
    for fact in [
        "<dt>corpus</dt><dd>demo</dd>",
        "<dt>documents</dt><dd>223 (223 in the tree)</dd>",
        &format!("<dt>terms</dt><dd>{}</dd>", dataset.matrix.rows()),
        "<dt>labels</dt><dd>6: ",
        "<dt>weighting</dt><dd>lfc</dd>",
        "<dt>stemming</dt><dd>english</dd>",
        "<dt>stop list</dt><dd>the shipped English list</dd>",
        "<dt>document frequency</dt><dd>in at least 2 documents and at most 95% of them</dd>",
        &format!("<dt>rule</dt><dd>{default_rule}</dd>"),
        &format!("<dt>splits</dt><dd>{default_rule} &times; 5</dd>"),
        "NMI",
        "arithmetic-mean normalisation",
        "purity",
    ] {
        assert!(page.contains(fact), "{fact} not in the page");
    }
    for id in tree.depth_first() {
        assert_eq!(
            page.matches(&format!("<details class=\"node\" id=\"node-{id}\""))
                .count(),
            1,
            "node {id}"
        );
        assert!(page.contains(&format!("<span class=\"nname\">Topic {id}</span>")));
    }
    // Each leaf's words are the ones the JSON report gives: words, not stems.
    let report = report::build(&dataset, &tree);
    let stems_differ = report.leaves.iter().any(|l| l.top_terms != l.top_words);
    assert!(
        stems_differ,
        "the demo is stemmed: some stem is not its word"
    );
    for leaf in &report.leaves {
        let words = |list: &[String]| list.iter().map(|w| html::escape(w)).collect::<Vec<_>>();
        let descriptive = format!(
            "<b>descriptive</b>{}</div>",
            words(&leaf.top_words).join(", ")
        );
        let discriminating = format!(
            "<b>discriminating</b>{}</div>",
            words(&leaf.discriminating_words).join(", ")
        );
        assert!(
            page.contains(&descriptive),
            "leaf {}: {descriptive}",
            leaf.id
        );
        assert!(
            page.contains(&discriminating),
            "leaf {}: {discriminating}",
            leaf.id
        );
    }
    // The heat map: a row per leaf, linked to its node, and a column per label.
    for leaf in tree.leaves() {
        assert!(page.contains(&format!(
            "<a class=\"to-node\" href=\"#node-{leaf}\">#{leaf} Topic {leaf}</a>"
        )));
    }
    assert_eq!(
        page.matches("<th class=\"lab\"").count(),
        dataset.label_names.len()
    );
}

#[test]
fn the_page_grows_with_the_tree_not_the_corpus() {
    let (dataset, tree) = demo(6);
    let page = html::to_html(&dataset, &tree, Some(&settings()), false);
    let nodes = tree.depth_first().len();
    let listed = page.matches("<li>").count();
    assert!(listed > 0);
    assert!(
        listed <= nodes * html::DOCUMENTS_PER_NODE,
        "{listed} documents listed for {nodes} nodes"
    );
    // Documents are listed by a heading, never by their whole text: no line of the page is long.
    let longest_line = page.lines().map(str::len).max().unwrap_or(0);
    assert!(longest_line < 8 * 1024, "a line of {longest_line} bytes");
}

#[test]
fn without_labels_nothing_is_said_of_labels() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("plain.csv");
    let mut rows = String::from("id,text\n");
    for n in 0..12 {
        let text = if n % 2 == 0 {
            "stars planets orbit telescope comet"
        } else {
            "bread grill oven flour dough"
        };
        rows.push_str(&format!("d{n},{text} note{}\n", n % 3));
    }
    std::fs::write(&path, rows).expect("write");
    let dataset = open(&path);
    assert!(dataset.label_names.is_empty());
    let tree = grown(&dataset, 2);
    let page = html::to_html(&dataset, &tree, Some(&settings()), false);
    for label_thing in [
        "<dt>labels</dt>",
        "Against the labels",
        "Leaves and labels",
        "purity",
        "NMI",
        "class=\"bar\"",
        "class=\"chip\"",
    ] {
        assert!(
            !page.contains(label_thing),
            "{label_thing} in a page without labels"
        );
    }
    assert!(page.contains("<details class=\"node\" id=\"node-0\""));
}

#[test]
fn long_labels_are_cut_in_headings_with_the_full_name_in_a_title() {
    let dir = tempfile::tempdir().expect("temp dir");
    let dataset = open(&long_label_corpus(dir.path()));
    let tree = grown(&dataset, 3);
    let page = html::to_html(&dataset, &tree, Some(&settings()), false);
    for label in LONG_LABELS {
        let escaped = html::escape(label);
        let cut: String = label.chars().take(html::LABEL_HEADING_CHARS - 1).collect();
        let heading = format!(
            "<th class=\"lab\" title=\"{escaped}\">{}…</th>",
            html::escape(&cut)
        );
        assert!(page.contains(&heading), "{heading}");
    }
}

/// `pdx cluster` in `dir`, with the cache in a folder of the test's own.
fn pdx_cluster(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_pdx"))
        .current_dir(dir)
        .env("PDX_CACHE_DIR", dir.join("cache"))
        .env_remove("RUST_BACKTRACE")
        .arg("cluster")
        .args(args)
        .output()
        .expect("pdx runs")
}

#[test]
fn cluster_writes_the_report_where_html_says() {
    let dir = tempfile::tempdir().expect("temp dir");
    let corpus = long_label_corpus(dir.path());
    let corpus = corpus.to_string_lossy();
    let output = pdx_cluster(
        dir.path(),
        &["--k", "3", "--html", "r.html", "--json", "r.json", &corpus],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let page = std::fs::read_to_string(dir.path().join("r.html")).expect("the report");
    assert!(page.starts_with("<!DOCTYPE html>") && page.trim_end().ends_with("</html>"));
    assert!(page.contains(&format!(
        "<dt>rule</dt><dd>{}</dd>",
        RuleSpec::default().text()
    )));
    assert!(page.contains(&html::escape(LONG_LABELS[0])));
    // `-` is standard output, as for the other outputs.
    let output = pdx_cluster(dir.path(), &["--k", "2", "--html", "-", &corpus]);
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("<!DOCTYPE html>"));
}

#[test]
fn cluster_never_writes_the_report_over_the_corpus_or_another_output() {
    let dir = tempfile::tempdir().expect("temp dir");
    let corpus = long_label_corpus(dir.path());
    let before = std::fs::read(&corpus).expect("read");
    let name = corpus.to_string_lossy();
    let cases: [&[&str]; 3] = [
        &["--k", "2", "--html", &name, &name],
        &["--k", "2", "--html", "out", "--json", "./out", &name],
        &["--k", "2", "--html", "-", "--csv", "-", &name],
    ];
    for args in cases {
        let output = pdx_cluster(dir.path(), args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(stderr.contains("--html"), "{stderr}");
    }
    assert_eq!(std::fs::read(&corpus).expect("read"), before);
    assert!(!dir.path().join("out").exists());
}

/// The `<details>` elements of `dom`, in document order, each with its id and the id of the `<details>` it sits
/// in: the tree the browser built.
fn details_tree(dom: &str) -> Vec<(String, Option<String>)> {
    let mut found = Vec::new();
    let mut open: Vec<String> = Vec::new();
    let mut rest = dom;
    while let Some(at) = rest
        .find("<details")
        .into_iter()
        .chain(rest.find("</details>"))
        .min()
    {
        if rest[at..].starts_with("</details>") {
            open.pop();
            rest = &rest[at + "</details>".len()..];
            continue;
        }
        let tag_end = rest[at..].find('>').map_or(rest.len(), |end| at + end);
        let tag = &rest[at..tag_end];
        let id = tag
            .split("id=\"")
            .nth(1)
            .and_then(|id| id.split('"').next())
            .unwrap_or_default()
            .to_string();
        found.push((id.clone(), open.last().cloned()));
        open.push(id);
        rest = &rest[tag_end..];
    }
    found
}

/// Check the DOM Chromium built from the report of `tree`: every node a `<details>` inside its parent's, every
/// name as text, the script run to its end, and no element made of anything from a file.
fn check_in_chromium(dataset: &Dataset, tree: &Tree, dir: &Path, name: &str) {
    let file = dir.join(format!("{name}.html"));
    std::fs::write(
        &file,
        html::to_html(dataset, tree, Some(&settings()), false),
    )
    .expect("write");
    let dom = dump_dom(&file, &dir.join(format!("{name}-profile")));
    assert!(
        dom.contains("data-script=\"ran\""),
        "{name}: the script did not finish"
    );
    assert_eq!(dom.matches("<script").count(), 1, "{name}");
    let built = details_tree(&dom);
    let expected: Vec<(String, Option<String>)> = tree
        .depth_first()
        .into_iter()
        .filter_map(|id| tree.node(id))
        .map(|node| {
            (
                format!("node-{}", node.id),
                node.parent.map(|p| format!("node-{p}")),
            )
        })
        .collect();
    assert_eq!(built, expected, "{name}: the tree the browser built");
    for id in tree.depth_first() {
        if let Some(node_name) = tree.node(id).and_then(|node| node.name.clone()) {
            let text = node_name
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;");
            assert!(
                dom.contains(&format!("<span class=\"nname\">{text}</span>")),
                "{name}: {text} not in the DOM"
            );
        }
    }
}

#[test]
#[ignore = "needs chromium"]
fn chromium_builds_the_whole_tree_of_the_reports() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut dataset, mut tree) = demo(6);
    name_every_node(&mut tree);
    // A name and titles that would be markup if they were not escaped.
    tree.set_name(tree.root(), Some("<i>all</i> & <script>x</script>".into()))
        .expect("the root");
    for document in dataset.documents.iter_mut().step_by(3) {
        document.title = Some("<script>document.body.remove()</script>".into());
    }
    check_in_chromium(&dataset, &tree, dir.path(), "demo");

    let dataset = open(&long_label_corpus(dir.path()));
    let mut tree = grown(&dataset, 3);
    name_every_node(&mut tree);
    check_in_chromium(&dataset, &tree, dir.path(), "long-labels");
}
