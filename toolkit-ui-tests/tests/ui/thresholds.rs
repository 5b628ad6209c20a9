//! Selection thresholds are fractions from 0 to 1; a percent written as an
//! integer is refused with that said, not with "use `90.0`".

use toolkit::testing::Thresholds;

fn main() {
    let _ = Thresholds::new().recall_at_1(90).mrr(0.9);
}
