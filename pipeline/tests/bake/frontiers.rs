//! A frontier is a plausible target (issue 25, part C), on the real corpus: zeros a definition makes
//! implausible for a run of years are placeholders (`zeros = implausible_run`), the year statistics'
//! leaders and laggards are sovereign countries with no suspect value, and the ambiguous directions
//! carry their `[[directions]]` note.

use corpus::{DropReason, GoodDirection, YearStats, frontier, layout, read_json};
use pipeline::sources::{Catalog, aggregation};

use crate::support::{project_catalog, real, rules};

#[test]
fn a_run_of_zero_road_deaths_is_a_placeholder_and_a_lone_zero_is_kept() {
    let bake = real();
    let table = bake.corpus.observations();
    // WDI publishes 0 road-traffic deaths per 100,000 for Antigua and Barbuda in 2015-2019: five years
    // without one road death is not a measurement.
    for year in 2015..=2019 {
        assert!(
            table.find("sh_sta_traf_p5", "ATG", year).is_none(),
            "ATG {year}: a placeholder zero is an absent row"
        );
    }
    let lone = table
        .find("sh_sta_traf_p5", "ATG", 2005)
        .expect("a lone zero (ATG 2005) is kept");
    assert_eq!(lone.value, 0.0);
    let dropped: Vec<_> = bake
        .summary
        .report
        .dropped
        .iter()
        .filter(|row| {
            row.indicator == "sh_sta_traf_p5" && row.reason == DropReason::PlaceholderZero
        })
        .collect();
    assert_eq!(
        dropped
            .iter()
            .map(|row| (row.country.as_str(), row.year.as_str()))
            .collect::<Vec<_>>(),
        [
            ("ATG", "2015"),
            ("ATG", "2016"),
            ("ATG", "2017"),
            ("ATG", "2018"),
            ("ATG", "2019")
        ]
    );
    assert!(
        dropped
            .iter()
            .all(|row| row.detail.contains("implausible_run")
                && row.detail.contains("5 consecutive zeros (2015-2019)")),
        "{dropped:?}"
    );
}

#[test]
fn leaders_and_laggards_are_sovereign_and_never_suspect() {
    let corpus = &real().corpus;
    let stats: Vec<YearStats> =
        read_json(&corpus.dir().join(layout::YEAR_STATS), "year stats").expect("reads");
    let mut checked = 0;
    for row in &stats {
        for id in row.leaders.iter().chain(&row.laggards) {
            let citation = corpus.resolve_citation(id).expect("resolves");
            let country = corpus
                .countries()
                .get(&citation.country)
                .expect("a country");
            assert!(
                country.sovereign,
                "{id}: a territory is never a leader or laggard"
            );
            let cell = corpus
                .observations()
                .find(&citation.indicator, &citation.country, citation.year)
                .expect("a row");
            assert!(!frontier::is_suspect(cell.flags), "{id} is suspect");
            checked += 1;
        }
    }
    assert!(checked > 10_000, "{checked}");
    // Life expectancy 2024: Puerto Rico (81.9 years) is the highest value but no sovereign country's.
    let life = stats
        .iter()
        .find(|row| row.indicator == "sp_dyn_le00_in" && row.year == 2024)
        .expect("life expectancy 2024 has year statistics");
    assert_eq!(life.leaders[0], "wb-sp-dyn-le00-in-chl-2024");
    assert!(
        corpus
            .observations()
            .find("sp_dyn_le00_in", "PRI", 2024)
            .is_some_and(|cell| cell.value > 81.9)
    );
    // Secondary gross enrolment is ordered as capped at 100: the leaders above 100 tie, in country
    // order, so Costa Rica's 131.9 % (2022) is no better than 101 %.
    let secondary = stats
        .iter()
        .find(|row| row.indicator == "se_sec_enrr" && row.year == 2022)
        .expect("secondary enrolment 2022 has year statistics");
    let leaders: Vec<(String, f64)> = secondary
        .leaders
        .iter()
        .map(|id| {
            let citation = corpus.resolve_citation(id).expect("resolves");
            (citation.country.to_string(), citation.value)
        })
        .collect();
    assert_eq!(leaders.len(), 3);
    assert!(
        leaders.iter().all(|(_, value)| *value >= 100.0),
        "{leaders:?}"
    );
    assert!(
        leaders.windows(2).all(|pair| pair[0].0 < pair[1].0),
        "{leaders:?}"
    );
}

#[test]
fn ambiguous_directions_have_no_leaders_and_say_why() {
    let corpus = &real().corpus;
    let rules = rules(corpus);
    let stats: Vec<YearStats> =
        read_json(&corpus.dir().join(layout::YEAR_STATS), "year stats").expect("reads");
    for (id, words) in [
        ("eg_fec_rnew_zs", "biomass"),
        ("en_bir_thrd_no", "biodiversity"),
        ("en_fsh_thrd_no", "biodiversity"),
        ("en_hpt_thrd_no", "biodiversity"),
        ("en_mam_thrd_no", "biodiversity"),
        ("sh_dth_injr_zs", "denominator"),
    ] {
        let metric = corpus.metric(id).expect("baked");
        assert_eq!(metric.good_direction, GoodDirection::Ambiguous, "{id}");
        let note = rules[id].direction_note.as_deref().unwrap_or_default();
        assert!(note.contains(words), "{id}: {note}");
        let years: Vec<_> = stats.iter().filter(|row| row.indicator == id).collect();
        assert!(
            years
                .iter()
                .all(|row| row.leaders.is_empty() && row.laggards.is_empty()),
            "{id}"
        );
    }
    assert!(rules["sp_dyn_le00_in"].direction_note.is_none());
    // Ease of doing business holds ranks (1 = best): named and ruled as a rank.
    let ease = corpus.metric("ic_bus_ease_xq").expect("baked");
    assert!(
        ease.names.en.contains("rank") && ease.unit.starts_with("rank"),
        "{ease:?}"
    );
    assert!(rules["ic_bus_ease_xq"].reason.contains("ordinal rank"));
}

#[test]
fn an_ambiguous_direction_without_a_note_is_refused() {
    let catalog = Catalog::load(&project_catalog()).expect("the project catalog loads");
    let text = std::fs::read_to_string(project_catalog().join(aggregation::FILE)).unwrap();
    let cut = text
        .rfind("[[directions]]")
        .expect("the file ends with its directions");
    let scratch = tempfile::tempdir().unwrap();
    let path = scratch.path().join(aggregation::FILE);
    std::fs::write(&path, &text[..cut]).unwrap();
    let error = aggregation::load(&path, &catalog).unwrap_err().to_string();
    assert!(
        error.contains("sh_dth_injr_zs") && error.contains("no [[directions]] note"),
        "{error}"
    );
    std::fs::write(
        &path,
        format!(
            "{text}\n[[directions]]\nmetrics = [\"sp_dyn_le00_in\"]\nnote = \"not ambiguous\"\n"
        ),
    )
    .unwrap();
    let error = aggregation::load(&path, &catalog).unwrap_err().to_string();
    assert!(error.contains("sp_dyn_le00_in"), "{error}");
}
