//! Calendar dates without a date crate: a day count since 1970-01-01 as a civil (proleptic Gregorian)
//! date, and a date written out in es/en/pt. Shared by the pipeline (today's retrieval date), the
//! citation formats and the catalog page.

use crate::Lang;

/// The civil date `(year, month 1-12, day 1-31)` of `days` since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month as u32, day as u32)
}

/// The civil date (UTC) of `time`; the epoch for a time before it.
pub fn civil_from_time(time: std::time::SystemTime) -> (i64, u32, u32) {
    let seconds = time
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    civil_from_days((seconds / 86_400) as i64)
}

/// The name of `month` (1-12) in `lang` (`diciembre`, `December`, `dezembro`).
///
/// # Panics
/// For a month outside 1-12.
pub fn month_name(month: u32, lang: Lang) -> &'static str {
    const MONTHS: [[&str; 12]; 3] = [
        [
            "enero",
            "febrero",
            "marzo",
            "abril",
            "mayo",
            "junio",
            "julio",
            "agosto",
            "septiembre",
            "octubre",
            "noviembre",
            "diciembre",
        ],
        [
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        ],
        [
            "janeiro",
            "fevereiro",
            "março",
            "abril",
            "maio",
            "junho",
            "julho",
            "agosto",
            "setembro",
            "outubro",
            "novembro",
            "dezembro",
        ],
    ];
    let column = match lang {
        Lang::Es => 0,
        Lang::En => 1,
        Lang::Pt => 2,
    };
    MONTHS[column][month as usize - 1]
}

/// A date written out in `lang`: `4 de diciembre de 2026`, `December 4, 2026`, `4 de dezembro de 2026`.
///
/// # Panics
/// For a month outside 1-12.
pub fn long_date(year: i64, month: u32, day: u32, lang: Lang) -> String {
    let name = month_name(month, lang);
    match lang {
        Lang::En => format!("{name} {day}, {year}"),
        Lang::Es | Lang::Pt => format!("{day} de {name} de {year}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_become_civil_dates_written_in_each_language() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_791), (2026, 12, 4));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(long_date(2026, 12, 4, Lang::En), "December 4, 2026");
        assert_eq!(long_date(2026, 12, 4, Lang::Es), "4 de diciembre de 2026");
        assert_eq!(long_date(2026, 12, 4, Lang::Pt), "4 de dezembro de 2026");
    }
}
