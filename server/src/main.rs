//! `server`: loads the published corpus. `server check` verifies it and prints what it holds.

use std::{path::PathBuf, process::ExitCode};

use clap::{Parser, Subcommand};

/// Serve the governed LAC data corpus.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Cli {
    /// Output directory of `pipeline bake`; its `current` pointer names the corpus to serve.
    #[arg(long, env = "CORPUS_OUT_DIR", default_value = "data/baked", global = true)]
    corpus_dir: PathBuf,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Open and verify the published corpus (format version, sha256 of every artifact) and print a summary.
    Check,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check => match server::load::load_corpus(&cli.corpus_dir) {
            Ok(corpus) => {
                println!(
                    "corpus {} at {}: {} observations, {} comparison-aggregate observations, {} indicators, {} sources, checksums ok",
                    corpus.manifest().corpus_version,
                    corpus.dir().display(),
                    corpus.observations().len(),
                    corpus.aggregates().len(),
                    corpus.metrics().len(),
                    corpus.sources().len()
                );
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("error: {error}");
                ExitCode::FAILURE
            }
        },
    }
}
