//! `pdx` with no command, on a terminal: this file owns the terminal. It sets it up and restores it (on exit, on
//! error, on a signal that ends a program and, through ratatui's panic hook, on panic), loads the corpus on a
//! thread while the loading screen draws, then runs the event loop: keys, clicks and finished jobs become
//! [`Action`]s for [`update`], the effects it returns run on worker threads ([`effects::perform_and_report`]), and
//! [`view`] draws the model. Everything else of the interface is the library's [`pdx::tui`].

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use anyhow::Context;
use crossterm::event::{
    self, DisableMouseCapture, EnableMouseCapture, Event, KeyEventKind, MouseButton, MouseEventKind,
};
use pdx::cluster::{Params, RuleSpec, SelectPolicy};
use pdx::dataset::DatasetError;
use pdx::progress::Progress;
use pdx::tui::keymap::KeyMap;
use pdx::tui::loading::{LoadEnd, Loaded, Loading};
use pdx::tui::session::{self, Session, Source};
use pdx::tui::{Action, Effect, Model, effects, export, recovery, update, view};
use ratatui::DefaultTerminal;
use ratatui::layout::Rect;

use super::signals::Signals;

/// What worker threads send back.
enum Message {
    /// The load's result, or what its thread's panic said.
    Loaded(Box<Result<Result<Loaded, DatasetError>, String>>),
    /// An effect's result, for `update`.
    Action(Box<Action>),
}

/// True unless NO_COLOR is set to something non-empty (https://no-color.org).
fn colors_enabled() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty())
}

/// What the command line and the config file choose for the TUI besides the corpus.
#[derive(Debug)]
pub(crate) struct Options {
    /// The session to reopen (`--session`): its corpus and tree, instead of the corpus given.
    pub(crate) session_file: Option<PathBuf>,
    /// The largest kernel matrix a kernel split may build (`--mem-budget`).
    pub(crate) memory_budget: u64,
    /// Start label-blind (`--hide-labels`).
    pub(crate) hide_labels: bool,
    /// The rule splits use until the analyst picks another (`--rule` and the parameters' flags).
    pub(crate) rule: RuleSpec,
    /// Every rule parameter's value, for the rules picked later (the parameters' flags).
    pub(crate) params: Params,
    /// Which leaf is suggested next (`--select`).
    pub(crate) policy: SelectPolicy,
    /// The leaves the auto-split prompt offers (`--k`).
    pub(crate) leaves: Option<usize>,
    /// The key table as the config file remapped it.
    pub(crate) keys: KeyMap,
    /// The size the load cache's folder is kept under (`--cache-limit`), when not the library's default.
    pub(crate) cache_limit: Option<u64>,
}

/// Open the TUI on the corpus of `source`, or, with a session file, on the session's corpus and tree (its rule
/// and policy then win over the options'). A session file that cannot be used is reported in the status line
/// and pdx starts on `source` without it.
pub(crate) fn run(source: Source, options: Options) -> anyhow::Result<()> {
    let Options {
        session_file,
        memory_budget,
        hide_labels,
        rule,
        params,
        policy,
        leaves,
        keys,
        cache_limit,
    } = options;
    if let Some(limit) = cache_limit {
        pdx::cache::set_size_limit(limit);
    }
    let colors = colors_enabled();
    let (session, note) = match session_file {
        None => (None, None),
        Some(path) => match session::read(&path) {
            Ok(session) => (Some((path, session)), None),
            Err(error) => (None, Some(format!("started without the session: {error}"))),
        },
    };
    let source = match &session {
        Some((_, session)) => session.source(source.use_cache),
        None => source,
    };
    let loading = Loading::new(source.what(), Arc::new(Progress::default()));
    let progress = Arc::clone(&loading.progress);
    let loader = source.clone();
    let start = Start {
        source,
        session,
        note,
        memory_budget,
        recovery_dir: recovery::default_dir(),
        hide_labels,
        rule,
        params,
        policy,
        leaves,
        keys: Arc::new(keys),
    };
    // Caught from before the terminal is set up to after it is restored: a signal in between is handled by the
    // loops below, which give the terminal back.
    let signals = Signals::catch().context("cannot catch signals")?;
    // try_init installs a panic hook that restores the terminal before the panic message is printed; the hook
    // set after it turns mouse reporting off first.
    let mut terminal = ratatui::try_init().context("cannot set up the terminal")?;
    let restore_hook = std::panic::take_hook();
    let ui_thread = std::thread::current().id();
    std::panic::set_hook(Box::new(move |info| {
        // A document reader's panic, caught and reported as a skipped file: the terminal stays as it is.
        if pdx::corpus::panic_is_caught() {
            return;
        }
        // A panic on another thread is a job's or the loader's: caught there, and said in the status line (a
        // job that failed) or on the way out, while the interface goes on. Printed here, it would write over the
        // screen, and restoring the terminal would leave the interface drawing on the shell's screen.
        if std::thread::current().id() != ui_thread {
            return;
        }
        disable_mouse();
        restore_hook(info);
    }));
    let result = crossterm::execute!(std::io::stdout(), EnableMouseCapture)
        .context("cannot turn on the mouse")
        .and_then(|()| {
            run_in(
                &mut terminal,
                loading,
                move || {
                    loader
                        .open(&progress)
                        .map(|(opened, pending)| Loaded { opened, pending })
                },
                colors,
                start,
                &signals,
            )
        });
    disable_mouse();
    ratatui::restore();
    // The terminal's drop shows the cursor too, but not on the way out after a signal (process::exit skips it).
    let _ = crossterm::execute!(std::io::stdout(), crossterm::cursor::Show);
    match result? {
        Ended::Quit { unfinished } => {
            // The collection's cache entry, written while it was in use, is what makes the next open fast. Its
            // result was for the model, which is gone: a write that failed said so while it was shown.
            if unfinished.iter().any(|writer| !writer.is_finished()) {
                eprintln!("pdx: finishing the cache entry for the next open…");
            }
            for writer in unfinished {
                let _ = writer.join();
            }
        }
        Ended::LoadCancelled => eprintln!("pdx: loading cancelled"),
        Ended::Signalled { signal, kept } => {
            #[cfg(unix)]
            if signal == signal_hook::consts::SIGBUS {
                eprintln!(
                    "pdx: a file read in place (the collection's cache entry) shrank or could not be read while \
                     in use; the next start reads the collection again"
                );
            }
            eprintln!("pdx: {}", recovery::farewell(signal, &kept));
            // As a shell reports a program a signal ended.
            std::process::exit(128 + signal);
        }
        Ended::Crashed(Crashed { message, kept }) => {
            eprintln!("pdx: {}", recovery::crash_farewell(&message, &kept));
            // As a Rust program that panics.
            std::process::exit(101);
        }
    }
    Ok(())
}

/// Stop mouse reporting (harmless if it was not on): before the terminal goes back to the shell.
fn disable_mouse() {
    let _ = crossterm::execute!(std::io::stdout(), DisableMouseCapture);
}

/// What the model starts with besides the data.
struct Start {
    source: Source,
    session: Option<(PathBuf, Session)>,
    note: Option<String>,
    memory_budget: u64,
    /// Where a signal's recovery goes and where the start looks for one (none: no folder for it).
    recovery_dir: Option<PathBuf>,
    /// Start label-blind (`--hide-labels`).
    hide_labels: bool,
    rule: RuleSpec,
    params: Params,
    policy: SelectPolicy,
    leaves: Option<usize>,
    /// The key table in effect.
    keys: Arc<KeyMap>,
}

/// How a run of the TUI ended.
enum Ended {
    /// `q`, with the threads of the effects pdx finishes before it exits (the collection's cache entry, when it
    /// was built from the files).
    Quit { unfinished: Vec<JoinHandle<()>> },
    /// Esc while loading.
    LoadCancelled,
    /// A signal: the unsaved tree's recovery file (none: nothing to keep), or why it could not be written.
    Signalled {
        signal: i32,
        kept: Result<Option<PathBuf>, String>,
    },
    /// A panic of the interface's thread.
    Crashed(Crashed),
}

/// A panic of the interface's thread: what it said, and the unsaved tree's recovery file (none: nothing to keep),
/// or why it could not be written.
#[derive(Debug)]
struct Crashed {
    message: String,
    kept: Result<Option<PathBuf>, String>,
}

/// Run `body` on `model`, the interface's work on its thread; a panic in it ends the run as a [`Crashed`], the
/// unsaved tree kept in `recovery_dir` as a signal keeps it. The panic hook has restored the terminal and said
/// where the panic was by then; the caller restores the terminal again (harmless) and exits.
fn run_guarded<T>(
    model: &mut Model,
    recovery_dir: Option<&std::path::Path>,
    body: impl FnOnce(&mut Model) -> T,
) -> Result<T, Crashed> {
    let panic = match catch_unwind(AssertUnwindSafe(|| body(&mut *model))) {
        Ok(value) => return Ok(value),
        Err(panic) => panic,
    };
    let message = effects::panic_message(panic.as_ref());
    // The model may be part way through a change: keeping it may panic too, which must not end pdx unsaid.
    let kept = catch_unwind(AssertUnwindSafe(|| {
        recovery::keep_after_crash(model, recovery_dir)
    }))
    .unwrap_or_else(|panic| Err(effects::panic_message(panic.as_ref())));
    Err(Crashed { message, kept })
}

/// A signal caught while loading (there is no tree to keep yet).
struct Signalled(i32);

fn run_in(
    terminal: &mut DefaultTerminal,
    loading: Loading,
    load: impl FnOnce() -> Result<Loaded, DatasetError> + Send + 'static,
    colors: bool,
    start: Start,
    signals: &Signals,
) -> anyhow::Result<Ended> {
    let (sender, receiver) = mpsc::channel();
    let loader = sender.clone();
    std::thread::spawn(move || {
        let loaded = catch_unwind(AssertUnwindSafe(load))
            .map_err(|panic| effects::panic_message(panic.as_ref()));
        // The receiver is gone if the user quit while loading: nothing to do then.
        let _ = loader.send(Message::Loaded(Box::new(loaded)));
    });
    let Loaded { opened, pending } =
        match wait_for_load(terminal, loading, &receiver, colors, signals)? {
            Ok(LoadEnd::Loaded(loaded)) => *loaded,
            Ok(LoadEnd::Cancelled) => return Ok(Ended::LoadCancelled),
            Ok(LoadEnd::Failed(error)) => return Err(error.into()),
            Err(Signalled(signal)) => {
                return Ok(Ended::Signalled {
                    signal,
                    kept: Ok(None),
                });
            }
        };
    let recovered = start
        .recovery_dir
        .as_deref()
        .map(|dir| recovery::claim(dir, &start.source));
    let mut model = Model::new(pdx::tui::Start {
        memory_budget: start.memory_budget,
        export_dir: export::default_dir(),
        source: Some(start.source),
        session_dir: session::default_dir(),
        // A warning of the load (a cache not written) says more than the default note, less than a session's.
        note: start
            .note
            .or_else(|| opened.warnings.first().map(|w| format!("warning: {w}"))),
        blind: start.hide_labels,
        rule: start.rule,
        params: start.params,
        policy: start.policy,
        leaves: start.leaves,
        now: SystemTime::now(),
        // TZ, else /etc/localtime; UTC when neither names a zone jiff can read.
        time_zone: jiff::tz::TimeZone::system(),
        keys: Arc::clone(&start.keys),
        timings: Some(opened.timings),
        // The search index reads every text again: a background job builds it, its progress in the status line.
        ..pdx::tui::Start::without_index(Arc::new(opened.dataset), colors)
    });
    let mut workers = Workers {
        sender: sender.clone(),
        unfinished: Vec::new(),
    };
    let size = terminal.size()?;
    let recovery_dir = start.recovery_dir.as_deref();
    let ran = run_guarded(&mut model, recovery_dir, |model| {
        // How many documents a list may show, for the texts read for the screen.
        let (width, height) = (size.width, size.height);
        workers.dispatch(model, Action::Resize { width, height });
        // The cache entry is written while the analyst already works (at a million documents it is a fifth of
        // the first open), at a lower priority than the analyst's jobs: it only has to be there by the next open.
        workers.dispatch(model, Action::Opened(pending.map(Box::new)));
        if let Some((path, session)) = start.session {
            let session = Box::new(session);
            workers.dispatch(model, Action::OpenSession { path, session });
        }
        match recovered {
            Some(Ok(Some(offer))) => {
                workers.dispatch(model, Action::Recovered(Ok(Box::new(offer))))
            }
            Some(Err(error)) => workers.dispatch(model, Action::Recovered(Err(error))),
            Some(Ok(None)) | None => {}
        }
        event_loop(terminal, model, &mut workers, &receiver, signals)
    });
    let caught = match ran {
        Ok(caught) => caught?,
        Err(crashed) => return Ok(Ended::Crashed(crashed)),
    };
    if let Some(signal) = caught {
        let kept = recovery::keep(&model, recovery_dir, signal);
        return Ok(Ended::Signalled { signal, kept });
    }
    workers.unfinished.retain(|worker| !worker.is_finished());
    Ok(Ended::Quit {
        unfinished: workers.unfinished,
    })
}

/// How long pdx waits for a cancelled load to stop before it quits anyway (a phase without cancel points, such as
/// weighting, runs to its end otherwise).
const CANCEL_WAIT: Duration = Duration::from_secs(2);

/// Draw the loading screen, with the loader's progress, until the corpus is loaded or the user cancels.
fn wait_for_load(
    terminal: &mut DefaultTerminal,
    mut loading: Loading,
    receiver: &Receiver<Message>,
    colors: bool,
    signals: &Signals,
) -> anyhow::Result<Result<LoadEnd, Signalled>> {
    let start = Instant::now();
    let mut cancelled_at = None;
    loop {
        if let Some(signal) = signals.caught() {
            return Ok(Err(Signalled(signal)));
        }
        let tick = (start.elapsed().as_millis() / 100) as usize;
        terminal.draw(|frame| view::view_loading(frame, &loading, tick, colors))?;
        if signals.poll_input(Duration::from_millis(80))?
            && let Event::Key(key) = event::read()?
            && key.kind == KeyEventKind::Press
            && let Some(command) = loading.command_for(&key)
        {
            loading.update(command);
            cancelled_at.get_or_insert_with(Instant::now);
        }
        if cancelled_at.is_some_and(|at| at.elapsed() > CANCEL_WAIT) {
            return Ok(Ok(LoadEnd::Cancelled));
        }
        match receiver.try_recv() {
            Ok(Message::Loaded(result)) => match *result {
                Ok(result) => return Ok(Ok(loading.finished(result))),
                Err(message) => anyhow::bail!("internal error while loading: {message}"),
            },
            Ok(Message::Action(_)) | Err(mpsc::TryRecvError::Empty) => {}
            Err(mpsc::TryRecvError::Disconnected) => anyhow::bail!("the loading thread died"),
        }
    }
}

fn event_loop(
    terminal: &mut DefaultTerminal,
    model: &mut Model,
    workers: &mut Workers,
    receiver: &Receiver<Message>,
    signals: &Signals,
) -> anyhow::Result<Option<i32>> {
    let mut redraw = true;
    let mut last_draw = Instant::now();
    while !model.quit_requested() {
        // Polled at least every 50 ms (the key poll's timeout): a signal ends the loop, and the caller keeps the
        // tree and restores the terminal.
        if let Some(signal) = signals.caught() {
            return Ok(Some(signal));
        }
        // Redraw on change, and now and then while a job runs (the status line shows it).
        if redraw || (model.busy().is_some() && last_draw.elapsed() > Duration::from_millis(250)) {
            terminal.draw(|frame| view::view(frame, model))?;
            last_draw = Instant::now();
            redraw = false;
        }
        while let Ok(message) = receiver.try_recv() {
            // A result computed meanwhile from a mapped file that faulted (SIGBUS: its pages read as zeros) is
            // not taken: the loop ends first.
            if signals.caught().is_some() {
                break;
            }
            let Message::Action(action) = message else {
                continue;
            };
            workers.dispatch(model, *action);
            redraw = true;
        }
        if signals.poll_input(Duration::from_millis(50))? {
            // All the input that waits (a paste, a fast wheel) is handled before the next frame, for [`BURST`] at
            // most: a frame per key made a paste of thousands of keys draw thousands of frames.
            let burst = Instant::now();
            loop {
                if let Some(action) = input_action(event::read()?, terminal, model, &mut redraw)? {
                    workers.dispatch(model, action);
                    redraw = true;
                }
                if model.quit_requested()
                    || signals.caught().is_some()
                    || burst.elapsed() > BURST
                    || !signals.queued_input()?
                {
                    break;
                }
            }
        }
    }
    Ok(None)
}

/// The longest a burst of input is handled before a frame is drawn.
const BURST: Duration = Duration::from_millis(100);

/// What a terminal event asks of the model (none for a key's release, a resize, an event pdx does not use); a
/// resize or a key asks for a frame.
fn input_action(
    event: Event,
    terminal: &mut DefaultTerminal,
    model: &Model,
    redraw: &mut bool,
) -> anyhow::Result<Option<Action>> {
    Ok(match event {
        Event::Key(key) if key.kind != KeyEventKind::Release => {
            *redraw = true;
            model.action_for(&key)
        }
        Event::Mouse(mouse) => {
            let size = terminal.size()?;
            let area = Rect::new(0, 0, size.width, size.height);
            let region = || view::hit(model, area, mouse.column, mouse.row);
            match mouse.kind {
                MouseEventKind::Down(MouseButton::Left) => Some(Action::Click(region())),
                MouseEventKind::ScrollDown => Some(Action::Scroll {
                    region: region(),
                    down: true,
                }),
                MouseEventKind::ScrollUp => Some(Action::Scroll {
                    region: region(),
                    down: false,
                }),
                _ => None,
            }
        }
        Event::Resize(width, height) => {
            *redraw = true;
            Some(Action::Resize { width, height })
        }
        _ => None,
    })
}

/// The threads the effects run on, and how their results come back.
struct Workers {
    sender: Sender<Message>,
    /// The threads of effects pdx finishes before it exits.
    unfinished: Vec<JoinHandle<()>>,
}

impl Workers {
    /// Give the model the time, then `action`, and start the work it asks for on threads of their own.
    fn dispatch(&mut self, model: &mut Model, action: Action) {
        let mut effects = update(model, Action::Tick(SystemTime::now()));
        effects.extend(update(model, action));
        for effect in effects {
            self.spawn(effect, model.data());
        }
    }

    /// Run `effect` on a thread of its own, its result sent back as an action.
    fn spawn(&mut self, effect: Effect, data: &Arc<pdx::dataset::Dataset>) {
        let data = Arc::clone(data);
        let sender = self.sender.clone();
        let must_finish = effect.must_finish();
        let worker = std::thread::spawn(move || {
            effects::perform_and_report(effect, &data, |action| {
                // The receiver is gone only when pdx is quitting: nothing left to report to.
                let _ = sender.send(Message::Action(Box::new(action)));
            });
        });
        if must_finish {
            self.unfinished.push(worker);
        }
    }
}

#[cfg(test)]
mod tests {
    use pdx::tui::keys::Command;

    use super::*;

    /// A panic of the interface's thread (in `update` or `view`) ends the run as a crash with the unsaved tree
    /// kept, offered at the next start as a signal's recovery is. Before, a panic (a hit's snippet in a file
    /// changed since it was read) ended pdx with exit code 101 and the tree was lost.
    #[test]
    fn a_panic_of_the_interface_keeps_the_unsaved_tree() {
        let opened = pdx::dataset::open_demo(&Default::default()).expect("the demo opens");
        let source = Source {
            paths: Vec::new(),
            options: Default::default(),
            use_cache: false,
        };
        let mut model = Model::new(pdx::tui::Start {
            source: Some(source.clone()),
            ..pdx::tui::Start::new(Arc::new(opened.dataset), false)
        });
        // A split, so that the tree is not saved.
        let mut pending = update(&mut model, Action::Command(Command::Split));
        while let Some(effect) = pending.pop() {
            let action = effects::perform(effect, model.data());
            pending.extend(update(&mut model, action));
        }
        let dir = tempfile::tempdir().expect("temp dir");
        assert_eq!(
            run_guarded(&mut model, Some(dir.path()), |_| 7).ok(),
            Some(7)
        );
        let crashed = run_guarded::<()>(&mut model, Some(dir.path()), |_| panic!("a bug"))
            .expect_err("it panicked");
        assert_eq!(crashed.message, "a bug");
        let kept = crashed.kept.expect("written").expect("a tree to keep");
        assert!(kept.is_file(), "{}", kept.display());
        let offer = recovery::claim(dir.path(), &source)
            .expect("the folder reads")
            .expect("offered");
        assert_eq!(offer.signal, "an internal error");
        // Reopened, it is the tree of two leaves.
        let mut reopened = Model::new(pdx::tui::Start::new(Arc::clone(model.data()), false));
        let _ = update(&mut reopened, Action::Recovered(Ok(Box::new(offer))));
        let _ = update(&mut reopened, Action::Command(Command::Yes));
        assert_eq!(reopened.leaves().len(), 2);
    }
}
