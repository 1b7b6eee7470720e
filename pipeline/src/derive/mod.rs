//! Derived tables computed from the governed observations at bake time.

pub mod concordance;
pub mod correlations;
pub mod discoveries;
pub mod series_stats;
pub mod year_stats;
