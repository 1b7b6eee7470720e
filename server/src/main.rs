//! `server`: serve the published corpus over MCP (Streamable HTTP by default, `--stdio` for local
//! clients), or `server check` to verify it.

use std::{net::SocketAddr, path::PathBuf, process::ExitCode, sync::Arc, time::Duration};

use clap::{Parser, Subcommand};

use server::transport::{
    guard::{OriginPolicy, TrustedProxies},
    http::{HttpConfig, HttpState, service},
    jsonrpc::McpServer,
    listener::{self, ServeLimits},
    reload::{self, Reloader},
    shared_limit::SharedLimiter,
};

/// Serve the governed LAC data corpus over MCP.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Cli {
    /// Output directory of `pipeline bake`; its `current` pointer names the corpus to serve
    /// [default: the nearest data/baked holding a published corpus, from the working directory up]
    #[arg(long, env = "CORPUS_OUT_DIR", global = true)]
    corpus_dir: Option<PathBuf>,
    /// Address to listen on for Streamable HTTP.
    #[arg(long, env = "MCP_ADDR", default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Serve newline-delimited JSON-RPC on stdin/stdout instead of HTTP (for Claude Desktop and other local clients).
    #[arg(long)]
    stdio: bool,
    /// Must be `true` for HTTP POSTs to be answered; anything else refuses them with 403 (fail closed).
    /// `--mcp-enabled` alone means `true`.
    #[arg(long, env = "MCP_ENABLED", default_value = "false", num_args = 0..=1, default_missing_value = "true")]
    mcp_enabled: String,
    /// JSON-RPC messages per client IP per minute.
    #[arg(long, env = "MCP_RATE_LIMIT", default_value_t = 60)]
    rate_limit: u32,
    /// Memory for cached tool results, in MiB (answers are deterministic; 0 turns the cache off).
    #[arg(long, env = "MCP_CACHE_MB", default_value_t = 32)]
    cache_mb: usize,
    /// Seconds one tool call may run; past it the message gets JSON-RPC -32603 and the server goes on.
    #[arg(long, env = "MCP_CALL_DEADLINE_SECS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    call_deadline_secs: u64,
    /// Browser origins that may call over HTTP: `*` for any (a public deployment), or a comma-separated
    /// list of origins allowed besides pages on this machine, which always are [default: this machine only]
    #[arg(long, env = "MCP_ALLOWED_ORIGINS", default_value = "")]
    allowed_origins: String,
    /// Proxies (IP addresses or CIDR ranges, comma-separated) whose x-real-ip / x-forwarded-for name
    /// the client for the rate limit; from anyone else those headers are ignored [default: none]
    #[arg(long, env = "MCP_TRUSTED_PROXIES", default_value = "")]
    trusted_proxies: String,
    /// Redis for a rate limit shared by every instance (`redis://host:6379/0`); any Redis error falls back
    /// to this instance's own limiter [default: none, each instance counts alone]
    #[arg(long, env = "REDIS_URL")]
    redis_url: Option<String>,
    /// Seconds a client has to send a request's headers; also how long a kept-alive connection may sit
    /// idle
    #[arg(long, env = "MCP_HEADER_TIMEOUT_SECS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    header_timeout_secs: u64,
    /// Open HTTP connections at most; more get 503 with Retry-After (keep it below `ulimit -n`)
    #[arg(long, env = "MCP_MAX_CONNECTIONS", default_value_t = 512, value_parser = clap::value_parser!(u64).range(1..))]
    max_connections: u64,
    /// Open HTTP connections of one peer address at most (more get 503); behind a proxy every client
    /// shares its address, so raise it there
    #[arg(long, env = "MCP_MAX_CONNECTIONS_PER_CLIENT", default_value_t = 128, value_parser = clap::value_parser!(u64).range(1..))]
    max_connections_per_client: u64,
    /// Open HTTP connections one client keeps without being asked to give one up when every slot is
    /// taken and another client waits (its oldest then closes, gracefully)
    #[arg(long, env = "MCP_CONNECTION_FAIR_SHARE", default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..))]
    connection_fair_share: u64,
    /// Leading bits that tell IPv6 clients apart for the rate limit and the connection caps: a host
    /// with a /64 is one client (IPv4 clients are their address)
    #[arg(long, env = "MCP_IPV6_CLIENT_PREFIX", default_value_t = 64, value_parser = clap::value_parser!(u8).range(1..=128))]
    ipv6_client_prefix: u8,
    /// Uncached tool calls running at once at most (more get 503 with Retry-After) [default: 4 per core]
    #[arg(long, env = "MCP_MAX_CALLS_IN_FLIGHT", value_parser = clap::value_parser!(u64).range(1..))]
    max_calls_in_flight: Option<u64>,
    /// Uncached tool calls of one client running at once at most (more get 503); behind a proxy not named
    /// in MCP_TRUSTED_PROXIES every client shares its address [default: one per core, at least 2]
    #[arg(long, env = "MCP_MAX_CALLS_PER_CLIENT", value_parser = clap::value_parser!(u64).range(1..))]
    max_calls_per_client: Option<u64>,
    /// Spare a quarter of the process' CPUs, rounded up (one of 2 to 4), for the async workers: the tool calls
    /// that run on the server's call threads (the dear ones) keep off them, and while dear calls fill
    /// every other core the workers keep to them, so cheap and cached calls are answered on time
    /// (`false`: dear calls and workers may use every core)
    #[arg(long, env = "MCP_SPARE_CORE", default_value_t = true, action = clap::ArgAction::Set)]
    spare_core: bool,
    /// Seconds between checks of the corpus directory's `current` pointer; a newly published corpus is
    /// loaded and swapped in without dropping a request (SIGHUP reloads at once; 0: only on SIGHUP)
    #[arg(long, env = "MCP_RELOAD_POLL_SECS", default_value_t = 5)]
    reload_poll_secs: u64,
    /// Base URL under which people and notebooks reach this server (download links, resource links,
    /// the catalog page), e.g. https://corpus.example.org; default: http:// plus the listen address.
    /// Never taken from request headers
    #[arg(long, env = "MCP_PUBLIC_URL", value_parser = parse_public_url)]
    public_url: Option<String>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Open and verify the published corpus (format version, sha256 of every artifact) and print a summary.
    Check,
}

fn main() -> ExitCode {
    // Structured logs, one JSON object a line, to stderr (with --stdio, stdout carries nothing but
    // JSON-RPC): each line carries its HTTP request id and JSON-RPC message (method, id) from the spans.
    tracing_subscriber::fmt()
        .json()
        .with_current_span(true)
        .with_span_list(false)
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .init();
    let cli = Cli::parse();
    let corpus_dir = cli.corpus_dir.clone().unwrap_or_else(default_corpus_dir);
    let outcome = match cli.command {
        Some(Command::Check) => check(&corpus_dir),
        None if cli.stdio => serve_stdio(&cli, &corpus_dir),
        None => serve_http(&cli, &corpus_dir),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn check(corpus_dir: &std::path::Path) -> Result<(), String> {
    let corpus = server::load::verify_corpus(corpus_dir).map_err(|error| error.to_string())?;
    // What a server reads on first use is read now too: the observation tables, the downloads list.
    corpus.warm().map_err(|error| error.to_string())?;
    let baked = &corpus.baked;
    println!(
        "corpus {} at {}: {} observations, {} comparison-aggregate observations, {} indicators, {} sources, {} datasets, checksums ok",
        baked.manifest().corpus_version,
        baked.dir().display(),
        baked.observations().len(),
        baked.aggregates().len(),
        baked.metrics().len(),
        baked.sources().len(),
        corpus.datasets.len()
    );
    Ok(())
}

/// The MCP core over the corpus in `corpus_dir` with the cache and deadline of `cli`.
fn build_server(cli: &Cli, corpus_dir: &std::path::Path) -> Result<McpServer, String> {
    server_builder(cli, false)(corpus_dir)
}

/// What builds the MCP core over a corpus directory with the cache and deadline of `cli`: at start
/// (quickly), and on every reload with every artifact's checksum verified first (`verify`), so a
/// corrupt corpus is refused before it is swapped in.
fn server_builder(
    cli: &Cli,
    verify: bool,
) -> impl Fn(&std::path::Path) -> Result<McpServer, String> + Send + Sync + 'static {
    let (cache_bytes, call_deadline) = (
        cli.cache_mb * 1024 * 1024,
        Duration::from_secs(cli.call_deadline_secs),
    );
    move |corpus_dir| {
        let server = if verify {
            server::build_verified(corpus_dir)?
        } else {
            server::build(corpus_dir)?
        };
        Ok(server
            .with_cache_budget(cache_bytes)
            .with_call_deadline(call_deadline))
    }
}

/// Accepts an absolute http(s) URL without query or fragment.
fn parse_public_url(text: &str) -> Result<String, String> {
    let rest = text
        .strip_prefix("https://")
        .or_else(|| text.strip_prefix("http://"))
        .ok_or("must start with http:// or https://")?;
    if rest.is_empty() || rest.contains(['?', '#', ' ']) {
        return Err(
            "must be a base URL such as https://corpus.example.org (no query, fragment or spaces)"
                .into(),
        );
    }
    Ok(text.trim_end_matches('/').to_string())
}

fn serve_stdio(cli: &Cli, corpus_dir: &std::path::Path) -> Result<(), String> {
    // Over stdio nothing listens at the default address: without MCP_PUBLIC_URL, links are resource URIs.
    match cli.public_url.as_deref() {
        Some(url) => {
            server::links::set_public_url(url);
        }
        None => server::links::set_no_public_url(),
    }
    let server = build_server(cli, corpus_dir)?;
    server::transport::stdio::serve(&server, std::io::stdin().lock(), std::io::stdout().lock())
        .map_err(|error| error.to_string())
}

fn serve_http(cli: &Cli, corpus_dir: &std::path::Path) -> Result<(), String> {
    server::transport::placement::spare_cores(cli.spare_core);
    let server = build_server(cli, corpus_dir)?;
    let enabled = cli.mcp_enabled == "true";
    let version = server
        .plugin()
        .corpus()
        .baked
        .manifest()
        .corpus_version
        .clone();
    let tools = server
        .plugin()
        .tools()
        .iter()
        .filter(|tool| !tool.app_only)
        .count();
    let local = HttpConfig::local(enabled, cli.rate_limit);
    let state = HttpState::new(
        server,
        HttpConfig {
            enabled,
            rate_limit_per_minute: cli.rate_limit,
            origins: OriginPolicy::parse(&cli.allowed_origins)
                .map_err(|error| format!("MCP_ALLOWED_ORIGINS: {error}"))?,
            // A server on loopback answers only requests addressed to this machine (DNS rebinding).
            check_host: cli.addr.ip().is_loopback(),
            trusted_proxies: TrustedProxies::parse(&cli.trusted_proxies)
                .map_err(|error| format!("MCP_TRUSTED_PROXIES: {error}"))?,
            ipv6_client_prefix: cli.ipv6_client_prefix,
            max_calls_in_flight: cli
                .max_calls_in_flight
                .map_or(local.max_calls_in_flight, |calls| calls as usize),
            max_calls_per_client: cli
                .max_calls_per_client
                .map_or(local.max_calls_per_client, |calls| calls as usize),
        },
    );
    let (header_timeout_secs, max_connections, max_connections_per_client, fair_share) = (
        cli.header_timeout_secs,
        cli.max_connections as usize,
        cli.max_connections_per_client as usize,
        cli.connection_fair_share as usize,
    );
    // A worker counts itself among those kept to the spared cores the first time it unparks; any other
    // thread of the runtime (its blocking pool) starts on every core, whatever its parent's set.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .on_thread_start(server::transport::placement::runtime_thread_started)
        .on_thread_unpark(server::transport::placement::worker_unparked)
        .build()
        .map_err(|error| error.to_string())?;
    runtime.block_on(async {
        tokio::spawn(server::transport::placement::release_workers_when_calm());
        let state = match cli.redis_url.as_deref().filter(|url| !url.is_empty()) {
            None => state,
            Some(url) => {
                redis::Client::open(url).map_err(|error| format!("REDIS_URL `{url}`: {error}"))?;
                match SharedLimiter::connect(url, cli.rate_limit, Duration::from_secs(60)).await {
                    Ok(shared) => state.with_shared_limiter(shared),
                    Err(error) => {
                        eprintln!("{error}: rate limits are this instance's own until it restarts with Redis up");
                        state
                    }
                }
            }
        };
        let state = Arc::new(state);
        let reloader = Arc::new(Reloader::new(
            &state,
            corpus_dir.to_path_buf(),
            Box::new(server_builder(cli, true)),
        ));
        let poll = (cli.reload_poll_secs > 0).then(|| Duration::from_secs(cli.reload_poll_secs));
        tokio::spawn(reload::watch(state.clone(), reloader, poll));
        let listener = tokio::net::TcpListener::bind(cli.addr)
            .await
            .map_err(|error| format!("cannot listen on {}: {error}", cli.addr))?;
        let address = listener.local_addr().map_err(|error| error.to_string())?;
        let public_url = server::links::set_public_url(
            cli.public_url
                .as_deref()
                .unwrap_or(&format!("http://{address}")),
        );
        println!(
            "serving corpus {version} ({tools} tools) at http://{address}/api/mcp{}; catalog page {public_url}/, downloads {public_url}/api/v1/catalog",
            if enabled {
                ""
            } else {
                " (MCP_ENABLED is not \"true\": POSTs get 403)"
            }
        );
        let limits = ServeLimits {
            header_read_timeout: Duration::from_secs(header_timeout_secs),
            max_connections,
            max_connections_per_client,
            fair_share_per_client: fair_share,
            ipv6_client_prefix: cli.ipv6_client_prefix,
            ..ServeLimits::default()
        };
        // On a worker, not this thread (which `block_on` parks): the accept loop moves with the workers.
        tokio::spawn(listener::serve(
            listener,
            service(state),
            limits,
            shutdown_signal(),
        ))
        .await
        .map_err(|error| error.to_string())?
        .map_err(|error| error.to_string())
    })
}

/// The nearest `data/baked` holding a published corpus, from the working directory up; else `data/baked`.
fn default_corpus_dir() -> PathBuf {
    let relative = std::path::Path::new("data/baked");
    std::env::current_dir()
        .ok()
        .and_then(|cwd| {
            cwd.ancestors()
                .map(|ancestor| ancestor.join(relative))
                .find(|candidate| candidate.join("current").exists())
        })
        .unwrap_or_else(|| relative.to_path_buf())
}

async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    let terminate = async {
        if let Ok(mut signal) =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            signal.recv().await;
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = interrupt => {},
        _ = terminate => {},
    }
}

/// The process' allocator: mimalloc, whose per-thread free lists make the many small, short-lived
/// allocations of a tool call (its answer's strings and vectors) about twice as cheap as glibc's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
