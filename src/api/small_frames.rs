//! Response bodies cut into DATA frames small enough for h2 to copy.
//!
//! h2 chains a DATA payload of 1 KiB or more (on our connections, see
//! [`socket`](super::socket)) instead of copying it into its write buffer,
//! and flushes right after it: one `write` system call for each such
//! response, where smaller answers share one. The default `LegalMoves`
//! answer weighs 0.5-2 KiB (xiangqi's middlegame: 1.3 KiB). Cut into pieces
//! below the threshold, it is copied like a small answer and shares the
//! writes; each piece costs a 9-byte frame header. Chunks above
//! [`MAX_CUT`] (a long game's record) pass whole: one write for them is
//! cheaper than copying them.

use std::{
    pin::Pin,
    task::{Context, Poll, ready},
};

use http_body::{Body, Frame, SizeHint};
use prost::bytes::Bytes;

/// Largest piece: just below h2's chaining threshold without vectored
/// writes. A multiple of 3: grpc-web-text encodes each piece in base64 on
/// its own, and only the last may then carry padding, as a whole chunk's
/// would.
const PIECE: usize = 1023;
const _: () = assert!(PIECE.is_multiple_of(3));
/// Largest chunk that is cut (h2's default largest frame).
const MAX_CUT: usize = 16 * 1024;

/// `inner`, with every data chunk cut into pieces of at most [`PIECE`] bytes.
#[derive(Debug)]
pub struct SmallFrames<B> {
    inner: B,
    /// What is left of the chunk being cut.
    rest: Bytes,
}

impl<B> SmallFrames<B> {
    pub fn new(inner: B) -> SmallFrames<B> {
        SmallFrames {
            inner,
            rest: Bytes::new(),
        }
    }

    /// The next piece of the chunk being cut (empty if none is).
    fn next_piece(&mut self) -> Frame<Bytes> {
        let n = self.rest.len().min(PIECE);
        Frame::data(self.rest.split_to(n))
    }
}

impl<B> Body for SmallFrames<B>
where
    B: Body<Data = Bytes> + Unpin,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        if self.rest.is_empty() {
            match ready!(Pin::new(&mut self.inner).poll_frame(cx)) {
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(data) if data.len() <= MAX_CUT => self.rest = data,
                    Ok(data) => return Poll::Ready(Some(Ok(Frame::data(data)))),
                    Err(trailers) => return Poll::Ready(Some(Ok(trailers))),
                },
                other => return Poll::Ready(other),
            }
        }
        Poll::Ready(Some(Ok(self.next_piece())))
    }

    fn is_end_stream(&self) -> bool {
        self.rest.is_empty() && self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        let inner = self.inner.size_hint();
        let rest = self.rest.len() as u64;
        let mut hint = SizeHint::new();
        hint.set_lower(inner.lower() + rest);
        if let Some(upper) = inner.upper() {
            hint.set_upper(upper + rest);
        }
        hint
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use http::HeaderMap;

    use super::*;

    /// A body that yields the given frames.
    struct Frames(VecDeque<Frame<Bytes>>);

    impl Body for Frames {
        type Data = Bytes;
        type Error = std::convert::Infallible;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
            Poll::Ready(self.0.pop_front().map(Ok))
        }

        fn is_end_stream(&self) -> bool {
            self.0.is_empty()
        }
    }

    fn bytes(len: usize, seed: u8) -> Bytes {
        (0..len).map(|i| (i % 251) as u8 ^ seed).collect()
    }

    /// Chunks up to 16 KiB come out in pieces below 1 KiB, bigger ones
    /// whole, the trailers last, and the bytes in order.
    #[test]
    fn cuts_small_chunks_and_passes_the_rest() {
        let chunks = [
            bytes(2_500, 1),
            bytes(10, 2),
            bytes(MAX_CUT + 1, 3),
            bytes(1023, 4),
        ];
        let mut trailers = HeaderMap::new();
        trailers.insert("grpc-status", "0".parse().unwrap());
        let mut frames: VecDeque<_> = chunks.iter().cloned().map(Frame::data).collect();
        frames.push_back(Frame::trailers(trailers.clone()));
        let mut body = SmallFrames::new(Frames(frames));
        let mut cx = Context::from_waker(std::task::Waker::noop());
        let mut sizes = Vec::new();
        let mut data = Vec::new();
        let mut last_trailers = None;
        while let Poll::Ready(Some(Ok(frame))) = Pin::new(&mut body).poll_frame(&mut cx) {
            assert!(last_trailers.is_none(), "a frame after the trailers");
            match frame.into_data() {
                Ok(piece) => {
                    sizes.push(piece.len());
                    data.extend_from_slice(&piece);
                }
                Err(frame) => last_trailers = frame.into_trailers().ok(),
            }
        }
        assert_eq!(sizes, [1023, 1023, 454, 10, MAX_CUT + 1, 1023]);
        assert_eq!(data, chunks.concat());
        assert_eq!(last_trailers, Some(trailers));
        assert!(body.is_end_stream());
    }
}
