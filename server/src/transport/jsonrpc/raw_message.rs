//! What the text of a message tells before (or instead of) parsing it: the exact text of its `id`, and,
//! for a `tools/call`, the cache key of its `params` text, with which [`McpServer::repeat`] answers a
//! repeated call from the cache without building a JSON tree.

use std::sync::PoisonError;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::{McpServer, reply::ResultParts};

/// What the text of one message tells beyond its parsed value: the exact text of its `id`, and the
/// cache key of its `params` text when it reads as a `tools/call` ([`CallEnvelope`]).
#[derive(Debug, Default)]
pub(super) struct RawMessage<'a> {
    /// The exact text of the message's `id`, when it has one that reads.
    pub(super) id: Option<&'a str>,
    /// The cache key of its `params` text ([`CallEnvelope::key`]), for a `tools/call` read whole.
    pub(super) call_key: Option<String>,
}

impl<'a> RawMessage<'a> {
    /// Reads `raw` (one message's JSON text); what does not read (not one object, a duplicated field,
    /// an escaped method name) is simply unknown, and the parsed value decides. `caching`: whether a
    /// call key is wanted at all.
    pub(super) fn read(raw: &'a [u8], caching: bool) -> RawMessage<'a> {
        #[derive(Deserialize)]
        struct IdText<'a> {
            #[serde(borrow, default)]
            id: Option<&'a RawValue>,
        }
        match CallEnvelope::read(raw).filter(|_| caching) {
            Some(envelope) => RawMessage {
                id: Some(envelope.id.get()),
                call_key: Some(envelope.key()),
            },
            None => RawMessage {
                id: serde_json::from_slice::<IdText>(raw)
                    .ok()
                    .and_then(|text| text.id)
                    .map(RawValue::get),
                call_key: None,
            },
        }
    }
}

/// A `tools/call` message read without building its value: every field borrowed from the text, and no
/// other field (anything else, which the full path would have to read, sends the body there).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CallEnvelope<'a> {
    jsonrpc: &'a str,
    #[serde(borrow)]
    id: &'a RawValue,
    method: &'a str,
    #[serde(borrow)]
    params: &'a RawValue,
}

impl<'a> CallEnvelope<'a> {
    /// `raw` as a `tools/call` request object with `jsonrpc: "2.0"` and a string or number id, if it is
    /// one that the full path reads the same way.
    fn read(raw: &'a [u8]) -> Option<CallEnvelope<'a>> {
        // An object, not the positional array serde would also accept for a struct.
        if raw.iter().find(|byte| !byte.is_ascii_whitespace()) != Some(&b'{') {
            return None;
        }
        let envelope: CallEnvelope = serde_json::from_slice(raw).ok()?;
        // A string or a number the full path reads too (`1e400` is JSON but out of range for it, a
        // lone surrogate `"\ud800"` is no string for it: the body is a parse error there, so here).
        let id = envelope.id.get();
        let id_is_valid = match id.as_bytes()[0] {
            b'"' => serde_json::from_str::<String>(id).is_ok(),
            b'-' | b'0'..=b'9' => serde_json::from_str::<serde_json::Number>(id).is_ok(),
            _ => false,
        };
        (envelope.jsonrpc == "2.0" && envelope.method == "tools/call" && id_is_valid)
            .then_some(envelope)
    }

    /// The cache key of these params' exact text.
    fn key(&self) -> String {
        format!("{RAW_PREFIX}{}", self.params.get())
    }
}

/// The `id` and `params` texts of `raw` when it is a `tools/call` written in the one layout clients
/// use, `{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":PARAMS}` with no space, an `id` that is
/// an integer of at most 18 digits or a string of `[A-Za-z0-9_.:/-]` (at most 128), and nothing after
/// the closing brace but whitespace; `None` for anything else (the parser then reads it).
///
/// `PARAMS` is everything between `"params":` and the closing brace, unchecked: it answers only when it
/// equals, byte for byte, the params text of a call answered before, which the parser had read whole.
/// So a body answered here is that valid message, and what the full path would answer.
fn canonical_call(raw: &[u8]) -> Option<(&str, &str)> {
    const HEAD: &[u8] = br#"{"jsonrpc":"2.0","id":"#;
    const MIDDLE: &[u8] = br#","method":"tools/call","params":"#;
    let rest = raw.strip_prefix(HEAD)?;
    let id_length = match rest.first()? {
        b'"' => {
            let length = rest[1..].iter().take(129).position(|&byte| byte == b'"')?;
            let text = &rest[1..1 + length];
            if length > 128
                || !text
                    .iter()
                    .all(|&byte| byte.is_ascii_alphanumeric() || b"_.:/-".contains(&byte))
            {
                return None;
            }
            length + 2
        }
        _ => {
            let sign = usize::from(rest[0] == b'-');
            let digits = rest[sign..]
                .iter()
                .take(19)
                .take_while(|byte| byte.is_ascii_digit())
                .count();
            // No leading zero (JSON), at most 18 digits, at least one.
            if digits == 0 || digits > 18 || (digits > 1 && rest[sign] == b'0') {
                return None;
            }
            sign + digits
        }
    };
    let (id, rest) = rest.split_at(id_length);
    let params = rest.strip_prefix(MIDDLE)?;
    let end = params
        .iter()
        .rposition(|byte| !byte.is_ascii_whitespace())?;
    if params[end] != b'}' || end == 0 {
        return None;
    }
    let params = &params[..end];
    // ASCII throughout the id; the params are UTF-8 when they equal a key (and checked here anyway).
    Some((
        std::str::from_utf8(id).ok()?,
        std::str::from_utf8(params).ok()?,
    ))
}

/// The prefix of a legacy call's params-text key.
const RAW_PREFIX: &str = "raw\0";
/// The prefix of a 2026-07-28 call's params-text key, whose cached result is already in the modern shape.
const MODERN_PREFIX: &str = "modern\0";

/// The key a 2026-07-28 call's result is filed under, from its params-text key ([`RawMessage::call_key`])
/// and what its params say of themselves: the `_meta` protocol version and the tool's name.
pub(super) fn modern_key(raw_key: &str, version: &str, name: &str) -> String {
    let mut key = String::new();
    push_modern_key(
        &mut key,
        version,
        name,
        raw_key.strip_prefix(RAW_PREFIX).unwrap_or(raw_key),
    );
    key
}

/// Writes the modern key of `params` (text) naming `version` and `name` into `key`: a request whose
/// `MCP-Protocol-Version` and `Mcp-Name` headers are those values finds the result filed for those
/// params, which said the same (the full path files only a call whose headers mirror its body). So a
/// lookup by the headers' values needs no reading of the params.
fn push_modern_key(key: &mut String, version: &str, name: &str, params: &str) {
    for part in [MODERN_PREFIX, version, "\0", name, "\0", params] {
        key.push_str(part);
    }
}

/// What a 2026-07-28 request's headers say (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`), to be
/// checked against its body before a cached answer.
#[derive(Debug, Clone, Copy)]
pub struct ModernHeaders<'a> {
    /// `MCP-Protocol-Version`.
    pub version: Option<&'a str>,
    /// `Mcp-Method`.
    pub method: Option<&'a str>,
    /// `Mcp-Name`.
    pub name: Option<&'a str>,
}

thread_local! {
    /// This thread's buffer for a modern lookup's key ([`McpServer::repeat_modern`]).
    static MODERN_KEY: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

impl McpServer {
    /// The answer to a body that is one `tools/call` whose params have the exact text of one answered
    /// before (the result is filed under that text by [`McpServer::prepare`] and
    /// [`McpServer::handle_text`]), read without parsing the body into a value, normalising its
    /// arguments or copying the result; `None` for anything else, which then takes the full path. The
    /// answer is the one the full path would give: results depend only on the corpus and the params.
    pub fn repeat(&self, raw: &[u8]) -> Option<ResultParts> {
        if !self.caching {
            return None;
        }
        // The key is written into this thread's buffer: a repeat allocates nothing to look itself up.
        thread_local! {
            static KEY: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
        }
        let lookup = |id: &str, params: &str| {
            KEY.with_borrow_mut(|key| {
                key.clear();
                key.push_str(RAW_PREFIX);
                key.push_str(params);
                self.cached_reply(id, key)
            })
        };
        // The layout clients write (the SDKs, curl examples): read by its fixed text, no parser.
        if let Some((id, params)) = canonical_call(raw) {
            return lookup(id, params);
        }
        let envelope = CallEnvelope::read(raw)?;
        lookup(envelope.id.get(), envelope.params.get())
    }

    /// The cached result filed under `key`, as the reply to the request whose id is written `id`.
    fn cached_reply(&self, id: &str, key: &str) -> Option<ResultParts> {
        let (tool, result) = self
            .cache
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(key)?;
        tracing::info!(tool, outcome = "cached", "tools/call");
        Some(ResultParts::from_tailed(id, result))
    }

    /// As [`McpServer::repeat`], for a 2026-07-28 `tools/call` whose headers mirror its body exactly
    /// (`Mcp-Method: tools/call`, `Mcp-Name` its tool, `MCP-Protocol-Version` its `_meta` version): the
    /// result filed under its params' text in the modern shape, answered without parsing the body or
    /// splicing the result again. Anything else (a header that differs, a call never answered in this
    /// shape) is `None`, and the full path checks and answers it.
    pub fn repeat_modern(&self, raw: &[u8], headers: ModernHeaders<'_>) -> Option<ResultParts> {
        if !self.caching || headers.method != Some("tools/call") {
            return None;
        }
        let (version, name) = (headers.version?, headers.name?);
        let envelope;
        let (id, params) = match canonical_call(raw) {
            Some(read) => read,
            None => {
                envelope = CallEnvelope::read(raw)?;
                (envelope.id.get(), envelope.params.get())
            }
        };
        MODERN_KEY.with_borrow_mut(|key| {
            key.clear();
            push_modern_key(key, version, name, params);
            self.cached_reply(id, key)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the parser reads of `raw` as a call: its id and params texts.
    fn parsed(raw: &str) -> Option<(String, String)> {
        CallEnvelope::read(raw.as_bytes()).map(|envelope| {
            (
                envelope.id.get().to_string(),
                envelope.params.get().to_string(),
            )
        })
    }

    #[test]
    fn the_clients_layout_reads_as_the_parser_reads_it() {
        let params = r#"{"name":"get_series","arguments":{"indicator":"sp_dyn_le00_in","countries":["MEX","BRA","ARG"]}}"#;
        for id in [
            "1",
            "0",
            "-7",
            "123456789012345678",
            r#""abc-1""#,
            r#""a.b:c/d_e""#,
            r#""""#,
        ] {
            let raw =
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{params}}}"#);
            assert_eq!(
                canonical_call(raw.as_bytes())
                    .map(|(id, params)| (id.to_string(), params.to_string())),
                parsed(&raw),
                "{raw}"
            );
            // Trailing whitespace (a newline from a file) reads the same.
            let spaced = format!("{raw}\n");
            assert_eq!(
                canonical_call(spaced.as_bytes())
                    .map(|(id, params)| (id.to_string(), params.to_string())),
                parsed(&spaced)
            );
        }
    }

    #[test]
    fn anything_else_is_left_to_the_parser() {
        let params = r#"{"name":"get_series","arguments":{}}"#;
        for raw in [
            // Another layout, spacing, or field order.
            format!(r#"{{ "jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#),
            format!(r#"{{"id":1,"jsonrpc":"2.0","method":"tools/call","params":{params}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{params}}}"#),
            // Ids the fast reading does not vouch for: leading zeros, 19 digits, fractions, exponents,
            // escapes, null, objects.
            format!(r#"{{"jsonrpc":"2.0","id":01,"method":"tools/call","params":{params}}}"#),
            format!(
                r#"{{"jsonrpc":"2.0","id":1234567890123456789,"method":"tools/call","params":{params}}}"#
            ),
            format!(r#"{{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{params}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1e3,"method":"tools/call","params":{params}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":"a\"b","method":"tools/call","params":{params}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{params}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":{{}},"method":"tools/call","params":{params}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":-,"method":"tools/call","params":{params}}}"#),
            // Something after the closing brace.
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}x"#),
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":}"#.to_string(),
            format!(r#"[{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}]"#),
        ] {
            assert_eq!(canonical_call(raw.as_bytes()), None, "{raw}");
        }
        // An extra field after params, or a missing closing brace, lands in (or cuts) the params text,
        // which then is no JSON: no cached key (valid JSON read by the parser) equals it, so such a body
        // is never answered from the cache.
        for raw in [
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params},"x":1}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}"#),
        ] {
            let (_, read) = canonical_call(raw.as_bytes()).unwrap();
            assert!(serde_json::from_str::<&RawValue>(read).is_err(), "{read}");
        }
    }
}
