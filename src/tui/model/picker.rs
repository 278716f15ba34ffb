//! The rule picker: every rule of the registry, then one field per rule parameter. Everything about a field (its
//! name on screen, what it shows, how it steps with the arrow keys and reads typed text, which rules use it and
//! whether its value is valid) comes from the library's table of parameters ([`Param`]) and [`registry`]; this
//! file lays them out and moves the cursor.

use crate::cluster::registry::{self, Family, RuleDef};
use crate::cluster::{CheckedParams, ClusterError, Param, ParamError, Params, RuleSpec};

use super::super::keys::Command;

/// How one parameter's field behaves: all of it from the parameter's row in the library's table.
#[derive(Clone, Copy)]
pub(crate) struct Field {
    pub param: Param,
    /// The field's name on screen.
    pub name: &'static str,
    /// One step up or down, kept in range.
    pub step: fn(&mut Params, bool),
    /// Set from typed text; false when the text is not a value of the parameter's type.
    pub parse: fn(&mut Params, &str) -> bool,
}

impl Field {
    const fn of(param: Param) -> Field {
        Field {
            param,
            name: param.screen_name(),
            step: param.stepper(),
            parse: param.reader(),
        }
    }
}

/// The most characters a field takes typed.
const MAX_TYPED: usize = 12;

/// The picker's fields, one per rule parameter in [`Param::ALL`]'s order, made at compile time.
pub(crate) static FIELDS: &[Field] = &{
    let mut fields = [Field::of(Param::ALL[0]); Param::COUNT];
    let mut at = 1;
    while at < Param::COUNT {
        fields[at] = Field::of(Param::ALL[at]);
        at += 1;
    }
    fields
};

/// The field of `param`.
pub(crate) fn field_of(param: Param) -> &'static Field {
    FIELDS
        .iter()
        .find(|field| field.param == param)
        .unwrap_or_else(|| panic!("a picker field for every parameter, not {param}"))
}

/// A parameter's value out of range, in the picker's words: its field, not a flag.
pub(crate) fn field_message(error: &ParamError) -> String {
    let field = field_of(error.param).name;
    format!(
        "{field} = {}: the {field} field must be {}",
        error.value,
        error.param.range()
    )
}

/// The rules that use `param`, or "every kernel rule" when those are exactly the kernel rules.
pub(crate) fn used_by(param: Param) -> String {
    let users: Vec<&'static RuleDef> = registry::all()
        .iter()
        .copied()
        .filter(|rule| rule.uses(param))
        .collect();
    let kernel_rules: Vec<&'static RuleDef> = registry::of_family(Family::Kernel).collect();
    if users.len() == kernel_rules.len()
        && users
            .iter()
            .zip(&kernel_rules)
            .all(|(a, b)| a.name == b.name)
    {
        "every kernel rule".into()
    } else {
        users
            .iter()
            .map(|rule| rule.name)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Every rule the picker offers, linear rules first: its rows `0..rule_count()`.
pub(crate) fn rule_count() -> usize {
    registry::all().len()
}

/// The rule on picker row `index` (`None` past the rules).
pub(crate) fn rule_at(index: usize) -> Option<&'static RuleDef> {
    registry::all().get(index).copied()
}

/// The picker row of the rule called `name`.
pub(crate) fn row_of(name: &str) -> Option<usize> {
    registry::all().iter().position(|rule| rule.name == name)
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RulePicker {
    /// Row under the cursor: `0..rule_count()` the rules, then [`FIELDS`].
    cursor: usize,
    /// The rule chosen in the picker (applied on Enter).
    rule_index: usize,
    params: Params,
    /// Digits typed into the field under the cursor.
    typed: Option<String>,
    error: Option<String>,
}

/// What a key in the rule picker asks for.
pub(crate) enum PickerAnswer {
    /// The picker stays open.
    Stay,
    /// Use this rule, with these parameters for every rule.
    Use(Box<(RuleSpec, CheckedParams)>),
}

impl RulePicker {
    /// The picker on `rule`, with `params` for every rule.
    pub(super) fn new(rule: &RuleSpec, params: &Params) -> RulePicker {
        let row = row_of(rule.name())
            .unwrap_or_else(|| panic!("{} is a rule of the registry", rule.name()));
        RulePicker {
            cursor: row,
            rule_index: row,
            params: params.clone(),
            typed: None,
            error: None,
        }
    }

    /// Row under the cursor: `0..rule_count()` the rules, then [`FIELDS`].
    pub(crate) fn cursor(&self) -> usize {
        self.cursor
    }

    /// The row of the rule chosen (applied on Enter).
    pub(crate) fn rule_index(&self) -> usize {
        self.rule_index
    }

    #[cfg(test)]
    pub(crate) fn params(&self) -> &Params {
        &self.params
    }

    /// Why the last Enter or the typed value was refused.
    pub(crate) fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// A key in the picker.
    pub(super) fn command(&mut self, command: Command) -> PickerAnswer {
        let rows = RulePicker::rows();
        match command {
            Command::Up | Command::Down => {
                self.typed = None;
                self.cursor = match command {
                    Command::Up => (self.cursor + rows - 1) % rows,
                    _ => (self.cursor + 1) % rows,
                };
            }
            Command::Increase | Command::Decrease => self.step(command == Command::Increase),
            Command::Backspace => {
                if let Some(typed) = &mut self.typed {
                    typed.pop();
                }
                self.apply_typed();
            }
            Command::Choose if self.cursor < rule_count() => self.rule_index = self.cursor,
            Command::Confirm => return self.confirm(),
            _ => {}
        }
        PickerAnswer::Stay
    }

    /// Enter: the rule under the cursor (or the one chosen) with the fields' values, when they are valid.
    fn confirm(&mut self) -> PickerAnswer {
        if self.cursor < rule_count() {
            self.rule_index = self.cursor;
        }
        let checked = match self.params.check() {
            Ok(checked) => checked,
            Err(error) => {
                self.error = Some(field_message(&error));
                return PickerAnswer::Stay;
            }
        };
        let Some(def) = rule_at(self.rule_index) else {
            panic!("the picker's rule row {} is a rule", self.rule_index);
        };
        match RuleSpec::new(def.name, &checked) {
            Ok(rule) => return PickerAnswer::Use(Box::new((rule, checked))),
            Err(ClusterError::Param(error)) => self.error = Some(field_message(&error)),
            Err(other) => self.error = Some(other.to_string()),
        }
        PickerAnswer::Stay
    }

    pub(crate) fn rows() -> usize {
        rule_count() + FIELDS.len()
    }

    /// The field under the cursor, if the cursor is on one.
    pub(crate) fn field(&self) -> Option<&'static Field> {
        self.cursor
            .checked_sub(rule_count())
            .and_then(|i| FIELDS.get(i))
    }

    fn step(&mut self, up: bool) {
        let Some(field) = self.field() else {
            return;
        };
        self.typed = None;
        self.error = None;
        (field.step)(&mut self.params, up);
    }

    /// A typed character: a letter jumps to the next rule whose name starts with it, wherever the cursor is; a digit
    /// or `.` is typed into the field under the cursor (and ignored on a rule).
    pub(crate) fn type_char(&mut self, c: char) {
        if c.is_ascii_alphabetic() {
            self.jump_to_rule(c);
            return;
        }
        if self.field().is_none() {
            return;
        }
        let typed = self.typed.get_or_insert_with(String::new);
        if typed.len() < MAX_TYPED {
            typed.push(c);
        }
        self.apply_typed();
    }

    /// Move the cursor to the next rule after it (in registry order, from the top when the cursor is on a field)
    /// whose name starts with `letter`, either case; say so when none does.
    fn jump_to_rule(&mut self, letter: char) {
        let letter = letter.to_ascii_lowercase();
        let count = rule_count();
        let first = if self.cursor < count {
            self.cursor + 1
        } else {
            0
        };
        let found = (0..count)
            .map(|offset| (first + offset) % count)
            .find(|&row| rule_at(row).is_some_and(|rule| rule.name.starts_with(letter)));
        match found {
            Some(row) => {
                self.cursor = row;
                self.typed = None;
                self.error = None;
            }
            None => self.error = Some(format!("no rule starts with {letter}")),
        }
    }

    /// The value the picker shows on field row `index` of [`FIELDS`]: what is being typed, with a cursor, on the
    /// row under the cursor; the kernel field shows its whole spec around the typed number (`gaussian:0.5▏`).
    pub(crate) fn shown_value(&self, index: usize) -> String {
        let Some(field) = FIELDS.get(index) else {
            return String::new();
        };
        match (&self.typed, self.cursor == rule_count() + index) {
            (Some(typed), true) => match field.param.typed_frame(&self.params) {
                Some((before, after)) => format!("{before}{typed}▏{after}"),
                None => format!("{typed}▏"),
            },
            _ => field.param.value_text(&self.params),
        }
    }

    /// What the cursor is on, from the registry and the parameter table: on a rule, its summary and source, then
    /// the fields it takes; on a field, the parameter's meaning and range, then the rules that use it.
    pub(crate) fn about(&self) -> (String, String) {
        match (rule_at(self.cursor), self.field()) {
            (Some(rule), _) => {
                let fields: Vec<&str> = FIELDS
                    .iter()
                    .filter(|field| rule.uses(field.param))
                    .map(|field| field.name)
                    .collect();
                let takes = if fields.is_empty() {
                    format!("{} takes no parameters", rule.name)
                } else {
                    format!("{} takes: {}", rule.name, fields.join(", "))
                };
                (
                    format!("{}: {} ({})", rule.name, rule.summary, rule.source),
                    takes,
                )
            }
            (None, Some(field)) => (
                format!(
                    "{}: {}; {}",
                    field.name,
                    field.param.describe(),
                    field.param.range()
                ),
                format!("used by {}", used_by(field.param)),
            ),
            (None, None) => (String::new(), String::new()),
        }
    }

    /// Set the field under the cursor from the typed text; say so when it is not a value.
    fn apply_typed(&mut self) {
        let (Some(field), Some(text)) = (self.field(), self.typed.as_deref()) else {
            return;
        };
        self.error = if text.is_empty() || (field.parse)(&mut self.params, text) {
            None
        } else {
            Some(format!("field {}: {text:?} is not a value", field.name))
        };
    }
}
