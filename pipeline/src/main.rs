//! `pipeline`: bake the governed corpus (`pipeline bake`) and report on its sources (`pipeline sources`).

use std::{path::PathBuf, process::ExitCode};

use clap::{Args, Parser, Subcommand};
use pipeline::{
    bake::{BakeOptions, bake},
    paths,
    sources::{Catalog, status},
};

/// Bake the governed LAC data corpus from declared sources.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Ingest, govern and publish the corpus (atomically; a failed bake leaves the previous one current).
    Bake {
        #[command(flatten)]
        dirs: Dirs,
        /// Output directory: each corpus goes in <OUT_DIR>/<version>, <OUT_DIR>/current names the published one
        /// [default: <CATALOG_DIR>/baked]
        #[arg(long, env = paths::OUT_DIR_ENV)]
        out_dir: Option<PathBuf>,
        /// Do not draw progress bars.
        #[arg(long)]
        quiet: bool,
    },
    /// Show each catalog source: present on disk, rows, indicators, newest year, licence.
    Sources {
        #[command(flatten)]
        dirs: Dirs,
    },
}

#[derive(Debug, Args)]
struct Dirs {
    /// Raw sources directory [default: the nearest shared/data/sources above the working directory]
    #[arg(long, env = paths::SOURCES_DIR_ENV)]
    sources_dir: Option<PathBuf>,
    /// Catalog directory holding corpus.toml, sources/ and metrics/ [default: the nearest data/corpus.toml]
    #[arg(long, env = paths::CATALOG_DIR_ENV)]
    catalog_dir: Option<PathBuf>,
}

impl Dirs {
    fn resolve(self) -> (PathBuf, PathBuf) {
        (
            self.sources_dir.unwrap_or_else(paths::default_sources_dir),
            self.catalog_dir.unwrap_or_else(paths::default_catalog_dir),
        )
    }
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Bake {
            dirs,
            out_dir,
            quiet,
        } => {
            let (sources_dir, catalog_dir) = dirs.resolve();
            let out_dir = out_dir.unwrap_or_else(|| paths::default_out_dir(&catalog_dir));
            let options = BakeOptions {
                sources_dir,
                catalog_dir,
                out_dir,
                progress: !quiet,
            };
            let summary = bake(&options)
                .map_err(|error| anyhow::anyhow!("bake failed, nothing published: {error}"))?;
            print!("{}", summary.report.summary());
            let bytes: u64 = summary
                .manifest
                .artifacts
                .iter()
                .map(|artifact| artifact.bytes)
                .sum();
            println!(
                "published corpus {} at {} ({} artifacts, {:.1} MiB) in {:.2?}",
                summary.manifest.corpus_version,
                summary.dir.display(),
                summary.manifest.artifacts.len() + 1,
                bytes as f64 / (1024.0 * 1024.0),
                summary.elapsed
            );
        }
        Command::Sources { dirs } => {
            let (sources_dir, catalog_dir) = dirs.resolve();
            let catalog = Catalog::load(&catalog_dir)?;
            println!("sources directory: {}", sources_dir.display());
            print!(
                "{}",
                status::table(&status::statuses(&catalog, &sources_dir))
            );
        }
    }
    Ok(())
}
