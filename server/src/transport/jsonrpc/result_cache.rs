//! The result cache: serialized `tools/call` results by call key, bounded by bytes, least recently used
//! first out.

use bytes::Bytes;

/// Serialized tool results by call key, bounded by bytes.
///
/// Two kinds of key lead to a result: the tool, `lang` and normalised arguments (`{tool}\0{lang}\0{json}`),
/// and the exact text of the `params` that asked for it (`raw\0{text}`, [`super::McpServer::repeat`]); each
/// entry counts its key and its result against the budget, even when two share one result.
#[derive(Debug)]
pub(super) struct ResultCache {
    entries: lru::LruCache<String, (&'static str, Bytes)>,
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

    /// The tool and result filed under `key` (now the most recently used).
    pub(super) fn get(&mut self, key: &str) -> Option<(&'static str, Bytes)> {
        self.entries.get(key).cloned()
    }

    /// Files `result` of `tool` under `key`, dropping the least recently used entries past the budget;
    /// an entry above a quarter of the budget is not kept.
    pub(super) fn put(&mut self, key: String, tool: &'static str, result: Bytes) {
        let size = key.len() + result.len();
        if size > self.budget / 4 {
            return;
        }
        if let Some((_, previous)) = self.entries.put(key.clone(), (tool, result)) {
            self.bytes -= key.len() + previous.len();
        }
        self.bytes += size;
        while self.bytes > self.budget {
            let Some((old_key, (_, old_result))) = self.entries.pop_lru() else {
                break;
            };
            self.bytes -= old_key.len() + old_result.len();
        }
    }
}
