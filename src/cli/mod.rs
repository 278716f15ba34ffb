//! The command line: the flags, and what each command does with them. The only place (with the TUI) that knows a
//! flag's name; library errors come back through [`flags::describe`] to read in flags.

mod assign;
#[cfg(target_os = "linux")]
mod bus_error;
mod cache;
mod cluster;
pub(crate) mod config;
mod corpus;
mod exchange;
pub(crate) mod flags;
mod outputs;
pub(crate) mod params;
mod replay;
mod signals;
mod terminal;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::Context;
use clap::{Parser, Subcommand};
use pdx::cluster::rules::DEFAULT_MEMORY_BUDGET;
use pdx::printable;
use pdx::stats::Stats;

use corpus::CorpusArgs;
use flags::{MemorySize, memory_size};
use pdx::tui;

#[derive(Parser, Debug)]
#[command(
    name = "pdx",
    version,
    about = "pdx, the principal direction explorer: grow and inspect divisive cluster trees of document collections",
    args_conflicts_with_subcommands = true
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
    #[command(flatten)]
    corpus: CorpusArgs,
    /// Reopen a session saved in the TUI (w): its corpus, options, rule and tree.
    #[arg(long, value_name = "FILE")]
    session: Option<PathBuf>,
    // Not defaulted here, so that a run that cannot use it (standard output not a terminal) knows it was given.
    #[arg(long, value_parser = memory_size, help = mem_budget_help(), help_heading = "Kernels")]
    mem_budget: Option<MemorySize>,
    #[command(flatten)]
    rule: params::RuleArgs,
    /// Leaves the auto-split prompt (a) offers first; flat rules also make as many groups.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..), help_heading = "Clustering")]
    k: Option<u64>,
    /// Explore as if the corpus had no labels: hide labels, purity, entropy, NMI and the confusion view (b in the
    /// TUI shows them again).
    #[arg(long)]
    hide_labels: bool,
    /// Print the settings in effect (each option's value and whether it comes from the default, the config file
    /// or a flag, and the TUI's keys) as TOML a config file can hold, and exit. The config file is
    /// $XDG_CONFIG_HOME/pdx/config.toml, or the file PDX_CONFIG names.
    #[arg(long)]
    print_config: bool,
}

/// The help of the TUI's `--mem-budget`, with its default (which clap shows only for defaulted flags).
fn mem_budget_help() -> String {
    format!(
        "Largest kernel matrix a kernel split in the TUI may build (n^2 x 8 bytes), e.g. 512MiB, 8GiB [default: {}]",
        MemorySize(DEFAULT_MEMORY_BUDGET)
    )
}

// Parsed once per run: the size of the larger variant costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// Print what a corpus becomes: documents, terms, non-zeros, labels, what was skipped, phase times.
    Stats {
        #[command(flatten)]
        corpus: CorpusArgs,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        outputs: exchange::MatrixOutputs,
    },
    /// Grow a cluster tree to K leaves with one rule and report the leaves and the metrics.
    Cluster(cluster::ClusterArgs),
    /// Route new documents down the tree a session keeps: each one's leaf, path, margins and whether it fits.
    Assign(assign::AssignArgs),
    /// List the load cache's entries (last used, size, inputs); `pdx cache clear` removes them.
    Cache(cache::CacheArgs),
    /// Make the steps of a terminal session (the steps file x exports) again on a collection, the same or an
    /// updated one; report what became of each and what moved, and write the tree as cluster does.
    Replay(replay::ReplayArgs),
}

fn print_stats(
    corpus: &CorpusArgs,
    json: bool,
    outputs: &exchange::MatrixOutputs,
) -> anyhow::Result<()> {
    outputs.check(&corpus.paths)?;
    let opened = corpus.open()?;
    outputs.write(&opened.dataset)?;
    let stats = Stats::of(&opened);
    let mut stdout = std::io::stdout().lock();
    if json {
        let text = serde_json::to_string(&stats).context("writing JSON")?;
        writeln!(stdout, "{}", for_stdout(&text))?;
    } else {
        // The text escapes what it quotes of the collection; this is the guard for whatever it did not foresee.
        write!(stdout, "{}", printable::escaped_lines(&stats.to_text()))?;
    }
    Ok(())
}

/// A file's text (JSON, CSV, ...) as it goes to standard output: as it is into a pipe or a file, where a program
/// reads it, made printable on a terminal, where a person does and the terminal would act on what it holds.
fn for_stdout(text: &str) -> std::borrow::Cow<'_, str> {
    match std::io::stdout().is_terminal() {
        true => printable::escaped_lines(text),
        false => std::borrow::Cow::Borrowed(text),
    }
}

/// A warning of the library's on standard error, one line made printable (it may name a file of the collection).
fn warn(warning: &str) {
    eprintln!("pdx: warning: {}", printable::escaped(warning));
}

/// Run the command the arguments name.
/// `keys` is the TUI's key table, as the config file remapped it; `configured` names the options the config file
/// set (the command line did not give them).
pub(crate) fn run(
    cli: Cli,
    keys: tui::keymap::KeyMap,
    configured: &[String],
) -> anyhow::Result<()> {
    match cli.command {
        Some(Command::Stats {
            corpus,
            json,
            outputs,
        }) => {
            corpus.apply_cache_limit();
            print_stats(&corpus, json, &outputs)
        }
        Some(Command::Cluster(args)) => {
            args.corpus().apply_cache_limit();
            cluster::run(&args)
        }
        Some(Command::Assign(args)) => assign::run(&args),
        Some(Command::Cache(args)) => cache::run(&args),
        Some(Command::Replay(args)) => replay::run(&args),
        // On a terminal, open the collection in the TUI; otherwise (a pipe, a test) print its statistics.
        None if std::io::stdout().is_terminal() => {
            let (source, options) = tui_inputs(cli, keys)?;
            terminal::run(source, options)
        }
        None => {
            // The statistics use none of the TUI's options: one the command line gave is refused rather than
            // ignored (one the config file set is for the TUI, and stays quiet here). The rule's flags have
            // defaults, so they cannot tell given from not: they go unused.
            let given = [
                ("session", cli.session.is_some()),
                ("mem-budget", cli.mem_budget.is_some()),
                ("hide-labels", cli.hide_labels),
                ("k", cli.k.is_some()),
            ];
            if let Some((flag, _)) = given
                .iter()
                .find(|(flag, given)| *given && !configured.iter().any(|c| c == flag))
            {
                anyhow::bail!(
                    "--{flag} is for the terminal interface, and standard output is not a terminal (without \
                     one, pdx prints the corpus statistics)"
                )
            }
            cli.corpus.apply_cache_limit();
            print_stats(&cli.corpus, false, &exchange::MatrixOutputs::default())
        }
    }
}

/// What the TUI opens and starts with, from the command line (and the config file's settings in it).
fn tui_inputs(
    cli: Cli,
    keys: tui::keymap::KeyMap,
) -> anyhow::Result<(tui::session::Source, terminal::Options)> {
    let source = tui::session::Source {
        paths: cli.corpus.paths.clone(),
        options: cli.corpus.options()?,
        use_cache: !cli.corpus.no_cache,
    };
    let leaves = cli
        .k
        .map(usize::try_from)
        .transpose()
        .context("--k is too large")?;
    let options = terminal::Options {
        session_file: cli.session,
        memory_budget: cli.mem_budget.map_or(DEFAULT_MEMORY_BUDGET, |size| size.0),
        hide_labels: cli.hide_labels,
        rule: cli.rule.spec(leaves)?,
        params: cli.rule.params(leaves)?,
        policy: cli.rule.select,
        leaves,
        keys,
        cache_limit: cli.corpus.cache_limit.map(|size| size.0),
    };
    Ok((source, options))
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::Cli;

    #[test]
    fn the_hide_labels_flag_is_parsed() {
        let cli = Cli::try_parse_from(["pdx", "--hide-labels", "corpus"]).expect("parses");
        assert!(cli.hide_labels);
    }
}
