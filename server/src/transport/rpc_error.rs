//! JSON-RPC errors: every code this server answers with ([`codes`]), the error value ([`RpcError`]) and
//! its conversion to an error response, in the two serializations the server writes:
//!
//! - [`RpcError::response_text`]: `{"jsonrpc":"2.0","id":<id text>,"error":{"code":…,"message":…[,"data":…]}}`,
//!   fields in that order, the id echoed as the request wrote it (answers to a message with an id);
//! - [`error_response`] and [`RpcError::fields`]: a `serde_json` value, whose keys serialize sorted
//!   (`{"error":{"code":…,"data":…,"message":…},"id":…,"jsonrpc":"2.0"}`): answers without an id, and the
//!   refusals of the HTTP transport.

use serde_json::{Value, json};

/// JSON-RPC error codes used by the server: JSON-RPC 2.0's own, MCP's and those of revision 2026-07-28.
pub mod codes {
    /// Unparseable body.
    pub const PARSE_ERROR: i64 = -32700;
    /// Not a valid request object, empty or oversized batch.
    pub const INVALID_REQUEST: i64 = -32600;
    /// Unknown method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Unknown tool or invalid params.
    pub const INVALID_PARAMS: i64 = -32602;
    /// A tool failed internally.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// Rate limit exceeded.
    pub const RATE_LIMITED: i64 = -32000;
    /// Server busy: the cap on tool calls in flight is reached (HTTP 503 with `Retry-After`).
    pub const SERVER_BUSY: i64 = -32001;
    /// An unknown resource (MCP; 2026-07-28 answers it as [`INVALID_PARAMS`]).
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
    /// 2026-07-28: the HTTP headers do not match the body, or a required header is missing or malformed.
    pub const HEADER_MISMATCH: i64 = -32020;
    /// 2026-07-28: the request's protocol version is not one this server speaks.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
}

/// A JSON-RPC error: code, message and optional `data`.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// One of [`codes`].
    pub code: i64,
    /// What went wrong and what would be valid.
    pub message: String,
    /// Structured detail (`{"uri": …}`), when there is some.
    pub data: Option<Value>,
}

impl RpcError {
    /// An error without `data`.
    pub fn new(code: i64, message: String) -> RpcError {
        RpcError {
            code,
            message,
            data: None,
        }
    }

    /// The error object as a value: `code`, `message` and, when there is some, `data` (serialized with
    /// sorted keys).
    pub fn fields(&self) -> Value {
        let mut error = json!({"code": self.code, "message": self.message});
        if let Some(data) = &self.data {
            error["data"] = data.clone();
        }
        error
    }

    /// The serialized error response bound to `id`, the serialized id (its text as the request wrote
    /// it): `{"jsonrpc":"2.0","id":…,"error":{"code":…,"message":…}}`, with `"data"` last when there is
    /// some.
    pub fn response_text(&self, id: &str) -> String {
        let code = self.code;
        let message = Value::String(self.message.clone());
        match &self.data {
            None => format!(
                r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":{message}}}}}"#
            ),
            Some(data) => format!(
                r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":{message},"data":{data}}}}}"#
            ),
        }
    }
}

impl From<(i64, String)> for RpcError {
    fn from((code, message): (i64, String)) -> RpcError {
        RpcError::new(code, message)
    }
}

/// A JSON-RPC error response as a value (`id`: usually `null`, for a message that could not be read).
pub fn error_response(id: Value, code: i64, message: &str, data: Option<Value>) -> Value {
    let error = RpcError {
        code,
        message: message.to_string(),
        data,
    };
    json!({"jsonrpc": "2.0", "id": id, "error": error.fields()})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_serializes_as_before_in_both_forms() {
        let plain = RpcError::new(codes::INVALID_PARAMS, "bad \"x\"".into());
        assert_eq!(
            plain.response_text("7"),
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"bad \"x\""}}"#
        );
        let with_data = RpcError {
            data: Some(json!({"uri": "u"})),
            ..RpcError::new(codes::RESOURCE_NOT_FOUND, "gone".into())
        };
        assert_eq!(
            with_data.response_text(r#""a""#),
            r#"{"jsonrpc":"2.0","id":"a","error":{"code":-32002,"message":"gone","data":{"uri":"u"}}}"#
        );
        assert_eq!(
            error_response(Value::Null, codes::PARSE_ERROR, "parse error", None).to_string(),
            r#"{"error":{"code":-32700,"message":"parse error"},"id":null,"jsonrpc":"2.0"}"#
        );
        assert_eq!(
            with_data.fields().to_string(),
            r#"{"code":-32002,"data":{"uri":"u"},"message":"gone"}"#
        );
    }
}
