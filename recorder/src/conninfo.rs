//! PostgreSQL connection strings read the way tokio-postgres reads them (`postgres://` and `postgresql://` URLs,
//! and libpq's `key=value` form), to tell one from a file path and to show one without its credentials.
//!
//! A shown string is rebuilt from what was parsed, never copied around a password: the URL's user name, hosts,
//! database and the values of the options that hold no secret (every tokio-postgres option but `password`) stay;
//! a password in the user info, the value of any other option (decoded name: `pass%77ord` is `password`) and
//! anything after the point where the text stops parsing become `***`.

/// The options tokio-postgres takes whose values are no secret and may be shown.
const SHOWN: [&str; 22] = [
    "user",
    "dbname",
    "options",
    "application_name",
    "sslcert",
    "sslkey",
    "sslmode",
    "sslnegotiation",
    "sslrootcert",
    "host",
    "hostaddr",
    "port",
    "connect_timeout",
    "tcp_user_timeout",
    "keepalives",
    "keepalives_idle",
    "keepalives_interval",
    "keepalives_retries",
    "target_session_attrs",
    "channel_binding",
    "load_balance_hosts",
    "replication",
];

const HIDDEN: &str = "***";

fn url_rest(s: &str) -> Option<(&str, &str)> {
    ["postgresql://", "postgres://"].into_iter().find_map(|p| s.strip_prefix(p).map(|rest| (p, rest)))
}

/// `%XX` sequences decoded (an invalid one is kept as is, as tokio-postgres's decoder does); lossy UTF-8.
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| char::from(c).to_digit(16);
        match (b[i], b.get(i + 1).copied().and_then(hex), b.get(i + 2).copied().and_then(hex)) {
            (b'%', Some(h), Some(l)) => {
                out.push(u8::try_from(h * 16 + l).unwrap_or(b'?'));
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A value shown only for an option that holds no secret.
fn shown_value<'a>(key: &str, value: &'a str) -> &'a str {
    if SHOWN.contains(&key) { value } else { HIDDEN }
}

/// Is `s` a connection string in libpq's `key=value` form, every key one tokio-postgres knows (so `a=b.db` stays a
/// file name)? A URL is told by its scheme alone.
pub(crate) fn is_key_value(s: &str) -> bool {
    let (pairs, whole) = key_values(s);
    whole && !pairs.is_empty() && pairs.iter().all(|(k, _)| *k == "password" || SHOWN.contains(k))
}

/// The `key=value` pairs as tokio-postgres parses them, and whether the whole text parsed.
fn key_values(s: &str) -> (Vec<(&str, String)>, bool) {
    let mut it = s.char_indices().peekable();
    let mut pairs = Vec::new();
    loop {
        while it.next_if(|(_, c)| c.is_whitespace()).is_some() {}
        let Some(&(start, _)) = it.peek() else { return (pairs, true) };
        while it.next_if(|(_, c)| !c.is_whitespace() && *c != '=').is_some() {}
        let end = it.peek().map_or(s.len(), |(i, _)| *i);
        let key = &s[start..end];
        while it.next_if(|(_, c)| c.is_whitespace()).is_some() {}
        if it.next_if(|(_, c)| *c == '=').is_none() {
            return (pairs, false);
        }
        while it.next_if(|(_, c)| c.is_whitespace()).is_some() {}
        let quoted = it.next_if(|(_, c)| *c == '\'').is_some();
        let mut value = String::new();
        let mut closed = !quoted;
        while let Some(&(_, c)) = it.peek() {
            if (quoted && c == '\'') || (!quoted && c.is_whitespace()) {
                break;
            }
            it.next();
            if c == '\\' {
                if let Some((_, escaped)) = it.next() {
                    value.push(escaped);
                }
            } else {
                value.push(c);
            }
        }
        if quoted {
            closed = it.next_if(|(_, c)| *c == '\'').is_some();
        }
        if !closed || (!quoted && value.is_empty()) {
            return (pairs, false);
        }
        pairs.push((key, value));
    }
}

/// `s` with its credentials hidden (see the module docs); any text that is not a connection string is shown as is.
pub(crate) fn redact(s: &str) -> String {
    match url_rest(s) {
        Some((scheme, rest)) => redact_url(scheme, rest),
        None if s.contains('=') => {
            let (pairs, whole) = key_values(s);
            let mut shown: Vec<String> = pairs
                .iter()
                .map(|(k, v)| {
                    let v = shown_value(k, v);
                    if v.is_empty() || v.contains(|c: char| c.is_whitespace() || c == '\'' || c == '\\') {
                        format!("{k}='{}'", v.replace('\\', "\\\\").replace('\'', "\\'"))
                    } else {
                        format!("{k}={v}")
                    }
                })
                .collect();
            if !whole {
                shown.push(HIDDEN.into());
            }
            shown.join(" ")
        }
        None => s.to_string(),
    }
}

/// The URL form: `scheme://[user[:password]@]hosts[/dbname][?key=value[&…]]`, split as tokio-postgres splits it
/// (the user info runs to the first `@` anywhere, so a raw `/` or `?` in a password stays in it).
fn redact_url(scheme: &str, rest: &str) -> String {
    let mut out = String::from(scheme);
    let rest = match rest.split_once('@') {
        Some((info, after)) => {
            let (user, password) = match info.split_once(':') {
                Some((user, _)) => (user, true),
                None => (info, false),
            };
            // A user name that holds what looks like a path or options is the misplaced rest of a URL: hidden.
            out.push_str(if user.contains(['/', '?', '=', '&']) { HIDDEN } else { user });
            if password {
                out.push(':');
                out.push_str(HIDDEN);
            }
            out.push('@');
            after
        }
        None => rest,
    };
    let (hosts, rest) = rest.find(['/', '?']).map_or((rest, ""), |i| rest.split_at(i));
    out.push_str(hosts);
    let (path, query) = match rest.find('?') {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    out.push_str(path);
    let Some(mut query) = query else { return out };
    out.push('?');
    let mut first = true;
    while !query.is_empty() {
        if !first {
            out.push('&');
        }
        first = false;
        let Some((key, after)) = query.split_once('=') else {
            out.push_str(HIDDEN);
            break;
        };
        let (value, after) = after.split_once('&').unwrap_or((after, ""));
        let decoded = percent_decode(key);
        let value = shown_value(&decoded, value);
        out.push_str(if SHOWN.contains(&decoded.as_str()) || decoded == "password" { key } else { HIDDEN });
        out.push('=');
        out.push_str(value);
        query = after;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_forms_tokio_postgres_reads() {
        assert_eq!(redact("postgres://shop:s3cret@db.internal:5432/log"), "postgres://shop:***@db.internal:5432/log");
        assert_eq!(
            redact("postgresql://shop@db/log?sslmode=disable&password=s3cret"),
            "postgresql://shop@db/log?sslmode=disable&password=***"
        );
        assert_eq!(redact("postgres://db/log"), "postgres://db/log");
        assert_eq!(redact("postgres://a:b@c"), "postgres://a:***@c");
        // A raw `/` or `?` in the password, and a parameter name spelt with percent-encoding.
        assert_eq!(redact("postgres://u:a/b?c@h/d"), "postgres://u:***@h/d");
        assert_eq!(redact("postgres://u@h/d?pass%77ord=x%2Fy"), "postgres://u@h/d?pass%77ord=***");
        assert_eq!(redact("postgres://h/d?what=x&port=5"), "postgres://h/d?***=***&port=5");
        assert_eq!(redact("postgres://h/d?nothing"), "postgres://h/d?***");
        assert_eq!(
            redact("host=db user=shop password='s3 cr\\'et' dbname=log"),
            "host=db user=shop password=*** dbname=log"
        );
        assert_eq!(redact("host=db password = s3cret port=5"), "host=db password=*** port=5");
        assert_eq!(redact("host=db password='unterminated"), "host=db ***");
        assert_eq!(redact("/var/lib/log.db"), "/var/lib/log.db");
    }

    #[test]
    fn only_known_options_make_a_key_value_string() {
        assert!(is_key_value("host=db dbname=log password=x"));
        assert!(is_key_value("host = /tmp user='a b'"));
        assert!(!is_key_value("a=b.db"));
        assert!(!is_key_value("log.db"));
        assert!(!is_key_value("host=db password='open"));
        assert!(!is_key_value(""));
    }
}
