//! Command line in, files and exit codes out: `arrc build|run|check|test|bench`,
//! with the pipeline of stages in `pipeline`.

pub mod cli;
