//! The crate's own source files, for the tests that read the code itself (its layers, its renames).

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, at any depth.
pub fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ reads") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}
