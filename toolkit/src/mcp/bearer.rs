//! Reading a bearer token from a request's headers: the one step the static-token
//! guard, the OAuth resource server and the MCP server's per-request identity
//! share. A leaf, so none of those three has to name another for it.

/// The token of an `Authorization: Bearer <token>` header.
pub(super) fn bearer_token(headers: &::http::HeaderMap) -> Option<&str> {
    let value = headers.get(::http::header::AUTHORIZATION)?.to_str().ok()?;
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
}
