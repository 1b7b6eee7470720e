//! The HTTP transport's settings ([`HttpConfig`]) and the state its handlers share ([`HttpState`]: the MCP
//! core served, swapped whole on reload, the rate limiters and the cap on calls in flight). The MCP and download handlers both read
//! it; it imports neither.

use std::{
    net::IpAddr,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use arc_swap::ArcSwap;

use super::{
    call_costs::CallCosts,
    guard::{OriginPolicy, TrustedProxies},
    in_flight::InFlight,
    jsonrpc::McpServer,
    rate_limit::RateLimiter,
    shared_limit::SharedLimiter,
};

/// Settings of the HTTP transport.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// `MCP_ENABLED == "true"`; otherwise every POST is refused (fail closed).
    pub enabled: bool,
    /// Messages per client per minute.
    pub rate_limit_per_minute: u32,
    /// Browser origins that may call (403 for others).
    pub origins: OriginPolicy,
    /// Refuse a `Host` that is not this machine (set when bound to loopback: DNS rebinding).
    pub check_host: bool,
    /// Proxies whose `x-real-ip` / `x-forwarded-for` name the client; from anyone else they are ignored.
    pub trusted_proxies: TrustedProxies,
    /// IPv6 clients are told apart by this many leading bits ([`super::guard::client_network`]).
    pub ipv6_client_prefix: u8,
    /// Uncached tool calls (or batches) running at once at most ([`super::in_flight`]); 503 beyond.
    pub max_calls_in_flight: usize,
    /// Of those, one client's at most; 503 beyond.
    pub max_calls_per_client: usize,
}

impl HttpConfig {
    /// The defaults of a loopback server: pages on this machine only, `Host` checked, no proxy trusted.
    /// Calls in flight: 4 per core, a core's worth (at least 2) per client.
    pub fn local(enabled: bool, rate_limit_per_minute: u32) -> HttpConfig {
        let default_in_flight = InFlight::for_this_machine();
        HttpConfig {
            enabled,
            rate_limit_per_minute,
            origins: OriginPolicy::Local(Vec::new()),
            check_host: true,
            trusted_proxies: TrustedProxies::default(),
            ipv6_client_prefix: super::guard::DEFAULT_IPV6_CLIENT_PREFIX,
            max_calls_in_flight: default_in_flight.max_total(),
            max_calls_per_client: default_in_flight.max_per_client(),
        }
    }
}

/// Shared state of the HTTP handlers.
#[derive(Debug)]
pub struct HttpState {
    /// The MCP core over the corpus served, swapped whole by [`HttpState::replace_server`] (a request
    /// keeps the one it started on to its end).
    server: ArcSwap<McpServer>,
    /// Settings.
    pub config: HttpConfig,
    /// The per-client limiter of this instance (the only one, or the fallback of the shared one), by
    /// client network ([`super::guard::client_network`]: an IPv4 address, an IPv6 /64; `None`: a client
    /// whose address is unknown).
    pub limiter: RateLimiter<Option<IpAddr>>,
    /// The limiter shared by every instance through Redis, when `REDIS_URL` is set.
    pub shared_limiter: Option<SharedLimiter>,
    /// The cap on tool calls in flight, in all and per client.
    pub in_flight: Arc<InFlight>,
    /// Per tool, how long its recent calls ran: whether the next runs in place or on the blocking pool.
    pub call_costs: CallCosts,
    /// When the corpus served was loaded, seconds since the Unix epoch.
    loaded_at_unix: AtomicU64,
}

impl HttpState {
    /// The same state charging the budget shared through Redis first (its in-memory limiter decides
    /// whenever Redis does not answer).
    pub fn with_shared_limiter(mut self, shared: SharedLimiter) -> HttpState {
        self.shared_limiter = Some(shared);
        self
    }

    /// The client a request comes from, as the limits count it: the peer address (or, from a trusted
    /// proxy, the address it names), an IPv6 one cut to its network
    /// ([`super::guard::client_network`]); `None` when unknown.
    pub fn client(
        &self,
        headers: &axum::http::HeaderMap,
        extensions: &axum::http::Extensions,
    ) -> Option<IpAddr> {
        let peer = extensions
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
            .map(|axum::extract::ConnectInfo(peer)| *peer);
        self.client_of_peer(headers, peer)
    }

    /// As [`HttpState::client`], for a request from the socket peer `peer` (`None` when unknown).
    pub fn client_of_peer(
        &self,
        headers: &axum::http::HeaderMap,
        peer: Option<std::net::SocketAddr>,
    ) -> Option<IpAddr> {
        super::guard::client_address(headers, peer, &self.config.trusted_proxies)
            .map(|address| super::guard::client_network(address, self.config.ipv6_client_prefix))
    }

    /// The MCP core serving now.
    pub fn server(&self) -> Arc<McpServer> {
        self.server.load_full()
    }

    /// The MCP core serving now, borrowed for a moment (no reference count taken): for a quick look such
    /// as the repeat cache, not to hold across an await.
    pub fn server_now(&self) -> arc_swap::Guard<Arc<McpServer>> {
        self.server.load()
    }

    /// Serves `server` (a newly loaded corpus) from the next request on; requests in flight finish on
    /// the one they started with, which is dropped after them.
    pub fn replace_server(&self, server: McpServer) {
        super::metrics::set_corpus(&server.plugin().corpus().baked.manifest().corpus_version);
        self.server.store(Arc::new(server));
        self.call_costs.reset();
        self.loaded_at_unix.store(unix_now(), Ordering::Relaxed);
    }

    /// When the corpus served was loaded, seconds since the Unix epoch.
    pub fn loaded_at_unix(&self) -> u64 {
        self.loaded_at_unix.load(Ordering::Relaxed)
    }

    /// State with the seed's limiter: `rate_limit_per_minute` per client, at most 50,000 clients tracked.
    pub fn new(server: McpServer, config: HttpConfig) -> HttpState {
        super::metrics::set_corpus(&server.plugin().corpus().baked.manifest().corpus_version);
        let limiter = RateLimiter::new(
            config.rate_limit_per_minute,
            Duration::from_secs(60),
            50_000,
        );
        let in_flight = Arc::new(InFlight::new(
            config.max_calls_in_flight,
            config.max_calls_per_client,
        ));
        let call_costs = CallCosts::new(server.plugin().tools().iter().map(|tool| tool.name));
        HttpState {
            call_costs,
            server: ArcSwap::from_pointee(server),
            config,
            limiter,
            shared_limiter: None,
            in_flight,
            loaded_at_unix: AtomicU64::new(unix_now()),
        }
    }
}

fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}
