//! The flags of the rule parameters, one per row of the library's table ([`Param::ALL`]), made in one loop: the
//! flag is the row's long name, its help line says what the row says (meaning, range, the rules that use it),
//! its default is the library's, and it reads its value as the row's kind of value reads (a number checked here,
//! a choice by name, a yes-or-no as a switch that turns it from its default, a kernel spec by the library's
//! parser when the rule is made, so that its error is the library's).

use std::sync::LazyLock;

use clap::builder::{PossibleValue, PossibleValuesParser, ValueParser};
use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};
use pdx::choice::Choice;
use pdx::cluster::registry::{self, Children, Family};
use pdx::cluster::{Param, Params, RuleSpec, SelectPolicy, ValueKind};

use super::flags::{
    choice, is_switch, param_flag, param_help, rule_help, rule_long_help, switch_help,
};

/// The rule a run splits with, its parameters and which leaf it splits next: the same flags, and so the same
/// config-file settings, for the terminal interface and `pdx cluster`.
#[derive(Args, Debug)]
pub(crate) struct RuleArgs {
    #[arg(long, default_value = registry::DEFAULT_RULE, help = rule_help(), long_help = rule_long_help(), help_heading = "Clustering")]
    pub(crate) rule: String,
    // One flag per rule parameter, from the library's table.
    #[command(flatten)]
    pub(crate) params: ParamArgs,
    /// Which leaf to split next.
    #[arg(long, value_parser = choice::<SelectPolicy>(), default_value = SelectPolicy::default().name(), help_heading = "Clustering")]
    pub(crate) select: SelectPolicy,
}

impl RuleArgs {
    /// The rule the flags choose, its parameters checked by the library. A rule that makes a flat clustering in
    /// one split asks for as many groups as `leaves` (when known), unless its flag says otherwise.
    pub(crate) fn spec(&self, leaves: Option<usize>) -> anyhow::Result<RuleSpec> {
        Ok(RuleSpec::new(&self.rule, &self.params(leaves)?)?)
    }

    /// Every parameter's value as the flags give it (see [`RuleArgs::spec`] for `leaves`).
    pub(crate) fn params(&self, leaves: Option<usize>) -> anyhow::Result<Params> {
        let mut params = self.params.params_over(Params::default())?;
        let flat = registry::find(&self.rule).is_some_and(|rule| rule.children == Children::Flat);
        if let Some(leaves) =
            leaves.filter(|_| flat && self.params.given(SET_BY_FLAT_RULES).is_none())
        {
            params.k_way = leaves.max(2);
        }
        Ok(params)
    }
}

/// The parameter whose default depends on the rule: a flat rule (see [`Children::Flat`]) asks for as many groups
/// as leaves unless its flag is given, so the flag has no default of its own.
pub(crate) const SET_BY_FLAT_RULES: Param = Param::KWay;

/// The parameters' values as the command line gave them: the text of each, to be read by the library when the
/// rule is made. A flag left at its default gives none (the library's default is the same value), so that the
/// values a settings file records for a rule are replaced only by the flags given.
#[derive(Debug, Clone, Default)]
pub(crate) struct ParamArgs {
    texts: Vec<(Param, String)>,
}

/// What the flags show and take that is made once from the table: the long names' value names and the defaults
/// as text (clap keeps `&'static str`s).
struct Shown {
    value_name: String,
    default: String,
}

static SHOWN: LazyLock<Vec<Shown>> = LazyLock::new(|| {
    let defaults = Params::default();
    Param::ALL
        .iter()
        .map(|&param| Shown {
            value_name: param.value_name().map_or_else(
                || param.long().to_uppercase().replace('-', "_"),
                str::to_string,
            ),
            default: param.value_text(&defaults),
        })
        .collect()
});

fn shown(param: Param) -> &'static Shown {
    // `Param::ALL` lists the variants in their declared order, so a variant's number is its place in it.
    &SHOWN[param as usize]
}

/// The help heading of a parameter's flag: the kernel rules' own parameters go with the kernel options.
fn heading(param: Param) -> &'static str {
    let mut users = registry::all().iter().filter(|rule| rule.uses(param));
    let first = users.next();
    if first.is_some_and(|rule| rule.family() == Family::Kernel)
        && users.all(|rule| rule.family() == Family::Kernel)
    {
        "Kernels"
    } else {
        "Clustering"
    }
}

/// The flat rules' default of [`SET_BY_FLAT_RULES`], for its help line.
fn flat_default_help(param: Param) -> String {
    let flat: Vec<&str> = registry::all()
        .iter()
        .filter(|rule| rule.children == Children::Flat)
        .map(|rule| rule.name)
        .collect();
    format!(
        "{} [default: K for {} (flat k-means), {} otherwise]",
        param_help(param),
        flat.join(", "),
        shown(param).default
    )
}

/// The flag of one parameter.
fn arg_of(param: Param) -> Arg {
    let arg = Arg::new(param.long())
        .long(param.long())
        .help_heading(heading(param));
    let shown = shown(param);
    let kind = param.kind();
    if is_switch(param) {
        let turns_off = shown.default == "true";
        let help = if turns_off {
            switch_help(param)
        } else {
            param_help(param)
        };
        return arg.action(ArgAction::SetTrue).help(help);
    }
    let arg = arg
        .action(ArgAction::Set)
        .value_name(shown.value_name.as_str())
        .allow_negative_numbers(param.takes_negatives());
    let arg = match kind {
        // Checked as read: a number that is not one is clap's error, in clap's words, as for any other flag.
        ValueKind::Number => arg.value_parser(ValueParser::new(move |text: &str| {
            param
                .set_text(&mut Params::default(), text)
                .map(|()| text.to_string())
        })),
        ValueKind::Choice => arg.value_parser(PossibleValuesParser::new(
            param
                .choices()
                .into_iter()
                .map(|(name, meaning)| PossibleValue::new(name).help(meaning)),
        )),
        ValueKind::Spec | ValueKind::YesNo => arg.value_parser(ValueParser::string()),
    };
    if param == SET_BY_FLAT_RULES {
        arg.help(flat_default_help(param))
    } else {
        arg.help(param_help(param))
            .default_value(shown.default.as_str())
    }
}

impl ParamArgs {
    /// The text given for `param`; `None` when its flag was not given.
    pub(crate) fn given(&self, param: Param) -> Option<&str> {
        self.texts
            .iter()
            .find(|(p, _)| *p == param)
            .map(|(_, text)| text.as_str())
    }

    /// The parameters of `base` (the library's defaults, or those a settings file recorded), each given replaced
    /// by its text. A text the library does not read (a kernel spec it refuses) is an error naming the flag.
    pub(crate) fn params_over(&self, base: Params) -> anyhow::Result<Params> {
        let mut params = base;
        for (param, text) in &self.texts {
            param
                .set_text(&mut params, text)
                .map_err(|reason| anyhow::anyhow!("{} {text:?}: {reason}", param_flag(*param)))?;
        }
        Ok(params)
    }
}

impl clap::Args for ParamArgs {
    fn augment_args(command: Command) -> Command {
        Param::ALL
            .into_iter()
            .fold(command, |command, param| command.arg(arg_of(param)))
    }

    fn augment_args_for_update(command: Command) -> Command {
        Self::augment_args(command)
    }
}

impl FromArgMatches for ParamArgs {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let defaults = Params::default();
        let mut texts = Vec::new();
        for param in Param::ALL {
            let id = param.long();
            if matches.value_source(id) != Some(ValueSource::CommandLine) {
                continue;
            }
            if is_switch(param) {
                // The switch turns the parameter from its default.
                if matches.get_flag(id) {
                    let default = param.value_text(&defaults) == "true";
                    texts.push((param, (!default).to_string()));
                }
            } else if let Some(text) = matches.get_one::<String>(id) {
                texts.push((param, text.clone()));
            }
        }
        Ok(ParamArgs { texts })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::flags::users;

    #[test]
    fn every_flag_is_named_helped_and_headed_from_its_row() {
        let command = <ParamArgs as clap::Args>::augment_args(Command::new("pdx"));
        let mut flags = std::collections::HashSet::new();
        for param in Param::ALL {
            assert!(flags.insert(param_flag(param)), "{param}: flag taken");
            let arg = command
                .get_arguments()
                .find(|arg| arg.get_long() == Some(param.long()))
                .unwrap_or_else(|| panic!("{param} has a flag"));
            let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
            for rule in users(param) {
                assert!(help.contains(rule), "{param}: {help}");
            }
            let heading = arg.get_help_heading().unwrap_or_default();
            assert!(["Clustering", "Kernels"].contains(&heading), "{param}");
        }
    }
}
