//! The cross-instance rate limiter on Redis (`REDIS_URL`): the same fixed window as the in-memory
//! limiter ([`super::rate_limit`]), kept in Redis so that every instance behind a load balancer charges
//! one budget per client.
//!
//! One round trip per charge: a pipelined `INCRBY key n`, `EXPIRE key window NX` (the window opens at
//! the key's first charge) and `PTTL key` (the time left, for `Retry-After`). Keys are
//! `lac-corpus:rl:{client}`, the client being an IP address (an IPv6 client's network) as the HTTP
//! transport resolved it. Any store error or a reply slower than [`STORE_TIMEOUT`] makes the caller fall
//! back to its in-memory limiter silently: the limiter never fails a request.
//!
//! A circuit breaker keeps a failing or hung Redis from costing every request its timeout: the first
//! failure opens it, and while it is open no charge asks Redis (each falls back at once). When the open
//! period ends a background probe (`PING`, same timeout) asks for the requests: an answer closes the
//! breaker, a failure opens it again for twice as long ([`BREAKER_MIN_OPEN`] doubling up to
//! [`BREAKER_MAX_OPEN`]). So while Redis is down or hung at most the requests already waiting on it when
//! it failed wait out the timeout; every later one is decided locally in microseconds. The breaker's
//! state is in `/metrics` (`lac_corpus_redis_breaker_open`, `lac_corpus_redis_breaker_trips_total`).

use std::{
    sync::{Arc, Mutex, PoisonError},
    time::{Duration, Instant},
};

use redis::aio::ConnectionManager;

use super::rate_limit::Charge;

/// How long a charge may wait for Redis before the in-memory limiter decides instead.
pub const STORE_TIMEOUT: Duration = Duration::from_millis(50);

/// How long the breaker stays open after Redis first fails.
pub const BREAKER_MIN_OPEN: Duration = Duration::from_secs(1);
/// The longest the breaker stays open (the back-off doubles up to this after each failed probe).
pub const BREAKER_MAX_OPEN: Duration = Duration::from_secs(30);

/// Whether a charge may ask Redis ([`Breaker::admit`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admit {
    /// The breaker is closed: ask.
    Ask,
    /// Open (or a probe is out): decide locally, at once.
    FailFast,
    /// The open period is over: decide locally and send one probe (only one caller gets this).
    Probe,
}

/// The state machine of the circuit breaker (see the module doc); cheap to share, clock given by the
/// caller.
#[derive(Debug, Default)]
pub struct Breaker {
    state: Mutex<BreakerState>,
}

#[derive(Debug, Clone, Copy, Default)]
enum BreakerState {
    #[default]
    Closed,
    Open {
        until: Instant,
        backoff: Duration,
    },
    Probing {
        backoff: Duration,
    },
}

impl Breaker {
    /// What a charge at `now` may do.
    pub fn admit(&self, now: Instant) -> Admit {
        let mut state = self.lock();
        match *state {
            BreakerState::Closed => Admit::Ask,
            BreakerState::Open { until, backoff } if now >= until => {
                *state = BreakerState::Probing { backoff };
                Admit::Probe
            }
            BreakerState::Open { .. } | BreakerState::Probing { .. } => Admit::FailFast,
        }
    }

    /// Redis answered: the breaker closes.
    pub fn succeeded(&self) {
        let mut state = self.lock();
        if !matches!(*state, BreakerState::Closed) {
            super::metrics::set_breaker_open(false);
            tracing::info!("redis limiter answers again; the breaker closes");
        }
        *state = BreakerState::Closed;
    }

    /// Redis failed or did not answer in time at `now`: the breaker opens, for twice as long as last
    /// time if a probe failed.
    pub fn failed(&self, now: Instant) {
        let mut state = self.lock();
        let backoff = match *state {
            BreakerState::Closed => BREAKER_MIN_OPEN,
            BreakerState::Probing { backoff } => (backoff * 2).min(BREAKER_MAX_OPEN),
            // Another request that was already waiting on Redis when it failed: already open.
            BreakerState::Open { .. } => return,
        };
        if matches!(*state, BreakerState::Closed) {
            super::metrics::set_breaker_open(true);
            tracing::warn!(
                open_secs = backoff.as_secs_f64(),
                "redis limiter failed; the breaker opens (this instance's own limiter decides)"
            );
        }
        *state = BreakerState::Open {
            until: now + backoff,
            backoff,
        };
    }

    /// Whether the breaker is open or probing.
    pub fn is_open(&self) -> bool {
        !matches!(*self.lock(), BreakerState::Closed)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BreakerState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A Redis-backed fixed-window limiter.
#[derive(Clone)]
pub struct SharedLimiter {
    connection: ConnectionManager,
    limit: u32,
    window: Duration,
    breaker: Arc<Breaker>,
}

impl std::fmt::Debug for SharedLimiter {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("SharedLimiter")
            .field("limit", &self.limit)
            .field("window", &self.window)
            .finish_non_exhaustive()
    }
}

impl SharedLimiter {
    /// A limiter on the Redis at `url` (`redis://host:port/db`): `limit` units per `window` per client.
    /// The connection reconnects by itself after Redis comes back.
    ///
    /// # Errors
    /// A message naming the URL when it is not a Redis URL or the first connection fails.
    pub async fn connect(url: &str, limit: u32, window: Duration) -> Result<SharedLimiter, String> {
        let client =
            redis::Client::open(url).map_err(|error| format!("REDIS_URL `{url}`: {error}"))?;
        let connection =
            tokio::time::timeout(Duration::from_secs(5), ConnectionManager::new(client))
                .await
                .map_err(|_| format!("REDIS_URL `{url}`: no answer within 5 s"))?
                .map_err(|error| format!("REDIS_URL `{url}`: {error}"))?;
        Ok(SharedLimiter {
            connection,
            limit,
            window,
            breaker: Arc::new(Breaker::default()),
        })
    }

    /// Whether the circuit breaker is open: charges are decided locally until a probe gets an answer.
    pub fn breaker_open(&self) -> bool {
        self.breaker.is_open()
    }

    /// Sends the breaker's probe in the background: a `PING` within [`STORE_TIMEOUT`].
    fn probe(&self) {
        let mut connection = self.connection.clone();
        let breaker = self.breaker.clone();
        tokio::spawn(async move {
            let ping = redis::cmd("PING");
            let answered: Result<Result<String, redis::RedisError>, _> =
                tokio::time::timeout(STORE_TIMEOUT, ping.query_async(&mut connection)).await;
            match answered {
                Ok(Ok(_)) => breaker.succeeded(),
                _ => breaker.failed(Instant::now()),
            }
        });
    }

    /// Charges `units` to `client`; `None` when the store did not answer in time or failed, or the
    /// breaker is open (the caller decides with its in-memory limiter then).
    pub async fn charge(&self, client: &str, units: u32) -> Option<Charge> {
        match self.breaker.admit(Instant::now()) {
            Admit::Ask => {}
            Admit::FailFast => return None,
            Admit::Probe => {
                self.probe();
                return None;
            }
        }
        let key = format!("lac-corpus:rl:{client}");
        let mut connection = self.connection.clone();
        let mut pipeline = redis::pipe();
        pipeline
            .cmd("INCRBY")
            .arg(&key)
            .arg(units)
            .cmd("EXPIRE")
            .arg(&key)
            .arg(self.window.as_secs().max(1))
            .arg("NX")
            .ignore()
            .cmd("PTTL")
            .arg(&key);
        let reply: Result<(u64, i64), redis::RedisError> = match tokio::time::timeout(
            STORE_TIMEOUT,
            pipeline.query_async(&mut connection),
        )
        .await
        {
            Ok(reply) => reply,
            Err(_) => {
                self.breaker.failed(Instant::now());
                return None;
            }
        };
        let (count, ttl_ms) = match reply {
            Ok(reply) => reply,
            Err(error) => {
                tracing::debug!(%error, "redis limiter unavailable");
                self.breaker.failed(Instant::now());
                return None;
            }
        };
        Some(if count > u64::from(self.limit) {
            Charge::Limited {
                retry_after: Duration::from_millis(ttl_ms.max(1) as u64),
            }
        } else {
            Charge::Allowed
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_breaker_opens_on_a_failure_probes_once_and_backs_off() {
        let breaker = Breaker::default();
        let start = Instant::now();
        assert_eq!(breaker.admit(start), Admit::Ask);
        breaker.failed(start);
        // Open: every charge decides locally, none asks Redis.
        assert_eq!(breaker.admit(start), Admit::FailFast);
        assert_eq!(breaker.admit(start + BREAKER_MIN_OPEN / 2), Admit::FailFast);
        // A request that was already waiting fails too: the open period does not move.
        breaker.failed(start + BREAKER_MIN_OPEN / 2);
        // The period over: one caller probes, the others still decide locally.
        let later = start + BREAKER_MIN_OPEN;
        assert_eq!(breaker.admit(later), Admit::Probe);
        assert_eq!(breaker.admit(later), Admit::FailFast);
        // The probe fails: open for twice as long.
        breaker.failed(later);
        assert_eq!(
            breaker.admit(later + BREAKER_MIN_OPEN),
            Admit::FailFast,
            "the back-off doubled"
        );
        let probe_time = later + BREAKER_MIN_OPEN * 2;
        assert_eq!(breaker.admit(probe_time), Admit::Probe);
        // The probe answers: closed, every charge asks again.
        breaker.succeeded();
        assert!(!breaker.is_open());
        assert_eq!(breaker.admit(probe_time), Admit::Ask);
    }

    #[test]
    fn the_back_off_stops_at_its_maximum() {
        let breaker = Breaker::default();
        let mut now = Instant::now();
        breaker.failed(now);
        for _ in 0..10 {
            now += BREAKER_MAX_OPEN;
            assert_eq!(breaker.admit(now), Admit::Probe);
            breaker.failed(now);
        }
        assert_eq!(
            breaker.admit(now + BREAKER_MAX_OPEN - Duration::from_millis(1)),
            Admit::FailFast
        );
        assert_eq!(breaker.admit(now + BREAKER_MAX_OPEN), Admit::Probe);
    }
}
