//! Projection marks: the flag a raw row carries when the publisher says its value is an estimate or
//! projection, and the publisher's "Estimates Start After" cell (IMF WEO), read by the connectors that
//! have one (`long_csv_per_indicator` projection notes, `wide_years_csv`).

/// The flag of a value the publisher marks as an estimate or projection rather than an observation.
pub const PROJECTION_FLAG: &str = "projection";

/// The last year of actual data written in an "Estimates Start After" cell, or `None` when the cell
/// does not give one (`0`, blank, not a year in 1900–2100): unknown, so no value is flagged.
pub fn estimates_start_after(cell: &str) -> Option<i32> {
    let year: f64 = cell.trim().parse().ok()?;
    (year.fract() == 0.0 && (1900.0..=2100.0).contains(&year)).then_some(year as i32)
}

#[cfg(test)]
mod tests {
    use super::estimates_start_after;

    #[test]
    fn zero_blank_or_no_year_is_unknown() {
        assert_eq!(estimates_start_after("2023"), Some(2023));
        assert_eq!(estimates_start_after("2018.0"), Some(2018));
        for cell in ["0", "", " ", "n/a", "--", "201", "2018.5"] {
            assert_eq!(estimates_start_after(cell), None, "{cell:?}");
        }
    }
}
