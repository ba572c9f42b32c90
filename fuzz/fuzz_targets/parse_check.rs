//! Any text through the parser, the type checker and the lowering to core
//! IR (after the standard library, as `arrc check` sees a program): errors
//! are fine, panics are not.
#![no_main]

use libfuzzer_sys::fuzz_target;

const PRELUDE: &str = include_str!("../../stdlib/prelude.arr");

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut sources = arrc::syntax::SourceMap::default();
    let std = sources.add("stdlib/prelude.arr".into(), PRELUDE.into());
    let file = sources.add("fuzz.arr".into(), text.into());
    let Ok(prelude) = arrc::syntax::parse_program(&sources, std) else {
        return;
    };
    let Ok(prog) = arrc::syntax::parse_program(&sources, file) else {
        return;
    };
    if let Ok(checked) = arrc::types::check(&sources, &[prelude, prog]) {
        let _ = arrc::core::lower(&checked, &sources);
    }
});
