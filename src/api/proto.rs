//! Code generated from `proto/arbiter/v1/*.proto`.

#![allow(clippy::all, clippy::pedantic, missing_docs)]

tonic::include_proto!("arbiter.v1");

/// The encoded file descriptor set, for the reflection service.
pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("arbiter_descriptor");
