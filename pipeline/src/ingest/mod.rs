//! Connectors: read each source's raw files, as declared in its catalog entry, into raw rows (cells as
//! written, nothing parsed or dropped yet) and registry content. [`read_source`] picks the reader of an
//! observation source's connector: [`tabular`] (the plain CSV layouts), [`wide_years`], [`scaled`], and
//! the publishers' own files: [`databank`] (the World Bank's wide CSV as served), [`wb_api`] (World Bank
//! API v2 JSON), [`owid_grapher`] (Our World in Data downloads with their metadata), [`gcb_flat`] (the
//! Global Carbon Project's flat CSV), [`imf_weo_text`] (IMF WEO tab-separated text), [`undp_hdr`] (UNDP
//! HDR composite CSV), decoded by [`text`];
//! [`countries`] and [`wdi_metadata`] read the country list and the series metadata.
//!
//! Governance (`crate::govern`) decides what each raw row becomes; ingest never drops a row.

pub mod cclw_export;
pub mod countries;
pub mod databank;
pub mod gcb_flat;
pub mod imf_weo_text;
pub mod ncei_earthquakes;
pub mod owid_grapher;
pub mod projection;
pub mod raw;
pub mod scaled;
pub mod table;
pub mod tabular;
pub mod text;
pub mod undp_hdr;
pub mod wb_api;
pub mod wb_projects_api;
pub mod wdi_metadata;
pub mod wide_years;

use std::path::Path;

pub use raw::{Descriptor, RawFile, RawRow, relative_display};

use crate::{
    BakeError,
    sources::{Connector, MetricMapping, SourceEntry},
};

/// Reads every raw file of an observation source, and the descriptor of each mapped indicator (empty
/// descriptors for connectors without one), with the reader of its connector. `progress` advances by one
/// per mapped indicator.
///
/// # Errors
/// [`BakeError::RawFile`] if a file is missing, unreadable or lacks a declared column.
pub fn read_source(
    entry: &SourceEntry,
    mapping: &MetricMapping,
    sources_dir: &Path,
    progress: &indicatif::ProgressBar,
) -> Result<(Vec<RawFile>, Vec<Descriptor>), BakeError> {
    let (mut files, descriptors) = read_connector(entry, mapping, sources_dir, progress)?;
    if let Some(release_year) = entry.release_year {
        projection::split_by_release(&mut files, release_year);
    }
    Ok((files, descriptors))
}

/// [`read_source`] without the release-year split of estimates and projections.
fn read_connector(
    entry: &SourceEntry,
    mapping: &MetricMapping,
    sources_dir: &Path,
    progress: &indicatif::ProgressBar,
) -> Result<(Vec<RawFile>, Vec<Descriptor>), BakeError> {
    match &entry.connector {
        Connector::LongCsvPerIndicator { .. }
        | Connector::LongCsv { .. }
        | Connector::ColumnsCsv { .. }
        | Connector::YearColumnsCsv { .. }
        | Connector::SumCsv { .. } => tabular::read_source(entry, mapping, sources_dir, progress),
        Connector::WideYearsCsv { .. } => {
            wide_years::read_source(entry, mapping, sources_dir, progress)
        }
        Connector::ImfWeoText { .. } => {
            imf_weo_text::read_source(entry, mapping, sources_dir, progress)
        }
        Connector::UndpHdrCsv { .. } => {
            undp_hdr::read_source(entry, mapping, sources_dir, progress)
        }
        Connector::ScaledCsv { .. } => scaled::read_source(entry, mapping, sources_dir, progress),
        Connector::DatabankCsv { .. } => {
            databank::read_source(entry, mapping, sources_dir, progress)
        }
        Connector::WbApiJson { .. } => wb_api::read_source(entry, mapping, sources_dir, progress),
        Connector::OwidGrapherCsv { .. } => {
            owid_grapher::read_source(entry, mapping, sources_dir, progress)
        }
        Connector::GcbFlatCsv { .. } => {
            gcb_flat::read_source(entry, mapping, sources_dir, progress)
        }
        other => unreachable!("read_source called for connector `{}`", other.kind()),
    }
}

/// The missing-value markers a connector declares.
pub fn missing_markers(connector: &Connector) -> &[String] {
    match connector {
        Connector::LongCsvPerIndicator {
            missing_markers, ..
        }
        | Connector::LongCsv {
            missing_markers, ..
        }
        | Connector::ColumnsCsv {
            missing_markers, ..
        }
        | Connector::YearColumnsCsv {
            missing_markers, ..
        }
        | Connector::WideYearsCsv {
            missing_markers, ..
        }
        | Connector::ImfWeoText {
            missing_markers, ..
        }
        | Connector::UndpHdrCsv {
            missing_markers, ..
        }
        | Connector::ScaledCsv {
            missing_markers, ..
        }
        | Connector::DatabankCsv {
            missing_markers, ..
        }
        | Connector::OwidGrapherCsv {
            missing_markers, ..
        } => missing_markers,
        _ => &[],
    }
}
