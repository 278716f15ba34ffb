//! The analyst's work, what a session file keeps: the dataset and the tree over it, the steps that made the tree
//! (the script `x` exports), the undo history and the revision that tells whether the tree is saved, the rule and
//! its parameters, the selection policy, and what the screen shows of the whole tree ([`Derived`]), recomputed
//! whenever the tree changes.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::choice::Choice;
use crate::cluster::{CheckedParams, Params, RuleSpec, SelectPolicy, Tree};
use crate::dataset::{Dataset, Timings};
use crate::report::metrics::{self, ClusterFigures, Confusion, GlobalFigures};
use crate::report::preview;
use crate::report::settings::Settings;
use crate::report::terms;
use crate::steps::{Script, Step};

use super::super::session::{self, Restored, Session, Source};
use super::labels::DocumentLabels;
use super::reading::{self, NodeWords};

/// Undo depth. A snapshot shares the nodes' members and centroids with the live tree, so it costs little, but
/// the history is still bounded.
const MAX_UNDO: usize = 100;

/// What the screen shows of the whole tree, recomputed when the tree changes.
#[derive(Debug, Clone)]
pub(crate) struct Derived {
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
    pub words: HashMap<usize, NodeWords>,
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
    /// The steps that made `tree`: undo takes a change's steps out of the script with it.
    steps: Steps,
}

/// The steps that made the tree, in order: every change that stands, as the script records it.
#[derive(Debug, Clone)]
pub(crate) struct Steps {
    list: Vec<Arc<Step>>,
    /// Whether `list` makes the tree from the collection as loaded: not after a session saved by a pdx that kept
    /// no steps was reopened on a tree already grown (its earlier steps are not known).
    complete: bool,
}

impl Steps {
    /// No step yet: the tree as loaded.
    fn new() -> Steps {
        Steps {
            list: Vec::new(),
            complete: true,
        }
    }

    /// The steps, when they make the tree from the collection as loaded.
    pub(crate) fn known(&self) -> Option<&[Arc<Step>]> {
        self.complete.then_some(&self.list[..])
    }
}

/// Undo and redo, and the revision that tells whether the tree is saved.
#[derive(Debug)]
struct History {
    undo: Vec<Snapshot>,
    redo: Vec<Snapshot>,
    /// Identifies the tree's state, so that undoing back to the saved state makes the work clean again.
    revision: u64,
    next_revision: u64,
    saved_revision: u64,
}

pub(crate) struct Analysis {
    data: Arc<Dataset>,
    tree: Tree,
    history: History,
    /// The rule splits use until the analyst picks another.
    rule: RuleSpec,
    /// The parameters last chosen in the picker, for every rule.
    params: CheckedParams,
    policy: SelectPolicy,
    derived: Derived,
    labels: DocumentLabels,
    /// How long the corpus took to load (none: not measured).
    load_timings: Option<Timings>,
    /// The time the splits and growths of the session took, in milliseconds.
    split_ms: f64,
    /// The steps that made `tree`.
    steps: Steps,
}

impl Analysis {
    pub(super) fn new(
        data: Arc<Dataset>,
        rule: RuleSpec,
        params: &Params,
        policy: SelectPolicy,
        load_timings: Option<Timings>,
    ) -> Analysis {
        // The picker's values: those given, with the rule's own over them.
        let params = rule
            .def()
            .params
            .iter()
            .fold(params.clone(), |kept, &param| {
                kept.with(param, rule.params())
            })
            .check()
            .unwrap_or_else(|error| panic!("checked parameters stay valid: {error}"));
        let tree = Tree::for_dataset(&data);
        let mut labels = DocumentLabels::default();
        let derived = derive(&tree, &data, &mut labels, policy, HashMap::new());
        Analysis {
            data,
            tree,
            history: History {
                undo: Vec::new(),
                redo: Vec::new(),
                revision: 0,
                next_revision: 1,
                saved_revision: 0,
            },
            rule,
            params,
            policy,
            derived,
            labels,
            load_timings,
            split_ms: 0.0,
            steps: Steps::new(),
        }
    }

    pub(crate) fn data(&self) -> &Arc<Dataset> {
        &self.data
    }

    pub(crate) fn tree(&self) -> &Tree {
        &self.tree
    }

    pub(crate) fn rule(&self) -> &RuleSpec {
        &self.rule
    }

    pub(crate) fn params(&self) -> &CheckedParams {
        &self.params
    }

    pub(crate) fn policy(&self) -> SelectPolicy {
        self.policy
    }

    pub(crate) fn derived(&self) -> &Derived {
        &self.derived
    }

    /// The tree's revision: which state of it the previews and the jobs were made for.
    pub(crate) fn revision(&self) -> u64 {
        self.history.revision
    }

    /// True when the tree differs from the one at start (or the last save).
    pub(crate) fn dirty(&self) -> bool {
        self.history.revision != self.history.saved_revision
    }

    pub(crate) fn has_labels(&self) -> bool {
        self.derived.global.is_some()
    }

    /// Every document's label, in column order.
    pub(crate) fn document_labels(&mut self) -> Arc<[Option<u32>]> {
        self.labels.of(&self.data)
    }

    /// A node as the tree pane names it: its name, or `#id`.
    pub(crate) fn label(&self, id: usize) -> String {
        node_label(&self.tree, id)
    }

    /// The leaf holding document `document`, if any.
    pub(crate) fn leaf_of(&self, document: usize) -> Option<usize> {
        self.derived.leaves.iter().copied().find(|&leaf| {
            self.tree
                .node(leaf)
                .is_some_and(|n| n.members.contains(&document))
        })
    }

    /// The rules a preview compares: those the registry previews (with the current parameters), and the current
    /// rule when it cuts along principal directions too (PDDP(l) with l > 1, for one).
    pub(crate) fn preview_rules(&self) -> Vec<RuleSpec> {
        let mut rules = preview::compared_rules(&self.params);
        if !rules.contains(&self.rule) && self.rule.rule().directions_needed() > 0 {
            rules.push(self.rule.clone());
        }
        rules
    }

    /// Replace the dataset and the tree over it after `change` (what undo will say it undid), made by `steps`
    /// (which the script records), keeping the old pair for undo.
    pub(super) fn replace(
        &mut self,
        data: Arc<Dataset>,
        tree: Tree,
        change: String,
        steps: Vec<Step>,
    ) {
        let old = std::mem::replace(&mut self.tree, tree);
        let old_data = std::mem::replace(&mut self.data, data);
        let old_steps = self.steps.clone();
        self.steps.list.extend(steps.into_iter().map(Arc::new));
        let history = &mut self.history;
        history.undo.push(Snapshot {
            tree: old,
            data: old_data,
            revision: history.revision,
            change,
            steps: old_steps,
        });
        if history.undo.len() > MAX_UNDO {
            history.undo.remove(0);
        }
        history.redo.clear();
        self.new_revision();
        self.rederive();
    }

    /// Replace the tree, keeping the dataset.
    pub(super) fn replace_tree(&mut self, tree: Tree, change: String, steps: Vec<Step>) {
        self.replace(Arc::clone(&self.data), tree, change, steps);
    }

    /// Undo (or redo) one change: the change undone (or redone), none when there is nothing to.
    pub(super) fn step_history(&mut self, undo: bool) -> Option<String> {
        let snapshot = match undo {
            true => self.history.undo.pop(),
            false => self.history.redo.pop(),
        }?;
        let old = Snapshot {
            tree: std::mem::replace(&mut self.tree, snapshot.tree),
            data: std::mem::replace(&mut self.data, snapshot.data),
            revision: self.history.revision,
            change: snapshot.change.clone(),
            steps: std::mem::replace(&mut self.steps, snapshot.steps),
        };
        match undo {
            true => self.history.redo.push(old),
            false => self.history.undo.push(old),
        }
        self.history.revision = snapshot.revision;
        self.rederive();
        Some(snapshot.change)
    }

    /// A state no save holds: a reopened recovery, which `q` asks about and a signal keeps again.
    pub(super) fn mark_unsaved(&mut self) {
        self.new_revision();
    }

    /// The tree at `revision` was saved.
    pub(super) fn saved(&mut self, revision: u64) {
        self.history.saved_revision = revision;
    }

    fn new_revision(&mut self) {
        self.history.revision = self.history.next_revision;
        self.history.next_revision += 1;
    }

    /// Take a session's dataset, tree, rule and parameters: the start of the undo history and the clean state.
    pub(super) fn restore(&mut self, data: Arc<Dataset>, restored: Restored) {
        self.data = data;
        self.params = restored.params;
        self.rule = restored.rule;
        self.policy = restored.policy;
        self.tree = restored.tree;
        self.steps = Steps {
            complete: restored.steps.is_some(),
            list: restored.steps.unwrap_or_default(),
        };
        self.history.undo.clear();
        self.history.redo.clear();
        // Another tree: what was made for the one before (previews, new documents' routes) is not for it.
        self.new_revision();
        self.history.saved_revision = self.history.revision;
        self.rederive();
    }

    /// The current rule and the parameters chosen for every rule.
    pub(super) fn set_rule(&mut self, rule: RuleSpec, params: CheckedParams) {
        self.rule = rule;
        self.params = params;
    }

    pub(super) fn cycle_policy(&mut self) {
        self.policy = self.policy.cycled(1);
        self.derived.suggestion = self.tree.suggest(self.policy);
    }

    /// Count the time of a split or growth of this session.
    pub(super) fn add_split_time(&mut self, millis: f64) {
        self.split_ms += millis;
    }

    /// The JSON report's `timings_ms`, under the keys `pdx cluster` uses: `load` (reading the files) and
    /// `matrix` (tokenising and weighting) when the load was measured (a cache hit reads instead), and
    /// `cluster`, the time of every split and growth run in this session (a reopened session's earlier ones
    /// are not known).
    pub(crate) fn export_timings(&self) -> BTreeMap<String, f64> {
        let mut timings = BTreeMap::new();
        if let Some(load) = &self.load_timings {
            timings.insert("load".to_string(), load.read);
            timings.insert("matrix".to_string(), load.tokenise + load.weight);
        }
        timings.insert("cluster".to_string(), self.split_ms);
        timings
    }

    /// What made the tree as it stands: the corpus loaded from `source`, what was changed since, the rule in
    /// use, the policy and the kernel memory budget; what an export and a session record.
    pub(crate) fn settings(&self, source: &Source, memory_budget: u64) -> Settings {
        Settings {
            memory_budget: Some(memory_budget),
            ..Settings::new(
                &source.paths,
                &source.options,
                &self.data,
                &self.rule,
                self.policy,
            )
        }
    }

    /// The script of the tree as it stands, the collection read with `source`'s options (unknown without a
    /// source); `None` when the steps are not known (see [`Steps`]).
    pub(crate) fn script(&self, source: Option<&Source>) -> Option<Script> {
        Some(Script {
            options: source.map(|source| source.options.clone().with_absolute_paths()),
            steps: self.steps.known()?.to_vec(),
        })
    }

    /// The session as it stands: what `w` writes.
    pub(crate) fn session(&self, source: &Source, memory_budget: u64) -> Session {
        Session {
            format: session::FORMAT.into(),
            version: session::VERSION,
            settings: self.settings(source, memory_budget),
            documents: self.data.matrix.cols(),
            terms: self.data.matrix.rows(),
            params: (&*self.params).into(),
            tree: self.tree.clone(),
            steps: self.steps.known().map(session::step_lines),
            new_documents: Vec::new(),
        }
    }

    fn rederive(&mut self) {
        let previous = std::mem::take(&mut self.derived.words);
        self.derived = derive(
            &self.tree,
            &self.data,
            &mut self.labels,
            self.policy,
            previous,
        );
    }
}

/// A node of `tree` as the screen names it: its name, or `#id`.
pub(crate) fn node_label(tree: &Tree, id: usize) -> String {
    match tree.node(id).and_then(|n| n.name.as_deref()) {
        Some(name) => name.to_string(),
        None => format!("#{id}"),
    }
}

/// What the screen shows of `tree`: its leaves and objective, the next leaf `policy` splits, the figures against
/// the labels, and each node's words (`previous` keeps those of nodes whose members did not change).
fn derive(
    tree: &Tree,
    data: &Arc<Dataset>,
    labels: &mut DocumentLabels,
    policy: SelectPolicy,
    previous: HashMap<usize, NodeWords>,
) -> Derived {
    let labels = labels.of(data);
    let label_count = data.label_names.len();
    let leaves = tree.leaves();
    let assignments = tree.assignments(data.matrix.cols());
    let mut derived = Derived {
        leaves: Vec::new(),
        objective: tree.objective(),
        suggestion: tree.suggest(policy),
        label_counts: HashMap::new(),
        node_figures: HashMap::new(),
        confusion: metrics::confusion(&assignments, &labels, leaves.len(), label_count),
        leaf_figures: Vec::new(),
        global: None,
        words: reading::top_words(tree, terms::Words::of(data), previous),
    };
    let (per_leaf, global) = metrics::figures(&derived.confusion, label_count);
    if label_count > 0 && global.labelled > 0 {
        derived.leaf_figures = per_leaf;
        derived.global = Some(global);
        // Children before their parent: an inner node's counts are its children's summed (they share out its
        // members), so the documents are counted once per tree change, not once per level.
        for id in tree.depth_first().into_iter().rev() {
            let Some(node) = tree.node(id) else {
                continue;
            };
            let children: Option<Vec<&Vec<usize>>> = node
                .children
                .iter()
                .map(|c| derived.label_counts.get(c))
                .collect();
            let children_cover_node = node
                .children
                .iter()
                .filter_map(|&c| tree.node(c))
                .map(|c| c.size())
                .sum::<usize>()
                == node.size();
            let counts = match children {
                Some(children) if !children.is_empty() && children_cover_node => {
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
    derived
}
