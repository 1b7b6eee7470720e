//! The governance rules of issue 10 on the real corpus: placeholder zeros, fractions stored as percents,
//! text of the values' release, names in three languages, citation links by kind, good directions,
//! modelled estimates and pillar coverage, each with its count in the bake report.

use std::collections::{BTreeMap, BTreeSet};

use corpus::{DropReason, GoodDirection, LinkKind, Observation};
use pipeline::{
    govern::{placeholder, scale, text::MODELLED_FLAG},
    sources::{Catalog, metric_map::ZeroRule},
};

use crate::support::{fixture, project_catalog, real, run_pipeline};

/// The sources whose catalog files and mappings this rule set reviewed (the others are issue 10's new
/// sources, named by their own tests).
const REVIEWED_SOURCES: [&str; 15] = [
    "cepal_femicide",
    "nd_gain",
    "oecd_crs_all",
    "oecd_crs_climate",
    "oecd_crs_climate_sector",
    "owid_fariss",
    "owid_ihme",
    "owid_sedlac",
    "owid_ucdp",
    "undp_hdi",
    "undp_hdr2025",
    "wbl",
    "wdi",
    "wgi",
    "wpb",
];

fn catalog() -> Catalog {
    Catalog::load(&project_catalog()).expect("the project catalog loads")
}

fn series<'a>(indicator: &str, country: &str) -> Vec<Observation<'a>> {
    let table = real().corpus.observations();
    table
        .series(indicator, country)
        .map(|row_idx| table.row(row_idx))
        .collect()
}

fn has_flag(observation: &Observation<'_>, flag: &str) -> bool {
    observation.flags.split('|').any(|present| present == flag)
}

#[test]
fn governance_drops_the_named_placeholder_zeros_and_reports_each() {
    let bake = real();
    let table = bake.corpus.observations();
    for indicator in [
        "nv_ind_totl_zs",
        "nv_agr_totl_zs",
        "ne_exp_gnfs_zs",
        "ne_imp_gnfs_zs",
        "ne_gdi_totl_zs",
    ] {
        for year in 1991..=2011 {
            assert!(
                table.find(indicator, "VEN", year).is_none(),
                "{indicator} VEN {year}: a placeholder zero is an absent row"
            );
        }
    }
    let industry_1990 = table.find("nv_ind_totl_zs", "VEN", 1990).unwrap();
    assert!(
        (industry_1990.value - 57.747).abs() < 0.01,
        "{industry_1990:?}"
    );
    assert!((1960..=1978).all(|year| table.find("nv_ind_totl_zs", "BRA", year).is_none()));
    assert!((1960..=1980).all(|year| table.find("nv_agr_totl_zs", "BRA", year).is_none()));

    let report = &bake.summary.report;
    let placeholders: Vec<_> = report
        .dropped
        .iter()
        .filter(|row| row.reason == DropReason::PlaceholderZero)
        .collect();
    let venezuela = placeholders
        .iter()
        .filter(|row| row.country == "VEN" && row.indicator.starts_with('n'))
        .count();
    assert_eq!(
        venezuela, 105,
        "VEN across nv_ind, nv_agr, ne_exp, ne_imp, ne_gdi"
    );
    let education: Vec<_> = placeholders
        .iter()
        .filter(|row| {
            row.indicator == "se_xpd_totl_gb_zs"
                && bake
                    .corpus
                    .countries()
                    .get(&row.country)
                    .is_some_and(|entity| entity.kind == corpus::EntityKind::Country)
        })
        .collect();
    let countries: BTreeSet<&str> = education.iter().map(|row| row.country.as_str()).collect();
    assert_eq!(
        (education.len(), countries.len()),
        (98, 23),
        "{countries:?}"
    );
    assert!(
        placeholders
            .iter()
            .all(|row| row.value.parse::<f64>() == Ok(0.0) && row.detail.contains("placeholder"))
    );
    assert_eq!(
        report
            .dropped_by_reason
            .get(&DropReason::PlaceholderZero)
            .copied(),
        Some(placeholders.len() as u64)
    );
    assert!(
        report
            .summary()
            .contains(&format!("placeholder_zero: {}", placeholders.len()))
    );
}

#[test]
fn governance_leaves_no_placeholder_zero_in_share_indicators() {
    let bake = real();
    let catalog = catalog();
    let table = bake.corpus.observations();
    let rows: BTreeMap<String, &pipeline::sources::MetricMappingRow> = catalog
        .mappings
        .values()
        .flat_map(|mapping| &mapping.rows)
        .map(|row| (corpus::Metric::id_for_code(&row.source_code), row))
        .collect();
    let mut offending = Vec::new();
    for metric in bake.corpus.metrics() {
        let row = rows[&metric.id];
        if row.zeros == Some(ZeroRule::Measured) {
            continue;
        }
        let declared = row.zeros == Some(ZeroRule::Placeholder);
        if !declared && !placeholder::is_percent(&metric.unit) {
            continue;
        }
        let indicator_rows = table.indicator_rows(&metric.id);
        let observations: Vec<Observation<'_>> =
            indicator_rows.map(|row_idx| table.row(row_idx)).collect();
        for country_rows in observations.chunk_by(|left, right| left.country == right.country) {
            for (position, observation) in country_rows.iter().enumerate() {
                if observation.value != 0.0 {
                    continue;
                }
                if declared {
                    offending.push(observation.citation_id.to_string());
                    continue;
                }
                let before = country_rows[..position]
                    .iter()
                    .rev()
                    .find(|other| other.value != 0.0);
                let after = country_rows[position..]
                    .iter()
                    .find(|other| other.value != 0.0);
                let neighbours: Vec<f64> = before
                    .into_iter()
                    .chain(after)
                    .map(|other| other.value)
                    .collect();
                if !neighbours.is_empty()
                    && neighbours
                        .iter()
                        .all(|value| value.abs() >= placeholder::NEIGHBOUR_FLOOR)
                {
                    offending.push(observation.citation_id.to_string());
                }
            }
        }
    }
    assert!(
        offending.is_empty(),
        "placeholder zeros left: {offending:?}"
    );
    let parliament = table.find("sg_gen_parl_zs", "KNA", 2005).unwrap();
    assert_eq!(
        parliament.value, 0.0,
        "no woman in a 15-seat assembly is a measured zero (zeros = measured)"
    );
    assert!(
        table
            .find("it_cel_sets_p2", "BRA", 1980)
            .is_some_and(|row| row.value == 0.0),
        "a series that grows from zero keeps its leading zeros"
    );
}

#[test]
fn governance_flags_the_probable_fraction_in_mexicos_poverty_gap() {
    let bake = real();
    let mexico = series("si_pov_nagp", "MEX");
    assert_eq!(
        mexico.iter().map(|row| row.year).collect::<Vec<_>>(),
        vec![2010, 2012, 2014]
    );
    for observation in &mexico {
        assert!(has_flag(observation, scale::FLAG), "{observation:?}");
        assert!(
            observation.value < 1.0,
            "the publisher's value is kept as published"
        );
    }
    for country in ["PER", "COL", "URY", "HND"] {
        assert!(
            series("si_pov_nagp", country)
                .iter()
                .all(|row| !has_flag(row, scale::FLAG)),
            "{country}"
        );
    }
    let flagged: u64 = bake
        .corpus
        .observations()
        .rows()
        .filter(|row| has_flag(row, scale::FLAG))
        .count() as u64;
    let report = &bake.summary.report;
    assert_eq!(report.flagged.get(scale::FLAG).copied(), Some(flagged));
    assert!((3..20).contains(&flagged), "{flagged} suspect values");
    assert!(
        series("ag_lnd_frst_zs", "CUW")
            .iter()
            .all(|row| !has_flag(row, scale::FLAG)),
        "a small island's forest share is declared plausible (small_values = plausible)"
    );
    assert!(report.summary().contains("suspect_scale"));
}

#[test]
fn governance_shows_the_definition_that_ships_with_the_values() {
    let bake = real();
    let poverty = bake.corpus.metric("si_pov_dday").unwrap();
    assert!(
        poverty.source_title.contains("$3.00"),
        "{}",
        poverty.source_title
    );
    assert!(
        !poverty.description.contains("1.90") && !poverty.description.contains("2011 PPP"),
        "{}",
        poverty.description
    );
    let methodology = poverty.methodology.as_deref().unwrap();
    assert!(
        methodology.contains("older definition") && !methodology.contains("$1.90 a day"),
        "{methodology}"
    );
    let stale: BTreeMap<&str, &corpus::report::StaleText> = bake
        .summary
        .report
        .stale_texts
        .iter()
        .map(|stale| (stale.indicator.as_str(), stale))
        .collect();
    let entry = stale["si_pov_dday"];
    assert_eq!(entry.metadata_vintage, "2022");
    assert!(
        entry
            .differences
            .iter()
            .any(|difference| difference.contains("$1.90") && difference.contains("$3.00")),
        "{entry:?}"
    );
    assert!(
        stale.contains_key("tt_pri_mrch_xd_wd"),
        "base year 2000 → 2015"
    );
    assert!(!stale.contains_key("sp_dyn_le00_in"));
    let life = bake.corpus.metric("sp_dyn_le00_in").unwrap();
    assert!(
        life.methodology
            .as_deref()
            .is_some_and(|note| note.contains("From the 2022 series metadata")),
        "a matching older note is kept and says which release it is from"
    );
    assert!(bake.summary.report.summary().contains(&format!(
        "older series metadata withheld (definition differs from the values' release): {}",
        stale.len()
    )));
}

#[test]
fn governance_names_every_reviewed_indicator_in_es_en_pt() {
    let catalog = catalog();
    let mut missing = Vec::new();
    let mut with_units = Vec::new();
    for source in REVIEWED_SOURCES {
        let mapping = catalog
            .mappings
            .get(source)
            .unwrap_or_else(|| panic!("{source} has a mapping"));
        for row in &mapping.rows {
            for (lang, name) in [
                ("en", &row.name_en),
                ("es", &row.name_es),
                ("pt", &row.name_pt),
            ] {
                match name.as_deref().map(str::trim) {
                    None | Some("") => missing.push(format!("{} {lang}", row.source_code)),
                    Some(name) => {
                        let unit_like = [
                            "(%", "US$", "(per ", "(current", "(kg", "(days)", "(number)",
                        ];
                        if name.contains(&row.source_code)
                            || unit_like.iter().any(|unit| name.contains(unit))
                        {
                            with_units.push(format!("{} {lang}: {name}", row.source_code));
                        }
                    }
                }
            }
        }
    }
    assert!(missing.is_empty(), "names missing: {missing:?}");
    assert!(
        with_units.is_empty(),
        "codes or units in names: {with_units:?}"
    );
    let corpus = &real().corpus;
    let unnamed: Vec<&str> = corpus
        .metrics()
        .iter()
        .filter(|metric| REVIEWED_SOURCES.contains(&metric.source_id.as_str()))
        .filter(|metric| metric.names.es.is_none() || metric.names.pt.is_none())
        .map(|metric| metric.id.as_str())
        .collect();
    assert!(unnamed.is_empty(), "{unnamed:?}");
}

#[test]
fn governance_counts_citation_links_by_kind() {
    let bake = real();
    let kind_of = |id: &str| bake.corpus.source(id).unwrap().deep_link_kind;
    assert_eq!(kind_of("wdi"), LinkKind::IndicatorCountry);
    assert_eq!(kind_of("undp_hdi"), LinkKind::Country);
    assert_eq!(kind_of("undp_hdr2025"), LinkKind::Country);
    assert_eq!(kind_of("cepal_femicide"), LinkKind::Indicator);
    for generic in [
        "nd_gain",
        "oecd_crs_all",
        "oecd_crs_climate",
        "wbl",
        "owid_ucdp",
        "owid_sedlac",
        "owid_fariss",
    ] {
        assert_eq!(kind_of(generic), LinkKind::Dataset, "{generic}");
    }
    for source in bake.corpus.sources() {
        assert!(
            source.deep_link_kind == LinkKind::Dataset
                || source.deep_link_kind == LinkKind::Indicator
                || LinkKind::of_pattern(&source.deep_link) == source.deep_link_kind,
            "{}: a deep link kind its pattern cannot open",
            source.id
        );
    }
    let report = &bake.summary.report;
    let linked: u64 = report.links_by_kind.values().sum();
    assert_eq!(
        linked, report.observations,
        "every country observation's link is counted"
    );
    let by_source: u64 = bake
        .corpus
        .sources()
        .iter()
        .filter(|source| source.deep_link_kind == LinkKind::Dataset)
        .map(|source| report.sources[&source.id].observations)
        .sum();
    assert_eq!(
        report.links_by_kind.get("dataset").copied(),
        Some(by_source)
    );
    assert!(
        by_source > 30_000,
        "{by_source} observations cite a dataset page"
    );
    assert!(report.summary().contains("citation links by kind"));

    let output = run_pipeline(&["sources"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains("raw rows by citation link kind"),
        "{stdout}"
    );
    let wdi = stdout
        .lines()
        .find(|line| line.starts_with("wdi "))
        .unwrap();
    assert!(
        wdi.contains("indicator_country") && wdi.contains("placeholder zeros"),
        "{wdi}"
    );
}

#[test]
fn governance_rejects_a_link_kind_its_pattern_cannot_open() {
    let (fixture_catalog, _) = fixture();
    let copy = tempfile::tempdir().unwrap();
    for sub in ["", "sources", "metrics"] {
        std::fs::create_dir_all(copy.path().join(sub)).unwrap();
        for entry in std::fs::read_dir(fixture_catalog.join(sub)).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                std::fs::copy(&path, copy.path().join(sub).join(path.file_name().unwrap()))
                    .unwrap();
            }
        }
    }
    let wdi = copy.path().join("sources/wdi.toml");
    let text = std::fs::read_to_string(&wdi).unwrap();
    std::fs::write(
        &wdi,
        text.replacen(
            "deep_link = \"https://data.worldbank.org/indicator/{code}?locations={iso2}\"",
            "deep_link = \"https://data.worldbank.org/\"\ndeep_link_kind = \"indicator_country\"",
            1,
        ),
    )
    .unwrap();
    let error = Catalog::load(copy.path()).unwrap_err().to_string();
    assert!(
        error.contains("wdi.toml") && error.contains("deep_link_kind `indicator_country`"),
        "{error}"
    );
}

#[test]
fn governance_reviews_directions_and_flags_modelled_estimates() {
    let corpus = &real().corpus;
    let direction = |id: &str| corpus.metric(id).unwrap().good_direction;
    assert_eq!(direction("sh_sta_diab_zs"), GoodDirection::Down);
    assert_eq!(direction("sh_sgr_proc_p5"), GoodDirection::Up);
    assert_eq!(direction("eg_egy_prim_pp_kd"), GoodDirection::Down);
    assert_eq!(direction("sp_dyn_le00_in"), GoodDirection::Up);

    let youth = series("sl_uem_1524_fe_zs", "MEX");
    let latest = youth.last().unwrap();
    assert!(latest.year >= 2024, "{latest:?}");
    assert!(
        youth.iter().all(|row| has_flag(row, MODELLED_FLAG)),
        "ILO modelled estimates are flagged in every year"
    );
    assert!(
        series("sp_dyn_le00_in", "MEX")
            .iter()
            .all(|row| !has_flag(row, MODELLED_FLAG))
    );
    let report = &real().summary.report;
    let modelled = report.flagged.get(MODELLED_FLAG).copied().unwrap_or(0);
    assert!(modelled > 20_000, "{modelled}");
}

#[test]
fn governance_fills_every_pillar_with_five_recent_indicators() {
    let corpus = &real().corpus;
    let table = corpus.observations();
    let mut recent: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for row in table.rows() {
        if row.year >= 2018 && !corpus::is_projection(row.flags) {
            recent.entry(row.indicator).or_default().insert(row.country);
        }
    }
    let mut thin = Vec::new();
    for pillar in corpus.pillars().pillars() {
        let covered: Vec<&str> = corpus
            .metrics()
            .iter()
            .filter(|metric| metric.pillar == pillar.id)
            .filter(|metric| {
                recent
                    .get(metric.id.as_str())
                    .is_some_and(|set| set.len() >= 20)
            })
            .map(|metric| metric.id.as_str())
            .collect();
        if covered.len() < 5 {
            thin.push(format!("{}: {covered:?}", pillar.id));
        }
    }
    assert!(
        thin.is_empty(),
        "pillars with fewer than 5 indicators covering 20 countries since 2018: {thin:?}"
    );
    assert!(
        corpus.metric("ms_mil_xpnd_gd_zs").is_none(),
        "the licence gate still holds: SIPRI series stay out"
    );
}

#[test]
fn a_source_read_in_batches_of_indicators_is_reported_once_with_every_batch_counted() {
    // WDI has a file per indicator, so the bake reads and governs it 32 indicators at a time.
    let bake = real();
    let report = &bake.summary.report;
    let wdi = &report.sources["wdi"];
    let metrics = bake
        .corpus
        .metrics()
        .iter()
        .filter(|metric| metric.source_id == "wdi")
        .count();
    assert!(metrics > 300, "{metrics} WDI indicators: several batches");
    assert_eq!(wdi.indicators as usize, metrics);
    let rows = bake
        .corpus
        .observations()
        .rows()
        .filter(|row| row.source == "wdi")
        .count();
    assert_eq!(wdi.observations as usize, rows);
    let dropped = report
        .dropped
        .iter()
        .filter(|row| row.source == "wdi")
        .count();
    assert_eq!(wdi.dropped as usize, dropped);
    assert_eq!(
        wdi.rows_read,
        wdi.observations + wdi.aggregate_observations + wdi.dropped + wdi.excluded
    );
    let records = bake
        .corpus
        .sources()
        .iter()
        .filter(|source| source.id == "wdi");
    assert_eq!(records.count(), 1);
    // A known WDI value survives the batching: Uruguay's Gini index in 2024 (raw extract: 40.0).
    let gini = bake
        .corpus
        .observations()
        .rows()
        .find(|row| row.indicator == "si_pov_gini" && row.country == "URY" && row.year == 2024)
        .expect("Uruguay's 2024 Gini index");
    assert_eq!(gini.value, 40.0);
}
