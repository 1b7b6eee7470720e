//! Who may call (MCP's security rules for Streamable HTTP, refining the seed's open CORS): the `Origin`
//! allow-list (a page of another site must not drive a local server: DNS rebinding), the `Host` check when
//! bound to loopback, and the client address the rate limiter charges, taken from forwarding headers only
//! when the request comes through a configured proxy.

use std::net::{IpAddr, SocketAddr};

use axum::http::{HeaderMap, header};

/// Which browser origins may call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OriginPolicy {
    /// Any origin (`*`): a deliberate setting for a public deployment (the seed's open CORS).
    Any,
    /// Pages served from this machine (`http(s)://localhost`, `127.0.0.1`, `[::1]`, any port), plus the
    /// listed origins (`https://app.example.org`), compared exactly after lower-casing.
    Local(Vec<String>),
}

impl OriginPolicy {
    /// The policy of a setting: `*` for any origin, else a comma-separated list of extra origins
    /// (`https://a.example,https://b.example`), empty for local pages only.
    ///
    /// # Errors
    /// A message naming an entry that is not `scheme://host[:port]`.
    pub fn parse(setting: &str) -> Result<OriginPolicy, String> {
        let setting = setting.trim();
        if setting == "*" {
            return Ok(OriginPolicy::Any);
        }
        let mut origins = Vec::new();
        for entry in setting
            .split(',')
            .map(str::trim)
            .filter(|entry| !entry.is_empty())
        {
            let valid = entry.split_once("://").is_some_and(|(scheme, rest)| {
                matches!(scheme, "http" | "https") && !rest.is_empty() && !rest.contains('/')
            });
            if !valid {
                return Err(format!(
                    "allowed origin `{entry}`: give scheme://host[:port] (e.g. https://app.example.org), or * for any"
                ));
            }
            origins.push(entry.to_ascii_lowercase());
        }
        Ok(OriginPolicy::Local(origins))
    }

    /// Whether a request with this `Origin` header may be answered; a request without one (not from a
    /// browser page) always may.
    pub fn allows(&self, origin: Option<&str>) -> bool {
        let Some(origin) = origin else {
            return true;
        };
        match self {
            OriginPolicy::Any => true,
            OriginPolicy::Local(extra) => {
                let origin = origin.trim().to_ascii_lowercase();
                is_local_origin(&origin) || extra.contains(&origin)
            }
        }
    }
}

/// `http(s)://localhost`, `127.0.0.1` or `[::1]`, with any port.
fn is_local_origin(origin: &str) -> bool {
    let Some((scheme, authority)) = origin.split_once("://") else {
        return false;
    };
    matches!(scheme, "http" | "https") && is_local_host(authority)
}

/// Whether a `Host`/authority (`localhost:8080`, `127.0.0.1`, `[::1]:8080`) names this machine.
pub fn is_local_host(authority: &str) -> bool {
    // The common spellings, without parsing an address.
    let bare = authority
        .rsplit_once(':')
        .filter(|(_, port)| port.bytes().all(|byte| byte.is_ascii_digit()))
        .map_or(authority, |(host, _)| host);
    if matches!(bare, "127.0.0.1" | "localhost" | "[::1]") {
        return true;
    }
    let host = if let Some(rest) = authority.strip_prefix('[') {
        // [v6]:port
        rest.split(']').next().unwrap_or_default()
    } else {
        authority
            .rsplit_once(':')
            .map_or(authority, |(host, port)| {
                if port.chars().all(|character| character.is_ascii_digit()) {
                    host
                } else {
                    authority
                }
            })
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<IpAddr>()
            .is_ok_and(|address| address.is_loopback())
}

/// What is wrong with a request's origin or host, if anything: a message for the 403.
pub fn refusal(headers: &HeaderMap, policy: &OriginPolicy, check_host: bool) -> Option<String> {
    let origin = headers
        .get(header::ORIGIN)
        .map(|value| value.to_str().unwrap_or("(not text)"));
    if !policy.allows(origin) {
        return Some(format!(
            "origin `{}` may not call this server; allowed: pages on this machine{}",
            crate::text::snippet(origin.unwrap_or_default()),
            match policy {
                OriginPolicy::Local(extra) if !extra.is_empty() =>
                    format!(" and {}", extra.join(", ")),
                _ => String::new(),
            }
        ));
    }
    if check_host
        && let Some(host) = headers.get(header::HOST)
        && !host.to_str().is_ok_and(is_local_host)
    {
        return Some(format!(
            "host `{}` is not this machine: a server bound to loopback answers only localhost, 127.0.0.1 or [::1]",
            crate::text::snippet(host.to_str().unwrap_or("(not text)"))
        ));
    }
    None
}

/// Whether a POST's `Content-Type` is JSON (`application/json`, parameters allowed).
pub fn is_json(headers: &HeaderMap) -> bool {
    let Some(value) = headers.get(header::CONTENT_TYPE) else {
        return false;
    };
    // What nearly every client sends, compared as it comes.
    value.as_bytes().eq_ignore_ascii_case(b"application/json")
        || value
            .to_str()
            .ok()
            .and_then(|value| value.split(';').next())
            .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
}

/// The prefix length IPv6 clients are told apart by, by default: a /64 is what one host or one customer
/// line is given (RFC 6177), so one host with a /64 counts as one client, not 2^64.
pub const DEFAULT_IPV6_CLIENT_PREFIX: u8 = 64;

/// The network a client address counts as, for the rate limit and the connection caps: an IPv4 address
/// itself; an IPv6 address with all but its first `ipv6_prefix` bits cleared (1 to 128; an IPv4-mapped
/// address counts as its IPv4 address).
pub fn client_network(address: IpAddr, ipv6_prefix: u8) -> IpAddr {
    match address.to_canonical() {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => {
            let bits = u32::from(ipv6_prefix.clamp(1, 128));
            let mask = u128::MAX.checked_shl(128 - bits).unwrap_or(0);
            IpAddr::V6(std::net::Ipv6Addr::from(u128::from(v6) & mask))
        }
    }
}

/// A set of proxy addresses: single addresses or CIDR ranges (`10.0.0.0/8`, `fd00::/8`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<ipnet::IpNet>);

impl TrustedProxies {
    /// The proxies of a comma-separated setting; empty for none.
    ///
    /// # Errors
    /// A message naming an entry that is neither an IP address nor a CIDR range.
    pub fn parse(setting: &str) -> Result<TrustedProxies, String> {
        setting
            .split(',')
            .map(str::trim)
            .filter(|entry| !entry.is_empty())
            .map(|entry| {
                entry
                    .parse::<ipnet::IpNet>()
                    .or_else(|_| entry.parse::<IpAddr>().map(ipnet::IpNet::from))
                    .map_err(|_| {
                        format!("trusted proxy `{entry}`: give an IP address or a CIDR range (10.0.0.0/8)")
                    })
            })
            .collect::<Result<_, _>>()
            .map(TrustedProxies)
    }

    fn contains(&self, address: IpAddr) -> bool {
        self.0.iter().any(|net| net.contains(&address))
    }
}

/// The address the rate limiter charges: the peer, or, when the peer is a trusted proxy, the address it
/// forwarded (`x-real-ip`, else the rightmost `x-forwarded-for` entry, the one the proxy added), parsed
/// as an IP address (an unparsable value falls back to the peer). IPv4-mapped IPv6 is read as IPv4, so one
/// client has one key however it is spelled.
pub fn client_address(
    headers: &HeaderMap,
    peer: Option<SocketAddr>,
    proxies: &TrustedProxies,
) -> Option<IpAddr> {
    let peer = peer.map(|peer| peer.ip().to_canonical());
    // The last entry of the last line: the one the nearest proxy added.
    let forwarded = |name: &str| {
        let lines: Vec<&str> = headers
            .get_all(name)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .collect();
        lines
            .into_iter()
            .rev()
            .flat_map(|line| line.rsplit(','))
            .map(str::trim)
            .find(|entry| !entry.is_empty())
            .and_then(|entry| entry.parse::<IpAddr>().ok())
            .map(|address| address.to_canonical())
    };
    match peer {
        Some(peer) if proxies.contains(peer) => forwarded("x-real-ip")
            .or_else(|| forwarded("x-forwarded-for"))
            .or(Some(peer)),
        // Without a peer (in-process tests), forwarding headers are all there is.
        None if !proxies.0.is_empty() => {
            forwarded("x-real-ip").or_else(|| forwarded("x-forwarded-for"))
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use axum::http::{HeaderMap, HeaderValue};

    use super::{OriginPolicy, TrustedProxies, client_address, client_network, is_local_host};

    #[test]
    fn ipv6_clients_are_their_network_and_ipv4_clients_their_address() {
        let network =
            |text: &str, prefix| client_network(text.parse().unwrap(), prefix).to_string();
        assert_eq!(network("2001:db8:1:2:aaaa::1", 64), "2001:db8:1:2::");
        assert_eq!(
            network("2001:db8:1:2:ffff:ffff:ffff:ffff", 64),
            "2001:db8:1:2::"
        );
        assert_eq!(network("2001:db8:1:2:3:4:5:6", 48), "2001:db8:1::");
        assert_eq!(network("2001:db8:1:2:3:4:5:6", 128), "2001:db8:1:2:3:4:5:6");
        assert_eq!(network("203.0.113.7", 64), "203.0.113.7");
        assert_eq!(network("::ffff:203.0.113.7", 64), "203.0.113.7");
    }

    #[test]
    fn local_hosts_and_origins() {
        for host in [
            "localhost",
            "localhost:8080",
            "127.0.0.1:80",
            "[::1]:8080",
            "[::1]",
            "127.0.0.1",
            "LOCALHOST",
        ] {
            assert!(is_local_host(host), "{host}");
        }
        for host in [
            "evil.example.com",
            "evil.example.com:8080",
            "127.0.0.1.evil.com",
            "10.0.0.1",
            "localhost:8080x",
            "127.0.0.1:80:80",
        ] {
            assert!(!is_local_host(host), "{host}");
        }
        let local = OriginPolicy::parse("").unwrap();
        assert!(local.allows(None));
        assert!(local.allows(Some("http://localhost:6274")));
        assert!(!local.allows(Some("http://evil.example.com")));
        assert!(!local.allows(Some("null")));
        let listed = OriginPolicy::parse("https://app.example.org").unwrap();
        assert!(listed.allows(Some("https://APP.example.org")));
        assert!(!listed.allows(Some("https://app.example.org.evil.com")));
        assert_eq!(OriginPolicy::parse("*").unwrap(), OriginPolicy::Any);
        assert!(
            OriginPolicy::parse("app.example.org")
                .unwrap_err()
                .contains("scheme://host")
        );
    }

    #[test]
    fn forwarding_headers_count_only_from_trusted_proxies() {
        let mut headers = HeaderMap::new();
        headers.insert(
            "x-forwarded-for",
            HeaderValue::from_static("6.6.6.6, 203.0.113.9"),
        );
        let peer = Some("10.1.2.3:5000".parse().unwrap());
        let none = TrustedProxies::default();
        assert_eq!(
            client_address(&headers, peer, &none),
            Some("10.1.2.3".parse().unwrap())
        );
        let proxies = TrustedProxies::parse("10.0.0.0/8, 192.168.1.1").unwrap();
        assert_eq!(
            client_address(&headers, peer, &proxies),
            Some("203.0.113.9".parse().unwrap())
        );
        // A forwarded value that is not an address is not a key: the proxy's own address is.
        headers.insert("x-real-ip", HeaderValue::from_static("not-an-ip"));
        headers.insert("x-forwarded-for", HeaderValue::from_static("also not"));
        assert_eq!(
            client_address(&headers, peer, &proxies),
            Some("10.1.2.3".parse().unwrap())
        );
        // One client, one key, however IPv6 spells it.
        let mapped = Some("[::ffff:198.51.100.7]:443".parse().unwrap());
        assert_eq!(
            client_address(&HeaderMap::new(), mapped, &none),
            Some("198.51.100.7".parse().unwrap())
        );
        assert!(
            TrustedProxies::parse("10.0.0.0/33")
                .unwrap_err()
                .contains("CIDR")
        );
    }
}
