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
        // The entry used last (a client repeating its call, a page polling one) is found without hashing
        // its key, and stays where it is; any other is looked up and moved to the front.
        let is_latest = self
            .entries
            .peek_mru()
            .is_some_and(|(latest, _)| latest == key);
        let (tool, result, cached_calls) = if is_latest {
            self.entries.iter_mut().next().map(|(_, entry)| entry)
        } else {
            self.entries.get_mut(key)
        }?;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The result a test files: `text`, tailed.
    fn result(text: &str) -> TailedResult {
        TailedResult::new(text.as_bytes())
    }

    #[test]
    fn a_hit_makes_its_entry_the_last_to_go_whether_it_was_the_latest_or_not() {
        let entry = "k1".len() + result("r").len();
        // Room for four entries of this size, not five (an entry may take a quarter of the budget).
        let mut cache = ResultCache::with_budget(4 * entry);
        for key in ["k1", "k2", "k3", "k4"] {
            cache.put(key.to_string(), "get_series", result("r"));
        }
        // k4 is the latest (found without a lookup), k1 the oldest (looked up and moved to the front).
        assert_eq!(cache.get("k4").map(|(tool, _)| tool), Some("get_series"));
        assert_eq!(cache.get("k4").map(|(tool, _)| tool), Some("get_series"));
        assert!(cache.get("k1").is_some());
        assert!(cache.get("missing").is_none());
        cache.put("k5".to_string(), "get_series", result("r"));
        // k2, used longest ago, went; the others stayed.
        assert!(cache.get("k2").is_none());
        for key in ["k1", "k3", "k4", "k5"] {
            assert!(cache.get(key).is_some(), "{key}");
        }
        assert_eq!(cache.get("k5").unwrap().1.result().as_ref(), b"r");
    }
}
