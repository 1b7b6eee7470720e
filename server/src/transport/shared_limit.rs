//! The cross-instance rate limiter on Redis (`REDIS_URL`): the same fixed window as the in-memory
//! limiter ([`super::rate_limit`]), kept in Redis so that every instance behind a load balancer charges
//! one budget per client.
//!
//! One round trip per charge: a pipelined `INCRBY key n`, `EXPIRE key window NX` (the window opens at
//! the key's first charge) and `PTTL key` (the time left, for `Retry-After`). Keys are
//! `lac-corpus:rl:{client}`, the client being an IP address as the HTTP transport resolved it. Any store
//! error or a reply slower than [`STORE_TIMEOUT`] makes the caller fall back to its in-memory limiter
//! silently: the limiter never fails a request.

use std::time::Duration;

use redis::aio::ConnectionManager;

use super::rate_limit::Charge;

/// How long a charge may wait for Redis before the in-memory limiter decides instead.
pub const STORE_TIMEOUT: Duration = Duration::from_millis(50);

/// A Redis-backed fixed-window limiter.
#[derive(Clone)]
pub struct SharedLimiter {
    connection: ConnectionManager,
    limit: u32,
    window: Duration,
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
        })
    }

    /// Charges `units` to `client`; `None` when the store did not answer in time or failed (the caller
    /// decides with its in-memory limiter then).
    pub async fn charge(&self, client: &str, units: u32) -> Option<Charge> {
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
            Err(_) => return None,
        };
        let (count, ttl_ms) = reply
            .inspect_err(|error| tracing::debug!(%error, "redis limiter unavailable"))
            .ok()?;
        Some(if count > u64::from(self.limit) {
            Charge::Limited {
                retry_after: Duration::from_millis(ttl_ms.max(1) as u64),
            }
        } else {
            Charge::Allowed
        })
    }
}
