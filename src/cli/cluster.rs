//! `pdx cluster`: grow a tree to K leaves with one rule and report the leaves, the metrics and the files asked for.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use pdx::cluster::registry::{self, Children};
use pdx::cluster::rules::{DEFAULT_MEMORY_BUDGET, SplitEnv};
use pdx::cluster::{RuleSpec, Tree};
use pdx::linalg::kernel::KernelSpec;
use pdx::printable;
use pdx::report::{
    self,
    export::{ExportFormat, ExportSource},
    settings::Settings,
    summary::{self, BatchContext, WrittenFile},
};
use pdx::stats::Stats;

use super::corpus::{CorpusArgs, open_quietly};
use super::flags::{Given, MemorySize, memory_size};
use super::outputs::{Outputs, check_outputs, flag, is_stdout, write_output};
use super::params::{RuleArgs, SET_BY_FLAT_RULES};

#[derive(Args, Debug)]
pub(crate) struct ClusterArgs {
    // Which of the options below the command line gave. First, because the fields after it take their values
    // out of the parsed arguments as they are read.
    #[command(flatten)]
    given: Given,
    #[command(flatten)]
    corpus: CorpusArgs,
    /// Take the run's settings from FILE, the settings a JSON report (--json, or the TUI's x) or a session (w)
    /// records: the corpus, every option that made its matrix and what was changed in the TUI, the rule, --select,
    /// --k and --mem-budget. A flag given besides wins over the file; the config file does not.
    #[arg(long, value_name = "FILE", help_heading = "Clustering")]
    settings_from: Option<PathBuf>,
    #[command(flatten)]
    rule: RuleArgs,
    /// Leaves to grow (rules of 2^l-way splits with l > 1 make ceil((K-1)/(2^l-1)) splits, as in their paper).
    #[arg(
        long,
        value_parser = clap::value_parser!(u64).range(1..),
        required_unless_present = "settings_from",
        help_heading = "Clustering"
    )]
    k: Option<u64>,
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

/// The options of `pdx cluster` a settings file does not record: how the run reports and uses the cache, not what
/// it computes (the outputs are not settings either, nor settable by the config file).
const NOT_RECORDED: [&str; 3] = ["brief", "no-cache", "settings-from"];

/// Whether a settings file records the option of long name `long`: with `--settings-from`, the config file's
/// value for it is not used, so that a default set there does not change the run the file reproduces.
pub(crate) fn recorded_in_settings(long: &str) -> bool {
    !NOT_RECORDED.contains(&long)
}

impl ClusterArgs {
    /// The corpus flags of the run.
    pub(crate) fn corpus(&self) -> &CorpusArgs {
        &self.corpus
    }

    /// The rule the flags choose, its parameters checked by the library: over the rule a settings file
    /// recorded, when there is one, `--rule` and each parameter flag given replacing its name and values.
    fn rule(&self, leaves: usize, recorded: Option<&RuleSpec>) -> anyhow::Result<RuleSpec> {
        let name = match recorded {
            Some(rule) if !self.given.has("rule") => rule.name(),
            _ => self.rule.rule.as_str(),
        };
        let base = recorded
            .map(|rule| rule.params().clone())
            .unwrap_or_default();
        let mut params = self.rule.params.params_over(base)?;
        // A rule that makes a flat clustering in one split asks for as many groups as leaves, unless told: by its
        // flag, or by the file that recorded this rule for as many leaves.
        let flat = registry::find(name).is_some_and(|rule| rule.children == Children::Flat);
        let from_file = recorded.is_some_and(|rule| rule.name() == name) && !self.given.has("k");
        if flat && self.rule.params.given(SET_BY_FLAT_RULES).is_none() && !from_file {
            params.k_way = leaves.max(2);
        }
        Ok(RuleSpec::new(name, &params)?)
    }

    /// The run's settings: the flags', or those of the `--settings-from` file with each flag given in place of
    /// what the file says (the corpus paths too, when any are given).
    fn settings(&self) -> anyhow::Result<Settings> {
        let leaves = |k: u64| usize::try_from(k).context("--k is too large");
        let Some(file) = &self.settings_from else {
            let k = leaves(self.k.context("--k is required")?)?;
            return Ok(Settings {
                paths: self.corpus.paths.clone(),
                options: self.corpus.options()?,
                reweigh: None,
                rule: self.rule(k, None)?,
                policy: self.rule.select,
                k: Some(k),
                memory_budget: Some(self.mem_budget.0),
            });
        };
        let recorded = pdx::tui::session::read_settings(file).map_err(anyhow::Error::msg)?;
        let given = |id: &str| self.given.has(id);
        let (options, reweigh) =
            self.corpus
                .options_over(&recorded.options, recorded.reweigh.as_ref(), given)?;
        let k = match (self.k, recorded.k) {
            (Some(k), _) => leaves(k)?,
            (None, Some(k)) => k,
            (None, None) => anyhow::bail!(
                "{}: records no number of leaves (its tree was grown in the terminal interface); give --k",
                file.display()
            ),
        };
        let paths = match self.corpus.paths.is_empty() {
            true => recorded.paths.clone(),
            false => self.corpus.paths.clone(),
        };
        let memory_budget = match recorded.memory_budget {
            Some(budget) if !given("mem_budget") => budget,
            _ => self.mem_budget.0,
        };
        Ok(Settings {
            paths,
            options,
            reweigh,
            rule: self.rule(k, Some(&recorded.rule))?,
            policy: if given("select") {
                self.rule.select
            } else {
                recorded.policy
            },
            k: Some(k),
            memory_budget: Some(memory_budget),
        })
    }
}

/// The output that goes to standard output, if any (see [`check_outputs`]).
fn check_cluster_outputs(
    args: &ClusterArgs,
    settings: &Settings,
) -> anyhow::Result<Option<&'static ExportFormat>> {
    let inputs: Vec<&Path> = settings.inputs().collect();
    check_outputs(&args.outputs, &[], &inputs)
}

pub(super) fn run(args: &ClusterArgs) -> anyhow::Result<()> {
    let settings = args.settings()?;
    let k = settings.k.context("no number of leaves")?;
    let rule = &settings.rule;
    let to_stdout = check_cluster_outputs(args, &settings)?;
    let mut opened = open_quietly(&settings.paths, &settings.options, !args.corpus.no_cache)?;
    // The report lists the loading warnings itself; the brief table leaves them to standard error, as it did.
    if args.brief {
        for warning in &opened.warnings {
            super::warn(warning);
        }
    }
    // Only a settings file records changes made after loading.
    let rebuilt = settings.rebuilt(&opened.dataset).map_err(|error| {
        let file = args
            .settings_from
            .as_deref()
            .unwrap_or(Path::new("--settings-from"));
        anyhow::anyhow!(
            "{}: cannot rebuild the matrix the settings record: {error}",
            file.display()
        )
    })?;
    if let Some(rebuilt) = rebuilt {
        opened.dataset = rebuilt;
    }
    let dataset = &opened.dataset;
    let start = std::time::Instant::now();
    let mut tree = Tree::for_dataset(dataset);
    let env = SplitEnv {
        texts: Some(dataset),
        labels: Some(dataset),
        progress: None,
        memory_budget: settings.memory_budget.unwrap_or(args.mem_budget.0),
        known: None,
    };
    let grown = tree.grow_in(&dataset.matrix, rule, k, settings.policy, env)?;
    let cluster_ms = start.elapsed().as_secs_f64() * 1000.0;

    let mut report = report::build(dataset, &tree);
    report.timings_ms.insert("load".into(), opened.timings.read);
    report.timings_ms.insert(
        "matrix".into(),
        opened.timings.tokenise + opened.timings.weight,
    );
    report.timings_ms.insert("cluster".into(), cluster_ms);

    report.notes = grown.notes(rule);
    // What the matrix was made with, as the dataset holds it (the stop words added as they were applied).
    report.settings = Some(
        Settings {
            k: settings.k,
            memory_budget: settings.memory_budget,
            ..Settings::new(
                &settings.paths,
                &settings.options,
                dataset,
                rule,
                settings.policy,
            )
        }
        .with_absolute_paths(),
    );
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
        printable::escaped(&dataset.source),
        dataset.documents.len(),
        rule.text(),
        grown.splits,
        cluster_ms
    );
    let source = ExportSource {
        dataset,
        tree: &tree,
        report: &report,
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
            settings: report
                .settings
                .as_ref()
                .map(|settings| settings.rows(dataset))
                .unwrap_or_default(),
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
    // The report escapes what it quotes of the collection; this is the guard for whatever it did not foresee.
    let (printed, notes) = (
        printable::escaped_lines(&printed),
        printable::escaped_lines(&notes),
    );
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
                .write_all(super::for_stdout(&text).as_bytes())
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
    use pdx::cluster::{Laplacian, Param, Params};

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
            let parsed = cluster_args(&words).rule(5, None).expect("a valid rule");
            let expected = RuleSpec::new(rule.name, &unusual()).expect("a valid rule");
            assert_eq!(parsed, expected, "{}", rule.name);
        }
    }

    #[test]
    fn the_options_given_are_told_from_those_left_at_their_defaults() {
        let words = [
            "pdx",
            "cluster",
            "--settings-from",
            "run.json",
            "--weighting",
            "txc",
            "--l",
            "2",
            "--select",
            "size",
            "corpus",
        ];
        let args = cluster_args(&words.map(String::from));
        for id in ["settings_from", "weighting", "l", "select", "paths"] {
            assert!(args.given.has(id), "{id}");
        }
        for id in ["min_df", "stem", "rule", "k", "tau", "mem_budget"] {
            assert!(!args.given.has(id), "{id}");
        }
        // Over a recorded rule, only the parameters given replace its values.
        let recorded = RuleSpec::new(
            "pddp",
            &Params {
                l: 3,
                ..Params::default()
            },
        )
        .expect("a rule");
        let rule = args.rule(5, Some(&recorded)).expect("a rule");
        assert_eq!(rule.text(), "pddp l=2");
        let words = [
            "pdx",
            "cluster",
            "--settings-from",
            "run.json",
            "--seed",
            "9",
        ];
        let args = cluster_args(&words.map(String::from));
        let kmeans = RuleSpec::new(
            "kmeans",
            &Params {
                k_way: 4,
                ..Params::default()
            },
        )
        .expect("a rule");
        let rule = args.rule(4, Some(&kmeans)).expect("a rule");
        assert_eq!(
            (rule.name(), rule.params().k_way, rule.params().seed),
            ("kmeans", 4, 9)
        );
    }

    #[test]
    fn the_flags_default_to_the_library_defaults() {
        let args = cluster_args(&["pdx", "cluster", "--k", "5"].map(String::from));
        assert_eq!(args.rule(5, None).expect("a rule"), RuleSpec::default());
        assert_eq!(args.rule.select, pdx::cluster::SelectPolicy::default());
        assert_eq!(args.mem_budget.0, DEFAULT_MEMORY_BUDGET);
        assert_eq!(
            args.corpus.options().expect("options"),
            pdx::dataset::DatasetOptions::default()
        );
        // A flat rule asks for as many groups as leaves unless told.
        let kmeans =
            cluster_args(&["pdx", "cluster", "--k", "7", "--rule", "kmeans"].map(String::from));
        assert_eq!(kmeans.rule(7, None).expect("a rule").params().k_way, 7);
    }
}
