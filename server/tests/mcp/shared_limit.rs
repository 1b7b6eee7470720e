//! The cross-instance limiter on a real Redis: two server instances charge one budget per client, and
//! when Redis stops each instance falls back to its own limiter without failing a request.
//! Needs `redis-server` on the PATH (`.ci/run` installs Debian's).

use std::{process::Stdio, sync::Arc, time::Duration};

use axum::http::StatusCode;
use server::transport::{
    guard::TrustedProxies,
    http::{HttpConfig, HttpState},
    shared_limit::SharedLimiter,
};

use crate::support::{post, send, server};

const PING: &str = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

/// A throwaway Redis on a free loopback port, without persistence; killed on drop.
struct Redis {
    child: std::process::Child,
    url: String,
}

impl Redis {
    async fn start() -> Redis {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|socket| socket.local_addr())
            .expect("a free port")
            .port();
        let child = std::process::Command::new("redis-server")
            .args([
                "--port",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server runs (.ci/run installs Debian's redis-server)");
        for _ in 0..100 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Redis {
            child,
            url: format!("redis://127.0.0.1:{port}/0"),
        }
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One server instance (its own in-memory fallback) on the shared budget of `url`.
async fn instance(url: &str, limit: u32) -> Arc<HttpState> {
    let config = HttpConfig {
        trusted_proxies: TrustedProxies::parse("127.0.0.1").expect("an address"),
        ..HttpConfig::local(true, limit)
    };
    let shared = SharedLimiter::connect(url, limit, Duration::from_secs(60))
        .await
        .expect("Redis answers");
    Arc::new(HttpState::new(server().clone(), config).with_shared_limiter(shared))
}

async fn status(state: &Arc<HttpState>, client: &str) -> StatusCode {
    send(state, post(PING, &[("x-real-ip", client)]))
        .await
        .0
        .status()
}

#[tokio::test]
async fn two_instances_share_one_budget_and_fall_back_to_their_own_when_redis_stops() {
    let mut redis = Redis::start().await;
    let (first, second) = (instance(&redis.url, 3).await, instance(&redis.url, 3).await);
    // 3 messages a minute for 203.0.113.5, wherever they land.
    assert_eq!(status(&first, "203.0.113.5").await, StatusCode::OK);
    assert_eq!(status(&second, "203.0.113.5").await, StatusCode::OK);
    assert_eq!(status(&first, "203.0.113.5").await, StatusCode::OK);
    let (response, _) = send(&second, post(PING, &[("x-real-ip", "203.0.113.5")])).await;
    assert_eq!(
        response.status(),
        StatusCode::TOO_MANY_REQUESTS,
        "the budget is shared"
    );
    let retry_after: u64 = response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry_after), "{retry_after}");
    // Another client has its own budget.
    assert_eq!(status(&second, "203.0.113.6").await, StatusCode::OK);

    // Redis stops: no request fails; each instance counts alone, with the same limit.
    redis.stop();
    let mut statuses = Vec::new();
    for _ in 0..4 {
        statuses.push(status(&first, "198.51.100.20").await.as_u16());
    }
    assert_eq!(
        statuses,
        [200, 200, 200, 429],
        "the first instance's own window"
    );
    assert_eq!(
        status(&second, "198.51.100.20").await,
        StatusCode::OK,
        "the second instance's own window is separate"
    );
}

fn signal(redis: &Redis, signal: &str) {
    let status = std::process::Command::new("kill")
        .args([signal, &redis.child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill {signal}");
}

#[tokio::test]
async fn a_hung_redis_trips_the_breaker_so_later_requests_decide_locally_then_a_probe_closes_it() {
    let redis = Redis::start().await;
    let state = instance(&redis.url, 100).await;
    let shared = state.shared_limiter.clone().expect("a shared limiter");
    assert_eq!(status(&state, "203.0.113.70").await, StatusCode::OK);
    assert!(!shared.breaker_open());
    // Redis hangs (stopped, its socket open): the first request waits out the store timeout and
    // opens the breaker; every later one is decided by this instance's own limiter, none fails.
    signal(&redis, "-STOP");
    for _ in 0..20 {
        assert_eq!(status(&state, "203.0.113.71").await, StatusCode::OK);
    }
    assert!(shared.breaker_open(), "the breaker opened");
    let metrics = server::transport::metrics::render();
    assert!(
        metrics.contains("lac_corpus_redis_breaker_open 1"),
        "{metrics}"
    );
    // Redis answers again: after the open period a request sends the probe (and is itself decided
    // locally); the probe's answer closes the breaker.
    signal(&redis, "-CONT");
    tokio::time::sleep(server::transport::shared_limit::BREAKER_MIN_OPEN).await;
    let mut closed = false;
    for _ in 0..100 {
        assert_eq!(status(&state, "203.0.113.72").await, StatusCode::OK);
        if !shared.breaker_open() {
            closed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(closed, "a probe closed the breaker once Redis answered");
}
