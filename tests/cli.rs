//! The `pdx` binary on bad input: one line naming the file (and line), exit code 2, never a panic; and on good
//! input, the stats it prints.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn pdx() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pdx"));
    command.env(
        "PDX_CACHE_DIR",
        std::env::temp_dir().join("pdx-cli-test-cache"),
    );
    command.env_remove("RUST_BACKTRACE");
    command
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn run(args: &[&str]) -> Output {
    pdx().args(args).output().expect("pdx runs")
}

#[test]
fn a_path_that_does_not_exist() {
    let output = run(&["stats", "/no/such/corpus"]);
    common::assert_clean_failure(&output, &["/no/such/corpus", "no such file"]);
}

#[test]
fn an_empty_folder() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().to_string_lossy().into_owned();
    let output = run(&["stats", &path]);
    common::assert_clean_failure(&output, &[&path, "no documents"]);
}

#[test]
fn a_folder_of_binary_files_only() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(dir.path().join("images")).expect("mkdir");
    std::fs::write(dir.path().join("images/a.png"), b"\x89PNG\x00\x01").expect("write");
    std::fs::write(dir.path().join("images/b.png"), b"\x00\x00\x00").expect("write");
    let path = dir.path().to_string_lossy().into_owned();
    let output = run(&["stats", &path]);
    common::assert_clean_failure(&output, &[&path, "2 skipped: binary file"]);
}

#[test]
fn a_csv_without_the_named_column() {
    let path = fixture("docs.csv").to_string_lossy().into_owned();
    let output = run(&["stats", &path, "--text-col", "body"]);
    common::assert_clean_failure(
        &output,
        &[
            "docs.csv",
            "no column named \"body\"",
            "columns: id, title, text, label",
        ],
    );
}

#[test]
fn ragged_numeric_rows() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("ragged.data");
    std::fs::write(&file, "1,2,3\n4,5,6\n7,8\n").expect("write");
    let output = run(&["stats", &file.to_string_lossy()]);
    common::assert_clean_failure(&output, &["ragged.data:3:", "expected 3 fields, found 2"]);
}

#[test]
fn non_numeric_numeric_rows() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("words.data");
    std::fs::write(&file, "1,2,3\n4,five,6\n").expect("write");
    let output = run(&["stats", &file.to_string_lossy(), "--format", "numeric"]);
    common::assert_clean_failure(&output, &["words.data:2:", "\"five\" is not a number"]);
}

#[test]
fn missing_numeric_values_name_the_line() {
    let path = fixture("missing.data").to_string_lossy().into_owned();
    let output = run(&["stats", &path]);
    common::assert_clean_failure(&output, &["missing.data:2:", "--missing"]);
}

#[test]
fn bad_options() {
    common::assert_clean_failure(
        &run(&["stats", "--weighting", "xyz"]),
        &["unknown weighting \"xyz\""],
    );
    common::assert_clean_failure(
        &run(&["stats", "--stem", "klingon"]),
        &["unknown stemmer \"klingon\""],
    );
    common::assert_clean_failure(&run(&["stats", "--max-df", "1.5"]), &["--max-df"]);
    common::assert_clean_failure(&run(&["stats", "--format", "pdf"]), &["pdf"]);
    common::assert_clean_failure(
        &run(&["stats", "--min-len", "5", "--max-len", "2"]),
        &["--min-len"],
    );
    common::assert_clean_failure(&run(&["stats", "--label-depth", "0"]), &["--label-depth"]);
}

/// Whether this process runs as root, which reads files whatever their permission bits say.
fn running_as_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

#[test]
fn a_file_without_read_permission_is_skipped_and_counted() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = dir.path().join("notes");
    std::fs::create_dir(&folder).expect("mkdir");
    for (name, text) in [
        ("a.txt", "orbit rocket launch"),
        ("b.txt", "orbit rocket fuel"),
        ("c.txt", "bread dough oven"),
        ("d.txt", "bread dough yeast"),
    ] {
        std::fs::write(folder.join(name), text).expect("write");
    }
    let secret = folder.join("secret.txt");
    std::fs::write(&secret, "classified orbit").expect("write");
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    for path in [dir.path(), folder.as_path()] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let root = dir.path().to_string_lossy().into_owned();
    let args = ["stats", "--no-cache", "--json", root.as_str()];
    // Root reads any file, so as root the check runs pdx as the unprivileged user `nobody`.
    let output = if running_as_root() {
        let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"]
            .into_iter()
            .find(|p| Path::new(p).exists());
        let Some(setpriv) = setpriv else {
            println!("skipped: running as root and setpriv is not available to drop privileges");
            return;
        };
        Command::new(setpriv)
            .args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                env!("CARGO_BIN_EXE_pdx"),
            ])
            .args(args)
            .output()
            .expect("pdx runs")
    } else {
        run(&args)
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stats: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(stats["docs"], 4);
    assert_eq!(stats["skipped"]["unreadable file"]["count"], 1);
    let example = stats["skipped"]["unreadable file"]["examples"][0]
        .as_str()
        .unwrap_or_default();
    assert!(example.contains("secret.txt"), "{example}");
}

#[test]
fn stats_json_has_the_promised_keys() {
    let output = run(&["stats", "--json"]);
    assert_eq!(output.status.code(), Some(0));
    let stats: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    for key in ["docs", "terms", "nnz", "labels", "skipped", "timings_ms"] {
        assert!(stats.get(key).is_some(), "missing {key}");
    }
    for phase in ["read", "tokenise", "weight"] {
        assert!(
            stats["timings_ms"][phase]
                .as_f64()
                .is_some_and(|t| t >= 0.0),
            "{phase}"
        );
    }
    assert_eq!(stats["docs"], 223);
    let labels = stats["labels"].as_object().expect("labels object");
    assert_eq!(labels.values().filter_map(|v| v.as_u64()).sum::<u64>(), 223);
}

#[test]
fn no_arguments_opens_the_demo() {
    let output = run(&[]);
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("documents   223"), "{stdout}");
}

#[test]
fn the_cache_is_written_then_read() {
    let cache = tempfile::tempdir().expect("temp dir");
    let corpus = fixture("folder").to_string_lossy().into_owned();
    let stats = |extra: &[&str]| -> serde_json::Value {
        let output = pdx()
            .env("PDX_CACHE_DIR", cache.path())
            .args(["stats", "--json", "--min-df", "1", &corpus])
            .args(extra)
            .output()
            .expect("runs");
        assert_eq!(
            output.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice(&output.stdout).expect("JSON")
    };
    let first = stats(&[]);
    assert_eq!(first["cache"], "miss");
    let second = stats(&[]);
    assert_eq!(second["cache"], "hit");
    assert_eq!(first["terms"], second["terms"]);
    assert_eq!(first["nnz"], second["nnz"]);
    // Other options are another entry; --no-cache neither reads nor writes.
    assert_eq!(stats(&["--weighting", "txx"])["cache"], "miss");
    assert_eq!(stats(&["--no-cache"])["cache"], "off");
}

#[test]
fn keep_empty_keeps_and_reports_empty_documents() {
    let dir = tempfile::tempdir().expect("temp dir");
    let folder = dir.path().join("misc");
    std::fs::create_dir(&folder).expect("mkdir");
    std::fs::write(folder.join("a.txt"), "orbit rocket").expect("write");
    std::fs::write(folder.join("b.txt"), "orbit rocket").expect("write");
    std::fs::write(folder.join("c.txt"), "orbit bread").expect("write");
    std::fs::write(folder.join("d.txt"), "the and of 42").expect("write");
    let path = dir.path().to_string_lossy().into_owned();
    let json = |extra: &[&str]| -> serde_json::Value {
        let output = run(&[&["stats", "--json", "--no-cache", &path], extra].concat());
        assert_eq!(
            output.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice(&output.stdout).expect("JSON")
    };
    let dropped = json(&[]);
    assert_eq!(dropped["docs"], 3);
    assert_eq!(dropped["skipped"]["empty after filtering"]["count"], 1);
    assert!(
        dropped["empty_documents"][0]
            .as_str()
            .unwrap_or_default()
            .ends_with("misc/d.txt")
    );
    let kept = json(&["--keep-empty"]);
    assert_eq!(kept["docs"], 4);
    assert_eq!(kept["empty_documents"].as_array().map(Vec::len), Some(1));
}

#[test]
fn cluster_bad_options_are_one_line_and_exit_2() {
    common::assert_clean_failure(
        &run(&["cluster", "--k", "3", "--rule", "nope"]),
        &["unknown rule \"nope\""],
    );
    common::assert_clean_failure(&run(&["cluster", "--k", "0"]), &["--k"]);
    common::assert_clean_failure(&run(&["cluster", "--k", "3", "--l", "9"]), &["--l 9"]);
    common::assert_clean_failure(
        &run(&["cluster", "--k", "3", "--sample", "1"]),
        &["--sample 1", "0 (exact), or at least 2"],
    );
    common::assert_clean_failure(
        &run(&["cluster", "--k", "3", "--sample", "every"]),
        &["--sample"],
    );
    common::assert_clean_failure(
        &run(&["cluster", "--k", "3", "--rule", "pdgp", "--tau", "1"]),
        &["--tau 1"],
    );
    common::assert_clean_failure(&run(&["cluster", "--k", "3", "--tau", "-0.5"]), &["--tau"]);
    common::assert_clean_failure(
        &run(&["cluster", "--k", "3", "/no/such/corpus"]),
        &["/no/such/corpus"],
    );
}

#[test]
fn cluster_writes_json_csv_and_newick() {
    let dir = tempfile::tempdir().expect("temp dir");
    let json = dir.path().join("out.json");
    let csv = dir.path().join("out.csv");
    let newick = dir.path().join("out.nwk");
    let output = run(&[
        "cluster",
        "--k",
        "6",
        "--rule",
        "pddp-oc",
        "--json",
        &json.to_string_lossy(),
        "--csv",
        &csv.to_string_lossy(),
        "--newick",
        &newick.to_string_lossy(),
    ]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("accuracy") && stdout.contains("NMI"),
        "{stdout}"
    );

    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).expect("json written")).expect("JSON");
    let docs = report["docs"].as_array().expect("docs");
    assert_eq!(docs.len(), 223);
    assert!(docs[0]["id"].is_string() && docs[0]["label"].is_string());
    let assignments = report["assignments"].as_array().expect("assignments");
    assert_eq!(assignments.len(), 223);
    let leaves = report["leaves"].as_array().expect("leaves");
    assert_eq!(leaves.len(), 6);
    for leaf in leaves {
        for key in [
            "id",
            "size",
            "scatter",
            "top_terms",
            "label_counts",
            "discriminating_terms",
            "representatives",
        ] {
            assert!(leaf.get(key).is_some(), "leaf lacks {key}");
        }
    }
    // Every document's leaf index is in range, and the leaf sizes add up.
    assert!(
        assignments
            .iter()
            .all(|a| a.as_u64().is_some_and(|l| l < 6))
    );
    let total: u64 = leaves.iter().filter_map(|l| l["size"].as_u64()).sum();
    assert_eq!(total, 223);
    let nodes = report["tree"]["nodes"].as_array().expect("tree nodes");
    assert_eq!(nodes.len(), 11);
    for key in [
        "id", "parent", "children", "size", "scatter", "rule", "params",
    ] {
        assert!(nodes[0].get(key).is_some(), "node lacks {key}");
    }
    assert_eq!(nodes[0]["rule"], "pddp-oc");
    for key in [
        "objective",
        "accuracy",
        "nmi",
        "ari",
        "vi",
        "purity",
        "entropy",
        "error_rate",
    ] {
        assert!(report["metrics"][key].is_number(), "metrics lack {key}");
    }
    for key in ["load", "matrix", "cluster"] {
        assert!(report["timings_ms"][key].is_number(), "timings lack {key}");
    }

    let csv_text = std::fs::read_to_string(&csv).expect("csv written");
    let mut lines = csv_text.lines();
    assert_eq!(
        lines.next(),
        Some("id,leaf,path,node,name,names,parent,depth,label")
    );
    let first = lines.next().expect("a row");
    let fields: Vec<&str> = first.split(',').collect();
    assert_eq!(fields.len(), 9);
    // The document's own label: the demo's topic, the folder its id names.
    for row in csv_text.lines().skip(1) {
        let (id, label) = (row.split(',').next(), row.rsplit(',').next());
        let topic = id.and_then(|id| id.split('/').nth(1));
        assert_eq!(label, topic, "{row}");
    }
    assert!(fields[2].starts_with("0/"), "path from the root: {first}");
    // The leaf's node id ends the path; unnamed nodes are named by id in the path of names.
    assert!(fields[2].ends_with(&format!("/{}", fields[3])), "{first}");
    assert_eq!(fields[4], "", "no names given: {first}");
    assert!(fields[5].starts_with("#0 / "), "{first}");
    // The leaf's parent is the node before it on the path; its depth counts the nodes above it.
    let path: Vec<&str> = fields[2].split('/').collect();
    assert_eq!(fields[6], path[path.len() - 2], "{first}");
    assert_eq!(fields[7], (path.len() - 1).to_string(), "{first}");
    assert_eq!(csv_text.lines().count(), 224);

    let tree = std::fs::read_to_string(&newick).expect("newick written");
    assert!(tree.trim_end().ends_with(';'));
    assert_eq!(tree.matches('(').count(), tree.matches(')').count());
    assert_eq!(
        tree.matches('(').count(),
        5,
        "five internal nodes for six leaves of binary splits"
    );
    assert!(tree.contains("rule=pddp-oc"));
}

/// `pdx cluster --k 6` on the demo with every other setting at its default finds the demo's six topics.
#[test]
fn the_demo_clustered_with_the_defaults_finds_its_six_topics() {
    // No config file: its defaults would be the user's, not pdx's.
    let output = pdx()
        .env("PDX_CONFIG", "")
        .args(["cluster", "--k", "6", "--json", "-"])
        .output()
        .expect("pdx runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(report["metrics"]["leaves"], 6);
    let nmi = report["metrics"]["nmi"].as_f64().expect("an NMI");
    assert!(nmi >= 0.9, "NMI {nmi:.4}");
}

#[test]
fn cluster_json_to_standard_output() {
    let output = run(&["cluster", "--k", "2", "--json", "-"]);
    assert_eq!(output.status.code(), Some(0));
    let report: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("stdout is only JSON");
    assert_eq!(report["leaves"].as_array().map(Vec::len), Some(2));
    // The table went to standard error instead.
    assert!(String::from_utf8_lossy(&output.stderr).contains("leaf"));
}

#[test]
fn cluster_is_deterministic() {
    let args = [
        "cluster",
        "--k",
        "5",
        "--rule",
        "bisecting-kmeans",
        "--seed",
        "7",
        "--json",
        "-",
    ];
    let strip_timings = |bytes: &[u8]| {
        let mut value: serde_json::Value = serde_json::from_slice(bytes).expect("JSON");
        value["timings_ms"] = serde_json::Value::Null;
        value
    };
    let first = strip_timings(&run(&args).stdout);
    let second = strip_timings(&run(&args).stdout);
    assert_eq!(first, second);
}

#[test]
fn kernel_rule_options_are_checked_and_the_budget_refuses_in_one_line() {
    // The demo corpus has 223 documents: a kernel matrix of 223^2 x 8 bytes = 388.5 KiB, plus the 223 x 222 / 2
    // pairwise distances (193.4 KiB) the Gaussian kernel's median width is selected from: 581.9 KiB.
    common::assert_clean_failure(
        &run(&[
            "cluster",
            "--k",
            "3",
            "--rule",
            "kpddp",
            "--mem-budget",
            "1KiB",
        ]),
        &["581.9 KiB", "1.0 KiB", "memory budget"],
    );
    common::assert_clean_failure(
        &run(&["cluster", "--k", "3", "--rule", "kpddp", "--kernel", "rbf"]),
        &["--kernel \"rbf\""],
    );
    common::assert_clean_failure(
        &run(&[
            "cluster",
            "--k",
            "3",
            "--rule",
            "kpddp",
            "--mem-budget",
            "lots",
        ]),
        &["--mem-budget", "lots"],
    );
    common::assert_clean_failure(
        &run(&[
            "cluster",
            "--k",
            "3",
            "--rule",
            "spectral",
            "--laplacian",
            "x",
        ]),
        &["--laplacian"],
    );
    common::assert_clean_failure(
        &run(&[
            "cluster",
            "--k",
            "3",
            "--rule",
            "soft-kernel-kmeans",
            "--beta",
            "0",
        ]),
        &["--beta 0"],
    );
}

#[test]
fn spectral_refuses_a_kernel_with_negative_entries() {
    let dir = tempfile::tempdir().expect("temp dir");
    let points = dir.path().join("points.data");
    let rows: String = (0..20)
        .map(|i| {
            let x = (i as f64 - 9.5) / 3.0;
            format!("{x},{}\n", 1.0 - x)
        })
        .collect();
    std::fs::write(&points, rows).expect("write points");
    let path = points.to_string_lossy();
    let output = run(&[
        "cluster",
        "--k",
        "2",
        "--format",
        "numeric",
        "--rule",
        "spectral",
        "--kernel",
        "linear",
        "--no-cache",
        &path,
    ]);
    common::assert_clean_failure(&output, &["linear kernel", "non-negative similarities"]);
}

#[test]
fn kernel_rules_report_sigma_and_their_figures() {
    let output = run(&["cluster", "--k", "3", "--rule", "alignment", "--json", "-"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("kernel gaussian: sigma = ") && stderr.contains("median pairwise distance"),
        "{stderr}"
    );
    assert!(
        stderr.contains("kernel split of node 0: alignment ") && stderr.contains("(upper bound"),
        "{stderr}"
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let root = &report["tree"]["nodes"][0];
    assert_eq!(root["rule"], "alignment");
    assert_eq!(root["params"]["kernel"]["kernel"], "gaussian");
    let detail = &root["kernel_detail"];
    let alignment = detail["alignment"].as_f64().expect("alignment");
    let bound = detail["alignment_bound"].as_f64().expect("bound");
    assert!(alignment > 0.0 && alignment <= bound, "{detail}");
    assert!(detail["kernel_sigma"].as_f64().is_some(), "{detail}");
    assert_eq!(
        detail["child_kernel_scatters"].as_array().map(Vec::len),
        Some(2)
    );
}

#[test]
fn a_geodesic_kernel_reports_its_components_and_c_star() {
    // One neighbour per document cannot connect 223 documents: the graph falls apart, and pdx says so rather
    // than building a kernel of infinite distances.
    let output = run(&[
        "cluster",
        "--k",
        "2",
        "--rule",
        "soft-kernel-kmeans",
        "--kernel",
        "geodesic:1",
        "--json",
        "-",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("kernel split of node 0: geodesic graph: ")
            && stderr.contains("connected component(s), placed at twice"),
        "{stderr}"
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let detail = &report["tree"]["nodes"][0]["kernel_detail"];
    assert!(
        detail["kernel_components"].as_u64().unwrap_or(0) > 1,
        "{detail}"
    );
    let c_star = detail["kernel_c_star"].as_f64().expect("c*");
    assert!(c_star.is_finite() && c_star >= 0.0, "{detail}");
    assert_eq!(
        detail["child_kernel_scatters"].as_array().map(Vec::len),
        Some(2),
        "soft kernel k-means measures its children's kernel scatter"
    );
}

/// Three tight groups in the plane fill three of the four quadrants of the principal directions: PDDP(2) asked
/// for 4 leaves makes 3, and the report, the JSON's `notes` and standard error all say so.
#[test]
fn pddp_l_says_when_empty_orthants_make_fewer_leaves() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("groups.data");
    let mut rows = String::new();
    for (x, y) in [(-10.0, 0.0), (10.0, 0.0), (1.0, 3.0)] {
        for (dx, dy) in [(0.1, 0.0), (-0.1, 0.05), (0.0, -0.1), (0.05, 0.1)] {
            rows.push_str(&format!("{},{}\n", x + dx, y + dy));
        }
    }
    std::fs::write(&path, rows).expect("write");
    let json = dir.path().join("out.json");
    let output = run(&[
        "cluster",
        &path.to_string_lossy(),
        "--format",
        "numeric",
        "--k",
        "4",
        "--rule",
        "pddp",
        "--l",
        "2",
        "--json",
        &json.to_string_lossy(),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stdout.contains("Growing\n  asked for 4 leaves, made 3"),
        "{stdout}"
    );
    assert!(
        stderr.contains("note: asked for 4 leaves, made 3"),
        "{stderr}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json")).expect("parses");
    let notes = report["notes"].as_array().expect("a notes array");
    assert_eq!(notes.len(), 1);
    assert!(
        notes[0]
            .as_str()
            .is_some_and(|note| note.contains("1 of the 4 orthants")),
        "{notes:?}"
    );
}

/// `--select-terms mi:N` needs labels: a collection without any is refused in one line naming the file and the
/// way out; `--standardize` is refused for text the same way.
#[test]
fn term_selection_by_mutual_information_without_labels_and_standardised_text_are_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("plain.csv");
    std::fs::write(
        &path,
        "text\nhello world again\nworld again hello\nagain and again\n",
    )
    .expect("write");
    let name = path.to_string_lossy().into_owned();
    let refused = run(&[
        "cluster",
        &name,
        "--k",
        "2",
        "--select-terms",
        "mi:2",
        "--no-cache",
    ]);
    common::assert_clean_failure(&refused, &[&name, "needs labels", "df:N"]);
    let standardised = run(&["cluster", &name, "--k", "2", "--standardize", "--no-cache"]);
    common::assert_clean_failure(&standardised, &[&name, "--standardize", "text"]);
    let bad = run(&["cluster", &name, "--k", "2", "--select-terms", "mi:none"]);
    common::assert_clean_failure(&bad, &["--select-terms mi:none", "mi:N"]);
}
