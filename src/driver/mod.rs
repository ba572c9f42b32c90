//! Command line in, files and exit codes out: `arrc build|run|check|test`,
//! with the pass list in `pipeline` (run by `passes`), the sources a
//! program reads in `sources`, test blocks in `testblock`, and library
//! builds (`--library`, `--python`) in `library`.

pub(crate) mod backends;
pub mod bench;
pub mod cli;
pub mod exactness;
mod export;
pub mod library;
pub mod passes;
pub mod pipeline;
pub mod random;
pub mod script;
pub mod sources;
pub mod structure;
pub mod test_runner;
pub mod testblock;
