//! What each type of parameter value brings to the table of parameters: its text, how that text reads back, how
//! an interactive chooser steps it and reads typed text, and what kind of value it is for a front end's parser.
//! A row of the table names its type; everything the row does not say comes from here, so that a parameter of
//! an existing type is one row and a new type is one impl.

use crate::choice::Choice;
use crate::cluster::rules::{CutScan, Laplacian};
use crate::linalg::kernel::{GeodesicMetric, KernelError, KernelSpec};

/// What kind of value a parameter takes, which decides how a front end reads it: a number is checked as it is
/// read, a choice is offered by name, a yes-or-no is a switch, and a spec (a kernel) has a syntax of its own
/// whose errors its parser words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    Number,
    Choice,
    YesNo,
    Spec,
}

/// How an interactive chooser (the TUI's rule picker) steps a parameter with the arrow keys. A type steps by
/// the variants that make sense for it (see each [`ParamValue::stepped`]) and stays put on the others; a test
/// of the table checks that every parameter moves.
#[derive(Debug, Clone, Copy)]
pub enum Step<T: 'static> {
    /// Add or take `by`, kept within `[low, high]`; a fraction is rounded to `by`'s decimals, so that repeated
    /// steps do not drift (0.1 + 0.05 shows as 0.15, not 0.15000000000000002).
    By { by: T, low: T, high: T },
    /// Double or halve within `[low, high]`, and through 0 (off) below `low`: a stride, where the values just
    /// above 0 are refused or pointless.
    Doubling { low: T, high: T },
    /// The next or previous value of a choice, wrapping around; the other value of a yes-or-no.
    Cycle,
    /// Through these values, written as the type's text, wrapping around. A value that is not one of them steps
    /// from the first of its own variant (a kernel with a typed width steps from the plain Gaussian).
    Through(&'static [&'static str]),
}

/// A type a parameter's value can have.
pub trait ParamValue: Clone + PartialEq + Sized {
    /// How a front end reads the value.
    const KIND: ValueKind;

    /// The value as text, as `name=value` text, tables and flags' defaults show it.
    fn text(&self) -> String;

    /// The value written as `text`, or what is wrong with the text (in the words of the type's parser).
    fn from_text(text: &str) -> Result<Self, String>;

    /// One step up or down.
    fn stepped(&self, step: &Step<Self>, up: bool) -> Self;

    /// The value with `text` typed into it, `None` when that is not a value. Most types read the text whole; a
    /// kernel reads it as its own number ([`ParamValue::typed_frame`]).
    fn typed(&self, text: &str) -> Option<Self> {
        Self::from_text(text).ok()
    }

    /// The text around a typed number, as (before, after), for a value whose typed text is one number inside it:
    /// `("poly:", ":1")` for `poly:2:1`. `None`: typed text is the whole value.
    fn typed_frame(&self) -> Option<(&'static str, String)> {
        None
    }

    /// The names of a choice's values with their meanings, in order; empty for other kinds.
    fn choices() -> Vec<(&'static str, &'static str)> {
        Vec::new()
    }
}

/// Whole numbers: steps of `by` saturating at the type's ends, or doubling.
macro_rules! whole_value {
    ($($ty:ty),*) => {$(
        impl ParamValue for $ty {
            const KIND: ValueKind = ValueKind::Number;

            fn text(&self) -> String {
                self.to_string()
            }

            fn from_text(text: &str) -> Result<Self, String> {
                text.parse().map_err(|error: std::num::ParseIntError| error.to_string())
            }

            fn stepped(&self, step: &Step<Self>, up: bool) -> Self {
                let value = *self;
                match *step {
                    Step::By { by, low, high } => {
                        let moved = if up {
                            value.saturating_add(by)
                        } else {
                            value.saturating_sub(by)
                        };
                        moved.clamp(low, high)
                    }
                    Step::Doubling { low, high } => match (value, up) {
                        (0, true) => low,
                        (_, false) if value <= low => 0,
                        (_, true) => value.saturating_mul(2).min(high),
                        (_, false) => (value / 2).max(low),
                    },
                    Step::Cycle | Step::Through(_) => value,
                }
            }
        }
    )*};
}

whole_value!(usize, u64);

/// The power of ten that makes `by` a whole number (100 for 0.05), at most 10^9.
fn decimals_scale(by: f64) -> f64 {
    let mut scale = 1.0;
    while scale < 1e9 && ((by * scale) - (by * scale).round()).abs() > 1e-9 {
        scale *= 10.0;
    }
    scale
}

impl ParamValue for f64 {
    const KIND: ValueKind = ValueKind::Number;

    fn text(&self) -> String {
        self.to_string()
    }

    fn from_text(text: &str) -> Result<Self, String> {
        text.parse()
            .map_err(|error: std::num::ParseFloatError| error.to_string())
    }

    fn stepped(&self, step: &Step<Self>, up: bool) -> Self {
        match *step {
            Step::By { by, low, high } => {
                let scale = decimals_scale(by);
                let value = self + if up { by } else { -by };
                ((value * scale).round() / scale).clamp(low, high)
            }
            Step::Doubling { .. } | Step::Cycle | Step::Through(_) => *self,
        }
    }
}

impl ParamValue for bool {
    const KIND: ValueKind = ValueKind::YesNo;

    fn text(&self) -> String {
        self.to_string()
    }

    fn from_text(text: &str) -> Result<Self, String> {
        text.parse()
            .map_err(|error: std::str::ParseBoolError| error.to_string())
    }

    fn stepped(&self, step: &Step<Self>, _up: bool) -> Self {
        match step {
            Step::Cycle => !self,
            Step::By { .. } | Step::Doubling { .. } | Step::Through(_) => *self,
        }
    }
}

/// The library's choice enums: their names, cycled.
macro_rules! choice_value {
    ($($ty:ty),*) => {$(
        impl ParamValue for $ty {
            const KIND: ValueKind = ValueKind::Choice;

            fn text(&self) -> String {
                self.name().to_string()
            }

            fn from_text(text: &str) -> Result<Self, String> {
                <$ty>::from_name(text)
                    .ok_or_else(|| format!("expected one of {}", <$ty>::names().join(", ")))
            }

            fn stepped(&self, step: &Step<Self>, up: bool) -> Self {
                match step {
                    Step::Cycle => self.cycled(if up { 1 } else { -1 }),
                    Step::By { .. } | Step::Doubling { .. } | Step::Through(_) => *self,
                }
            }

            fn choices() -> Vec<(&'static str, &'static str)> {
                <$ty>::ALL.iter().map(|value| (value.name(), value.describe())).collect()
            }
        }
    )*};
}

choice_value!(Laplacian, CutScan);

impl ParamValue for KernelSpec {
    const KIND: ValueKind = ValueKind::Spec;

    fn text(&self) -> String {
        self.to_string()
    }

    fn from_text(text: &str) -> Result<Self, String> {
        text.parse().map_err(|error| match error {
            KernelError::BadSpec { reason, .. } => reason,
            other => other.to_string(),
        })
    }

    fn stepped(&self, step: &Step<Self>, up: bool) -> Self {
        let Step::Through(list) = step else {
            return self.clone();
        };
        let choices: Vec<KernelSpec> = list.iter().filter_map(|text| text.parse().ok()).collect();
        let family = |k: &KernelSpec| std::mem::discriminant(k);
        let Some(at) = choices
            .iter()
            .position(|k| k == self)
            .or_else(|| choices.iter().position(|k| family(k) == family(self)))
            .or((!choices.is_empty()).then_some(0))
        else {
            return self.clone();
        };
        let next = if up { at + 1 } else { at + choices.len() - 1 };
        choices[next % choices.len()].clone()
    }

    /// The kernel with its own number replaced by `text`: sigma of a Gaussian, degree of a polynomial,
    /// neighbours of a geodesic kernel, length of a string kernel.
    fn typed(&self, text: &str) -> Option<Self> {
        let (before, after) = self.typed_frame()?;
        format!("{before}{text}{after}").parse().ok()
    }

    fn typed_frame(&self) -> Option<(&'static str, String)> {
        Some(match self {
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
}

/// Whether a kernel is one its parser accepts: its text reads back as itself. The parser is where kernels are
/// checked (a degree of 0, a negative sigma or a NaN offset fail it), so a kernel read from a file passes the
/// same checks as one typed.
pub(super) fn reads_back(kernel: &KernelSpec) -> bool {
    KernelSpec::from_text(&kernel.text()).is_ok_and(|parsed| parsed == *kernel)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions_step_without_drift_and_whole_numbers_saturate() {
        let by = Step::By {
            by: 0.05,
            low: 0.0,
            high: 0.95,
        };
        assert_eq!(0.1.stepped(&by, true), 0.15);
        assert_eq!(0.95.stepped(&by, true), 0.95);
        assert_eq!(0.0.stepped(&by, false), 0.0);
        let tenths = Step::By {
            by: 0.5,
            low: 0.5,
            high: 100.0,
        };
        assert_eq!(1.23.stepped(&tenths, true), 1.7);
        let seed = Step::By {
            by: 1,
            low: 0,
            high: u64::MAX,
        };
        assert_eq!(u64::MAX.stepped(&seed, true), u64::MAX);
        assert_eq!(0_u64.stepped(&seed, false), 0);
    }

    #[test]
    fn a_kernel_takes_its_typed_number_inside_its_spec() {
        let poly: KernelSpec = "poly:2:1".parse().expect("a kernel");
        assert_eq!(poly.typed_frame(), Some(("poly:", ":1".to_string())));
        assert_eq!(poly.typed("4").map(|k| k.text()), Some("poly:4:1".into()));
        assert_eq!(KernelSpec::Linear.typed("4"), None);
        assert!(!reads_back(&KernelSpec::Gaussian { sigma: Some(-1.0) }));
    }
}
