//! The server's instructions for the model (`initialize` and `server/discover`), written from the
//! corpus: its version and counts, the flow of calls, the citation contract, the pillars and the tools
//! the model sees ([`super::Plugin::instructions`]).

use super::Plugin;

/// The instructions over `plugin`'s corpus and tool table (the tools that are not app-only, in order).
pub(super) fn text(plugin: &Plugin) -> String {
    let baked = &plugin.corpus().baked;
    let tools: Vec<&str> = plugin
        .tools()
        .iter()
        .filter(|tool| !tool.app_only)
        .map(|tool| tool.name)
        .collect();
    format!(
        "Read-only access to a governed corpus of public data on Latin America and the Caribbean (corpus {version}: \
         {indicators} indicators from {sources} sources; {with_data} of the {countries} LAC countries and territories have data). Flow: (1) call resolve_metric with the metric \
         in words (Spanish, English or Portuguese) to get an indicator id; (2) call get_series for a country-year panel or \
         compare_countries for a pillar across countries; (3) call resolve_citations to turn any stored citation_id into \
         its source and value. Records: find_pilots and get_pilot read World Bank projects, recommend_action chains a \
         country's gaps to projects, financing and institutions, get_news lists dated events (approvals, laws, \
         earthquakes, releases; not press news), and search_corpus then get_dataset find laws (`regulation`), \
         donors' flows (`financing`), public bodies (`institutions`) and events; a record is its own citation \
         (`citations.records`). Citations: every stored number in `result` carries its `citation_id` (wb-sp-dyn-le00-in-mex-2024) or \
         is a [year, value] point of an object with a `series_id` (wb-sp-dyn-le00-in-mex), whose citation_id is `{{series_id}}-{{year}}`. \
         `citations.series[series_id]` gives country and deep link, `citations.indicators[its indicator]` code, title and unit, \
         `citations.sources[its source]` publisher, dataset, licence, vintage, attribution and link_kind (`dataset`: the url is the \
         dataset's page, not a deep link): each appears once per answer. Cite \
         the source and link when you use a number. Derived numbers (changes, regional values, correlations) carry an inline \
         calc-… or pulse-… record naming their input ids. Answers are paged: without `limit` an answer stays within 10 KB \
         (fewer items a page), with `limit` within 40 KB; `next_cursor` or `next_offset` gives the next page, \
         `indicators_total` or `total` what exists. Tables and charts for the person travel outside your \
         context. If the corpus lacks a value, the tools say so (countries under `missing`, `matched: false` from resolve_metric, \
         or an error naming what is valid); never fill in or invent a number. Countries are ISO3 codes or names (\"Brasil\", \
         \"México\"); pillars (parameter) are {pillars}. Add lang: es|en|pt for names in that language (default es). search and fetch, MCP-only, \
         serve ChatGPT's deep research (ids, then documents with every number cited). Tools: {tool_list}.",
        version = baked.manifest().corpus_version,
        indicators = baked.metrics().len(),
        sources = baked.sources().len(),
        countries = baked.countries().countries().count(),
        with_data = countries_with_data(baked),
        pillars = baked
            .pillars()
            .pillars()
            .iter()
            .map(|pillar| pillar.id.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        tool_list = tools.join(", "),
    )
}

/// Countries with at least one observation.
fn countries_with_data(baked: &corpus::BakedCorpus) -> usize {
    baked
        .countries()
        .countries()
        .filter(|country| country.observations > 0)
        .count()
}
