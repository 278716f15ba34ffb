//! The rule picker: every rule of the registry, then one field per rule parameter. What a field shows, which rules
//! use it and whether its value is valid come from the library ([`Param`], [`registry`]); this file only says how
//! each field steps with the arrow keys and reads typed text, and what it is called on screen.

use crate::choice::Choice;
use crate::cluster::registry::{self, Family, RuleDef};
use crate::cluster::{MAX_L, Param, ParamError, Params};
use crate::linalg::kernel::{GeodesicMetric, KernelSpec};

/// How one parameter's field behaves.
pub(crate) struct Field {
    pub param: Param,
    /// The field's name on screen.
    pub name: &'static str,
    /// One step up or down, kept in range.
    pub step: fn(&mut Params, bool),
    /// Set from typed text; false when the text is not a value of the parameter's type.
    pub parse: fn(&mut Params, &str) -> bool,
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

/// The most characters a field takes typed.
const MAX_TYPED: usize = 12;

/// The largest tau the picker steps to (the rule takes any tau in [0, 1)).
const MAX_TAU_STEP: f64 = 0.95;

/// The picker's fields, one per rule parameter in [`Param::ALL`]'s order.
pub(crate) static FIELDS: &[Field] = &[
    Field {
        param: Param::L,
        name: "l",
        step: |p, up| p.l = step_usize(p.l, up, 1, MAX_L),
        parse: |p, text| text.parse().map(|v| p.l = v).is_ok(),
    },
    Field {
        param: Param::Tau,
        name: "tau",
        step: |p, up| {
            let tau = p.tau + if up { 0.05 } else { -0.05 };
            p.tau = ((tau * 100.0).round() / 100.0).clamp(0.0, MAX_TAU_STEP);
        },
        parse: |p, text| text.parse().map(|v| p.tau = v).is_ok(),
    },
    Field {
        param: Param::Trials,
        name: "trials",
        step: |p, up| p.trials = step_usize(p.trials, up, 1, usize::MAX),
        parse: |p, text| text.parse().map(|v| p.trials = v).is_ok(),
    },
    Field {
        param: Param::Seed,
        name: "seed",
        step: |p, up| {
            p.seed = if up {
                p.seed.saturating_add(1)
            } else {
                p.seed.saturating_sub(1)
            }
        },
        parse: |p, text| text.parse().map(|v| p.seed = v).is_ok(),
    },
    Field {
        param: Param::KWay,
        name: "k-way",
        step: |p, up| p.k_way = step_usize(p.k_way, up, 2, usize::MAX),
        parse: |p, text| text.parse().map(|v| p.k_way = v).is_ok(),
    },
    Field {
        param: Param::Kernel,
        name: "kernel",
        step: |p, up| p.kernel = step_kernel(&p.kernel, up),
        parse: |p, text| match with_kernel_number(&p.kernel, text) {
            Some(kernel) => {
                p.kernel = kernel;
                true
            }
            None => false,
        },
    },
    Field {
        param: Param::Beta,
        name: "beta",
        step: |p, up| {
            let beta = p.beta + if up { 0.1 } else { -0.1 };
            p.beta = ((beta * 10.0).round() / 10.0).clamp(0.1, 100.0);
        },
        parse: |p, text| text.parse().map(|v| p.beta = v).is_ok(),
    },
    Field {
        param: Param::Laplacian,
        name: "laplacian",
        step: |p, up| p.laplacian = p.laplacian.cycled(if up { 1 } else { -1 }),
        parse: |_, _| false,
    },
    Field {
        param: Param::Normalise,
        name: "normalise",
        step: |p, _| p.normalise = !p.normalise,
        parse: |p, text| text.parse().map(|v| p.normalise = v).is_ok(),
    },
    Field {
        param: Param::CutScan,
        name: "cut scan",
        step: |p, up| p.cut_scan = p.cut_scan.cycled(if up { 1 } else { -1 }),
        parse: |_, _| false,
    },
    Field {
        param: Param::MinSide,
        name: "min side",
        step: |p, up| p.min_side = step_share(p.min_side, up, MAX_MIN_SIDE_STEP),
        parse: |p, text| text.parse().map(|v| p.min_side = v).is_ok(),
    },
    // The known labels of a transductive cut-cost split: the share of the collection's labels shown, drawn with
    // the seed field, and their weight.
    Field {
        param: Param::PartialLabels,
        name: "labels shown",
        step: |p, up| p.partial_labels = step_share(p.partial_labels, up, 1.0),
        parse: |p, text| text.parse().map(|v| p.partial_labels = v).is_ok(),
    },
    Field {
        param: Param::C0,
        name: "c0",
        step: |p, up| {
            let c0 = p.c0 + if up { 0.5 } else { -0.5 };
            p.c0 = ((c0 * 10.0).round() / 10.0).clamp(0.5, 100.0);
        },
        parse: |p, text| text.parse().map(|v| p.c0 = v).is_ok(),
    },
    Field {
        param: Param::Sample,
        name: "sample",
        step: |p, up| p.sample = step_stride(p.sample, up),
        parse: |p, text| text.parse().map(|v| p.sample = v).is_ok(),
    },
];

/// The largest sampling stride the picker steps to (typing takes any).
const MAX_STRIDE_STEP: usize = 1024;

/// A sampling stride stepped by doubling or halving, through 0 (exact) and 2 (a stride of 1 is not one).
fn step_stride(value: usize, up: bool) -> usize {
    match (value, up) {
        (0, true) => 2,
        (0..=2, false) => 0,
        (_, true) => value.saturating_mul(2).min(MAX_STRIDE_STEP),
        (_, false) => (value / 2).max(2),
    }
}

/// The largest smallest-side share the picker steps to (the rule takes any share below one half).
const MAX_MIN_SIDE_STEP: f64 = 0.45;

/// A share stepped by 0.05 within `[0, high]`, rounded to the step.
fn step_share(value: f64, up: bool, high: f64) -> f64 {
    let value = value + if up { 0.05 } else { -0.05 };
    ((value * 100.0).round() / 100.0).clamp(0.0, high)
}

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

/// The kernels the kernel field steps through with left / right; typing a number sets the selected kernel's own
/// number (Gaussian sigma, polynomial degree, neighbours of the geodesic kernel, substring length).
const KERNEL_CHOICES: [&str; 12] = [
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
    "gaussian:auto",
    "rbf2",
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

/// The kernel's spec around its number, as (before, after): `("poly:", ":1")` for `poly:2:1`. `None` for a kernel
/// without a number.
fn kernel_number_frame(current: &KernelSpec) -> Option<(&'static str, String)> {
    Some(match current {
        KernelSpec::Gaussian { .. } | KernelSpec::GaussianAuto => ("gaussian:", String::new()),
        KernelSpec::Rbf2 { .. } => ("rbf2:", String::new()),
        KernelSpec::Polynomial { offset, .. } => ("poly:", format!(":{offset}")),
        KernelSpec::Geodesic { metric, .. } => {
            let metric = match metric {
                GeodesicMetric::Euclid => "euclid",
                GeodesicMetric::Cosine => "cosine",
            };
            ("geodesic:", format!(":{metric}"))
        }
        KernelSpec::Spectrum { .. } => ("string:spectrum:", String::new()),
        KernelSpec::BoundRange { .. } => ("string:boundrange:", String::new()),
        KernelSpec::Linear | KernelSpec::Cosine => return None,
    })
}

/// `current` with its number replaced by `text`: sigma of a Gaussian, degree of a polynomial, neighbours of a
/// geodesic kernel, length of a string kernel. `None` when the text is not such a number (or the kernel has none).
fn with_kernel_number(current: &KernelSpec, text: &str) -> Option<KernelSpec> {
    let (before, after) = kernel_number_frame(current)?;
    format!("{before}{text}{after}").parse().ok()
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
    pub cursor: usize,
    /// The rule chosen in the picker (applied on Enter).
    pub rule_index: usize,
    pub params: Params,
    /// Digits typed into the field under the cursor.
    pub typed: Option<String>,
    pub error: Option<String>,
}

impl RulePicker {
    pub(crate) fn rows() -> usize {
        rule_count() + FIELDS.len()
    }

    /// The field under the cursor, if the cursor is on one.
    pub(crate) fn field(&self) -> Option<&'static Field> {
        self.cursor
            .checked_sub(rule_count())
            .and_then(|i| FIELDS.get(i))
    }

    pub(super) fn step(&mut self, up: bool) {
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
            (Some(typed), true) => match (field.param, kernel_number_frame(&self.params.kernel)) {
                (Param::Kernel, Some((before, after))) => format!("{before}{typed}▏{after}"),
                _ => format!("{typed}▏"),
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
    pub(super) fn apply_typed(&mut self) {
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
