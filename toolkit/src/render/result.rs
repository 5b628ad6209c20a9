//! A tool's result as each provider's tool-result message takes it.
//!
//! A plain result (any JSON) is its [`Response::to_json`] text in every provider
//! dialect, and `structuredContent` with that text over MCP, except a string,
//! which MCP gets as its own text (not JSON-quoted) and no `structuredContent`.
//! A rich result
//! ([`Contents`](crate::content::Contents)) keeps each block in the provider's own
//! part type where that provider's tool result accepts the kind, and becomes a
//! text note naming what was left out where it does not (listed in
//! [`RenderedResult::replaced`], so an application can log it or refuse). What
//! each provider accepts, from its API reference and SDK types:
//!
//! | kind | OpenAI Chat tool message | OpenAI Responses `function_call_output` | Anthropic `tool_result` | Gemini `functionResponse` | MCP |
//! |---|---|---|---|---|---|
//! | text | text part | `input_text` | `text` | `response.output` | `text` |
//! | image | note | `input_image` (data URL) | `image` (jpeg, png, gif, webp) | `parts[].inlineData` (png, jpeg, webp, heic, heif) | `image` |
//! | audio | note | note | note | note | `audio` |
//! | resource link | note | note | note | note | `resource_link` |
//! | embedded text resource | text part | `input_text` | `text` | `response.output` | `resource` |
//! | embedded binary resource | note | `input_file` (PDF, text) or `input_image` | `document` (PDF) or `image` | `parts[].inlineData` (images) | `resource` |
//! | structured value | JSON text part | JSON `input_text` | JSON `text` | `response.structured` | `structuredContent` |
//!
//! A note is a text block like `[audio (audio/wav) not shown: OpenAI Chat tool
//! messages take text only]`, in the block's place, so the model knows something
//! was there. The structured value goes to the model as JSON text where the
//! provider has no structured channel, as MCP advises servers to do for clients
//! that ignore `structuredContent`.

use serde_json::{Map, Value, json};

use super::Dialect;
use crate::content::{Content, Contents, EmbeddedResource};
use crate::response::Response;

// The `_meta` keys of the MCP server's flagged results (`toolkit::mcp::META_*`,
// which exist only with the `mcp` feature; a test there checks they agree).
const META_ERROR: &str = "toolkit/error";
const META_PREVIEW: &str = "toolkit/preview";
const META_PENDING_APPROVAL: &str = "toolkit/pending_approval";

/// One tool call's result rendered as the provider's tool-result message.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderedResult {
    /// The message or item to append to the conversation: an OpenAI Chat
    /// `{"role": "tool", ...}` message, a Responses `function_call_output` item,
    /// an Anthropic `tool_result` block, a Gemini `functionResponse` part, or an
    /// MCP `tools/call` result.
    pub message: Value,
    /// Each content block the provider does not accept, replaced by a text note.
    pub replaced: Vec<Replaced>,
}

/// A content block a provider's tool result does not accept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replaced {
    /// Its position among the result's blocks.
    pub index: usize,
    /// Its kind: `image`, `audio`, `resource_link` or `resource`.
    pub kind: &'static str,
    /// Why it was replaced.
    pub reason: String,
}

/// Renders one call's `response` for `dialect`: `call_id` is the id the model
/// gave the call (OpenAI `tool_call_id`/`call_id`, Anthropic `tool_use_id`,
/// Gemini `id`; unused by MCP, whose result answers its JSON-RPC request) and
/// `tool` the tool's name (Gemini's `functionResponse` names it).
///
/// ```
/// use toolkit::content::{Contents, Image};
/// use toolkit::{Dialect, Response, render::render_result};
///
/// let chart = Contents::new().text("Sales:").image(Image::new("iVBORw0KGgo=", "image/png"));
/// let response = Response::Result(serde_json::to_value(&chart).unwrap());
/// let rendered = render_result(Dialect::Anthropic, "toolu_1", "get_sales", &response);
/// assert_eq!(rendered.message["content"][1]["type"], "image");
/// let rendered = render_result(Dialect::OpenAiChat, "call_1", "get_sales", &response);
/// assert_eq!(rendered.replaced[0].kind, "image");
/// ```
#[must_use]
pub fn render_result(
    dialect: Dialect,
    call_id: &str,
    tool: &str,
    response: &Response,
) -> RenderedResult {
    let rich = response.result().and_then(Contents::from_result);
    let mut replaced = Vec::new();
    // The three dialects whose tool result is either one text or a list of blocks.
    let text_or_blocks = |replaced: &mut Vec<Replaced>| match &rich {
        Some((items, structured)) => {
            Value::Array(blocks(items, structured.as_ref(), dialect, replaced))
        }
        None => Value::String(response.to_json().to_string()),
    };
    let message = match dialect {
        Dialect::OpenAiChat | Dialect::OpenAiChatStrict => {
            let content = text_or_blocks(&mut replaced);
            json!({"role": "tool", "tool_call_id": call_id, "content": content})
        }
        Dialect::OpenAiResponses | Dialect::OpenAiResponsesStrict => {
            let output = text_or_blocks(&mut replaced);
            json!({"type": "function_call_output", "call_id": call_id, "output": output})
        }
        Dialect::Anthropic | Dialect::AnthropicStrict => {
            let content = text_or_blocks(&mut replaced);
            let mut block =
                json!({"type": "tool_result", "tool_use_id": call_id, "content": content});
            if response.error().is_some() {
                block["is_error"] = Value::Bool(true);
            }
            block
        }
        Dialect::GeminiParameters | Dialect::GeminiJsonSchema => {
            gemini(call_id, tool, response, rich.as_ref(), &mut replaced)
        }
        Dialect::Mcp => mcp(response, rich.as_ref()),
    };
    RenderedResult { message, replaced }
}

/// The provider's own name for notes.
fn provider(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::OpenAiChat | Dialect::OpenAiChatStrict => "OpenAI Chat tool messages",
        Dialect::OpenAiResponses | Dialect::OpenAiResponsesStrict => {
            "OpenAI Responses function_call_output"
        }
        Dialect::Anthropic | Dialect::AnthropicStrict => "Anthropic tool_result",
        Dialect::GeminiParameters | Dialect::GeminiJsonSchema => "Gemini functionResponse",
        Dialect::Mcp => "MCP",
    }
}

/// Image types each provider's tool result takes.
fn accepts_image(dialect: Dialect, mime_type: &str) -> bool {
    match dialect {
        Dialect::OpenAiResponses | Dialect::OpenAiResponsesStrict => matches!(
            mime_type,
            "image/png" | "image/jpeg" | "image/gif" | "image/webp"
        ),
        Dialect::Anthropic | Dialect::AnthropicStrict => matches!(
            mime_type,
            "image/jpeg" | "image/png" | "image/gif" | "image/webp"
        ),
        Dialect::GeminiParameters | Dialect::GeminiJsonSchema => matches!(
            mime_type,
            "image/png" | "image/jpeg" | "image/webp" | "image/heic" | "image/heif"
        ),
        Dialect::OpenAiChat | Dialect::OpenAiChatStrict => false,
        Dialect::Mcp => true,
    }
}

/// What each provider's tool result takes instead of an unaccepted kind.
fn takes(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::OpenAiChat | Dialect::OpenAiChatStrict => "text only",
        Dialect::OpenAiResponses | Dialect::OpenAiResponsesStrict => {
            "text, images (png, jpeg, gif, webp) and files (PDF, text)"
        }
        Dialect::Anthropic | Dialect::AnthropicStrict => {
            "text, images (jpeg, png, gif, webp) and PDF documents"
        }
        Dialect::GeminiParameters | Dialect::GeminiJsonSchema => {
            "JSON and images (png, jpeg, webp, heic, heif)"
        }
        Dialect::Mcp => "every kind",
    }
}

/// A text note in place of a block the provider does not take.
fn note(
    dialect: Dialect,
    index: usize,
    kind: &'static str,
    what: &str,
    replaced: &mut Vec<Replaced>,
) -> String {
    let reason = format!("{} take {}", provider(dialect), takes(dialect));
    let text = format!("[{what} not shown: {reason}]");
    replaced.push(Replaced {
        index,
        kind,
        reason,
    });
    text
}

/// A text part in the provider's shape.
fn text_part(dialect: Dialect, text: &str) -> Value {
    match dialect {
        Dialect::OpenAiResponses | Dialect::OpenAiResponsesStrict => {
            json!({"type": "input_text", "text": text})
        }
        _ => json!({"type": "text", "text": text}),
    }
}

/// An image part in the provider's shape (the dialect takes images).
fn image_part(dialect: Dialect, mime_type: &str, data: &str) -> Value {
    match dialect {
        Dialect::OpenAiResponses | Dialect::OpenAiResponsesStrict => {
            json!({"type": "input_image", "image_url": format!("data:{mime_type};base64,{data}")})
        }
        // Anthropic.
        _ => json!({
            "type": "image",
            "source": {"type": "base64", "media_type": mime_type, "data": data},
        }),
    }
}

/// An embedded resource's text, with the URI it came from.
fn resource_text(resource: &EmbeddedResource, text: &str) -> String {
    format!("{}:\n{text}", resource.uri)
}

/// The last segment of a URI, for a file name (`file:///a/b.pdf` -> `b.pdf`).
fn file_name(uri: &str) -> &str {
    uri.rsplit('/')
        .find(|segment| !segment.is_empty())
        .unwrap_or("resource")
}

/// A resource link said in words.
fn link_text(link: &crate::content::ResourceLink) -> String {
    match &link.mime_type {
        Some(mime_type) => format!("resource link {} <{}> ({mime_type})", link.name, link.uri),
        None => format!("resource link {} <{}>", link.name, link.uri),
    }
}

/// The content parts of an OpenAI or Anthropic tool result.
fn blocks(
    items: &[Content],
    structured: Option<&Value>,
    dialect: Dialect,
    replaced: &mut Vec<Replaced>,
) -> Vec<Value> {
    let mut parts = Vec::with_capacity(items.len() + usize::from(structured.is_some()));
    for (index, item) in items.iter().enumerate() {
        let part = match item {
            Content::Text { text } => text_part(dialect, text),
            Content::Image(image) if accepts_image(dialect, &image.mime_type) => {
                image_part(dialect, &image.mime_type, &image.data)
            }
            Content::Image(image) => {
                let what = format!("image ({})", image.mime_type);
                text_part(dialect, &note(dialect, index, "image", &what, replaced))
            }
            Content::Audio(audio) => {
                let what = format!("audio ({})", audio.mime_type);
                text_part(dialect, &note(dialect, index, "audio", &what, replaced))
            }
            Content::ResourceLink(link) => {
                let what = link_text(link);
                text_part(
                    dialect,
                    &note(dialect, index, "resource_link", &what, replaced),
                )
            }
            Content::Resource { resource } => resource_part(dialect, index, resource, replaced),
        };
        parts.push(part);
    }
    if let Some(structured) = structured {
        parts.push(text_part(dialect, &structured.to_string()));
    }
    parts
}

/// An embedded resource in an OpenAI or Anthropic tool result.
fn resource_part(
    dialect: Dialect,
    index: usize,
    resource: &EmbeddedResource,
    replaced: &mut Vec<Replaced>,
) -> Value {
    if let Some(text) = &resource.text {
        return text_part(dialect, &resource_text(resource, text));
    }
    let mime_type = resource.mime_type.as_deref().unwrap_or("");
    let data = resource.blob.as_deref().unwrap_or("");
    if accepts_image(dialect, mime_type) {
        return image_part(dialect, mime_type, data);
    }
    let file = match dialect {
        Dialect::OpenAiResponses | Dialect::OpenAiResponsesStrict
            if mime_type == "application/pdf" || mime_type.starts_with("text/") =>
        {
            Some(json!({
                "type": "input_file",
                "filename": file_name(&resource.uri),
                "file_data": format!("data:{mime_type};base64,{data}"),
            }))
        }
        Dialect::Anthropic | Dialect::AnthropicStrict if mime_type == "application/pdf" => {
            Some(json!({
                "type": "document",
                "title": resource.uri,
                "source": {"type": "base64", "media_type": mime_type, "data": data},
            }))
        }
        _ => None,
    };
    file.unwrap_or_else(|| {
        let what = format!("resource {} ({mime_type})", resource.uri);
        text_part(dialect, &note(dialect, index, "resource", &what, replaced))
    })
}

/// A Gemini `functionResponse` part: the result as `response` (`output` or
/// `error`, the keys Gemini's reference names), images as `parts` beside it.
fn gemini(
    call_id: &str,
    tool: &str,
    response: &Response,
    rich: Option<&(Vec<Content>, Option<Value>)>,
    replaced: &mut Vec<Replaced>,
) -> Value {
    let dialect = Dialect::GeminiJsonSchema;
    let mut parts = Vec::new();
    let body = match (response, rich) {
        (_, Some((items, structured))) => {
            let mut texts = Vec::new();
            for (index, item) in items.iter().enumerate() {
                match item {
                    Content::Text { text } => texts.push(text.clone()),
                    Content::Image(image) if accepts_image(dialect, &image.mime_type) => {
                        parts.push(inline_data(&image.mime_type, &image.data));
                    }
                    Content::Image(image) => {
                        let what = format!("image ({})", image.mime_type);
                        texts.push(note(dialect, index, "image", &what, replaced));
                    }
                    Content::Audio(audio) => {
                        let what = format!("audio ({})", audio.mime_type);
                        texts.push(note(dialect, index, "audio", &what, replaced));
                    }
                    Content::ResourceLink(link) => {
                        texts.push(note(
                            dialect,
                            index,
                            "resource_link",
                            &link_text(link),
                            replaced,
                        ));
                    }
                    Content::Resource { resource } => {
                        let mime_type = resource.mime_type.as_deref().unwrap_or("");
                        match (&resource.text, &resource.blob) {
                            (Some(text), _) => texts.push(resource_text(resource, text)),
                            (None, Some(data)) if accepts_image(dialect, mime_type) => {
                                parts.push(inline_data(mime_type, data));
                            }
                            _ => {
                                let what = format!("resource {} ({mime_type})", resource.uri);
                                texts.push(note(dialect, index, "resource", &what, replaced));
                            }
                        }
                    }
                }
            }
            let mut body = Map::new();
            body.insert("output".to_owned(), Value::String(texts.join("\n")));
            if let Some(structured) = structured {
                body.insert("structured".to_owned(), structured.clone());
            }
            Value::Object(body)
        }
        (Response::Result(value), None) => json!({"output": value}),
        // `{"error": ...}`, `{"requires_confirmation": ...}`, `{"pending_approval": ...}`.
        (other, None) => other.to_json(),
    };
    let mut function_response = Map::new();
    function_response.insert("id".to_owned(), json!(call_id));
    function_response.insert("name".to_owned(), json!(tool));
    function_response.insert("response".to_owned(), body);
    if !parts.is_empty() {
        function_response.insert("parts".to_owned(), Value::Array(parts));
    }
    json!({"functionResponse": function_response})
}

fn inline_data(mime_type: &str, data: &str) -> Value {
    json!({"inlineData": {"mimeType": mime_type, "data": data}})
}

/// An MCP `tools/call` result, as the MCP server sends it: every kind as its own
/// block; an error, a preview and a pending approval flagged `isError` with the
/// model's text and the detail under `_meta`.
fn mcp(response: &Response, rich: Option<&(Vec<Content>, Option<Value>)>) -> Value {
    let flagged = |text: String, key: &str, detail: Value| {
        json!({
            "content": [{"type": "text", "text": text}],
            "isError": true,
            "_meta": {key: detail},
        })
    };
    let body = |json: Value| match json {
        Value::Object(object) if object.len() == 1 => object
            .into_iter()
            .next()
            .map_or(Value::Null, |(_, body)| body),
        other => other,
    };
    match (response, rich) {
        (_, Some((items, structured))) => {
            let mut result = json!({
                "content": serde_json::to_value(items).unwrap_or_else(|_| json!([])),
                "isError": false,
            });
            if let Some(structured) = structured {
                result["structuredContent"] = structured.clone();
            }
            result
        }
        // A string is text for the model as it is, not JSON-quoted, and no
        // `structuredContent` (an object in MCP's `CallToolResult`).
        (Response::Result(Value::String(text)), None) => json!({
            "content": [{"type": "text", "text": text}],
            "isError": false,
        }),
        (Response::Result(value), None) => json!({
            "content": [{"type": "text", "text": value.to_string()}],
            "structuredContent": value,
            "isError": false,
        }),
        (Response::Error(error), None) => {
            flagged(error.to_string(), META_ERROR, body(response.to_json()))
        }
        (Response::Preview(preview), None) => {
            let json = preview.to_json();
            flagged(json.to_string(), META_PREVIEW, json)
        }
        (Response::Pending(pending), None) => flagged(
            crate::error::ToolError::ApprovalRequired {
                tool: pending.tool.clone(),
            }
            .to_string(),
            META_PENDING_APPROVAL,
            body(response.to_json()),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::{Audio, Image, ResourceLink};
    use crate::error::ToolError;

    /// Every kind, one the providers take and one they don't of images and
    /// binary resources, and a structured value.
    fn rich() -> Response {
        let contents = Contents::new()
            .text("Sales by month:")
            .image(Image::new("UE5H", "image/png"))
            .image(Image::new("VElGRg==", "image/tiff"))
            .audio(Audio::new("UklGRg==", "audio/wav"))
            .resource_link(ResourceLink {
                uri: "file:///reports/q3.csv".to_owned(),
                name: "q3.csv".to_owned(),
                description: None,
                mime_type: Some("text/csv".to_owned()),
            })
            .resource(EmbeddedResource::text("memo://1", "text/plain", "Ship it."))
            .resource(EmbeddedResource::blob(
                "file:///reports/q3.pdf",
                "application/pdf",
                "JVBERg==",
            ))
            .resource(EmbeddedResource::blob(
                "file:///a.zip",
                "application/zip",
                "UEsD",
            ))
            .structured(json!({"total": 3}));
        Response::Result(serde_json::to_value(&contents).unwrap())
    }

    fn replaced(dialect: Dialect, kinds: &[(usize, &'static str)]) -> Vec<Replaced> {
        let reason = format!("{} take {}", provider(dialect), takes(dialect));
        kinds
            .iter()
            .map(|&(index, kind)| Replaced {
                index,
                kind,
                reason: reason.clone(),
            })
            .collect()
    }

    /// Each dialect, and its strict twin (results do not differ by strictness).
    fn render_both(dialects: [Dialect; 2], response: &Response) -> RenderedResult {
        let [loose, strict] =
            dialects.map(|dialect| render_result(dialect, "call_1", "get_sales", response));
        assert_eq!(loose, strict);
        loose
    }

    #[test]
    fn openai_chat_takes_text_only_and_says_what_it_left_out() {
        let rendered = render_both([Dialect::OpenAiChat, Dialect::OpenAiChatStrict], &rich());
        let note = "not shown: OpenAI Chat tool messages take text only]";
        assert_eq!(
            rendered.message,
            json!({
                "role": "tool",
                "tool_call_id": "call_1",
                "content": [
                    {"type": "text", "text": "Sales by month:"},
                    {"type": "text", "text": format!("[image (image/png) {note}")},
                    {"type": "text", "text": format!("[image (image/tiff) {note}")},
                    {"type": "text", "text": format!("[audio (audio/wav) {note}")},
                    {"type": "text", "text": format!("[resource link q3.csv <file:///reports/q3.csv> (text/csv) {note}")},
                    {"type": "text", "text": "memo://1:\nShip it."},
                    {"type": "text", "text": format!("[resource file:///reports/q3.pdf (application/pdf) {note}")},
                    {"type": "text", "text": format!("[resource file:///a.zip (application/zip) {note}")},
                    {"type": "text", "text": "{\"total\":3}"},
                ],
            })
        );
        assert_eq!(
            rendered.replaced,
            replaced(
                Dialect::OpenAiChat,
                &[
                    (1, "image"),
                    (2, "image"),
                    (3, "audio"),
                    (4, "resource_link"),
                    (6, "resource"),
                    (7, "resource")
                ]
            )
        );
    }

    #[test]
    fn openai_responses_takes_images_and_pdf_files() {
        let rendered = render_both(
            [Dialect::OpenAiResponses, Dialect::OpenAiResponsesStrict],
            &rich(),
        );
        let note = "not shown: OpenAI Responses function_call_output take text, images (png, jpeg, gif, webp) and files (PDF, text)]";
        assert_eq!(
            rendered.message,
            json!({
                "type": "function_call_output",
                "call_id": "call_1",
                "output": [
                    {"type": "input_text", "text": "Sales by month:"},
                    {"type": "input_image", "image_url": "data:image/png;base64,UE5H"},
                    {"type": "input_text", "text": format!("[image (image/tiff) {note}")},
                    {"type": "input_text", "text": format!("[audio (audio/wav) {note}")},
                    {"type": "input_text", "text": format!("[resource link q3.csv <file:///reports/q3.csv> (text/csv) {note}")},
                    {"type": "input_text", "text": "memo://1:\nShip it."},
                    {"type": "input_file", "filename": "q3.pdf", "file_data": "data:application/pdf;base64,JVBERg=="},
                    {"type": "input_text", "text": format!("[resource file:///a.zip (application/zip) {note}")},
                    {"type": "input_text", "text": "{\"total\":3}"},
                ],
            })
        );
        assert_eq!(
            rendered.replaced,
            replaced(
                Dialect::OpenAiResponses,
                &[
                    (2, "image"),
                    (3, "audio"),
                    (4, "resource_link"),
                    (7, "resource")
                ]
            )
        );
    }

    #[test]
    fn anthropic_takes_images_and_pdf_documents() {
        let rendered = render_both([Dialect::Anthropic, Dialect::AnthropicStrict], &rich());
        let note = "not shown: Anthropic tool_result take text, images (jpeg, png, gif, webp) and PDF documents]";
        assert_eq!(
            rendered.message,
            json!({
                "type": "tool_result",
                "tool_use_id": "call_1",
                "content": [
                    {"type": "text", "text": "Sales by month:"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "UE5H"}},
                    {"type": "text", "text": format!("[image (image/tiff) {note}")},
                    {"type": "text", "text": format!("[audio (audio/wav) {note}")},
                    {"type": "text", "text": format!("[resource link q3.csv <file:///reports/q3.csv> (text/csv) {note}")},
                    {"type": "text", "text": "memo://1:\nShip it."},
                    {"type": "document", "title": "file:///reports/q3.pdf", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERg=="}},
                    {"type": "text", "text": format!("[resource file:///a.zip (application/zip) {note}")},
                    {"type": "text", "text": "{\"total\":3}"},
                ],
            })
        );
        assert_eq!(
            rendered.replaced,
            replaced(
                Dialect::Anthropic,
                &[
                    (2, "image"),
                    (3, "audio"),
                    (4, "resource_link"),
                    (7, "resource")
                ]
            )
        );
    }

    #[test]
    fn gemini_puts_images_in_the_function_responses_parts() {
        let rendered = render_both(
            [Dialect::GeminiParameters, Dialect::GeminiJsonSchema],
            &rich(),
        );
        let note = "not shown: Gemini functionResponse take JSON and images (png, jpeg, webp, heic, heif)]";
        let output = [
            "Sales by month:".to_owned(),
            format!("[image (image/tiff) {note}"),
            format!("[audio (audio/wav) {note}"),
            format!("[resource link q3.csv <file:///reports/q3.csv> (text/csv) {note}"),
            "memo://1:\nShip it.".to_owned(),
            format!("[resource file:///reports/q3.pdf (application/pdf) {note}"),
            format!("[resource file:///a.zip (application/zip) {note}"),
        ]
        .join("\n");
        assert_eq!(
            rendered.message,
            json!({
                "functionResponse": {
                    "id": "call_1",
                    "name": "get_sales",
                    "response": {"output": output, "structured": {"total": 3}},
                    "parts": [{"inlineData": {"mimeType": "image/png", "data": "UE5H"}}],
                },
            })
        );
        assert_eq!(
            rendered.replaced,
            replaced(
                Dialect::GeminiJsonSchema,
                &[
                    (2, "image"),
                    (3, "audio"),
                    (4, "resource_link"),
                    (6, "resource"),
                    (7, "resource")
                ]
            )
        );
    }

    #[test]
    fn mcp_keeps_every_kind() {
        let rendered = render_result(Dialect::Mcp, "call_1", "get_sales", &rich());
        assert_eq!(rendered.replaced, []);
        assert_eq!(
            rendered.message,
            json!({
                "content": [
                    {"type": "text", "text": "Sales by month:"},
                    {"type": "image", "data": "UE5H", "mimeType": "image/png"},
                    {"type": "image", "data": "VElGRg==", "mimeType": "image/tiff"},
                    {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
                    {"type": "resource_link", "uri": "file:///reports/q3.csv", "name": "q3.csv", "mimeType": "text/csv"},
                    {"type": "resource", "resource": {"uri": "memo://1", "mimeType": "text/plain", "text": "Ship it."}},
                    {"type": "resource", "resource": {"uri": "file:///reports/q3.pdf", "mimeType": "application/pdf", "blob": "JVBERg=="}},
                    {"type": "resource", "resource": {"uri": "file:///a.zip", "mimeType": "application/zip", "blob": "UEsD"}},
                ],
                "structuredContent": {"total": 3},
                "isError": false,
            })
        );
    }

    #[test]
    fn a_plain_result_and_an_error_in_every_provider() {
        let ok = Response::Result(json!({"id": 7}));
        let failed = Response::Error(ToolError::failed("no such task"));
        let error_text = failed.to_json().to_string();
        let render = |dialect, response: &Response| {
            let rendered = render_result(dialect, "call_1", "get_task", response);
            assert_eq!(rendered.replaced, []);
            rendered.message
        };
        assert_eq!(
            render(Dialect::OpenAiChat, &ok),
            json!({"role": "tool", "tool_call_id": "call_1", "content": "{\"result\":{\"id\":7}}"})
        );
        assert_eq!(
            render(Dialect::OpenAiResponses, &failed),
            json!({"type": "function_call_output", "call_id": "call_1", "output": error_text})
        );
        assert_eq!(
            render(Dialect::Anthropic, &ok),
            json!({"type": "tool_result", "tool_use_id": "call_1", "content": "{\"result\":{\"id\":7}}"})
        );
        assert_eq!(
            render(Dialect::Anthropic, &failed),
            json!({"type": "tool_result", "tool_use_id": "call_1", "content": error_text, "is_error": true})
        );
        assert_eq!(
            render(Dialect::GeminiParameters, &ok),
            json!({"functionResponse": {"id": "call_1", "name": "get_task", "response": {"output": {"id": 7}}}})
        );
        assert_eq!(
            render(Dialect::GeminiJsonSchema, &failed),
            json!({"functionResponse": {"id": "call_1", "name": "get_task", "response": failed.to_json()}})
        );
        assert_eq!(
            render(Dialect::Mcp, &ok),
            json!({"content": [{"type": "text", "text": "{\"id\":7}"}], "structuredContent": {"id": 7}, "isError": false})
        );
        assert_eq!(
            render(Dialect::Mcp, &failed),
            json!({
                "content": [{"type": "text", "text": "no such task"}],
                "isError": true,
                "_meta": {"toolkit/error": failed.to_json()["error"]},
            })
        );
    }
}
