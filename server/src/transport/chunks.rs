//! A response body of byte chunks already in memory, of known length: the MCP answers' parts and the
//! memory-mapped download files go out through it without a copy.

use std::task::Poll;

use bytes::Bytes;

/// A body of a few chunks already in memory, of known length (hyper writes them in one `writev`).
pub struct Chunks {
    chunks: List,
    remaining: u64,
}

/// The chunks not yet sent: up to [`INLINE`] held in place (an MCP answer's three parts), more in a queue.
enum List {
    Inline {
        chunks: [Bytes; INLINE],
        next: usize,
    },
    Queue(std::collections::VecDeque<Bytes>),
}

/// How many chunks a body holds without a queue of its own.
const INLINE: usize = 3;

impl Chunks {
    /// A body of `chunks`, in order.
    pub fn new(chunks: impl IntoIterator<Item = Bytes>) -> Chunks {
        let mut iterator = chunks.into_iter();
        let mut inline: [Bytes; INLINE] = Default::default();
        let mut held = 0;
        for slot in &mut inline {
            match iterator.next() {
                Some(chunk) => {
                    *slot = chunk;
                    held += 1;
                }
                None => break,
            }
        }
        let chunks = match iterator.next() {
            None => List::Inline {
                chunks: inline,
                // Empty slots at the front, so the held chunks end the array.
                next: 0,
            },
            Some(more) => List::Queue(inline.into_iter().chain([more]).chain(iterator).collect()),
        };
        let mut body = Chunks {
            chunks,
            remaining: 0,
        };
        if let List::Inline { chunks, next } = &mut body.chunks {
            chunks.rotate_right(INLINE - held);
            *next = INLINE - held;
        }
        body.remaining = match &body.chunks {
            List::Inline { chunks, .. } => chunks.iter().map(|chunk| chunk.len() as u64).sum(),
            List::Queue(chunks) => chunks.iter().map(|chunk| chunk.len() as u64).sum(),
        };
        body
    }

    fn pop_front(&mut self) -> Option<Bytes> {
        match &mut self.chunks {
            List::Inline { chunks, next } => {
                let chunk = chunks.get_mut(*next).map(std::mem::take)?;
                *next += 1;
                Some(chunk)
            }
            List::Queue(chunks) => chunks.pop_front(),
        }
    }
}

impl http_body::Body for Chunks {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        let next = self.pop_front();
        if let Some(chunk) = &next {
            self.remaining -= chunk.len() as u64;
        }
        Poll::Ready(next.map(|chunk| Ok(http_body::Frame::data(chunk))))
    }

    fn is_end_stream(&self) -> bool {
        match &self.chunks {
            List::Inline { next, .. } => *next == INLINE,
            List::Queue(chunks) => chunks.is_empty(),
        }
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact(self.remaining)
    }
}

#[cfg(test)]
mod tests {
    use http_body_util::BodyExt;

    use super::*;

    async fn read(chunks: Vec<&'static str>) -> (Vec<Bytes>, u64) {
        let mut body = Chunks::new(
            chunks
                .into_iter()
                .map(|chunk| Bytes::from_static(chunk.as_bytes())),
        );
        let length = http_body::Body::size_hint(&body).exact().unwrap();
        let mut frames = Vec::new();
        while let Some(frame) = body.frame().await {
            frames.push(frame.unwrap().into_data().unwrap());
        }
        assert!(http_body::Body::is_end_stream(&body));
        (frames, length)
    }

    #[tokio::test]
    async fn every_chunk_is_sent_once_in_order_with_the_exact_length() {
        for chunks in [
            vec![],
            vec!["a"],
            vec!["{\"id\":1,", "\"result\":{}", "}"],
            vec!["a", "bc", "def", "ghij", "klmno"],
        ] {
            let (frames, length) = read(chunks.clone()).await;
            assert_eq!(
                frames,
                chunks
                    .iter()
                    .map(|chunk| chunk.as_bytes())
                    .collect::<Vec<_>>(),
                "{chunks:?}"
            );
            assert_eq!(
                length,
                chunks.iter().map(|chunk| chunk.len() as u64).sum::<u64>()
            );
        }
    }
}
