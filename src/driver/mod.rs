//! Command line in, files and exit codes out: `arrc build|run|check|test`,
//! with the pipeline of stages in `pipeline` and test blocks in `testblock`.

pub mod bench;
pub mod cli;
pub mod exactness;
pub mod pipeline;
pub mod random;
pub mod script;
pub mod structure;
pub mod test_runner;
pub mod testblock;
