//! Reading a bearer token from a request's headers: the one step the static-token
//! guard, the OAuth resource server and the MCP server's per-request identity
//! share. A leaf, so none of those three has to name another for it.
//!
//! The token is read from the header once per request: the endpoint's guard
//! reads it and leaves it in the request's extensions as a [`Bearer`], where the
//! cancellation bookkeeping and the MCP server's [`Caller`](super::Caller) find it.

use std::sync::Arc;

/// The bearer token of a request that an endpoint's guard let through, kept in
/// the request's extensions.
#[derive(Clone, Debug)]
pub(super) struct Bearer(pub(super) Arc<str>);

/// The request's bearer token: the one its guard kept, or else read from its
/// headers (a server mounted without toolkit's guard).
pub(super) fn request_bearer(parts: &::http::request::Parts) -> Option<&str> {
    match parts.extensions.get::<Bearer>() {
        Some(Bearer(token)) => Some(token),
        None => bearer_token(&parts.headers),
    }
}

/// The token of an `Authorization: Bearer <token>` header. A request with more
/// than one `Authorization` header has none: which of them a proxy, a log or
/// this server would read is anyone's guess (RFC 9110 §5.3 allows repeating
/// only list-valued fields, and `Authorization` is not one).
pub(super) fn bearer_token(headers: &::http::HeaderMap) -> Option<&str> {
    let mut values = headers.get_all(::http::header::AUTHORIZATION).iter();
    let value = values.next()?;
    if values.next().is_some() {
        return None;
    }
    let value = value.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|token| !token.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bearer_token_is_read_from_the_authorization_header() {
        let mut headers = ::http::HeaderMap::new();
        assert_eq!(bearer_token(&headers), None);
        headers.insert(::http::header::AUTHORIZATION, "Bearer abc".parse().unwrap());
        assert_eq!(bearer_token(&headers), Some("abc"));
        headers.insert(
            ::http::header::AUTHORIZATION,
            "bearer  abc ".parse().unwrap(),
        );
        assert_eq!(bearer_token(&headers), Some("abc"));
        headers.insert(::http::header::AUTHORIZATION, "Basic abc".parse().unwrap());
        assert_eq!(bearer_token(&headers), None);
        headers.insert(::http::header::AUTHORIZATION, "Bearer ".parse().unwrap());
        assert_eq!(bearer_token(&headers), None);
    }

    /// Behind a guard the token is the one it kept, not read from the header
    /// again; without one, the header is read.
    #[test]
    fn the_guards_token_is_the_requests_token() {
        let (mut parts, ()) = ::http::Request::builder()
            .header(::http::header::AUTHORIZATION, "Bearer from-the-header")
            .body(())
            .unwrap()
            .into_parts();
        assert_eq!(request_bearer(&parts), Some("from-the-header"));
        parts
            .extensions
            .insert(Bearer(Arc::from("kept-by-the-guard")));
        assert_eq!(request_bearer(&parts), Some("kept-by-the-guard"));
    }

    #[test]
    fn two_authorization_headers_are_no_token() {
        let mut headers = ::http::HeaderMap::new();
        headers.append(::http::header::AUTHORIZATION, "Bearer abc".parse().unwrap());
        headers.append(::http::header::AUTHORIZATION, "Bearer xyz".parse().unwrap());
        assert_eq!(bearer_token(&headers), None);
        headers.remove(::http::header::AUTHORIZATION);
        headers.append(::http::header::AUTHORIZATION, "Bearer abc".parse().unwrap());
        assert_eq!(bearer_token(&headers), Some("abc"));
    }
}
