//! The terminal interface: `pdx` with no command, on a terminal. The model ([`model`]) and the key map ([`keys`])
//! know nothing about the terminal; this file owns it: it sets it up and restores it (on exit, on error and, through
//! ratatui's panic hook, on panic), loads the corpus and runs splits on worker threads, and turns keys and finished
//! jobs into actions.

mod keys;
mod model;
mod view;

#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

use anyhow::Context;
use ratatui::DefaultTerminal;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind};

use pdx::dataset::Opened;

use model::{Action, Effect, Finished, Model};

/// What worker threads send back.
enum Message {
    Loaded(Box<anyhow::Result<Opened>>),
    Finished(Finished),
}

/// True unless NO_COLOR is set to something non-empty (https://no-color.org).
fn colors_enabled() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty())
}

/// Open the TUI on the corpus `load` returns (`what` names it while it loads).
pub fn run(
    what: String,
    load: impl FnOnce() -> anyhow::Result<Opened> + Send + 'static,
) -> anyhow::Result<()> {
    let colors = colors_enabled();
    // try_init installs a panic hook that restores the terminal before the panic message is printed.
    let mut terminal = ratatui::try_init().context("cannot set up the terminal")?;
    let result = run_in(&mut terminal, &what, load, colors);
    ratatui::restore();
    result
}

fn run_in(
    terminal: &mut DefaultTerminal,
    what: &str,
    load: impl FnOnce() -> anyhow::Result<Opened> + Send + 'static,
    colors: bool,
) -> anyhow::Result<()> {
    let (sender, receiver) = mpsc::channel();
    let loader = sender.clone();
    std::thread::spawn(move || {
        // The receiver is gone if the user quit while loading: nothing to do then.
        let _ = loader.send(Message::Loaded(Box::new(load())));
    });
    let Some(opened) = wait_for_load(terminal, what, &receiver, colors)? else {
        return Ok(());
    };
    let mut model = Model::new(Arc::new(opened.dataset), colors);
    event_loop(terminal, &mut model, &sender, &receiver)
}

/// Draw the loading screen until the corpus is loaded; `None` if the user quit.
fn wait_for_load(
    terminal: &mut DefaultTerminal,
    what: &str,
    receiver: &Receiver<Message>,
    colors: bool,
) -> anyhow::Result<Option<Opened>> {
    let start = Instant::now();
    loop {
        let tick = (start.elapsed().as_millis() / 100) as usize;
        terminal.draw(|frame| view::view_loading(frame, what, tick, colors))?;
        if event::poll(Duration::from_millis(80))?
            && let Event::Key(key) = event::read()?
            && key.kind == KeyEventKind::Press
            && matches!(key.code, KeyCode::Esc | KeyCode::Char('q'))
        {
            return Ok(None);
        }
        match receiver.try_recv() {
            Ok(Message::Loaded(result)) => return (*result).map(Some),
            Ok(Message::Finished(_)) | Err(mpsc::TryRecvError::Empty) => {}
            Err(mpsc::TryRecvError::Disconnected) => anyhow::bail!("the loading thread died"),
        }
    }
}

fn event_loop(
    terminal: &mut DefaultTerminal,
    model: &mut Model,
    sender: &Sender<Message>,
    receiver: &Receiver<Message>,
) -> anyhow::Result<()> {
    let mut redraw = true;
    let mut last_draw = Instant::now();
    while !model.quit {
        // Redraw on change, and now and then while a job runs (the status line shows it).
        if redraw || (model.busy.is_some() && last_draw.elapsed() > Duration::from_millis(250)) {
            terminal.draw(|frame| view::view(frame, model))?;
            last_draw = Instant::now();
            redraw = false;
        }
        while let Ok(message) = receiver.try_recv() {
            if let Message::Finished(finished) = message {
                dispatch(model, Action::Finished(finished), sender);
                redraw = true;
            }
        }
        if event::poll(Duration::from_millis(50))? {
            match event::read()? {
                Event::Key(key) if key.kind != KeyEventKind::Release => {
                    if let Some(action) = model.action_for(&key) {
                        dispatch(model, action, sender);
                    }
                    redraw = true;
                }
                Event::Resize(..) => redraw = true,
                _ => {}
            }
        }
    }
    Ok(())
}

/// Update the model and start the work it asks for on worker threads.
fn dispatch(model: &mut Model, action: Action, sender: &Sender<Message>) {
    for effect in model::update(model, action) {
        match effect {
            Effect::Run(job) => {
                let data = Arc::clone(&model.data);
                let sender = sender.clone();
                std::thread::spawn(move || {
                    let finished = model::perform(&data, job);
                    let _ = sender.send(Message::Finished(finished));
                });
            }
        }
    }
}
