//! Compiles the API contract in `proto/` with protox (pure Rust, no `protoc`
//! needed) and generates the tonic services. The encoded descriptor set is
//! kept for the gRPC reflection service.
//!
//! Also writes the table of the web app's files (`web/dist`, built and
//! committed), which `api::web` embeds in the binary and serves.

use std::{
    env, fs,
    path::{Path, PathBuf},
};

use prost::Message;
use sha2::{Digest, Sha256};

const PROTOS: &[&str] = &[
    "arbiter/v1/common.proto",
    "arbiter/v1/rules.proto",
    "arbiter/v1/positions.proto",
    "arbiter/v1/games.proto",
    "arbiter/v1/engine.proto",
    "arbiter/v1/players.proto",
];

/// The built web app.
const WEB_DIST: &str = "web/dist";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto");
    println!("cargo:rerun-if-changed={WEB_DIST}");
    let out = PathBuf::from(env::var("OUT_DIR")?);
    fs::write(out.join("web_files.rs"), web_files(Path::new(WEB_DIST))?)?;
    let fds = protox::compile(PROTOS, ["proto"])?;
    fs::write(out.join("arbiter_descriptor.bin"), fds.encode_to_vec())?;
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .compile_fds(fds)?;
    Ok(())
}

/// Rust source of a `&[WebFile]` with every file under `dist` (its path
/// from `dist`, its bytes by `include_bytes!`, and an entity tag from its
/// SHA-256), sorted by path.
fn web_files(dist: &Path) -> Result<String, Box<dyn std::error::Error>> {
    if !dist.join("index.html").is_file() {
        return Err(format!(
            "{}/index.html is missing: build the web app (npm run build in web/)",
            dist.display()
        )
        .into());
    }
    let mut files = Vec::new();
    collect_files(dist, &mut files)?;
    files.sort();
    let mut table = String::from("&[\n");
    for file in files {
        let path = file
            .strip_prefix(dist)?
            .to_str()
            .ok_or("a web file's path is not UTF-8")?;
        // An entity tag is a quoted string.
        let etag = format!(
            "\"{}\"",
            hex::encode(&Sha256::digest(fs::read(&file)?)[..8])
        );
        let absolute = fs::canonicalize(&file)?;
        table.push_str(&format!(
            "    WebFile {{ path: {path:?}, bytes: include_bytes!({absolute:?}), etag: {etag:?} }},\n"
        ));
    }
    table.push(']');
    Ok(table)
}

fn collect_files(dir: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_files(&path, files)?;
        } else {
            files.push(path);
        }
    }
    Ok(())
}
