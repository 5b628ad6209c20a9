//! Golden schemas: every tool the voice channel advertises with all flags on,
//! exactly as each provider receives it. Any change to a tool's name, description,
//! parameters or rendering shows up here as a snapshot diff to review.

use example_voice::{Channel, VoiceSurface};
use toolkit::Dialect;

#[test]
fn voice_tools_in_every_dialect() {
    let voice = ["music", "outbound_calls", "smart_home"]
        .into_iter()
        .fold(VoiceSurface::new(Channel::Voice), VoiceSurface::with_flag);
    for dialect in Dialect::ALL {
        let tools = voice
            .render(dialect)
            .unwrap_or_else(|error| panic!("{error}"));
        // Keys in name order: a parsed `Value` keeps the rendering's key order
        // only in builds where some crate turns on serde_json's `preserve_order`
        // (the assistant's goldens pin the written order).
        insta::with_settings!({sort_maps => true}, {
            insta::assert_json_snapshot!(format!("voice_{}", dialect.name()), tools);
        });
    }
}
