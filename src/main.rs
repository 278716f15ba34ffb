//! The `pdx` command: parses the command line, runs a batch command or (with no command) opens a collection.
//! Errors are printed as one line naming the file, with exit code 2.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Parser, Subcommand, ValueEnum};

use pdx::cluster::rules::SplitEnv;
use pdx::cluster::{KernelParams, Laplacian, RuleParams, RuleSpec, SelectPolicy, Tree};
use pdx::corpus::{Format, LoadOptions, MissingPolicy, ReutersSplit};
use pdx::dataset::{self, DatasetOptions, Opened};
use pdx::linalg::kernel::KernelError;
use pdx::report;
use pdx::stats::Stats;
use pdx::text::{StoplistChoice, TextOptions};
use pdx::weighting::Weighting;

mod tui;

#[derive(Parser, Debug)]
#[command(
    name = "pdx",
    version,
    about = "pdx, the principal direction explorer: grow and inspect divisive cluster trees of document collections",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    corpus: CorpusArgs,
    /// Reopen a session saved in the TUI (w): its corpus, options, rule and tree.
    #[arg(long, value_name = "FILE")]
    session: Option<PathBuf>,
    /// Largest kernel matrix a kernel split in the TUI may build (n^2 x 8 bytes), e.g. 512MiB, 8GiB.
    #[arg(long, default_value = "4GiB", help_heading = "Kernels")]
    mem_budget: String,
}

// Parsed once per run: the size of the larger variant costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand, Debug)]
enum Command {
    /// Print what a corpus becomes: documents, terms, non-zeros, labels, what was skipped, phase times.
    Stats {
        #[command(flatten)]
        corpus: CorpusArgs,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Grow a cluster tree to K leaves with one rule and report the leaves and the metrics.
    Cluster(ClusterArgs),
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum SelectArg {
    /// The leaf of largest scatter (the papers' choice).
    Scatter,
    /// The largest leaf.
    Size,
    /// The leaf of largest scatter per member.
    Variance,
}

#[derive(Args, Debug)]
struct ClusterArgs {
    #[command(flatten)]
    corpus: CorpusArgs,
    /// Split rule: pddp, pddp-2means, pddp-oc, pddp-oc-2means, pddp-ocpc, pdgp, bisecting-kmeans, kmeans; kernel
    /// rules: kpddp, kpddp-2means, kpddp-ocpc, kernel-kmeans, soft-kernel-kmeans, alignment, cut-cost, spectral.
    #[arg(long, default_value = "pddp", help_heading = "Clustering")]
    rule: String,
    /// Leaves to grow (PDDP(l) with l > 1 makes ceil((K-1)/(2^l-1)) splits, as in its paper).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..), help_heading = "Clustering")]
    k: u64,
    /// Principal directions per split for pddp, pddp-ocpc, kpddp and kpddp-ocpc (1..8).
    #[arg(long, default_value_t = 1, help_heading = "Clustering")]
    l: usize,
    /// PDGP fringe tolerance: the share of projections ignored at the two ends, in [0, 1).
    #[arg(
        long,
        default_value_t = 0.2,
        allow_negative_numbers = true,
        help_heading = "Clustering"
    )]
    tau: f64,
    /// Random starts per split for bisecting-kmeans, kmeans, kernel-kmeans and spectral's k-means.
    #[arg(long, default_value_t = 5, help_heading = "Clustering")]
    trials: usize,
    /// Seed of the randomised rules.
    #[arg(long, default_value_t = 1, help_heading = "Clustering")]
    seed: u64,
    /// Groups per kmeans split [default: K, i.e. flat k-means]; per kernel-kmeans, soft-kernel-kmeans and
    /// spectral split [default: 2, bisecting].
    #[arg(long, help_heading = "Clustering")]
    k_way: Option<usize>,
    /// Kernel of the kernel rules: linear, poly:D[:C], gaussian[:SIGMA] (default SIGMA: the median pairwise
    /// distance of the node), cosine, geodesic:K[:euclid|cosine], string:spectrum:N, string:boundrange:N.
    #[arg(long, default_value = "gaussian", help_heading = "Kernels")]
    kernel: String,
    /// Stiffness of soft-kernel-kmeans (> 0).
    #[arg(long, default_value_t = pdx::cluster::DEFAULT_BETA, help_heading = "Kernels")]
    beta: f64,
    /// Laplacian of spectral.
    #[arg(long, value_enum, default_value = "rw", help_heading = "Kernels")]
    laplacian: LaplacianArg,
    /// Largest kernel matrix a split may build (n^2 x 8 bytes), e.g. 512MiB, 8GiB.
    #[arg(long, default_value = "4GiB", help_heading = "Kernels")]
    mem_budget: String,
    /// Which leaf to split next.
    #[arg(
        long,
        value_enum,
        default_value = "scatter",
        help_heading = "Clustering"
    )]
    select: SelectArg,
    /// Write the JSON report to FILE, or to standard output with '-'.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    json: Option<PathBuf>,
    /// Write document id, leaf and node path as CSV.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    csv: Option<PathBuf>,
    /// Write the tree in Newick format.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    newick: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum LaplacianArg {
    /// L = D - K.
    Unnormalized,
    /// L_sym = I - D^-1/2 K D^-1/2.
    Sym,
    /// L_rw = I - D^-1 K.
    Rw,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum FormatArg {
    Auto,
    Folder,
    Csv,
    Tsv,
    Jsonl,
    Reuters,
    Smart,
    Numeric,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum SplitArg {
    All,
    Modapte,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum MissingArg {
    Error,
    Zero,
    Drop,
}

/// Where the corpus is and how it becomes a matrix: shared by every command.
#[derive(Args, Debug, Clone)]
struct CorpusArgs {
    /// Files or folders read as one corpus (labels merge by name). None: the embedded demo corpus.
    paths: Vec<PathBuf>,

    /// Input format; auto picks one per path.
    #[arg(long, value_enum, default_value = "auto", help_heading = "Reading")]
    format: FormatArg,
    /// Folder layout: labels are made of this many leading sub-folder names.
    #[arg(long, default_value_t = 1, help_heading = "Reading")]
    label_depth: usize,
    /// Drop an RFC-822 header block (news posts, mail), keeping the Subject: text.
    #[arg(long, help_heading = "Reading")]
    strip_headers: bool,
    /// CSV/TSV: the text column [default: text].
    #[arg(long, value_name = "NAME", help_heading = "Reading")]
    text_col: Option<String>,
    /// CSV/TSV: the label column name [default: label, if present]. Numeric: first, last, N or none
    /// [default: a text column at either end].
    #[arg(long, value_name = "NAME", help_heading = "Reading")]
    label_col: Option<String>,
    /// CSV/TSV: the id column [default: id, if present]. Numeric: first, last, N or none.
    #[arg(long, value_name = "NAME", help_heading = "Reading")]
    id_col: Option<String>,
    /// CSV/TSV: the title column [default: title, if present].
    #[arg(long, value_name = "NAME", help_heading = "Reading")]
    title_col: Option<String>,
    /// Reuters: which documents to keep.
    #[arg(long, value_enum, default_value = "all", help_heading = "Reading")]
    split: SplitArg,
    /// Reuters: keep only documents with exactly one topic.
    #[arg(long, help_heading = "Reading")]
    single_label: bool,
    /// Numeric: what to do with '?' or empty cells.
    #[arg(long, value_enum, default_value = "error", help_heading = "Reading")]
    missing: MissingArg,

    /// Keep tokens without letters (numbers).
    #[arg(long, help_heading = "Text")]
    keep_numbers: bool,
    /// Shortest token kept, in characters.
    #[arg(long, default_value_t = 3, help_heading = "Text")]
    min_len: usize,
    /// Longest token kept, in characters.
    #[arg(long, default_value_t = 30, help_heading = "Text")]
    max_len: usize,
    /// Stop list file (one word per line) instead of the shipped English list.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with = "no_stoplist",
        help_heading = "Text"
    )]
    stoplist: Option<PathBuf>,
    /// Apply no stop list.
    #[arg(long, help_heading = "Text")]
    no_stoplist: bool,
    /// Stemmer: none or a rust-stemmers language (english, french, german, ...).
    #[arg(long, default_value = "english", help_heading = "Text")]
    stem: String,
    /// Keep terms in at least this many documents.
    #[arg(long, default_value_t = 2, help_heading = "Text")]
    min_df: usize,
    /// Keep terms in at most this fraction of the documents.
    #[arg(long, default_value_t = 0.95, help_heading = "Text")]
    max_df: f64,
    /// Keep the N terms with the highest document frequency.
    #[arg(long, value_name = "N", help_heading = "Text")]
    max_terms: Option<usize>,
    /// Weighting: TMG code LGN (local t|b|l|a|n, global x|f|e|g|n|p, norm c|x), pdgp or none
    /// [default: lfc for text, none for numeric].
    #[arg(long, value_name = "CODE", help_heading = "Text")]
    weighting: Option<String>,
    /// Keep documents left empty by the filters (as empty columns) instead of dropping them.
    #[arg(long, help_heading = "Text")]
    keep_empty: bool,
    /// Neither read nor write the load cache.
    #[arg(long, help_heading = "Text")]
    no_cache: bool,
}

impl CorpusArgs {
    fn options(&self) -> anyhow::Result<DatasetOptions> {
        let format = match self.format {
            FormatArg::Auto => Format::Auto,
            FormatArg::Folder => Format::Folder,
            FormatArg::Csv => Format::Csv,
            FormatArg::Tsv => Format::Tsv,
            FormatArg::Jsonl => Format::Jsonl,
            FormatArg::Reuters => Format::Reuters,
            FormatArg::Smart => Format::Smart,
            FormatArg::Numeric => Format::Numeric,
        };
        if self.label_depth == 0 {
            anyhow::bail!("--label-depth must be at least 1");
        }
        let weighting = self
            .weighting
            .as_deref()
            .map(Weighting::parse)
            .transpose()?;
        Ok(DatasetOptions {
            load: LoadOptions {
                format,
                label_depth: self.label_depth,
                strip_headers: self.strip_headers,
                text_col: self.text_col.clone(),
                label_col: self.label_col.clone(),
                id_col: self.id_col.clone(),
                title_col: self.title_col.clone(),
                reuters_split: match self.split {
                    SplitArg::All => ReutersSplit::All,
                    SplitArg::Modapte => ReutersSplit::ModApte,
                },
                single_label: self.single_label,
                missing: match self.missing {
                    MissingArg::Error => MissingPolicy::Error,
                    MissingArg::Zero => MissingPolicy::Zero,
                    MissingArg::Drop => MissingPolicy::Drop,
                },
            },
            text: TextOptions {
                keep_numbers: self.keep_numbers,
                min_len: self.min_len,
                max_len: self.max_len,
                stoplist: match (&self.stoplist, self.no_stoplist) {
                    (_, true) => StoplistChoice::None,
                    (Some(path), false) => StoplistChoice::File(path.clone()),
                    (None, false) => StoplistChoice::Default,
                },
                stem: (!self.stem.eq_ignore_ascii_case("none"))
                    .then(|| self.stem.to_ascii_lowercase()),
                min_df: self.min_df,
                max_df: self.max_df,
                max_terms: self.max_terms,
            },
            weighting,
            keep_empty: self.keep_empty,
        })
    }

    /// Open the corpus the arguments name, or the demo corpus when they name none.
    fn open(&self) -> anyhow::Result<Opened> {
        let options = self.options()?;
        let opened = if self.paths.is_empty() {
            dataset::open_demo(&options)?
        } else {
            dataset::open(&self.paths, &options, !self.no_cache)?
        };
        Ok(opened)
    }
}

fn print_stats(corpus: &CorpusArgs, json: bool) -> anyhow::Result<()> {
    let opened = corpus.open()?;
    let stats = Stats::of(&opened);
    let mut stdout = std::io::stdout().lock();
    if json {
        serde_json::to_writer(&mut stdout, &stats).context("writing JSON")?;
        writeln!(stdout)?;
    } else {
        write!(stdout, "{}", stats.to_text())?;
    }
    Ok(())
}

/// Write `text` to `path` atomically, naming the file in any error.
fn write_output(path: &std::path::Path, text: &str) -> anyhow::Result<()> {
    pdx::files::write_atomically(path, text.as_bytes())
        .with_context(|| format!("{}: cannot write", path.display()))
}

/// A kernel or memory size the user gave, worded with the flag that gave it: the library names the parameter
/// ("kernel", "memory budget") and carries the text, the command line knows the flag.
fn with_flag(flag: &'static str) -> impl Fn(KernelError) -> anyhow::Error {
    move |error| match error {
        KernelError::BadSpec { text, reason } | KernelError::BadMemorySize { text, reason } => {
            anyhow::anyhow!("{flag} {text:?}: {reason}")
        }
        other => other.into(),
    }
}

fn run_cluster(args: &ClusterArgs) -> anyhow::Result<()> {
    let k = usize::try_from(args.k).context("--k is too large")?;
    let params = RuleParams {
        l: args.l,
        tau: args.tau,
        trials: args.trials,
        seed: args.seed,
        // Flat k-means by default; the kernel k-way rules bisect unless asked.
        k_way: args
            .k_way
            .unwrap_or(if args.rule == "kmeans" { k.max(2) } else { 2 }),
    };
    let kernel_params = KernelParams {
        kernel: args.kernel.parse().map_err(with_flag("--kernel"))?,
        beta: args.beta,
        laplacian: match args.laplacian {
            LaplacianArg::Unnormalized => Laplacian::Unnormalized,
            LaplacianArg::Sym => Laplacian::Sym,
            LaplacianArg::Rw => Laplacian::Rw,
        },
    };
    let memory_budget = pdx::linalg::kernel::parse_memory_size(&args.mem_budget)
        .map_err(with_flag("--mem-budget"))?;
    let rule = RuleSpec::from_name_with(&args.rule, &params, &kernel_params)?;
    let select = match args.select {
        SelectArg::Scatter => SelectPolicy::Scatter,
        SelectArg::Size => SelectPolicy::Size,
        SelectArg::Variance => SelectPolicy::Variance,
    };
    let opened = args.corpus.open()?;
    let dataset = &opened.dataset;
    let start = std::time::Instant::now();
    let mut tree = Tree::for_dataset(dataset);
    let texts = &dataset.documents;
    let env = SplitEnv {
        texts: Some(texts),
        progress: None,
        memory_budget,
    };
    let grown = tree.grow_in(&dataset.matrix, &rule, k, select, env)?;
    let cluster_ms = start.elapsed().as_secs_f64() * 1000.0;

    let mut report = report::build(dataset, &tree);
    report.timings_ms.insert("load".into(), opened.timings.read);
    report.timings_ms.insert(
        "matrix".into(),
        opened.timings.tokenise + opened.timings.weight,
    );
    report.timings_ms.insert("cluster".into(), cluster_ms);

    let json_to_stdout = args.json.as_deref() == Some(std::path::Path::new("-"));
    let table = report::leaf_table(&report, &dataset.label_names);
    let mut notes = String::new();
    for (node, reason) in &grown.refused {
        notes.push_str(&format!("note: node {node} not split: {reason}\n"));
    }
    if let Some(reason) = &grown.stopped_early {
        notes.push_str(&format!("note: stopped early: {reason}\n"));
    }
    if let Some(pdx::linalg::kernel::KernelSpec::Gaussian { sigma: None }) = rule.kernel() {
        let root_sigma = tree
            .node(tree.root())
            .and_then(|root| root.split.as_ref())
            .and_then(|split| split.detail.kernel_sigma);
        if let Some(sigma) = root_sigma {
            notes.push_str(&format!(
                "kernel gaussian: sigma = {sigma:.4} (median pairwise distance of the root's documents; each \
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
    let params = rule.params_text();
    let summary = format!(
        "{}: {} documents, rule {}{}{}, {} splits in {:.0} ms\n",
        dataset.source,
        dataset.documents.len(),
        rule.name(),
        if params.is_empty() { "" } else { " " },
        params,
        grown.splits,
        cluster_ms
    );
    if json_to_stdout {
        eprint!("{summary}{table}{notes}");
        let mut stdout = std::io::stdout().lock();
        serde_json::to_writer(&mut stdout, &report).context("writing JSON")?;
        writeln!(stdout)?;
    } else {
        let mut stdout = std::io::stdout().lock();
        write!(stdout, "{summary}{table}")?;
        eprint!("{notes}");
    }
    if let Some(path) = args.json.as_deref().filter(|_| !json_to_stdout) {
        write_output(path, &serde_json::to_string(&report)?)?;
    }
    if let Some(path) = &args.csv {
        write_output(path, &report::to_csv(dataset, &tree))?;
    }
    if let Some(path) = &args.newick {
        write_output(path, &report::to_newick(&tree))?;
    }
    Ok(())
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Some(Command::Stats { corpus, json }) => print_stats(&corpus, json),
        Some(Command::Cluster(args)) => run_cluster(&args),
        // On a terminal, open the collection in the TUI; otherwise (a pipe, a test) print its statistics.
        None if std::io::stdout().is_terminal() => {
            let source = tui::Source {
                paths: cli.corpus.paths.clone(),
                options: cli.corpus.options()?,
                use_cache: !cli.corpus.no_cache,
            };
            let memory_budget = pdx::linalg::kernel::parse_memory_size(&cli.mem_budget)
                .map_err(with_flag("--mem-budget"))?;
            tui::run(source, cli.session, memory_budget)
        }
        None => print_stats(&cli.corpus, false),
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            use clap::error::ErrorKind;
            if matches!(
                error.kind(),
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
            ) {
                let _ = error.print();
                return ExitCode::SUCCESS;
            }
            // One line: clap's first line names the bad argument; the usage block adds nothing a user needs here.
            let rendered = error.render().to_string();
            let first = rendered.lines().next().unwrap_or("error: bad arguments");
            eprintln!("pdx: {}", first.trim_start_matches("error: ").trim());
            return ExitCode::from(2);
        }
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            // Broken pipe (e.g. `pdx stats | head`) is not an error worth a message.
            if error
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            {
                return ExitCode::SUCCESS;
            }
            eprintln!("pdx: {error:#}");
            ExitCode::from(2)
        }
    }
}
