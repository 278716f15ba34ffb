//! The macro that turns the table of parameters (one row each, in `params.rs`) into [`super::Param`], its
//! methods, [`super::Params`] and the stored forms. Every `match` over the parameters is written here once, over
//! the rows, so that a parameter cannot be missing from one: adding a row is adding the parameter everywhere.
//!
//! A row, its optional entries (marked `?`) in this order:
//!
//! ```text
//! /// What the parameter is (the variant's and the field's documentation).
//! Variant {
//!     field: name: Type = default,          // the field of `Params`, its type (a `ParamValue`) and default
//!     key: "name",                          // sessions, reports and `name=value` text
//!     long: "name",                         // the command line's long name (the front end adds its dashes)
//!     screen: "name",                       // ? the rule picker's name, when not the key
//!     value_name: "NAME",                   // ? the value's name in a usage line, when not the long name's
//!     negatives: true,                      // ? a negative value is read as one (and refused by the range)
//!     describe: "...",                      // one line
//!     range: "...",                         // the values taken, as a phrase (a `&str` or `String` expression)
//!     valid: |value| ...,                   // whether a value is one of those
//!     step: Step::...,                      // how the rule picker steps it
//!     missing: value,                       // ? what a stored rule written before the parameter existed meant
//!     quiet_at_default: true,               // ? texts leave it out at its default
//! }
//! ```

macro_rules! declare_params {
    (@or $given:expr ; $otherwise:expr) => { $given };
    (@or ; $otherwise:expr) => { $otherwise };
    (@some $given:expr) => { Some($given) };
    (@some) => { None };
    (
        $(
            $(#[$meta:meta])*
            $variant:ident {
                field: $field:ident: $ty:ty = $default:expr,
                key: $key:literal,
                long: $long:literal,
                $(screen: $screen:literal,)?
                $(value_name: $value_name:literal,)?
                $(negatives: $negatives:literal,)?
                describe: $describe:expr,
                range: $range:expr,
                valid: $valid:expr,
                step: $step:expr,
                $(missing: $missing:expr,)?
                $(quiet_at_default: $quiet:literal,)?
            }
        )*
    ) => {
        /// One parameter of the split rules, a row of the table. Which rules use which is declared by each rule
        /// (see [`super::registry::RuleDef::params`]).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Param {
            $($(#[$meta])* $variant,)*
        }

        impl Param {
            /// How many parameters there are.
            pub const COUNT: usize = [$(Param::$variant),*].len();

            /// Every parameter, in the order of the table, which tables and the rule picker follow.
            pub const ALL: [Param; Param::COUNT] = [$(Param::$variant),*];

            /// The parameter's key in sessions, reports and `name=value` text.
            pub const fn key(self) -> &'static str {
                match self {
                    $(Param::$variant => $key,)*
                }
            }

            /// The parameter's long name on the command line, which the command line makes its flag of. A
            /// yes-or-no parameter's long name is that of the switch that turns it from its default.
            pub const fn long(self) -> &'static str {
                match self {
                    $(Param::$variant => $long,)*
                }
            }

            /// The parameter's name on the rule picker's screen: its key unless its row says otherwise.
            pub const fn screen_name(self) -> &'static str {
                match self {
                    $(Param::$variant => declare_params!(@or $($screen)? ; $key),)*
                }
            }

            /// The name of the parameter's value in a usage line, when its row gives one; else the front end
            /// makes one of the long name.
            pub const fn value_name(self) -> Option<&'static str> {
                match self {
                    $(Param::$variant => declare_params!(@some $($value_name)?),)*
                }
            }

            /// Whether a value written with a leading minus is read as a value (and then refused by the range,
            /// naming the parameter) rather than taken for an option.
            pub const fn takes_negatives(self) -> bool {
                match self {
                    $(Param::$variant => declare_params!(@or $($negatives)? ; false),)*
                }
            }

            /// What the parameter means, in one line.
            pub fn describe(self) -> &'static str {
                match self {
                    $(Param::$variant => $describe,)*
                }
            }

            /// The values the parameter takes, as a phrase ("between 1 and 8").
            pub fn range(self) -> String {
                match self {
                    $(Param::$variant => String::from($range),)*
                }
            }

            /// What kind of value the parameter takes.
            pub fn kind(self) -> ValueKind {
                match self {
                    $(Param::$variant => <$ty as ParamValue>::KIND,)*
                }
            }

            /// The names and meanings of a choice parameter's values; empty for the other kinds.
            pub fn choices(self) -> Vec<(&'static str, &'static str)> {
                match self {
                    $(Param::$variant => <$ty as ParamValue>::choices(),)*
                }
            }

            /// The parameter's value in `params`, as text (`tau=0.2` shows `0.2`).
            pub fn value_text(self, params: &Params) -> String {
                match self {
                    $(Param::$variant => ParamValue::text(&params.$field),)*
                }
            }

            /// Whether a rule's text and files show the parameter at its value in `params`. An option that is
            /// off at its default (`sample` at 0) says nothing, so that a tree grown without it reads and is
            /// written exactly as before the option existed; every other parameter always shows.
            pub fn shown_in(self, params: &Params) -> bool {
                match self {
                    $(Param::$variant => {
                        let quiet: bool = declare_params!(@or $($quiet)? ; false);
                        !quiet || params.$field != Params::default().$field
                    })*
                }
            }

            /// Whether the parameter's value in `params` is one it takes.
            fn is_valid(self, params: &Params) -> bool {
                match self {
                    $(Param::$variant => holds(&params.$field, $valid),)*
                }
            }

            /// Set the parameter in `params` from its text; the error is what is wrong with the text. The value
            /// is not checked against the range here: [`Params::check`] does that for every source alike.
            pub fn set_text(self, params: &mut Params, text: &str) -> Result<(), String> {
                match self {
                    $(Param::$variant => params.$field = <$ty as ParamValue>::from_text(text)?,)*
                }
                Ok(())
            }

            /// How the rule picker steps the parameter: one step up or down, kept in range. A function, so that
            /// a table of fields can be built at compile time.
            pub const fn stepper(self) -> fn(&mut Params, bool) {
                match self {
                    $(Param::$variant => |params: &mut Params, up: bool| {
                        params.$field = ParamValue::stepped(&params.$field, &$step, up);
                    },)*
                }
            }

            /// How typed text sets the parameter: false, and `params` as it was, when the text is not a value.
            pub const fn reader(self) -> fn(&mut Params, &str) -> bool {
                match self {
                    $(Param::$variant => |params: &mut Params, text: &str| {
                        match ParamValue::typed(&params.$field, text) {
                            Some(value) => {
                                params.$field = value;
                                true
                            }
                            None => false,
                        }
                    },)*
                }
            }

            /// The text around the number typed into the parameter at its value in `params`, for a value that
            /// takes a number inside it (a kernel); `None` when typed text is the whole value.
            pub fn typed_frame(self, params: &Params) -> Option<(&'static str, String)> {
                match self {
                    $(Param::$variant => ParamValue::typed_frame(&params.$field),)*
                }
            }

            /// Write the parameter's value in `params` into a map, under its key.
            pub fn serialize_entry<M: serde::ser::SerializeMap>(
                self,
                params: &Params,
                map: &mut M,
            ) -> Result<(), M::Error> {
                match self {
                    $(Param::$variant => map.serialize_entry($key, &params.$field),)*
                }
            }
        }

        /// Values for every rule parameter, not yet checked, one field per row of the table. The defaults are
        /// pdx's, declared in the table only. Written as a map by key.
        #[derive(Debug, Clone, PartialEq, serde::Serialize)]
        pub struct Params {
            $(
                $(#[$meta])*
                #[serde(rename = $key)]
                pub $field: $ty,
            )*
        }

        impl Default for Params {
            fn default() -> Self {
                Params {
                    $($field: $default,)*
                }
            }
        }

        impl Params {
            /// A copy with `param` set to its value in `from`.
            pub fn with(&self, param: Param, from: &Params) -> Params {
                let mut params = self.clone();
                match param {
                    $(Param::$variant => params.$field = from.$field.clone(),)*
                }
                params
            }

            /// What a stored rule means by leaving a parameter out: what the rule did before it had the
            /// parameter, which is the default unless the row says otherwise.
            pub(crate) fn of_older_files() -> Params {
                Params {
                    $($field: declare_params!(@or $($missing)? ; $default),)*
                }
            }
        }

        /// The parameters a stored map gives, by key, each optional; [`GivenParams::over`] fills in the rest.
        #[derive(Debug, Clone, Default, serde::Deserialize)]
        pub struct GivenParams {
            $(
                #[serde(rename = $key)]
                $field: Option<$ty>,
            )*
        }

        impl GivenParams {
            /// The values given, and those of `base` for the others.
            pub fn over(self, base: Params) -> Params {
                Params {
                    $($field: self.$field.unwrap_or(base.$field),)*
                }
            }
        }
    };
}

pub(super) use declare_params;

/// `test(value)`: a row's validity check, called with its closure's argument typed by the field.
pub(super) fn holds<T>(value: &T, test: impl FnOnce(&T) -> bool) -> bool {
    test(value)
}
