//! The demo corpus embedded in the binary (`assets/demo`, see its README): 223 documents of two or three paragraphs
//! written for pdx, in 6 topics with 2-3 sub-topics each, in folders `topic/subtopic`: labelled by topic, or by
//! sub-topic with a label depth of 2, as any folder is.

use crate::corpus::FolderEntry;

/// The name the demo corpus goes by in reports and document ids.
pub(crate) const DEMO_NAME: &str = "demo";

/// (path below `assets/demo`, contents) of every embedded file, sorted by path.
pub(crate) const DEMO_FILES: &[(&str, &[u8])] =
    include!(concat!(env!("OUT_DIR"), "/demo_files.rs"));

/// The demo files as folder entries, ready for [`crate::corpus::load_entries`].
pub(crate) fn demo_entries() -> Vec<FolderEntry> {
    DEMO_FILES
        .iter()
        .map(|(path, bytes)| FolderEntry {
            components: path.split('/').map(str::to_string).collect(),
            path: None,
            bytes: Ok(bytes.to_vec()),
        })
        .collect()
}
