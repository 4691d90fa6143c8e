//! Compiles the API contract in `proto/` with protox (pure Rust, no `protoc`
//! needed) and generates the tonic services. The encoded descriptor set is
//! kept for the gRPC reflection service.

use std::{env, fs, path::PathBuf};

use prost::Message;

const PROTOS: &[&str] = &[
    "arbiter/v1/common.proto",
    "arbiter/v1/rules.proto",
    "arbiter/v1/positions.proto",
    "arbiter/v1/games.proto",
    "arbiter/v1/engine.proto",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto");
    let fds = protox::compile(PROTOS, ["proto"])?;
    let out = PathBuf::from(env::var("OUT_DIR")?);
    fs::write(out.join("arbiter_descriptor.bin"), fds.encode_to_vec())?;
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .compile_fds(fds)?;
    Ok(())
}
