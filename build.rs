fn main() {
    // LALRPOP's table construction and conflict reports recurse deeply on
    // this grammar's precedence tiers: more stack than the main thread's.
    let worker = std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(|| {
            lalrpop::Configuration::new()
                .set_in_dir("grammar")
                .set_out_dir(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
                .emit_rerun_directives(true)
                .process()
                .expect("grammar/ must be a valid LALRPOP grammar");
        })
        .expect("a thread for LALRPOP");
    worker.join().expect("LALRPOP finished");
}
