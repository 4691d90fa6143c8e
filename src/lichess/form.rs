//! An HTTP call as the endpoints read it: its path, its query and body
//! fields (a form, or a JSON object whose nested objects read as dotted
//! names, `clock.limit`), and what a gRPC call made for it carries.

use std::collections::HashMap;

use bytes::Bytes;
use http::{Extensions, HeaderMap, Method, Request, header};
use http_body_util::{BodyExt, Limited};
use tonic::{body::Body, metadata::MetadataMap};

use super::answer::Answer;

/// The largest body an endpoint reads (a challenge, a chat line, a token
/// list): Lichess's own bodies are a few hundred bytes.
pub const MAX_BODY_BYTES: usize = 16 * 1024;

/// A call of the Lichess API.
#[derive(Clone)]
pub(super) struct Call {
    pub method: Method,
    pub path: String,
    headers: HeaderMap,
    extensions: Extensions,
    /// The raw body (`/api/token/test` reads it as it is).
    pub body: Bytes,
    /// The query's fields, then the body's.
    fields: HashMap<String, String>,
}

impl Call {
    /// Reads `request`'s body (at most [`MAX_BODY_BYTES`]).
    pub async fn read(request: Request<Body>) -> Result<Call, Answer> {
        let (parts, body) = request.into_parts();
        let body = match Limited::new(body, MAX_BODY_BYTES).collect().await {
            Ok(collected) => collected.to_bytes(),
            Err(_) => {
                return Err(Answer::error(
                    http::StatusCode::PAYLOAD_TOO_LARGE,
                    format!("the body is over {MAX_BODY_BYTES} bytes, or was cut short"),
                ));
            }
        };
        let mut fields = HashMap::new();
        if let Some(query) = parts.uri.query() {
            fields.extend(url::form_urlencoded::parse(query.as_bytes()).into_owned());
        }
        let json = parts
            .headers
            .get(header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.starts_with("application/json"));
        if json {
            match serde_json::from_slice::<serde_json::Value>(&body) {
                Ok(value) => flatten("", &value, &mut fields),
                Err(e) => {
                    return Err(Answer::bad_request(format!("the body is not JSON: {e}")));
                }
            }
        } else {
            fields.extend(url::form_urlencoded::parse(&body).into_owned());
        }
        Ok(Call {
            method: parts.method,
            path: parts.uri.path().to_owned(),
            headers: parts.headers,
            extensions: parts.extensions,
            body,
            fields,
        })
    }

    /// The field `name`, if given and not empty.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .get(name)
            .map(String::as_str)
            .filter(|value| !value.is_empty())
    }

    /// The boolean field `name`: `true`/`false` in any case (Python
    /// clients send `True`), or `1`/`0`.
    pub fn flag(&self, name: &str) -> Result<Option<bool>, Answer> {
        let Some(value) = self.field(name) else {
            return Ok(None);
        };
        if value.eq_ignore_ascii_case("true") || value == "1" {
            Ok(Some(true))
        } else if value.eq_ignore_ascii_case("false") || value == "0" {
            Ok(Some(false))
        } else {
            Err(Answer::bad_request(format!(
                "{name} must be true or false, not {value:?}"
            )))
        }
    }

    /// The whole-number field `name`.
    pub fn number(&self, name: &str) -> Result<Option<u64>, Answer> {
        self.field(name)
            .map(|value| {
                value.parse::<u64>().map_err(|_| {
                    Answer::bad_request(format!("{name} must be a whole number, not {value:?}"))
                })
            })
            .transpose()
    }

    /// A gRPC request for this call: its headers as metadata, its
    /// connection's address.
    pub fn request<T>(&self, message: T) -> tonic::Request<T> {
        tonic::Request::from_parts(
            MetadataMap::from_headers(self.headers.clone()),
            self.extensions.clone(),
            message,
        )
    }

    /// Whether the call's `Accept` header names `content_type`.
    pub fn accepts(&self, content_type: &str) -> bool {
        self.headers
            .get_all(header::ACCEPT)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .any(|value| {
                value
                    .split(',')
                    .any(|named| named.trim().starts_with(content_type))
            })
    }

    /// The address the call came from (none but over TCP).
    pub fn remote_addr(&self) -> Option<std::net::SocketAddr> {
        self.request(()).remote_addr()
    }

    /// The bearer token the call was made with, if any.
    pub fn token(&self) -> Option<&str> {
        let value = self.headers.get(header::AUTHORIZATION)?.to_str().ok()?;
        let (scheme, token) = value.split_once(' ')?;
        scheme
            .eq_ignore_ascii_case("bearer")
            .then(|| token.trim())
            .filter(|token| !token.is_empty())
    }
}

/// `value`'s fields into `fields`, nested objects' under dotted names.
fn flatten(prefix: &str, value: &serde_json::Value, fields: &mut HashMap<String, String>) {
    let serde_json::Value::Object(object) = value else {
        return;
    };
    for (name, value) in object {
        let name = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}.{name}")
        };
        match value {
            serde_json::Value::Object(_) => flatten(&name, value, fields),
            serde_json::Value::String(text) => {
                fields.insert(name, text.clone());
            }
            serde_json::Value::Null => {}
            other => {
                fields.insert(name, other.to_string());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_json_objects_read_as_dotted_names() {
        let mut fields = HashMap::new();
        let value = serde_json::json!({"rated": true, "clock": {"limit": 300, "increment": 2}, "color": "white", "fen": null});
        flatten("", &value, &mut fields);
        assert_eq!(fields["rated"], "true");
        assert_eq!(fields["clock.limit"], "300");
        assert_eq!(fields["clock.increment"], "2");
        assert_eq!(fields["color"], "white");
        assert!(!fields.contains_key("fen"));
    }

    #[tokio::test]
    async fn flags_read_in_any_case() {
        let request = http::Request::get("/api/games/user/a?moves=True&clocks=0&tags=maybe")
            .body(Body::empty())
            .unwrap();
        let call = Call::read(request).await.ok().unwrap();
        assert_eq!(call.flag("moves").ok(), Some(Some(true)));
        assert_eq!(call.flag("clocks").ok(), Some(Some(false)));
        assert_eq!(call.flag("evals").ok(), Some(None));
        assert!(call.flag("tags").is_err());
    }
}
