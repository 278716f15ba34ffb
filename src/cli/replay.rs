//! `pdx replay`: make a script of steps (the terminal interface's `x` writes it) again on a collection, the same
//! one or an updated one, report what became of each step and, against the tree the steps made before, what
//! moved; write the tree as `pdx cluster` does, and a session to open it in the terminal interface.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use pdx::cluster::RuleSpec;
use pdx::cluster::rules::DEFAULT_MEMORY_BUDGET;
use pdx::printable;
use pdx::report::export::ExportSource;
use pdx::report::replayed::{self, LeafLine};
use pdx::report::settings::Settings;
use pdx::steps::{Comparison, OldTree, Outcome, Parsed, ReplayOptions, Replayed, Script, Step};

use super::corpus::open_quietly;
use super::flags::{MemorySize, memory_size};
use super::outputs::{Outputs, check_outputs, flag, is_stdout, write_output};

#[derive(Args, Debug)]
pub(crate) struct ReplayArgs {
    /// The steps file: what the terminal interface's x writes beside the other exports (NAME.steps).
    #[arg(value_name = "STEPS")]
    steps: PathBuf,
    /// The collection's files and folders, read with the options the steps file records (none: the embedded demo
    /// corpus).
    #[arg(value_name = "CORPUS")]
    paths: Vec<PathBuf>,
    /// The JSON report of the tree the steps made before (x writes it beside the steps): each split's children
    /// continue its nodes by the documents they share, and the report says node by node what moved.
    #[arg(long, value_name = "FILE")]
    against: Option<PathBuf>,
    #[command(flatten)]
    outputs: Outputs,
    /// Write a session of the replayed tree to FILE, which pdx --session FILE opens in the terminal interface (its
    /// steps go on from the replayed ones).
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    session: Option<PathBuf>,
    /// Neither read nor write the load cache.
    #[arg(long)]
    no_cache: bool,
    /// Largest kernel matrix a split may build (n^2 x 8 bytes), e.g. 512MiB, 8GiB.
    #[arg(long, value_parser = memory_size, default_value_t = MemorySize(DEFAULT_MEMORY_BUDGET), help_heading = "Kernels")]
    mem_budget: MemorySize,
}

pub(super) fn run(args: &ReplayArgs) -> anyhow::Result<()> {
    let Parsed { script, lines } = Script::read(&args.steps)?;
    let options = script.options.clone().unwrap_or_default();
    let against = args
        .against
        .as_deref()
        .map(OldTree::read)
        .transpose()
        .map_err(anyhow::Error::msg)?;
    if let Some(session) = args.session.as_deref().filter(|path| is_stdout(path)) {
        anyhow::bail!("{}: --session writes a file; name one", session.display());
    }
    let mut settings = Settings {
        paths: args.paths.clone(),
        options: options.clone(),
        reweigh: None,
        rule: RuleSpec::default(),
        policy: Default::default(),
        k: None,
        memory_budget: Some(args.mem_budget.0),
    };
    // Nothing the run reads may be written over: the corpus, the options' files, the steps and the old report.
    let mut inputs: Vec<&Path> = settings.inputs().collect();
    inputs.push(&args.steps);
    inputs.extend(args.against.as_deref());
    let others: Vec<(&str, &Path)> = args
        .session
        .as_deref()
        .map(|path| ("--session", path))
        .into_iter()
        .collect();
    let to_stdout = check_outputs(&args.outputs, &others, &inputs)?;

    let opened = open_quietly(&args.paths, &options, !args.no_cache)?;
    for warning in &opened.warnings {
        super::warn(warning);
    }
    let timings = opened.timings;
    let start = Instant::now();
    let replayed = pdx::steps::replay(
        opened.dataset,
        &script,
        ReplayOptions {
            memory_budget: args.mem_budget.0,
            progress: None,
            against: against.as_ref(),
        },
    )?;
    let replay_ms = start.elapsed().as_secs_f64() * 1000.0;
    let Replayed {
        dataset,
        tree,
        applied,
        outcomes,
    } = &replayed;
    // The rule last used: what a reopened session splits with.
    let rule = applied
        .iter()
        .rev()
        .find_map(|step| match &**step {
            Step::Split { rule, .. } => Some(rule.clone()),
            _ => None,
        })
        .unwrap_or_default();
    settings = Settings {
        memory_budget: Some(args.mem_budget.0),
        ..Settings::new(&args.paths, &options, dataset, &rule, Default::default())
    }
    .with_absolute_paths();

    let steps_file = args.steps.display().to_string();
    let mut notes: Vec<String> = Vec::new();
    for outcome in outcomes {
        let line = lines.get(outcome.step).copied().unwrap_or_default();
        let step = script.steps[outcome.step].text();
        let said = match &outcome.outcome {
            Outcome::Done => continue,
            Outcome::Partly { missing } => format!(
                "made without {} of its documents, not in a leaf of the tree (gone from the collection, or left \
                 without terms): {}",
                missing.len(),
                listed(missing)
            ),
            Outcome::Skipped(reason) => format!("skipped: {reason}"),
            Outcome::Rebuilt { reweigh, replay } => {
                let summary =
                    replayed::summary("matrix rebuilt", reweigh, replay, |id| label(tree, id));
                summary.headline.join("; ")
            }
        };
        notes.push(format!("{steps_file}:{line}: {step}: {said}"));
    }
    let comparison = against.as_ref().map(|old| old.compare(dataset, tree));

    let mut report = pdx::report::build(dataset, tree);
    report.timings_ms.insert("load".into(), timings.read);
    report
        .timings_ms
        .insert("matrix".into(), timings.tokenise + timings.weight);
    report.timings_ms.insert("cluster".into(), replay_ms);
    report.notes.clone_from(&notes);
    report.settings = Some(settings.clone());
    let source = ExportSource {
        dataset,
        tree,
        report: &report,
    };
    let mut written = Vec::new();
    for (format, path) in args.outputs.asked().filter(|(_, path)| !is_stdout(path)) {
        write_output(path, &(format.write)(&source)?)?;
        written.push(format!("{} {}", flag(format), path.display()));
    }
    if let Some(path) = &args.session {
        let session =
            pdx::tui::session::Session::of_replay(settings, dataset, tree.clone(), applied);
        write_output(path, &session.to_json().map_err(anyhow::Error::msg)?)?;
        written.push(format!("--session {}", path.display()));
    }

    let done = outcomes
        .iter()
        .filter(|o| matches!(o.outcome, Outcome::Done | Outcome::Rebuilt { .. }))
        .count();
    let partly = outcomes
        .iter()
        .filter(|o| matches!(o.outcome, Outcome::Partly { .. }))
        .count();
    let mut text = format!(
        "{}: {} steps replayed on {} ({} documents) in {replay_ms:.0} ms: {done} made, {partly} made in part, {} \
         skipped; {} leaves\n",
        steps_file,
        outcomes.len(),
        dataset.source,
        dataset.documents.len(),
        outcomes.len() - done - partly,
        tree.leaves().len()
    );
    for note in &notes {
        text.push_str(note);
        text.push('\n');
    }
    if let (Some(comparison), Some(file)) = (&comparison, &args.against) {
        text.push_str(&comparison_text(comparison, file));
    }
    if let Some(format) = to_stdout {
        written.push(format!("{} to standard output", flag(format)));
    }
    if !written.is_empty() {
        text.push_str(&format!("written: {}\n", written.join(", ")));
    }
    // The text quotes the collection (ids, names, words); made printable for whoever reads it.
    let text = printable::escaped_lines(&text);
    let mut stdout = std::io::stdout().lock();
    match to_stdout {
        Some(format) => {
            eprint!("{text}");
            let mut output = (format.write)(&source)?;
            if !output.ends_with('\n') {
                output.push('\n');
            }
            stdout
                .write_all(super::for_stdout(&output).as_bytes())
                .with_context(|| format!("writing {} to standard output", flag(format)))?;
        }
        None => write!(stdout, "{text}")?,
    }
    stdout.flush()?;
    Ok(())
}

/// A node as the report names it: its name, or `#id`.
fn label(tree: &pdx::cluster::Tree, id: usize) -> String {
    match tree.node(id).and_then(|node| node.name.as_deref()) {
        Some(name) => format!("#{id} {name}"),
        None => format!("#{id}"),
    }
}

/// The first few of `ids`, quoted, and how many more.
fn listed(ids: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut text: Vec<String> = ids.iter().take(SHOWN).map(|id| format!("{id:?}")).collect();
    if ids.len() > SHOWN {
        text.push(format!("and {} more", ids.len() - SHOWN));
    }
    text.join(", ")
}

/// The old tree against the new, node by node, as the terminal interface's replay report lists its leaves.
fn comparison_text(comparison: &Comparison, file: &Path) -> String {
    let lines: Vec<LeafLine> = comparison
        .nodes
        .iter()
        .map(|node| {
            let indent = "  ".repeat(node.depth.min(8));
            let id = node.change.old_node;
            let mut label = match &node.name {
                Some(name) => format!("{indent}#{id} {name}"),
                None => format!("{indent}#{id}"),
            };
            if !node.found {
                label.push_str(" (gone)");
            }
            LeafLine {
                gone: Some(node.gone),
                added: Some(node.added),
                ..LeafLine::of(&node.change, label)
            }
        })
        .collect();
    let mut text = format!(
        "against {}: {} of its documents are gone from the collection, {} documents are new to it\n",
        file.display(),
        comparison.gone,
        comparison.added
    );
    for row in replayed::table(&lines, "node") {
        text.push_str(&row);
        text.push('\n');
    }
    text
}
