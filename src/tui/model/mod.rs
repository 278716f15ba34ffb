//! The TUI's state and the only code that changes it: [`update`] takes an [`Action`] (a key's command, a typed
//! character, a finished job) and returns the [`Effect`]s to run elsewhere (a split on a worker thread). Nothing
//! here touches a terminal, so the whole of it is tested with actions in and state out. The fields are private:
//! the view reads them through the methods below, and only `update` writes them.

mod alternatives;
mod detail_cache;
mod detail_job;
mod jobs;
mod labels;
mod moves;
pub(super) mod picker;
mod popups;
mod preview_cache;
mod reading;
mod replay;
mod scatter_sample;
pub(crate) mod search;
mod tree_ops;
mod update;

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

use pdx::cluster::rules::DEFAULT_MEMORY_BUDGET;
use pdx::cluster::{CheckedParams, RuleSpec, SelectPolicy, Tree};
use pdx::dataset::Dataset;
use pdx::progress::Progress;
use pdx::report::metrics::{self, ClusterFigures, Confusion, GlobalFigures};
use pdx::report::terms::{self, TermWeight};
use pdx::text::index::TextIndex;
use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::keymap::KeyMap;
use super::keys::{Command, Context};
use super::session::Source;

pub(super) use alternatives::{AlternativesView, ComparisonView};
pub(super) use detail_job::{DetailDone, perform_detail};
pub(super) use jobs::{Effect, Finished, PreviewDone, perform, perform_preview};
#[cfg(test)]
pub(super) use jobs::{PreviewStep, Work};
pub(super) use moves::LeafPicker;
pub(super) use picker::{FIELDS, RulePicker, rule_at, rule_count, used_by};
pub(super) use popups::Popup;
pub(super) use preview_cache::PREVIEW_CANCELLED;
pub(super) use reading::{Clock, LogEntry, shorten_path};
pub(super) use replay::{
    GLOBAL_WEIGHTS, LOCAL_WEIGHTS, ReplayDone, ReplayJob, ReplaySummary, WeightingForm,
    perform_replay,
};
#[cfg(test)]
pub(super) use scatter_sample::SCATTER_POINTS;
pub(super) use scatter_sample::ScatterSample;
pub(super) use search::{Mark, MarkKind, Search, count};
pub(super) use update::update;

/// Undo depth. A snapshot shares the nodes' members and centroids with the live tree, so it costs little, but
/// the history is still bounded.
const MAX_UNDO: usize = 100;

/// How far the Preview tab scrolls (its text part is shorter than this).
pub(super) const PREVIEW_LINES: usize = 40;

/// How many terms the Terms tab lists.
pub(super) const DETAIL_TERMS: usize = 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Pane {
    Tree,
    Detail,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum DetailTab {
    Terms,
    Labels,
    Documents,
    /// What the linear rules would do to the selected leaf, or the split the selected node had.
    Preview,
}

impl DetailTab {
    pub(super) const ALL: [DetailTab; 4] = [
        DetailTab::Terms,
        DetailTab::Labels,
        DetailTab::Documents,
        DetailTab::Preview,
    ];

    pub(super) fn index(self) -> usize {
        match self {
            DetailTab::Terms => 0,
            DetailTab::Labels => 1,
            DetailTab::Documents => 2,
            DetailTab::Preview => 3,
        }
    }

    pub(super) fn title(self) -> &'static str {
        match self {
            DetailTab::Terms => "Terms",
            DetailTab::Labels => "Labels",
            DetailTab::Documents => "Documents",
            DetailTab::Preview => "Preview",
        }
    }
}

/// What a mouse event points at (found by the view, which knows the layout).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Region {
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

#[derive(Debug, Clone)]
pub(super) enum Action {
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
    /// The detail pane's passes over a large node, made on a worker thread.
    Detailed(DetailDone),
    /// The search index, built on a worker thread.
    Indexed(search::BuiltIndex),
    /// The collection's cache entry, written on a worker thread after loading: its file, or why not.
    CacheWritten(Result<PathBuf, String>),
    /// A recovered session's file deleted (or not), after it was reopened (`accepted`) or discarded.
    RecoveryRemoved {
        accepted: bool,
        result: Result<PathBuf, String>,
    },
    /// A rebuild of the matrix and replay of the tree, finished.
    Replayed(Box<ReplayDone>),
}

/// What the model shows of the whole tree, recomputed when the tree changes.
#[derive(Debug, Clone)]
pub(super) struct Derived {
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
    /// Per node: its top words, which describe a node without a name.
    pub words: HashMap<usize, reading::NodeWords>,
}

/// What the detail pane shows of the selected node, recomputed when the selection or the tree changes.
#[derive(Debug, Clone, Default)]
pub(super) struct Detail {
    pub node: usize,
    pub top_terms: Vec<TermWeight>,
    pub discriminating: Vec<TermWeight>,
    /// What the discriminating terms are against ("#2", "the rest of #0"); none for the root.
    pub against: Option<String>,
    /// Members, nearest the centroid first (those the filter lets through); ranked only when something shows
    /// them (the Documents tab, a filter's count), shared with the cache that keeps the ranking.
    pub documents: Arc<Vec<usize>>,
    /// Whether `documents` holds the ranking (false: not asked for yet).
    pub ranked: bool,
    /// Whether the terms wait for centroids a worker computes (the node is large and new).
    pub pending: bool,
    /// Whether `documents` waits for a ranking a worker computes.
    pub ranking_pending: bool,
}

#[derive(Debug, Clone)]
struct Snapshot {
    tree: Tree,
    /// The dataset the tree is over: a rebuild and replay changes both (shared, so a snapshot stays cheap).
    data: Arc<Dataset>,
    revision: u64,
    /// The change made from this state (kept in the undo stack) or to it (in the redo stack): what undo and
    /// redo say they did.
    change: String,
}

/// Undo and redo, and the revision that tells whether the tree is saved.
#[derive(Debug, Default)]
struct History {
    undo: Vec<Snapshot>,
    redo: Vec<Snapshot>,
    /// Identifies the tree's state, so that undoing back to the saved state makes the model clean again.
    revision: u64,
    next_revision: u64,
    saved_revision: u64,
}

/// What the model starts with.
pub(super) struct Start {
    pub data: Arc<Dataset>,
    /// False when NO_COLOR is set.
    pub colors: bool,
    /// The largest kernel matrix a split may build.
    pub memory_budget: u64,
    /// Where `x` writes its files.
    pub export_dir: PathBuf,
    /// What the corpus was loaded from, for `w` (none: sessions cannot be saved).
    pub source: Option<Source>,
    /// Where `w` writes the session (none: no data folder).
    pub session_dir: Option<PathBuf>,
    /// The rule splits use until the user picks another.
    pub rule: RuleSpec,
    /// What the status line says first (the default: how to get help).
    pub note: Option<String>,
    /// Start label-blind: labels and the figures measured against them hidden.
    pub blind: bool,
    /// The message log's clock.
    pub clock: Clock,
    /// The key table, as the config file remapped it.
    pub keys: Arc<KeyMap>,
    /// How long the corpus took to load, for the exports (none: not measured).
    pub timings: Option<pdx::dataset::Timings>,
    /// The documents' full-text index, built already (none: the model builds it).
    pub index: Option<Arc<TextIndex>>,
    /// Without `index`, build it on a worker ([`Model::start_indexing`]) rather than in [`Model::new`].
    pub index_in_background: bool,
}

impl Start {
    /// `data` with the defaults: the default rule and memory budget, exports to the current folder, no sessions.
    pub(super) fn new(data: Arc<Dataset>, colors: bool) -> Start {
        Start {
            data,
            colors,
            memory_budget: DEFAULT_MEMORY_BUDGET,
            export_dir: PathBuf::from("."),
            source: None,
            session_dir: None,
            rule: RuleSpec::default(),
            note: None,
            blind: false,
            clock: std::time::SystemTime::now,
            keys: Arc::new(KeyMap::default()),
            timings: None,
            index: None,
            index_in_background: false,
        }
    }
}

pub(super) struct Model {
    data: Arc<Dataset>,
    tree: Tree,
    history: History,
    selected: usize,
    collapsed: BTreeSet<usize>,
    focus: Pane,
    tab: DetailTab,
    /// Row under the cursor in the Documents tab.
    document_cursor: usize,
    /// Scroll of the Terms and Labels tabs.
    detail_scroll: usize,
    /// Row under the cursor in the Preview's rule table, kept from leaf to leaf (the same rule's row); none until
    /// it moves: the current rule's row.
    preview_cursor: Option<usize>,
    /// The parameters last chosen in the picker, for every rule.
    params: CheckedParams,
    memory_budget: u64,
    rule: RuleSpec,
    policy: SelectPolicy,
    popup: Option<Popup>,
    status: String,
    /// The running job: its id and what it does.
    busy: Option<(u64, String)>,
    /// The running job's progress report, through which Esc stops it.
    job_progress: Option<Arc<Progress>>,
    next_job: u64,
    quit: bool,
    colors: bool,
    export_dir: PathBuf,
    source: Option<Source>,
    session_dir: Option<PathBuf>,
    derived: Derived,
    document_labels: labels::DocumentLabels,
    detail: Detail,
    previews: preview_cache::PreviewCache,
    /// The node marked for comparison with the selected one.
    mark: Option<usize>,
    /// Labels and the figures against them hidden.
    blind: bool,
    clock: Clock,
    /// Every status message of the session.
    log: Vec<LogEntry>,
    /// The key table in effect.
    keys: Arc<KeyMap>,
    /// Documents (columns) marked in the Documents tab, for a move by hand.
    marked_documents: BTreeSet<usize>,
    /// How long the corpus took to load.
    load_timings: Option<pdx::dataset::Timings>,
    /// The time the splits and growths of the session took, in milliseconds.
    split_ms: f64,
    /// The Terms tab's cursor (stop words and weighting without restarting).
    replay: replay::ReplayState,
    /// The documents' full-text index (none while a worker builds it), the active search (`/`, n/N) and the
    /// Documents tab's filter (`f`).
    index: Option<Arc<TextIndex>>,
    /// How many texts the worker building the index has read.
    indexed: Arc<std::sync::atomic::AtomicUsize>,
    /// A search or filter was refused while the index was built: say when it is ready.
    search_waited: bool,
    search: Option<Search>,
    filter: Option<search::Filter>,
    /// The centroids and rankings of the nodes shown last.
    detail_cache: detail_cache::DetailCache,
    /// The node a detail job is computing for, if one runs.
    detail_running: Option<usize>,
    /// Passes over more stored entries than this go to a detail job ([`detail_job::DETAIL_INLINE_ENTRIES`]).
    detail_inline: usize,
}

impl Model {
    pub(super) fn new(start: Start) -> Model {
        let tree = Tree::for_dataset(&start.data);
        let selected = tree.root();
        let params = start
            .rule
            .params()
            .check()
            .unwrap_or_else(|error| panic!("a rule's own parameters are valid: {error}"));
        let index = match start.index {
            Some(index) => Some(index),
            None if start.index_in_background => None,
            None => Some(Arc::new(search::build_index(&start.data, None))),
        };
        let mut model = Model {
            data: start.data,
            tree,
            history: History {
                next_revision: 1,
                ..History::default()
            },
            selected,
            collapsed: BTreeSet::new(),
            focus: Pane::Tree,
            tab: DetailTab::Terms,
            document_cursor: 0,
            detail_scroll: 0,
            preview_cursor: None,
            params,
            memory_budget: start.memory_budget,
            rule: start.rule,
            policy: SelectPolicy::Scatter,
            popup: None,
            status: start.note.unwrap_or_else(|| "? for help".into()),
            busy: None,
            job_progress: None,
            next_job: 1,
            quit: false,
            colors: start.colors,
            export_dir: start.export_dir,
            source: start.source,
            session_dir: start.session_dir,
            document_labels: labels::DocumentLabels::default(),
            derived: Derived {
                leaves: Vec::new(),
                objective: 0.0,
                suggestion: None,
                label_counts: HashMap::new(),
                node_figures: HashMap::new(),
                confusion: Confusion { counts: Vec::new() },
                leaf_figures: Vec::new(),
                global: None,
                words: HashMap::new(),
            },
            detail: Detail::default(),
            previews: preview_cache::PreviewCache::default(),
            mark: None,
            blind: start.blind,
            clock: start.clock,
            log: Vec::new(),
            keys: start.keys,
            marked_documents: BTreeSet::new(),
            load_timings: start.timings,
            split_ms: 0.0,
            replay: replay::ReplayState::default(),
            index,
            indexed: Arc::default(),
            search_waited: false,
            search: None,
            filter: None,
            detail_cache: detail_cache::DetailCache::default(),
            detail_running: None,
            detail_inline: detail_job::DETAIL_INLINE_ENTRIES,
        };
        model.tree_changed();
        model.record_status();
        model
    }

    /// The key table in effect (the help screen and the status hints show its keys).
    pub(super) fn keys(&self) -> &KeyMap {
        &self.keys
    }

    pub(super) fn data(&self) -> &Arc<Dataset> {
        &self.data
    }

    pub(super) fn tree(&self) -> &Tree {
        &self.tree
    }

    pub(super) fn selected(&self) -> usize {
        self.selected
    }

    pub(super) fn is_collapsed(&self, id: usize) -> bool {
        self.collapsed.contains(&id)
    }

    pub(super) fn focus(&self) -> Pane {
        self.focus
    }

    pub(super) fn tab(&self) -> DetailTab {
        self.tab
    }

    pub(super) fn document_cursor(&self) -> usize {
        self.document_cursor
    }

    pub(super) fn detail_scroll(&self) -> usize {
        self.detail_scroll
    }

    pub(super) fn rule(&self) -> &RuleSpec {
        &self.rule
    }

    pub(super) fn policy(&self) -> SelectPolicy {
        self.policy
    }

    pub(super) fn popup(&self) -> Option<&Popup> {
        self.popup.as_ref()
    }

    pub(super) fn status(&self) -> &str {
        &self.status
    }

    /// What the running job does, if one runs.
    pub(super) fn busy(&self) -> Option<&str> {
        self.busy.as_ref().map(|(_, what)| what.as_str())
    }

    /// The running job's progress report.
    pub(super) fn job_progress(&self) -> Option<&Arc<Progress>> {
        self.job_progress.as_ref()
    }

    pub(super) fn quit_requested(&self) -> bool {
        self.quit
    }

    pub(super) fn colors(&self) -> bool {
        self.colors
    }

    pub(super) fn derived(&self) -> &Derived {
        &self.derived
    }

    pub(super) fn detail(&self) -> &Detail {
        &self.detail
    }

    /// True when the tree differs from the one at start (or the last save).
    pub(super) fn dirty(&self) -> bool {
        self.history.revision != self.history.saved_revision
    }

    pub(super) fn has_labels(&self) -> bool {
        self.derived.global.is_some()
    }

    /// Key contexts in the order they are searched.
    pub(super) fn contexts(&self) -> Vec<Context> {
        match &self.popup {
            Some(popup) => vec![popup.context()],
            None => match self.focus {
                Pane::Tree => vec![Context::Tree, Context::Main],
                Pane::Detail if self.tab == DetailTab::Preview => {
                    vec![Context::PreviewTable, Context::Detail, Context::Main]
                }
                Pane::Detail if self.tab == DetailTab::Documents => {
                    vec![Context::Documents, Context::Detail, Context::Main]
                }
                Pane::Detail if self.tab == DetailTab::Terms => {
                    vec![Context::TermList, Context::Detail, Context::Main]
                }
                Pane::Detail => vec![Context::Detail, Context::Main],
            },
        }
    }

    /// The action a key means here, if any.
    pub(super) fn action_for(&self, key: &KeyEvent) -> Option<Action> {
        let command = self.keys.lookup(&self.contexts(), key)?;
        Some(match (command, key.code) {
            (Command::Type, KeyCode::Char(c)) => Action::Type(c),
            (command, _) => Action::Command(command),
        })
    }

    /// Visible nodes in display order with their depth (children of collapsed nodes hidden).
    pub(super) fn visible(&self) -> Vec<(usize, usize)> {
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

    /// A node as the tree pane names it: its name, or `#id`.
    pub(super) fn label(&self, id: usize) -> String {
        match self.tree.node(id).and_then(|n| n.name.as_deref()) {
            Some(name) => name.to_string(),
            None => format!("#{id}"),
        }
    }

    fn tree_changed(&mut self) {
        let labels = self.document_labels.of(&self.data);
        let data = &self.data;
        let tree = &self.tree;
        let label_count = data.label_names.len();
        let leaves = tree.leaves();
        let assignments = tree.assignments(data.matrix.cols());
        let mut derived = Derived {
            leaves: Vec::new(),
            objective: tree.objective(),
            suggestion: tree.suggest(self.policy),
            label_counts: HashMap::new(),
            node_figures: HashMap::new(),
            confusion: metrics::confusion(&assignments, &labels, leaves.len(), label_count),
            leaf_figures: Vec::new(),
            global: None,
            words: reading::top_words(
                tree,
                terms::Words::of(data),
                std::mem::take(&mut self.derived.words),
            ),
        };
        let (per_leaf, global) = metrics::figures(&derived.confusion, label_count);
        if label_count > 0 && global.labelled > 0 {
            derived.leaf_figures = per_leaf;
            derived.global = Some(global);
            // Children before their parent: an inner node's counts are its children's summed (they share out
            // its members), so the documents are counted once per tree change, not once per level.
            for id in tree.depth_first().into_iter().rev() {
                let Some(node) = tree.node(id) else {
                    continue;
                };
                let children: Option<Vec<&Vec<usize>>> = node
                    .children
                    .iter()
                    .map(|c| derived.label_counts.get(c))
                    .collect();
                let counts = match children {
                    Some(children)
                        if !children.is_empty()
                            && node
                                .children
                                .iter()
                                .filter_map(|&c| tree.node(c))
                                .map(|c| c.size())
                                .sum::<usize>()
                                == node.size() =>
                    {
                        let mut counts = vec![0usize; label_count];
                        for child in children {
                            for (total, count) in counts.iter_mut().zip(child) {
                                *total += count;
                            }
                        }
                        counts
                    }
                    _ => {
                        let mut counts = vec![0usize; label_count];
                        for &j in node.members.iter() {
                            if let Some(Some(l)) = labels.get(j) {
                                counts[*l as usize] += 1;
                            }
                        }
                        counts
                    }
                };
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
        self.compute_detail();
    }

    /// Passes over more stored entries than `limit` go to a worker (tests set it low to see the job's path).
    #[cfg(test)]
    pub(super) fn set_detail_inline(&mut self, limit: usize) {
        self.detail_inline = limit;
        self.detail_cache = detail_cache::DetailCache::default();
        self.selection_changed();
    }

    /// The selected node's detail: at once when its centroids are kept or cheap, else a placeholder that asks a
    /// worker for them ([`Model::request_detail`]).
    fn compute_detail(&mut self) {
        let Some(node) = self.tree.node(self.selected) else {
            self.detail = Detail::default();
            return;
        };
        // The tree keeps a leaf's centroid; an inner node's is one pass over its members, kept for the nodes shown
        // last (a dense vector each, a few of them), so that coming back to a large node costs no pass again. A
        // long pass goes to a worker.
        if self.too_long_for_a_key(&self.centroids_missing(node.id)) {
            self.detail = Self::waiting_detail(node.id);
            return;
        }
        // Over precomputed vectors the words come from the term matrix, a pass over the members' terms.
        let words = terms::Words::of(&self.data);
        let centroid_of = |id: usize| match words.grown_on() {
            true => self.detail_cache.centroid(&self.data, &self.tree, id),
            false => words.centroid(&self.tree, id).ok().map(Arc::new),
        };
        let Some(centroid) = centroid_of(node.id) else {
            self.detail = Detail::default();
            return;
        };
        // Shown as words ("company"), not the stems the matrix is keyed by ("compani").
        let names = words.words();
        let top_terms = terms::top_terms(&centroid, names, DETAIL_TERMS);
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
                    [one] => match centroid_of(*one) {
                        Some(sibling) => (sibling, self.label(*one)),
                        None => (Arc::new(vec![0.0; centroid.len()]), String::new()),
                    },
                    _ => (
                        Arc::new(terms::rest_centroid(
                            &centroid_of(parent.id)
                                .unwrap_or_else(|| Arc::new(vec![0.0; centroid.len()])),
                            parent.size(),
                            &centroid,
                            node.size(),
                        )),
                        format!("the rest of {}", self.label(parent.id)),
                    ),
                };
                (
                    terms::discriminating_terms(&centroid, &other, names, DETAIL_TERMS),
                    Some(against),
                )
            }
            None => (Vec::new(), None),
        };
        self.detail = Detail {
            node: node.id,
            top_terms,
            discriminating,
            against,
            documents: Arc::default(),
            ranked: false,
            pending: false,
            ranking_pending: false,
        };
        self.rank_documents();
    }

    /// Rank the selected node's members when something shows them (the Documents tab, or a filter, whose count
    /// the detail pane's title gives) and they are not ranked yet: a pass over the members and a sort, once per
    /// node (the cache keeps the last few), never on a move through the tree on the other tabs.
    pub(super) fn rank_documents(&mut self) {
        if self.detail.ranked || (self.tab != DetailTab::Documents && self.filter.is_none()) {
            return;
        }
        let node = self.detail.node;
        if self.detail.pending
            || (!self.detail_cache.has_ranking(&self.data, &self.tree, node)
                && self.too_long_for_a_key(&[node]))
        {
            self.detail.ranking_pending = true;
            return;
        }
        self.detail.ranking_pending = false;
        let Some(ranking) = self
            .detail_cache
            .ranking(&self.data, &self.tree, self.detail.node)
        else {
            return;
        };
        self.detail.documents = self.filtered(ranking);
        self.detail.ranked = true;
    }

    fn select(&mut self, id: usize) {
        if self.tree.node(id).is_some() && id != self.selected {
            self.selected = id;
            self.selection_changed();
        }
    }
}
