//! A folder tree read in runs of its files, one run per machine of a distributed load: each run read as a load of
//! the whole tree reads it (the same ids, labels and texts), by the same code.

use std::path::Path;

use super::folder::FolderFiles;
use super::source::Stream;
use super::{
    CorpusError, Format, LoadOptions, LoadReport, Loaded, Streamed, TextSink, detect, folder,
};
use crate::input::{self, InputKind};

/// The files of the folder tree `path` in the order [`super::load`] reads them, when [`super::load`] reads `path` as a folder
/// tree (a folder in [`Format::Folder`], chosen or detected); `None` when it reads it otherwise (a file, a
/// Reuters or SMART folder). For a distributed load, whose machines each read a run of a tree's files
/// ([`load_folder_files`]).
pub fn walk_folder_tree(
    path: &Path,
    options: &LoadOptions,
) -> Result<Option<FolderFiles>, CorpusError> {
    options.check()?;
    if !path.exists() {
        return Err(CorpusError::NotFound {
            path: path.to_path_buf(),
        });
    }
    let kind = input::kind_of(path).map_err(|error| CorpusError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    if kind != InputKind::Folder {
        return Ok(None);
    }
    let format = match options.format {
        Format::Auto => detect::detect_folder(path)?,
        chosen => chosen,
    };
    if format != Format::Folder {
        return Ok(None);
    }
    folder::walk(path, &mut LoadReport::default()).map(Some)
}

/// Read `files` (a tree's walk, or a run of it) as [`super::load_streaming`] reads them within the whole tree, handing
/// their texts to `sink` chunk by chunk from chunk 0. Ids are left as the files give them: making them unique is
/// the whole collection's business ([`super::make_ids_unique`]).
pub fn load_folder_files(
    files: FolderFiles,
    options: &LoadOptions,
    sink: &dyn TextSink,
) -> Result<Streamed, CorpusError> {
    options.check()?;
    let stream = Stream::new(sink);
    let mut sources = Vec::new();
    let mut report = LoadReport::default();
    let documents = folder::read_files(
        files,
        options,
        &mut sources,
        Some(&stream),
        &mut report,
        None,
    )?;
    Ok(Streamed {
        loaded: Loaded::Text(documents),
        sources,
        report,
    })
}
