//! What a source declares for refreshing its raw files (`[refresh]` in its catalog file), and the policy
//! that checks every URL on catalog load: https only, a hostname of `[a-z0-9.-]` on the allow-list of
//! `corpus.toml` (`[fetch] allowed_hosts`, `*.` for any subdomain), an extra host only from the explicit
//! setting [`EXTRA_HOSTS_ENV`]. The bake never uses any of it: only `pipeline fetch` goes on the network.

use serde::Deserialize;

/// Extra allow-listed hosts (comma-separated patterns), beside `corpus.toml`'s.
pub const EXTRA_HOSTS_ENV: &str = "CORPUS_FETCH_EXTRA_HOSTS";
/// Test-only: `1` also admits `http://127.0.0.1:PORT/` URLs (a local test server), and nothing else.
pub const LOOPBACK_FOR_TESTS_ENV: &str = "CORPUS_FETCH_LOOPBACK_FOR_TESTS";
/// The largest response body fetched, in bytes, overriding `corpus.toml`'s `[fetch] max_bytes`.
pub const MAX_BYTES_ENV: &str = "CORPUS_FETCH_MAX_BYTES";

/// A source's refresh declaration: the publisher's own files, and the connector that reads them when
/// their layout is not the staged extract's.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Refresh {
    /// What the downloads are, as the connector reads them.
    pub format: RefreshFormat,
    /// The environment variable holding the publisher's credential (sent as `Authorization: Bearer`),
    /// when one is needed; its value is never printed.
    #[serde(default)]
    pub credential_env: Option<String>,
    /// The files to download, each into the source's raw folder. A URL and file holding `{code}` (or
    /// `{code_lower}`) are fetched once per mapped indicator ([`Refresh::expanded_files`]).
    pub files: Vec<RefreshFile>,
    /// The connector that reads the refreshed files, when they are in the publisher's layout and the
    /// source's `[connector]` reads a staged extract of another layout; absent: `[connector]` reads them.
    /// The bake uses it whenever every refreshed file is in the raw folder ([`Refresh::is_present`]).
    #[serde(default)]
    pub connector: Option<crate::sources::Connector>,
}

/// The format of a refreshed file, checked on its first bytes after download.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RefreshFormat {
    /// Comma-separated values.
    Csv,
    /// Tab-separated values.
    Tsv,
    /// Other text (any encoding, e.g. the IMF's UTF-16LE ".xls" text): not empty, not an HTML page.
    Text,
    /// An Excel workbook.
    Xlsx,
    /// JSON.
    Json,
    /// A zip archive, whose declared members ([`RefreshFile::extract`]) are unpacked beside it.
    Zip,
}

impl RefreshFormat {
    /// The format's name as the catalog writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            RefreshFormat::Csv => "csv",
            RefreshFormat::Tsv => "tsv",
            RefreshFormat::Text => "text",
            RefreshFormat::Xlsx => "xlsx",
            RefreshFormat::Json => "json",
            RefreshFormat::Zip => "zip",
        }
    }
}

/// One file to download.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RefreshFile {
    /// The publisher's bulk download or API URL (https, allow-listed host).
    pub url: String,
    /// Where it goes, relative to the source's raw folder (no `..`, not absolute).
    pub file: String,
    /// For a zip (`format = "zip"`): the members to unpack, each placed beside the archive under its own
    /// name; a member named with folders (`gain/gain.csv`, where `trends/gain.csv` shares the file name)
    /// matches the archive entry ending in those folders and file and keeps them beside the archive
    /// name (`publisher/WDI_CSV.zip` with `WDICSV.csv` gives `publisher/WDICSV.csv`); the archive itself
    /// is not kept. Empty for other formats.
    #[serde(default)]
    pub extract: Vec<String>,
}

impl RefreshFile {
    /// The paths this file leaves in the raw folder: its members beside it for an archive, else itself.
    pub fn kept_paths(&self) -> Vec<String> {
        if self.extract.is_empty() {
            return vec![self.file.clone()];
        }
        let dir = match self.file.rsplit_once('/') {
            Some((dir, _)) => format!("{dir}/"),
            None => String::new(),
        };
        self.extract
            .iter()
            .map(|member| format!("{dir}{member}"))
            .collect()
    }
}

/// Settings of `corpus.toml`'s `[fetch]` table.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FetchSettings {
    /// Host patterns a refresh URL may name: `data.worldbank.org`, or `*.worldbank.org` for any
    /// subdomain (and the domain itself).
    pub allowed_hosts: Vec<String>,
    /// The largest response body fetched, in bytes.
    #[serde(default = "default_max_bytes")]
    pub max_bytes: u64,
}

fn default_max_bytes() -> u64 {
    512 * 1024 * 1024
}

/// The hosts, scheme and size a fetch may use: `corpus.toml`'s, and the explicit settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchPolicy {
    /// Host patterns (see [`FetchSettings::allowed_hosts`]).
    pub allowed_hosts: Vec<String>,
    /// Whether `http://127.0.0.1:PORT/` is admitted (tests only, [`LOOPBACK_FOR_TESTS_ENV`]).
    pub loopback_for_tests: bool,
    /// The largest response body fetched, in bytes.
    pub max_bytes: u64,
}

impl FetchPolicy {
    /// The policy of `settings` (none: no host allowed) and of the environment's explicit settings,
    /// after checking every allow-list entry ([`check_pattern`]) and the size setting.
    ///
    /// # Errors
    /// What is wrong, naming the entry or the setting.
    pub fn checked(settings: Option<&FetchSettings>) -> Result<FetchPolicy, String> {
        let policy = FetchPolicy::of(settings);
        for pattern in &policy.allowed_hosts {
            check_pattern(pattern).map_err(|problem| {
                format!("[fetch] allowed_hosts or {EXTRA_HOSTS_ENV}: {problem}")
            })?;
        }
        if let Ok(bytes) = std::env::var(MAX_BYTES_ENV)
            && bytes.parse::<u64>().is_err()
        {
            return Err(format!("{MAX_BYTES_ENV} `{bytes}`: a number of bytes"));
        }
        Ok(policy)
    }

    /// The policy of `settings` (none: no host allowed) and of the environment's explicit settings.
    pub fn of(settings: Option<&FetchSettings>) -> FetchPolicy {
        let mut allowed_hosts: Vec<String> = settings
            .map(|settings| settings.allowed_hosts.clone())
            .unwrap_or_default();
        if let Ok(extra) = std::env::var(EXTRA_HOSTS_ENV) {
            allowed_hosts.extend(
                extra
                    .split(',')
                    .map(str::trim)
                    .filter(|host| !host.is_empty())
                    .map(str::to_string),
            );
        }
        FetchPolicy {
            allowed_hosts,
            loopback_for_tests: std::env::var(LOOPBACK_FOR_TESTS_ENV).as_deref() == Ok("1"),
            max_bytes: std::env::var(MAX_BYTES_ENV)
                .ok()
                .and_then(|bytes| bytes.parse().ok())
                .or(settings.map(|settings| settings.max_bytes))
                .unwrap_or_else(default_max_bytes),
        }
    }

    /// The host of `url` when the policy admits it.
    ///
    /// # Errors
    /// What is wrong, naming the host: not https, a host outside `[a-z0-9.-]`, one off the allow-list.
    pub fn check(&self, url: &str) -> Result<String, String> {
        if self.loopback_for_tests
            && let Some(rest) = url.strip_prefix("http://127.0.0.1:")
        {
            let port = rest.split('/').next().unwrap_or_default();
            if !port.is_empty() && port.bytes().all(|byte| byte.is_ascii_digit()) {
                return Ok(format!("127.0.0.1:{port}"));
            }
        }
        let Some(rest) = url.strip_prefix("https://") else {
            return Err(format!(
                "`{url}` is not https: refresh URLs must be https on an allow-listed host"
            ));
        };
        let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
        if authority.contains('@') {
            return Err(format!(
                "`{url}` carries user information before its host: name the host alone"
            ));
        }
        let (host, port) = match authority.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        };
        if port
            .is_some_and(|port| port.is_empty() || !port.bytes().all(|byte| byte.is_ascii_digit()))
        {
            return Err(format!("`{url}`: the port must be digits"));
        }
        if !is_hostname(host) {
            return Err(format!(
                "host `{host}` of `{url}`: a host is dot-separated labels of lower-case letters, digits and hyphens"
            ));
        }
        if !self
            .allowed_hosts
            .iter()
            .any(|pattern| host_matches(host, pattern))
        {
            let listed = if self.allowed_hosts.is_empty() {
                "it is empty: corpus.toml has no [fetch] allowed_hosts".to_string()
            } else {
                self.allowed_hosts.join(", ")
            };
            return Err(format!(
                "host `{host}` is not on the allow-list ({listed}; add one with {EXTRA_HOSTS_ENV})"
            ));
        }
        Ok(host.to_string())
    }
}

/// Whether `host` is dot-separated, non-empty labels of `[a-z0-9-]`.
fn is_hostname(host: &str) -> bool {
    !host.is_empty()
        && host.split('.').all(|label| {
            !label.is_empty()
                && label
                    .bytes()
                    .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'-')
        })
}

/// Checks an allow-list entry: a hostname, or `*.` and a domain of two labels or more (`*.worldbank.org`,
/// never `*.org` or `*.`).
///
/// # Errors
/// What is wrong with `pattern`.
pub fn check_pattern(pattern: &str) -> Result<(), String> {
    let domain = pattern.strip_prefix("*.").unwrap_or(pattern);
    if !is_hostname(domain) || (pattern.starts_with("*.") && !domain.contains('.')) {
        return Err(format!(
            "allow-list entry `{pattern}`: a hostname (`data.worldbank.org`) or `*.` and a domain of two labels or more (`*.worldbank.org`)"
        ));
    }
    Ok(())
}

/// Whether `host` matches `pattern` (`example.org`, or `*.example.org` for it and any subdomain).
fn host_matches(host: &str, pattern: &str) -> bool {
    match pattern.strip_prefix("*.") {
        Some(domain) => host == domain || host.ends_with(&format!(".{domain}")),
        None => host == pattern,
    }
}

impl Refresh {
    /// Checks every URL against `policy`, every file path and the credential's variable name.
    ///
    /// # Errors
    /// A message naming the field (`refresh.files[N].url`…) and what is wrong.
    pub fn validate(&self, policy: &FetchPolicy) -> Result<(), String> {
        // That a refresh connector reads what the source's `[connector]` reads (observations, or series
        // metadata) is checked with the source, in `SourceEntry::validate`.
        if self.files.is_empty() {
            return Err("refresh.files: declare at least one file to download".into());
        }
        for (index, file) in self.files.iter().enumerate() {
            let per_indicator =
                |text: &str| text.contains("{code}") || text.contains("{code_lower}");
            if per_indicator(&file.url) && !per_indicator(&file.file) {
                return Err(format!(
                    "refresh.files[{index}]: the URL is per indicator (`{{code}}`), so `file` `{}` must hold `{{code}}` or `{{code_lower}}` too",
                    file.file
                ));
            }
            match (self.format, file.extract.is_empty()) {
                (RefreshFormat::Zip, true) => {
                    return Err(format!(
                        "refresh.files[{index}].extract: a zip download names the members to unpack, e.g. `extract = [\"WDICSV.csv\"]`"
                    ));
                }
                (RefreshFormat::Zip, false) => {}
                (format, false) => {
                    return Err(format!(
                        "refresh.files[{index}].extract: only a `zip` download has members; this refresh's format is `{}`",
                        format.as_str()
                    ));
                }
                (_, true) => {}
            }
            for member in &file.extract {
                let escapes = member
                    .split('/')
                    .any(|part| part.is_empty() || part == "." || part == "..");
                if member.is_empty() || member.contains(['\\', '\0']) || escapes {
                    return Err(format!(
                        "refresh.files[{index}].extract `{member}`: a member file name of the archive, or its last folders and file name where the name repeats in other folders (`gain/gain.csv`); no `..`, `.` or empty parts"
                    ));
                }
            }
            if self.files[..index]
                .iter()
                .any(|earlier| earlier.file == file.file)
            {
                return Err(format!(
                    "refresh.files[{index}].file `{}` is named twice: one URL per file",
                    file.file
                ));
            }
            policy
                .check(&file.url)
                .map_err(|problem| format!("refresh.files[{index}].url: {problem}"))?;
            let path = std::path::Path::new(&file.file);
            if file.file.is_empty()
                || file.file.ends_with('/')
                || file.file.contains(['\\', '\0'])
                || path.components().any(|part| part.as_os_str().len() > 255)
                || path.is_absolute()
                || path
                    .components()
                    .any(|part| !matches!(part, std::path::Component::Normal(_)))
            {
                return Err(format!(
                    "refresh.files[{index}].file `{}`: a file path inside the source's raw folder (no `..`, backslash, trailing `/` or name over 255 bytes)",
                    file.file
                ));
            }
        }
        if let Some(name) = &self.credential_env
            && (name.is_empty()
                || !name
                    .bytes()
                    .all(|byte| byte.is_ascii_uppercase() || byte.is_ascii_digit() || byte == b'_'))
        {
            return Err(format!(
                "refresh.credential_env `{name}`: an environment variable name (A-Z, 0-9, _)"
            ));
        }
        Ok(())
    }

    /// Checks a curated source's refresh (`data/curated/*.toml`): its connector, if any, reads records
    /// ([`crate::sources::Connector::reads_records`]), and the rest as [`Refresh::validate`].
    ///
    /// # Errors
    /// A message naming the field and what is wrong.
    pub fn validate_records(&self, policy: &FetchPolicy) -> Result<(), String> {
        if let Some(connector) = &self.connector
            && !connector.reads_records()
        {
            return Err(format!(
                "refresh.connector: `{}` reads observations; a curated source's refresh connector reads records \
                 (cclw_export, ncei_tsv, ncei_hazel_json, wb_projects_api)",
                connector.kind()
            ));
        }
        Refresh {
            connector: None,
            ..self.clone()
        }
        .validate(policy)
    }

    /// The files to download, `{code}` and `{code_lower}` expanded once per code of `codes` (the mapped
    /// indicators' publisher codes) in the URLs and files that hold them; others as declared.
    pub fn expanded_files(&self, codes: &[String]) -> Vec<RefreshFile> {
        let mut files = Vec::new();
        for file in &self.files {
            if !(file.url.contains("{code}") || file.url.contains("{code_lower}")) {
                files.push(file.clone());
                continue;
            }
            for code in codes {
                let expand = |text: &str| {
                    text.replace("{code_lower}", &code.to_lowercase())
                        .replace("{code}", code)
                };
                files.push(RefreshFile {
                    url: expand(&file.url),
                    file: expand(&file.file),
                    extract: file.extract.clone(),
                });
            }
        }
        files
    }

    /// Whether every file a fetch leaves ([`RefreshFile::kept_paths`] of [`Refresh::expanded_files`]) is
    /// in `raw_dir`: the source has been refreshed, and its refresh connector (if any) reads it.
    pub fn is_present(&self, codes: &[String], raw_dir: &std::path::Path) -> bool {
        self.expanded_files(codes)
            .iter()
            .flat_map(RefreshFile::kept_paths)
            .all(|path| raw_dir.join(path).is_file())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> FetchPolicy {
        FetchPolicy {
            allowed_hosts: vec!["*.worldbank.org".into(), "hdr.undp.org".into()],
            loopback_for_tests: false,
            max_bytes: 1024,
        }
    }

    #[test]
    fn only_https_urls_of_allow_listed_hosts_pass() {
        let policy = policy();
        assert_eq!(
            policy.check("https://api.worldbank.org/v2/x").unwrap(),
            "api.worldbank.org"
        );
        assert_eq!(
            policy.check("https://worldbank.org/").unwrap(),
            "worldbank.org"
        );
        assert!(policy.check("https://hdr.undp.org/data.csv").is_ok());
        for (url, says) in [
            ("http://api.worldbank.org/x", "not https"),
            ("https://evilworldbank.org/x", "not on the allow-list"),
            ("https://undp.org/x", "not on the allow-list"),
            ("https://API.worldbank.org/x", "lower-case"),
            ("https://user@api.worldbank.org/x", "user information"),
            ("https://api.worldbank.org_x/x", "lower-case"),
            ("https://.worldbank.org/x", "lower-case"),
            ("https://evil.example.com./x", "lower-case"),
            ("https://data.worldbank.org:abc/x", "port"),
            ("http://127.0.0.1:8080/x", "not https"),
        ] {
            let problem = policy.check(url).unwrap_err();
            assert!(problem.contains(says), "{url}: {problem}");
        }
        let tests = FetchPolicy {
            loopback_for_tests: true,
            ..policy
        };
        assert_eq!(
            tests.check("http://127.0.0.1:8080/x").unwrap(),
            "127.0.0.1:8080"
        );
        assert!(tests.check("http://localhost:8080/x").is_err());
    }

    #[test]
    fn allow_list_entries_are_hosts_or_wildcards_of_real_domains() {
        assert!(check_pattern("*.worldbank.org").is_ok());
        assert!(check_pattern("hdr.undp.org").is_ok());
        for pattern in ["*.", "*.org", "*", "evil..org", "Data.org"] {
            assert!(check_pattern(pattern).is_err(), "{pattern}");
        }
    }

    #[test]
    fn a_refresh_names_files_inside_the_raw_folder_and_a_plain_variable() {
        let refresh = |file: &str, credential: Option<&str>| Refresh {
            format: RefreshFormat::Csv,
            credential_env: credential.map(str::to_string),
            files: vec![RefreshFile {
                url: "https://api.worldbank.org/x".into(),
                file: file.into(),
                extract: Vec::new(),
            }],
            connector: None,
        };
        assert!(
            refresh("indicators/data.csv", Some("WB_TOKEN"))
                .validate(&policy())
                .is_ok()
        );
        assert!(refresh("../escape.csv", None).validate(&policy()).is_err());
        assert!(refresh("/etc/passwd", None).validate(&policy()).is_err());
        assert!(
            refresh("data.csv", Some("token value"))
                .validate(&policy())
                .is_err()
        );
        assert!(refresh("newdir/", None).validate(&policy()).is_err());
        assert!(refresh("..\\evil.csv", None).validate(&policy()).is_err());
        let mut twice = refresh("data.csv", None);
        twice.files.push(twice.files[0].clone());
        assert!(
            twice
                .validate(&policy())
                .unwrap_err()
                .contains("named twice")
        );
    }

    #[test]
    fn per_indicator_urls_expand_once_per_code_and_archives_keep_their_members() {
        let refresh = Refresh {
            format: RefreshFormat::Json,
            credential_env: None,
            files: vec![RefreshFile {
                url: "https://api.worldbank.org/v2/country/all/indicator/{code}?format=json".into(),
                file: "api/{code_lower}.json".into(),
                extract: Vec::new(),
            }],
            connector: None,
        };
        assert!(refresh.validate(&policy()).is_ok());
        let files = refresh.expanded_files(&["EG.ELC.ACCS.RU.ZS".into(), "SI.POV.LMIC".into()]);
        assert_eq!(files.len(), 2);
        assert_eq!(
            files[0].url,
            "https://api.worldbank.org/v2/country/all/indicator/EG.ELC.ACCS.RU.ZS?format=json"
        );
        assert_eq!(files[1].file, "api/si.pov.lmic.json");
        let mut unexpanded = refresh.clone();
        unexpanded.files[0].file = "api/all.json".into();
        assert!(
            unexpanded
                .validate(&policy())
                .unwrap_err()
                .contains("per indicator")
        );

        let zip = RefreshFile {
            url: "https://databank.worldbank.org/data/download/WDI_CSV.zip".into(),
            file: "publisher/WDI_CSV.zip".into(),
            extract: vec!["WDICSV.csv".into(), "WDISeries.csv".into()],
        };
        assert_eq!(
            zip.kept_paths(),
            vec!["publisher/WDICSV.csv", "publisher/WDISeries.csv"]
        );
        let archive = Refresh {
            format: RefreshFormat::Zip,
            files: vec![zip.clone()],
            ..refresh.clone()
        };
        assert!(archive.validate(&policy()).is_ok());
        let mut no_members = archive.clone();
        no_members.files[0].extract.clear();
        assert!(
            no_members
                .validate(&policy())
                .unwrap_err()
                .contains("members")
        );
        let mut escaping = archive.clone();
        escaping.files[0].extract = vec!["../x.csv".into()];
        assert!(escaping.validate(&policy()).is_err());
        escaping.files[0].extract = vec!["gain//gain.csv".into()];
        assert!(escaping.validate(&policy()).is_err());
        let mut nested = archive.clone();
        nested.files[0].extract = vec!["gain/gain.csv".into()];
        assert!(nested.validate(&policy()).is_ok());
        assert_eq!(
            nested.files[0].kept_paths(),
            vec!["publisher/gain/gain.csv"]
        );
        let members_of_csv = Refresh {
            format: RefreshFormat::Csv,
            ..archive
        };
        assert!(
            members_of_csv
                .validate(&policy())
                .unwrap_err()
                .contains("only a `zip`")
        );
    }
}
