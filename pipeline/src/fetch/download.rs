//! One download of `pipeline fetch`: redirects followed by hand, each to a URL the policy admits, the
//! credential sent to the declared URL's origin only, `Accept-Encoding: identity` (a compressed response is
//! refused), the body capped and checked against its `Content-Length`, hashed as it is written.

use std::{
    io::{Read, Write},
    path::Path,
};

use corpus::manifest::hex;
use sha2::{Digest, Sha256};

use super::MAX_REDIRECTS;
use crate::sources::refresh::FetchPolicy;

/// What one download wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Downloaded {
    /// sha256 of the body, hex.
    pub sha256: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// The response's `Last-Modified` date, `YYYY-MM-DD`, when it sent a valid one.
    pub last_modified: Option<String>,
}

/// Downloads `url` into `target`, following redirects by hand.
///
/// # Errors
/// What went wrong (policy, HTTP status, compression, size, truncation, writing), as a sentence.
pub(super) fn download(
    agent: &ureq::Agent,
    policy: &FetchPolicy,
    url: &str,
    credential: Option<&str>,
    target: &Path,
) -> Result<Downloaded, String> {
    // The credential goes to the declared URL's origin only, never to another a redirect names.
    let origin = origin_of(url);
    let mut url = url.to_string();
    for hop in 0..=MAX_REDIRECTS {
        policy.check(&url)?;
        let mut request = agent.get(&url).header("Accept-Encoding", "identity");
        if let Some(credential) = credential
            && origin_of(&url) == origin
        {
            request = request.header("Authorization", &format!("Bearer {credential}"));
        }
        let mut response = request
            .call()
            .map_err(|error| format!("request failed: {error}"))?;
        let status = response.status();
        if status.is_redirection() {
            let location = match response.headers().get("location") {
                None => return Err(format!("HTTP {status} without a Location")),
                Some(value) => value
                    .to_str()
                    .map_err(|_| format!("HTTP {status} with a Location that is not text"))?,
            };
            if hop == MAX_REDIRECTS {
                return Err(format!("more than {MAX_REDIRECTS} redirects"));
            }
            url = resolve(&url, location);
            continue;
        }
        if !status.is_success() {
            return Err(format!("HTTP {status}"));
        }
        // Every Content-Encoding header, and every coding of each, must be `identity`.
        if let Some(encoding) = response
            .headers()
            .get_all("content-encoding")
            .iter()
            .map(|value| value.to_str().unwrap_or("(not text)"))
            .find(|value| {
                value
                    .split(',')
                    .any(|coding| !coding.trim().eq_ignore_ascii_case("identity"))
            })
        {
            return Err(format!(
                "the response is compressed (Content-Encoding: {encoding}), which was not asked for"
            ));
        }
        let declared: Option<u64> = response
            .headers()
            .get("content-length")
            .and_then(|value| value.to_str().ok()?.parse().ok());
        if declared.is_some_and(|declared| declared > policy.max_bytes) {
            return Err(format!(
                "the body is {} bytes, above the {} allowed",
                declared.unwrap_or_default(),
                policy.max_bytes
            ));
        }
        let last_modified = response
            .headers()
            .get("last-modified")
            .and_then(|value| value.to_str().ok())
            .and_then(http_date_to_iso);
        let (sha256, bytes) = save(
            response
                .body_mut()
                .with_config()
                .limit(policy.max_bytes)
                .reader(),
            declared,
            policy.max_bytes,
            target,
        )?;
        return Ok(Downloaded {
            sha256,
            bytes,
            last_modified,
        });
    }
    Err(format!("more than {MAX_REDIRECTS} redirects"))
}

/// Writes `body` into `target`, hashing it; refuses a body past `max_bytes` or shorter than `declared`.
fn save(
    mut body: impl Read,
    declared: Option<u64>,
    max_bytes: u64,
    target: &Path,
) -> Result<(String, u64), String> {
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|error| format!("{}: {error}", parent.display()))?;
    }
    let mut file =
        std::fs::File::create(target).map_err(|error| format!("{}: {error}", target.display()))?;
    let mut hasher = Sha256::new();
    let mut bytes = 0u64;
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let read = body.read(&mut buffer).map_err(|error| {
            if error.to_string().contains("limit") {
                format!("the body is above the {max_bytes} bytes allowed")
            } else {
                format!("the body broke off after {bytes} bytes: {error}")
            }
        })?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
        file.write_all(&buffer[..read])
            .map_err(|error| format!("{}: {error}", target.display()))?;
        bytes += read as u64;
    }
    if declared.is_some_and(|declared| declared != bytes) {
        return Err(format!(
            "the body broke off: {bytes} of the {} bytes announced",
            declared.unwrap_or_default()
        ));
    }
    file.sync_all()
        .map_err(|error| format!("{}: {error}", target.display()))?;
    Ok((hex(&hasher.finalize()), bytes))
}

/// `scheme://authority` of `url`.
pub(super) fn origin_of(url: &str) -> &str {
    let scheme_end = url.find("://").map_or(0, |at| at + 3);
    let end = url[scheme_end..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |at| scheme_end + at);
    &url[..end]
}

/// `location` against `base`: absolute (`https://…`), protocol-relative (`//host/…`), an absolute path
/// (`/…`) or a relative one on the same origin.
fn resolve(base: &str, location: &str) -> String {
    let lower = location.get(..8).unwrap_or(location).to_ascii_lowercase();
    if lower.starts_with("https://") || lower.starts_with("http://") {
        return location.to_string();
    }
    let origin = origin_of(base);
    if let Some(rest) = location.strip_prefix("//") {
        let scheme = base.split("://").next().unwrap_or("https");
        return format!("{scheme}://{rest}");
    }
    if location.starts_with('/') {
        return format!("{origin}{location}");
    }
    let path = &base[origin.len()..];
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let directory = path.rfind('/').map_or("/", |at| &path[..=at]);
    format!("{origin}{directory}{location}")
}

/// An HTTP-date (`Wed, 21 Oct 2015 07:28:00 GMT`, RFC 9110's preferred form) as `YYYY-MM-DD`; `None` for
/// anything else.
pub(super) fn http_date_to_iso(value: &str) -> Option<String> {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let mut parts = value.split_whitespace();
    let _weekday = parts.next()?.strip_suffix(',')?;
    let day: u32 = parts.next()?.parse().ok()?;
    let month_name = parts.next()?;
    let month = MONTHS.iter().position(|name| *name == month_name)? + 1;
    let year: u32 = parts.next()?.parse().ok()?;
    ((1..=31).contains(&day) && (1000..=9999).contains(&year))
        .then(|| format!("{year:04}-{month:02}-{day:02}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirects_resolve_against_the_url_they_came_from() {
        assert_eq!(
            resolve("https://a.org/x/y.csv", "https://b.org/z"),
            "https://b.org/z"
        );
        assert_eq!(
            resolve("https://a.org/x/y.csv", "/v2/z.csv"),
            "https://a.org/v2/z.csv"
        );
        assert_eq!(
            resolve("https://a.org/x/y.csv", "z.csv"),
            "https://a.org/x/z.csv"
        );
        assert_eq!(resolve("https://a.org", "/z"), "https://a.org/z");
        assert_eq!(
            resolve("https://a.org/x", "/final?next=https://b.org"),
            "https://a.org/final?next=https://b.org"
        );
        assert_eq!(resolve("https://a.org/x", "//b.org/y"), "https://b.org/y");
        assert_eq!(origin_of("https://a.org:8443/x?y"), "https://a.org:8443");
    }

    #[test]
    fn last_modified_dates_read_in_iso_form() {
        assert_eq!(
            http_date_to_iso("Tue, 15 Apr 2025 13:02:11 GMT").as_deref(),
            Some("2025-04-15")
        );
        assert_eq!(http_date_to_iso("2025-04-15"), None);
        assert_eq!(http_date_to_iso("Tue, 15 Foo 2025 13:02:11 GMT"), None);
    }
}
