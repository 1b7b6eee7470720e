//! The result cache: serialized `tools/call` results by call key, bounded by bytes, least recently used
//! first out.

use prometheus_client::metrics::counter::Counter;

use super::reply::TailedResult;
use crate::transport::metrics;

/// Serialized tool results by call key, bounded by bytes.
///
/// Two kinds of key lead to a result: the tool, `lang` and normalised arguments (`{tool}\0{lang}\0{json}`),
/// and the exact text of the `params` that asked for it (`raw\0{text}`, [`super::McpServer::repeat`]); each
/// entry counts its key and its result against the budget, even when two share one result.
#[derive(Debug)]
pub(super) struct ResultCache {
    /// By key: the tool, its result, and the tool's count of calls answered from the cache (a handle
    /// taken at the entry's first hit, so a hit costs the count one increment).
    entries: lru::LruCache<String, (&'static str, TailedResult, Option<Counter>)>,
    bytes: usize,
    budget: usize,
}

impl ResultCache {
    /// An empty cache holding at most `budget` bytes of keys and results.
    pub(super) fn with_budget(budget: usize) -> ResultCache {
        ResultCache {
            entries: lru::LruCache::unbounded(),
            bytes: 0,
            budget,
        }
    }

    /// The tool and result filed under `key` (now the most recently used), counted as a call of the tool
    /// answered from the cache (`lac_corpus_tool_calls_total{outcome="cached"}`).
    pub(super) fn get(&mut self, key: &str) -> Option<(&'static str, TailedResult)> {
        let (tool, result, cached_calls) = self.entries.get_mut(key)?;
        cached_calls
            .get_or_insert_with(|| metrics::cached_calls(tool))
            .inc();
        Some((tool, result.clone()))
    }

    /// Files `result` of `tool` under `key`, dropping the least recently used entries past the budget;
    /// an entry above a quarter of the budget is not kept.
    pub(super) fn put(&mut self, key: String, tool: &'static str, result: TailedResult) {
        let size = key.len() + result.len();
        if size > self.budget / 4 {
            return;
        }
        if let Some((_, previous, _)) = self.entries.put(key.clone(), (tool, result, None)) {
            self.bytes -= key.len() + previous.len();
        }
        self.bytes += size;
        while self.bytes > self.budget {
            let Some((old_key, (_, old_result, _))) = self.entries.pop_lru() else {
                break;
            };
            self.bytes -= old_key.len() + old_result.len();
        }
    }
}
