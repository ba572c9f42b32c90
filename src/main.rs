fn main() {
    std::process::exit(arrc::driver::cli::main());
}
