//! The server over a baked corpus. This first cut loads and verifies the published corpus; the MCP
//! transports and tools build on [`load::load_corpus`].
//!
//! The server never writes files and never calls out: every answer depends only on the baked artifacts
//! and the request.

pub mod load;
