//! Rounding of derived numbers to significant digits, for results and displays alike (never a stored,
//! cited value).

/// `value` rounded to `digits` significant digits: the double nearest that decimal, so the shortest
/// printing of it is the decimal itself. For derived numbers (never a stored, cited value).
pub fn significant(value: f64, digits: i32) -> f64 {
    if value == 0.0 || !value.is_finite() {
        return value;
    }
    let scale = digits - 1 - value.abs().log10().floor() as i32;
    // Powers of ten up to 1e22 are exact doubles, so one multiplication, one rounding and one exact
    // division give the nearest double.
    match scale {
        0..=22 => {
            let power = 10f64.powi(scale);
            (value * power).round() / power
        }
        -22..=-1 => {
            let power = 10f64.powi(-scale);
            (value / power).round() * power
        }
        _ => value,
    }
}
