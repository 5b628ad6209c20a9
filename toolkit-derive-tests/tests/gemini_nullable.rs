//! A list whose entries may be `null` (`Vec<Option<T>>`) renders for Gemini
//! `parameters` with `nullable: true` on its items, whatever `T` is: a struct, an
//! enum or a number. Pinned with insta (`tests/snapshots/`); accept an intended
//! change with `INSTA_UPDATE=always cargo test -p toolkit-derive-tests --test
//! gemini_nullable`.

use schemars::JsonSchema;
use serde::Deserialize;
use toolkit::{Dialect, registry, render::render_tool, tool};

/// One booked hour.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)] // read by the schema only
struct Slot {
    /// Who booked it.
    guest: String,
    /// How many seats.
    seats: u8,
}

/// How firmly an hour is held.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Hold {
    /// It may still move.
    Tentative,
    /// It is settled.
    Firm,
}

/// Set the day's hours.
#[tool(scope = shared, tier = auto)]
fn set_slots(
    /// One entry per hour; `null` for a free hour.
    slots: Vec<Option<Slot>>,
    /// How each hour is held; `null` where it is free.
    holds: Vec<Option<Hold>>,
    /// The seats left each hour; `null` where unknown.
    seats: Vec<Option<u8>>,
) -> String {
    format!("{} {} {}", slots.len(), holds.len(), seats.len())
}

#[test]
fn lists_of_optional_structs_enums_and_numbers_are_nullable_items() {
    let tool = registry().get("set_slots").expect("registered");
    let rendered =
        render_tool(tool, Dialect::GeminiParameters).unwrap_or_else(|error| panic!("{error}"));
    // Keys sorted: serde_json keeps insertion order in builds where another crate
    // turns on `preserve_order`, and the golden must not depend on that.
    insta::with_settings!({sort_maps => true}, {
        insta::assert_json_snapshot!(rendered);
    });
    // The same calls are still accepted, `null` entries included.
    let response = futures_executor::block_on(registry().call(
        "set_slots",
        r#"{"slots": [null, {"guest": "Ada", "seats": 2}], "holds": ["firm", null], "seats": [null, 3]}"#,
        &toolkit::Context::new(),
    ));
    assert_eq!(response.result(), Some(&serde_json::json!("2 2 2")));
}
