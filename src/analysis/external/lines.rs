//! An engine's output, line by line, each at most [`MAX_LINE`] bytes.

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// The longest line read from an engine: a 16-line multi-PV `info` is
/// well under 2 KiB.
pub const MAX_LINE: usize = 16 * 1024;

/// Why no line was read.
#[derive(Debug)]
pub(super) enum LineError {
    /// The output ended or failed (the engine exited or closed it).
    Ended,
    TooLong,
}

/// Reads lines without holding more than [`MAX_LINE`] bytes of one. A read
/// cancelled midway loses nothing: the part read stays in the buffer.
pub(super) struct Lines<R> {
    reader: BufReader<R>,
    line: Vec<u8>,
}

impl<R: AsyncRead + Unpin> Lines<R> {
    pub(super) fn new(output: R) -> Lines<R> {
        Lines {
            reader: BufReader::new(output),
            line: Vec::new(),
        }
    }

    /// The next line, without its end (`\n` or `\r\n`).
    pub(super) async fn next(&mut self) -> Result<String, LineError> {
        loop {
            let available = self.reader.fill_buf().await.map_err(|_| LineError::Ended)?;
            if available.is_empty() {
                return Err(LineError::Ended);
            }
            let (part, end) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (&available[..i], Some(i + 1)),
                None => (available, None),
            };
            if self.line.len() + part.len() > MAX_LINE {
                return Err(LineError::TooLong);
            }
            self.line.extend_from_slice(part);
            let used = end.unwrap_or(part.len());
            self.reader.consume(used);
            if end.is_some() {
                let line = String::from_utf8_lossy(&self.line)
                    .trim_end_matches('\r')
                    .to_owned();
                self.line.clear();
                return Ok(line);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn reads_lines_and_refuses_long_ones() {
        let output = b"uciok\r\nreadyok\npartial".to_vec();
        let mut lines = Lines::new(&output[..]);
        assert_eq!(lines.next().await.unwrap(), "uciok");
        assert_eq!(lines.next().await.unwrap(), "readyok");
        assert!(matches!(lines.next().await, Err(LineError::Ended)));
        let long = vec![b'x'; MAX_LINE + 1];
        assert!(matches!(
            Lines::new(&long[..]).next().await,
            Err(LineError::TooLong)
        ));
    }
}
