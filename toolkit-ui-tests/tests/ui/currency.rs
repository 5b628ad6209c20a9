//! `x-currency` marks an amount in the currency's minor unit: a whole number.

use toolkit::tool;

/// Pay an invoice.
#[tool(scope = shared, tier = approve)]
fn create_payments(
    /// The amount.
    #[schemars(extend("x-currency" = "EUR"))]
    amount: f64,
    /// Accepted: cents.
    #[schemars(extend("x-currency" = "EUR"))]
    tip: Option<i64>,
) -> f64 {
    let _ = tip;
    amount
}

fn main() {}
