//! The stdio transport: one JSON-RPC message or batch per line on stdin, one response (or batch array)
//! per line on stdout, nothing else on stdout; logs go to stderr. Ends with exit status 0 when stdin closes.

use std::io::{BufRead, Write};

use super::jsonrpc::{McpServer, Reply};

/// Serves `input` line by line until it ends, writing responses to `output`.
///
/// # Errors
/// The I/O error that stopped reading or writing.
pub fn serve(server: &McpServer, input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let response = match server.handle_text(&line) {
            Reply::Nothing => continue,
            Reply::One { response, .. } => response,
            Reply::Many(responses) => serde_json::Value::Array(responses),
        };
        serde_json::to_writer(&mut output, &response)?;
        output.write_all(b"\n")?;
        output.flush()?;
    }
    Ok(())
}
