//! The `pdx` command: parses the command line, runs a batch command or (with no command) opens a collection in
//! the terminal interface. Errors are printed as one line naming the file (and the flag), with exit code 2.

// Items are visible to the crate only unless the crate's users need them.
#![warn(unreachable_pub)]

use std::process::ExitCode;

use clap::Parser;
// Every error is printed escaped, as one line: it may quote the collection (a file's name, a column's), whose
// controls a terminal would act on and whose line breaks would make it several lines.
use pdx::printable::escaped;

mod cli;

fn main() -> ExitCode {
    quiet_for_caught_reader_panics();
    // The config file's settings go in as flags the command line did not give; its errors are one line each.
    let (args, keys, configured) = match cli::config::prepare(std::env::args_os().collect()) {
        Ok(cli::config::Prepared::Run {
            args,
            keys,
            configured,
        }) => (args, keys, configured),
        Ok(cli::config::Prepared::PrintConfig(text)) => {
            print!("{text}");
            return ExitCode::SUCCESS;
        }
        Err(error) => {
            eprintln!("pdx: {}", escaped(&format!("{error:#}")));
            return ExitCode::from(2);
        }
    };
    let parsed = match cli::Cli::try_parse_from(args) {
        Ok(parsed) => parsed,
        Err(error) => {
            use clap::error::ErrorKind;
            if matches!(
                error.kind(),
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
            ) {
                let _ = error.print();
                return ExitCode::SUCCESS;
            }
            // One line: clap's first line names the bad argument; the usage block adds nothing a user needs here.
            let rendered = error.render().to_string();
            let first = rendered.lines().next().unwrap_or("error: bad arguments");
            eprintln!(
                "pdx: {}",
                escaped(first.trim_start_matches("error: ").trim())
            );
            return ExitCode::from(2);
        }
    };
    match cli::run(parsed, keys, &configured) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            // Broken pipe (e.g. `pdx stats | head`) is not an error worth a message.
            if error
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            {
                return ExitCode::SUCCESS;
            }
            eprintln!("pdx: {}", escaped(&cli::flags::describe(&error)));
            ExitCode::from(2)
        }
    }
}

/// A document reader that panics on a file it does not understand (pdf-extract does, by design) is caught by
/// the library, which skips the file and names it and the cause in the load report; the panic message would
/// only be noise on the terminal (and in the TUI, on its screen). Every other panic is reported as before.
fn quiet_for_caught_reader_panics() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !pdx::corpus::panic_is_caught() {
            report(info);
        }
    }));
}
