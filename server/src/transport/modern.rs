//! The stateless protocol revision 2026-07-28 ("modern"), served beside the `initialize`-based 2025-11-25
//! and 2025-06-18 ("legacy") from the same core.
//!
//! A message is modern when its `params._meta` carries `io.modelcontextprotocol/protocolVersion`; it then
//! stands alone: no handshake, no session, its own client capabilities
//! (`io.modelcontextprotocol/clientCapabilities`, where MCP Apps is negotiated per request). What differs
//! from the legacy answers:
//! - `server/discover` answers the supported versions, capabilities, identity and instructions;
//! - every result carries `resultType: "complete"`, and the cacheable ones (`server/discover`,
//!   `tools/list`, `resources/list`, `resources/templates/list`, `resources/read`) `ttlMs` and
//!   `cacheScope: "public"` (the corpus is public and changes only when a new one is published);
//! - `ping` is gone (`-32601`), a resource not found is `-32602`, a version this server does not speak
//!   is `-32022` (`UnsupportedProtocolVersion`, `data.supported` and `data.requested`);
//! - over HTTP ([`super::http`]): one message per POST (no batch), the `MCP-Protocol-Version`,
//!   `Mcp-Method` and `Mcp-Name` headers must match the body (else 400 and `-32020`, `HeaderMismatch`), an
//!   unsupported version is a 400, an unknown method a 404, and no session id is minted or read.

use base64::Engine as _;
use serde_json::{Value, json};

use super::{
    apps::ClientFeatures,
    rpc_error::{RpcError, codes},
};

/// The modern revisions this server speaks.
pub const MODERN_VERSIONS: [&str; 1] = ["2026-07-28"];
/// Every revision this server speaks, newest first (the modern ones per request, the others through
/// `initialize`).
pub const ALL_VERSIONS: [&str; 3] = ["2026-07-28", "2025-11-25", "2025-06-18"];

pub use super::era::{PROTOCOL_VERSION_KEY, is_modern};
/// `_meta` key of a request's client capabilities.
pub const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the server's identity in a result.
pub const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// How long a cacheable result may be considered fresh, in milliseconds (an hour: the corpus changes
/// only when a new one is published, and list results never change within one).
pub const TTL_MS: u64 = 3_600_000;

/// A modern request's protocol fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Modern {
    /// The revision the request speaks (one of [`MODERN_VERSIONS`]).
    pub version: String,
    /// What its client capabilities negotiate.
    pub features: ClientFeatures,
}

/// The protocol fields of a modern message's `params`.
///
/// # Errors
/// `-32022` with `data.supported` and `data.requested` when the version is not one of
/// [`MODERN_VERSIONS`]; `-32602` for a version that is not a string or without client capabilities.
pub fn of_params(params: Option<&Value>) -> Result<Modern, RpcError> {
    let meta = params.and_then(|params| params.get("_meta"));
    let requested = meta.and_then(|meta| meta.get(PROTOCOL_VERSION_KEY));
    if requested.is_some_and(|requested| !requested.is_string()) {
        return Err(missing_meta(
            PROTOCOL_VERSION_KEY,
            "a string such as \"2026-07-28\"",
        ));
    }
    let version = requested
        .and_then(Value::as_str)
        .filter(|version| MODERN_VERSIONS.contains(version))
        .ok_or_else(|| unsupported_version(requested))?;
    let capabilities = meta
        .and_then(|meta| meta.get(CLIENT_CAPABILITIES_KEY))
        .filter(|capabilities| capabilities.is_object())
        .ok_or_else(|| missing_meta(CLIENT_CAPABILITIES_KEY, "an object; {} for none"))?;
    Ok(Modern {
        version: version.to_string(),
        features: ClientFeatures::of_capabilities(Some(capabilities)),
    })
}

/// `-32602`: a required `_meta` field is missing.
pub fn missing_meta(key: &str, valid: &str) -> RpcError {
    RpcError::new(
        codes::INVALID_PARAMS,
        format!("invalid params: a 2026-07-28 request needs params._meta[\"{key}\"] ({valid})"),
    )
}

/// `-32022`: the versions a request may name in its `_meta` (the modern ones: a client that retries with
/// one of them succeeds) and the one requested; the message names the legacy ones too.
pub fn unsupported_version(requested: Option<&Value>) -> RpcError {
    let shown = match requested {
        Some(Value::String(text)) => crate::text::snippet(text).to_string(),
        Some(other) => crate::text::snippet(&other.to_string()).to_string(),
        None => String::new(),
    };
    RpcError {
        code: codes::UNSUPPORTED_PROTOCOL_VERSION,
        message: format!(
            "Unsupported protocol version `{shown}` in params._meta; supported there: {} ({} are served through initialize, without _meta)",
            MODERN_VERSIONS.join(", "),
            ALL_VERSIONS[MODERN_VERSIONS.len()..].join(" and ")
        ),
        data: Some(json!({"supported": MODERN_VERSIONS, "requested": shown})),
    }
}

/// Whether `method`'s result is cacheable (carries `ttlMs` and `cacheScope`).
pub fn is_cacheable(method: &str) -> bool {
    matches!(
        method,
        "server/discover"
            | "tools/list"
            | "prompts/list"
            | "resources/list"
            | "resources/templates/list"
            | "resources/read"
    )
}

/// The fields a modern result of `method` starts with, as JSON object members without braces:
/// `"resultType":"complete"`, and the caching hints of a cacheable one.
pub fn result_fields(method: &str) -> String {
    if is_cacheable(method) {
        format!(r#""resultType":"complete","ttlMs":{TTL_MS},"cacheScope":"public""#)
    } else {
        r#""resultType":"complete""#.to_string()
    }
}

/// `result` (a serialized JSON object) with `fields` as its first members.
pub fn with_fields(result: &[u8], fields: &str) -> String {
    let text = std::str::from_utf8(result).unwrap_or("{}").trim_start();
    let rest = text.strip_prefix('{').unwrap_or("}").trim_start();
    if rest.starts_with('}') {
        format!("{{{fields}}}")
    } else {
        format!("{{{fields},{rest}")
    }
}

/// The value a `Mcp-Name` header stands for: itself, or the UTF-8 text of a Base64 sentinel
/// (`=?base64?{value}?=`); `None` for a sentinel that does not decode.
pub fn decoded_header(value: &str) -> Option<String> {
    match value
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    {
        Some(encoded) => base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok()),
        None => Some(value.to_string()),
    }
}

/// `-32020` for `header`: missing, or not what the body says.
pub fn header_mismatch(header: &str, sent: Option<&str>, body: &str) -> RpcError {
    let snippet = |text: &str| crate::text::snippet(text).to_string();
    RpcError::new(
        codes::HEADER_MISMATCH,
        match sent {
            None => format!(
                "Header mismatch: the {header} header is required (body value `{}`)",
                snippet(body)
            ),
            Some(sent) => format!(
                "Header mismatch: {header} header value `{}` does not match body value `{}`",
                snippet(sent),
                snippet(body)
            ),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_modern_message_is_known_by_its_meta_and_its_version_is_checked() {
        let params = |version: Value| json!({"_meta": {PROTOCOL_VERSION_KEY: version, CLIENT_CAPABILITIES_KEY: {}}});
        assert!(is_modern(Some(&params(json!("2026-07-28")))));
        assert!(!is_modern(Some(&json!({"name": "get_series"}))));
        assert!(!is_modern(None));
        assert_eq!(
            of_params(Some(&params(json!("2026-07-28"))))
                .unwrap()
                .version,
            "2026-07-28"
        );
        let refused = of_params(Some(&params(json!("1900-01-01")))).unwrap_err();
        assert_eq!(refused.code, codes::UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(
            refused.data,
            Some(json!({"supported": ["2026-07-28"], "requested": "1900-01-01"}))
        );
        assert_eq!(
            of_params(Some(&params(json!(5)))).unwrap_err().code,
            codes::INVALID_PARAMS
        );
        // A legacy version is served through initialize, not named per request.
        let legacy = of_params(Some(&params(json!("2025-11-25")))).unwrap_err();
        assert_eq!(legacy.code, codes::UNSUPPORTED_PROTOCOL_VERSION);
        assert!(
            legacy.message.contains("through initialize"),
            "{}",
            legacy.message
        );
        let without_capabilities = json!({"_meta": {PROTOCOL_VERSION_KEY: "2026-07-28"}});
        assert_eq!(
            of_params(Some(&without_capabilities)).unwrap_err().code,
            codes::INVALID_PARAMS
        );
    }

    #[test]
    fn results_gain_their_type_and_the_cacheable_ones_their_hints() {
        assert_eq!(
            with_fields(br#"{"tools":[]}"#, &result_fields("tools/list")),
            r#"{"resultType":"complete","ttlMs":3600000,"cacheScope":"public","tools":[]}"#
        );
        assert_eq!(
            with_fields(b"{}", &result_fields("tools/call")),
            r#"{"resultType":"complete"}"#
        );
    }

    #[test]
    fn a_name_header_may_be_base64_encoded() {
        assert_eq!(decoded_header("get_series").as_deref(), Some("get_series"));
        assert_eq!(
            decoded_header("=?base64?dWk6Ly9sYWMtY29ycHVzL2NoYXJ0Lmh0bWw=?=").as_deref(),
            Some("ui://lac-corpus/chart.html")
        );
        assert_eq!(decoded_header("=?base64?***?="), None);
    }
}
