//! Statuses for requests the transport refuses before a handler sees them.
//!
//! tonic answers a request body that is not the method's protobuf message
//! with INTERNAL (tonic-prost follows gRPC's own table there), a message
//! over the size limit with OUT_OF_RANGE, and a grpc-web-text body that is
//! not base64 with INTERNAL. INTERNAL tells a caller the server is at fault
//! and OUT_OF_RANGE is not what any other gRPC implementation answers for an
//! oversized message; so these trailers-only answers are rewritten here to
//! INVALID_ARGUMENT and RESOURCE_EXHAUSTED, with the reason in an
//! `ErrorInfo` like every other error of the API. The same goes for the
//! other ways a body can be unreadable (a frame cut short, a compression
//! flag without a compression, gzip that does not decompress), a message
//! that decompresses beyond the limit, and an unsupported compression. An
//! unknown method's UNIMPLEMENTED, which tonic sends without a message, gets
//! one, and the health service's NOT_FOUND for a service it does not know
//! gets its reason. Any other answer passes through untouched.

use tonic::{Code, Status, body::Body};

use super::error::ErrorStatus;
use crate::reason::Reason;

/// The status tonic gave a request it could not read, and what it means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rejection {
    /// The body is not the method's request message (or no message at all).
    Malformed,
    /// The message is longer than the server accepts: `found` bytes (when
    /// tonic says) against `limit`.
    TooLarge { found: Option<u64>, limit: u64 },
    /// The request is compressed in a way the server does not read.
    UnsupportedCompression,
    /// No service here has the method (tonic says nothing more).
    UnknownMethod,
    /// Health.Check asked about a service the server does not have.
    UnknownService,
}

/// Rewrites a transport rejection (see the module docs); `response` as it
/// is otherwise. Used as a `tower::util::MapResponseLayer`.
pub fn rewrite(response: http::Response<Body>) -> http::Response<Body> {
    // A trailers-only answer carries its status in the headers; a normal
    // answer's status comes in the trailers, after the body.
    if response
        .headers()
        .get(Status::GRPC_STATUS)
        .is_none_or(|code| code.as_bytes() == b"0")
    {
        return response;
    }
    match Status::from_header_map(response.headers()) {
        Some(status) => match rejection(&status) {
            Some(rejection) => answer(rejection, status.message()).into_http(),
            None => response,
        },
        None => response,
    }
}

/// Which rejection `status` is, from tonic's own codes and wording.
fn rejection(status: &Status) -> Option<Rejection> {
    const MALFORMED: [&str; 6] = [
        // tonic-prost: the bytes are not the request message.
        "failed to decode Protobuf message",
        // tonic: a gRPC frame cut short, or none at all.
        "Unexpected EOF decoding stream",
        "Missing request message",
        // tonic: a frame's compression flag is neither 0 nor 1, or is 1
        // without a `grpc-encoding` (gRPC's spec says INTERNAL for that
        // too; the fault is still the caller's).
        "protocol error: received message with",
        // tonic: a compressed message that does not decompress.
        "Error decompressing",
        // tonic-web: a grpc-web(-text) body that cannot be read (not
        // base64, trailers inside it, ...).
        "tonic-web: ",
    ];
    let message = status.message();
    // The numbers in tonic's message, in order.
    let numbers = || {
        message
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|n| n.parse::<u64>().ok())
    };
    match status.code() {
        Code::Internal if MALFORMED.iter().any(|m| message.starts_with(m)) => {
            Some(Rejection::Malformed)
        }
        // "found N bytes, the limit is: M bytes"
        Code::OutOfRange if message.starts_with("Error, decoded message length too large") => {
            let mut numbers = numbers();
            let (found, limit) = (numbers.next(), numbers.next()?);
            Some(Rejection::TooLarge { found, limit })
        }
        // "size limit, of M bytes, exceeded while decompressing message"
        Code::ResourceExhausted if message.starts_with("Error decompressing: size limit") => {
            Some(Rejection::TooLarge {
                found: None,
                limit: numbers().next()?,
            })
        }
        Code::Unimplemented if message.starts_with("Content is compressed with") => {
            Some(Rejection::UnsupportedCompression)
        }
        Code::Unimplemented if message.is_empty() => Some(Rejection::UnknownMethod),
        // tonic-health's whole answer for a name it was never told about.
        Code::NotFound if message == "service not registered" => Some(Rejection::UnknownService),
        _ => None,
    }
}

/// The status a caller gets for `rejection`; `reason` is tonic's message.
fn answer(rejection: Rejection, reason: &str) -> Status {
    match rejection {
        Rejection::Malformed => ErrorStatus::new(
            Reason::MalformedRequest,
            format!(
                "the request is not a valid message of this method's request type \
                 (check the client was generated from arbiter's .proto files): {reason}"
            ),
        ),
        Rejection::TooLarge {
            found: Some(found),
            limit,
        } => ErrorStatus::new(
            Reason::RequestTooLarge,
            format!(
                "the request message is {found} bytes; the server accepts at most {limit} bytes"
            ),
        )
        .metadata("found_bytes", found)
        .metadata("limit_bytes", limit),
        Rejection::TooLarge { found: None, limit } => ErrorStatus::new(
            Reason::RequestTooLarge,
            format!(
                "the request message decompresses to more than {limit} bytes, \
                 the most the server accepts"
            ),
        )
        .metadata("limit_bytes", limit),
        Rejection::UnsupportedCompression => ErrorStatus::new(
            Reason::UnsupportedCompression,
            format!("{reason}: send requests uncompressed or compressed with gzip"),
        ),
        Rejection::UnknownMethod => ErrorStatus::new(
            Reason::UnknownMethod,
            "this server has no such method: it serves arbiter.v1.Rules, Positions, Games and \
             Engine, and grpc.health.v1.Health; server reflection lists every method",
        ),
        Rejection::UnknownService => ErrorStatus::new(
            Reason::UnknownService,
            "health knows no such service: ask about \"\" (the server), arbiter.v1.Rules, \
             arbiter.v1.Positions, arbiter.v1.Games or arbiter.v1.Engine",
        ),
    }
    .into()
}

#[cfg(test)]
mod tests {
    use tonic_types::StatusExt;

    use super::*;

    fn refused(status: Status) -> http::Response<Body> {
        rewrite(status.into_http())
    }

    #[test]
    fn malformed_bodies_are_invalid_arguments() {
        for message in [
            "failed to decode Protobuf message: invalid varint",
            "Unexpected EOF decoding stream.",
            "Missing request message.",
            "protocol error: received message with compressed-flag but no grpc-encoding was specified",
            "Error decompressing: unexpected end of file, while sending request",
            "tonic-web: malformed base64 request",
            "tonic-web: Invalid symbol 33, offset 0.",
        ] {
            let status =
                Status::from_header_map(refused(Status::internal(message)).headers()).unwrap();
            assert_eq!(status.code(), Code::InvalidArgument, "{message}");
            assert!(status.message().ends_with(message), "{status:?}");
            assert_eq!(
                status.get_details_error_info().unwrap().reason,
                "MALFORMED_REQUEST"
            );
        }
    }

    #[test]
    fn oversized_messages_exhaust_resources() {
        for (tonic, message, found) in [
            (
                Status::out_of_range(
                    "Error, decoded message length too large: found 2097164 bytes, the limit is: 1048576 bytes",
                ),
                "the request message is 2097164 bytes; the server accepts at most 1048576 bytes",
                Some("2097164"),
            ),
            (
                Status::resource_exhausted(
                    "Error decompressing: size limit, of 1048576 bytes, exceeded while decompressing message",
                ),
                "the request message decompresses to more than 1048576 bytes, the most the server accepts",
                None,
            ),
        ] {
            let status = Status::from_header_map(refused(tonic).headers()).unwrap();
            assert_eq!(
                (status.code(), status.message()),
                (Code::ResourceExhausted, message)
            );
            let info = status.get_details_error_info().unwrap();
            assert_eq!(info.reason, "REQUEST_TOO_LARGE");
            assert_eq!(info.metadata["limit_bytes"], "1048576");
            assert_eq!(info.metadata.get("found_bytes").map(String::as_str), found);
        }
    }

    #[test]
    fn unknown_compression_keeps_its_code_and_gains_a_reason() {
        let tonic =
            Status::unimplemented("Content is compressed with `deflate` which isn't supported");
        let status = Status::from_header_map(refused(tonic).headers()).unwrap();
        assert_eq!(status.code(), Code::Unimplemented);
        assert!(
            status.message().ends_with("compressed with gzip"),
            "{status:?}"
        );
        assert_eq!(
            status.get_details_error_info().unwrap().reason,
            "UNSUPPORTED_COMPRESSION"
        );
    }

    #[test]
    fn an_unknown_health_service_keeps_its_code_and_gains_a_reason() {
        let tonic = Status::not_found("service not registered");
        let status = Status::from_header_map(refused(tonic).headers()).unwrap();
        assert_eq!(status.code(), Code::NotFound);
        assert!(status.message().contains("arbiter.v1.Games"), "{status:?}");
        assert_eq!(
            status.get_details_error_info().unwrap().reason,
            "UNKNOWN_SERVICE"
        );
    }

    #[test]
    fn other_answers_pass_through() {
        for status in [
            Status::internal("internal error; it has been logged"),
            Status::out_of_range("something else"),
            Status::unimplemented("not in this build"),
            Status::invalid_argument("failed to decode Protobuf message: ours"),
            Status::ok(""),
        ] {
            let response = refused(status.clone());
            let after = Status::from_header_map(response.headers()).unwrap();
            assert_eq!(
                (after.code(), after.message()),
                (status.code(), status.message())
            );
        }
        let mut plain = http::Response::new(Body::default());
        plain.headers_mut().insert("x-test", "1".parse().unwrap());
        assert_eq!(rewrite(plain).headers()["x-test"], "1");
    }
}
