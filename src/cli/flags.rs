//! What only the command line knows: the flag of each library parameter and option, how library errors read once
//! their flags are named, the menus of the library's choice enums, and memory sizes written as `4GiB`.

use std::ffi::OsStr;
use std::marker::PhantomData;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::parser::ValueSource;
use pdx::choice::Choice;
use pdx::cluster::{ClusterError, Param, ParamError, ValueKind, registry};
use pdx::corpus::{ColumnOption, CorpusError, Format};
use pdx::dataset::DatasetError;
use pdx::text::{TextError, TextOption};

/// The flag of each rule parameter: its long name from the library's table, with the dashes only the command line
/// knows.
pub(crate) fn param_flag(param: Param) -> String {
    format!("--{}", param.long())
}

/// Whether a parameter's flag is a switch that turns it from its default, taking no value.
pub(crate) fn is_switch(param: Param) -> bool {
    param.kind() == ValueKind::YesNo
}

fn text_flag(option: TextOption) -> &'static str {
    match option {
        TextOption::MinLen => "--min-len",
        TextOption::MaxLen => "--max-len",
        TextOption::MaxDf => "--max-df",
        TextOption::MaxTerms => "--max-terms",
        TextOption::Ngrams => "--ngrams",
        TextOption::SelectTerms => "--select-terms",
    }
}

fn column_flag(option: ColumnOption) -> &'static str {
    match option {
        ColumnOption::Label => "--label-col",
        ColumnOption::Id => "--id-col",
    }
}

/// The help line of a switch that turns a yes-or-no parameter off: what it turns off and which rules use it.
pub(crate) fn switch_help(param: Param) -> String {
    format!(
        "Do not {} (used by {})",
        param.describe(),
        users(param).join(", ")
    )
}

/// The rules that use `param`.
pub(crate) fn users(param: Param) -> Vec<&'static str> {
    registry::all()
        .iter()
        .filter(|rule| rule.uses(param))
        .map(|rule| rule.name)
        .collect()
}

/// The help line of a rule parameter's flag: what it means and which rules use it.
pub(crate) fn param_help(param: Param) -> String {
    format!(
        "{}; {} (used by {})",
        capitalised(param.describe()),
        param.range(),
        users(param).join(", ")
    )
}

/// The help of `--rule`: every rule of the registry, with what it does.
pub(crate) fn rule_help() -> String {
    let names = |family| {
        registry::of_family(family)
            .map(|rule| rule.name)
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "Split rule: {}; kernel rules: {}",
        names(registry::Family::Linear),
        names(registry::Family::Kernel)
    )
}

/// The long help of `--rule`: one line per rule.
pub(crate) fn rule_long_help() -> String {
    let mut text = String::from("Split rule:");
    for rule in registry::all() {
        text.push_str(&format!(
            "\n  {:<20}{} ({})",
            rule.name, rule.summary, rule.source
        ));
    }
    text
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// A parameter out of range, as the command line says it: `--l 9: must be between 1 and 8`.
fn param_error(error: &ParamError) -> String {
    format!(
        "{} {}: must be {}",
        param_flag(error.param),
        error.value,
        error.param.range()
    )
}

/// A library error in the command line's words: the flag of the parameter or option it names, and the flag that
/// would help where there is one. Errors that name no option read as the library wrote them.
pub(crate) fn describe(error: &anyhow::Error) -> String {
    let cluster = error.downcast_ref::<ClusterError>();
    let text = error
        .downcast_ref::<TextError>()
        .or(match error.downcast_ref() {
            Some(DatasetError::Text(text)) => Some(text),
            _ => None,
        });
    let corpus = error
        .downcast_ref::<CorpusError>()
        .or(match error.downcast_ref() {
            Some(DatasetError::Corpus(corpus)) => Some(corpus),
            _ => None,
        });
    if let Some(ClusterError::Param(param)) = cluster {
        return param_error(param);
    }
    if let Some(TextError::OutOfRange {
        option,
        value,
        expected,
    }) = text
    {
        return format!("{} {value}: must be {expected}", text_flag(*option));
    }
    match error.downcast_ref() {
        Some(DatasetError::AllEmpty { .. }) => {
            return format!("{error:#} (--min-df, --max-df, --stoplist or --no-stoplist)");
        }
        Some(DatasetError::NoLabelsToSelectBy { .. }) => {
            return format!("{error:#} (--select-terms mi:N; df:N needs none)");
        }
        Some(DatasetError::StandardizeText { .. }) => {
            return format!("{error:#} (--standardize)");
        }
        _ => {}
    }
    match corpus {
        Some(CorpusError::NotAFolder { .. }) => format!("{error:#}: give --format"),
        Some(CorpusError::UnknownFormat { .. }) => {
            format!("{error:#}: give --format {}", Format::names().join("|"))
        }
        Some(CorpusError::MissingValue { .. }) => {
            format!("{error:#} (use --missing zero or --missing drop)")
        }
        Some(CorpusError::ColumnSpec { path, option, spec }) => format!(
            "{}: {} {spec:?}: expected first, last, none or a column number",
            path.display(),
            column_flag(*option)
        ),
        Some(CorpusError::ColumnBeyond {
            path,
            option,
            column,
            width,
        }) => format!(
            "{}: {} {column} is beyond the {width} columns",
            path.display(),
            column_flag(*option)
        ),
        Some(CorpusError::LabelDepth) => "--label-depth must be at least 1".into(),
        _ => format!("{error:#}"),
    }
}

/// The options the command line gave, by id (a field's name; a rule parameter's long name): each one a flag set
/// rather than left at its default. Flattened into a command's arguments, it reads no flag of its own.
#[derive(Debug, Clone, Default)]
pub(crate) struct Given(Vec<String>);

impl Given {
    /// Whether the command line gave the option of id `id`.
    pub(crate) fn has(&self, id: &str) -> bool {
        self.0.iter().any(|given| given == id)
    }
}

impl clap::Args for Given {
    fn augment_args(command: clap::Command) -> clap::Command {
        command
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        command
    }
}

impl clap::FromArgMatches for Given {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let given = matches
            .ids()
            .filter(|id| matches.value_source(id.as_str()) == Some(ValueSource::CommandLine))
            .map(|id| id.as_str().to_string())
            .collect();
        Ok(Given(given))
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

/// A clap parser for a library [`Choice`]: its names as the possible values, each with its meaning in the help.
#[derive(Clone)]
pub(crate) struct ChoiceParser<T>(PhantomData<T>);

/// The clap parser of choice enum `T`.
pub(crate) fn choice<T: Choice + Send + Sync>() -> ChoiceParser<T> {
    ChoiceParser(PhantomData)
}

impl<T: Choice + Send + Sync> ChoiceParser<T> {
    fn values() -> impl Iterator<Item = PossibleValue> {
        T::ALL
            .iter()
            .map(|value| PossibleValue::new(value.name()).help(value.describe()))
    }
}

impl<T: Choice + Send + Sync> TypedValueParser for ChoiceParser<T> {
    type Value = T;

    fn parse_ref(
        &self,
        command: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        // clap's own parser gives its usual message (naming the flag and the possible values) for a wrong name.
        let name = PossibleValuesParser::new(Self::values()).parse_ref(command, arg, value)?;
        T::from_name(&name).ok_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidValue))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(Self::values()))
    }
}

/// Bytes written as a size with a unit, as `--mem-budget` takes them: `512MiB`, `8GiB`, `1.5GB`, `1000000`.
pub(crate) fn parse_memory_size(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| "expected a size such as 512MiB or 8GiB".to_string())?;
    let scale: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        "tib" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        _ => return Err("unknown unit (use KiB, MiB, GiB, TiB, KB, MB, GB or TB)".into()),
    };
    let bytes = value * scale;
    if !bytes.is_finite() || bytes >= u64::MAX as f64 {
        return Err(
            "too large (at most 16 EiB, the largest size a 64-bit count of bytes holds)".into(),
        );
    }
    if bytes < 1.0 {
        return Err("must be at least one byte".into());
    }
    Ok(bytes as u64)
}

/// A memory size flag's value: parsed by [`parse_memory_size`], shown as pdx shows sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MemorySize(pub u64);

impl std::fmt::Display for MemorySize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&pdx::byte_size::format_bytes(self.0))
    }
}

/// The clap parser of a memory size: `--mem-budget "lots": expected a size such as 512MiB or 8GiB`.
pub(crate) fn memory_size(text: &str) -> Result<MemorySize, String> {
    parse_memory_size(text).map(MemorySize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_sizes_read_their_units_and_refuse_nonsense() {
        assert_eq!(parse_memory_size("4GiB"), Ok(4 << 30));
        assert_eq!(parse_memory_size("512 MiB"), Ok(512 << 20));
        assert_eq!(parse_memory_size("1.5KB"), Ok(1500));
        assert_eq!(parse_memory_size("1000"), Ok(1000));
        assert!(parse_memory_size("lots").is_err());
        assert!(parse_memory_size("4 parsecs").is_err());
        assert_eq!(
            parse_memory_size("0"),
            Err("must be at least one byte".to_string())
        );
        // Too much is too large, not too little.
        for huge in ["17000000TiB", "99999999999999999999999"] {
            let error = parse_memory_size(huge).expect_err(huge);
            assert!(error.starts_with("too large"), "{huge}: {error}");
        }
        // The default shows as pdx shows sizes, and reads back as itself.
        let default = MemorySize(pdx::cluster::rules::DEFAULT_MEMORY_BUDGET);
        assert_eq!(memory_size(&default.to_string()), Ok(default));
    }

    #[test]
    fn every_parameter_has_a_flag_and_a_help_line_naming_its_rules() {
        for param in Param::ALL {
            assert!(param_flag(param).starts_with("--"));
            let help = match is_switch(param) {
                true => switch_help(param),
                false => param_help(param),
            };
            let users = registry::all().iter().filter(|rule| rule.uses(param));
            for rule in users {
                assert!(help.contains(rule.name), "{param}: {help}");
            }
        }
    }

    #[test]
    fn rule_help_lists_every_rule() {
        let (short, long) = (rule_help(), rule_long_help());
        for rule in registry::all() {
            assert!(short.contains(rule.name) && long.contains(rule.summary));
        }
    }
}
