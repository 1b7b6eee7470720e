//! Bodies: the shape of a parsed body ([`BodyShape`]: one message, a batch, an empty or oversized one)
//! and running one, a batch's messages in order (each `resources/read` refused inside a batch).

use serde_json::{Value, value::RawValue};

use super::{
    MAX_BATCH, McpServer,
    raw_message::RawMessage,
    reply::{Reply, Response},
};
use crate::transport::rpc_error::{RpcError, codes, error_response};

/// The shape of a parsed body, before any message runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyShape {
    /// One message.
    Single,
    /// A batch of this many messages (1 to [`MAX_BATCH`]).
    Batch(usize),
    /// `[]`.
    EmptyBatch,
    /// A batch above [`MAX_BATCH`].
    OversizedBatch(usize),
}

impl BodyShape {
    /// Classifies a parsed body.
    pub fn of(body: &Value) -> BodyShape {
        match body {
            Value::Array(messages) if messages.is_empty() => BodyShape::EmptyBatch,
            Value::Array(messages) if messages.len() > MAX_BATCH => {
                BodyShape::OversizedBatch(messages.len())
            }
            Value::Array(messages) => BodyShape::Batch(messages.len()),
            _ => BodyShape::Single,
        }
    }

    /// Messages a rate limiter charges for this body (none for a rejected batch).
    pub fn messages(self) -> usize {
        match self {
            BodyShape::Single => 1,
            BodyShape::Batch(count) => count,
            BodyShape::EmptyBatch | BodyShape::OversizedBatch(_) => 0,
        }
    }
}

impl McpServer {
    /// Handles `body` (`raw`: its text, when known): an empty or oversized batch is refused whole
    /// (`-32600`), a batch runs its messages in order (each `resources/read` refused), one message is
    /// answered alone.
    pub(super) fn handle_parsed(&self, body: &Value, raw: Option<&[u8]>) -> Reply {
        match BodyShape::of(body) {
            BodyShape::EmptyBatch => Reply::One {
                response: error_response(
                    Value::Null,
                    codes::INVALID_REQUEST,
                    "invalid request: empty batch",
                    None,
                )
                .to_string(),
                unreadable: true,
            },
            BodyShape::OversizedBatch(count) => Reply::One {
                response: error_response(
                    Value::Null,
                    codes::INVALID_REQUEST,
                    &format!("invalid request: batch of {count} messages; at most {MAX_BATCH}"),
                    None,
                )
                .to_string(),
                unreadable: true,
            },
            BodyShape::Batch(count) => {
                // A batch is an array (the shape says so).
                let messages = body.as_array().map(Vec::as_slice).unwrap_or_default();
                let raw_messages = raw
                    .and_then(|raw| serde_json::from_slice::<Vec<&RawValue>>(raw).ok())
                    .filter(|raw_messages| raw_messages.len() == count);
                let responses: Vec<String> = messages
                    .iter()
                    .enumerate()
                    .filter_map(|(at, message)| {
                        let raw = raw_messages
                            .as_ref()
                            .map(|raw_messages| raw_messages[at].get().as_bytes());
                        if let Some(refusal) = refused_in_batch(message, raw) {
                            return Some(refusal);
                        }
                        self.handle_message(message, raw)
                            .map(|(response, _)| response)
                    })
                    .collect();
                if responses.is_empty() {
                    Reply::Nothing
                } else {
                    Reply::Many(responses)
                }
            }
            BodyShape::Single => match self.handle_message(body, raw) {
                Some((response, unreadable)) => Reply::One {
                    response,
                    unreadable,
                },
                None => Reply::Nothing,
            },
        }
    }
}

/// The answer to a `resources/read` inside a batch: refused (`-32600`), because one read inlines up to
/// 2 MiB and a batch would multiply that by twenty for one message of the rate limit; `None` for any
/// other message.
fn refused_in_batch(message: &Value, raw: Option<&[u8]>) -> Option<String> {
    if message.get("method").and_then(Value::as_str) != Some("resources/read") {
        return None;
    }
    let id = message
        .get("id")
        .filter(|id| id.is_string() || id.is_number())?;
    let id = raw
        .and_then(|raw| RawMessage::read(raw, false).id.map(str::to_string))
        .unwrap_or_else(|| id.to_string());
    Some(
        Response::error(
            id,
            RpcError::new(
                codes::INVALID_REQUEST,
                "resources/read must be sent alone, not in a batch (each read inlines up to 2 MiB)"
                    .into(),
            ),
        )
        .into_string(),
    )
}
