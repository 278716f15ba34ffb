//! The load cache on entries it must not trust: damaged, foreign, non-finite, truncated, lengthened, a FIFO or a
//! device. Each is a miss with one note and the statistics of a fresh load, never a wrong answer, an error or a
//! hang. A failed write says so, and the temporaries of interrupted writes are cleaned, and nothing else. The
//! folder is kept under its size bound, the least recently used entries removed first, and `pdx cache` lists and
//! clears it.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// How long a run may take before it counts as hung: far more than any of these runs needs, so that a hang
/// fails the test instead of blocking it forever.
const PATIENCE: Duration = Duration::from_secs(120);

/// A run of the `pdx` binary with its cache in `cache`.
fn pdx(cache: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pdx"));
    command.env("PDX_CACHE_DIR", cache);
    command.env_remove("RUST_BACKTRACE");
    command
}

/// Wait for `child`, killing it (and failing) when it outlives [`PATIENCE`].
fn finish(mut child: Child, what: &str) -> Output {
    // Drained on threads of their own, so that a full pipe cannot stall the child while we wait for it.
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let deadline = Instant::now() + PATIENCE;
    let status = loop {
        if let Some(status) = child.try_wait().expect("waits") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not finish within {PATIENCE:?}: it hangs");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: stdout.join().expect("stdout"),
        stderr: stderr.join().expect("stderr"),
    }
}

fn run(mut command: Command) -> Output {
    let what = format!("{command:?}");
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("pdx starts");
    finish(child, &what)
}

/// `pdx stats --json` of `args`: its JSON and its standard error.
fn stats_with(mut command: Command, args: &[&str]) -> (serde_json::Value, String) {
    command.args(["stats", "--json"]).args(args);
    let output = run(command);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(0), "{args:?}: {stderr}");
    let json = serde_json::from_slice(&output.stdout).expect("stats JSON");
    (json, stderr)
}

fn stats(cache: &Path, args: &[&str]) -> (serde_json::Value, String) {
    stats_with(pdx(cache), args)
}

/// The statistics without what may differ between two loads of the same corpus (times, the cache's use).
fn statistics(mut json: serde_json::Value) -> serde_json::Value {
    for field in ["timings_ms", "cache", "cache_file"] {
        json[field] = serde_json::Value::Null;
    }
    json
}

fn cache_file(json: &serde_json::Value) -> PathBuf {
    PathBuf::from(json["cache_file"].as_str().expect("a cache file"))
}

/// A small text corpus in `dir/name`: two label folders of a few documents.
fn text_corpus(dir: &Path, name: &str, words: &[&str]) -> String {
    let root = dir.join(name);
    for (label, offset) in [("first", 0), ("second", 1)] {
        std::fs::create_dir_all(root.join(label)).expect("mkdir");
        for document in 0..3 {
            let text: Vec<&str> = (0..12)
                .map(|i| words[(i * (document + 1) + offset) % words.len()])
                .collect();
            std::fs::write(
                root.join(label).join(format!("{document}.txt")),
                text.join(" "),
            )
            .expect("write");
        }
    }
    root.to_string_lossy().into_owned()
}

const WORDS: &[&str] = &[
    "orbit", "rocket", "launch", "moon", "bread", "butter", "oven", "flour", "yeast", "planet",
];

/// The corpus, its fresh statistics (the entry written), and its entry.
fn fresh_text_entry(cache: &Path, dir: &Path) -> (String, serde_json::Value, PathBuf) {
    let corpus = text_corpus(dir, "corpus", WORDS);
    let (fresh, _) = stats(cache, &["--min-df", "1", &corpus]);
    assert_eq!(fresh["cache"], "miss");
    let file = cache_file(&fresh);
    assert!(file.is_file(), "{file:?}");
    (corpus, fresh, file)
}

/// After the entry was tampered with: the next run is a miss with one note naming the entry, and the same
/// statistics as the fresh load; the run after it reads the rebuilt entry.
fn assert_refused_then_rebuilt(cache: &Path, args: &[&str], fresh: &serde_json::Value) {
    let (again, stderr) = stats(cache, args);
    assert_eq!(
        again["cache"], "miss",
        "a tampered entry was used: {stderr}"
    );
    let notes: Vec<&str> = stderr.lines().collect();
    assert_eq!(notes.len(), 1, "one note expected: {stderr}");
    assert!(
        notes[0].starts_with("pdx: warning: ")
            && notes[0].contains("cache entry")
            && notes[0].contains("rebuilt")
            && notes[0].contains(&*cache_file(fresh).to_string_lossy()),
        "{stderr}"
    );
    assert_eq!(statistics(again), statistics(fresh.clone()));
    let (third, stderr) = stats(cache, args);
    assert_eq!(third["cache"], "hit", "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    assert_eq!(statistics(third), statistics(fresh.clone()));
}

#[test]
fn a_flipped_byte_is_a_miss_with_the_statistics_of_a_fresh_load() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = dir.path().join("cache");
    let (corpus, fresh, file) = fresh_text_entry(&cache, dir.path());
    let original = std::fs::read(&file).expect("entry");
    // A letter of a document's text (a different text, still a valid entry to a reader that only decodes), and
    // the last byte of the matrix's values (the raw counts after them are verified only when a rebuild reads
    // them: tests/cache_mapped.rs).
    let in_text = original
        .windows(6)
        .position(|w| w == b"rocket")
        .expect("the text is in the entry");
    for position in [in_text + 2, matrix_values_end(&original) - 1] {
        let mut damaged = original.clone();
        damaged[position] ^= 0x01;
        std::fs::write(&file, &damaged).expect("damage");
        assert_refused_then_rebuilt(&cache, &["--min-df", "1", &corpus], &fresh);
    }
}

/// Where the matrix's values (an entry's third array) end, from the header's table: the format line, then
/// little-endian u64 fields (byte-order mark, key length, small length and checksum, array count), then each
/// array's offset, length and checksum.
fn matrix_values_end(entry: &[u8]) -> usize {
    let line = entry
        .iter()
        .position(|&b| b == b'\n')
        .expect("a format line")
        + 1;
    let field = |index: usize| {
        let at = line + 8 * index;
        u64::from_le_bytes(entry[at..at + 8].try_into().expect("8 bytes")) as usize
    };
    let values = 5 + 3 * 2;
    field(values) + field(values + 1)
}

#[test]
fn another_corpus_entry_under_this_key_is_a_miss() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = dir.path().join("cache");
    let (corpus, fresh, file) = fresh_text_entry(&cache, dir.path());
    let other = text_corpus(
        dir.path(),
        "other",
        &[
            "tea", "cup", "kettle", "leaf", "milk", "sugar", "pot", "brew", "steam",
        ],
    );
    let (other_stats, _) = stats(&cache, &["--min-df", "1", &other]);
    assert_ne!(other_stats["terms"], fresh["terms"]);
    std::fs::copy(cache_file(&other_stats), &file).expect("copy over");
    assert_refused_then_rebuilt(&cache, &["--min-df", "1", &corpus], &fresh);
}

#[test]
fn a_non_finite_value_is_a_miss_and_clustering_works() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = dir.path().join("cache");
    let rows: Vec<String> = (0..12)
        .map(|i| format!("{}.25,{}.75", i, 40 + 3 * (i % 4)))
        .collect();
    let corpus = dir.path().join("points.data");
    std::fs::write(&corpus, rows.join("\n") + "\n").expect("write");
    let corpus = corpus.to_string_lossy().into_owned();
    let args = ["--format", "numeric", corpus.as_str()];
    let (fresh, _) = stats(&cache, &args);
    let file = cache_file(&fresh);
    for value in [f64::NAN, f64::INFINITY] {
        let mut entry = std::fs::read(&file).expect("entry");
        let at = entry
            .windows(8)
            .position(|w| w == 3.25f64.to_le_bytes())
            .expect("the value is in the entry");
        entry[at..at + 8].copy_from_slice(&value.to_le_bytes());
        std::fs::write(&file, &entry).expect("inject");
        // Clustering from the entry works (it is refused and rebuilt), rather than failing on every rerun.
        let mut cluster = pdx(&cache);
        cluster
            .args(["cluster", "--k", "2", "--json", "-"])
            .args(args);
        let output = run(cluster);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        std::fs::write(&file, &entry).expect("inject again");
        assert_refused_then_rebuilt(&cache, &args, &fresh);
    }
}

#[test]
fn a_truncated_entry_is_a_miss() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = dir.path().join("cache");
    let (corpus, fresh, file) = fresh_text_entry(&cache, dir.path());
    let original = std::fs::read(&file).expect("entry");
    for length in [original.len() - 1, original.len() / 2, 10] {
        std::fs::write(&file, &original[..length]).expect("truncate");
        assert_refused_then_rebuilt(&cache, &["--min-df", "1", &corpus], &fresh);
    }
}

#[test]
fn an_entry_longer_than_its_header_says_is_a_miss() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = dir.path().join("cache");
    let (corpus, fresh, file) = fresh_text_entry(&cache, dir.path());
    let mut longer = std::fs::read(&file).expect("entry");
    longer.extend(std::iter::repeat_n(0u8, 4096));
    std::fs::write(&file, &longer).expect("lengthen");
    assert_refused_then_rebuilt(&cache, &["--min-df", "1", &corpus], &fresh);
}

#[cfg(unix)]
#[test]
fn a_fifo_as_the_entry_is_a_miss_and_nothing_blocks() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = dir.path().join("cache");
    let (corpus, fresh, file) = fresh_text_entry(&cache, dir.path());
    std::fs::remove_file(&file).expect("remove");
    let made = Command::new("mkfifo").arg(&file).status().expect("mkfifo");
    assert!(made.success());
    assert_refused_then_rebuilt(&cache, &["--min-df", "1", &corpus], &fresh);
}

/// `/dev/zero` as the entry (through a symbolic link) is refused unread. The run is held to 8 GB of address
/// space (`ulimit -v`), so that a reader that does read it fails instead of taking the machine's memory.
#[cfg(target_os = "linux")]
#[test]
fn a_device_as_the_entry_is_a_miss_and_is_not_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = dir.path().join("cache");
    let (corpus, fresh, file) = fresh_text_entry(&cache, dir.path());
    std::fs::remove_file(&file).expect("remove");
    std::os::unix::fs::symlink("/dev/zero", &file).expect("symlink");
    let mut limited = Command::new("sh");
    limited
        .args(["-c", "ulimit -v 8388608 && exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_pdx"))
        .env("PDX_CACHE_DIR", &cache)
        .env_remove("RUST_BACKTRACE");
    let (again, stderr) = stats_with(limited, &["--min-df", "1", &corpus]);
    assert_eq!(again["cache"], "miss", "{stderr}");
    assert!(stderr.contains("not a regular file"), "{stderr}");
    assert_eq!(statistics(again), statistics(fresh.clone()));
    // The rebuilt entry replaced the link, not /dev/zero.
    assert!(
        std::fs::symlink_metadata(&file)
            .expect("entry")
            .file_type()
            .is_file()
    );
}

#[test]
fn a_failed_write_says_so() {
    let dir = tempfile::tempdir().expect("temp dir");
    // A cache "folder" that is a file: nothing can be written below it, whoever runs the test (even root).
    let cache = dir.path().join("not-a-folder");
    std::fs::write(&cache, "a file").expect("write");
    let corpus = text_corpus(dir.path(), "corpus", WORDS);
    let (json, stderr) = stats(&cache, &["--min-df", "1", &corpus]);
    assert_eq!(json["cache"], "write-failed", "{stderr}");
    assert!(
        stderr.starts_with("pdx: warning: cache not written: ") && stderr.lines().count() == 1,
        "{stderr}"
    );
    let mut command = pdx(&cache);
    command.args(["stats", "--min-df", "1", &corpus]);
    let output = run(command);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("(cache not written)"), "{text}");
    assert!(!text.contains("(cache written)"), "{text}");
}

#[test]
fn stale_temporaries_are_cleaned_and_nothing_else() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = dir.path().join("cache");
    std::fs::create_dir_all(&cache).expect("mkdir");
    // A process that has ended: its temporaries are stale.
    let mut ended = Command::new(env!("CARGO_BIN_EXE_pdx"))
        .arg("--version")
        .stdout(Stdio::null())
        .spawn()
        .expect("starts");
    let dead = ended.id();
    ended.wait().expect("ends");
    let alive = std::process::id();
    let entry = "0123456789abcdef.pdxcache";
    let stale = [
        format!(".{entry}.pdx-{dead}-0.tmp"),
        format!(".{entry}.pdx-{dead}-7.tmp"),
    ];
    let kept = [
        // Being written by a live process right now.
        format!(".{entry}.pdx-{alive}-2.tmp"),
        // Not pdx's.
        format!(".{entry}.pdx-{dead}-7.tmp.keep"),
        format!(".{entry}.{dead}.tmp"),
        format!("{entry}.pdx-{dead}.tmp"),
        "notes.txt".to_string(),
        "x.tmp".to_string(),
    ];
    for name in stale.iter().chain(&kept) {
        std::fs::write(cache.join(name), "partial").expect("write");
    }
    // A folder so named is a temporary too (pdx writes output folders whole under such names): it goes, with what
    // is in it. A link so named is not one.
    let folder = format!(".{entry}.pdx-{dead}-8.tmp");
    std::fs::create_dir(cache.join(&folder)).expect("mkdir");
    std::fs::write(cache.join(&folder).join("docs-00000.parquet"), "partial").expect("write");
    let link = format!(".{entry}.pdx-{dead}-9.tmp");
    std::os::unix::fs::symlink("notes.txt", cache.join(&link)).expect("link");
    let corpus = text_corpus(dir.path(), "corpus", WORDS);
    let (json, stderr) = stats(&cache, &["--min-df", "1", &corpus]);
    assert_eq!(json["cache"], "miss", "{stderr}");
    for name in stale.iter().chain([&folder]) {
        assert!(!cache.join(name).exists(), "{name} was not cleaned");
    }
    for name in kept.iter().chain([&link]) {
        assert!(
            cache.join(name).symlink_metadata().is_ok(),
            "{name} was removed"
        );
    }
}

/// `pdx cache` with `args`: its standard output (it must succeed).
fn cache_command(cache: &Path, args: &[&str]) -> String {
    let mut command = pdx(cache);
    command.arg("cache").args(args);
    let output = run(command);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{args:?}: {stderr}");
    String::from_utf8(output.stdout).expect("UTF-8")
}

#[test]
fn the_cache_keeps_under_its_limit_removing_the_least_recently_used_and_is_listed_and_cleared() {
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = dir.path().join("cache");
    let corpora: Vec<String> = ["a", "b", "c"]
        .iter()
        .map(|name| text_corpus(dir.path(), name, WORDS))
        .collect();
    let entry = |corpus: &str, args: &[&str]| {
        let (json, _) = stats(&cache, &[&["--min-df", "1", corpus], args].concat());
        (
            json["cache"].as_str().map(str::to_string),
            cache_file(&json),
        )
    };
    let (_, first) = entry(&corpora[0], &[]);
    let (_, second) = entry(&corpora[1], &[]);
    let size = |path: &Path| std::fs::metadata(path).expect("an entry").len();
    // Room for two entries, not three.
    let limit = (size(&first) + size(&second) + size(&first) / 2).to_string();
    // Reading the first again makes the second the least recently used.
    assert_eq!(
        entry(&corpora[0], &["--cache-limit", &limit]).0.as_deref(),
        Some("hit")
    );
    let (use_third, third) = entry(&corpora[2], &["--cache-limit", &limit]);
    assert_eq!(use_third.as_deref(), Some("miss"));
    assert!(
        first.is_file() && third.is_file(),
        "the entries in use were kept"
    );
    assert!(
        !second.exists(),
        "the least recently used entry was not removed"
    );

    let listing = cache_command(&cache, &[]);
    let lines: Vec<&str> = listing.lines().collect();
    assert_eq!(lines.len(), 3, "{listing}");
    // Most recently used first, each naming the corpus it was made from.
    let canonical = |corpus: &str| {
        Path::new(corpus)
            .canonicalize()
            .expect("canonical")
            .to_string_lossy()
            .into_owned()
    };
    assert!(lines[0].ends_with(&canonical(&corpora[2])), "{listing}");
    assert!(lines[1].ends_with(&canonical(&corpora[0])), "{listing}");
    assert!(lines[2].starts_with("2 entries, "), "{listing}");

    // Entries used within the last day stay; then all go.
    assert!(
        cache_command(&cache, &["clear", "--older-than", "1d"]).starts_with("removed 0 entries")
    );
    assert!(cache_command(&cache, &["clear"]).starts_with("removed 2 entries"));
    assert!(!first.exists() && !third.exists());
    assert!(cache_command(&cache, &[]).starts_with("0 entries, 0 B in "));
}
