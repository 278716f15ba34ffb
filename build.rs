//! Embeds the demo corpus (`assets/demo`) in the binary: generates a table of (relative path, bytes) pairs, each
//! pulled in with `include_bytes!`, so that `pdx` with no argument works on a machine with nothing else.

use std::path::{Path, PathBuf};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.is_file() {
            out.push(path);
        }
    }
}

fn main() {
    let manifest =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let demo = manifest.join("assets").join("demo");
    println!("cargo:rerun-if-changed={}", demo.display());
    let mut files = Vec::new();
    collect(&demo, &mut files);
    // The demo's own README sits at the top, beside the topic folders; it describes the corpus and is not part of it.
    files.retain(|file| file.parent() != Some(demo.as_path()));
    files.sort();
    let mut table = String::from("&[\n");
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
        let relative = file
            .strip_prefix(&demo)
            .expect("files were found below the demo folder")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        table.push_str(&format!(
            "    ({relative:?}, include_bytes!({:?}) as &[u8]),\n",
            file.display().to_string()
        ));
    }
    table.push_str("]\n");
    let out =
        PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("demo_files.rs");
    std::fs::write(out, table).expect("OUT_DIR is writable");
}
