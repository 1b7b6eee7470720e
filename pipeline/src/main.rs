//! `pipeline`: bake the governed corpus (`pipeline bake`), report on its sources (`pipeline sources`) and
//! refresh them from their publishers (`pipeline fetch`).

use std::{path::PathBuf, process::ExitCode};

use clap::{Args, Parser, Subcommand};
use pipeline::{
    bake::{BakeOptions, bake},
    paths,
    sources::Catalog,
    status,
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
    /// Show each catalog source: present on disk, rows, indicators, newest year, licence; and its
    /// refresh: hosts, last retrieval, checksum against the lock file, credentials (never their values).
    Sources {
        #[command(flatten)]
        dirs: Dirs,
    },
    /// Download the named sources (default: every source that declares a [refresh]) from their
    /// publishers into their raw folders, all or nothing per source, and record them in the lock file.
    /// `just bake` publishes what it brought.
    Fetch {
        #[command(flatten)]
        dirs: Dirs,
        /// Source ids.
        sources: Vec<String>,
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
            let lock = read_lock(&catalog_dir)?;
            let catalog = Catalog::load(&catalog_dir)?.refreshed(&sources_dir, &lock);
            println!("sources directory: {}", sources_dir.display());
            print!(
                "{}",
                status::table(&status::statuses(&catalog, &sources_dir))
            );
            println!();
            print!(
                "{}",
                pipeline::fetch::table(&pipeline::fetch::statuses(&catalog, &sources_dir, &lock))
            );
        }
        Command::Fetch { dirs, sources } => {
            let (sources_dir, catalog_dir) = dirs.resolve();
            let catalog = Catalog::load(&catalog_dir)?;
            let chosen: Vec<&pipeline::sources::SourceEntry> = if sources.is_empty() {
                catalog
                    .sources
                    .iter()
                    .filter(|source| source.refresh.is_some())
                    .collect()
            } else {
                sources
                    .iter()
                    .map(|id| {
                        catalog.source(id).ok_or_else(|| {
                            let ids: Vec<&str> = catalog
                                .sources
                                .iter()
                                .map(|source| source.id.as_str())
                                .collect();
                            anyhow::anyhow!("unknown source `{id}`; sources: {}", ids.join(", "))
                        })
                    })
                    .collect::<anyhow::Result<_>>()?
            };
            if chosen.is_empty() {
                println!("no source declares a [refresh]: nothing to fetch");
                return Ok(());
            }
            let mut failed = 0;
            for source in chosen {
                // Rows and years as the bake reads them, before and after (the refresh connector once the
                // publisher's files are in).
                let as_read = |catalog: &Catalog| -> anyhow::Result<status::SourceStatus> {
                    let catalog = catalog.refreshed(&sources_dir, &read_lock(&catalog_dir)?);
                    let entry = catalog.source(&source.id).unwrap_or(source);
                    Ok(status::status_of(&catalog, entry, &sources_dir))
                };
                let before = as_read(&catalog)?;
                match pipeline::fetch::fetch_source(&catalog, source, &sources_dir) {
                    Ok(files) => {
                        let after = as_read(&catalog)?;
                        let show = |value: Option<String>| value.unwrap_or_else(|| "-".into());
                        println!(
                            "{}: rows {} -> {}, newest year {} -> {}",
                            source.id,
                            show(before.rows.map(|r| r.to_string())),
                            show(after.rows.map(|r| r.to_string())),
                            show(before.newest_year.map(|y| y.to_string())),
                            show(after.newest_year.map(|y| y.to_string())),
                        );
                        for file in files {
                            let state = match &file.previous_sha256 {
                                Some(previous) if *previous == file.sha256 => "unchanged",
                                Some(_) => "changed",
                                None => "new",
                            };
                            println!(
                                "  {} ({} bytes): {state}, sha256 {}",
                                file.file, file.bytes, file.sha256
                            );
                        }
                    }
                    Err(error) => {
                        eprintln!("error: {error}");
                        failed += 1;
                    }
                }
            }
            if failed > 0 {
                anyhow::bail!(
                    "{failed} source(s) not fetched; their files and the lock file are unchanged"
                );
            }
            println!("run `just bake` to publish what was fetched");
        }
    }
    Ok(())
}

/// The lock file of `catalog_dir` (empty when there is none).
fn read_lock(catalog_dir: &std::path::Path) -> anyhow::Result<pipeline::fetch::Lock> {
    pipeline::fetch::Lock::read(catalog_dir)
        .map_err(|(path, error)| anyhow::anyhow!("{}: {error}", path.display()))
}
