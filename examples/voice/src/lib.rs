//! USE-CASES D rebuilt on toolkit: a voice and text assistant whose tools are each
//! one annotated function.
//!
//! Before, adding a tool meant four edits (schema list, handler map, group table,
//! channel table). Here the function is the spec: `group = ".."` is its group,
//! `tags = [..]` the channels it is advertised on, and `gate = ".."` the feature
//! flag without which it is neither advertised nor callable. [`VoiceSurface`]
//! derives what one request sees from the registry, as a toolkit view over the
//! flags that are on; there is no other list.
//!
//! ```
//! use example_voice::{Channel, Home, VoiceSurface};
//! use toolkit::Context;
//!
//! let phone = VoiceSurface::new(Channel::Phone).with_flag("outbound_calls");
//! let names: Vec<&str> = phone.advertised().map(|tool| tool.name).collect();
//! assert_eq!(
//!     names,
//!     ["create_calls", "get_calendar", "get_weather", "search_contacts", "set_timer"]
//! );
//!
//! let ctx = Context::new().with(Home::sample());
//! // A `confirm` tool: the model sets `confirmed` once the user agreed to its preview.
//! let arguments = r#"{"contact_id": 1, "confirmed": true}"#;
//! let response = futures_executor::block_on(phone.call("create_calls", arguments, &ctx));
//! assert_eq!(
//!     response.result(),
//!     Some(&serde_json::json!("calling Ada Lovelace at +44 20 7946 0001"))
//! );
//! ```

mod home;
mod surface;
pub mod tools;

pub use home::{Contact, Event, Home, Message, Reminder, Timer};
pub use surface::{Channel, UnknownChannel, VoiceSurface};
