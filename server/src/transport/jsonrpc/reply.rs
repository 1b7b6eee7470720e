//! What the core sends back: the reply to one body ([`Reply`]), a result response in parts
//! ([`ResultParts`], so a cached result is never copied on its way out) and one serialized response
//! ([`Response`]).

use bytes::Bytes;
use serde_json::Value;

use crate::transport::rpc_error::RpcError;

/// What to send back for one body.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// Nothing (only notifications): HTTP 202 with an empty body, nothing on stdio.
    Nothing,
    /// One response object. `unreadable` is true when the message could not be read as a request
    /// (parse error, not an object, bad envelope, empty or oversized batch): HTTP 400.
    One {
        /// The response, serialized.
        response: String,
        /// Whether the message was unreadable as a request.
        unreadable: bool,
    },
    /// A batch's responses, serialized, in message order.
    Many(Vec<String>),
    /// One result response, in parts (HTTP sends them without joining them).
    Result(ResultParts),
}

impl Reply {
    /// The HTTP body or stdio line: the response, or the batch's responses as one array; `None` for nothing.
    pub fn into_body(self) -> Option<String> {
        match self {
            Reply::Nothing => None,
            Reply::One { response, .. } => Some(response),
            Reply::Many(responses) => Some(format!("[{}]", responses.join(","))),
            Reply::Result(parts) => Some(parts.into_string()),
        }
    }
}

/// A serialized JSON-RPC response: a protocol value, a method's serialized result with its id, or an
/// error bound to an id (ids are serialized JSON: numbers and strings exactly as the request wrote them).
pub(super) enum Response {
    /// A response built as a value (an envelope error without an id).
    Value(Value),
    /// A method's serialized result bound to `id`.
    Result {
        /// The request's id, serialized.
        id: String,
        /// The serialized result.
        result: Bytes,
    },
    /// An error bound to `id`.
    Error {
        /// The request's id, serialized.
        id: String,
        /// What went wrong.
        error: RpcError,
    },
}

impl Response {
    /// The error response of `id` for `error`.
    pub(super) fn error(id: String, error: RpcError) -> Response {
        Response::Error { id, error }
    }

    /// The response, serialized.
    pub(super) fn into_string(self) -> String {
        match self {
            Response::Value(value) => value.to_string(),
            Response::Error { id, error } => error.response_text(&id),
            Response::Result { id, result } => {
                let mut response = String::with_capacity(result.len() + id.len() + 40);
                response.push_str(r#"{"jsonrpc":"2.0","id":"#);
                response.push_str(&id);
                response.push_str(r#","result":"#);
                response.push_str(utf8(&result));
                response.push('}');
                response
            }
        }
    }
}

/// A result response in parts, so that the result (shared with the cache) is never copied on its
/// way out: `head`, `result`, then [`ResultParts::TAIL`].
#[derive(Debug, Clone, PartialEq)]
pub struct ResultParts {
    /// `{"jsonrpc":"2.0","id":<the request's id text>,"result":`.
    pub head: String,
    /// The serialized result.
    pub result: Bytes,
}

impl ResultParts {
    /// The last bytes of the response.
    pub const TAIL: &'static str = "}";

    /// The parts of the result response to the request whose serialized id is `id`.
    pub(super) fn new(id: &str, result: Bytes) -> ResultParts {
        let mut head = String::with_capacity(id.len() + 32);
        head.push_str(r#"{"jsonrpc":"2.0","id":"#);
        head.push_str(id);
        head.push_str(r#","result":"#);
        ResultParts { head, result }
    }

    /// The whole response as one string (copies the result).
    pub fn into_string(self) -> String {
        let mut response = self.head;
        response.reserve(self.result.len() + 1);
        response.push_str(utf8(&self.result));
        response.push_str(ResultParts::TAIL);
        response
    }
}

/// A serialized result as text (every one is built from text).
pub(super) fn utf8(serialized: &Bytes) -> &str {
    std::str::from_utf8(serialized).expect("a serialized result is UTF-8")
}
