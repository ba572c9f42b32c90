fn main() {
    // The front end and the passes recurse over the program's nesting (a
    // chain of `let`s is nested too): a big stack keeps long programs from
    // overflowing it. Reserved, not touched, unless a program needs it.
    let compiler = std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(arrc::driver::cli::main);
    let code = match compiler.map(|t| t.join()) {
        Ok(Ok(code)) => code,
        _ => {
            eprintln!("Error: the compiler failed unexpectedly");
            70
        }
    };
    std::process::exit(code);
}
