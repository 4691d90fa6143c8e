//! Statuses for requests the transport refuses before a handler sees them.
//!
//! tonic answers a request body that is not the method's protobuf message
//! with INTERNAL (tonic-prost follows gRPC's own table there), a message
//! over the size limit with OUT_OF_RANGE, and a grpc-web-text body that is
//! not base64 with INTERNAL. INTERNAL tells a caller the server is at fault
//! and OUT_OF_RANGE is not what any other gRPC implementation answers for an
//! oversized message; so these trailers-only answers are rewritten here to
//! INVALID_ARGUMENT and RESOURCE_EXHAUSTED, with the reason in an
//! `ErrorInfo` like every other error of the API. An unknown method's
//! UNIMPLEMENTED, which tonic sends without a message, gets one. Any other
//! answer passes through untouched.

use std::collections::HashMap;

use tonic::{Code, Status, body::Body};
use tonic_types::{ErrorDetails, StatusExt};

use super::error::DOMAIN;

/// The status tonic gave a request it could not read, and what it means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rejection {
    /// The body is not the method's request message (or no message at all).
    Malformed,
    /// The message is longer than the server accepts.
    TooLarge,
    /// No service here has the method (tonic says nothing more).
    UnknownMethod,
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
    const MALFORMED: [&str; 5] = [
        // tonic-prost: the bytes are not the request message.
        "failed to decode Protobuf message",
        // tonic: a gRPC frame cut short, or none at all.
        "Unexpected EOF decoding stream",
        "Missing request message",
        // tonic: a frame whose compression flag is neither 0 nor 1.
        "protocol error: received message with invalid compression flag",
        // tonic-web: a grpc-web-text body that is not base64.
        "tonic-web: malformed base64 request",
    ];
    match status.code() {
        Code::Internal if MALFORMED.iter().any(|m| status.message().starts_with(m)) => {
            Some(Rejection::Malformed)
        }
        Code::OutOfRange
            if status
                .message()
                .starts_with("Error, decoded message length too large") =>
        {
            Some(Rejection::TooLarge)
        }
        Code::Unimplemented if status.message().is_empty() => Some(Rejection::UnknownMethod),
        _ => None,
    }
}

/// The status a caller gets for `rejection`; `reason` is tonic's message.
fn answer(rejection: Rejection, reason: &str) -> Status {
    match rejection {
        Rejection::Malformed => Status::with_error_details(
            Code::InvalidArgument,
            format!(
                "the request is not a valid message of this method's request type \
                 (check the client was generated from arbiter's .proto files): {reason}"
            ),
            ErrorDetails::with_error_info("MALFORMED_REQUEST", DOMAIN, HashMap::new()),
        ),
        Rejection::TooLarge => {
            // "found N bytes, the limit is: M bytes"
            let mut numbers = reason
                .split(|c: char| !c.is_ascii_digit())
                .filter_map(|n| n.parse::<u64>().ok());
            let (found, limit) = (numbers.next(), numbers.next());
            let message = match (found, limit) {
                (Some(found), Some(limit)) => format!(
                    "the request message is {found} bytes; the server accepts at most {limit} bytes"
                ),
                _ => format!("the request message is too large: {reason}"),
            };
            let metadata: HashMap<String, String> =
                [("found_bytes", found), ("limit_bytes", limit)]
                    .into_iter()
                    .filter_map(|(key, n)| Some((key.to_owned(), n?.to_string())))
                    .collect();
            Status::with_error_details(
                Code::ResourceExhausted,
                message,
                ErrorDetails::with_error_info("REQUEST_TOO_LARGE", DOMAIN, metadata),
            )
        }
        Rejection::UnknownMethod => Status::with_error_details(
            Code::Unimplemented,
            "this server has no such method: it serves arbiter.v1.Rules, Positions, Games and \
             Engine, and grpc.health.v1.Health; server reflection lists every method",
            ErrorDetails::with_error_info("UNKNOWN_METHOD", DOMAIN, HashMap::new()),
        ),
    }
}

#[cfg(test)]
mod tests {
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
            "tonic-web: malformed base64 request",
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
        let tonic = Status::out_of_range(
            "Error, decoded message length too large: found 2097164 bytes, the limit is: 1048576 bytes",
        );
        let status = Status::from_header_map(refused(tonic).headers()).unwrap();
        assert_eq!(status.code(), Code::ResourceExhausted);
        assert_eq!(
            status.message(),
            "the request message is 2097164 bytes; the server accepts at most 1048576 bytes"
        );
        let info = status.get_details_error_info().unwrap();
        assert_eq!(info.reason, "REQUEST_TOO_LARGE");
        assert_eq!(info.metadata["limit_bytes"], "1048576");
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
