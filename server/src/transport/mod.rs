//! The generic MCP core and its transports. Only this module knows JSON-RPC, MCP and HTTP; it knows
//! nothing about indicators and reaches the corpus only through [`crate::tools::Plugin`].
//!
//! - [`jsonrpc`]: message classification, the MCP lifecycle (`initialize`, `ping`, `tools/list`,
//!   `tools/call`), version negotiation, batches. One function, [`jsonrpc::McpServer::handle_body`],
//!   serves both transports.
//! - [`apps`]: the MCP Apps extension: negotiation, the chart view `ui://lac-corpus/chart.html`, the
//!   Apps metadata of `tools/list`.
//! - [`http`]: Streamable HTTP on `POST /api/mcp` with the gate, body cap, batch cap, rate limit, CORS
//!   and the health probe.
//! - [`listener`]: the accept loop: header-read (idle) timeout, header size cap, connection cap with
//!   503 shedding, graceful drain.
//! - [`modern`]: the stateless revision 2026-07-28 (per-request `_meta`, `server/discover`, result
//!   types and caching hints, its error codes and HTTP headers), beside the `initialize`-based ones.
//! - [`metrics`]: Prometheus/OpenMetrics counters and histograms (`GET /metrics`).
//! - [`stdio`]: newline-delimited JSON-RPC on stdin/stdout.
//! - [`guard`]: who may call: the `Origin` allow-list, the loopback `Host` check, JSON content type, and
//!   the client address from forwarding headers of trusted proxies only.
//! - [`rate_limit`]: the bounded in-memory per-client limiter.
//! - [`shared_limit`]: the cross-instance limiter on Redis (`REDIS_URL`), falling back to memory.
//! - [`workers`]: the threads tool calls run on, so a call can be given up at its deadline.

pub mod apps;
pub mod downloads;
pub mod guard;
pub mod http;
pub mod jsonrpc;
pub mod listener;
pub mod metrics;
pub mod modern;
pub mod rate_limit;
pub mod reload;
pub mod resources;
pub mod shared_limit;
pub mod stdio;
pub mod workers;
