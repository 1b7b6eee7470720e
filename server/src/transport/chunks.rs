//! A response body of byte chunks already in memory, of known length: the MCP answers' parts and the
//! memory-mapped download files go out through it without a copy.

use std::task::Poll;

use bytes::Bytes;

/// A body of a few chunks already in memory, of known length (hyper writes them in one `writev`).
pub struct Chunks {
    chunks: std::collections::VecDeque<Bytes>,
    remaining: u64,
}

impl Chunks {
    /// A body of `chunks`, in order.
    pub fn new(chunks: impl IntoIterator<Item = Bytes>) -> Chunks {
        let chunks: std::collections::VecDeque<Bytes> = chunks.into_iter().collect();
        let remaining = chunks.iter().map(|chunk| chunk.len() as u64).sum();
        Chunks { chunks, remaining }
    }
}

impl http_body::Body for Chunks {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        let next = self.chunks.pop_front();
        if let Some(chunk) = &next {
            self.remaining -= chunk.len() as u64;
        }
        Poll::Ready(next.map(|chunk| Ok(http_body::Frame::data(chunk))))
    }

    fn is_end_stream(&self) -> bool {
        self.chunks.is_empty()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact(self.remaining)
    }
}
