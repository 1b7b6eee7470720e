//! The MCP server over a baked corpus: read-only, deterministic, citation-first.
//!
//! Data flow: [`load`] opens the published corpus (memory-mapped tables, registries, search index) →
//! [`tools`] (the domain plugin: one file per tool, typed inputs and outputs, schemas derived from the
//! types) → [`transport`] (the generic core: JSON-RPC, MCP lifecycle, Streamable HTTP, stdio, limits).
//! Beside the tools, the analysts' files: [`load::downloads`] reads them, [`catalog`] lists and renders them
//! (JSON catalog, HTML page), [`links`] builds their URLs from the configured public base URL, and
//! `transport::downloads` / `transport::resources` serve them over HTTP and as MCP resources.
//!
//! The server never writes files and never calls out: every answer depends only on the baked artifacts
//! and the request. [`build`] wires the three together; [`transport::http::router`] gives the axum
//! router for tests and for `main`.

pub mod catalog;
pub mod links;
pub mod load;
pub mod text;
pub mod tools;
pub mod transport;

use std::{path::Path, sync::Arc};

use transport::jsonrpc::McpServer;

/// Loads the corpus in `out_dir` and builds the MCP core with every tool, checking each tool's declared
/// datasets against the corpus' catalog.
///
/// # Errors
/// A message naming the corpus problem (not baked, wrong format) or the tool whose datasets are invalid.
pub fn build(out_dir: &Path) -> Result<McpServer, String> {
    // The tool table (each tool's schemas, serialized once) is built on a second thread while the
    // corpus is opened: both stand between a stdio server's start and its first answer.
    let (tool_table, corpus) = corpus::threads::join(tools::all, || open_warming(out_dir));
    let plugin = tools::Plugin::new(corpus?, tool_table)?;
    Ok(McpServer::new(plugin))
}

/// As [`build`], after checking the sha256 of every artifact against the manifest (what a reload does
/// before it swaps a corpus in: files read on first use, such as `discoveries.json`, are checked too).
///
/// # Errors
/// As [`build`], or a message naming the artifact whose checksum differs.
pub fn build_verified(out_dir: &Path) -> Result<McpServer, String> {
    let corpus = load::verify_corpus(out_dir).map_err(|error| error.to_string())?;
    // Swapped in decoded: the first request on the new corpus pays nothing.
    corpus.warm().map_err(|error| error.to_string())?;
    let plugin = tools::Plugin::new(Arc::new(corpus), tools::all())?;
    Ok(McpServer::new(plugin))
}

/// As [`build`], with an explicit tool table (tests add tools of their own).
///
/// # Errors
/// As [`build`].
pub fn build_with_tools(
    out_dir: &Path,
    tool_table: Vec<tools::ToolSpec>,
) -> Result<McpServer, String> {
    let corpus = open_warming(out_dir)?;
    let plugin = tools::Plugin::new(corpus, tool_table)?;
    Ok(McpServer::new(plugin))
}

/// Opens the corpus in `out_dir` and starts reading ahead on a background thread what its first answers
/// need (the observation tables' batches, the downloads list, the search index: [`load::Corpus::warm`])
/// while the first messages (`initialize`, `tools/list`) are answered; a tool call that needs them first
/// waits for them.
fn open_warming(out_dir: &Path) -> Result<Arc<load::Corpus>, String> {
    let corpus = Arc::new(load::load_corpus(out_dir).map_err(|error| error.to_string())?);
    let warming = corpus.clone();
    let spawned = std::thread::Builder::new()
        .name("corpus-warm".into())
        .spawn(move || {
            if let Err(error) = warming.warm() {
                tracing::error!(%error, "the corpus cannot be read ahead of its first requests");
            }
        });
    if spawned.is_err() {
        corpus.warm().map_err(|error| error.to_string())?;
    }
    Ok(corpus)
}
