//! The key table in effect: `BINDINGS` with the keys a config file remapped (`[keys]`, by each command's stable
//! name), checked for collisions; the TUI looks keys up, draws its help and its hints from it.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::keys::{BINDINGS, Command, Context, Key, MOUSE, MOUSE_TITLE};
use Key::{Ctrl, Digits, Letters, Plain, Text};
use KeyCode::{Backspace, Char, Down, End, Enter, Esc, Home, Left, PageDown, PageUp, Right, Up};

/// The keys a config file may name, besides single characters and `ctrl-` + a character.
const NAMED_KEYS: &[(&str, KeyCode)] = &[
    ("space", Char(' ')),
    ("enter", Enter),
    ("esc", Esc),
    ("tab", KeyCode::Tab),
    ("backspace", Backspace),
    ("up", Up),
    ("down", Down),
    ("left", Left),
    ("right", Right),
    ("home", Home),
    ("end", End),
    ("pgup", PageUp),
    ("pgdn", PageDown),
];

impl Key {
    /// The key a config file names: a character (`S`), `ctrl-` and a character (`ctrl-q`), or a named key
    /// (`enter`, `esc`, `space`, `tab`, `up`, `pgdn`, ...).
    pub(crate) fn from_spec(spec: &str) -> Option<Key> {
        let mut chars = spec.chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            return (!c.is_control()).then_some(Plain(Char(c)));
        }
        if let Some(rest) = spec.strip_prefix("ctrl-") {
            let mut chars = rest.chars();
            if let (Some(c), None) = (chars.next(), chars.next()) {
                return c.is_ascii_graphic().then_some(Ctrl(c));
            }
        }
        NAMED_KEYS
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(spec))
            .map(|&(_, code)| Plain(code))
    }

    /// How a config file names the key ([`Key::from_spec`] reads it back); none for the classes of keys (digits,
    /// letters, any character), which cannot be remapped.
    pub(crate) fn spec(self) -> Option<String> {
        match self {
            Plain(code) => NAMED_KEYS
                .iter()
                .find(|(_, named)| *named == code)
                .map(|(name, _)| name.to_string())
                .or(match code {
                    Char(c) => Some(c.to_string()),
                    _ => None,
                }),
            Ctrl(c) => Some(format!("ctrl-{c}")),
            Digits | Text | Letters => None,
        }
    }

    /// The key event that presses this key (a class of keys has none).
    fn event(self) -> Option<KeyEvent> {
        match self {
            Plain(code) => Some(KeyEvent::new(code, KeyModifiers::NONE)),
            Ctrl(c) => Some(KeyEvent::new(Char(c), KeyModifiers::CONTROL)),
            Digits | Text | Letters => None,
        }
    }
}

/// Contexts whose keys are looked up together (the pane's first, then the main screen's): a key of one hides the
/// same key of the other.
fn looked_up_together(a: Context, b: Context) -> bool {
    use Context::{Detail, Main, PreviewTable, Tree};
    a == b
        || matches!(
            (a, b),
            (Main, Tree | Detail | PreviewTable)
                | (Tree | Detail | PreviewTable, Main)
                | (Detail, PreviewTable)
                | (PreviewTable, Detail)
        )
}

/// One binding of the effective key table: [`BINDINGS`]'s, with its keys as the config file remapped them.
#[derive(Debug, Clone)]
pub(crate) struct ActiveBinding {
    pub keys: Vec<Key>,
    pub command: Command,
    pub context: Context,
    pub help: &'static str,
    pub hint: Option<&'static str>,
}

/// Why a remap cannot be applied; the caller names the config file's line.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RemapError {
    #[error("no command named {0:?} (commands: {1})")]
    UnknownCommand(String, String),
    #[error("{command}: {key:?} is not a key (a character, ctrl-x, or one of {named})")]
    BadKey {
        command: String,
        key: String,
        named: String,
    },
    #[error("{command}: its keys (typed characters) cannot be remapped")]
    Fixed { command: String },
    #[error("{command}: no keys given")]
    NoKeys { command: String },
    #[error("{command}: {key} is already {other} in {context}")]
    Collision {
        command: String,
        key: String,
        other: String,
        context: &'static str,
    },
}

/// The key table in effect: the key bindings (`keys::BINDINGS`) with the config file's remaps applied.
#[derive(Debug, Clone)]
pub struct KeyMap {
    bindings: Vec<ActiveBinding>,
}

impl Default for KeyMap {
    fn default() -> KeyMap {
        KeyMap {
            bindings: BINDINGS
                .iter()
                .map(|b| ActiveBinding {
                    keys: b.keys.to_vec(),
                    command: b.command,
                    context: b.context,
                    help: b.help,
                    hint: b.hint,
                })
                .collect(),
        }
    }
}

impl KeyMap {
    /// Every command some binding uses, once each, in the table's order.
    pub(crate) fn commands() -> Vec<Command> {
        let mut commands: Vec<Command> = Vec::new();
        for binding in BINDINGS {
            if !commands.contains(&binding.command) {
                commands.push(binding.command);
            }
        }
        commands
    }

    /// Give the command named `name` the keys `specs` (each as `Key::from_spec` reads it), in every context it
    /// is bound in. A key that another command of the same context (or of a context looked up with it) already
    /// has is refused, unless the default table has the two share it.
    pub fn remap(&mut self, name: &str, specs: &[String]) -> Result<(), RemapError> {
        let commands = KeyMap::commands();
        let Some(&command) = commands.iter().find(|c| c.name() == name) else {
            let names: Vec<&str> = commands.iter().map(|c| c.name()).collect();
            return Err(RemapError::UnknownCommand(name.into(), names.join(", ")));
        };
        let owned = |text: &str| text.to_string();
        if specs.is_empty() {
            return Err(RemapError::NoKeys {
                command: owned(name),
            });
        }
        if BINDINGS
            .iter()
            .any(|b| b.command == command && b.keys.iter().any(|k| k.spec().is_none()))
        {
            return Err(RemapError::Fixed {
                command: owned(name),
            });
        }
        let keys = specs
            .iter()
            .map(|spec| {
                Key::from_spec(spec).ok_or_else(|| RemapError::BadKey {
                    command: owned(name),
                    key: spec.clone(),
                    named: NAMED_KEYS
                        .iter()
                        .map(|(n, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", "),
                })
            })
            .collect::<Result<Vec<Key>, RemapError>>()?;
        // The table is BINDINGS' with other keys: the same bindings at the same places.
        for (index, default) in BINDINGS.iter().enumerate() {
            if self.bindings[index].command != command {
                continue;
            }
            let context = self.bindings[index].context;
            for &key in &keys {
                let Some(event) = key.event() else { continue };
                let clash = self.bindings.iter().enumerate().find(|(other, b)| {
                    b.command != command
                        && looked_up_together(context, b.context)
                        && b.keys.iter().any(|k| k.matches(&event))
                        // Shared in the default table too: the defaults meant it (a pane's key over the screen's).
                        && !(default.keys.iter().any(|k| k.matches(&event))
                            && BINDINGS[*other].keys.iter().any(|k| k.matches(&event)))
                });
                if let Some((_, other)) = clash {
                    return Err(RemapError::Collision {
                        command: owned(name),
                        key: key.label(),
                        other: other.command.name().into(),
                        context: other.context.title(),
                    });
                }
            }
            self.bindings[index].keys.clone_from(&keys);
        }
        Ok(())
    }

    /// The command `event` means in `contexts` (searched in order: the most specific first).
    pub(crate) fn lookup(&self, contexts: &[Context], event: &KeyEvent) -> Option<Command> {
        contexts.iter().find_map(|&context| {
            self.bindings
                .iter()
                .filter(|b| b.context == context)
                .find(|b| b.keys.iter().any(|k| k.matches(event)))
                .map(|b| b.command)
        })
    }

    /// The keys of a binding as one label, e.g. `↑/k`.
    fn label(binding: &ActiveBinding) -> String {
        binding
            .keys
            .iter()
            .map(|k| k.label())
            .collect::<Vec<_>>()
            .join("/")
    }

    /// The help screen's lines: a heading per context (then the mouse's), then `keys  description`.
    pub(crate) fn help_lines(&self) -> Vec<(Option<&'static str>, String, &'static str)> {
        let mut lines = Vec::new();
        let mut current = None;
        for binding in &self.bindings {
            if current != Some(binding.context) {
                current = Some(binding.context);
                lines.push((Some(binding.context.title()), String::new(), ""));
            }
            lines.push((None, KeyMap::label(binding), binding.help));
        }
        lines.push((Some(MOUSE_TITLE), String::new(), ""));
        for &(what, help) in MOUSE {
            lines.push((None, what.to_string(), help));
        }
        lines
    }

    /// What each key of a question does, as its prompt names them: `y quit without saving · n/Esc stay`.
    pub(crate) fn prompt_keys(&self, context: Context) -> String {
        self.bindings
            .iter()
            .filter(|b| b.context == context)
            .map(|b| format!("{} {}", KeyMap::label(b), b.help))
            .collect::<Vec<_>>()
            .join(" · ")
    }

    /// The status line's key hint: `key word` pairs of the bindings marked as hints.
    pub(crate) fn hint_pairs(&self) -> Vec<(String, &'static str)> {
        self.bindings
            .iter()
            .filter_map(|b| b.hint.map(|h| (KeyMap::label(b), h)))
            .collect()
    }

    /// Each command with its keys as a config file names them, when every binding of the command has the same
    /// keys and each can be named (`None` otherwise: its keys differ by context, or are a class such as digits).
    pub fn specs(&self) -> Vec<(&'static str, Option<Vec<String>>)> {
        KeyMap::commands()
            .into_iter()
            .map(|command| {
                let mut sets = self
                    .bindings
                    .iter()
                    .filter(|b| b.command == command)
                    .map(|b| &b.keys);
                let first = sets.next();
                let uniform = first.filter(|first| sets.all(|keys| keys == *first));
                let specs = uniform.and_then(|keys| keys.iter().map(|k| k.spec()).collect());
                (command.name(), specs)
            })
            .collect()
    }
}
