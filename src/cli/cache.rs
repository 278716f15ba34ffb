//! `pdx cache`: the load cache's entries listed (when each was last used, its size, the inputs it was made
//! from), and `pdx cache clear` to remove them, all or those not used for a while.

use std::path::Path;
use std::time::{Duration, SystemTime};

use anyhow::Context;
use clap::{Args, Subcommand};
use pdx::byte_size::format_bytes;
use pdx::printable::escaped;

#[derive(Args, Debug)]
pub(crate) struct CacheArgs {
    #[command(subcommand)]
    action: Option<CacheAction>,
}

#[derive(Subcommand, Debug)]
enum CacheAction {
    /// Remove the cache's entries: all of them, or those last used longer ago than --older-than.
    Clear {
        /// Only the entries last used longer ago than this: a number and a unit, s, m, h, d or w (30d, 12h).
        #[arg(long, value_name = "AGE", value_parser = age)]
        older_than: Option<Duration>,
    },
}

/// The clap parser of an age: `30d`, `12h`, `90m`, `45s`, `2w`.
fn age(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: u64 = number
        .parse()
        .map_err(|_| "expected a number and a unit, such as 30d or 12h".to_string())?;
    let seconds = match unit.trim() {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        other => return Err(format!("unknown unit {other:?} (s, m, h, d or w)")),
    };
    number
        .checked_mul(seconds)
        .map(Duration::from_secs)
        .ok_or_else(|| "too long".to_string())
}

pub(crate) fn run(args: &CacheArgs) -> anyhow::Result<()> {
    let dir = pdx::cache::cache_dir().context("no cache folder: set PDX_CACHE_DIR or HOME")?;
    match &args.action {
        None => list(&dir),
        Some(CacheAction::Clear { older_than }) => clear(&dir, *older_than),
    }
}

/// One line per entry, most recently used first, then the count and the total.
fn list(dir: &Path) -> anyhow::Result<()> {
    let entries = pdx::cache::entries(dir).with_context(|| dir.display().to_string())?;
    let now = SystemTime::now();
    for entry in &entries {
        let used = entry.last_used.map_or("?".to_string(), |time| {
            format!(
                "{} ago",
                age_text(now.duration_since(time).unwrap_or_default())
            )
        });
        let inputs = match &entry.inputs {
            Some(inputs) if !inputs.is_empty() => inputs
                .iter()
                .map(|input| escaped(input).into_owned())
                .collect::<Vec<_>>()
                .join(", "),
            Some(_) => "the demo corpus".to_string(),
            None => "(written by another version of pdx, or damaged)".to_string(),
        };
        println!("{used:>10}  {:>10}  {inputs}", format_bytes(entry.size));
    }
    let total: u64 = entries.iter().map(|entry| entry.size).sum();
    println!(
        "{} {}, {} in {}",
        entries.len(),
        if entries.len() == 1 {
            "entry"
        } else {
            "entries"
        },
        format_bytes(total),
        escaped(&dir.display().to_string())
    );
    Ok(())
}

fn clear(dir: &Path, older_than: Option<Duration>) -> anyhow::Result<()> {
    let before = older_than.map(|age| SystemTime::now() - age);
    let (count, bytes) =
        pdx::cache::remove_entries(dir, before).with_context(|| dir.display().to_string())?;
    println!(
        "removed {count} {}, {}",
        if count == 1 { "entry" } else { "entries" },
        format_bytes(bytes)
    );
    Ok(())
}

/// An age in its largest whole unit: `45 s`, `3 min`, `5 h`, `12 d`.
fn age_text(age: Duration) -> String {
    let seconds = age.as_secs();
    match seconds {
        0..60 => format!("{seconds} s"),
        60..3600 => format!("{} min", seconds / 60),
        3600..86_400 => format!("{} h", seconds / 3600),
        _ => format!("{} d", seconds / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_their_units_and_show_in_the_largest() {
        assert_eq!(age("30d"), Ok(Duration::from_secs(30 * 86_400)));
        assert_eq!(age("12h"), Ok(Duration::from_secs(12 * 3600)));
        assert!(age("soon").is_err());
        assert!(age("3 fortnights").is_err());
        assert_eq!(age_text(Duration::from_secs(90)), "1 min");
        assert_eq!(age_text(Duration::from_secs(3 * 86_400)), "3 d");
    }
}
