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
/// way out: `head`, `result`, then [`ResultParts::TAIL`] (already at the end of `result` when
/// `tailed`: a result from the cache is kept so, and goes out in two pieces instead of three).
#[derive(Debug, Clone)]
pub struct ResultParts {
    /// `{"jsonrpc":"2.0","id":<the request's id text>,"result":`.
    pub head: String,
    /// The serialized result, followed by [`ResultParts::TAIL`] when `tailed`.
    pub result: Bytes,
    /// Whether `result` ends with the tail.
    pub tailed: bool,
}

/// Two answers are equal when their bytes are, however their parts are cut.
impl PartialEq for ResultParts {
    fn eq(&self, other: &ResultParts) -> bool {
        self.head == other.head && self.bare_result() == other.bare_result()
    }
}

/// A serialized result followed by [`ResultParts::TAIL`], as the result cache keeps it (one copy, made
/// when filed).
#[derive(Debug, Clone)]
pub(super) struct TailedResult(Bytes);

impl TailedResult {
    /// `result` with the tail after it.
    pub(super) fn new(result: &[u8]) -> TailedResult {
        let mut tailed = Vec::with_capacity(result.len() + ResultParts::TAIL.len());
        tailed.extend_from_slice(result);
        tailed.extend_from_slice(ResultParts::TAIL.as_bytes());
        TailedResult(Bytes::from(tailed))
    }

    /// The result without the tail (shared, not copied).
    pub(super) fn result(&self) -> Bytes {
        self.0.slice(..self.0.len() - ResultParts::TAIL.len())
    }

    /// Bytes held.
    pub(super) fn len(&self) -> usize {
        self.0.len()
    }
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
        ResultParts {
            head,
            result,
            tailed: false,
        }
    }

    /// As [`ResultParts::new`], for a result from the cache (its tail already in place).
    pub(super) fn from_tailed(id: &str, result: TailedResult) -> ResultParts {
        ResultParts {
            tailed: true,
            result: result.0,
            ..ResultParts::new(id, Bytes::new())
        }
    }

    /// The serialized result, without the tail.
    fn bare_result(&self) -> &[u8] {
        if self.tailed {
            &self.result[..self.result.len() - ResultParts::TAIL.len()]
        } else {
            &self.result
        }
    }

    /// The response's bytes in order, without a copy: the head, the result, and the tail when the
    /// result does not end with it.
    pub fn into_chunks(self) -> impl Iterator<Item = Bytes> {
        let tail = (!self.tailed).then(|| Bytes::from_static(ResultParts::TAIL.as_bytes()));
        [Bytes::from(self.head), self.result]
            .into_iter()
            .chain(tail)
    }

    /// The whole response as one string (copies the result).
    pub fn into_string(self) -> String {
        let mut response = self.head;
        response.reserve(self.result.len() + 1);
        response.push_str(utf8(&self.result));
        if !self.tailed {
            response.push_str(ResultParts::TAIL);
        }
        response
    }
}

/// A serialized result as text (every one is built from text).
pub(super) fn utf8(serialized: &Bytes) -> &str {
    std::str::from_utf8(serialized).expect("a serialized result is UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cached_result_answers_the_same_bytes_in_two_pieces_instead_of_three() {
        let result = Bytes::from_static(br#"{"content":[],"isError":false}"#);
        let fresh = ResultParts::new("7", result.clone());
        let cached = ResultParts::from_tailed("7", TailedResult::new(&result));
        assert_eq!(fresh, cached);
        assert_eq!(
            cached.clone().into_string(),
            r#"{"jsonrpc":"2.0","id":7,"result":{"content":[],"isError":false}}"#
        );
        assert_eq!(fresh.clone().into_string(), cached.clone().into_string());
        let (fresh, cached): (Vec<Bytes>, Vec<Bytes>) = (
            fresh.into_chunks().collect(),
            cached.into_chunks().collect(),
        );
        assert_eq!((fresh.len(), cached.len()), (3, 2));
        assert_eq!(fresh.concat(), cached.concat());
        // The cache's copy gives the bare result back without copying it again.
        let tailed = TailedResult::new(&result);
        assert_eq!(tailed.result(), result);
        assert_eq!(tailed.len(), result.len() + 1);
        assert_ne!(
            ResultParts::new("7", result.clone()),
            ResultParts::new("8", result)
        );
    }
}
