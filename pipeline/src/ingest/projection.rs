//! Projection marks: the flag a raw row carries when the publisher says its value is an estimate or
//! projection, and the publisher's "Estimates Start After" cell (IMF WEO), read by the connectors that
//! have one (`long_csv_per_indicator` projection notes, `wide_years_csv`).
//!
//! The connectors flag every year after "Estimates Start After" [`PROJECTION_FLAG`]; for a source whose
//! catalog entry declares its `release_year`, [`split_by_release`] then tells estimates from projections:
//! a year after "Estimates Start After" but before the release year was over when the IMF published it
//! (an estimate, [`ESTIMATE_FLAG`], kept as observed), a year from the release year on was not (a
//! projection). A value of a year from the release year on that the publisher did not mark (its
//! "Estimates Start After" is `0` or blank) is a projection made at the vintage
//! ([`VINTAGE_PROJECTION_FLAG`] beside [`PROJECTION_FLAG`]): WEO April 2019's Haiti 2019–2024.

pub use corpus::{ESTIMATE_FLAG, PROJECTION_FLAG, VINTAGE_PROJECTION_FLAG};

use std::collections::HashSet;

use super::{RawFile, RawRow};

/// Splits the connector's projection marks of one source released in `release_year` (the catalog's
/// `release_year`), over all its raw files:
/// - a row flagged [`PROJECTION_FLAG`] whose year is before `release_year` becomes an [`ESTIMATE_FLAG`];
/// - in a series (indicator and country) of which the connector flagged no row, because the publisher
///   gives no "Estimates Start After" (`0` or blank), a row whose year is `release_year` or later becomes
///   a projection of the vintage (`projection|vintage_projection`). A series with a known "Estimates
///   Start After" keeps its unflagged rows as actual data, even of the release year (WEO April 2019's
///   Barbados fiscal series: latest actual data 2018/19, written 2019).
///
/// Rows whose year cell is not an integer are left as read (governance refuses them).
pub fn split_by_release(files: &mut [RawFile], release_year: i32) {
    let year = |row: &RawRow| row.year.trim().parse::<i32>().ok();
    let marked: HashSet<(usize, String)> = files
        .iter()
        .flat_map(|file| &file.rows)
        .filter(|row| corpus::is_projection(&row.flags))
        .map(|row| (row.mapping_idx, row.country.to_ascii_uppercase()))
        .collect();
    for row in files.iter_mut().flat_map(|file| file.rows.iter_mut()) {
        let Some(year) = year(row) else {
            continue;
        };
        if corpus::is_projection(&row.flags) {
            if year < release_year {
                row.flags = row
                    .flags
                    .split('|')
                    .map(|flag| {
                        if flag == PROJECTION_FLAG {
                            ESTIMATE_FLAG
                        } else {
                            flag
                        }
                    })
                    .collect::<Vec<_>>()
                    .join("|");
            }
        } else if year >= release_year
            && !marked.contains(&(row.mapping_idx, row.country.to_ascii_uppercase()))
        {
            for flag in [PROJECTION_FLAG, VINTAGE_PROJECTION_FLAG] {
                if !row.flags.is_empty() {
                    row.flags.push('|');
                }
                row.flags.push_str(flag);
            }
        }
    }
}

/// The last year of actual data written in an "Estimates Start After" cell, or `None` when the cell
/// does not give one (`0`, blank, not a year in 1900–2100): unknown, so no value is flagged.
pub fn estimates_start_after(cell: &str) -> Option<i32> {
    let year: f64 = cell.trim().parse().ok()?;
    (year.fract() == 0.0 && (1900.0..=2100.0).contains(&year)).then_some(year as i32)
}

#[cfg(test)]
mod tests {
    use super::{RawFile, RawRow, estimates_start_after, split_by_release};

    #[test]
    fn past_years_after_estimates_start_after_are_estimates() {
        // WEO April 2025, Venezuela (series 0): "Estimates Start After" 2018, so 2019-2024 are estimates,
        // 2025 on projections. Haiti (series 1) without "Estimates Start After": 2025 on is projected
        // at the vintage. Barbados (series 2): actual data through 2025, projections after.
        let row = |series: usize, country: &str, year: &str, flags: &str| RawRow {
            flags: flags.into(),
            ..RawRow::new(series, 2, country.into(), year.into(), "1".into())
        };
        let mut files = vec![RawFile {
            file: "weo.csv".into(),
            rows: vec![
                row(0, "VEN", "2018", ""),
                row(0, "VEN", "2019", "projection"),
                row(0, "VEN", "2024", "projection"),
                row(0, "VEN", "2025", "projection"),
                row(0, "VEN", "n/a", ""),
                row(1, "HTI", "2024", ""),
                row(1, "HTI", "2025", ""),
                row(2, "BRB", "2025", ""),
                row(2, "BRB", "2026", "projection"),
            ],
        }];
        split_by_release(&mut files, 2025);
        let flags: Vec<&str> = files[0].rows.iter().map(|row| row.flags.as_str()).collect();
        assert_eq!(
            flags,
            [
                "",
                "estimate",
                "estimate",
                "projection",
                "",
                "",
                "projection|vintage_projection",
                "",
                "projection"
            ]
        );
    }

    #[test]
    fn zero_blank_or_no_year_is_unknown() {
        assert_eq!(estimates_start_after("2023"), Some(2023));
        assert_eq!(estimates_start_after("2018.0"), Some(2018));
        for cell in ["0", "", " ", "n/a", "--", "201", "2018.5"] {
            assert_eq!(estimates_start_after(cell), None, "{cell:?}");
        }
    }
}
