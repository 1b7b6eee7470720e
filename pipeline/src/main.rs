//! `pipeline`: bake the governed corpus (`pipeline bake`), report on its sources (`pipeline sources`),
//! refresh them from their publishers (`pipeline fetch`) and show what a corpus changed against another
//! (`pipeline diff`).

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
    /// Show what NEW changed against OLD, per source and indicator (values revised with the largest
    /// relative revisions and both citations, years and series added or dropped) and per curated
    /// dataset (records added, removed or changed). Default: the corpus `current` named before the last
    /// publish (`previous`) against `current`.
    Diff {
        /// The older corpus: a corpus directory, or a version, `current` or `previous` in OUT_DIR
        /// [default: previous]
        old: Option<String>,
        /// The newer corpus, as OLD [default: current]
        new: Option<String>,
        /// Output directory holding the published corpora [default: <CATALOG_DIR>/baked]
        #[arg(long, env = paths::OUT_DIR_ENV)]
        out_dir: Option<PathBuf>,
        /// Catalog directory, for the default OUT_DIR [default: the nearest data/corpus.toml]
        #[arg(long, env = paths::CATALOG_DIR_ENV)]
        catalog_dir: Option<PathBuf>,
        /// Print the changes as JSON (the layout of a corpus' exports/changes.json) instead of text.
        #[arg(long)]
        json: bool,
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
    limit_malloc_arenas();
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

/// At most two glibc malloc arenas (unless `MALLOC_ARENA_MAX` says otherwise): glibc gives each thread
/// that allocates an arena of its own, up to 8 per core, and memory freed in one is not reused by the
/// others, so a bake whose export threads each build and drop files held about 1 GiB more at its peak
/// (20x synthetic corpus: 4.2 GiB, 3.8 GiB with two arenas; `bench/scale.sh`).
fn limit_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        // SAFETY: mallopt only sets an allocator parameter; called before any other thread exists.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 2);
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
            print!("{}", summary.changes.summary());
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
        Command::Diff {
            old,
            new,
            out_dir,
            catalog_dir,
            json,
        } => {
            let out_dir = out_dir.unwrap_or_else(|| {
                paths::default_out_dir(&catalog_dir.unwrap_or_else(paths::default_catalog_dir))
            });
            let old = old.as_deref().unwrap_or(corpus::layout::PREVIOUS);
            let new = new.as_deref().unwrap_or(corpus::layout::CURRENT);
            let old_dir = pipeline::diff::corpus_dir(&out_dir, old)?;
            let new_dir = pipeline::diff::corpus_dir(&out_dir, new)?;
            let changes = pipeline::diff::diff(
                &pipeline::diff::Snapshot::open(&old_dir)?,
                &pipeline::diff::Snapshot::open(&new_dir)?,
            );
            if json {
                println!("{}", serde_json::to_string_pretty(&changes)?);
            } else {
                print!("{}", changes.summary());
            }
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
            let curated = pipeline::fetch::curated_refreshes(&catalog)?;
            // Indicator sources by catalog entry, curated record sources by id.
            let mut chosen: Vec<(Option<&pipeline::sources::SourceEntry>, String)> = Vec::new();
            if sources.is_empty() {
                for source in catalog
                    .sources
                    .iter()
                    .filter(|source| source.refresh.is_some())
                {
                    chosen.push((Some(source), source.id.clone()));
                }
                for (id, ..) in &curated {
                    chosen.push((None, id.clone()));
                }
            } else {
                for id in &sources {
                    match catalog.source(id) {
                        Some(source) => chosen.push((Some(source), id.clone())),
                        None if curated.iter().any(|(curated_id, ..)| curated_id == id) => {
                            chosen.push((None, id.clone()));
                        }
                        None => {
                            let ids: Vec<&str> = catalog
                                .sources
                                .iter()
                                .map(|source| source.id.as_str())
                                .chain(curated.iter().map(|(id, ..)| id.as_str()))
                                .collect();
                            anyhow::bail!("unknown source `{id}`; sources: {}", ids.join(", "));
                        }
                    }
                }
            }
            if chosen.is_empty() {
                println!("no source declares a [refresh]: nothing to fetch");
                return Ok(());
            }
            let mut failed = 0;
            for (source, id) in chosen {
                // Rows and years as the bake reads them, before and after (the refresh connector once the
                // publisher's files are in); curated sources say what they brought.
                let as_read = |catalog: &Catalog| -> anyhow::Result<Option<status::SourceStatus>> {
                    let Some(source) = source else {
                        return Ok(None);
                    };
                    let catalog = catalog.refreshed(&sources_dir, &read_lock(&catalog_dir)?);
                    let entry = catalog.source(&source.id).unwrap_or(source);
                    Ok(Some(status::status_of(&catalog, entry, &sources_dir)))
                };
                let before = as_read(&catalog)?;
                let fetched = match source {
                    Some(source) => pipeline::fetch::fetch_source(&catalog, source, &sources_dir),
                    None => pipeline::fetch::fetch_curated(&catalog, &id, &sources_dir),
                };
                match fetched {
                    Ok(files) => {
                        let after = as_read(&catalog)?;
                        let show = |value: Option<String>| value.unwrap_or_else(|| "-".into());
                        match (before, after) {
                            (Some(before), Some(after)) => println!(
                                "{id}: rows {} -> {}, newest year {} -> {}",
                                show(before.rows.map(|r| r.to_string())),
                                show(after.rows.map(|r| r.to_string())),
                                show(before.newest_year.map(|y| y.to_string())),
                                show(after.newest_year.map(|y| y.to_string())),
                            ),
                            _ => println!("{id}: curated records"),
                        }
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
