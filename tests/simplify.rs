use std::path::Path;
fn frontend(path: &Path) -> Result<arrc::core::ir::Program, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let mut sources = arrc::syntax::SourceMap::default();
    let file = sources.add(path.display().to_string(), text);
    let prog = arrc::syntax::parse_program(&sources, file).map_err(|d| format!("{d:?}"))?;
    let checked = arrc::types::check(&sources, &[prog]).map_err(|d| format!("{d:?}"))?;
    Ok(arrc::core::lower(&checked, &sources))
}
#[test]
fn scratch_dump() {
    for dir in ["tests/fusion", "tests/programs"] {
        let mut files: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for f in files {
            if f.extension().map_or(true, |e| e != "arr") { continue; }
            match frontend(Path::new(&f)) {
                Ok(p) => println!("==== {}\n{}", f.display(), arrc::core::print::print_program(&p)),
                Err(e) => println!("==== {} FAILED {}", f.display(), e),
            }
        }
    }
}
