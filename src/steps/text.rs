//! A script as text and back. A line is a keyword and its words, separated by spaces: a node `#N`, a rule's name
//! and its `PARAMETER=VALUE`s, `->` before a split's children, a number, and strings in double quotes (document
//! ids, names, words) in which `\"`, `\\`, `\n`, `\r`, `\t` and `\u{HEX}` stand for those characters, so that any
//! id reads back as it was and every step stays on one line. `#` at the start of a line starts a comment.

use std::fmt::Write;
use std::path::Path;
use std::sync::Arc;

use super::{
    FORMAT, MAX_LINE_BYTES, MAX_LINES, MAX_SCRIPT_BYTES, Parsed, Script, Step, StepsError, VERSION,
};
use crate::cluster::{Param, Params, RuleSpec};
use crate::dataset::DatasetOptions;
use crate::weighting::Weighting;

/// A move's documents are written this many bytes to a line at most (unless one id alone is longer): the moves
/// of one line are made together, and a move cut at a line's end is the same move, since each line's documents
/// are among the moved ones in the order they were moved (see [`crate::cluster::Tree::move_documents`]).
const MOVE_LINE_BYTES: usize = 64 << 10;

/// What a script says first, before its format line: what it is and how to use it.
const PREAMBLE: &str = "\
# pdx steps: each line below the header is one change made to the cluster tree, in the order made.
# `pdx replay FILE [CORPUS...]` makes them again; the README's \"Steps that replay\" describes each line.
";

impl Script {
    /// The script as its file holds it: what it is, the format line, the options line, then a line per step (a
    /// move of many documents: several).
    pub fn to_text(&self) -> String {
        let mut text = String::from(PREAMBLE);
        let _ = writeln!(text, "{FORMAT} {VERSION}");
        if let Some(options) = &self.options {
            // The options are JSON on one line: serde_json escapes every control character of a string.
            if let Ok(json) = serde_json::to_string(options) {
                let _ = writeln!(text, "options {json}");
            }
        }
        for line in self.body_lines() {
            text.push_str(&line);
            text.push('\n');
        }
        text
    }

    /// The steps' lines, without the header (a session keeps these).
    pub fn body_lines(&self) -> Vec<String> {
        self.steps.iter().flat_map(|step| lines_of(step)).collect()
    }

    /// Read a script from `text`, the content of the file `file`; the error names the file and the line.
    pub fn parse(file: &Path, text: &str) -> Result<Parsed, StepsError> {
        let name = file.display().to_string();
        let at = |line: usize, message: String| StepsError::Line {
            file: name.clone(),
            line,
            message,
        };
        let mut script = Script::default();
        let mut lines = Vec::new();
        let mut header = false;
        // The id the next split's first child must take: the root is #0, and each split's children take the next ids.
        let mut next_id = 1;
        for (index, line) in text.split('\n').enumerate() {
            let number = index + 1;
            if number > MAX_LINES {
                return Err(at(number, format!("more than {MAX_LINES} lines")));
            }
            if line.len() > MAX_LINE_BYTES {
                return Err(at(
                    number,
                    format!(
                        "a line of {} bytes; lines hold at most {MAX_LINE_BYTES}",
                        line.len()
                    ),
                ));
            }
            let line = line.strip_suffix('\r').unwrap_or(line).trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if !header {
                parse_header(line).map_err(|message| at(number, message))?;
                header = true;
                continue;
            }
            if let Some(json) = line.strip_prefix("options ") {
                if !script.steps.is_empty() || script.options.is_some() {
                    return Err(at(number, "the options come once, before the steps".into()));
                }
                let options: DatasetOptions = serde_json::from_str(json)
                    .map_err(|error| at(number, format!("options: {error}")))?;
                check_options(&options).map_err(|message| at(number, message))?;
                script.options = Some(options);
                continue;
            }
            let step = parse_step(line).map_err(|message| at(number, message))?;
            if let Step::Split { children, .. } = &step {
                if children[0] != next_id {
                    return Err(at(
                        number,
                        format!(
                            "the children should be numbered from #{next_id}: each split's children take the ids after \
                             those the splits above gave (a split line removed or edited?)"
                        ),
                    ));
                }
                next_id += children.len();
            }
            script.steps.push(Arc::new(step));
            lines.push(number);
        }
        if !header {
            return Err(StepsError::File {
                file: name,
                message: format!("not a pdx steps file (no '{FORMAT} {VERSION}' line)"),
            });
        }
        Ok(Parsed { script, lines })
    }

    /// Read the script file at `path`: a regular file or a pipe, within [`MAX_SCRIPT_BYTES`].
    pub fn read(path: &Path) -> Result<Parsed, StepsError> {
        let bound = crate::input::Bound {
            file: Some(MAX_SCRIPT_BYTES),
            pipe: MAX_SCRIPT_BYTES,
            what: "as a steps file",
        };
        let text = crate::input::read_text(path, bound).map_err(|error| StepsError::File {
            file: path.display().to_string(),
            message: error.to_string(),
        })?;
        Script::parse(path, &text)
    }
}

/// The options' values a file could hold wrong, checked as the pipeline checks them.
fn check_options(options: &DatasetOptions) -> Result<(), String> {
    options
        .text
        .check()
        .map_err(|error| format!("options: {error}"))?;
    options
        .load
        .check()
        .map_err(|error| format!("options: {error}"))
}

/// The format line: `pdx-steps 1`.
fn parse_header(line: &str) -> Result<(), String> {
    let mut words = line.split_whitespace();
    if words.next() != Some(FORMAT) {
        return Err(format!(
            "not a pdx steps file (the first line should be '{FORMAT} {VERSION}')"
        ));
    }
    match words.next().map(str::parse::<u32>) {
        Some(Ok(version)) if version == VERSION && words.next().is_none() => Ok(()),
        Some(Ok(version)) => Err(format!(
            "steps format version {version}; this pdx reads version {VERSION}"
        )),
        _ => Err(format!("expected '{FORMAT} {VERSION}'")),
    }
}

/// `text` in double quotes, escaped so that it reads back as it is and stays on one line.
pub(super) fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            // Controls, and the line and paragraph separators some editors break lines at.
            c if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The line or lines a step is written as.
pub(super) fn lines_of(step: &Step) -> Vec<String> {
    let node = |id: &usize| format!("#{id}");
    vec![match step {
        Step::Split {
            node: id,
            rule,
            children,
        } => {
            let children: Vec<String> = children.iter().map(node).collect();
            format!("split #{id} {} -> {}", rule.text(), children.join(" "))
        }
        Step::Switch { node: id, split } => format!("switch #{id} {}", split + 1),
        Step::Keep { node: id } => format!("keep #{id}"),
        Step::Merge { node: id } => format!("merge #{id}"),
        Step::MergeInto { from, to } => format!("merge-into #{from} #{to}"),
        Step::Move { to, documents } => return move_lines(*to, documents),
        Step::Name { node: id, name } => {
            format!("name #{id} {}", quoted(name.as_deref().unwrap_or("")))
        }
        Step::StopWord { word } => format!("stopword {}", quoted(word)),
        Step::Weighting {
            weighting,
            min_df,
            max_df,
            taken_back,
        } => {
            let mut line = format!(
                "weighting {} min-df={min_df} max-df={max_df}",
                weighting.code()
            );
            if !taken_back.is_empty() {
                line.push_str(" take-back");
                for word in taken_back {
                    line.push(' ');
                    line.push_str(&quoted(word));
                }
            }
            line
        }
    }]
}

/// A move's lines: its documents, as many to a line as fit in [`MOVE_LINE_BYTES`].
fn move_lines(to: usize, documents: &[String]) -> Vec<String> {
    let start = format!("move #{to}");
    let mut lines = Vec::new();
    let mut line = start.clone();
    for document in documents {
        let id = quoted(document);
        if line.len() > start.len() && line.len() + 1 + id.len() > MOVE_LINE_BYTES {
            lines.push(std::mem::replace(&mut line, start.clone()));
        }
        line.push(' ');
        line.push_str(&id);
    }
    lines.push(line);
    lines
}

/// A word of a line.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    /// Written as it is: a keyword, a node, a number, a rule, `NAME=VALUE`, `->`.
    Bare(String),
    /// Written in double quotes.
    Quoted(String),
}

/// The words of `line`.
fn tokens(line: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let mut chars = line.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        if c != '"' {
            let mut word = String::new();
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() {
                    break;
                }
                if c == '"' {
                    return Err(format!("a quote inside the word {}", quoted(&word)));
                }
                word.push(c);
                chars.next();
            }
            tokens.push(Token::Bare(word));
            continue;
        }
        chars.next();
        let mut text = String::new();
        loop {
            match chars.next() {
                None => return Err("a string whose closing quote is missing".into()),
                Some('"') => break,
                Some('\\') => text.push(unescape(&mut chars)?),
                Some(c) => text.push(c),
            }
        }
        if chars.peek().is_some_and(|c| !c.is_whitespace()) {
            return Err("a closing quote must be followed by a space".into());
        }
        tokens.push(Token::Quoted(text));
    }
    Ok(tokens)
}

/// The character an escape (after its `\`) stands for.
fn unescape(chars: &mut std::iter::Peekable<std::str::Chars>) -> Result<char, String> {
    Ok(match chars.next() {
        Some('"') => '"',
        Some('\\') => '\\',
        Some('n') => '\n',
        Some('r') => '\r',
        Some('t') => '\t',
        Some('u') => {
            if chars.next() != Some('{') {
                return Err("\\u must be followed by {HEX}".into());
            }
            let mut hex = String::new();
            loop {
                match chars.next() {
                    Some('}') => break,
                    Some(c) if c.is_ascii_hexdigit() && hex.len() < 6 => hex.push(c),
                    _ => return Err("\\u{...} holds one to six hex digits".into()),
                }
            }
            u32::from_str_radix(&hex, 16)
                .ok()
                .and_then(char::from_u32)
                .ok_or_else(|| format!("\\u{{{hex}}} is not a character"))?
        }
        Some(other) => return Err(format!("unknown escape \\{other}")),
        None => return Err("a string whose closing quote is missing".into()),
    })
}

/// The words of a line, read one after another.
struct Words {
    tokens: std::vec::IntoIter<Token>,
}

impl Words {
    fn next(&mut self, expected: &str) -> Result<Token, String> {
        self.tokens
            .next()
            .ok_or_else(|| format!("expected {expected} at the end of the line"))
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.as_slice().first()
    }

    fn bare(&mut self, expected: &str) -> Result<String, String> {
        match self.next(expected)? {
            Token::Bare(word) => Ok(word),
            Token::Quoted(text) => Err(format!("expected {expected}, found {}", quoted(&text))),
        }
    }

    fn quoted(&mut self, expected: &str) -> Result<String, String> {
        match self.next(expected)? {
            Token::Quoted(text) => Ok(text),
            Token::Bare(word) => Err(format!(
                "expected {expected} in double quotes, found {}",
                quoted(&word)
            )),
        }
    }

    fn node(&mut self) -> Result<usize, String> {
        let word = self.bare("a node such as #3")?;
        node_id(&word).ok_or_else(|| format!("expected a node such as #3, found {}", quoted(&word)))
    }

    /// The quoted strings to the end of the line (at least one).
    fn strings(&mut self, expected: &str) -> Result<Vec<String>, String> {
        let mut strings = vec![self.quoted(expected)?];
        while self.peek().is_some() {
            strings.push(self.quoted(expected)?);
        }
        Ok(strings)
    }

    fn end(&mut self) -> Result<(), String> {
        match self.tokens.next() {
            None => Ok(()),
            Some(Token::Bare(word) | Token::Quoted(word)) => Err(format!(
                "unexpected {} at the end of the step",
                quoted(&word)
            )),
        }
    }
}

/// `#N` as the node id N.
fn node_id(word: &str) -> Option<usize> {
    let digits = word.strip_prefix('#')?;
    digits
        .chars()
        .all(|c| c.is_ascii_digit())
        .then(|| digits.parse().ok())
        .flatten()
}

/// `NAME=VALUE` as its two parts.
fn assignment(word: &str) -> Option<(&str, &str)> {
    word.split_once('=')
}

/// One step's line.
fn parse_step(line: &str) -> Result<Step, String> {
    let mut words = Words {
        tokens: tokens(line)?.into_iter(),
    };
    let keyword = words.bare("a step")?;
    let step = match keyword.as_str() {
        "split" => parse_split(&mut words)?,
        "switch" => {
            let node = words.node()?;
            let text = words.bare("a split's number (from 1)")?;
            let split = text
                .parse::<usize>()
                .ok()
                .filter(|&split| split >= 1)
                .ok_or_else(|| {
                    format!(
                        "expected a split's number (from 1), found {}",
                        quoted(&text)
                    )
                })?;
            Step::Switch {
                node,
                split: split - 1,
            }
        }
        "keep" => Step::Keep {
            node: words.node()?,
        },
        "merge" => Step::Merge {
            node: words.node()?,
        },
        "merge-into" => Step::MergeInto {
            from: words.node()?,
            to: words.node()?,
        },
        "move" => Step::Move {
            to: words.node()?,
            documents: words.strings("a document's id")?,
        },
        "name" => {
            let node = words.node()?;
            let name = words.quoted("a name")?;
            Step::Name {
                node,
                name: Some(name).filter(|name| !name.is_empty()),
            }
        }
        "stopword" => {
            let word = words.quoted("a word")?;
            if word.trim().is_empty() {
                return Err("an empty stop word".into());
            }
            Step::StopWord { word }
        }
        "weighting" => parse_weighting(&mut words)?,
        other => {
            return Err(format!(
                "unknown step {} (a step is split, switch, keep, merge, merge-into, move, name, stopword or weighting)",
                quoted(other)
            ));
        }
    };
    words.end()?;
    Ok(step)
}

/// `split #N RULE [PARAM=VALUE]... -> #C1 #C2 ...`, after its keyword.
fn parse_split(words: &mut Words) -> Result<Step, String> {
    let node = words.node()?;
    let name = words.bare("a rule")?;
    let def = crate::cluster::registry::find(&name).ok_or_else(|| {
        let names: Vec<&str> = crate::cluster::registry::all()
            .iter()
            .map(|rule| rule.name)
            .collect();
        format!(
            "unknown rule {} (one of: {})",
            quoted(&name),
            names.join(", ")
        )
    })?;
    let mut params = Params::default();
    loop {
        let word = words.bare("'->' and the split's children")?;
        if word == "->" {
            break;
        }
        let (key, value) = assignment(&word)
            .ok_or_else(|| format!("expected PARAMETER=VALUE or '->', found {}", quoted(&word)))?;
        let param = Param::ALL
            .into_iter()
            .find(|param| param.key() == key)
            .ok_or_else(|| format!("unknown parameter {}", quoted(key)))?;
        if !def.uses(param) {
            return Err(format!("{} takes no parameter {key}", def.name));
        }
        param
            .set_text(&mut params, value)
            .map_err(|error| format!("{key}={value}: {error}"))?;
    }
    let rule = RuleSpec::new(def.name, &params).map_err(|error| error.to_string())?;
    let mut children = Vec::new();
    while words.peek().is_some() {
        children.push(words.node()?);
    }
    if children.len() < 2 {
        return Err("a split makes two children or more: '-> #C1 #C2 ...'".into());
    }
    if children
        .iter()
        .zip(children[0]..)
        .any(|(&child, at)| child != at)
    {
        return Err("a split's children are numbered one after another (#5 #6 #7)".into());
    }
    Ok(Step::Split {
        node,
        rule,
        children,
    })
}

/// `weighting CODE min-df=N max-df=F [take-back "WORD"...]`, after its keyword.
fn parse_weighting(words: &mut Words) -> Result<Step, String> {
    let code = words.bare("a weighting (a TMG code such as lfc, pdgp or none)")?;
    let weighting = Weighting::parse(&code).map_err(|error| error.to_string())?;
    let mut min_df = None;
    let mut max_df = None;
    let mut taken_back = Vec::new();
    while let Some(token) = words.peek().cloned() {
        let Token::Bare(word) = token else {
            return Err("expected min-df=N, max-df=F or take-back".into());
        };
        if word == "take-back" {
            words.bare("take-back")?;
            taken_back = words.strings("a stop word to take back")?;
            break;
        }
        words.bare("min-df=N or max-df=F")?;
        match assignment(&word) {
            Some(("min-df", value)) => {
                min_df = Some(
                    value
                        .parse::<usize>()
                        .ok()
                        .filter(|&n| n >= 1)
                        .ok_or_else(|| {
                            format!("min-df={value}: expected a whole number, at least 1")
                        })?,
                )
            }
            Some(("max-df", value)) => {
                max_df = Some(
                    value
                        .parse::<f64>()
                        .ok()
                        .filter(|f| *f > 0.0 && *f <= 1.0)
                        .ok_or_else(|| format!("max-df={value}: expected a fraction in (0, 1]"))?,
                )
            }
            _ => {
                return Err(format!(
                    "expected min-df=N, max-df=F or take-back, found {}",
                    quoted(&word)
                ));
            }
        }
    }
    Ok(Step::Weighting {
        weighting,
        min_df: min_df.ok_or("the weighting step gives min-df=N")?,
        max_df: max_df.ok_or("the weighting step gives max-df=F")?,
        taken_back,
    })
}
