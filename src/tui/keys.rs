//! The key map, declared once as data: `BINDINGS` decides what a key does in each context, and the same table
//! generates the `?` help screen and the key hint of the status line.

use std::sync::OnceLock;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::model::DetailTab;

/// Declares [`Command`] once, as rows: each variant with its doc comment. Its stable name, by which a config
/// file remaps it, is generated from the variant (kebab case: `PageUp` is `page-up`; a variant that takes a
/// value adds the value's name: `Tab(DetailTab::Terms)` is `tab-terms`), and so is [`Command::all`].
macro_rules! commands {
    ($( $(#[$doc:meta])* $variant:ident $(($value:ty))? ),* $(,)?) => {
        /// What a key asks for. Keys become commands through the key table (`BINDINGS`); commands become model changes in
        /// `update`.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Command {
            $( $(#[$doc])* $variant $(($value))? ),*
        }

        impl Command {
            /// Every command, each value of a command that takes one.
            // One push per row of the declaration, as the macro writes them.
            #[allow(clippy::vec_init_then_push)]
            pub(crate) fn all() -> Vec<Command> {
                let mut all = Vec::new();
                $( commands!(@push all $variant $(($value))?); )*
                all
            }

            /// The variant's name as declared (`PageUp`), and its value's name (`terms`) if it takes one.
            fn declared(self) -> (&'static str, Option<&'static str>) {
                match self {
                    $( commands!(@pattern $variant value $(($value))?) =>
                        (stringify!($variant), commands!(@value value $(($value))?)) ),*
                }
            }
        }
    };
    (@push $all:ident $variant:ident ($value:ty)) => {
        $all.extend(<$value as CommandValue>::ALL.iter().map(|&value| Command::$variant(value)))
    };
    (@push $all:ident $variant:ident) => { $all.push(Command::$variant) };
    (@pattern $variant:ident $bound:ident ($value:ty)) => { Command::$variant($bound) };
    (@pattern $variant:ident $bound:ident) => { Command::$variant };
    (@value $bound:ident ($value:ty)) => { Some(CommandValue::name($bound)) };
    (@value $bound:ident) => { None };
}

/// A value a command takes (the detail tab of [`Command::Tab`]): every value, and each one's name in the
/// command's stable name.
pub(crate) trait CommandValue: Copy + 'static {
    const ALL: &'static [Self];
    fn name(self) -> &'static str;
}

impl CommandValue for DetailTab {
    const ALL: &'static [DetailTab] = &DetailTab::ALL;
    fn name(self) -> &'static str {
        match self {
            DetailTab::Terms => "terms",
            DetailTab::Labels => "labels",
            DetailTab::Documents => "documents",
            DetailTab::Preview => "preview",
        }
    }
}

commands! {
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Collapse,
    Expand,
    NextPane,
    PrevTab,
    NextTab,
    /// Show a tab of the detail pane.
    Tab(DetailTab),
    Split,
    SplitSuggested,
    AutoSplit,
    Merge,
    Undo,
    Redo,
    RulePicker,
    CyclePolicy,
    Confusion,
    OpenDocument,
    /// Write the tree as JSON, CSV and Newick.
    Export,
    /// Name the selected node.
    Rename,
    /// Search the documents' texts for a word or phrase; list the hits.
    Find,
    /// The active search's next (or previous) hit, selected in its leaf.
    NextHit,
    PrevHit,
    /// Filter the Documents tab by a word or phrase.
    Filter,
    /// Save the session: corpus, options, rule and tree.
    Save,
    /// Make the selected node's next (or previous) alternative split the active one.
    NextSplit,
    PrevSplit,
    /// The selected node's alternative splits side by side.
    CompareSplits,
    /// In the side-by-side view of alternatives: compare the active split with the next other one.
    OtherSplit,
    /// Keep the selected node's active split, drop its alternatives.
    KeepSplit,
    /// Mark the selected node for comparison (or clear the mark).
    Mark,
    /// The marked node and the selected one side by side.
    CompareNodes,
    Help,
    Quit,
    /// Close a popup, or cancel the running job.
    Cancel,
    /// Ctrl-C on the main screen: cancel the running split or preview, else quit as [`Command::Quit`] does.
    Interrupt,
    /// Apply a popup (rule picker, prompt).
    Confirm,
    Yes,
    No,
    Increase,
    Decrease,
    /// A character typed into a value (a digit or `.`, or any character in a text prompt); it comes with the key.
    Type,
    Backspace,
    /// Pick the rule under the cursor in the rule picker.
    Choose,
    /// Hide or show the labels and every figure measured against them (label-blind exploration).
    ToggleLabels,
    /// The message log: every status message of the session with its time.
    MessageLog,
    /// Scroll a wide popup (the confusion view) sideways.
    Left,
    Right,
    /// Split the selected node with the rule under the cursor of the Preview's rule table.
    SplitWithRow,
    /// Make the rule under the cursor of the Preview's rule table the current rule.
    UseRow,
    /// Mark (or unmark) the document under the cursor, for a move by hand.
    MarkDocument,
    /// Move the marked documents (or the one under the cursor) to a leaf chosen in the leaf picker.
    MoveDocuments,
    /// Mark every document the Documents tab lists (the filter's, when one is set); when all are marked already,
    /// unmark them.
    MarkAll,
    /// Merge the selected leaf into another leaf, anywhere in the tree, chosen in the leaf picker.
    MergeInto,
    /// Add the word under the Terms tab's cursor to the stop words; rebuild the matrix and replay the tree.
    DropWord,
    /// The weighting and filters form.
    WeightingForm,
    /// Add new documents: a file or folder read, weighted as the collection's own and routed down the tree.
    AddDocuments,
    /// The new documents' list: each one's leaf, fit and least sure step.
    NewDocuments,
}

impl Command {
    /// The command's stable name, as the config file's `[keys]` table names it (`split = "S"`): the kebab case
    /// of its variant, and of its value's name when it takes one.
    pub(crate) fn name(self) -> &'static str {
        static NAMES: OnceLock<Vec<(Command, String)>> = OnceLock::new();
        let names = NAMES.get_or_init(|| {
            Command::all()
                .into_iter()
                .map(|command| {
                    let (variant, value) = command.declared();
                    let mut name = kebab_case(variant);
                    if let Some(value) = value {
                        name.push('-');
                        name.push_str(value);
                    }
                    (command, name)
                })
                .collect()
        });
        names
            .iter()
            .find(|(command, _)| *command == self)
            .map_or_else(
                || panic!("{self:?} is in Command::all"),
                |(_, name)| name.as_str(),
            )
    }
}

/// `PageUp` as `page-up`.
fn kebab_case(variant: &str) -> String {
    let mut name = String::new();
    for (i, c) in variant.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                name.push('-');
            }
            name.push(c.to_ascii_lowercase());
        } else {
            name.push(c);
        }
    }
    name
}

/// Where a binding applies: the main screen (either pane, or one of them) or one popup.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Context {
    Main,
    Tree,
    Detail,
    /// The detail pane on the Preview tab: its rule table has a cursor.
    PreviewTable,
    /// The detail pane on the Terms tab: its terms have a cursor.
    TermList,
    /// The weighting and filters form.
    WeightingForm,
    RulePicker,
    Prompt,
    /// A prompt for text: a node's name, a search.
    TextPrompt,
    Confirm,
    /// The offer, at start, to reopen a tree kept when a signal stopped pdx.
    Recovery,
    /// Help, message log, document viewer and comparisons: scrollable read-only popups.
    Reader,
    /// A node's alternative splits side by side: a cursor on the documents two of them dispute.
    Alternatives,
    /// The confusion view: a cursor on its cells.
    Confusion,
    /// The screen shown while the corpus loads.
    Loading,
    /// The detail pane on the Documents tab: documents can be marked and moved.
    Documents,
    /// The leaf picker: where documents moved by hand go.
    LeafPicker,
    /// The search's hits list.
    Hits,
    /// The new documents' list.
    NewDocuments,
}

impl Context {
    pub(crate) fn title(self) -> &'static str {
        match self {
            Context::Main => "Everywhere on the main screen",
            Context::Tree => "Tree pane",
            Context::Detail => "Detail pane",
            Context::PreviewTable => "Preview tab (detail pane)",
            Context::TermList => "Terms tab (detail pane)",
            Context::WeightingForm => "Weighting and filters",
            Context::RulePicker => "Rule picker",
            Context::Prompt => "Prompt",
            Context::TextPrompt => "Name, search and filter prompts",
            Context::Confirm => "Quit with the tree not saved",
            Context::Recovery => "Recovered tree (offered at start)",
            Context::Reader => "Read-only popups: help, log, viewer, comparisons",
            Context::Alternatives => "Alternative splits side by side (A)",
            Context::Confusion => "Confusion view",
            Context::Loading => "While loading",
            Context::Documents => "Documents tab (detail pane)",
            Context::LeafPicker => "Leaf picker (M: move documents, or merge a leaf)",
            Context::Hits => "Search hits",
            Context::NewDocuments => "New documents (+ adds them, = lists them)",
        }
    }
}

/// One key: a code with modifiers, or "any digit" (typed values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Key {
    Plain(KeyCode),
    Ctrl(char),
    Digits,
    /// Any printable character (text prompts).
    Text,
    /// Any ASCII letter, either case (the rule picker's jump to a rule).
    Letters,
}

impl Key {
    pub(crate) fn matches(self, event: &KeyEvent) -> bool {
        let ctrl = event.modifiers.contains(KeyModifiers::CONTROL);
        match self {
            Key::Plain(code) => !ctrl && event.code == code,
            Key::Ctrl(c) => ctrl && event.code == KeyCode::Char(c),
            Key::Digits => {
                !ctrl && matches!(event.code, KeyCode::Char(c) if c.is_ascii_digit() || c == '.')
            }
            Key::Text => !ctrl && matches!(event.code, KeyCode::Char(c) if !c.is_control()),
            Key::Letters => {
                !ctrl && matches!(event.code, KeyCode::Char(c) if c.is_ascii_alphabetic())
            }
        }
    }

    pub(crate) fn label(self) -> String {
        match self {
            Key::Plain(code) => match code {
                KeyCode::Char(' ') => "Space".into(),
                KeyCode::Char(c) => c.to_string(),
                KeyCode::Up => "↑".into(),
                KeyCode::Down => "↓".into(),
                KeyCode::Left => "←".into(),
                KeyCode::Right => "→".into(),
                KeyCode::Enter => "Enter".into(),
                KeyCode::Esc => "Esc".into(),
                KeyCode::Tab => "Tab".into(),
                KeyCode::Home => "Home".into(),
                KeyCode::End => "End".into(),
                KeyCode::PageUp => "PgUp".into(),
                KeyCode::PageDown => "PgDn".into(),
                KeyCode::Backspace => "Bksp".into(),
                other => format!("{other:?}"),
            },
            Key::Ctrl(c) => format!("Ctrl-{c}"),
            Key::Digits => "0-9 .".into(),
            Key::Text => "any char".into(),
            Key::Letters => "a-z".into(),
        }
    }
}

pub(super) struct Binding {
    pub keys: &'static [Key],
    pub command: Command,
    pub context: Context,
    pub help: &'static str,
    /// Shown in the status line's key hint (main screen bindings only).
    pub hint: Option<&'static str>,
}

use Key::{Ctrl, Digits, Letters, Plain, Text};
use KeyCode::{Backspace, Char, Down, End, Enter, Esc, Home, Left, PageDown, PageUp, Right, Up};

const fn bind(
    keys: &'static [Key],
    command: Command,
    context: Context,
    help: &'static str,
) -> Binding {
    Binding {
        keys,
        command,
        context,
        help,
        hint: None,
    }
}

const fn hint(
    keys: &'static [Key],
    command: Command,
    context: Context,
    help: &'static str,
    hint: &'static str,
) -> Binding {
    Binding {
        keys,
        command,
        context,
        help,
        hint: Some(hint),
    }
}

/// Every key pdx's TUI knows, in the order the help screen lists them.
#[rustfmt::skip]
pub(super) static BINDINGS: &[Binding] = &[
    // The main screen, whichever pane has the focus.
    hint(&[Plain(Char('?'))], Command::Help, Context::Main, "show this help", "help"),
    hint(&[Plain(Char('s'))], Command::Split, Context::Main, "split the node with the rule (split already: alternative)", "split"),
    hint(&[Plain(Char('S'))], Command::SplitSuggested, Context::Main, "split the suggested node (marked ◆)", "next"),
    hint(&[Plain(Char('a'))], Command::AutoSplit, Context::Main, "auto-split until K leaves", "auto"),
    hint(&[Plain(Char('m'))], Command::Merge, Context::Main, "merge the node back into a leaf (drops its alternatives)", "merge"),
    bind(&[Plain(Char(']'))], Command::NextSplit, Context::Main, "alternatives: make the node's next split active"),
    bind(&[Plain(Char('['))], Command::PrevSplit, Context::Main, "alternatives: make the node's previous split active"),
    bind(&[Plain(Char('A'))], Command::CompareSplits, Context::Main, "alternatives: the node's splits side by side"),
    bind(&[Plain(Char('K'))], Command::KeepSplit, Context::Main, "alternatives: keep the active split, drop the others"),
    bind(&[Plain(Char(' '))], Command::Mark, Context::Main, "mark the node as A for v (Space again clears)"),
    bind(&[Plain(Char('v'))], Command::CompareNodes, Context::Main, "compare the marked node A with the selected node B"),
    hint(&[Plain(Char('u'))], Command::Undo, Context::Main, "undo", "undo"),
    bind(&[Ctrl('r')], Command::Redo, Context::Main, "redo"),
    hint(&[Plain(Char('r'))], Command::RulePicker, Context::Main, "choose the split rule and its parameters", "rule"),
    bind(&[Plain(Char('p'))], Command::CyclePolicy, Context::Main, "cycle the selection policy (scatter, size, variance)"),
    hint(&[Plain(Char('c'))], Command::Confusion, Context::Main, "confusion view: leaves x labels", "confusion"),
    hint(&[Plain(Char('x'))], Command::Export, Context::Main, "write JSON, CSV, Newick, HTML to $PDX_EXPORT_DIR or .", "export"),
    bind(&[Plain(Char('e'))], Command::Rename, Context::Main, "name the selected node (empty clears the name)"),
    bind(&[Plain(Char('/'))], Command::Find, Context::Main, "search the texts for a word or phrase; list the hits"),
    bind(&[Plain(Char('n'))], Command::NextHit, Context::Main, "the search's next hit: its document in its leaf"),
    bind(&[Plain(Char('N'))], Command::PrevHit, Context::Main, "the search's previous hit"),
    bind(&[Plain(Char('w'))], Command::Save, Context::Main, "save the session (reopen with pdx --session FILE)"),
    bind(&[Plain(KeyCode::Tab)], Command::NextPane, Context::Main, "switch between the tree and the detail pane"),
    bind(&[Plain(Char('1'))], Command::Tab(DetailTab::Terms), Context::Main, "detail tab: Terms"),
    bind(&[Plain(Char('2'))], Command::Tab(DetailTab::Labels), Context::Main, "detail tab: Labels"),
    bind(&[Plain(Char('3'))], Command::Tab(DetailTab::Documents), Context::Main, "detail tab: Documents"),
    bind(&[Plain(Char('4'))], Command::Tab(DetailTab::Preview), Context::Main, "detail tab: Preview (each rule's split, or the split made)"),
    bind(&[Plain(Esc)], Command::Cancel, Context::Main, "cancel the running split; else clear filter or search"),
    hint(&[Plain(Char('q'))], Command::Quit, Context::Main, "quit (asks first if the tree changed)", "quit"),
    bind(&[Ctrl('c')], Command::Interrupt, Context::Main, "cancel the running split or preview; else quit as q"),
    bind(&[Plain(Char('b'))], Command::ToggleLabels, Context::Main, "label-blind: hide (or show) labels, purity, entropy, NMI"),
    bind(&[Plain(Char('L'))], Command::MessageLog, Context::Main, "message log: every message of the session, newest first"),
    bind(&[Plain(Char('W'))], Command::WeightingForm, Context::Main, "weighting and filters (code, min/max df); rebuild + replay"),
    bind(&[Plain(Char('+'))], Command::AddDocuments, Context::Main, "add new documents (a file or folder) routed down the tree"),
    bind(&[Plain(Char('='))], Command::NewDocuments, Context::Main, "the new documents: each one's leaf, fit and margin"),
    // The tree pane.
    bind(&[Plain(Up), Plain(Char('k'))], Command::Up, Context::Tree, "select the node above"),
    bind(&[Plain(Down), Plain(Char('j'))], Command::Down, Context::Tree, "select the node below"),
    bind(&[Plain(Left), Plain(Char('h'))], Command::Collapse, Context::Tree, "collapse the node (or go to its parent)"),
    bind(&[Plain(Right), Plain(Char('l'))], Command::Expand, Context::Tree, "expand the node"),
    bind(&[Plain(Char('g')), Plain(Home)], Command::Top, Context::Tree, "select the root"),
    bind(&[Plain(Char('G')), Plain(End)], Command::Bottom, Context::Tree, "select the last node"),
    // Enter looks into the node, as lazygit's and gitui's Enter moves into what the cursor is on: it never splits.
    bind(&[Plain(Enter)], Command::NextPane, Context::Tree, "look into the node: the detail pane takes the focus"),
    // lazygit's M merges a branch into the current one; here the leaf goes into another leaf, across branches.
    bind(&[Plain(Char('M'))], Command::MergeInto, Context::Tree, "merge the leaf into a leaf anywhere, chosen in a picker"),
    // The detail pane.
    bind(&[Plain(Up), Plain(Char('k'))], Command::Up, Context::Detail, "previous document / scroll up"),
    bind(&[Plain(Down), Plain(Char('j'))], Command::Down, Context::Detail, "next document / scroll down"),
    bind(&[Plain(PageUp)], Command::PageUp, Context::Detail, "page up"),
    bind(&[Plain(PageDown)], Command::PageDown, Context::Detail, "page down"),
    bind(&[Plain(Char('g')), Plain(Home)], Command::Top, Context::Detail, "first document"),
    bind(&[Plain(Char('G')), Plain(End)], Command::Bottom, Context::Detail, "last document"),
    bind(&[Plain(Left), Plain(Char('h'))], Command::PrevTab, Context::Detail, "previous tab"),
    bind(&[Plain(Right), Plain(Char('l'))], Command::NextTab, Context::Detail, "next tab"),
    bind(&[Plain(Enter)], Command::OpenDocument, Context::Detail, "open the document (Documents tab)"),
    bind(&[Plain(Char('f'))], Command::Filter, Context::Detail, "Documents tab: only the documents holding a word or phrase"),

    bind(&[Plain(Up), Plain(Char('k'))], Command::Up, Context::PreviewTable, "previous rule in the table (PgUp/PgDn scroll)"),
    bind(&[Plain(Down), Plain(Char('j'))], Command::Down, Context::PreviewTable, "next rule in the table; its sides' terms show below"),
    bind(&[Plain(Char('s'))], Command::SplitWithRow, Context::PreviewTable, "split the node with the rule under the cursor"),
    bind(&[Plain(Enter)], Command::UseRow, Context::PreviewTable, "make the rule under the cursor the current rule (no split)"),
    bind(&[Plain(Char(' '))], Command::MarkDocument, Context::Documents, "mark or unmark the document (several can be)"),
    bind(&[Plain(Char('M'))], Command::MoveDocuments, Context::Documents, "move the marked documents (or this one) to a leaf"),
    bind(&[Plain(Char('*'))], Command::MarkAll, Context::Documents, "mark every listed document; again: unmark them"),
    bind(&[Plain(Up), Plain(Char('k'))], Command::Up, Context::TermList, "previous term (the cursor d acts on)"),
    bind(&[Plain(Down), Plain(Char('j'))], Command::Down, Context::TermList, "next term"),
    bind(&[Plain(Char('d'))], Command::DropWord, Context::TermList, "drop the word: stop-list it, rebuild and replay (u undoes)"),
    // The weighting and filters form.
    bind(&[Plain(Up), Plain(Char('k'))], Command::Up, Context::WeightingForm, "previous row"),
    bind(&[Plain(Down), Plain(Char('j'))], Command::Down, Context::WeightingForm, "next row"),
    bind(&[Plain(Right), Plain(Char('l')), Plain(Char('+'))], Command::Increase, Context::WeightingForm, "next value"),
    bind(&[Plain(Left), Plain(Char('h')), Plain(Char('-'))], Command::Decrease, Context::WeightingForm, "previous value (stop words: take the last back)"),
    bind(&[Plain(Enter)], Command::Confirm, Context::WeightingForm, "apply: rebuild the matrix and replay the tree"),
    bind(&[Plain(Esc), Ctrl('c')], Command::Cancel, Context::WeightingForm, "close without changing anything"),
    // The rule picker.
    // Letters jump to rules here (helix's and lazygit's pickers type, too), so j and k do not move.
    bind(&[Plain(Up)], Command::Up, Context::RulePicker, "previous row"),
    bind(&[Plain(Down)], Command::Down, Context::RulePicker, "next row"),
    bind(&[Letters], Command::Type, Context::RulePicker, "jump to the next rule whose name starts with the letter"),
    bind(&[Plain(Char(' '))], Command::Choose, Context::RulePicker, "choose the rule under the cursor"),
    bind(&[Plain(Char('+')), Plain(Right)], Command::Increase, Context::RulePicker, "increase the parameter"),
    bind(&[Plain(Char('-')), Plain(Left)], Command::Decrease, Context::RulePicker, "decrease the parameter"),
    bind(&[Digits], Command::Type, Context::RulePicker, "type the parameter's value"),
    bind(&[Plain(Backspace)], Command::Backspace, Context::RulePicker, "delete a typed character"),
    bind(&[Plain(Enter)], Command::Confirm, Context::RulePicker, "use this rule (and the rule under the cursor)"),
    bind(&[Plain(Esc), Ctrl('c')], Command::Cancel, Context::RulePicker, "close without changing the rule"),
    // The K prompt.
    bind(&[Digits], Command::Type, Context::Prompt, "type the number"),
    bind(&[Plain(Backspace)], Command::Backspace, Context::Prompt, "delete a character"),
    bind(&[Plain(Enter)], Command::Confirm, Context::Prompt, "go"),
    bind(&[Plain(Esc), Ctrl('c')], Command::Cancel, Context::Prompt, "cancel"),
    // The name, search and filter prompts.
    bind(&[Text], Command::Type, Context::TextPrompt, "type"),
    bind(&[Plain(Backspace)], Command::Backspace, Context::TextPrompt, "delete a character"),
    bind(&[Plain(Enter)], Command::Confirm, Context::TextPrompt, "confirm"),
    bind(&[Plain(Esc), Ctrl('c')], Command::Cancel, Context::TextPrompt, "cancel"),
    // The quit question.
    bind(&[Plain(Char('y'))], Command::Yes, Context::Confirm, "quit without saving"),
    bind(&[Plain(Char('w'))], Command::Save, Context::Confirm, "save the session, then quit"),
    bind(&[Plain(Char('n')), Plain(Esc), Ctrl('c')], Command::No, Context::Confirm, "stay"),
    // The recovered tree's offer.
    bind(&[Plain(Char('y')), Plain(Enter)], Command::Yes, Context::Recovery, "reopen the recovered tree (it replaces the tree)"),
    bind(&[Plain(Char('d'))], Command::No, Context::Recovery, "discard it: delete the recovery file"),
    bind(&[Plain(Esc), Ctrl('c')], Command::Cancel, Context::Recovery, "decide later: the file is kept and its place shown"),
    // Read-only popups.
    bind(&[Plain(Up), Plain(Char('k'))], Command::Up, Context::Reader, "scroll up"),
    bind(&[Plain(Down), Plain(Char('j'))], Command::Down, Context::Reader, "scroll down"),
    bind(&[Plain(PageUp)], Command::PageUp, Context::Reader, "page up"),
    bind(&[Plain(PageDown), Plain(Char(' '))], Command::PageDown, Context::Reader, "page down"),
    bind(&[Plain(Char('g')), Plain(Home)], Command::Top, Context::Reader, "top"),
    bind(&[Plain(Char('G')), Plain(End)], Command::Bottom, Context::Reader, "bottom"),
    bind(&[Plain(Esc), Plain(Char('q')), Ctrl('c')], Command::Cancel, Context::Reader, "close"),
    // The side-by-side view of alternatives: the arrows choose a disputed document, the page keys scroll the
    // columns of splits above them.
    bind(&[Plain(Up), Plain(Char('k'))], Command::Up, Context::Alternatives, "previous disputed document"),
    bind(&[Plain(Down), Plain(Char('j'))], Command::Down, Context::Alternatives, "next disputed document"),
    bind(&[Plain(Char('g')), Plain(Home)], Command::Top, Context::Alternatives, "first disputed document"),
    bind(&[Plain(Char('G')), Plain(End)], Command::Bottom, Context::Alternatives, "last disputed document"),
    bind(&[Plain(PageUp)], Command::PageUp, Context::Alternatives, "scroll the splits' columns up"),
    bind(&[Plain(PageDown), Plain(Char(' '))], Command::PageDown, Context::Alternatives, "scroll the splits' columns down"),
    bind(&[Plain(KeyCode::Tab)], Command::OtherSplit, Context::Alternatives, "compare the active split with the next other one"),
    bind(&[Plain(Char(']'))], Command::NextSplit, Context::Alternatives, "next split made active, compared with the one left"),
    bind(&[Plain(Char('['))], Command::PrevSplit, Context::Alternatives, "previous split made active, compared with the one left"),
    bind(&[Plain(Char('K'))], Command::KeepSplit, Context::Alternatives, "keep the active split, drop the others (u undoes)"),
    bind(&[Plain(Enter)], Command::Confirm, Context::Alternatives, "list the disputed in the Documents tab, at this one"),
    bind(&[Plain(Esc), Plain(Char('q')), Ctrl('c')], Command::Cancel, Context::Alternatives, "close"),
    bind(&[Plain(Up), Plain(Char('k'))], Command::Up, Context::Confusion, "previous row"),
    bind(&[Plain(Down), Plain(Char('j'))], Command::Down, Context::Confusion, "next row"),
    bind(&[Plain(Left), Plain(Char('h'))], Command::Left, Context::Confusion, "previous column"),
    bind(&[Plain(Right), Plain(Char('l'))], Command::Right, Context::Confusion, "next column"),
    bind(&[Plain(PageUp)], Command::PageUp, Context::Confusion, "a page up"),
    bind(&[Plain(PageDown), Plain(Char(' '))], Command::PageDown, Context::Confusion, "a page down"),
    bind(&[Plain(Char('g')), Plain(Home)], Command::Top, Context::Confusion, "first row"),
    bind(&[Plain(Char('G')), Plain(End)], Command::Bottom, Context::Confusion, "last row"),
    bind(&[Plain(Enter)], Command::Confirm, Context::Confusion, "list the cell's documents in the Documents tab"),
    bind(&[Plain(Esc), Plain(Char('q')), Ctrl('c')], Command::Cancel, Context::Confusion, "close"),
    // The leaf picker.
    bind(&[Plain(Up)], Command::Up, Context::LeafPicker, "previous leaf"),
    bind(&[Plain(Down)], Command::Down, Context::LeafPicker, "next leaf"),
    bind(&[Text], Command::Type, Context::LeafPicker, "type to jump to a leaf by #id, name or top word"),
    bind(&[Plain(Backspace)], Command::Backspace, Context::LeafPicker, "delete a typed character"),
    bind(&[Plain(Enter)], Command::Confirm, Context::LeafPicker, "move (or merge) into the leaf under the cursor (u undoes)"),
    bind(&[Plain(Esc), Ctrl('c')], Command::Cancel, Context::LeafPicker, "close without moving or merging"),
    // The search's hits list.
    bind(&[Plain(Up), Plain(Char('k'))], Command::Up, Context::Hits, "previous hit"),
    bind(&[Plain(Down), Plain(Char('j'))], Command::Down, Context::Hits, "next hit"),
    bind(&[Plain(PageUp)], Command::PageUp, Context::Hits, "page up"),
    bind(&[Plain(PageDown)], Command::PageDown, Context::Hits, "page down"),
    bind(&[Plain(Char('g')), Plain(Home)], Command::Top, Context::Hits, "first hit"),
    bind(&[Plain(Char('G')), Plain(End)], Command::Bottom, Context::Hits, "last hit"),
    bind(&[Plain(Enter)], Command::Confirm, Context::Hits, "select the hit's document in its leaf (Documents tab)"),
    bind(&[Plain(Esc), Plain(Char('q')), Ctrl('c')], Command::Cancel, Context::Hits, "close the list (n/N step through the hits)"),
    bind(&[Plain(Up), Plain(Char('k'))], Command::Up, Context::NewDocuments, "previous document"),
    bind(&[Plain(Down), Plain(Char('j'))], Command::Down, Context::NewDocuments, "next document"),
    bind(&[Plain(PageUp)], Command::PageUp, Context::NewDocuments, "page up"),
    bind(&[Plain(PageDown)], Command::PageDown, Context::NewDocuments, "page down"),
    bind(&[Plain(Char('g')), Plain(Home)], Command::Top, Context::NewDocuments, "first document"),
    bind(&[Plain(Char('G')), Plain(End)], Command::Bottom, Context::NewDocuments, "last document"),
    bind(&[Plain(Enter)], Command::Confirm, Context::NewDocuments, "select the document's leaf in the tree"),
    bind(&[Plain(Esc), Plain(Char('q')), Ctrl('c')], Command::Cancel, Context::NewDocuments, "close the list"),
    // The loading screen.
    bind(&[Plain(Esc), Plain(Char('q')), Ctrl('c')], Command::Cancel, Context::Loading, "stop loading and quit"),
];

/// What the mouse does, for the help screen (the model's `click` and `scroll` do it).
pub(super) static MOUSE: &[(&str, &str)] = &[
    ("click", "a tree row: select it · a tab title: show it"),
    ("click", "a document: select it · a pane: give it the focus"),
    (
        "wheel",
        "tree: move the selection · detail pane and popups: scroll",
    ),
];

/// The help screen's heading for [`MOUSE`].
pub(super) const MOUSE_TITLE: &str = "Mouse";

/// The command `event` means in `contexts` (searched in order: the most specific first).
pub(super) fn lookup(contexts: &[Context], event: &KeyEvent) -> Option<Command> {
    contexts.iter().find_map(|&context| {
        BINDINGS
            .iter()
            .filter(|b| b.context == context)
            .find(|b| b.keys.iter().any(|k| k.matches(event)))
            .map(|b| b.command)
    })
}

/// The keys of a default binding as one label, e.g. `↑/k` (the TUI shows [`super::keymap::KeyMap`]'s).
#[cfg(test)]
pub(super) fn keys_label(binding: &Binding) -> String {
    binding
        .keys
        .iter()
        .map(|k| k.label())
        .collect::<Vec<_>>()
        .join("/")
}

/// The help screen's lines with the default keys (the TUI shows [`super::keymap::KeyMap`]'s).
#[cfg(test)]
pub(super) fn help_lines() -> Vec<(Option<&'static str>, String, &'static str)> {
    let mut lines = Vec::new();
    let mut current = None;
    for binding in BINDINGS {
        if current != Some(binding.context) {
            current = Some(binding.context);
            lines.push((Some(binding.context.title()), String::new(), ""));
        }
        lines.push((None, keys_label(binding), binding.help));
    }
    lines.push((Some(MOUSE_TITLE), String::new(), ""));
    for &(what, help) in MOUSE {
        lines.push((None, what.to_string(), help));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn no_key_means_two_things_in_one_context() {
        let probes: Vec<KeyEvent> = [
            Up,
            Down,
            Left,
            Right,
            Enter,
            Esc,
            Home,
            End,
            PageUp,
            PageDown,
            Backspace,
            KeyCode::Tab,
        ]
        .into_iter()
        .map(key)
        .chain((' '..='~').map(|c| key(Char(c))))
        .chain(['r', 'c'].map(|c| KeyEvent::new(Char(c), KeyModifiers::CONTROL)))
        .collect();
        // Every context some binding uses (a context without bindings has nothing to conflict).
        let contexts: std::collections::BTreeSet<Context> =
            BINDINGS.iter().map(|b| b.context).collect();
        for context in contexts {
            for probe in &probes {
                let matching: Vec<Command> = BINDINGS
                    .iter()
                    .filter(|b| b.context == context && b.keys.iter().any(|k| k.matches(probe)))
                    .map(|b| b.command)
                    .collect();
                assert!(matching.len() <= 1, "{context:?} {probe:?}: {matching:?}");
            }
        }
    }

    #[test]
    fn the_pane_comes_before_the_main_screen() {
        let contexts = [Context::Tree, Context::Main];
        assert_eq!(lookup(&contexts, &key(Enter)), Some(Command::NextPane));
        assert_eq!(lookup(&contexts, &key(Char('s'))), Some(Command::Split));
        assert_eq!(lookup(&contexts, &key(Char('j'))), Some(Command::Down));
        assert_eq!(lookup(&contexts, &key(Char('q'))), Some(Command::Quit));
        let ctrl_r = KeyEvent::new(Char('r'), KeyModifiers::CONTROL);
        assert_eq!(lookup(&contexts, &ctrl_r), Some(Command::Redo));
        assert_eq!(
            lookup(&contexts, &key(Char('r'))),
            Some(Command::RulePicker)
        );
    }
}
