//! Rich tool results: text, images, audio, links to resources and embedded
//! resources, beside (or instead of) a structured value.
//!
//! A tool returns [`Contents`]; over MCP each [`Content`] becomes one content block
//! of the `tools/call` result (`text`, `image`, `audio`, `resource_link`,
//! `resource`) and the structured value, if any, its `structuredContent`. A tool
//! returning `Contents` gets no `outputSchema` in `tools/list`: its result is not
//! one JSON shape.
//!
//! ```
//! use toolkit::content::{Contents, Image};
//!
//! let chart = Contents::new()
//!     .text("Sales by month:")
//!     .image(Image::new("iVBORw0KGgo=", "image/png"));
//! assert_eq!(chart.items().len(), 2);
//! ```
//!
//! In process (and for providers whose tool results are text), the result is its
//! JSON: `{"toolkit/content": [blocks...], "toolkit/structured": value}` with each
//! block in MCP's shape.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The key of the content blocks in a [`Contents`] result's JSON.
pub const CONTENT_KEY: &str = "toolkit/content";
/// The key of the structured value in a [`Contents`] result's JSON.
pub const STRUCTURED_KEY: &str = "toolkit/structured";

/// An image, base64-encoded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Image {
    /// The image bytes in standard base64.
    pub data: String,
    /// Its media type (`image/png`, `image/jpeg`, ...).
    pub mime_type: String,
}

impl Image {
    /// An image from its base64 text and media type.
    pub fn new(base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Image {
            data: base64.into(),
            mime_type: mime_type.into(),
        }
    }
}

/// A sound, base64-encoded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Audio {
    /// The audio bytes in standard base64.
    pub data: String,
    /// Its media type (`audio/wav`, `audio/mpeg`, ...).
    pub mime_type: String,
}

impl Audio {
    /// A sound from its base64 text and media type.
    pub fn new(base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Audio {
            data: base64.into(),
            mime_type: mime_type.into(),
        }
    }
}

/// A link to a resource the client may fetch (MCP `resource_link`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLink {
    /// Where the resource is.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// What it is, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its media type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}

impl ResourceLink {
    /// A link to `uri`, called `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceLink {
            uri: uri.into(),
            name: name.into(),
            description: None,
            mime_type: None,
        }
    }
}

/// A resource's contents, carried in the result (MCP `resource`): text, or bytes
/// in base64.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmbeddedResource {
    /// The resource's URI.
    pub uri: String,
    /// Its media type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its text, for a text resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Its bytes in base64, for a binary resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
}

impl EmbeddedResource {
    /// A text resource.
    pub fn text(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        EmbeddedResource {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            text: Some(text.into()),
            blob: None,
        }
    }

    /// A binary resource, its bytes in base64.
    pub fn blob(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        base64: impl Into<String>,
    ) -> Self {
        EmbeddedResource {
            uri: uri.into(),
            mime_type: Some(mime_type.into()),
            text: None,
            blob: Some(base64.into()),
        }
    }
}

/// One piece of a rich result, serialized as an MCP content block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Content {
    /// Text for the model.
    Text {
        /// The text.
        text: String,
    },
    /// An image.
    Image(Image),
    /// A sound.
    Audio(Audio),
    /// A link to a resource.
    ResourceLink(ResourceLink),
    /// An embedded resource.
    Resource {
        /// The resource.
        resource: EmbeddedResource,
    },
}

impl From<Image> for Content {
    fn from(image: Image) -> Self {
        Content::Image(image)
    }
}

impl From<Audio> for Content {
    fn from(audio: Audio) -> Self {
        Content::Audio(audio)
    }
}

impl From<ResourceLink> for Content {
    fn from(link: ResourceLink) -> Self {
        Content::ResourceLink(link)
    }
}

impl From<EmbeddedResource> for Content {
    fn from(resource: EmbeddedResource) -> Self {
        Content::Resource { resource }
    }
}

impl From<String> for Content {
    fn from(text: String) -> Self {
        Content::Text { text }
    }
}

impl From<&str> for Content {
    fn from(text: &str) -> Self {
        Content::Text {
            text: text.to_owned(),
        }
    }
}

/// A tool's rich result: content blocks in order, and optionally a structured
/// value beside them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Contents {
    items: Vec<Content>,
    structured: Option<Value>,
}

impl Contents {
    /// No content yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds any content.
    #[must_use]
    pub fn push(mut self, content: impl Into<Content>) -> Self {
        self.items.push(content.into());
        self
    }

    /// Adds text.
    #[must_use]
    pub fn text(self, text: impl Into<String>) -> Self {
        self.push(Content::Text { text: text.into() })
    }

    /// Adds an image.
    #[must_use]
    pub fn image(self, image: Image) -> Self {
        self.push(image)
    }

    /// Adds a sound.
    #[must_use]
    pub fn audio(self, audio: Audio) -> Self {
        self.push(audio)
    }

    /// Adds a link to a resource.
    #[must_use]
    pub fn resource_link(self, link: ResourceLink) -> Self {
        self.push(link)
    }

    /// Adds an embedded resource.
    #[must_use]
    pub fn resource(self, resource: EmbeddedResource) -> Self {
        self.push(resource)
    }

    /// Sets the structured value (MCP `structuredContent`).
    #[must_use]
    pub fn structured(mut self, value: impl Serialize) -> Self {
        self.structured = Some(serde_json::to_value(value).unwrap_or_else(|error| {
            Value::String(format!("the structured value did not serialize: {error}"))
        }));
        self
    }

    /// The content blocks.
    #[must_use]
    pub fn items(&self) -> &[Content] {
        &self.items
    }

    /// The structured value.
    #[must_use]
    pub fn structured_value(&self) -> Option<&Value> {
        self.structured.as_ref()
    }

    /// The content blocks and structured value of a result's JSON, when it is a
    /// [`Contents`]'s (`None` for any other result).
    #[must_use]
    pub fn from_result(value: &Value) -> Option<(Vec<Content>, Option<Value>)> {
        let object = value.as_object()?;
        let blocks = object.get(CONTENT_KEY)?;
        if object
            .keys()
            .any(|key| key != CONTENT_KEY && key != STRUCTURED_KEY)
        {
            return None;
        }
        let items = Vec::<Content>::deserialize(blocks).ok()?;
        Some((items, object.get(STRUCTURED_KEY).cloned()))
    }
}

impl Serialize for Contents {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap as _;
        let mut map = serializer.serialize_map(Some(1 + usize::from(self.structured.is_some())))?;
        map.serialize_entry(CONTENT_KEY, &self.items)?;
        if let Some(structured) = &self.structured {
            map.serialize_entry(STRUCTURED_KEY, structured)?;
        }
        map.end()
    }
}

/// The schema marks a rich result: its `toolkit/content` property tells renderers
/// (MCP's leaves the tool without `outputSchema`).
impl schemars::JsonSchema for Contents {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Contents".into()
    }

    fn json_schema(_generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "properties": {
                CONTENT_KEY: {"type": "array", "items": {"type": "object"}},
                STRUCTURED_KEY: {},
            },
            "required": [CONTENT_KEY],
        })
    }
}

/// Whether a tool's output schema is a [`Contents`] result's.
#[must_use]
pub fn is_contents_schema(schema: &serde_json::Map<String, Value>) -> bool {
    schema
        .get("properties")
        .and_then(|properties| properties.get(CONTENT_KEY))
        .is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn contents_serialize_as_mcp_blocks_and_read_back() {
        let contents = Contents::new()
            .text("hi")
            .image(Image::new("AAAA", "image/png"))
            .audio(Audio::new("BBBB", "audio/wav"))
            .resource_link(ResourceLink::new("file:///a.txt", "a.txt"))
            .resource(EmbeddedResource::text("test://r", "text/plain", "body"))
            .structured(json!({"n": 1}));
        let value = serde_json::to_value(&contents).unwrap();
        assert_eq!(
            value,
            json!({
                "toolkit/content": [
                    {"type": "text", "text": "hi"},
                    {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                    {"type": "audio", "data": "BBBB", "mimeType": "audio/wav"},
                    {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt"},
                    {"type": "resource", "resource": {"uri": "test://r", "mimeType": "text/plain", "text": "body"}},
                ],
                "toolkit/structured": {"n": 1},
            })
        );
        let (items, structured) = Contents::from_result(&value).unwrap();
        assert_eq!(items, contents.items());
        assert_eq!(structured, Some(json!({"n": 1})));
        // Any other object is not a rich result.
        assert_eq!(
            Contents::from_result(&json!({"toolkit/content": [], "x": 1})),
            None
        );
        assert_eq!(Contents::from_result(&json!({"content": []})), None);
    }
}
