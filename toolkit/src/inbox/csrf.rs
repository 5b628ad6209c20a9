//! Forms carry a token bound to the approver, so another site can't make an
//! approver's browser decide.
//!
//! The token is OWASP's "signed double-submit" token in its HMAC form: the
//! approver's subject and the token's issue time, signed with HMAC-SHA256 (the
//! `hmac` crate, compared in constant time by `verify_slice`) under a key derived
//! from the approval key. It needs no server-side session table, so any replica
//! checks a token another issued. A cross-site page can make the browser send the
//! approver's cookie, but it cannot read a page of the inbox to learn a token, and
//! it cannot make one without the key. Every POST also refuses requests the
//! browser marks `Sec-Fetch-Site: cross-site` (defence in depth for browsers that
//! send it).
//!
//! Rotating the approval key (the new key current, the old one among the
//! previous keys) leaves open forms working: a token is signed under the key derived
//! from the current approval key and accepted under the key derived from any of
//! them, until it expires. Dropping a previous key ends its tokens at once.

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::approval::{from_hex, to_hex};

/// How long a page's token stays valid: a working day.
const TOKEN_TTL_SECONDS: u64 = 12 * 60 * 60;

/// A token issued a little in the future (the store's clock read by another
/// replica a moment later, or a database failover) is still fresh.
const CLOCK_SKEW_SECONDS: u64 = 60;

/// Issues and checks the inbox's CSRF tokens.
#[derive(Clone)]
pub(crate) struct Csrf {
    /// The key that signs, then the keys that only verify (derived from previous
    /// approval keys).
    keys: Vec<Vec<u8>>,
}

impl Csrf {
    /// `keys`: the signing key first, then those that still verify.
    pub(crate) fn new(keys: Vec<Vec<u8>>) -> Self {
        Csrf { keys }
    }

    /// A token for `subject`, issued at `issued_at` (the approval store's clock).
    pub(crate) fn issue(&self, subject: &str, issued_at: u64) -> String {
        let mut mac = mac(self.keys.first().map_or(&[][..], Vec::as_slice));
        mac.update(&payload(subject, issued_at));
        format!("{issued_at}.{}", to_hex(&mac.finalize().into_bytes()))
    }

    /// Whether `token` was issued by this key for `subject` and is still fresh at
    /// `now` (the approval store's clock).
    pub(crate) fn verify(&self, subject: &str, token: &str, now: u64) -> bool {
        let Some((issued_at, signature)) = token.split_once('.') else {
            return false;
        };
        let Ok(issued_at) = issued_at.parse::<u64>() else {
            return false;
        };
        if issued_at > now.saturating_add(CLOCK_SKEW_SECONDS)
            || now > issued_at.saturating_add(TOKEN_TTL_SECONDS)
        {
            return false;
        }
        let Some(signature) = from_hex(signature) else {
            return false;
        };
        let payload = payload(subject, issued_at);
        self.keys.iter().any(|key| {
            let mut mac = mac(key);
            mac.update(&payload);
            mac.verify_slice(&signature).is_ok()
        })
    }
}

fn mac(key: &[u8]) -> Hmac<Sha256> {
    <Hmac<Sha256> as Mac>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC accepts keys of every length"))
}

/// The signed text: a domain, the subject (its length first, so no two subjects
/// and times give the same bytes) and the issue time.
fn payload(subject: &str, issued_at: u64) -> Vec<u8> {
    format!(
        "toolkit.inbox.csrf.v1\n{}\n{subject}\n{issued_at}",
        subject.len()
    )
    .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: u64 = 1_795_424_400;

    fn csrf() -> Csrf {
        Csrf::new(vec![b"a derived key of thirty-two bytes".to_vec()])
    }

    #[test]
    fn a_token_is_accepted_for_its_subject_only_while_fresh() {
        let csrf = csrf();
        let token = csrf.issue("alice", NOW);
        assert!(csrf.verify("alice", &token, NOW));
        assert!(csrf.verify("alice", &token, NOW + TOKEN_TTL_SECONDS));
        assert!(!csrf.verify("alice", &token, NOW + TOKEN_TTL_SECONDS + 1));
        assert!(!csrf.verify("bob", &token, NOW));
        // Issued in the future beyond the skew: refused.
        assert!(!csrf.verify("alice", &token, NOW - CLOCK_SKEW_SECONDS - 1));
    }

    #[test]
    fn altered_or_foreign_tokens_are_refused() {
        let csrf = csrf();
        let token = csrf.issue("alice", NOW);
        let (time, signature) = token.split_once('.').unwrap();
        // Another issue time with the same signature.
        assert!(!csrf.verify("alice", &format!("{}.{signature}", NOW - 1), NOW));
        // One flipped digit of the signature.
        let flipped: String = signature
            .char_indices()
            .map(|(i, c)| {
                if i == 0 {
                    if c == '0' { '1' } else { '0' }
                } else {
                    c
                }
            })
            .collect();
        assert!(!csrf.verify("alice", &format!("{time}.{flipped}"), NOW));
        // Another key's token.
        let other =
            Csrf::new(vec![b"another key, also thirty-two byte".to_vec()]).issue("alice", NOW);
        assert!(!csrf.verify("alice", &other, NOW));
        for junk in [
            "",
            ".",
            "abc",
            "1.",
            ".00",
            "x.00",
            "1.zz",
            "99999999999999999999999.00",
        ] {
            assert!(!csrf.verify("alice", junk, NOW), "{junk:?}");
        }
    }

    #[test]
    fn subjects_cannot_shift_bytes_into_the_time() {
        let csrf = csrf();
        // "al" + "ice\n..." style confusion is ruled out by the length prefix.
        assert_ne!(payload("a\n1", 2), payload("a", 12));
        let token = csrf.issue("a", NOW);
        assert!(!csrf.verify("a\n", &token, NOW));
    }

    #[test]
    fn tokens_signed_before_a_rotation_verify_while_the_old_key_is_kept() {
        let old = b"a derived key of thirty-two bytes".to_vec();
        let new = b"the derived key after a rotation!".to_vec();
        let before = Csrf::new(vec![old.clone()]).issue("alice", NOW);
        let rotated = Csrf::new(vec![new.clone(), old]);
        assert!(rotated.verify("alice", &before, NOW + 60));
        assert!(!rotated.verify("bob", &before, NOW + 60));
        // New tokens are signed with the new key only.
        let after = rotated.issue("alice", NOW);
        assert!(Csrf::new(vec![new.clone()]).verify("alice", &after, NOW));
        assert_ne!(after, before);
        // The old key dropped: its tokens end.
        assert!(!Csrf::new(vec![new]).verify("alice", &before, NOW + 60));
    }
}
