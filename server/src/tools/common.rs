//! The old paths of the shared tool helpers, kept as re-exports for the files that still name them
//! (the transport, `get_dataset`, `search_corpus`, `resolve_metric` and the `tools` root): the helpers
//! live in [`super::arguments`] (argument checks and resolution), [`super::display`] (source and file
//! links, display tables, Vega-Lite charts), [`super::paging`] (cursors) and [`super::answer`]
//! (citation records). New code imports those; this module goes once no file names it.

pub use super::answer::{CitationRecord, citation_records, citation_records_for};
pub use super::arguments::*;
pub use super::display::*;
pub use super::paging::*;
