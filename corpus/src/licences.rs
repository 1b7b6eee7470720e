//! Licence ids as the corpus writes them (SPDX ids such as `CC-BY-4.0`, or a publisher's terms such as
//! `IMF-terms`), and the URL of the licence text where the id alone names it.

/// The Creative Commons deed of an SPDX Creative Commons id (`CC-BY-4.0` →
/// `https://creativecommons.org/licenses/by/4.0/`, `CC-BY-3.0-IGO` → `…/by/3.0/igo/`, `CC0-1.0` → the
/// public-domain dedication); `None` for any other id (a publisher's terms: its source gives the URL).
pub fn deed_url(license: &str) -> Option<String> {
    if license == "CC0-1.0" {
        return Some("https://creativecommons.org/publicdomain/zero/1.0/".to_string());
    }
    let rest = license.strip_prefix("CC-")?;
    let parts: Vec<&str> = rest.split('-').collect();
    let at = parts
        .iter()
        .position(|part| part.chars().next().is_some_and(|c| c.is_ascii_digit()))?;
    if at == 0 {
        return None;
    }
    let kind = parts[..at].join("-").to_lowercase();
    let version = parts[at..].join("/").to_lowercase();
    Some(format!(
        "https://creativecommons.org/licenses/{kind}/{version}/"
    ))
}

/// The licence id of a dataset's licence text: `CC-BY-4.0 (per record)` → `CC-BY-4.0` (the words in
/// parentheses say how it applies, not which licence it is).
pub fn licence_id(text: &str) -> &str {
    text.split(" (").next().unwrap_or(text).trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creative_commons_ids_have_their_deeds() {
        assert_eq!(
            deed_url("CC-BY-4.0").as_deref(),
            Some("https://creativecommons.org/licenses/by/4.0/")
        );
        assert_eq!(
            deed_url("CC-BY-3.0-IGO").as_deref(),
            Some("https://creativecommons.org/licenses/by/3.0/igo/")
        );
        assert_eq!(
            deed_url("CC-BY-SA-4.0").as_deref(),
            Some("https://creativecommons.org/licenses/by-sa/4.0/")
        );
        assert!(
            deed_url("CC0-1.0")
                .unwrap()
                .contains("publicdomain/zero/1.0")
        );
        assert_eq!(deed_url("IMF-terms"), None);
        assert_eq!(licence_id("CC-BY-4.0 (per record)"), "CC-BY-4.0");
        assert_eq!(licence_id("US-Gov-PD"), "US-Gov-PD");
    }
}
