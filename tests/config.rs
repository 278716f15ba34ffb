//! The config file (`PDX_CONFIG`): its settings are defaults the flags override, its errors are one line naming the
//! file and line, and `--print-config` prints settings that read back as themselves.

mod common;

use std::path::Path;
use std::process::{Command, Output};

fn pdx(config: &Path, cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pdx"))
        .env("PDX_CONFIG", config)
        .env("PDX_CACHE_DIR", cache)
        .env_remove("RUST_BACKTRACE")
        .args(args)
        .output()
        .expect("pdx runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A config file of `body` in a fresh folder (which also holds the cache).
fn config(body: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("config.toml");
    std::fs::write(&path, body).expect("write");
    (dir, path)
}

#[test]
fn settings_apply_when_the_flag_is_not_given() {
    let (dir, path) = config("rule = \"pddp-oc\"\nk = 3\nweighting = \"tfc\"\n");
    let output = pdx(&path, dir.path(), &["cluster", "--brief"]);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        stdout.starts_with("demo: 223 documents, rule pddp-oc,"),
        "{stdout}"
    );
    assert!(stdout.contains("leaves 3,"), "{stdout}");
    let stats = text(&pdx(&path, dir.path(), &["stats"]).stdout);
    assert!(stats.contains("weighting   tfc"), "{stats}");
}

#[test]
fn a_flag_wins_over_the_config() {
    let (dir, path) = config("rule = \"pddp-oc\"\nk = 3\nno-stoplist = true\n");
    let output = pdx(
        &path,
        dir.path(),
        &["cluster", "--brief", "--k", "5", "--rule", "pddp"],
    );
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(
        stdout.starts_with("demo: 223 documents, rule pddp l=1,"),
        "{stdout}"
    );
    assert!(stdout.contains("leaves 5,"), "{stdout}");
    // A flag that excludes a setting wins too: --stoplist given, the config's no-stoplist stays out.
    let stoplist = dir.path().join("stop.txt");
    std::fs::write(&stoplist, "the\n").expect("write");
    let output = pdx(
        &path,
        dir.path(),
        &["stats", "--stoplist", &stoplist.to_string_lossy()],
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
}

#[test]
fn a_bad_value_names_its_line() {
    let (dir, path) = config("rule = \"pddp\"\n\nk = 0\n");
    let output = pdx(&path, dir.path(), &["cluster"]);
    common::assert_clean_failure(&output, &[&format!("{}:3: k = 0", path.display())]);
    let (dir, path) = config("# pdx\nweighting = \"zzz\"\n");
    common::assert_clean_failure(
        &pdx(&path, dir.path(), &["stats"]),
        &[&format!("{}:2: weighting = zzz", path.display())],
    );
    let (dir, path) = config("k = 3\nrule = [\n");
    common::assert_clean_failure(
        &pdx(&path, dir.path(), &["stats"]),
        &[&format!("{}:", path.display())],
    );
    let (dir, path) = config("[keys]\nsplit = \"x\"\n");
    common::assert_clean_failure(
        &pdx(&path, dir.path(), &["stats"]),
        &[&format!("{}:2: split: x is already export", path.display())],
    );
}

#[test]
fn an_unknown_key_names_its_line() {
    let (dir, path) = config("k = 3\nclusters = 4\n");
    common::assert_clean_failure(
        &pdx(&path, dir.path(), &["cluster"]),
        &[&format!(
            "{}:2: unknown setting \"clusters\"",
            path.display()
        )],
    );
    let (dir, path) = config("[keys]\nexplode = \"X\"\n");
    common::assert_clean_failure(
        &pdx(&path, dir.path(), &["stats"]),
        &[&format!(
            "{}:2: no command named \"explode\"",
            path.display()
        )],
    );
    // A missing config file named by PDX_CONFIG is an error too, not silently no config.
    let dir = tempfile::tempdir().expect("temp dir");
    common::assert_clean_failure(
        &pdx(&dir.path().join("none.toml"), dir.path(), &["stats"]),
        &["none.toml"],
    );
}

#[test]
fn print_config_round_trips() {
    let (dir, path) = config(
        "rule = \"kpddp\"\nk = 7\ntau = 0.35\n\n[keys]\nsplit = \"Z\"\nquit = [\"q\", \"ctrl-q\"]\n",
    );
    let output = pdx(&path, dir.path(), &["--print-config", "--min-df", "3"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let printed = text(&output.stdout);
    for line in [
        "rule = \"kpddp\"  # config file, line 1",
        "k = 7  # config file, line 2",
        "tau = 0.35  # config file, line 3",
        "min-df = 3  # flag",
        "max-df = 0.95  # default",
        "split = \"Z\"  # config file",
        "quit = [\"q\", \"ctrl-q\"]  # config file",
        "help = \"?\"  # default",
    ] {
        assert!(
            printed.lines().any(|l| l == line),
            "{line:?} not in\n{printed}"
        );
    }
    // What it printed, used as a config file, prints the same settings.
    let again = dir.path().join("again.toml");
    std::fs::write(&again, &printed).expect("write");
    let reprinted = text(&pdx(&again, dir.path(), &["--print-config"]).stdout);
    let values = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|line| !line.starts_with('#'))
            .map(|line| line.split("  #").next().unwrap_or(line).to_string())
            .collect()
    };
    assert_eq!(values(&printed), values(&reprinted));
}
