//! Writing files so that nothing is lost: exports, sessions and cache entries replace their file in one step.

use std::io::Write;
use std::path::Path;

/// Write `bytes` to `path` so that readers see either the old file or the whole new one, never a part.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = dir.join(format!(".{file_name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&temporary)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&temporary, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("out.json");
        write_atomically(&path, b"first").expect("writes");
        write_atomically(&path, b"second").expect("replaces");
        assert_eq!(std::fs::read(&path).expect("reads"), b"second");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("lists")
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        // A folder that does not exist is an error, not a half-written file.
        assert!(write_atomically(&dir.path().join("missing/out.json"), b"x").is_err());
    }
}
