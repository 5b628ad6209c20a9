//! Who a caller is: one typed value, made once by whatever verified it.
//!
//! A [`Principal`] is an issuer, a subject and an optional tenant. The OAuth
//! resource server makes it from a verified token's `iss` and `sub`, the inbox's
//! sign-in from the ID token's, both through one [`ClaimsMapping`]; an in-process
//! agent gets one the application builds ([`Principal::local`]). It is the
//! requester of a pending approval, the decider in the inbox, in an elicitation
//! answer and in [`Approvals::decide_as`](crate::approval::Approvals::decide_as),
//! the audit's actor and the quota's key, so "the same person" is equality of this
//! type, never of two strings two doors spelt differently.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use percent_encoding::percent_decode_str;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The most bytes one part (issuer, subject, tenant) of a principal may have.
const MAX_PART_BYTES: usize = Principal::MAX_PART_BYTES;

/// The separator of a key's parts.
const SEPARATOR: char = '|';

/// A caller's identity: the issuer that vouches for it, its subject there, and
/// optionally a tenant. Cheap to clone (one shared allocation); equal, hashed and
/// ordered by its [key](Principal::key).
///
/// ```
/// use toolkit::Principal;
///
/// let ada = Principal::new("https://auth.example.com", "ada")?;
/// assert_eq!(ada.key(), "https://auth.example.com|ada");
/// assert_eq!(Principal::from_key(ada.key())?, ada);
///
/// // An in-process agent, named by the application.
/// let planner = Principal::local("agent:planner")?;
/// assert_eq!(planner.key(), "local|agent:planner");
/// assert_ne!(planner, Principal::new("https://auth.example.com", "agent:planner")?);
/// # Ok::<(), toolkit::PrincipalError>(())
/// ```
///
/// # The key
/// [`Principal::key`] is the one text the stores keep and quotas count under:
/// `issuer|subject` or `issuer|subject|tenant`, `%` and `|` in each part
/// percent-encoded (`%25`, `%7C`) and nothing else, so two principals have two keys
/// and [`Principal::from_key`] reads a key back, refusing any text that is not
/// exactly some principal's key.
///
/// # Rows written before principals were typed
/// Stores that kept a free string (`user:7`) migrate it to a principal of the
/// reserved issuer [`Principal::LEGACY_ISSUER`] whose subject is that string
/// (`toolkit:legacy|user:7`). [`Principal::new`] refuses that issuer, so no
/// principal made from a token, a sign-in or the application equals an old row's:
/// a call asked for before the upgrade stays its requester's alone, and is decided
/// in the inbox by someone else or not at all.
#[derive(Clone)]
pub struct Principal {
    inner: Arc<Parts>,
}

struct Parts {
    key: Box<str>,
    issuer: Box<str>,
    subject: Box<str>,
    tenant: Option<Box<str>>,
}

impl Principal {
    /// The issuer of principals that in-process code names ([`Principal::local`]):
    /// agents, jobs and tests of the application itself.
    pub const LOCAL_ISSUER: &'static str = "local";

    /// The most bytes one part (issuer, subject, tenant) may have.
    pub const MAX_PART_BYTES: usize = 512;

    /// The reserved issuer of rows a store kept before principals were typed (see
    /// [the type's docs](Principal#rows-written-before-principals-were-typed)):
    /// only [`Principal::from_key`] makes one.
    pub const LEGACY_ISSUER: &'static str = "toolkit:legacy";

    /// The principal `subject` of `issuer`, with no tenant.
    ///
    /// # Errors
    /// A part that is empty, longer than [`Principal::MAX_PART_BYTES`] or holds a control
    /// character, or the reserved issuer [`Principal::LEGACY_ISSUER`].
    pub fn new(issuer: impl AsRef<str>, subject: impl AsRef<str>) -> Result<Self, PrincipalError> {
        Self::checked(issuer.as_ref(), subject.as_ref(), None)
    }

    /// The principal `subject` of `issuer` in `tenant`.
    ///
    /// # Errors
    /// As [`Principal::new`], for the tenant too.
    pub fn with_tenant(
        issuer: impl AsRef<str>,
        subject: impl AsRef<str>,
        tenant: impl AsRef<str>,
    ) -> Result<Self, PrincipalError> {
        Self::checked(issuer.as_ref(), subject.as_ref(), Some(tenant.as_ref()))
    }

    /// A principal the application names in its own code, of the issuer
    /// [`Principal::LOCAL_ISSUER`]: an in-process agent, a job, a test's user. It
    /// never equals a principal made from a token, whose issuer is a URL.
    ///
    /// # Errors
    /// As [`Principal::new`].
    pub fn local(subject: impl AsRef<str>) -> Result<Self, PrincipalError> {
        Self::new(Self::LOCAL_ISSUER, subject)
    }

    fn checked(issuer: &str, subject: &str, tenant: Option<&str>) -> Result<Self, PrincipalError> {
        if issuer == Self::LEGACY_ISSUER {
            return Err(PrincipalError::ReservedIssuer);
        }
        Self::unchecked_issuer(issuer, subject, tenant)
    }

    fn unchecked_issuer(
        issuer: &str,
        subject: &str,
        tenant: Option<&str>,
    ) -> Result<Self, PrincipalError> {
        check(PrincipalPart::Issuer, issuer)?;
        check(PrincipalPart::Subject, subject)?;
        if let Some(tenant) = tenant {
            check(PrincipalPart::Tenant, tenant)?;
        }
        let mut key = String::with_capacity(issuer.len() + subject.len() + 2);
        escape(issuer, &mut key);
        key.push(SEPARATOR);
        escape(subject, &mut key);
        if let Some(tenant) = tenant {
            key.push(SEPARATOR);
            escape(tenant, &mut key);
        }
        Ok(Principal {
            inner: Arc::new(Parts {
                key: key.into(),
                issuer: issuer.into(),
                subject: subject.into(),
                tenant: tenant.map(Into::into),
            }),
        })
    }

    /// Reads a [key](Principal::key) back: what a store's `principal` column or a
    /// form's field holds.
    ///
    /// # Errors
    /// [`PrincipalError::MalformedKey`] for text that is not exactly the key of a
    /// principal (two or three parts, percent-encoded as [`Principal::key`] writes
    /// them); the part's own error for a part that breaks a rule.
    pub fn from_key(key: &str) -> Result<Self, PrincipalError> {
        // Bounded before any work: three escaped parts at most.
        if key.len() > 3 * (3 * MAX_PART_BYTES + 1) {
            return Err(PrincipalError::MalformedKey("it is too long"));
        }
        let mut parts = key.split(SEPARATOR);
        let (Some(issuer), Some(subject), tenant, None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(PrincipalError::MalformedKey(
                "a key is `issuer|subject` or `issuer|subject|tenant`",
            ));
        };
        let decode = |part: &str| {
            percent_decode_str(part)
                .decode_utf8()
                .map(std::borrow::Cow::into_owned)
                .map_err(|_| PrincipalError::MalformedKey("a part is not UTF-8 once decoded"))
        };
        let (issuer, subject) = (decode(issuer)?, decode(subject)?);
        let tenant = tenant.map(decode).transpose()?;
        let principal = Self::unchecked_issuer(&issuer, &subject, tenant.as_deref())?;
        // One principal, one key: `%41` for `A`, or lower-case escapes, would be a
        // second spelling that a store's `=` never matches.
        if &*principal.inner.key != key {
            return Err(PrincipalError::MalformedKey(
                "it is not written the one way a key is (`%25` for `%`, `%7C` for `|`, \
                 and no other escape)",
            ));
        }
        Ok(principal)
    }

    /// The one canonical text of this principal: what stores keep, what quotas
    /// count under, what the audit names. See [the type's docs](Principal#the-key).
    #[must_use]
    pub fn key(&self) -> &str {
        &self.inner.key
    }

    /// The issuer that vouches for this principal (a token's `iss`,
    /// [`Principal::LOCAL_ISSUER`], [`Principal::LEGACY_ISSUER`]).
    #[must_use]
    pub fn issuer(&self) -> &str {
        &self.inner.issuer
    }

    /// Who it is at its issuer (a token's `sub`).
    #[must_use]
    pub fn subject(&self) -> &str {
        &self.inner.subject
    }

    /// Its tenant, if it has one.
    #[must_use]
    pub fn tenant(&self) -> Option<&str> {
        self.inner.tenant.as_deref()
    }

    /// The free string a store kept before principals were typed, if this is
    /// such a row's principal (of [`Principal::LEGACY_ISSUER`]).
    #[must_use]
    pub fn legacy_name(&self) -> Option<&str> {
        (self.issuer() == Self::LEGACY_ISSUER).then(|| self.subject())
    }

    /// How this principal reads to a person: its subject, with the issuer that
    /// signed it in (secondary, and left out for [`Principal::LOCAL_ISSUER`] and
    /// [`Principal::LEGACY_ISSUER`], which name no sign-in worth showing) and its
    /// tenant if it has one. The one rule every page and card follows (the inbox,
    /// the MCP Apps approval card); the [key](Principal::key) stays what machines
    /// compare.
    ///
    /// ```
    /// use toolkit::Principal;
    ///
    /// let ada = Principal::with_tenant("https://id.example", "ada", "acme")?;
    /// assert_eq!(ada.display_name().to_string(), "ada (signed in with https://id.example), tenant acme");
    /// assert_eq!(ada.display_name().signed_in_with(), Some("https://id.example"));
    /// assert_eq!(Principal::local("operator")?.display_name().to_string(), "operator");
    /// # Ok::<(), toolkit::PrincipalError>(())
    /// ```
    #[must_use]
    pub fn display_name(&self) -> DisplayName<'_> {
        DisplayName { principal: self }
    }

    /// How signatures and run keys bind this principal: an old row's principal as
    /// the string it was then (so approvals signed and runs recorded before the
    /// upgrade still verify and still count once), any other as an object of its
    /// parts, which no string equals.
    pub(crate) fn bound_form(&self) -> serde_json::Value {
        if let Some(name) = self.legacy_name() {
            return serde_json::Value::String(name.to_owned());
        }
        let mut parts = serde_json::Map::new();
        parts.insert("iss".to_owned(), self.issuer().into());
        parts.insert("sub".to_owned(), self.subject().into());
        if let Some(tenant) = self.tenant() {
            parts.insert("tenant".to_owned(), tenant.into());
        }
        serde_json::Value::Object(parts)
    }
}

/// Writes `part` into a key: `%` and `|` percent-encoded, every other character
/// as it is (parts hold no control characters). The stores' migration from free
/// strings escapes the same two characters the same way, in SQL.
fn escape(part: &str, key: &mut String) {
    for c in part.chars() {
        match c {
            '%' => key.push_str("%25"),
            SEPARATOR => key.push_str("%7C"),
            c => key.push(c),
        }
    }
}

/// Checks one part: non-empty, bounded, no control characters.
fn check(part: PrincipalPart, text: &str) -> Result<(), PrincipalError> {
    if text.is_empty() {
        return Err(PrincipalError::Empty(part));
    }
    if text.len() > MAX_PART_BYTES {
        return Err(PrincipalError::TooLong {
            part,
            bytes: text.len(),
        });
    }
    if let Some(at) = text
        .char_indices()
        .find(|(_, c)| c.is_control())
        .map(|(at, _)| at)
    {
        return Err(PrincipalError::ControlCharacter { part, at });
    }
    Ok(())
}

impl PartialEq for Principal {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Principal {}

impl Hash for Principal {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.key().hash(state);
    }
}

impl PartialOrd for Principal {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Principal {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key().cmp(other.key())
    }
}

/// The [key](Principal::key).
impl fmt::Display for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

impl fmt::Debug for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Principal").field(&self.key()).finish()
    }
}

/// As its [key](Principal::key), a string.
impl Serialize for Principal {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.key())
    }
}

/// From its [key](Principal::key); any other text is refused.
impl<'de> Deserialize<'de> for Principal {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let key = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        Principal::from_key(&key).map_err(serde::de::Error::custom)
    }
}

/// How a [`Principal`] reads to a person ([`Principal::display_name`]): its
/// [`Display`](fmt::Display) is the whole text (`ada (signed in with
/// https://id.example), tenant acme`); pages that set the issuer apart read its
/// parts. It serializes as an object a JSON client shows without rules of its own:
/// `{"name": <the whole text>, "subject": .., "signed_in_with": .., "tenant": ..}`
/// (the last two left out when there is nothing to show).
#[derive(Clone, Copy, Debug)]
pub struct DisplayName<'a> {
    principal: &'a Principal,
}

impl<'a> DisplayName<'a> {
    /// Who it is: the principal's subject.
    #[must_use]
    pub fn subject(&self) -> &'a str {
        self.principal.subject()
    }

    /// The issuer that signed it in, when that is worth showing: `None` for
    /// principals of [`Principal::LOCAL_ISSUER`] (the application's own) and of
    /// [`Principal::LEGACY_ISSUER`] (rows from before principals were typed).
    #[must_use]
    pub fn signed_in_with(&self) -> Option<&'a str> {
        let issuer = self.principal.issuer();
        (issuer != Principal::LOCAL_ISSUER && issuer != Principal::LEGACY_ISSUER).then_some(issuer)
    }

    /// Its tenant, if it has one.
    #[must_use]
    pub fn tenant(&self) -> Option<&'a str> {
        self.principal.tenant()
    }

    /// The words that follow the subject for the issuer, `(signed in with
    /// https://id.example)`, if it is shown: a page that sets the issuer apart
    /// (smaller, greyed) shows these, so that every page words it alike.
    #[must_use]
    pub fn issuer_words(&self) -> Option<String> {
        self.signed_in_with()
            .map(|issuer| format!("(signed in with {issuer})"))
    }

    /// The words that follow for the tenant, `, tenant acme`, if it has one.
    #[must_use]
    pub fn tenant_words(&self) -> Option<String> {
        self.tenant().map(|tenant| format!(", tenant {tenant}"))
    }
}

/// `subject`, then ` ` and the [issuer's words](DisplayName::issuer_words) and the
/// [tenant's](DisplayName::tenant_words) where there are some.
impl fmt::Display for DisplayName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.subject())?;
        if let Some(words) = self.issuer_words() {
            write!(f, " {words}")?;
        }
        if let Some(words) = self.tenant_words() {
            f.write_str(&words)?;
        }
        Ok(())
    }
}

/// `{"name", "subject", "signed_in_with"?, "tenant"?}`.
impl Serialize for DisplayName<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("name", &self.to_string())?;
        map.serialize_entry("subject", self.subject())?;
        if let Some(issuer) = self.signed_in_with() {
            map.serialize_entry("signed_in_with", issuer)?;
        }
        if let Some(tenant) = self.tenant() {
            map.serialize_entry("tenant", tenant)?;
        }
        map.end()
    }
}

/// One part of a principal, as an error names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrincipalPart {
    /// The issuer.
    Issuer,
    /// The subject.
    Subject,
    /// The tenant.
    Tenant,
}

impl fmt::Display for PrincipalPart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PrincipalPart::Issuer => "issuer",
            PrincipalPart::Subject => "subject",
            PrincipalPart::Tenant => "tenant",
        })
    }
}

/// Why a principal could not be made or read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PrincipalError {
    /// A part is empty.
    #[error("a principal's {0} must not be empty")]
    Empty(PrincipalPart),
    /// A part is longer than [`Principal::MAX_PART_BYTES`].
    #[error("a principal's {part} has {bytes} bytes; at most {MAX_PART_BYTES} are allowed")]
    TooLong {
        /// Which part.
        part: PrincipalPart,
        /// Its length in bytes.
        bytes: usize,
    },
    /// A part holds a control character (a line break, a NUL, ...).
    #[error("a principal's {part} holds a control character at byte {at}")]
    ControlCharacter {
        /// Which part.
        part: PrincipalPart,
        /// The byte offset of the first one.
        at: usize,
    },
    /// The issuer is [`Principal::LEGACY_ISSUER`], which only rows migrated from
    /// free strings carry.
    #[error("the issuer `toolkit:legacy` is reserved for rows kept before principals were typed")]
    ReservedIssuer,
    /// A text is not a principal's [key](Principal::key).
    #[error("not a principal's key: {0}")]
    MalformedKey(&'static str),
    /// Verified claims lack a claim the [`ClaimsMapping`] needs, or it is not a
    /// string.
    #[error("the verified claims have no `{0}` string")]
    MissingClaim(String),
}

/// How verified claims (an access token's, an ID token's) become a [`Principal`]:
/// `iss` is the issuer, `sub` the subject, and the tenant the claim
/// [`tenant_claim`](ClaimsMapping::tenant_claim) names, if any. One mapping for
/// every door, so an MCP caller and the same person signed in to the inbox are
/// one principal: give the same mapping to the token verifier
/// (`mcp::auth::JwtVerifierBuilder::claims_mapping`, feature `oauth`)
/// and to the inbox's sign-in.
///
/// ```
/// use serde_json::json;
/// use toolkit::{ClaimsMapping, Principal};
///
/// let claims = json!({"iss": "https://auth.example.com", "sub": "ada", "tid": "acme"});
/// let claims = claims.as_object().unwrap();
/// let ada = ClaimsMapping::new().tenant_claim("tid").principal(claims)?;
/// assert_eq!(ada, Principal::with_tenant("https://auth.example.com", "ada", "acme")?);
/// # Ok::<(), toolkit::PrincipalError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClaimsMapping {
    tenant_claim: Option<String>,
}

impl ClaimsMapping {
    /// `iss` and `sub`, no tenant.
    #[must_use]
    pub fn new() -> Self {
        ClaimsMapping::default()
    }

    /// The tenant is the string claim `claim` (`tid`, `org_id`); a token without
    /// it makes no principal.
    #[must_use]
    pub fn tenant_claim(mut self, claim: impl Into<String>) -> Self {
        self.tenant_claim = Some(claim.into());
        self
    }

    /// The principal of verified `claims`.
    ///
    /// # Errors
    /// [`PrincipalError::MissingClaim`] when `iss`, `sub` or the tenant claim is
    /// missing or not a string; the part's error when one breaks a rule.
    pub fn principal(
        &self,
        claims: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<Principal, PrincipalError> {
        self.principal_of(claims, None)
    }

    /// As [`ClaimsMapping::principal`], with `issuer` standing in for a missing
    /// `iss` (an introspection answer need not carry one; its endpoint is the
    /// issuer's).
    pub(crate) fn principal_of(
        &self,
        claims: &serde_json::Map<String, serde_json::Value>,
        issuer: Option<&str>,
    ) -> Result<Principal, PrincipalError> {
        let string = |claim: &str| match claims.get(claim) {
            Some(serde_json::Value::String(text)) => Ok(text.as_str()),
            _ => Err(PrincipalError::MissingClaim(claim.to_owned())),
        };
        let issuer = match (string("iss"), issuer) {
            (Ok(iss), _) => iss,
            (Err(_), Some(issuer)) => issuer,
            (Err(missing), None) => return Err(missing),
        };
        let subject = string("sub")?;
        match &self.tenant_claim {
            Some(claim) => Principal::with_tenant(issuer, subject, string(claim)?),
            None => Principal::new(issuer, subject),
        }
    }
}

/// The SQL drivers' conversions of a type stored as text (feature `sqlite`:
/// rusqlite; feature `postgres`: tokio-postgres): written as `$text(&value)`,
/// read back with `$parse(&text)`, whose error makes the row a conversion failure
/// (a corrupt row), never a panic.
macro_rules! stored_as_text {
    ($type:ty, $text:path, $parse:path) => {
        #[cfg(feature = "sqlite")]
        impl rusqlite::types::ToSql for $type {
            fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
                Ok(rusqlite::types::ToSqlOutput::from($text(self)))
            }
        }

        #[cfg(feature = "sqlite")]
        impl rusqlite::types::FromSql for $type {
            fn column_result(
                value: rusqlite::types::ValueRef<'_>,
            ) -> rusqlite::types::FromSqlResult<Self> {
                $parse(value.as_str()?)
                    .map_err(|error| rusqlite::types::FromSqlError::Other(Box::new(error)))
            }
        }

        #[cfg(feature = "postgres")]
        impl tokio_postgres::types::ToSql for $type {
            fn to_sql(
                &self,
                ty: &tokio_postgres::types::Type,
                out: &mut tokio_postgres::types::private::BytesMut,
            ) -> Result<tokio_postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>>
            {
                <&str as tokio_postgres::types::ToSql>::to_sql(&$text(self), ty, out)
            }

            fn accepts(ty: &tokio_postgres::types::Type) -> bool {
                <&str as tokio_postgres::types::ToSql>::accepts(ty)
            }

            tokio_postgres::types::to_sql_checked!();
        }

        #[cfg(feature = "postgres")]
        impl<'a> tokio_postgres::types::FromSql<'a> for $type {
            fn from_sql(
                ty: &tokio_postgres::types::Type,
                raw: &'a [u8],
            ) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
                let text = <&str as tokio_postgres::types::FromSql>::from_sql(ty, raw)?;
                Ok($parse(text)?)
            }

            fn accepts(ty: &tokio_postgres::types::Type) -> bool {
                <&str as tokio_postgres::types::FromSql>::accepts(ty)
            }
        }
    };
}
pub(crate) use stored_as_text;

// Stored as its key, in a `TEXT` column (or a `text[]` of them).
stored_as_text!(Principal, Principal::key, Principal::from_key);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_reads_back_as_the_same_principal_and_parts_are_escaped() {
        let odd = Principal::with_tenant("https://a.example|b", "100%|é", "t").unwrap();
        assert_eq!(odd.key(), "https://a.example%7Cb|100%25%7Cé|t");
        let read = Principal::from_key(odd.key()).unwrap();
        assert_eq!(read, odd);
        assert_eq!(
            (read.issuer(), read.subject(), read.tenant()),
            ("https://a.example|b", "100%|é", Some("t"))
        );
        // A tenant makes another principal; so does another issuer.
        let plain = Principal::new("https://a.example", "ada").unwrap();
        assert_ne!(
            plain,
            Principal::with_tenant("https://a.example", "ada", "t").unwrap()
        );
        assert_ne!(plain, Principal::local("ada").unwrap());
        assert_eq!(plain.to_string(), "https://a.example|ada");
        assert_eq!(format!("{plain:?}"), "Principal(\"https://a.example|ada\")");
    }

    #[test]
    fn bad_parts_are_refused_with_what_is_wrong() {
        assert_eq!(
            Principal::new("", "ada"),
            Err(PrincipalError::Empty(PrincipalPart::Issuer))
        );
        assert_eq!(
            Principal::local(""),
            Err(PrincipalError::Empty(PrincipalPart::Subject))
        );
        assert_eq!(
            Principal::with_tenant("i", "s", "a\nb"),
            Err(PrincipalError::ControlCharacter {
                part: PrincipalPart::Tenant,
                at: 1
            })
        );
        assert_eq!(
            Principal::local("x".repeat(MAX_PART_BYTES + 1)),
            Err(PrincipalError::TooLong {
                part: PrincipalPart::Subject,
                bytes: MAX_PART_BYTES + 1
            })
        );
        assert!(Principal::local("x".repeat(MAX_PART_BYTES)).is_ok());
        assert_eq!(
            Principal::new(Principal::LEGACY_ISSUER, "user:7"),
            Err(PrincipalError::ReservedIssuer)
        );
        assert_eq!(
            Principal::local("a\u{85}b").unwrap_err().to_string(),
            "a principal's subject holds a control character at byte 1"
        );
    }

    #[test]
    fn text_that_is_not_exactly_a_key_is_refused() {
        let malformed = |key: &str| match Principal::from_key(key) {
            Err(PrincipalError::MalformedKey(_)) => true,
            other => panic!("{key:?}: {other:?}"),
        };
        for key in [
            "user:7",
            "a|b|c|d",
            "local|%41da",
            "local|100%7c",
            "local|%",
            "local|%FF",
            "local|%C3%A9",
            &"x".repeat(5000),
        ] {
            assert!(malformed(key));
        }
        assert_eq!(
            Principal::from_key("local|"),
            Err(PrincipalError::Empty(PrincipalPart::Subject))
        );
        assert_eq!(
            Principal::from_key("local|a%0Ab"),
            Err(PrincipalError::ControlCharacter {
                part: PrincipalPart::Subject,
                at: 1
            })
        );
        assert_eq!(
            serde_json::from_str::<Principal>("\"user:7\"")
                .unwrap_err()
                .to_string(),
            "not a principal's key: a key is `issuer|subject` or `issuer|subject|tenant`"
        );
    }

    #[test]
    fn an_old_rows_principal_is_read_and_matches_no_new_one() {
        let old = Principal::from_key("toolkit:legacy|user:ada").unwrap();
        assert_eq!(old.legacy_name(), Some("user:ada"));
        assert_eq!(Principal::local("user:ada").unwrap().legacy_name(), None);
        assert_ne!(old, Principal::local("user:ada").unwrap());
        assert_ne!(
            old,
            Principal::new("https://auth.example.com", "user:ada").unwrap()
        );
        assert_eq!(
            serde_json::to_value(&old).unwrap(),
            serde_json::json!("toolkit:legacy|user:ada")
        );
    }

    #[test]
    fn a_principal_reads_to_a_person_as_its_subject_with_issuer_and_tenant() {
        let ada = Principal::new("https://id.example", "ada").unwrap();
        assert_eq!(
            ada.display_name().to_string(),
            "ada (signed in with https://id.example)"
        );
        assert_eq!(
            serde_json::to_value(ada.display_name()).unwrap(),
            serde_json::json!({
                "name": "ada (signed in with https://id.example)",
                "subject": "ada",
                "signed_in_with": "https://id.example",
            })
        );
        let tenant = Principal::with_tenant("https://id.example", "ada", "acme").unwrap();
        assert_eq!(
            serde_json::to_value(tenant.display_name()).unwrap(),
            serde_json::json!({
                "name": "ada (signed in with https://id.example), tenant acme",
                "subject": "ada",
                "signed_in_with": "https://id.example",
                "tenant": "acme",
            })
        );
        // The application's own principals and old rows name no sign-in.
        let local = Principal::local("operator").unwrap();
        assert_eq!(local.display_name().to_string(), "operator");
        assert_eq!(local.display_name().signed_in_with(), None);
        let old = Principal::from_key("toolkit:legacy|user:7").unwrap();
        assert_eq!(
            serde_json::to_value(old.display_name()).unwrap(),
            serde_json::json!({"name": "user:7", "subject": "user:7"})
        );
        // An issuer spelt like the local one but with a tenant still shows it.
        let local_tenant = Principal::with_tenant("local", "bot", "t|1").unwrap();
        assert_eq!(local_tenant.display_name().to_string(), "bot, tenant t|1");
    }

    #[test]
    fn claims_map_to_one_principal_or_say_what_is_missing() {
        let claims = |value: serde_json::Value| value.as_object().unwrap().clone();
        let ada = claims(serde_json::json!({"iss": "https://i", "sub": "ada", "org": "acme"}));
        assert_eq!(
            ClaimsMapping::new().principal(&ada).unwrap(),
            Principal::new("https://i", "ada").unwrap()
        );
        assert_eq!(
            ClaimsMapping::new()
                .tenant_claim("org")
                .principal(&ada)
                .unwrap(),
            Principal::with_tenant("https://i", "ada", "acme").unwrap()
        );
        assert_eq!(
            ClaimsMapping::new().tenant_claim("tid").principal(&ada),
            Err(PrincipalError::MissingClaim("tid".to_owned()))
        );
        let no_iss = claims(serde_json::json!({"sub": "ada"}));
        assert_eq!(
            ClaimsMapping::new().principal(&no_iss),
            Err(PrincipalError::MissingClaim("iss".to_owned()))
        );
        assert_eq!(
            ClaimsMapping::new().principal_of(&no_iss, Some("https://i")),
            Ok(Principal::new("https://i", "ada").unwrap())
        );
        let numeric = claims(serde_json::json!({"iss": "https://i", "sub": 7}));
        assert_eq!(
            ClaimsMapping::new().principal(&numeric),
            Err(PrincipalError::MissingClaim("sub".to_owned()))
        );
    }
}
