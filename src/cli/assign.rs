//! `pdx assign`: route new documents down the tree a session keeps (each split's own out-of-sample rule, in the
//! library's `cluster::assign`) and report each one's leaf, path, margins and fit.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use pdx::cluster::assign;
use pdx::cluster::rules::{DEFAULT_MEMORY_BUDGET, SplitEnv};
use pdx::corpus::Format;
use pdx::printable;
use pdx::report::assign::{self as assigned, AssignedRow};

use super::flags::choice;

#[derive(Args, Debug)]
pub(crate) struct AssignArgs {
    /// The session (saved in the TUI with w) whose tree takes the new documents; its corpus is loaded again with
    /// the options it records, and the new documents are weighted with that corpus's terms and global weights.
    #[arg(long, value_name = "FILE")]
    session: PathBuf,
    /// The new documents: files, folders, JSONL, CSV, ... as pdx reads any corpus (with the session's reading
    /// options).
    #[arg(required = true, value_name = "NEW")]
    paths: Vec<PathBuf>,
    /// The new documents' format; auto picks one per path.
    #[arg(long, value_parser = choice::<Format>(), default_value = "auto", help_heading = "Reading")]
    format: Format,
    /// Write the rows as CSV to FILE (a new file: an existing one is never replaced).
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    csv: Option<PathBuf>,
    /// Write the rows as JSON to FILE (a new file: an existing one is never replaced).
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    json: Option<PathBuf>,
    /// Neither read nor write the load cache for the session's corpus.
    #[arg(long)]
    no_cache: bool,
}

/// Refuse an output that exists already, or that cannot be written, before any work.
fn check_new(flag: &str, path: &Path) -> anyhow::Result<()> {
    if path.symlink_metadata().is_ok() {
        anyhow::bail!(
            "{}: {flag} would replace an existing file; give a new name",
            path.display()
        );
    }
    pdx::files::check_writable(path)
        .map_err(|error| anyhow::anyhow!("{}: cannot write: {error}", path.display()))
}

fn write_new(path: &Path, text: &str) -> anyhow::Result<()> {
    pdx::files::write_new(path, text.as_bytes())
        .map_err(|error| anyhow::anyhow!("{}: cannot write: {error}", path.display()))
}

pub(super) fn run(args: &AssignArgs) -> anyhow::Result<()> {
    let outputs: Vec<(&str, &PathBuf)> = [("--csv", &args.csv), ("--json", &args.json)]
        .into_iter()
        .filter_map(|(flag, path)| Some((flag, path.as_ref()?)))
        .collect();
    for (flag, path) in &outputs {
        check_new(flag, path)?;
    }
    if let [(_, a), (_, b)] = outputs[..]
        && a == b
    {
        anyhow::bail!("{}: given to both --csv and --json", a.display());
    }
    let reopened =
        pdx::tui::session::reopen(&args.session, !args.no_cache).map_err(anyhow::Error::msg)?;
    for warning in &reopened.warnings {
        super::warn(warning);
    }
    let dataset = &reopened.dataset;
    let mut load = reopened.settings.options.load.clone();
    load.format = args.format;
    let incoming = dataset
        .weigh_incoming(&args.paths, &load, &reopened.settings.options)
        .map_err(|error| {
            let first = args
                .paths
                .first()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            match error {
                // The corpus errors name their file already.
                pdx::dataset::IncomingError::Corpus(error) => anyhow::Error::new(error),
                other => anyhow::anyhow!("{first}: {other}"),
            }
        })?;
    let env = SplitEnv {
        texts: Some(dataset),
        memory_budget: reopened
            .settings
            .memory_budget
            .unwrap_or(DEFAULT_MEMORY_BUDGET),
        ..SplitEnv::default()
    };
    let routes = assign::assign(&reopened.tree, &dataset.matrix, &incoming.matrix, env)
        .map_err(|error| anyhow::anyhow!("{}: {error}", args.session.display()))?;
    let rows: Vec<AssignedRow> =
        assigned::rows(dataset, &reopened.tree, &incoming.documents, &routes);
    if let Some(path) = &args.csv {
        write_new(path, &assigned::to_csv(&rows))?;
    }
    if let Some(path) = &args.json {
        let json = assigned::to_json(&rows)
            .map_err(|error| anyhow::anyhow!("{}: cannot write JSON: {error}", path.display()))?;
        write_new(path, &json)?;
    }
    let mut stdout = std::io::stdout().lock();
    // The table escapes what it quotes of the collection; this is the guard for whatever it did not foresee.
    write!(
        stdout,
        "{}",
        printable::escaped_lines(&assigned::table(&rows))
    )?;
    for (flag, path) in &outputs {
        writeln!(
            stdout,
            "{flag} written to {}",
            printable::escaped(&path.display().to_string())
        )?;
    }
    stdout.flush()?;
    Ok(())
}
