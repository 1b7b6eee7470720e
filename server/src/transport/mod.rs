//! The generic MCP core and its transports. Only this module knows JSON-RPC, MCP and HTTP; it knows
//! nothing of the tools' domain: it reaches the tools and the corpus only through the plugin interface
//! ([`PLUGIN_INTERFACE`]: [`crate::tools::Plugin`], which writes the instructions, prepares arguments
//! (`lang`, normalisation) and runs a tool; [`crate::tools::ToolSpec`], a tool's listed contract with
//! `lang` in its input schema and whether it charts; `PreparedArguments`, `ToolOutput`, `ToolError`;
//! [`crate::tools::cancel`], the flag a transport raises when it stops waiting for a call).
//! The test `the_transport_names_only_the_plugin_interface_of_the_tools` below holds it.
//!
//! - [`jsonrpc`]: message classification, the MCP lifecycle (`initialize`, `ping`, `tools/list`,
//!   `tools/call`), version negotiation, batches, the result cache. One `tools/call` path
//!   ([`jsonrpc::McpServer::prepare`], [`jsonrpc::McpServer::run_call`],
//!   [`jsonrpc::McpServer::finish_call`]) serves HTTP, stdio and batches.
//! - [`rpc_error`]: the JSON-RPC error codes, [`rpc_error::RpcError`] and its error responses.
//! - [`apps`]: the MCP Apps extension: negotiation, the chart view `ui://lac-corpus/chart.html`, the
//!   Apps metadata of `tools/list`.
//! - [`http`]: Streamable HTTP on `POST /api/mcp` with the gate, body cap, batch cap, rate limit, CORS
//!   and the health probe.
//! - [`http_service`]: what the listener serves: the router, and a direct lane for an MCP POST that
//!   accepts no compression (the same checks and headers, without the router's layers).
//! - [`listener`]: the accept loop: header size cap, connection cap with 503 shedding, fair shares at
//!   the cap, graceful drain.
//! - [`connection`]: one connection: hyper's HTTP/1 over the socket, its header-read (idle) deadline on
//!   one timer, its write-stall timeout, the signal that asks it to close.
//! - [`repoll`]: a future polled again on the same thread when it wakes itself (hyper does, reading a
//!   request body), instead of through the runtime.
//! - [`modern`]: the stateless revision 2026-07-28 (per-request `_meta`, `server/discover`, result
//!   types and caching hints, its HTTP headers), beside the `initialize`-based ones.
//! - [`metrics`]: Prometheus/OpenMetrics counters and histograms (`GET /metrics`).
//! - [`stdio`]: newline-delimited JSON-RPC on stdin/stdout.
//! - [`guard`]: who may call: the `Origin` allow-list, the loopback `Host` check, JSON content type, and
//!   the client address from forwarding headers of trusted proxies only.
//! - [`rate_limit`]: the bounded in-memory per-client limiter (O(1) per charge, least recently charged
//!   client evicted).
//! - [`shared_limit`]: the cross-instance limiter on Redis (`REDIS_URL`), falling back to memory, with
//!   a circuit breaker so a failing or hung Redis costs no request its timeout.
//! - [`in_flight`]: the cap on tool calls in flight, in all and per client (503 beyond).
//! - [`call_costs`]: per tool, the moving average of its calls' running time: cheap calls run in place
//!   on the async worker, dear ones on the blocking pool under their deadline.
//! - [`workers`]: the threads tool calls run on, so a call can be given up at its deadline.
//! - [`era`]: whether a message is of the stateless revision (its `_meta` names a version) or a legacy one.
//! - [`http_state`]: the HTTP settings and the state the MCP and download handlers share.
//! - [`chunks`]: the response body of in-memory byte chunks both send.
//! - [`downloads`]: the analysts' files over HTTP and the catalog page; [`resources`]: MCP resources;
//!   [`reload`]: hot reload of a newly published corpus.

pub mod apps;
pub mod call_costs;
pub mod chunks;
pub mod citations;
pub mod connection;
pub mod downloads;
pub mod era;
pub mod guard;
pub mod http;
pub mod http_service;
pub mod http_state;
pub mod in_flight;
pub mod jsonrpc;
pub mod listener;
pub mod metrics;
pub mod modern;
pub mod placement;
pub mod rate_limit;
pub mod reload;
pub mod repoll;
pub mod resources;
pub mod rpc_error;
pub mod shared_limit;
pub mod stdio;
pub mod workers;

/// The items of [`crate::tools`] the transport may name: the plugin interface. Everything else of the
/// tool modules (`answer`, `arguments`, `display`, `limits`, a tool's own file, `all()`) is the domain's.
pub const PLUGIN_INTERFACE: [&str; 6] = [
    "Plugin",
    "PreparedArguments",
    "ToolError",
    "ToolOutput",
    "ToolSpec",
    "cancel",
];

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::PLUGIN_INTERFACE;

    /// Every `.rs` file under `dir`, sorted.
    fn sources(dir: &Path) -> Vec<PathBuf> {
        let mut found = Vec::new();
        let mut pending = vec![dir.to_path_buf()];
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(&dir).expect("the transport folder reads") {
                let path = entry.expect("a folder entry reads").path();
                if path.is_dir() {
                    pending.push(path);
                } else if path.extension().is_some_and(|extension| extension == "rs") {
                    found.push(path);
                }
            }
        }
        found.sort();
        found
    }

    /// The first path segment of each item `text` (what follows a `tools::`) names: one identifier, or
    /// each entry of a `{…}` group.
    fn named_items(text: &str) -> Vec<String> {
        let identifier = |text: &str| -> String {
            text.trim_start()
                .chars()
                .take_while(|character| character.is_alphanumeric() || *character == '_')
                .collect()
        };
        let Some(group) = text.strip_prefix('{') else {
            return vec![identifier(text)];
        };
        let mut items = Vec::new();
        let (mut depth, mut entry_start) = (0usize, 0usize);
        for (at, character) in group.char_indices() {
            match character {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    items.push(identifier(&group[entry_start..at]));
                    break;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    items.push(identifier(&group[entry_start..at]));
                    entry_start = at + 1;
                }
                _ => {}
            }
        }
        items.retain(|item| !item.is_empty());
        items
    }

    /// What `code` names of the tool modules outside [`PLUGIN_INTERFACE`]: every path through `tools::`
    /// whose next segment is not an interface item, and every `use` that brings in the module itself (an
    /// alias would hide the paths).
    fn outside_the_interface(code: &str) -> Vec<String> {
        let mut offending = Vec::new();
        for (at, _) in code.match_indices("tools::") {
            let standalone = code[..at]
                .chars()
                .next_back()
                .is_none_or(|before| !(before.is_alphanumeric() || before == '_'));
            if !standalone {
                continue;
            }
            for item in named_items(&code[at + "tools::".len()..]) {
                if !PLUGIN_INTERFACE.contains(&item.as_str()) {
                    offending.push(format!("tools::{item}"));
                }
            }
        }
        let statements = code
            .split(';')
            .filter_map(|part| part.find("use ").map(|start| &part[start..]));
        for statement in statements {
            let module_itself = statement.match_indices("tools").any(|(at, _)| {
                let before = statement[..at].chars().next_back();
                let after = statement[at + "tools".len()..].trim_start();
                matches!(before, Some(':' | '{' | ' '))
                    && (after.is_empty()
                        || after.starts_with(',')
                        || after.starts_with('}')
                        || after.starts_with("as "))
            });
            if module_itself {
                offending.push(format!("`{}`", statement.trim()));
            }
        }
        offending
    }

    /// The invariant of ARCHITECTURE.md: the transport imports nothing from the tool modules but the
    /// plugin interface ([`PLUGIN_INTERFACE`]). Read in every file under `server/src/transport/`, in its
    /// code before its unit tests (`#[cfg(test)]`, which may build the real tool table).
    #[test]
    fn the_transport_names_only_the_plugin_interface_of_the_tools() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/transport");
        let files = sources(&dir);
        assert!(files.len() > 10, "the transport files are found");
        let mut offending = Vec::new();
        for file in files {
            let text = std::fs::read_to_string(&file).expect("a transport file reads");
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            let shown = file
                .strip_prefix(&dir)
                .unwrap_or(&file)
                .display()
                .to_string();
            offending.extend(
                outside_the_interface(code)
                    .into_iter()
                    .map(|named| format!("{shown}: {named}")),
            );
        }
        assert!(
            offending.is_empty(),
            "the transport names tool items outside the plugin interface {PLUGIN_INTERFACE:?}: {offending:#?}"
        );
    }

    #[test]
    fn the_interface_check_reads_paths_and_groups() {
        assert_eq!(named_items("Plugin, x"), vec!["Plugin"]);
        assert_eq!(
            named_items("{Plugin, arguments::snippet, answer::{A, B}}"),
            vec!["Plugin", "arguments", "answer"]
        );
        assert_eq!(
            named_items("get_chart_data::CHARTING_TOOLS;"),
            vec!["get_chart_data"]
        );
        assert!(
            outside_the_interface(
                "use crate::tools::{Plugin, ToolSpec};\nfn f(x: crate::tools::ToolOutput) {}"
            )
            .is_empty()
        );
        assert!(outside_the_interface("/// a [`crate::tools`] link and tool_tools::x").is_empty());
        for offending in [
            "use crate::tools::get_chart_data::CHARTING_TOOLS;",
            "let key = crate::tools::answer::DISPLAY_META_KEY;",
            "use crate::tools::{Plugin, limits};",
            "use super::super::tools::arguments::snippet;",
            "use crate::tools;",
            "use crate::{tools, load::Corpus};",
            "use crate::tools as domain;",
        ] {
            assert_eq!(
                outside_the_interface(offending).len(),
                1,
                "{offending} is caught"
            );
        }
    }
}
