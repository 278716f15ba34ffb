//! `pdx cluster`: grow a tree to K leaves with one rule and report the leaves, the metrics and the files asked for.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use pdx::cluster::rules::{DEFAULT_MEMORY_BUDGET, SplitEnv};
use pdx::cluster::{RuleSpec, Tree};
use pdx::linalg::kernel::KernelSpec;
use pdx::report::{
    self,
    export::{ExportFormat, ExportSource, FORMATS},
    summary::{self, BatchContext, WrittenFile},
};
use pdx::stats::Stats;

use super::corpus::CorpusArgs;
use super::flags::{MemorySize, memory_size};
use super::params::RuleArgs;

#[derive(Args, Debug)]
pub(crate) struct ClusterArgs {
    #[command(flatten)]
    corpus: CorpusArgs,
    #[command(flatten)]
    rule: RuleArgs,
    /// Leaves to grow (rules of 2^l-way splits with l > 1 make ceil((K-1)/(2^l-1)) splits, as in their paper).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..), help_heading = "Clustering")]
    k: u64,
    /// Largest kernel matrix a split may build (n^2 x 8 bytes), e.g. 512MiB, 8GiB.
    #[arg(long, value_parser = memory_size, default_value_t = MemorySize(DEFAULT_MEMORY_BUDGET), help_heading = "Kernels")]
    mem_budget: MemorySize,
    #[command(flatten)]
    outputs: Outputs,
    /// Print the short leaf table of earlier versions instead of the report (loading notes, leaves with their
    /// labels and words, confusion, figures, files written, legend).
    #[arg(long, help_heading = "Output")]
    brief: bool,
}

impl ClusterArgs {
    /// The rule the flags choose, its parameters checked by the library.
    fn rule(&self, leaves: usize) -> anyhow::Result<RuleSpec> {
        self.rule.spec(Some(leaves))
    }
}

/// The file outputs asked for: one flag per export format of the library, named after the format (`--json FILE`,
/// `--csv FILE`, ...), in the formats' order.
#[derive(Debug, Default)]
struct Outputs {
    /// The path given for each of [`FORMATS`], in its order.
    paths: Vec<Option<PathBuf>>,
}

impl Outputs {
    /// The formats asked for, each with its path, in the formats' order.
    fn asked(&self) -> impl Iterator<Item = (&'static ExportFormat, &Path)> {
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
fn flag(format: &ExportFormat) -> String {
    format!("--{}", format.name)
}

/// The path that means standard output.
fn is_stdout(path: &Path) -> bool {
    path == Path::new("-")
}

/// The output that goes to standard output, if any. Checked before any work: two outputs cannot share standard
/// output, and a file output that cannot be written (a folder, a missing folder, a disk device) is refused before
/// the clustering rather than after it.
fn check_outputs(args: &ClusterArgs) -> anyhow::Result<Option<&'static ExportFormat>> {
    let to_stdout: Vec<&ExportFormat> = args
        .outputs
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
    let files: Vec<(&ExportFormat, &Path)> = args
        .outputs
        .asked()
        .filter(|(_, path)| !is_stdout(path))
        .collect();
    for (at, &(output, path)) in files.iter().enumerate() {
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
                "{}: given to both {} and {}; one would replace the other",
                path.display(),
                flag(other),
                flag(output)
            );
        }
        // An output in place of an input, or below an input folder, would destroy or change the corpus.
        if let Some(input) = args
            .corpus
            .inputs()
            .find(|input| resolved.starts_with(self::resolved(input)))
        {
            anyhow::bail!(
                "{}: {} would write into the corpus ({}); write it elsewhere",
                path.display(),
                flag(output),
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
fn write_output(path: &Path, text: &str) -> anyhow::Result<()> {
    pdx::files::write_atomically(path, text.as_bytes())
        .map_err(|error| anyhow::anyhow!("{}: cannot write: {error}", path.display()))
}

pub(super) fn run(args: &ClusterArgs) -> anyhow::Result<()> {
    let k = usize::try_from(args.k).context("--k is too large")?;
    let rule = args.rule(k)?;
    let to_stdout = check_outputs(args)?;
    // The report lists the loading warnings itself; the brief table leaves them to standard error, as it did.
    let opened = if args.brief {
        args.corpus.open()?
    } else {
        args.corpus.open_quietly()?
    };
    let dataset = &opened.dataset;
    let start = std::time::Instant::now();
    let mut tree = Tree::for_dataset(dataset);
    let env = SplitEnv {
        texts: Some(dataset),
        labels: Some(dataset),
        progress: None,
        memory_budget: args.mem_budget.0,
        known: None,
    };
    let grown = tree.grow_in(&dataset.matrix, &rule, k, args.rule.select, env)?;
    let cluster_ms = start.elapsed().as_secs_f64() * 1000.0;

    let mut report = report::build(dataset, &tree);
    report.timings_ms.insert("load".into(), opened.timings.read);
    report.timings_ms.insert(
        "matrix".into(),
        opened.timings.tokenise + opened.timings.weight,
    );
    report.timings_ms.insert("cluster".into(), cluster_ms);

    report.notes = grown.notes(&rule);
    let mut notes: String = report
        .notes
        .iter()
        .map(|note| format!("note: {note}\n"))
        .collect();
    if let Some(
        kernel @ (KernelSpec::Gaussian { sigma: None } | KernelSpec::Rbf2 { sigma: None }),
    ) = rule.kernel()
    {
        let root_sigma = tree
            .node(tree.root())
            .and_then(|root| root.split.as_ref())
            .and_then(|split| split.detail.kernel_sigma);
        if let Some(sigma) = root_sigma {
            notes.push_str(&format!(
                "kernel {kernel}: sigma = {sigma:.4} (median pairwise distance of the root's documents; each \
                 split uses the median of its own node)\n"
            ));
        }
    }
    // Each kernel split measured its own quality figures (alignment, cut cost, geodesic components): one line each.
    for id in tree.depth_first() {
        let summary = tree
            .node(id)
            .and_then(|node| node.split.as_ref())
            .and_then(|split| split.detail.kernel_summary());
        if let Some(summary) = summary {
            notes.push_str(&format!("kernel split of node {id}: {summary}\n"));
        }
    }
    // Splits whose directions were approximated from a sample (`--sample`): say which, so nobody takes them for
    // exact ones.
    let mut sampled: Vec<(usize, String)> = tree
        .depth_first()
        .into_iter()
        .filter_map(|id| {
            Some((
                id,
                tree.node(id)?.split.as_ref()?.detail.sampling_summary()?,
            ))
        })
        .collect();
    sampled.sort_unstable();
    if let Some((_, summary)) = sampled.first() {
        let ids: Vec<String> = sampled.iter().map(|(id, _)| id.to_string()).collect();
        notes.push_str(&format!(
            "{summary}: the split(s) of node(s) {}; the other splits are exact\n",
            ids.join(", ")
        ));
    }
    let heading = format!(
        "{}: {} documents, rule {}, {} splits in {:.0} ms\n",
        dataset.source,
        dataset.documents.len(),
        rule.text(),
        grown.splits,
        cluster_ms
    );
    let html_settings = report::html::Settings {
        options: Some(args.corpus.options()?),
        rule: Some(rule.clone()),
    };
    let source = ExportSource {
        dataset,
        tree: &tree,
        report: &report,
        html: &html_settings,
    };
    // The files first, so that the report can name them all (a file that cannot be written stops the run before
    // anything is printed).
    let mut written = Vec::new();
    for (format, path) in args.outputs.asked().filter(|(_, path)| !is_stdout(path)) {
        write_output(path, &(format.write)(&source)?)?;
        written.push(WrittenFile {
            what: flag(format),
            place: path.display().to_string(),
        });
    }
    if let Some(format) = to_stdout {
        written.push(WrittenFile {
            what: flag(format),
            place: "to standard output".into(),
        });
    }
    let table = if args.brief {
        summary::brief_table(&report, &dataset.label_names)
    } else {
        let context = BatchContext {
            heading: heading.clone(),
            loading: summary::loading_notes(&Stats::of(&opened), &opened.warnings),
            files: written,
        };
        summary::batch_report(&report, &dataset.label_names, &context)
    };
    // The brief table follows the heading line; the report begins with it.
    let printed = if args.brief {
        format!("{heading}{table}")
    } else {
        table
    };
    // Standard output carries the report, or the output asked for there (the report then goes to stderr).
    let mut stdout = std::io::stdout().lock();
    match to_stdout {
        Some(format) => {
            eprint!("{printed}{notes}");
            let mut text = (format.write)(&source)?;
            if !text.ends_with('\n') {
                text.push('\n');
            }
            stdout
                .write_all(text.as_bytes())
                .with_context(|| format!("writing {} to standard output", flag(format)))?;
        }
        None => {
            write!(stdout, "{printed}")?;
            eprint!("{notes}");
        }
    }
    stdout.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use pdx::cluster::registry;
    use pdx::cluster::{Laplacian, Param, Params, SelectPolicy};

    use super::*;
    use crate::cli::flags::{is_switch, param_flag};

    /// Every parameter at a value other than its default.
    // The update is for a parameter added to the table later, which the list below does not name yet.
    #[allow(clippy::needless_update)]
    fn unusual() -> Params {
        Params {
            l: 3,
            tau: 0.35,
            trials: 7,
            seed: 42,
            k_way: 4,
            kernel: "poly:3:0.5".parse().expect("a kernel"),
            beta: 2.5,
            laplacian: Laplacian::Sym,
            normalise: false,
            cut_scan: pdx::cluster::CutScan::Ncut,
            min_side: 0.3,
            partial_labels: 0.4,
            c0: 2.5,
            sample: 8,
            ..stepped_defaults()
        }
    }

    /// Every parameter stepped once from its default as the rule picker steps it: in range and not the default, the
    /// values of the parameters `unusual` does not name (one added to the table since).
    fn stepped_defaults() -> Params {
        Param::ALL
            .into_iter()
            .fold(Params::default(), |mut params, param| {
                (param.stepper())(&mut params, true);
                params
            })
    }

    fn cluster_args(words: &[String]) -> ClusterArgs {
        let cli = crate::cli::Cli::try_parse_from(words).expect("the flags parse");
        match cli.command {
            Some(crate::cli::Command::Cluster(args)) => args,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn every_rule_round_trips_through_its_flags() {
        for rule in registry::all() {
            let mut words: Vec<String> = ["pdx", "cluster", "--k", "5", "--rule", rule.name]
                .map(String::from)
                .to_vec();
            for param in Param::ALL {
                words.push(param_flag(param));
                if !is_switch(param) {
                    words.push(param.value_text(&unusual()));
                }
            }
            let parsed = cluster_args(&words).rule(5).expect("a valid rule");
            let expected = RuleSpec::new(rule.name, &unusual()).expect("a valid rule");
            assert_eq!(parsed, expected, "{}", rule.name);
        }
    }

    #[test]
    fn the_flags_default_to_the_library_defaults() {
        let args = cluster_args(&["pdx", "cluster", "--k", "5"].map(String::from));
        assert_eq!(args.rule(5).expect("a rule"), RuleSpec::default());
        assert_eq!(args.rule.select, SelectPolicy::default());
        assert_eq!(args.mem_budget.0, DEFAULT_MEMORY_BUDGET);
        assert_eq!(
            args.corpus.options().expect("options"),
            pdx::dataset::DatasetOptions::default()
        );
        // A flat rule asks for as many groups as leaves unless told.
        let kmeans =
            cluster_args(&["pdx", "cluster", "--k", "7", "--rule", "kmeans"].map(String::from));
        assert_eq!(kmeans.rule(7).expect("a rule").params().k_way, 7);
    }
}
