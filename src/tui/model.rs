//! The TUI's state and the only code that changes it: [`update`] takes an [`Action`] (a key's command, a typed
//! character, a finished job) and returns the [`Effect`]s to run elsewhere (a split on the worker thread). Nothing
//! here touches a terminal, so the whole of it is tested with actions in and state out.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;

use pdx::cluster::rules::{DEFAULT_MEMORY_BUDGET, SplitEnv};
use pdx::cluster::{KernelParams, Laplacian, RuleParams, RuleSpec, SelectPolicy, Tree};
use pdx::dataset::Dataset;
use pdx::linalg::kernel::{GeodesicMetric, KernelSpec};
use pdx::progress::Progress;
use pdx::report::metrics::{self, ClusterFigures, Confusion, GlobalFigures};
use pdx::report::preview::{self, SplitPreview};
use pdx::report::terms::{self, TermWeight};
use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::keys::{self, Command, Context};
use super::session::{self, Session, Source};

/// Undo depth. A snapshot shares the nodes' members and centroids with the live tree, so it costs little, but
/// the history is still bounded.
const MAX_UNDO: usize = 100;

/// How many node previews the model keeps (a root preview of 20 Newsgroups holds two coordinates per document,
/// about 300 kB).
const PREVIEW_CACHE: usize = 32;

/// How far the Preview tab scrolls (its text part is shorter than this).
pub const PREVIEW_LINES: usize = 40;

/// How many terms the Terms tab lists.
pub const DETAIL_TERMS: usize = 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    Tree,
    Detail,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DetailTab {
    Terms,
    Labels,
    Documents,
    /// What the linear rules would do to the selected leaf.
    Preview,
}

impl DetailTab {
    pub const ALL: [DetailTab; 4] = [
        DetailTab::Terms,
        DetailTab::Labels,
        DetailTab::Documents,
        DetailTab::Preview,
    ];

    pub fn index(self) -> usize {
        match self {
            DetailTab::Terms => 0,
            DetailTab::Labels => 1,
            DetailTab::Documents => 2,
            DetailTab::Preview => 3,
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            DetailTab::Terms => "Terms",
            DetailTab::Labels => "Labels",
            DetailTab::Documents => "Documents",
            DetailTab::Preview => "Preview",
        }
    }
}

/// One parameter row of the rule picker: how it shows, steps, parses and is checked. The picker's rows are
/// [`RuleSpec::NAMES`] then [`PARAMS`]; which rules use a parameter is found by asking [`RuleSpec::from_name`]
/// (see [`used_by`]), so a rule added to `RuleSpec` shows up with nothing to change here, and a new parameter is
/// one more entry in [`PARAMS`].
pub struct ParamSpec {
    pub name: &'static str,
    pub get: fn(&PickerParams) -> String,
    /// One step up or down, kept in range.
    pub step: fn(&mut PickerParams, bool),
    /// Set from typed text; false when the text is not a value of the parameter's type.
    pub parse: fn(&mut PickerParams, &str) -> bool,
    /// Why the value cannot be used, in the picker's words.
    pub check: fn(&PickerParams) -> Option<String>,
}

/// Clamp into `low..=high` by one step up or down (`high` = `usize::MAX` for no bound).
fn step_usize(value: usize, up: bool, low: usize, high: usize) -> usize {
    if up {
        value.saturating_add(1)
    } else {
        value.saturating_sub(1)
    }
    .clamp(low, high)
}

/// The largest tau the picker steps to (the rule takes any tau in [0, 1)).
const MAX_TAU_STEP: f64 = 0.95;

/// The rule picker's parameter rows, in order.
pub static PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "l",
        get: |p| p.rule.l.to_string(),
        step: |p, up| p.rule.l = step_usize(p.rule.l, up, 1, pdx::cluster::MAX_L),
        parse: |p, text| text.parse().map(|v| p.rule.l = v).is_ok(),
        check: |p| {
            (!(1..=pdx::cluster::MAX_L).contains(&p.rule.l)).then(|| {
                format!(
                    "l = {}: the l field takes 1 to {}",
                    p.rule.l,
                    pdx::cluster::MAX_L
                )
            })
        },
    },
    ParamSpec {
        name: "tau",
        get: |p| format!("{}", p.rule.tau),
        step: |p, up| {
            let tau = p.rule.tau + if up { 0.05 } else { -0.05 };
            p.rule.tau = ((tau * 100.0).round() / 100.0).clamp(0.0, MAX_TAU_STEP);
        },
        parse: |p, text| text.parse().map(|v| p.rule.tau = v).is_ok(),
        check: |p| {
            (!(0.0..1.0).contains(&p.rule.tau)).then(|| {
                format!(
                    "tau = {}: the tau field takes 0 up to (not including) 1",
                    p.rule.tau
                )
            })
        },
    },
    ParamSpec {
        name: "trials",
        get: |p| p.rule.trials.to_string(),
        step: |p, up| p.rule.trials = step_usize(p.rule.trials, up, 1, usize::MAX),
        parse: |p, text| text.parse().map(|v| p.rule.trials = v).is_ok(),
        check: |p| {
            (p.rule.trials == 0).then(|| "trials = 0: the trials field takes 1 or more".into())
        },
    },
    ParamSpec {
        name: "seed",
        get: |p| p.rule.seed.to_string(),
        step: |p, up| {
            p.rule.seed = if up {
                p.rule.seed.saturating_add(1)
            } else {
                p.rule.seed.saturating_sub(1)
            }
        },
        parse: |p, text| text.parse().map(|v| p.rule.seed = v).is_ok(),
        check: |_| None,
    },
    ParamSpec {
        name: "k-way",
        get: |p| p.rule.k_way.to_string(),
        step: |p, up| p.rule.k_way = step_usize(p.rule.k_way, up, 2, usize::MAX),
        parse: |p, text| text.parse().map(|v| p.rule.k_way = v).is_ok(),
        check: |p| {
            (p.rule.k_way < 2)
                .then(|| format!("k-way = {}: the k-way field takes 2 or more", p.rule.k_way))
        },
    },
    ParamSpec {
        name: "kernel",
        get: |p| p.kernel.kernel.to_string(),
        step: |p, up| p.kernel.kernel = step_kernel(&p.kernel.kernel, up),
        parse: |p, text| match with_kernel_number(&p.kernel.kernel, text) {
            Some(kernel) => {
                p.kernel.kernel = kernel;
                true
            }
            None => false,
        },
        check: |_| None,
    },
    ParamSpec {
        name: "beta",
        get: |p| format!("{}", p.kernel.beta),
        step: |p, up| {
            let beta = p.kernel.beta + if up { 0.1 } else { -0.1 };
            p.kernel.beta = ((beta * 10.0).round() / 10.0).clamp(0.1, 100.0);
        },
        parse: |p, text| text.parse().map(|v| p.kernel.beta = v).is_ok(),
        check: |p| {
            (!(p.kernel.beta.is_finite() && p.kernel.beta > 0.0)).then(|| {
                format!(
                    "beta = {}: the beta field takes a number above 0",
                    p.kernel.beta
                )
            })
        },
    },
    ParamSpec {
        name: "laplacian",
        get: |p| laplacian_name(p.kernel.laplacian).to_string(),
        step: |p, up| {
            let at = LAPLACIANS
                .iter()
                .position(|&l| l == p.kernel.laplacian)
                .unwrap_or(0);
            let next = if up {
                at + 1
            } else {
                at + LAPLACIANS.len() - 1
            };
            p.kernel.laplacian = LAPLACIANS[next % LAPLACIANS.len()];
        },
        parse: |_, _| false,
        check: |_| None,
    },
];

/// The picker's values: the parameters every rule may take and those of the kernel rules.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PickerParams {
    pub rule: RuleParams,
    pub kernel: KernelParams,
}

/// Every rule the picker offers, linear rules first: its rows `0..RULE_COUNT`.
pub const RULE_COUNT: usize = RuleSpec::NAMES.len() + RuleSpec::KERNEL_NAMES.len();

/// The rule on picker row `index` (`None` past the rules).
pub fn rule_name(index: usize) -> Option<&'static str> {
    RuleSpec::NAMES
        .iter()
        .chain(RuleSpec::KERNEL_NAMES.iter())
        .nth(index)
        .copied()
}

/// The kernels the kernel field steps through with left / right; typing a number sets the selected kernel's own
/// number (Gaussian sigma, polynomial degree, neighbours of the geodesic kernel, substring length).
const KERNEL_CHOICES: [&str; 10] = [
    "gaussian",
    "cosine",
    "linear",
    "poly:2:1",
    "poly:3:1",
    "geodesic:6:euclid",
    "geodesic:10:cosine",
    "string:spectrum:3",
    "string:spectrum:5",
    "string:boundrange:3",
];

fn step_kernel(current: &KernelSpec, up: bool) -> KernelSpec {
    let choices: Vec<KernelSpec> = KERNEL_CHOICES
        .iter()
        .filter_map(|text| text.parse().ok())
        .collect();
    // A kernel that is not one of the choices (a typed sigma) steps from its family's entry.
    let family = |k: &KernelSpec| std::mem::discriminant(k);
    let at = choices
        .iter()
        .position(|k| k == current)
        .or_else(|| choices.iter().position(|k| family(k) == family(current)))
        .unwrap_or(0);
    let next = if up { at + 1 } else { at + choices.len() - 1 };
    choices[next % choices.len()].clone()
}

/// `current` with its number replaced by `text`: sigma of a Gaussian, degree of a polynomial, neighbours of a
/// geodesic kernel, length of a string kernel. `None` when the text is not such a number (or the kernel has none).
fn with_kernel_number(current: &KernelSpec, text: &str) -> Option<KernelSpec> {
    let spec = match current {
        KernelSpec::Gaussian { .. } => format!("gaussian:{text}"),
        KernelSpec::Polynomial { offset, .. } => format!("poly:{text}:{offset}"),
        KernelSpec::Geodesic { metric, .. } => {
            let metric = match metric {
                GeodesicMetric::Euclid => "euclid",
                GeodesicMetric::Cosine => "cosine",
            };
            format!("geodesic:{text}:{metric}")
        }
        KernelSpec::Spectrum { .. } => format!("string:spectrum:{text}"),
        KernelSpec::BoundRange { .. } => format!("string:boundrange:{text}"),
        KernelSpec::Linear | KernelSpec::Cosine => return None,
    };
    spec.parse().ok()
}

const LAPLACIANS: [Laplacian; 3] = [Laplacian::Rw, Laplacian::Sym, Laplacian::Unnormalized];

fn laplacian_name(laplacian: Laplacian) -> &'static str {
    match laplacian {
        Laplacian::Rw => "rw",
        Laplacian::Sym => "sym",
        Laplacian::Unnormalized => "unnormalized",
    }
}

/// The kernel parameters a rule was made with (the defaults for the other fields, and for linear rules).
pub fn kernel_params_of(rule: &RuleSpec) -> KernelParams {
    let mut params = KernelParams::default();
    if let Some(kernel) = rule.kernel() {
        params.kernel = kernel.clone();
    }
    match rule {
        RuleSpec::SoftKernelKmeans { beta, .. } => params.beta = *beta,
        RuleSpec::Spectral { laplacian, .. } => params.laplacian = *laplacian,
        _ => {}
    }
    params
}

/// The rules that use `param`: those whose rule changes when the parameter steps away from its default.
pub fn used_by(param: &ParamSpec) -> Vec<&'static str> {
    let base = PickerParams::default();
    let mut stepped = base.clone();
    (param.step)(&mut stepped, true);
    if stepped == base {
        (param.step)(&mut stepped, false);
    }
    (0..RULE_COUNT)
        .filter_map(rule_name)
        .filter(|name| {
            match (
                RuleSpec::from_name_with(name, &base.rule, &base.kernel),
                RuleSpec::from_name_with(name, &stepped.rule, &stepped.kernel),
            ) {
                (Ok(a), Ok(b)) => a != b,
                _ => false,
            }
        })
        .collect()
}

/// A message of the library about a parameter, in the picker's words: its command-line flag (`--l 9: ...`)
/// becomes the field (`field l: 9: ...`). The picker checks its fields first; this covers the rest.
pub fn picker_message(error: &str) -> String {
    match error.strip_prefix("--") {
        Some(rest) => {
            let name_end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
                .unwrap_or(rest.len());
            let (name, rest) = rest.split_at(name_end);
            format!("field {name}:{rest}")
        }
        None => error.to_string(),
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct RulePicker {
    /// Row under the cursor: `0..NAMES.len()` the rules, then [`PARAMS`].
    pub cursor: usize,
    /// The rule chosen in the picker (applied on Enter).
    pub rule_index: usize,
    pub params: PickerParams,
    /// Digits typed into the parameter under the cursor.
    pub typed: Option<String>,
    pub error: Option<String>,
}

impl RulePicker {
    pub fn rows() -> usize {
        RULE_COUNT + PARAMS.len()
    }

    /// The parameter under the cursor, if the cursor is on one.
    pub fn param(&self) -> Option<&'static ParamSpec> {
        self.cursor
            .checked_sub(RULE_COUNT)
            .and_then(|i| PARAMS.get(i))
    }

    fn step(&mut self, up: bool) {
        let Some(param) = self.param() else {
            return;
        };
        self.typed = None;
        self.error = None;
        (param.step)(&mut self.params, up);
    }

    /// Set the parameter under the cursor from the typed text; say so when it is not a value.
    fn apply_typed(&mut self) {
        let (Some(param), Some(text)) = (self.param(), self.typed.as_deref()) else {
            return;
        };
        self.error = if text.is_empty() || (param.parse)(&mut self.params, text) {
            None
        } else {
            Some(format!("field {}: {text:?} is not a value", param.name))
        };
    }

    /// The first field whose value cannot be used, in the picker's words.
    fn check(&self) -> Option<String> {
        PARAMS.iter().find_map(|param| (param.check)(&self.params))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Popup {
    Help {
        scroll: usize,
    },
    Rules(RulePicker),
    /// Asks K for auto-split.
    AutoSplit {
        input: String,
    },
    ConfirmQuit,
    Confusion {
        scroll: usize,
    },
    Viewer {
        document: usize,
        scroll: usize,
    },
    /// Asks a name for `node`.
    Name {
        node: usize,
        input: String,
    },
    /// Asks a term or a title to find.
    Find {
        input: String,
    },
}

impl Popup {
    pub fn context(&self) -> Context {
        match self {
            Popup::Help { .. } | Popup::Confusion { .. } | Popup::Viewer { .. } => Context::Reader,
            Popup::Rules(_) => Context::RulePicker,
            Popup::AutoSplit { .. } => Context::Prompt,
            Popup::Name { .. } | Popup::Find { .. } => Context::TextPrompt,
            Popup::ConfirmQuit => Context::Confirm,
        }
    }
}

/// Work for the worker thread.
#[derive(Debug, Clone)]
pub enum Work {
    Split {
        node: usize,
        rule: RuleSpec,
    },
    Grow {
        k: usize,
        rule: RuleSpec,
        policy: SelectPolicy,
    },
}

/// A job: work on a copy of the tree; the result replaces the tree if the job is still the current one.
#[derive(Debug, Clone)]
pub struct Job {
    pub id: u64,
    pub tree: Tree,
    pub work: Work,
    /// Shared with the model, which shows it and cancels through it.
    pub progress: Arc<Progress>,
    pub memory_budget: u64,
}

/// An export: write `tree` as JSON, CSV and Newick into `dir`.
#[derive(Debug, Clone)]
pub struct Export {
    pub tree: Tree,
    pub dir: PathBuf,
}

/// A session to save into `dir`; `revision` is the tree's, to mark the model clean once saved.
#[derive(Debug, Clone)]
pub struct Save {
    pub session: Box<Session>,
    pub dir: PathBuf,
    pub revision: u64,
}

/// A split preview to compute on a worker thread: `rules` on leaf `node` of `tree` (the model's tree at
/// `revision`).
#[derive(Debug, Clone)]
pub struct PreviewJob {
    pub key: PreviewKey,
    pub tree: Tree,
    pub rules: Vec<RuleSpec>,
    /// Also compute the second principal coordinate (for the scatter plot).
    pub second_direction: bool,
}

/// A preview's result, sent back by the worker.
#[derive(Debug, Clone)]
pub struct PreviewDone {
    pub key: PreviewKey,
    pub second_direction: bool,
    pub result: Result<SplitPreview, String>,
}

/// What a preview is of: the node, the tree's revision and the preview epoch (which changes with the rule and its
/// parameters, since they decide what the preview compares).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PreviewKey {
    pub node: usize,
    pub revision: u64,
    pub epoch: u64,
}

/// A cached preview.
#[derive(Debug, Clone)]
pub struct PreviewEntry {
    pub result: Result<Arc<SplitPreview>, String>,
    /// The second principal coordinate (the scatter plot) is still being computed.
    pub second_pending: bool,
}

#[derive(Debug, Clone)]
pub enum Effect {
    Run(Job),
    Export(Export),
    Save(Save),
    Preview(PreviewJob),
}

#[derive(Debug, Clone)]
pub struct Outcome {
    pub tree: Tree,
    /// The node to select and show afterwards (none: keep the selection).
    pub select: Option<usize>,
    pub message: String,
}

/// A job's result, sent back by the worker.
#[derive(Debug, Clone)]
pub struct Finished {
    pub job: u64,
    pub outcome: Result<Outcome, String>,
}

/// What a mouse event points at (found by the view, which knows the layout).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Region {
    /// A node's row in the tree pane.
    TreeRow(usize),
    /// The tree pane elsewhere (border, header, empty rows).
    Tree,
    /// A tab title of the detail pane.
    Tab(DetailTab),
    /// A document's row in the Documents tab (its index in the list).
    DocumentRow(usize),
    Detail,
    /// An open popup (which covers the main screen).
    Popup,
    Elsewhere,
}

/// Rows a wheel notch scrolls text by (a selection moves by one).
const WHEEL_LINES: usize = 3;

#[derive(Debug, Clone)]
pub enum Action {
    Command(Command),
    /// A left click.
    Click(Region),
    /// A wheel notch, down or up.
    Scroll {
        region: Region,
        down: bool,
    },
    /// A character typed into a value.
    Type(char),
    Finished(Finished),
    /// An export's result: the files written, or what went wrong.
    Exported(Result<Vec<PathBuf>, String>),
    /// A save's result: the tree's revision when saved, and the file or what went wrong.
    Saved {
        revision: u64,
        result: Result<PathBuf, String>,
    },
    /// A split preview computed on a worker thread.
    Previewed(PreviewDone),
}

/// What the model shows of the whole tree, recomputed when the tree changes.
#[derive(Debug, Clone)]
pub struct Derived {
    pub leaves: Vec<usize>,
    pub objective: f64,
    pub suggestion: Option<usize>,
    /// Per node: members per label (empty without labels).
    pub label_counts: HashMap<usize, Vec<usize>>,
    /// Per node: its figures against the labels (none without labels).
    pub node_figures: HashMap<usize, ClusterFigures>,
    /// Leaves (in `leaves` order) x labels.
    pub confusion: Confusion,
    pub leaf_figures: Vec<ClusterFigures>,
    pub global: Option<GlobalFigures>,
}

/// What the detail pane shows of the selected node, recomputed when the selection or the tree changes.
#[derive(Debug, Clone, Default)]
pub struct Detail {
    pub node: usize,
    pub top_terms: Vec<TermWeight>,
    pub discriminating: Vec<TermWeight>,
    /// What the discriminating terms are against ("#2", "the rest of #0"); none for the root.
    pub against: Option<String>,
    /// Members, nearest the centroid first.
    pub documents: Vec<usize>,
}

#[derive(Debug, Clone)]
struct Snapshot {
    tree: Tree,
    revision: u64,
}

pub struct Model {
    pub data: Arc<Dataset>,
    pub tree: Tree,
    undo: Vec<Snapshot>,
    redo: Vec<Snapshot>,
    /// Identifies the tree's state, so that undoing back to the saved state makes the model clean again.
    revision: u64,
    next_revision: u64,
    saved_revision: u64,
    pub selected: usize,
    pub collapsed: BTreeSet<usize>,
    pub focus: Pane,
    pub tab: DetailTab,
    /// Row under the cursor in the Documents tab.
    pub document_cursor: usize,
    /// Scroll of the Terms and Labels tabs.
    pub detail_scroll: usize,
    pub rule_index: usize,
    pub params: RuleParams,
    /// The kernel rules' parameters, as last chosen in the picker.
    pub kernel: KernelParams,
    /// The largest kernel matrix a split may build (`--mem-budget`).
    pub memory_budget: u64,
    pub rule: RuleSpec,
    pub policy: SelectPolicy,
    pub popup: Option<Popup>,
    pub status: String,
    /// The running job: its id and what it does.
    pub busy: Option<(u64, String)>,
    /// The running job's progress report, through which Esc stops it.
    pub job_progress: Option<Arc<Progress>>,
    next_job: u64,
    pub quit: bool,
    /// False when NO_COLOR is set.
    pub colors: bool,
    /// Where `x` writes its files.
    pub export_dir: PathBuf,
    /// What the corpus was loaded from, for `w` (none: sessions cannot be saved).
    pub source: Option<Source>,
    /// Where `w` writes the session (none: no data folder).
    pub session_dir: Option<PathBuf>,
    pub derived: Derived,
    pub detail: Detail,
    /// Split previews by node, tree revision and epoch, the oldest evicted first.
    pub previews: HashMap<PreviewKey, PreviewEntry>,
    preview_order: VecDeque<PreviewKey>,
    /// The preview being computed (one at a time, so that moving fast through the tree does not pile up work);
    /// and whether it computes the second direction.
    pub preview_running: Option<(PreviewKey, bool)>,
    preview_epoch: u64,
}

impl Model {
    pub fn new(data: Arc<Dataset>, colors: bool) -> Model {
        let tree = Tree::for_dataset(&data);
        let params = RuleParams::default();
        let rule = RuleSpec::Pddp { l: params.l };
        let selected = tree.root();
        let mut model = Model {
            data,
            tree,
            undo: Vec::new(),
            redo: Vec::new(),
            revision: 0,
            next_revision: 1,
            saved_revision: 0,
            selected,
            collapsed: BTreeSet::new(),
            focus: Pane::Tree,
            tab: DetailTab::Terms,
            document_cursor: 0,
            detail_scroll: 0,
            rule_index: 0,
            params,
            kernel: KernelParams::default(),
            memory_budget: DEFAULT_MEMORY_BUDGET,
            rule,
            policy: SelectPolicy::Scatter,
            popup: None,
            status: "? for help".into(),
            busy: None,
            job_progress: None,
            next_job: 1,
            quit: false,
            colors,
            export_dir: PathBuf::from("."),
            source: None,
            session_dir: None,
            derived: Derived {
                leaves: Vec::new(),
                objective: 0.0,
                suggestion: None,
                label_counts: HashMap::new(),
                node_figures: HashMap::new(),
                confusion: Confusion { counts: Vec::new() },
                leaf_figures: Vec::new(),
                global: None,
            },
            detail: Detail::default(),
            previews: HashMap::new(),
            preview_order: VecDeque::new(),
            preview_running: None,
            preview_epoch: 0,
        };
        model.tree_changed();
        model
    }

    /// True when the tree differs from the one at start (or the last save).
    pub fn dirty(&self) -> bool {
        self.revision != self.saved_revision
    }

    pub fn has_labels(&self) -> bool {
        self.derived.global.is_some()
    }

    /// Key contexts in the order they are searched.
    pub fn contexts(&self) -> Vec<Context> {
        match &self.popup {
            Some(popup) => vec![popup.context()],
            None => match self.focus {
                Pane::Tree => vec![Context::Tree, Context::Main],
                Pane::Detail => vec![Context::Detail, Context::Main],
            },
        }
    }

    /// The action a key means here, if any.
    pub fn action_for(&self, key: &KeyEvent) -> Option<Action> {
        let command = keys::lookup(&self.contexts(), key)?;
        Some(match (command, key.code) {
            (Command::Type, KeyCode::Char(c)) => Action::Type(c),
            (command, _) => Action::Command(command),
        })
    }

    /// Visible nodes in display order with their depth (children of collapsed nodes hidden).
    pub fn visible(&self) -> Vec<(usize, usize)> {
        let mut rows = Vec::new();
        let mut stack = vec![(self.tree.root(), 0)];
        while let Some((id, depth)) = stack.pop() {
            let Some(node) = self.tree.node(id) else {
                continue;
            };
            rows.push((id, depth));
            if !self.collapsed.contains(&id) {
                stack.extend(node.children.iter().rev().map(|&c| (c, depth + 1)));
            }
        }
        rows
    }

    pub fn rule_text(&self) -> String {
        let params = self.rule.params_text();
        if params.is_empty() {
            self.rule.name().to_string()
        } else {
            format!("{} {params}", self.rule.name())
        }
    }

    fn tree_changed(&mut self) {
        let data = &self.data;
        let tree = &self.tree;
        let label_count = data.label_names.len();
        let leaves = tree.leaves();
        let assignments = tree.assignments(data.matrix.cols());
        let labels: Vec<Option<u32>> = data.documents.iter().map(|d| d.label).collect();
        let mut derived = Derived {
            leaves: Vec::new(),
            objective: tree.objective(),
            suggestion: tree.suggest(self.policy),
            label_counts: HashMap::new(),
            node_figures: HashMap::new(),
            confusion: metrics::confusion(&assignments, &labels, leaves.len(), label_count),
            leaf_figures: Vec::new(),
            global: None,
        };
        let (per_leaf, global) = metrics::figures(&derived.confusion, label_count);
        if label_count > 0 && global.labelled > 0 {
            derived.leaf_figures = per_leaf;
            derived.global = Some(global);
            for id in tree.depth_first() {
                let Some(node) = tree.node(id) else {
                    continue;
                };
                let mut counts = vec![0usize; label_count];
                for &j in node.members.iter() {
                    if let Some(l) = data.documents.get(j).and_then(|d| d.label) {
                        counts[l as usize] += 1;
                    }
                }
                let row = Confusion {
                    counts: vec![counts.clone()],
                };
                let (mut figures, _) = metrics::figures(&row, label_count);
                if let Some(f) = figures.pop() {
                    derived.node_figures.insert(id, f);
                }
                derived.label_counts.insert(id, counts);
            }
        }
        derived.leaves = leaves;
        self.derived = derived;
        if self.tree.node(self.selected).is_none() {
            self.selected = self.tree.root();
        }
        self.selection_changed();
    }

    fn selection_changed(&mut self) {
        self.document_cursor = 0;
        self.detail_scroll = 0;
        let Some(node) = self.tree.node(self.selected) else {
            self.detail = Detail::default();
            return;
        };
        let names = self.data.matrix.row_names();
        let top_terms = terms::top_terms(&node.centroid, names, DETAIL_TERMS);
        let parent = node.parent.and_then(|p| self.tree.node(p));
        let (discriminating, against) = match parent {
            Some(parent) => {
                let siblings: Vec<usize> = parent
                    .children
                    .iter()
                    .copied()
                    .filter(|&c| c != node.id)
                    .collect();
                let (other, against) = match siblings.as_slice() {
                    [one] => match self.tree.node(*one) {
                        Some(sibling) => (sibling.centroid.to_vec(), format!("#{one}")),
                        None => (vec![0.0; node.centroid.len()], String::new()),
                    },
                    _ => (
                        terms::rest_centroid(
                            &parent.centroid,
                            parent.size(),
                            &node.centroid,
                            node.size(),
                        ),
                        format!("the rest of #{}", parent.id),
                    ),
                };
                (
                    terms::discriminating_terms(&node.centroid, &other, names, DETAIL_TERMS),
                    Some(against),
                )
            }
            None => (Vec::new(), None),
        };
        let documents = terms::representatives(
            &self.data.matrix,
            &node.members,
            &node.centroid,
            self.tree.norms_squared(),
            node.members.len(),
        );
        self.detail = Detail {
            node: node.id,
            top_terms,
            discriminating,
            against,
            documents,
        };
    }

    fn select(&mut self, id: usize) {
        if self.tree.node(id).is_some() && id != self.selected {
            self.selected = id;
            self.selection_changed();
        }
    }

    /// Replace the tree, keeping the old one for undo.
    fn replace_tree(&mut self, tree: Tree) {
        let old = std::mem::replace(&mut self.tree, tree);
        self.undo.push(Snapshot {
            tree: old,
            revision: self.revision,
        });
        if self.undo.len() > MAX_UNDO {
            self.undo.remove(0);
        }
        self.redo.clear();
        self.revision = self.next_revision;
        self.next_revision += 1;
        self.tree_changed();
    }

    fn start(&mut self, work: Work, what: String) -> Vec<Effect> {
        if let Some((_, running)) = &self.busy {
            self.status = format!("busy: {running} (Esc cancels)");
            return Vec::new();
        }
        let id = self.next_job;
        self.next_job += 1;
        self.status = format!("{what}…");
        self.busy = Some((id, what));
        let progress = Arc::new(Progress::default());
        self.job_progress = Some(Arc::clone(&progress));
        vec![Effect::Run(Job {
            id,
            tree: self.tree.clone(),
            work,
            progress,
            memory_budget: self.memory_budget,
        })]
    }

    fn split(&mut self, node: usize) -> Vec<Effect> {
        match self.tree.unsplittable_reason(node) {
            Ok(Some(reason)) => {
                self.status = format!("#{node} cannot be split: {reason}");
                Vec::new()
            }
            Ok(None) => {
                let rule = self.rule.clone();
                let what = format!("splitting #{node} with {}", self.rule_text());
                self.start(Work::Split { node, rule }, what)
            }
            Err(error) => {
                self.status = error.to_string();
                Vec::new()
            }
        }
    }

    fn restore(&mut self, snapshot: Snapshot, into_redo: bool) {
        let path = self.tree.path_to(self.selected);
        let old = std::mem::replace(&mut self.tree, snapshot.tree);
        let old = Snapshot {
            tree: old,
            revision: self.revision,
        };
        if into_redo {
            self.redo.push(old);
        } else {
            self.undo.push(old);
        }
        self.revision = snapshot.revision;
        // Keep the deepest node of the old selection's path that still exists.
        if let Some(&id) = path.iter().rev().find(|&&id| self.tree.node(id).is_some()) {
            self.selected = id;
        }
        self.tree_changed();
    }

    /// The session as it stands: what `w` writes.
    pub fn session(&self, source: &Source) -> Session {
        Session {
            format: session::FORMAT.into(),
            version: session::VERSION,
            paths: source.paths.clone(),
            options: source.options.clone(),
            documents: self.data.matrix.cols(),
            terms: self.data.matrix.rows(),
            rule: self.rule.clone(),
            params: self.params.into(),
            policy: self.policy,
            tree: self.tree.clone(),
        }
    }

    fn save(&mut self) -> Vec<Effect> {
        let (Some(source), Some(dir)) = (&self.source, &self.session_dir) else {
            self.status = "cannot save: no folder for sessions (set PDX_SESSION_DIR)".into();
            return Vec::new();
        };
        let save = Save {
            session: Box::new(self.session(source)),
            dir: dir.clone(),
            revision: self.revision,
        };
        self.status = format!("saving the session to {}…", dir.display());
        vec![Effect::Save(save)]
    }

    /// Restore `session` (read from `path`) if it fits the data; the status line says what happened.
    pub fn open_session(&mut self, path: &std::path::Path, session: Session) {
        match session::check(&session, &self.data) {
            Ok(()) => {
                self.restore_session(session);
                self.status = format!(
                    "session {} restored: {} leaves",
                    path.display(),
                    self.derived.leaves.len()
                );
            }
            Err(error) => {
                self.status = format!("started without the session: {}: {error}", path.display())
            }
        }
    }

    /// Take the rule and the tree of a session checked against this model's data (the start of undo history:
    /// the restored tree is the clean state).
    pub fn restore_session(&mut self, session: Session) {
        self.rule_index = (0..RULE_COUNT)
            .find(|&index| rule_name(index) == Some(session.rule.name()))
            .unwrap_or(0);
        self.params = session.params.into();
        self.kernel = kernel_params_of(&session.rule);
        self.rule = session.rule;
        self.policy = session.policy;
        self.tree = session.tree;
        // Sessions store members, not centroids; `check` made sure the members fit this data.
        self.tree.rebuild_centroids(&self.data.matrix);
        self.undo.clear();
        self.redo.clear();
        self.saved_revision = self.revision;
        self.selected = self.tree.root();
        self.collapsed.clear();
        self.tree_changed();
    }

    /// Name `node` (an empty name clears it): a tree change, undoable.
    fn rename(&mut self, node: usize, input: &str) {
        if self.busy.is_some() {
            self.status = "busy: wait for the split or cancel it (Esc)".into();
            return;
        }
        let name = Some(input.trim())
            .filter(|n| !n.is_empty())
            .map(str::to_string);
        let Some(current) = self.tree.node(node) else {
            return;
        };
        if current.name == name {
            self.status = "name unchanged".into();
            return;
        }
        let mut tree = self.tree.clone();
        if let Some(n) = tree.node_mut(node) {
            n.name = name.clone();
        }
        self.replace_tree(tree);
        self.status = match name {
            Some(name) => format!("named #{node} \"{name}\""),
            None => format!("cleared the name of #{node}"),
        };
    }

    /// Select `id`, expanding its ancestors so that it shows.
    fn reveal(&mut self, id: usize) {
        for ancestor in self.tree.path_to(id) {
            if ancestor != id {
                self.collapsed.remove(&ancestor);
            }
        }
        self.select(id);
    }

    /// The leaf holding document `document`, if any.
    fn leaf_of(&self, document: usize) -> Option<usize> {
        self.derived.leaves.iter().copied().find(|&leaf| {
            self.tree
                .node(leaf)
                .is_some_and(|n| n.members.contains(&document))
        })
    }

    /// Find `text`: the leaf of the first document whose title holds it, else the leaf where the term it names
    /// (equal to the stemmed or lower-cased text, or starting with it) weighs most.
    pub fn find(&mut self, text: &str) {
        let data = Arc::clone(&self.data);
        let wanted = text.trim().to_lowercase();
        if wanted.is_empty() {
            self.status = "find: type a term or part of a title".into();
            return;
        }
        let by_title = data.documents.iter().enumerate().find_map(|(j, d)| {
            d.title
                .as_ref()
                .filter(|t| t.to_lowercase().contains(&wanted))
                .and_then(|_| self.leaf_of(j).map(|leaf| (j, leaf)))
        });
        if let Some((j, leaf)) = by_title {
            self.reveal(leaf);
            let id = &data.documents[j].id;
            self.status = format!(
                "\"{}\" in the title of {id}: {}",
                text.trim(),
                self.label(leaf)
            );
            return;
        }
        let stemmed = rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English)
            .stem(&wanted)
            .into_owned();
        let names = data.matrix.row_names();
        let row = names
            .iter()
            .position(|n| *n == stemmed || *n == wanted)
            .or_else(|| {
                names
                    .iter()
                    .position(|n| n.starts_with(&wanted) || n.starts_with(&stemmed))
            });
        let best = row.and_then(|row| {
            self.derived
                .leaves
                .iter()
                .filter_map(|&leaf| {
                    let weight = *self.tree.node(leaf)?.centroid.get(row)?;
                    Some((leaf, weight))
                })
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(leaf, weight)| (row, leaf, weight))
        });
        match best {
            Some((row, leaf, weight)) => {
                self.reveal(leaf);
                self.status = format!(
                    "term \"{}\": heaviest in {} (weight {weight:.3})",
                    names[row],
                    self.label(leaf)
                );
            }
            None => self.status = format!("no match for \"{}\"", text.trim()),
        }
    }

    /// A node as the tree pane names it: its name, or `#id`.
    pub fn label(&self, id: usize) -> String {
        match self.tree.node(id).and_then(|n| n.name.as_deref()) {
            Some(name) => name.to_string(),
            None => format!("#{id}"),
        }
    }

    fn move_in_tree(&mut self, command: Command) {
        let rows = self.visible();
        let position = rows.iter().position(|&(id, _)| id == self.selected);
        let last = rows.len().saturating_sub(1);
        let target = match (command, position) {
            (Command::Up, Some(p)) => p.saturating_sub(1),
            (Command::Down, Some(p)) => (p + 1).min(last),
            (Command::PageUp, Some(p)) => p.saturating_sub(10),
            (Command::PageDown, Some(p)) => (p + 10).min(last),
            (Command::Top, _) | (_, None) => 0,
            (Command::Bottom, _) => last,
            (_, Some(p)) => p,
        };
        if let Some(&(id, _)) = rows.get(target) {
            self.select(id);
        }
    }

    fn move_in_detail(&mut self, command: Command) {
        let (value, last) = match self.tab {
            DetailTab::Documents => (
                &mut self.document_cursor,
                self.detail.documents.len().saturating_sub(1),
            ),
            DetailTab::Terms => (&mut self.detail_scroll, DETAIL_TERMS * 2),
            DetailTab::Labels => (&mut self.detail_scroll, self.data.label_names.len() + 4),
            // The summary, histogram and rule table: a few dozen lines at most.
            DetailTab::Preview => (&mut self.detail_scroll, PREVIEW_LINES),
        };
        *value = match command {
            Command::Up => value.saturating_sub(1),
            Command::Down => (*value + 1).min(last),
            Command::PageUp => value.saturating_sub(10),
            Command::PageDown => (*value + 10).min(last),
            Command::Top => 0,
            Command::Bottom => last,
            _ => *value,
        };
    }

    /// The key of the selected node's preview as the tree and the rule stand.
    pub fn preview_key(&self) -> PreviewKey {
        PreviewKey {
            node: self.selected,
            revision: self.revision,
            epoch: self.preview_epoch,
        }
    }

    /// The selected node's preview, if computed.
    pub fn current_preview(&self) -> Option<&PreviewEntry> {
        self.previews.get(&self.preview_key())
    }

    /// The rules a preview compares: every linear rule (with the current tau), and the current rule when it cuts
    /// along principal directions too (PDDP(l) with l > 1, for one). The k-means rules are left out: they do not
    /// cut the leading direction, and their trials would make the preview slow.
    pub fn preview_rules(&self) -> Vec<RuleSpec> {
        let mut rules = preview::linear_rules(self.params.tau);
        if !rules.contains(&self.rule) && self.rule.rule().directions_needed() > 0 {
            rules.push(self.rule.clone());
        }
        rules
    }

    /// Forget every preview: the rule or its parameters changed, so the previews compare other rules.
    fn previews_outdated(&mut self) {
        self.preview_epoch += 1;
        self.previews.clear();
        self.preview_order.clear();
    }

    /// The preview job the model wants now, if any: the Preview tab shows a splittable leaf whose preview is not
    /// cached (first the histogram and the rule table, then the second direction for the scatter plot) and no
    /// preview is running.
    fn request_preview(&mut self) -> Option<Effect> {
        if self.tab != DetailTab::Preview || self.preview_running.is_some() {
            return None;
        }
        if !matches!(self.tree.unsplittable_reason(self.selected), Ok(None)) {
            return None;
        }
        let key = self.preview_key();
        let rules = self.preview_rules();
        // When a rule needs two directions anyway (PDDP(2) as the current rule), one job gives everything.
        let two_anyway = rules
            .iter()
            .any(|rule| rule.rule().directions_needed() >= 2);
        let second_direction = match self.previews.get(&key) {
            None => two_anyway,
            Some(entry) if entry.second_pending => true,
            Some(_) => return None,
        };
        self.preview_running = Some((key, second_direction));
        Some(Effect::Preview(PreviewJob {
            key,
            tree: self.tree.clone(),
            rules,
            second_direction,
        }))
    }

    fn previewed(&mut self, done: PreviewDone) {
        if self.preview_running == Some((done.key, done.second_direction)) {
            self.preview_running = None;
        }
        if done.key.epoch != self.preview_epoch {
            return;
        }
        let entry = match done.result {
            Ok(preview) => PreviewEntry {
                // A node with a single direction (two members) has no second coordinate to wait for.
                second_pending: !done.second_direction && preview.second.is_none(),
                result: Ok(Arc::new(preview)),
            },
            Err(error) => match self.previews.get(&done.key) {
                // The second direction failed: keep the first results, without the plot.
                Some(PreviewEntry {
                    result: Ok(first), ..
                }) => PreviewEntry {
                    result: Ok(Arc::clone(first)),
                    second_pending: false,
                },
                _ => PreviewEntry {
                    result: Err(error),
                    second_pending: false,
                },
            },
        };
        if self.previews.insert(done.key, entry).is_none() {
            self.preview_order.push_back(done.key);
        }
        while self.preview_order.len() > PREVIEW_CACHE {
            if let Some(old) = self.preview_order.pop_front() {
                self.previews.remove(&old);
            }
        }
    }

    /// A click: select the tree row or the document, switch to the tab, and focus the pane clicked.
    fn click(&mut self, region: Region) {
        match region {
            Region::TreeRow(id) => {
                self.focus = Pane::Tree;
                self.select(id);
            }
            Region::Tree => self.focus = Pane::Tree,
            Region::Tab(tab) => {
                self.focus = Pane::Detail;
                self.tab = tab;
            }
            Region::DocumentRow(index) => {
                self.focus = Pane::Detail;
                if index < self.detail.documents.len() {
                    self.document_cursor = index;
                }
            }
            Region::Detail => self.focus = Pane::Detail,
            // A popup takes keys, not clicks; the status line is not clickable.
            Region::Popup | Region::Elsewhere => {}
        }
    }

    /// A wheel notch: move the tree selection or the document cursor by one, scroll text by [`WHEEL_LINES`]. The
    /// focus stays where it was.
    fn scroll(&mut self, region: Region, down: bool) -> Vec<Effect> {
        let step = if down { Command::Down } else { Command::Up };
        match region {
            Region::TreeRow(_) | Region::Tree => self.move_in_tree(step),
            Region::Tab(_) | Region::DocumentRow(_) | Region::Detail => {
                let times = if self.tab == DetailTab::Documents {
                    1
                } else {
                    WHEEL_LINES
                };
                for _ in 0..times {
                    self.move_in_detail(step);
                }
            }
            Region::Popup => {
                if let Some(popup) = self.popup.take() {
                    if popup.context() != Context::Reader {
                        self.popup = Some(popup);
                        return Vec::new();
                    }
                    let mut popup = Some(popup);
                    for _ in 0..WHEEL_LINES {
                        if let Some(open) = popup.take() {
                            popup_command(self, open, step);
                            popup = self.popup.take();
                        }
                    }
                    self.popup = popup;
                }
            }
            Region::Elsewhere => {}
        }
        Vec::new()
    }

    /// Lines a scrollable popup holds, to bound its scrolling.
    fn popup_lines(&self, popup: &Popup) -> usize {
        match popup {
            Popup::Help { .. } => keys::help_lines().len() + 2,
            Popup::Confusion { .. } => self.derived.leaves.len() + 4,
            Popup::Viewer { document, .. } => self
                .data
                .documents
                .get(*document)
                .map_or(0, |d| d.text.lines().count() + 4),
            _ => 0,
        }
    }
}

/// Apply `action` to the model; returns the work to run elsewhere.
pub fn update(model: &mut Model, action: Action) -> Vec<Effect> {
    let mut effects = apply(model, action);
    // Whatever changed the selection, the tree or the tab, the Preview tab asks for its preview here.
    effects.extend(model.request_preview());
    effects
}

fn apply(model: &mut Model, action: Action) -> Vec<Effect> {
    match action {
        Action::Click(region) => {
            model.click(region);
            Vec::new()
        }
        Action::Scroll { region, down } => model.scroll(region, down),
        Action::Previewed(done) => {
            model.previewed(done);
            Vec::new()
        }
        Action::Finished(finished) => {
            finish(model, finished);
            Vec::new()
        }
        Action::Saved { revision, result } => {
            match result {
                Ok(path) => {
                    model.saved_revision = revision;
                    model.status = format!("session saved to {}", path.display());
                }
                Err(error) => model.status = error,
            }
            Vec::new()
        }
        Action::Exported(result) => {
            model.status = match result {
                Ok(paths) => exported_text(&paths),
                Err(error) => error,
            };
            Vec::new()
        }
        Action::Type(c) => {
            match &mut model.popup {
                Some(Popup::AutoSplit { input }) if c.is_ascii_digit() && input.len() < 6 => {
                    input.push(c);
                }
                Some(Popup::Name { input, .. } | Popup::Find { input })
                    if input.chars().count() < 60 =>
                {
                    input.push(c);
                }
                Some(Popup::Rules(picker)) if picker.param().is_some() => {
                    let typed = picker.typed.get_or_insert_with(String::new);
                    if typed.len() < 12 {
                        typed.push(c);
                    }
                    picker.apply_typed();
                }
                _ => {}
            }
            Vec::new()
        }
        Action::Command(command) => match model.popup.take() {
            Some(popup) => popup_command(model, popup, command),
            None => main_command(model, command),
        },
    }
}

fn finish(model: &mut Model, finished: Finished) {
    if model.busy.as_ref().map(|(id, _)| *id) != Some(finished.job) {
        // Cancelled, or superseded: the result is for a tree that is no longer current.
        return;
    }
    model.busy = None;
    model.job_progress = None;
    match finished.outcome {
        Ok(outcome) => {
            model.replace_tree(outcome.tree);
            if let Some(id) = outcome.select {
                model.collapsed.remove(&id);
                model.select(id);
            }
            model.status = outcome.message;
        }
        Err(error) => model.status = error,
    }
}

fn main_command(model: &mut Model, command: Command) -> Vec<Effect> {
    match command {
        Command::Up
        | Command::Down
        | Command::PageUp
        | Command::PageDown
        | Command::Top
        | Command::Bottom => match model.focus {
            Pane::Tree => model.move_in_tree(command),
            Pane::Detail => model.move_in_detail(command),
        },
        Command::Collapse => {
            let id = model.selected;
            let has_children = model.tree.node(id).is_some_and(|n| !n.is_leaf());
            if has_children && !model.collapsed.contains(&id) {
                model.collapsed.insert(id);
            } else if let Some(parent) = model.tree.node(id).and_then(|n| n.parent) {
                model.select(parent);
            }
        }
        Command::Expand => {
            model.collapsed.remove(&model.selected);
        }
        Command::NextPane => {
            model.focus = match model.focus {
                Pane::Tree => Pane::Detail,
                Pane::Detail => Pane::Tree,
            }
        }
        Command::Tab(index) => {
            if let Some(&tab) = DetailTab::ALL.get(usize::from(index)) {
                model.tab = tab;
            }
        }
        Command::PrevTab | Command::NextTab => {
            let n = DetailTab::ALL.len();
            let step = if command == Command::NextTab {
                1
            } else {
                n - 1
            };
            model.tab = DetailTab::ALL[(model.tab.index() + step) % n];
        }
        Command::Split => return model.split(model.selected),
        Command::SplitSuggested => match model.tree.suggest(model.policy) {
            Some(id) => {
                model.select(id);
                return model.split(id);
            }
            None => model.status = "no leaf left to split".into(),
        },
        Command::AutoSplit => {
            model.popup = Some(Popup::AutoSplit {
                input: String::new(),
            })
        }
        Command::Merge => {
            let Some(node) = model.tree.node(model.selected) else {
                return Vec::new();
            };
            let target = if node.is_leaf() {
                node.parent
            } else {
                Some(node.id)
            };
            match target {
                Some(id) if model.busy.is_none() => {
                    let mut tree = model.tree.clone();
                    match tree.merge(id) {
                        Ok(()) => {
                            model.selected = id;
                            model.replace_tree(tree);
                            model.status = format!("merged #{id} back into a leaf");
                        }
                        Err(error) => model.status = error.to_string(),
                    }
                }
                Some(_) => model.status = "busy: wait for the split or cancel it (Esc)".into(),
                None => model.status = "the root is a leaf: nothing to merge".into(),
            }
        }
        Command::Undo | Command::Redo => {
            let undo = command == Command::Undo;
            if model.busy.is_some() {
                model.status = "busy: wait for the split or cancel it (Esc)".into();
            } else {
                let snapshot = if undo {
                    model.undo.pop()
                } else {
                    model.redo.pop()
                };
                match snapshot {
                    Some(snapshot) => {
                        model.restore(snapshot, undo);
                        model.status = if undo { "undone" } else { "redone" }.into();
                    }
                    None => {
                        model.status = format!("nothing to {}", if undo { "undo" } else { "redo" })
                    }
                }
            }
        }
        Command::RulePicker => {
            model.popup = Some(Popup::Rules(RulePicker {
                cursor: model.rule_index,
                rule_index: model.rule_index,
                params: PickerParams {
                    rule: model.params,
                    kernel: model.kernel.clone(),
                },
                typed: None,
                error: None,
            }))
        }
        Command::CyclePolicy => {
            model.policy = match model.policy {
                SelectPolicy::Scatter => SelectPolicy::Size,
                SelectPolicy::Size => SelectPolicy::Variance,
                SelectPolicy::Variance => SelectPolicy::Scatter,
            };
            model.derived.suggestion = model.tree.suggest(model.policy);
            model.status = format!(
                "next split: the leaf of largest {}",
                policy_name(model.policy)
            );
        }
        Command::Confusion => {
            if model.has_labels() {
                model.popup = Some(Popup::Confusion { scroll: 0 });
            } else {
                model.status = "the corpus has no labels: no confusion view".into();
            }
        }
        Command::OpenDocument => {
            if model.tab == DetailTab::Documents
                && let Some(&document) = model.detail.documents.get(model.document_cursor)
            {
                model.popup = Some(Popup::Viewer {
                    document,
                    scroll: 0,
                });
            }
        }
        Command::Export => {
            model.status = format!("exporting to {}…", model.export_dir.display());
            return vec![Effect::Export(Export {
                tree: model.tree.clone(),
                dir: model.export_dir.clone(),
            })];
        }
        Command::Save => return model.save(),
        Command::Rename => {
            let input = model
                .tree
                .node(model.selected)
                .and_then(|n| n.name.clone())
                .unwrap_or_default();
            model.popup = Some(Popup::Name {
                node: model.selected,
                input,
            });
        }
        Command::Find => {
            model.popup = Some(Popup::Find {
                input: String::new(),
            })
        }
        Command::Help => model.popup = Some(Popup::Help { scroll: 0 }),
        Command::Quit => {
            if model.dirty() {
                model.popup = Some(Popup::ConfirmQuit);
            } else {
                model.quit = true;
            }
        }
        Command::Cancel => {
            if let Some((_, what)) = model.busy.take() {
                // Kernel work stops at its next check; a linear split finishes in its own time and is dropped.
                if let Some(progress) = model.job_progress.take() {
                    progress.cancel();
                }
                model.status = format!("cancelled: {what}");
            }
        }
        Command::Confirm
        | Command::Yes
        | Command::No
        | Command::Increase
        | Command::Decrease
        | Command::Type
        | Command::Backspace
        | Command::Choose => {}
    }
    Vec::new()
}

/// The status line after an export: the folder and the files' common name.
fn exported_text(paths: &[PathBuf]) -> String {
    let Some(first) = paths.first() else {
        return "nothing exported".into();
    };
    let dir = first
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map_or_else(|| ".".to_string(), |d| d.display().to_string());
    let stem = first
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let extensions: Vec<String> = paths
        .iter()
        .filter_map(|p| p.extension().map(|e| e.to_string_lossy().into_owned()))
        .collect();
    format!(
        "exported to {}/{stem}.{{{}}}",
        dir.trim_end_matches('/'),
        extensions.join(",")
    )
}

pub fn policy_name(policy: SelectPolicy) -> &'static str {
    match policy {
        SelectPolicy::Scatter => "scatter",
        SelectPolicy::Size => "size",
        SelectPolicy::Variance => "variance",
    }
}

/// A command while `popup` is open (it has been taken out of the model; put it back to keep it open).
fn popup_command(model: &mut Model, mut popup: Popup, command: Command) -> Vec<Effect> {
    let lines = model.popup_lines(&popup);
    let mut effects = Vec::new();
    let keep = match (&mut popup, command) {
        (_, Command::Cancel) => false,
        (Popup::ConfirmQuit, Command::Yes) => {
            model.quit = true;
            false
        }
        (Popup::ConfirmQuit, Command::No) => false,
        (
            Popup::Help { scroll } | Popup::Confusion { scroll } | Popup::Viewer { scroll, .. },
            _,
        ) => {
            let last = lines.saturating_sub(1);
            *scroll = match command {
                Command::Up => scroll.saturating_sub(1),
                Command::Down => (*scroll + 1).min(last),
                Command::PageUp => scroll.saturating_sub(10),
                Command::PageDown => (*scroll + 10).min(last),
                Command::Top => 0,
                Command::Bottom => last,
                _ => *scroll,
            };
            true
        }
        (
            Popup::AutoSplit { input } | Popup::Name { input, .. } | Popup::Find { input },
            Command::Backspace,
        ) => {
            input.pop();
            true
        }
        (Popup::Name { node, input }, Command::Confirm) => {
            model.rename(*node, input);
            false
        }
        (Popup::Find { input }, Command::Confirm) => {
            model.find(input);
            false
        }
        (Popup::AutoSplit { input }, Command::Confirm) => match input.parse::<usize>() {
            Ok(k) if k >= 1 => {
                let what = format!("growing to {k} leaves with {}", model.rule_text());
                effects = model.start(
                    Work::Grow {
                        k,
                        rule: model.rule.clone(),
                        policy: model.policy,
                    },
                    what,
                );
                false
            }
            _ => {
                model.status = "type a number of leaves, at least 1".into();
                true
            }
        },
        (Popup::Rules(picker), command) => rule_picker_command(model, picker, command),
        _ => true,
    };
    if keep {
        model.popup = Some(popup);
    }
    effects
}

/// Returns whether the picker stays open.
fn rule_picker_command(model: &mut Model, picker: &mut RulePicker, command: Command) -> bool {
    let rows = RulePicker::rows();
    match command {
        Command::Up | Command::Down => {
            picker.typed = None;
            picker.cursor = if command == Command::Up {
                (picker.cursor + rows - 1) % rows
            } else {
                (picker.cursor + 1) % rows
            };
        }
        Command::Increase | Command::Decrease => picker.step(command == Command::Increase),
        Command::Backspace => {
            if let Some(typed) = &mut picker.typed {
                typed.pop();
            }
            picker.apply_typed();
        }
        Command::Choose if picker.cursor < RULE_COUNT => {
            picker.rule_index = picker.cursor;
        }
        Command::Confirm => {
            if picker.cursor < RULE_COUNT {
                picker.rule_index = picker.cursor;
            }
            if let Some(error) = picker.check() {
                picker.error = Some(error);
                return true;
            }
            let name = rule_name(picker.rule_index).unwrap_or("pddp");
            match RuleSpec::from_name_with(name, &picker.params.rule, &picker.params.kernel) {
                Ok(rule) => {
                    if rule != model.rule || picker.params.rule.tau != model.params.tau {
                        model.previews_outdated();
                    }
                    model.rule = rule;
                    model.rule_index = picker.rule_index;
                    model.params = picker.params.rule;
                    model.kernel = picker.params.kernel.clone();
                    model.status = format!("rule: {}", model.rule_text());
                    return false;
                }
                Err(error) => picker.error = Some(picker_message(&error.to_string())),
            }
        }
        _ => {}
    }
    true
}

/// Run a job: the engine's work, on whatever thread calls it (the worker thread, or a test directly).
pub fn perform(data: &Dataset, job: Job) -> Finished {
    let Job {
        id,
        mut tree,
        work,
        progress,
        memory_budget,
    } = job;
    let env = SplitEnv {
        texts: Some(&data.documents),
        progress: Some(&progress),
        memory_budget,
    };
    let outcome = match work {
        Work::Split { node, rule } => tree
            .split_in(&data.matrix, node, &rule, env)
            .map(|children| {
                let record = tree.node(node).and_then(|n| n.split.as_ref());
                let (before, after) =
                    record.map_or((0.0, 0.0), |r| (r.objective_before, r.objective_after));
                let ids: Vec<String> = children.iter().map(|c| format!("#{c}")).collect();
                let kernel = record
                    .and_then(|r| r.detail.kernel_summary())
                    .map_or(String::new(), |summary| format!(" · {summary}"));
                Outcome {
                    message: format!(
                        "split #{node} into {} with {}: scatter {before:.3} → {after:.3}{kernel}",
                        ids.join(" "),
                        rule.name()
                    ),
                    tree,
                    select: Some(node),
                }
            })
            .map_err(|e| e.to_string()),
        Work::Grow { k, rule, policy } => tree
            .grow_in(&data.matrix, &rule, k, policy, env)
            .map(|report| {
                let mut message = format!(
                    "{} splits with {}: {} leaves",
                    report.splits,
                    rule.name(),
                    tree.leaves().len()
                );
                if !report.refused.is_empty() {
                    message.push_str(&format!(", {} refused", report.refused.len()));
                }
                if let Some(reason) = &report.stopped_early {
                    message.push_str(&format!("; stopped early: {reason}"));
                }
                Outcome {
                    tree,
                    select: None,
                    message,
                }
            })
            .map_err(|e| e.to_string()),
    };
    Finished { job: id, outcome }
}

/// Compute a split preview: on the worker thread, or in a test directly.
pub fn perform_preview(data: &Dataset, job: PreviewJob) -> PreviewDone {
    let labels: Vec<Option<u32>> = data.documents.iter().map(|d| d.label).collect();
    let label_count = data.label_names.len();
    let labels = (label_count > 0).then_some((labels.as_slice(), label_count));
    let result = preview::preview(
        &job.tree,
        &data.matrix,
        job.key.node,
        &job.rules,
        labels,
        job.second_direction,
    )
    .map_err(|e| e.to_string());
    PreviewDone {
        key: job.key,
        second_direction: job.second_direction,
        result,
    }
}
