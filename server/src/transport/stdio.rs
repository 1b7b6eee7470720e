//! The stdio transport: one JSON-RPC message or batch per line on stdin, one response (or batch array)
//! per line on stdout, nothing else on stdout; logs go to stderr. Ends with exit status 0 when stdin
//! closes.
//!
//! Same limits as HTTP where they apply: a line above [`MAX_LINE_BYTES`] is answered with `-32700` and
//! skipped without being buffered whole; a line that is not UTF-8 is a `-32700`, and the next line is
//! read as usual.
//!
//! The connection is one client's: what its `initialize` negotiated (the MCP Apps extension) holds for
//! every later message ([`super::apps`]).

use std::io::{BufRead, Write};

use serde_json::Value;

use super::{
    apps::ClientFeatures,
    http::MAX_BODY_BYTES,
    jsonrpc::{McpServer, Reply},
    rpc_error::{codes, error_response},
};

/// The longest line read, in bytes (the HTTP body cap).
pub const MAX_LINE_BYTES: usize = MAX_BODY_BYTES;

/// Serves `input` line by line until it ends, writing responses to `output`.
///
/// # Errors
/// The I/O error that stopped reading or writing.
pub fn serve(
    server: &McpServer,
    mut input: impl BufRead,
    mut output: impl Write,
) -> std::io::Result<()> {
    let mut line = Vec::new();
    // The server as this connection's client negotiated it, once it has (`None`: the defaults).
    let mut negotiated: Option<McpServer> = None;
    loop {
        let Some(outcome) = read_line(&mut input, &mut line)? else {
            return Ok(());
        };
        let reply = match outcome {
            Line::Complete => match std::str::from_utf8(&line) {
                Ok(text) if text.trim().is_empty() => continue,
                Ok(text) => {
                    // Only a line that may hold an `initialize` (its name perhaps escaped) is read twice.
                    if (text.contains("initialize") || text.contains("\\u"))
                        && let Some(features) = serde_json::from_str::<Value>(text)
                            .ok()
                            .as_ref()
                            .and_then(ClientFeatures::of_body)
                    {
                        negotiated = Some(server.for_client(features));
                    }
                    negotiated.as_ref().unwrap_or(server).handle_text(text)
                }
                Err(_) => parse_error("parse error: the line is not valid UTF-8"),
            },
            Line::TooLong => {
                parse_error(&format!("parse error: line above {MAX_LINE_BYTES} bytes"))
            }
        };
        let Some(body) = reply.into_body() else {
            continue;
        };
        output.write_all(body.as_bytes())?;
        output.write_all(b"\n")?;
        output.flush()?;
    }
}

enum Line {
    Complete,
    TooLong,
}

fn parse_error(message: &str) -> Reply {
    Reply::One {
        response: error_response(Value::Null, codes::PARSE_ERROR, message, None).to_string(),
        unreadable: true,
    }
}

/// Reads one line (without its `\n`) into `line`, keeping at most [`MAX_LINE_BYTES`]; the rest of a longer
/// line is consumed and dropped. `None` at end of input with nothing read.
fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>) -> std::io::Result<Option<Line>> {
    line.clear();
    let mut too_long = false;
    let mut read_any = false;
    loop {
        let buffer = input.fill_buf()?;
        if buffer.is_empty() {
            return Ok(read_any.then_some(if too_long {
                Line::TooLong
            } else {
                Line::Complete
            }));
        }
        read_any = true;
        let (chunk, found_newline) = match buffer.iter().position(|&byte| byte == b'\n') {
            Some(newline) => (&buffer[..newline], Some(newline)),
            None => (buffer, None),
        };
        if !too_long {
            if line.len() + chunk.len() > MAX_LINE_BYTES {
                too_long = true;
                line.clear();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let consumed = found_newline.map_or(buffer.len(), |newline| newline + 1);
        input.consume(consumed);
        if found_newline.is_some() {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok(Some(if too_long {
                Line::TooLong
            } else {
                Line::Complete
            }));
        }
    }
}
