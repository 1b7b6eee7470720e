//! Hot reload: when the bake publishes a new corpus (it moves the `current` pointer of the corpus
//! directory) or the process gets `SIGHUP`, the new corpus is opened beside the one serving and swapped
//! in whole ([`HttpState::replace_server`]); requests in flight finish on the corpus they started on,
//! and its memory maps are released after them. A corpus that fails to open (the server's build
//! verifies every artifact's checksum first) is logged and counted once
//! (`lac_corpus_corpus_reloads_total{outcome="failed"}`), not retried until the pointer moves or
//! `SIGHUP`, and the previous one goes on serving.

use std::{
    path::{Path, PathBuf},
    sync::{Arc, Mutex, PoisonError},
    time::Duration,
};

use super::{http::HttpState, jsonrpc::McpServer};

/// Builds the MCP core over the corpus published in a corpus directory (`server::build` with the
/// process' cache and deadline settings).
pub type Build = dyn Fn(&Path) -> Result<McpServer, String> + Send + Sync;

/// Reloads the corpus served by an [`HttpState`] from a corpus directory.
pub struct Reloader {
    corpus_dir: PathBuf,
    build: Box<Build>,
    /// The version directory serving now, and the last one that failed to open (not retried until the
    /// pointer moves or `SIGHUP` forces it).
    state: Mutex<Watched>,
}

#[derive(Debug)]
struct Watched {
    serving: PathBuf,
    failed: Option<PathBuf>,
}

/// What one [`Reloader::check`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reload {
    /// The `current` pointer names the corpus serving; nothing was done.
    Unchanged,
    /// A new corpus serves.
    Loaded {
        /// Corpus version before.
        from: String,
        /// Corpus version now.
        to: String,
    },
    /// The new corpus could not be opened; the previous one still serves.
    Failed(String),
}

impl Reloader {
    /// A reloader of `state`'s corpus from `corpus_dir` (the directory whose `current` pointer names
    /// the corpus), opening new ones with `build`.
    pub fn new(state: &HttpState, corpus_dir: PathBuf, build: Box<Build>) -> Reloader {
        let serving = state.server().plugin().corpus().baked.dir().to_path_buf();
        Reloader {
            corpus_dir,
            build,
            state: Mutex::new(Watched {
                serving,
                failed: None,
            }),
        }
    }

    /// Opens the corpus `current` names and serves it, when it is neither the one serving nor one that
    /// already failed (or always, with `force`, as on `SIGHUP`). Blocking: opening a corpus reads and
    /// maps its files.
    pub fn check(&self, state: &HttpState, force: bool) -> Reload {
        let mut watched = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let target = match corpus::manifest::current_dir(&self.corpus_dir) {
            Ok(target) => target,
            Err(error) => {
                let pointer = self.corpus_dir.join(corpus::layout::CURRENT);
                if watched.failed.as_ref() == Some(&pointer) && !force {
                    return Reload::Unchanged;
                }
                watched.failed = Some(pointer);
                return failed(error.to_string());
            }
        };
        let known = target == watched.serving || watched.failed.as_ref() == Some(&target);
        if known && !force {
            return Reload::Unchanged;
        }
        let server = match (self.build)(&self.corpus_dir) {
            Ok(server) => server,
            Err(error) => {
                watched.failed = Some(target);
                return failed(error);
            }
        };
        let from = state
            .server()
            .plugin()
            .corpus()
            .baked
            .manifest()
            .corpus_version
            .clone();
        let baked = &server.plugin().corpus().baked;
        let to = baked.manifest().corpus_version.clone();
        watched.serving = baked.dir().to_path_buf();
        watched.failed = None;
        state.replace_server(server);
        super::metrics::record_reload("loaded");
        // At warn, the default level, so that an operator sees every swap.
        tracing::warn!(from, to, dir = %watched.serving.display(), "corpus reloaded");
        Reload::Loaded { from, to }
    }
}

fn failed(error: String) -> Reload {
    super::metrics::record_reload("failed");
    tracing::error!(%error, "corpus reload failed; the previous corpus still serves");
    Reload::Failed(error)
}

/// Checks for a new corpus every `poll` (never, when `None`) and on every `SIGHUP`, forever.
pub async fn watch(state: Arc<HttpState>, reloader: Arc<Reloader>, poll: Option<Duration>) {
    #[cfg(unix)]
    let mut hangups = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()).ok();
    let mut ticks = poll.map(|every| {
        let mut ticks = tokio::time::interval(every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ticks
    });
    loop {
        let hangup = async {
            #[cfg(unix)]
            if let Some(hangups) = hangups.as_mut() {
                hangups.recv().await;
                return;
            }
            std::future::pending::<()>().await;
        };
        let tick = async {
            match ticks.as_mut() {
                Some(ticks) => {
                    ticks.tick().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        let force = tokio::select! {
            () = hangup => true,
            () = tick => false,
        };
        let (state, reloader) = (state.clone(), reloader.clone());
        // Opening a corpus blocks: off the async workers.
        let _ = tokio::task::spawn_blocking(move || reloader.check(&state, force)).await;
    }
}
