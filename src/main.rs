use std::sync::{Arc, Mutex};

fn main() {
    // A panic is a bug in arrc: one line, exit 70 (LANGUAGE.md section 9).
    let panic_message = Arc::new(Mutex::new(None));
    let slot = Arc::clone(&panic_message);
    std::panic::set_hook(Box::new(move |info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".to_string());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        if let Ok(mut slot) = slot.lock() {
            *slot = Some(format!("{what}{at}"));
        }
    }));
    // The front end and the passes recurse over the program's nesting (a
    // chain of `let`s is nested too): a big stack keeps long programs from
    // overflowing it. Reserved, not touched, unless a program needs it.
    let compiler = std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(arrc::driver::cli::main);
    let code = match compiler.map(|t| t.join()) {
        Ok(Ok(code)) => code,
        _ => {
            let what = panic_message
                .lock()
                .ok()
                .and_then(|m| m.clone())
                .unwrap_or_else(|| "the compiler thread did not start".to_string());
            if stdout_was_closed(&what) {
                // `arrc test | head`: the reader has what it wanted, as
                // `print!` to a closed pipe is the reader's choice, not a bug.
                0
            } else {
                eprintln!("internal compiler error: {what}");
                70
            }
        }
    };
    std::process::exit(code);
}

/// Whether a panic is `print!`'s on a standard output whose reader is gone.
fn stdout_was_closed(panic_message: &str) -> bool {
    panic_message.starts_with("failed printing to stdout") && panic_message.contains("Broken pipe")
}
