//! The config file: defaults for the command line's options (keyed by their long names), read from
//! `$XDG_CONFIG_HOME/pdx/config.toml` or the file `PDX_CONFIG` names, and the `[keys]` table that remaps the TUI's
//! keys; and `--print-config`, which shows every setting in effect and where it came from.

use std::ffi::OsString;
use std::fmt::Write;
use std::path::{Path, PathBuf};

use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory};
use pdx::report::export::FORMATS;
use toml::de::{DeTable, DeValue};

use super::Cli;
use pdx::tui::keymap::KeyMap;

/// The environment variable that names the config file (empty: none).
pub(crate) const CONFIG_ENV: &str = "PDX_CONFIG";

/// Options a config file cannot set: the files a run writes or reads as a whole (every export format's output,
/// the matrix's outputs and their shards' size, the session, a settings file and the report `pdx replay` compares with), and the config's
/// own flag. A default
/// output would replace a file at every run; a default session would reopen it at every start, a default settings
/// file replace the flags of every run, a default old report be compared with every script.
const NOT_SETTABLE: &[&str] = &[
    "write-matrix",
    "write-parquet",
    "parquet-shard-docs",
    "session",
    "settings-from",
    "against",
    "print-config",
    "help",
    "version",
];

/// Whether a config file may set the option of long name `long` (see [`NOT_SETTABLE`]).
fn may_set(long: &str) -> bool {
    !NOT_SETTABLE.contains(&long) && !FORMATS.iter().any(|format| format.name == long)
}

/// One option the config file sets: its long name, its value as the flag would take it, and its line.
#[derive(Debug, Clone, PartialEq)]
struct Setting {
    key: String,
    value: String,
    line: usize,
}

/// What a config file holds, checked.
#[derive(Debug, Clone, Default)]
pub(crate) struct Config {
    /// The file read, if any.
    path: Option<PathBuf>,
    settings: Vec<Setting>,
    /// `[keys]`: command name, its keys, the line.
    remaps: Vec<(String, Vec<String>, usize)>,
    /// The key table with the remaps applied.
    keys: KeyMap,
}

/// What `main` does after reading the config: print the settings, or parse these arguments and run.
pub(crate) enum Prepared {
    PrintConfig(String),
    Run {
        args: Vec<OsString>,
        keys: KeyMap,
        /// The long names of the options the config file set (the command line did not give them).
        configured: Vec<String>,
    },
}

/// The config file to read: `PDX_CONFIG` when set (empty: none), else `config.toml` in the user's config folder
/// when it exists.
fn config_path() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(CONFIG_ENV) {
        return (!path.is_empty()).then(|| PathBuf::from(path));
    }
    let dirs = directories::ProjectDirs::from("", "", "pdx")?;
    let path = dirs.config_dir().join("config.toml");
    path.is_file().then_some(path)
}

/// The 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset)
        .map_or(1, |before| before.matches('\n').count() + 1)
}

/// Every option of the command line, with the command it belongs to (top level first, then each command's),
/// once per long name.
fn settable(command: &clap::Command) -> Vec<(clap::Arg, clap::Command)> {
    let mut args: Vec<(clap::Arg, clap::Command)> = Vec::new();
    let commands = std::iter::once(command).chain(command.get_subcommands());
    for owner in commands {
        for arg in owner.get_arguments() {
            let Some(long) = arg.get_long() else { continue };
            if !may_set(long) || args.iter().any(|(a, _)| a.get_long() == Some(long)) {
                continue;
            }
            args.push((arg.clone(), owner.clone()));
        }
    }
    args
}

/// Whether the option is a switch (`--no-cache`) rather than one that takes a value.
fn is_switch(arg: &clap::Arg) -> bool {
    !arg.get_action().takes_values()
}

/// A TOML value as the flag would take it, or why it cannot be one.
fn flag_text(value: &DeValue<'_>, switch: bool) -> Result<String, String> {
    match value {
        DeValue::Boolean(on) if switch => Ok(on.to_string()),
        _ if switch => Err("expected true or false".into()),
        DeValue::String(text) => Ok(text.to_string()),
        DeValue::Integer(number) if number.radix() == 10 => Ok(number.as_str().to_string()),
        DeValue::Float(number) => Ok(number.as_str().to_string()),
        DeValue::Boolean(_) => Err("expected a value, not true or false".into()),
        _ => Err(format!(
            "expected a number or a string, not {}",
            value.type_str()
        )),
    }
}

/// Check a value the way its flag's parser does, and the way the library parses the options that reach it as
/// text (rule, weighting, kernel), so that a bad value is named at its line rather than when it is used.
fn check_value(arg: &clap::Arg, value: &str) -> Result<(), String> {
    let long = arg.get_long().unwrap_or_default();
    if !is_switch(arg) {
        // The flag alone, parsed by clap as the command line would parse it (its own parser and range).
        let alone = arg
            .clone()
            .required(false)
            .conflicts_with(clap::builder::Resettable::<clap::Id>::Reset)
            .requires(clap::builder::Resettable::<clap::Id>::Reset);
        clap::Command::new("pdx")
            .no_binary_name(true)
            .arg(alone)
            .try_get_matches_from([OsString::from(format!("--{long}={value}"))])
            .map(|_| ())
            .map_err(|error| {
                let rendered = error.render().to_string();
                let first = rendered.lines().next().unwrap_or("bad value").to_string();
                first.trim_start_matches("error: ").trim().to_string()
            })?;
    }
    match long {
        "rule" if pdx::cluster::registry::find(value).is_none() => Err(format!(
            "no rule named {value:?} (rules: {})",
            pdx::cluster::registry::all()
                .iter()
                .map(|rule| rule.name)
                .collect::<Vec<_>>()
                .join(", ")
        )),
        "weighting" => pdx::weighting::Weighting::parse(value)
            .map(|_| ())
            .map_err(|error| error.to_string()),
        "kernel" => value
            .parse::<pdx::linalg::kernel::KernelSpec>()
            .map(|_| ())
            .map_err(|error| error.to_string()),
        _ => Ok(()),
    }
}

/// The keys of one `[keys]` entry: a string, or an array of strings.
fn key_specs(value: &DeValue<'_>) -> Option<Vec<String>> {
    match value {
        DeValue::String(text) => Some(vec![text.to_string()]),
        DeValue::Array(items) => items
            .iter()
            .map(|item| item.get_ref().as_str().map(str::to_string))
            .collect(),
        _ => None,
    }
}

/// Read and check the config file `text` (from `path`): every error is one line, `FILE:LINE: message`.
fn parse(path: &Path, text: &str) -> anyhow::Result<Config> {
    let at = |offset: usize, message: &str| {
        anyhow::anyhow!("{}:{}: {message}", path.display(), line_of(text, offset))
    };
    let table = DeTable::parse(text).map_err(|error| {
        let offset = error.span().map_or(0, |span| span.start);
        at(offset, error.message().trim())
    })?;
    let command = Cli::command();
    let options = settable(&command);
    let mut config = Config {
        path: Some(path.to_path_buf()),
        ..Config::default()
    };
    // In the file's order, so that the first error reported is the first in the file.
    let mut entries: Vec<_> = table.get_ref().iter().collect();
    entries.sort_by_key(|(key, _)| key.span().start);
    for (key, value) in entries {
        let name = key.get_ref().as_ref();
        let offset = key.span().start;
        if name == "keys" {
            let DeValue::Table(remaps) = value.get_ref() else {
                return Err(at(
                    offset,
                    "keys: expected a table of command = key or [keys]",
                ));
            };
            let mut remaps: Vec<_> = remaps.iter().collect();
            remaps.sort_by_key(|(name, _)| name.span().start);
            for (command_name, keys) in remaps {
                let offset = command_name.span().start;
                let specs = key_specs(keys.get_ref()).ok_or_else(|| {
                    at(
                        offset,
                        &format!(
                            "{}: expected a key or a list of keys",
                            command_name.get_ref()
                        ),
                    )
                })?;
                config
                    .keys
                    .remap(command_name.get_ref(), &specs)
                    .map_err(|error| at(offset, &error.to_string()))?;
                config.remaps.push((
                    command_name.get_ref().to_string(),
                    specs,
                    line_of(text, offset),
                ));
            }
            continue;
        }
        let Some((arg, _)) = options.iter().find(|(arg, _)| arg.get_long() == Some(name)) else {
            return Err(at(
                offset,
                &format!(
                    "unknown setting {name:?} (settings are the long options, e.g. rule, k, weighting; see --print-config)"
                ),
            ));
        };
        let value_text = flag_text(value.get_ref(), is_switch(arg))
            .map_err(|error| at(offset, &format!("{name}: {error}")))?;
        check_value(arg, &value_text)
            .map_err(|error| at(offset, &format!("{name} = {value_text}: {error}")))?;
        config.settings.push(Setting {
            key: name.to_string(),
            value: value_text,
            line: line_of(text, offset),
        });
    }
    Ok(config)
}

/// Read the config file, if there is one.
fn load() -> anyhow::Result<Config> {
    let Some(path) = config_path() else {
        return Ok(Config::default());
    };
    // A config file is a few lines: a megabyte is more than any, and bounds a pipe given as one.
    let bound = pdx::input::Bound {
        file: Some(1 << 20),
        pipe: 1 << 20,
        what: "as a config file",
    };
    let text = pdx::input::read_text(&path, bound)
        .map_err(|error| anyhow::anyhow!("{}: {error}", path.display()))?;
    parse(&path, &text)
}

/// The arguments as parsed so far, errors ignored: which command runs, and which options the command line gave.
fn matches_of(args: &[OsString]) -> ArgMatches {
    Cli::command()
        .ignore_errors(true)
        .try_get_matches_from(args)
        .unwrap_or_default()
}

/// Whether the command line gave `arg`, or an option that excludes it (`--no-stoplist` excludes a stop list).
fn given(matches: &ArgMatches, command: &clap::Command, arg: &clap::Arg) -> bool {
    let from_command_line = |id: &clap::Id| {
        matches.try_get_raw(id.as_str()).is_ok()
            && matches.value_source(id.as_str()) == Some(ValueSource::CommandLine)
    };
    // Conflicts are declared on one side only (`--stoplist` names `--no-stoplist`): look both ways.
    let excludes = |a: &clap::Arg, b: &clap::Arg| {
        command
            .get_arg_conflicts_with(a)
            .iter()
            .any(|other| other.get_id() == b.get_id())
    };
    from_command_line(arg.get_id())
        || command.get_arguments().any(|other| {
            from_command_line(other.get_id()) && (excludes(arg, other) || excludes(other, arg))
        })
}

/// Read the config file and apply it to `args`: the settings go in as flags, after the command's name, for each
/// option of the running command the command line did not give (the command line wins).
pub(crate) fn prepare(args: Vec<OsString>) -> anyhow::Result<Prepared> {
    Ok(apply(load()?, args))
}

/// `config` applied to `args` (see [`prepare`]).
fn apply(config: Config, args: Vec<OsString>) -> Prepared {
    let matches = matches_of(&args);
    let root = Cli::command();
    if matches.try_get_one::<bool>("print_config").ok().flatten() == Some(&true) {
        return Prepared::PrintConfig(print(&config, &matches));
    }
    let (command, command_matches, insert_at) = match matches.subcommand() {
        Some((name, sub)) => match root.find_subcommand(name) {
            Some(command) => (command.clone(), sub.clone(), 2),
            None => (root.clone(), matches.clone(), 1),
        },
        None => (root.clone(), matches.clone(), 1),
    };
    // A settings file gives the run every setting it records: a config file's default for one would change the
    // run it reproduces.
    let from_settings_file = command
        .get_arguments()
        .find(|arg| arg.get_long() == Some("settings-from"))
        .is_some_and(|arg| given(&command_matches, &command, arg));
    let mut injected: Vec<OsString> = Vec::new();
    let mut configured = Vec::new();
    for setting in &config.settings {
        let Some(arg) = command
            .get_arguments()
            .find(|arg| arg.get_long() == Some(setting.key.as_str()))
        else {
            continue;
        };
        if given(&command_matches, &command, arg)
            || (from_settings_file && super::cluster::recorded_in_settings(&setting.key))
        {
            continue;
        }
        if is_switch(arg) {
            if setting.value == "true" {
                injected.push(format!("--{}", setting.key).into());
            }
        } else {
            injected.push(format!("--{}={}", setting.key, setting.value).into());
        }
        configured.push(setting.key.clone());
    }
    let mut args = args;
    let at = insert_at.min(args.len());
    args.splice(at..at, injected);
    Prepared::Run {
        args,
        keys: config.keys,
        configured,
    }
}

/// `text` as a TOML value: a number or a boolean as itself, anything else as a quoted string.
fn toml_value(text: &str, switch: bool) -> String {
    let number = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e'))
        && text.parse::<f64>().is_ok_and(f64::is_finite)
        && text
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || c == '-');
    if switch || number {
        text.to_string()
    } else {
        toml::Value::String(text.to_string()).to_string()
    }
}

/// The settings in effect, as TOML that reads back as the same settings: each option with its value and, in a
/// comment, where it came from (default, the config file and its line, or the command line's flag); then the keys.
fn print(config: &Config, matches: &ArgMatches) -> String {
    let root = Cli::command();
    let source_file = config.path.as_ref().map(|p| p.display().to_string());
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# pdx settings in effect: each long option's value and where it came from.\n# Paste into {} (or the \
         file {CONFIG_ENV} names) to keep them.",
        directories::ProjectDirs::from("", "", "pdx")
            .map(|dirs| dirs.config_dir().join("config.toml").display().to_string())
            .unwrap_or_else(|| "$XDG_CONFIG_HOME/pdx/config.toml".into())
    );
    if let Some(file) = &source_file {
        let _ = writeln!(out, "# config file: {file}");
    }
    for (arg, _) in settable(&root) {
        let Some(long) = arg.get_long() else { continue };
        let switch = is_switch(&arg);
        let from_flag = root.get_arguments().any(|a| a.get_id() == arg.get_id())
            && matches.value_source(arg.get_id().as_str()) == Some(ValueSource::CommandLine);
        let setting = config.settings.iter().find(|s| s.key == long);
        let (value, source) = if from_flag {
            let value = if switch {
                Some("true".to_string())
            } else {
                matches
                    .get_raw(arg.get_id().as_str())
                    .and_then(|mut values| values.next())
                    .map(|v| v.to_string_lossy().into_owned())
            };
            (value, "flag".to_string())
        } else if let Some(setting) = setting {
            (
                Some(setting.value.clone()),
                format!("config file, line {}", setting.line),
            )
        } else if switch {
            (Some("false".into()), "default".into())
        } else {
            (
                arg.get_default_values()
                    .first()
                    .map(|v| v.to_string_lossy().into_owned()),
                "default".into(),
            )
        };
        match value {
            Some(value) => {
                let _ = writeln!(out, "{long} = {}  # {source}", toml_value(&value, switch));
            }
            None => {
                let _ = writeln!(out, "# {long} = ...  (not set: {})", first_line(&arg));
            }
        }
    }
    let _ = writeln!(out, "\n[keys]");
    for (name, specs) in config.keys.specs() {
        let source = if config.remaps.iter().any(|(command, _, _)| command == name) {
            "config file"
        } else {
            "default"
        };
        match specs {
            Some(specs) => {
                let keys: Vec<String> = specs
                    .iter()
                    .map(|spec| toml::Value::String(spec.clone()).to_string())
                    .collect();
                let value = if keys.len() == 1 {
                    keys[0].clone()
                } else {
                    format!("[{}]", keys.join(", "))
                };
                let _ = writeln!(out, "{name} = {value}  # {source}");
            }
            None => {
                let _ = writeln!(
                    out,
                    "# {name}: its keys differ by context or are typed characters (see ? in the TUI)"
                );
            }
        }
    }
    out
}

/// The first line of an option's help, to say what an unset option means.
fn first_line(arg: &clap::Arg) -> String {
    arg.get_help()
        .map(|help| help.to_string())
        .and_then(|help| help.lines().next().map(str::to_string))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> anyhow::Result<Config> {
        parse(Path::new("config.toml"), text)
    }

    #[test]
    fn settings_and_keys_read_and_errors_name_their_line() {
        let config = parsed(
            "rule = \"pddp-oc\"\nk = 10\n\n[keys]\nsplit = \"Z\"\nquit = [\"q\", \"ctrl-q\"]\n",
        )
        .expect("a good config");
        assert_eq!(config.settings.len(), 2);
        assert_eq!(
            config.settings[1],
            Setting {
                key: "k".into(),
                value: "10".into(),
                line: 2
            }
        );
        assert_eq!(config.remaps.len(), 2);
        for (text, expected) in [
            (
                "k = 10\nrules = \"pddp\"\n",
                "config.toml:2: unknown setting \"rules\"",
            ),
            ("k = 0\n", "config.toml:1: k = 0:"),
            (
                "\n\nrule = \"nope\"\n",
                "config.toml:3: rule = nope: no rule named \"nope\"",
            ),
            ("k = = 3\n", "config.toml:1: "),
            (
                "[keys]\nsplit = \"x\"\n",
                "config.toml:2: split: x is already export",
            ),
            (
                "[keys]\nsplitz = \"S\"\n",
                "config.toml:2: no command named \"splitz\"",
            ),
            (
                "no-cache = 3\n",
                "config.toml:1: no-cache: expected true or false",
            ),
            (
                "json = \"out.json\"\n",
                "config.toml:1: unknown setting \"json\"",
            ),
            (
                "html = \"report.html\"\n",
                "config.toml:1: unknown setting \"html\"",
            ),
        ] {
            let error = parsed(text).expect_err(text).to_string();
            assert!(error.starts_with(expected), "{text:?}: {error}");
            assert_eq!(error.lines().count(), 1, "{error}");
        }
    }

    #[test]
    fn toml_values_read_back_as_themselves() {
        assert_eq!(toml_value("10", false), "10");
        assert_eq!(toml_value("0.5", false), "0.5");
        assert_eq!(toml_value("pddp", false), "\"pddp\"");
        assert_eq!(toml_value("1GiB", false), "\"1GiB\"");
        assert_eq!(toml_value("inf", false), "\"inf\"");
        assert_eq!(toml_value("true", true), "true");
    }

    /// Options a config file can set that the terminal interface has no use for, each with why.
    const BATCH_ONLY: &[(&str, &str)] = &[(
        "brief",
        "the batch report's short form; the TUI writes no report to the terminal",
    )];

    /// A value other than its default for the option `arg`, as a config file holds it.
    fn other_value(arg: &clap::Arg) -> String {
        let long = arg.get_long().expect("a long option");
        if is_switch(arg) {
            return "true".into();
        }
        if let Some(param) = pdx::cluster::Param::ALL
            .into_iter()
            .find(|p| p.long() == long)
        {
            let mut params = pdx::cluster::Params::default();
            (param.stepper())(&mut params, true);
            return toml_value(&param.value_text(&params), false);
        }
        let defaults: Vec<String> = arg
            .get_default_values()
            .iter()
            .map(|v| v.to_string_lossy().into_owned())
            .collect();
        if let Some(other) = arg
            .get_possible_values()
            .into_iter()
            .map(|v| v.get_name().to_string())
            .find(|name| !defaults.contains(name))
        {
            return toml_value(&other, false);
        }
        let text = match long {
            "label-depth" => "2",
            "text-col" => "body",
            "label-col" => "topic",
            "id-col" => "key",
            "title-col" => "headline",
            "min-len" => "4",
            "max-len" => "20",
            "stoplist" => "stop.txt",
            "stoplist-lang" => "german",
            "stem" => "german",
            "ngrams" => "2",
            "min-df" => "3",
            "max-df" => "0.5",
            "max-terms" => "100",
            "select-terms" => "df:50",
            "weighting" => "tfc",
            "vectors" => "vectors.npy",
            "vector-ids" => "ids.txt",
            "mem-budget" => "1GiB",
            "k" => "7",
            "rule" => "pddp-oc",
            "encoding" => "koi8-r",
            "cache-limit" => "1GiB",
            other => panic!("--{other}: give it a value other than its default in this test"),
        };
        toml_value(text, false)
    }

    /// What the TUI opens and starts with under `config`, as text to compare.
    fn tui_start(config: Config) -> String {
        let Prepared::Run { args, keys, .. } =
            apply(config, vec!["pdx".into(), "corpus.csv".into()])
        else {
            panic!("no --print-config here");
        };
        let cli = <Cli as clap::Parser>::try_parse_from(&args)
            .unwrap_or_else(|e| panic!("{args:?}: {e}"));
        let (source, options) = super::super::tui_inputs(cli, keys).expect("the TUI's inputs");
        format!("{source:?} {options:?}")
    }

    #[test]
    fn every_setting_of_the_config_file_reaches_the_terminal_interface() {
        let root = Cli::command();
        let baseline = tui_start(Config::default());
        let mut checked = 0;
        for (arg, owner) in settable(&root) {
            let long = arg.get_long().expect("a long option");
            if let Some((_, why)) = BATCH_ONLY.iter().find(|(name, _)| *name == long) {
                assert!(!why.is_empty());
                assert_ne!(
                    owner.get_name(),
                    root.get_name(),
                    "--{long} is the TUI's too"
                );
                continue;
            }
            assert_eq!(
                owner.get_name(),
                root.get_name(),
                "--{long} can be set in the config file but the TUI has no such option"
            );
            // An option that needs another is compared with that other alone.
            let (needed, baseline) = match long {
                "vector-ids" => {
                    let needed = "vectors = \"vectors.npy\"\n";
                    (needed, tui_start(parsed(needed).expect("a config")))
                }
                _ => ("", baseline.clone()),
            };
            let text = format!("{needed}{long} = {}\n", other_value(&arg));
            let config = parsed(&text).unwrap_or_else(|e| panic!("{text}: {e:#}"));
            assert_ne!(tui_start(config), baseline, "the TUI ignores {text}");
            checked += 1;
        }
        assert!(checked > 40, "{checked} options checked");
    }
}
