//! The file outputs of the batch commands (`pdx cluster`, `pdx replay`): one flag per export format of the
//! library (`--json FILE`, `--csv FILE`, ...), checked before any work and written atomically.

use std::path::{Path, PathBuf};

use pdx::report::export::{ExportFormat, FORMATS};

/// The file outputs asked for: one flag per export format of the library, named after the format (`--json FILE`,
/// `--csv FILE`, ...), in the formats' order.
#[derive(Debug, Default)]
pub(super) struct Outputs {
    /// The path given for each of [`FORMATS`], in its order.
    paths: Vec<Option<PathBuf>>,
}

impl Outputs {
    /// The formats asked for, each with its path, in the formats' order.
    pub(super) fn asked(&self) -> impl Iterator<Item = (&'static ExportFormat, &Path)> {
        FORMATS
            .iter()
            .zip(&self.paths)
            .filter_map(|(format, path)| Some((format, path.as_deref()?)))
    }
}

impl clap::Args for Outputs {
    fn augment_args(command: clap::Command) -> clap::Command {
        FORMATS.iter().fold(command, |command, format| {
            command.arg(
                clap::Arg::new(format.name)
                    .long(format.name)
                    .value_name("FILE")
                    .value_parser(clap::value_parser!(PathBuf))
                    .help(format!(
                        "Write {} to FILE, or to standard output with '-'",
                        format.description
                    ))
                    .help_heading("Output"),
            )
        })
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        Self::augment_args(command)
    }
}

impl clap::FromArgMatches for Outputs {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        Ok(Outputs {
            paths: FORMATS
                .iter()
                .map(|format| matches.get_one::<PathBuf>(format.name).cloned())
                .collect(),
        })
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

/// The flag of an export format: its name after `--`.
pub(super) fn flag(format: &ExportFormat) -> String {
    format!("--{}", format.name)
}

/// The path that means standard output.
pub(super) fn is_stdout(path: &Path) -> bool {
    path == Path::new("-")
}

/// The output that goes to standard output, if any. Checked before any work: two outputs cannot share standard
/// output, and a file output that cannot be written (a folder, a missing folder, a disk device) is refused before
/// the work rather than after it. `others` are the command's other file outputs, each with its flag (they never go
/// to standard output); `inputs` every file or folder the run reads, which no output may replace or write into.
pub(super) fn check_outputs<'a>(
    outputs: &'a Outputs,
    others: &[(&str, &'a Path)],
    inputs: &[&Path],
) -> anyhow::Result<Option<&'static ExportFormat>> {
    let to_stdout: Vec<&ExportFormat> = outputs
        .asked()
        .filter(|(_, path)| is_stdout(path))
        .map(|(format, _)| format)
        .collect();
    if let [first, second, ..] = to_stdout[..] {
        anyhow::bail!(
            "{} - and {} -: only one output can go to standard output; give the other a file",
            flag(first),
            flag(second)
        );
    }
    let files: Vec<(String, &Path)> = outputs
        .asked()
        .filter(|(_, path)| !is_stdout(path))
        .map(|(format, path)| (flag(format), path))
        .chain(others.iter().map(|&(flag, path)| (flag.to_string(), path)))
        .collect();
    for (at, (output, path)) in files.iter().enumerate() {
        pdx::files::check_writable(path)
            .map_err(|error| anyhow::anyhow!("{}: cannot write: {error}", path.display()))?;
        let resolved = resolved(path);
        // Two outputs may share a device or a pipe (`/dev/null`), not a file.
        let is_stream = std::fs::metadata(path).is_ok_and(|metadata| !metadata.is_file());
        if let Some((other, _)) = files[..at]
            .iter()
            .find(|(_, earlier)| !is_stream && self::resolved(earlier) == resolved)
        {
            anyhow::bail!(
                "{}: given to both {other} and {output}; one would replace the other",
                path.display()
            );
        }
        // An output in place of an input, or below an input folder, would destroy or change the corpus.
        if let Some(input) = inputs
            .iter()
            .find(|input| resolved.starts_with(self::resolved(input)))
        {
            anyhow::bail!(
                "{}: {output} would write into the corpus ({}); write it elsewhere",
                path.display(),
                input.display()
            );
        }
    }
    Ok(to_stdout.first().copied())
}

/// `path` with its links followed, as far as it exists: two names of one file (or of a file and the folder
/// holding it) resolve alike.
fn resolved(path: &Path) -> PathBuf {
    if let Ok(path) = path.canonicalize() {
        return path;
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => {
            let parent = if parent.as_os_str().is_empty() {
                Path::new(".")
            } else {
                parent
            };
            resolved(parent).join(name)
        }
        _ => path.to_path_buf(),
    }
}

/// Write `text` to `path` (through a link, a pipe or a device; a file is replaced in one step), naming the file in
/// any error. The error holds the message only, so that the OS's text shows once.
pub(super) fn write_output(path: &Path, text: &str) -> anyhow::Result<()> {
    pdx::files::write_atomically(path, text.as_bytes())
        .map_err(|error| anyhow::anyhow!("{}: cannot write: {error}", path.display()))
}
