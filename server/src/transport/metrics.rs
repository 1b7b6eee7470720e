//! Process metrics in the Prometheus/OpenMetrics text format (`GET /metrics`, the `prometheus-client`
//! crate): tool calls by tool and outcome, their latency, rate-limited messages, shed connections, calls
//! refused at the in-flight cap, the Redis limiter's circuit breaker and the corpus version served. One registry per process, as Prometheus expects.

use std::sync::LazyLock;

use prometheus_client::{
    encoding::{EncodeLabelSet, text::encode},
    metrics::{
        counter::Counter,
        family::Family,
        gauge::Gauge,
        histogram::{Histogram, exponential_buckets},
    },
    registry::Registry,
};

/// The labels of a tool call.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CallLabels {
    /// Tool name.
    pub tool: &'static str,
    /// `ok`, `cached`, `tool_error` (an `isError` result), `internal` (-32603), `deadline` (the caller
    /// stopped waiting) or `cancelled` (a call already counted under `deadline`, or whose client went
    /// away, that then stopped at a checkpoint: counted when it does, so not an extra call).
    pub outcome: &'static str,
}

/// The label of a tool's latency.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ToolLabel {
    /// Tool name.
    pub tool: &'static str,
}

/// The label of the corpus served.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CorpusLabel {
    /// Corpus version (content hash).
    pub corpus_version: String,
}

/// The outcome of a corpus reload.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ReloadLabel {
    /// `loaded` (the new corpus serves) or `failed` (the previous one still does).
    pub outcome: &'static str,
}

/// Why a call was refused at the in-flight cap.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct BusyLabel {
    /// `global` (every slot taken) or `client` (this client's share taken).
    pub cap: &'static str,
}

type LatencyFamily = Family<ToolLabel, Histogram, fn() -> Histogram>;

/// The process' metrics.
pub struct Metrics {
    registry: Registry,
    calls: Family<CallLabels, Counter>,
    latency: LatencyFamily,
    rate_limited: Counter,
    shed: Counter,
    busy: Family<BusyLabel, Counter>,
    in_flight: Gauge,
    breaker_open: Gauge,
    breaker_trips: Counter,
    corpus: Family<CorpusLabel, Gauge>,
    reloads: Family<ReloadLabel, Counter>,
}

fn latency_histogram() -> Histogram {
    // 50 µs to ~1.6 s.
    Histogram::new(exponential_buckets(0.000_05, 2.0, 16))
}

static METRICS: LazyLock<Metrics> = LazyLock::new(|| {
    let mut registry = Registry::with_prefix("lac_corpus");
    let calls = Family::<CallLabels, Counter>::default();
    let latency = LatencyFamily::new_with_constructor(latency_histogram);
    let rate_limited = Counter::default();
    let shed = Counter::default();
    let busy = Family::<BusyLabel, Counter>::default();
    let in_flight = Gauge::default();
    let breaker_open = Gauge::default();
    let breaker_trips = Counter::default();
    let corpus = Family::<CorpusLabel, Gauge>::default();
    let reloads = Family::<ReloadLabel, Counter>::default();
    registry.register(
        "tool_calls",
        "Tool calls by tool and outcome",
        calls.clone(),
    );
    registry.register(
        "tool_call_seconds",
        "Time a tool ran (uncached calls), seconds",
        latency.clone(),
    );
    registry.register(
        "rate_limited_messages",
        "JSON-RPC messages refused by the rate limit (429)",
        rate_limited.clone(),
    );
    registry.register(
        "shed_connections",
        "Connections refused at the connection cap (503)",
        shed.clone(),
    );
    registry.register(
        "busy_requests",
        "Requests refused at the cap on tool calls in flight (503), by cap: global or client",
        busy.clone(),
    );
    registry.register(
        "tool_calls_in_flight",
        "Tool calls running now (a call past its deadline counts until its thread stops)",
        in_flight.clone(),
    );
    registry.register(
        "redis_breaker_open",
        "1 while the Redis limiter's circuit breaker is open (this instance's own limiter decides)",
        breaker_open.clone(),
    );
    registry.register(
        "redis_breaker_trips",
        "Times the Redis limiter's circuit breaker opened (Redis failed or did not answer in time)",
        breaker_trips.clone(),
    );
    registry.register(
        "corpus_info",
        "The corpus version served (value 1)",
        corpus.clone(),
    );
    registry.register(
        "corpus_reloads",
        "Corpus reloads by outcome (a failed one leaves the previous corpus serving)",
        reloads.clone(),
    );
    Metrics {
        registry,
        calls,
        latency,
        rate_limited,
        shed,
        busy,
        in_flight,
        breaker_open,
        breaker_trips,
        corpus,
        reloads,
    }
});

/// Counts a tool call; `elapsed_us` feeds the latency histogram for calls that ran the tool.
pub fn record_call(tool: &'static str, outcome: &'static str, elapsed_us: Option<u64>) {
    METRICS
        .calls
        .get_or_create(&CallLabels { tool, outcome })
        .inc();
    if let Some(elapsed_us) = elapsed_us {
        METRICS
            .latency
            .get_or_create(&ToolLabel { tool })
            .observe(elapsed_us as f64 / 1e6);
    }
}

/// The count of `tool`'s calls answered from the result cache: a handle the cache keeps with each entry,
/// so that a hit costs one increment and no lookup of its labels.
pub fn cached_calls(tool: &'static str) -> Counter {
    METRICS
        .calls
        .get_or_create(&CallLabels {
            tool,
            outcome: "cached",
        })
        .clone()
}

/// Counts `messages` refused by the rate limit.
pub fn record_rate_limited(messages: u64) {
    METRICS.rate_limited.inc_by(messages);
}

/// Counts a connection shed at the cap.
pub fn record_shed() {
    METRICS.shed.inc();
}

/// Counts a request refused at the in-flight cap `cap` (`global` or `client`).
pub fn record_busy(cap: &'static str) {
    METRICS.busy.get_or_create(&BusyLabel { cap }).inc();
}

/// Sets the number of tool calls running now.
pub fn set_in_flight(calls: usize) {
    METRICS.in_flight.set(calls as i64);
}

/// Marks the Redis limiter's breaker open (`true`, counting a trip) or closed.
pub fn set_breaker_open(open: bool) {
    if open {
        METRICS.breaker_trips.inc();
    }
    METRICS.breaker_open.set(i64::from(open));
}

/// Counts a corpus reload, `loaded` or `failed`.
pub fn record_reload(outcome: &'static str) {
    METRICS
        .reloads
        .get_or_create(&ReloadLabel { outcome })
        .inc();
}

/// Marks `version` as the corpus served (and no other).
pub fn set_corpus(version: &str) {
    METRICS.corpus.clear();
    METRICS
        .corpus
        .get_or_create(&CorpusLabel {
            corpus_version: version.to_string(),
        })
        .set(1);
}

/// Every metric in the OpenMetrics text format.
pub fn render() -> String {
    let mut text = String::new();
    // Writing into a String cannot fail.
    let _ = encode(&mut text, &METRICS.registry);
    text
}

/// The `Content-Type` of [`render`]'s text.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";
