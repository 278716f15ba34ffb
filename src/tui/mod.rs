//! The terminal interface's model, keys and screens: everything of `pdx` with no command but the terminal itself,
//! which the binary owns (it sets the terminal up, runs the event loop and restores it). The model ([`Model`])
//! changes only in [`update`], which takes an [`Action`] (a key's command, a click, the time, a finished job)
//! and returns the [`Effect`]s to run away from the event loop, each a job of the one job mechanism ([`jobs`]);
//! [`view`] draws `&Model` with ratatui; [`effects`] carries the effects out on whatever thread calls it, so the
//! app, the tests and the benchmarks run the same code. Nothing here reads a terminal or a clock: keys and time
//! arrive as actions.

pub mod effects;
pub mod export;
mod help;
pub mod jobs;
pub mod keymap;
pub mod keys;
pub mod loading;
mod model;
pub mod recovery;
pub mod session;
pub mod view;

#[cfg(test)]
mod tests;

pub use effects::Effect;
pub use model::{Action, DetailTab, Model, Region, Start, update};
