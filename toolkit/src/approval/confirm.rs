//! A person's "yes" to one previewed call of a `confirm` tool, given outside the
//! model's turn (the Confirm button of an MCP Apps preview card): signed, bound to
//! the principal, the tool and the arguments' digest, expiring, and used once
//! across every process that shares the approval store.
//!
//! A `confirm` tool's own `confirmed: true` is the model's word, and stays what it
//! is; a [`Confirmation`] is what a door that is not the model (a card the person
//! clicks) carries back, so that what runs is exactly what the person was shown,
//! once, for the person it was shown to.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::key::{canonical_json, digest, to_hex};
use super::{ApprovalError, Approvals, CLOCK_SKEW_SECONDS, Claim, RunOutcome};
use crate::principal::Principal;
use crate::response::Response;

/// One previewed call of a `confirm` tool that a person may confirm once
/// ([`Approvals::confirmation`], redeemed by [`View::confirm`](crate::View::confirm)).
///
/// Plain, signed JSON, like a [`PendingApproval`](super::PendingApproval): a card
/// holds it and hands it back; any change to it (another principal, other
/// arguments, a later expiry) breaks its signature or its digest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Confirmation {
    /// Made up when it was issued: what "used once" is counted by.
    pub id: String,
    /// Who the call acts for (the view's principal).
    #[schemars(with = "String")]
    pub principal: Principal,
    /// The `confirm` tool's name.
    pub tool: String,
    /// The arguments the preview was made from, without `confirmed`.
    pub arguments: Value,
    /// `sha256:` and the hex SHA-256 of the arguments' canonical JSON.
    pub digest: String,
    /// When it was issued, in Unix seconds (store time).
    pub issued_at: u64,
    /// Until when it may be confirmed, in Unix seconds (store time).
    pub expires_at: u64,
    /// Hex HMAC-SHA256 of the fields above except `arguments`, which the digest
    /// binds.
    pub signature: String,
}

/// What a confirmation's signature covers; its own `type`, so no approval's
/// signature ever verifies as a confirmation's, nor the reverse.
fn payload(confirmation: &Confirmation) -> String {
    canonical_json(&json!({
        "type": "toolkit.confirmation.v1",
        "id": confirmation.id,
        "principal": confirmation.principal,
        "tool": confirmation.tool,
        "digest": confirmation.digest,
        "issued_at": confirmation.issued_at,
        "expires_at": confirmation.expires_at,
    }))
}

/// The store key that marks a confirmation used.
fn used_key(principal: &Principal, id: &str) -> String {
    use sha2::Digest as _;
    to_hex(&sha2::Sha256::digest(
        canonical_json(&json!(["toolkit.confirmation.v1", principal, id])).as_bytes(),
    ))
}

/// A confirmation checked and marked used: its run's outcome is recorded with
/// [`Approvals::confirmed_ran`].
#[derive(Debug)]
pub(crate) struct Redeemed {
    key: String,
    attempt: u32,
}

impl Approvals {
    /// A confirmation of the previewed call of `tool` with `arguments` (without
    /// `confirmed`) for `principal`, valid for the
    /// [confirmation TTL](Approvals::confirmation_ttl) from the store's now.
    ///
    /// ```
    /// use toolkit::approval::{ApprovalKey, Approvals, MemoryApprovalStore};
    ///
    /// # futures_executor::block_on(async {
    /// let approvals = Approvals::new(ApprovalKey::new(*b"an application secret of 32 bytes")?, MemoryApprovalStore::new());
    /// let confirmation = approvals
    ///     .confirmation(&toolkit::Principal::local("user:7")?, "delete_pages", serde_json::json!({"ids": [1, 2]}))
    ///     .await?;
    /// assert_eq!(confirmation.expires_at - confirmation.issued_at, 600);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub async fn confirmation(
        &self,
        principal: &Principal,
        tool: &str,
        arguments: Value,
    ) -> Result<Confirmation, ApprovalError> {
        let now = self.store_now().await?;
        let digest = digest(&arguments);
        let id = super::request::made_up_id("confirmation", principal.key(), tool, &digest);
        let mut confirmation = Confirmation {
            id,
            principal: principal.clone(),
            tool: tool.to_owned(),
            arguments,
            digest,
            issued_at: now,
            expires_at: now.saturating_add(self.confirmation_ttl.as_secs()),
            signature: String::new(),
        };
        confirmation.signature = self.sign(&payload(&confirmation));
        Ok(confirmation)
    }

    /// Checks `confirmation` for a call made for `principal` and marks it used:
    /// its signature (current or previous key), its principal, its arguments'
    /// digest, its expiry on the store's clock, and that it was never used before,
    /// in any process. Whoever calls this runs the call only on `Ok`.
    pub(crate) async fn redeem_confirmation(
        &self,
        principal: &Principal,
        confirmation: &Confirmation,
    ) -> Result<Redeemed, ApprovalError> {
        self.verify(&payload(confirmation), &confirmation.signature)?;
        if confirmation.principal != *principal {
            return Err(ApprovalError::WrongPrincipal);
        }
        if digest(&confirmation.arguments) != confirmation.digest {
            return Err(ApprovalError::ArgumentsAltered);
        }
        let now = self.store_now().await?;
        if now > confirmation.expires_at {
            return Err(ApprovalError::Expired {
                expired_at: confirmation.expires_at,
            });
        }
        // The claim's lease lasts as long as the record: a confirmed call runs at
        // most once, even when its run dies half-way (the person asks again).
        let keep_until = confirmation.expires_at.saturating_add(CLOCK_SKEW_SECONDS);
        let key = used_key(principal, &confirmation.id);
        match self
            .store
            .claim(&key, keep_until, keep_until)
            .await
            .map_err(ApprovalError::Store)?
        {
            Claim::Won { attempt } => Ok(Redeemed { key, attempt }),
            Claim::Held { .. } | Claim::Done => Err(ApprovalError::AlreadyUsed),
        }
    }

    /// Records what the run of a redeemed confirmation came to. A store that
    /// fails here changes nothing: the confirmation stays used.
    pub(crate) async fn confirmed_ran(&self, redeemed: &Redeemed, response: &Response) {
        let outcome = RunOutcome::of(response);
        if let Err(error) = self
            .store
            .complete(&redeemed.key, redeemed.attempt, &outcome)
            .await
        {
            tracing::warn!(%error, "the outcome of a confirmed call was not recorded");
        }
    }
}
