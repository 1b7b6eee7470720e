//! Which protocol era a message belongs to: a 2026-07-28 ("modern") message names its protocol version in
//! its `params._meta`; a legacy one (2025-11-25, 2025-06-18) relies on `initialize`. A leaf: the modern
//! era's handling ([`super::modern`]) and the MCP Apps negotiation ([`super::apps`]) both ask it.

use serde_json::Value;

/// `_meta` key of a request's protocol version.
pub const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";

/// Whether `params` are those of a modern message (their `_meta` names a protocol version, of any
/// type: a wrong one is refused as modern, not served as legacy).
pub fn is_modern(params: Option<&Value>) -> bool {
    params
        .and_then(|params| params.get("_meta"))
        .and_then(|meta| meta.get(PROTOCOL_VERSION_KEY))
        .is_some()
}
