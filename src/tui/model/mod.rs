//! The interface's state and the only code that changes it. [`Model`] is a small root of owned parts, each in its
//! own module with its fields private to it: the analyst's work ([`analysis`]: dataset, tree, history, rule), the
//! tree pane, the detail pane, the previews, the search, the popup, the messages, the jobs and the settings.
//! [`update()`] is the only way in that changes anything: it takes an [`Action`] (a key's command, a click, a
//! typed character, the time, a finished job), routes it to the parts, and returns the [`Effect`](super::Effect)s to run away
//! from the event loop. Nothing here touches a terminal or reads a clock, so the whole of it is tested with
//! actions in and state out; the view reads the parts through `&Model` ([`read`]).

/// What the detail pane is about: the selected node of the model's tree, with the filter. A macro, not a method,
/// so that the fields are borrowed one by one and the detail pane can change beside them.
macro_rules! shown {
    ($model:expr) => {
        $crate::tui::model::detail::Shown {
            data: $model.analysis.data(),
            tree: $model.analysis.tree(),
            node: $model.tree_pane.selected(),
            filter: $model.search.filter(),
        }
    };
}

mod alternatives;
mod analysis;
mod confusion;
mod detail;
mod incoming;
mod jobs;
mod labels;
mod messages;
mod moves;
pub(crate) mod picker;
mod popups;
mod preview;
mod read;
mod reading;
mod replay;
mod scatter_sample;
mod search;
mod settings;
mod texts;
mod tree_pane;
mod update;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

use crate::cluster::rules::DEFAULT_MEMORY_BUDGET;
use crate::cluster::{Params, RuleSpec, SelectPolicy};
use crate::dataset::{Dataset, PendingCache, Timings};
use crate::text::index::TextIndex;

use super::effects::{Done, PreviewKey, PreviewStep};
use super::jobs::Jobs;
use super::keymap::KeyMap;
use super::keys::Command;
use super::recovery::Offer;
use super::session::{Session, Source};

pub(crate) use crate::report::replayed::ReplaySummary;
pub(crate) use alternatives::{AlternativesView, ComparisonView};
pub(crate) use analysis::Derived;
#[cfg(test)]
pub(crate) use detail::DETAIL_TERMS;
pub(crate) use detail::Detail;
pub(crate) use moves::{LeafPicker, Picking};
pub(crate) use picker::{FIELDS, RulePicker, rule_at, rule_count, used_by};
pub(crate) use popups::{FIELD_CHARS, Popup};
pub(crate) use preview::{PREVIEW_CANCELLED, PREVIEW_LINES, PreviewEntry};
pub(crate) use read::InContext;
pub(crate) use reading::{ConfusionGrid, shorten_path};
pub(crate) use replay::WeightingForm;
#[cfg(test)]
pub(crate) use scatter_sample::SCATTER_POINTS;
pub(crate) use scatter_sample::ScatterSample;
pub(crate) use search::{Mark, MarkKind, count};
pub use update::update;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pane {
    Tree,
    Detail,
}

impl Pane {
    /// What the status line calls the pane when it has the focus.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Pane::Tree => "tree",
            Pane::Detail => "detail",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DetailTab {
    Terms,
    Labels,
    Documents,
    /// What the linear rules would do to the selected leaf, or the split the selected node had.
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

    pub(crate) fn title(self) -> &'static str {
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

/// What the model takes in.
#[derive(Debug)]
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
    /// The wall clock, as the event loop read it: the time messages are logged at from now on.
    Tick(SystemTime),
    /// A job's result.
    Done(Done),
    /// The collection is open: its background jobs start (its search index, when the start gave none, and its
    /// cache entry, when it was built from the files).
    Opened(Option<Box<PendingCache>>),
    /// A session to take, read from its file (`pdx --session FILE`).
    OpenSession {
        path: PathBuf,
        session: Box<Session>,
    },
    /// What the start found of a tree a signal kept: the offer to reopen it, or why it cannot be offered.
    Recovered(Result<Box<Offer>, String>),
    /// The screen's size, as the event loop found it at start and after a change: how many documents' texts a
    /// list may show.
    Resize {
        width: u16,
        height: u16,
    },
}

/// What a job is for: at most one runs per key ([`Jobs`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JobKey {
    /// A change of the tree: a split, a growth, a rebuild and replay. The status line shows it; Esc cancels it.
    Tree,
    /// A step of a node's preview.
    Preview(PreviewKey, PreviewStep),
    /// The detail pane's passes over a large node.
    Detail,
    /// The documents' search index.
    Index,
    /// Documents' texts read for the screen.
    Read,
    /// A search or a filter of the texts.
    Search,
    Export,
    Save,
    /// The collection's cache entry.
    CacheWrite,
    /// A recovered session's file, deleted.
    Recovery,
    /// New documents routed down the tree.
    Assign,
}

/// What the model starts with.
pub struct Start {
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
    /// Every rule parameter's value, for the rules the analyst picks later (the rule's own come from `rule`).
    pub params: Params,
    /// Which leaf is suggested next until the user cycles the policy.
    pub policy: SelectPolicy,
    /// The leaves the auto-split prompt offers first (none: an empty prompt).
    pub leaves: Option<usize>,
    /// What the status line says first (the default: how to get help).
    pub note: Option<String>,
    /// Start label-blind: labels and the figures measured against them hidden.
    pub blind: bool,
    /// The time the first messages are logged at, until the event loop gives another ([`Action::Tick`]).
    pub now: SystemTime,
    /// The zone the message log shows its times in (the defaults: UTC; the terminal front end gives the
    /// system's).
    pub time_zone: jiff::tz::TimeZone,
    /// The key table, as the config file remapped it.
    pub keys: Arc<KeyMap>,
    /// How long the corpus took to load, for the exports (none: not measured).
    pub timings: Option<Timings>,
    /// The documents' full-text index, built already (none: a background job builds it once the collection is
    /// [`Action::Opened`]).
    pub index: Option<Arc<TextIndex>>,
}

impl Start {
    /// `data` with the defaults: the default rule and memory budget, exports to the current folder, no sessions,
    /// and the search index built at once (what the tests and benchmarks start with).
    pub fn new(data: Arc<Dataset>, colors: bool) -> Start {
        let index = Some(Arc::new(super::effects::search_index(&data)));
        Start {
            index,
            ..Start::without_index(data, colors)
        }
    }

    /// The defaults of [`Start::new`], with no search index: a background job builds it once the collection is
    /// [`Action::Opened`].
    pub fn without_index(data: Arc<Dataset>, colors: bool) -> Start {
        Start {
            data,
            colors,
            memory_budget: DEFAULT_MEMORY_BUDGET,
            export_dir: PathBuf::from("."),
            source: None,
            session_dir: None,
            rule: RuleSpec::default(),
            params: Params::default(),
            policy: SelectPolicy::default(),
            leaves: None,
            note: None,
            blind: false,
            now: SystemTime::UNIX_EPOCH,
            time_zone: jiff::tz::TimeZone::UTC,
            keys: Arc::new(KeyMap::default()),
            timings: None,
            index: None,
        }
    }
}

pub struct Model {
    analysis: analysis::Analysis,
    tree_pane: tree_pane::TreePane,
    detail: detail::DetailPane,
    preview: preview::PreviewPane,
    search: search::SearchPane,
    /// The documents' texts read for the screen.
    texts: texts::Texts,
    /// New documents added to the session, and where each went.
    incoming: incoming::NewDocuments,
    popup: Option<Popup>,
    messages: messages::Messages,
    jobs: Jobs<JobKey>,
    settings: settings::Settings,
    /// Which pane takes the movement keys.
    focus: Pane,
    quit: Quitting,
}

/// Whether the analyst asked to quit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quitting {
    No,
    /// The quit dialog's `w`: quit once the session is saved, stay if saving fails.
    WhenSaved,
    Now,
}

impl Model {
    pub fn new(start: Start) -> Model {
        let settings = settings::Settings::new(&start);
        let analysis = analysis::Analysis::new(
            start.data,
            start.rule,
            &start.params,
            start.policy,
            start.timings,
        );
        let tree_pane = tree_pane::TreePane::new(analysis.tree());
        let mut model = Model {
            tree_pane,
            detail: detail::DetailPane::new(),
            preview: preview::PreviewPane::default(),
            search: search::SearchPane::new(start.index),
            texts: texts::Texts::default(),
            incoming: incoming::NewDocuments::default(),
            popup: None,
            messages: messages::Messages::new(
                start.note.unwrap_or_else(|| "? for help".into()),
                start.now,
                start.time_zone,
            ),
            jobs: Jobs::default(),
            settings,
            focus: Pane::Tree,
            quit: Quitting::No,
            analysis,
        };
        model.show_selection();
        model.messages.record();
        model
    }

    /// Passes over more stored entries than `limit` go to a detail job (tests set it low to see the job's path).
    #[cfg(test)]
    pub(crate) fn set_detail_inline(&mut self, limit: usize) {
        self.detail.set_inline_limit(limit, &shown!(self));
    }
}

/// Rows a page key moves a cursor or a scroll by.
const PAGE_LINES: usize = 10;

/// A cursor or scroll position in `0..=last` after a movement command (other commands leave it).
pub(crate) fn scrolled(value: usize, command: Command, last: usize) -> usize {
    match command {
        Command::Up => value.saturating_sub(1),
        Command::Down => (value + 1).min(last),
        Command::PageUp => value.saturating_sub(PAGE_LINES),
        Command::PageDown => (value + PAGE_LINES).min(last),
        Command::Top => 0,
        Command::Bottom => last,
        _ => value,
    }
}
