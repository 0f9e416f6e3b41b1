//! Transport layer: newline-delimited frames over any async byte stream (stdio of the client,
//! pipes of the child server, or in-memory `tokio::io::duplex` pairs in tests).
//!
//! Reading is bounded: a line longer than the cap is skipped as it streams past (never held in
//! memory whole) and reported as [`Frame::Oversized`], so a peer cannot exhaust memory and the
//! proxy keeps serving. Writing is one task per direction fed by a bounded channel, so frames
//! leave in the order they were queued and a slow peer applies back-pressure.

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

/// Largest frame accepted in either direction (16 MiB).
pub const MAX_FRAME: usize = 16 * 1024 * 1024;

/// Frames queued for one peer before senders wait.
pub const QUEUE: usize = 1024;

/// One unit read from a peer.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// A complete line (without the trailing `\n` / `\r\n`), never empty.
    Line(Vec<u8>),
    /// A line longer than the cap; its bytes were discarded.
    Oversized { len: usize },
}

/// Reads newline-delimited frames with a size cap.
pub struct FrameReader<R> {
    inner: R,
    max: usize,
    eof: bool,
}

impl<R: AsyncBufRead + Unpin> FrameReader<R> {
    pub fn new(inner: R, max: usize) -> Self {
        FrameReader {
            inner,
            max,
            eof: false,
        }
    }

    /// The next non-blank frame, or `None` at end of stream.
    pub async fn next(&mut self) -> std::io::Result<Option<Frame>> {
        loop {
            match self.next_raw().await? {
                None => return Ok(None),
                Some(Frame::Line(l)) if l.iter().all(u8::is_ascii_whitespace) => continue,
                Some(f) => return Ok(Some(f)),
            }
        }
    }

    async fn next_raw(&mut self) -> std::io::Result<Option<Frame>> {
        if self.eof {
            return Ok(None);
        }
        let mut line: Vec<u8> = Vec::new();
        let mut total: usize = 0;
        let mut oversized = false;
        loop {
            let buf = self.inner.fill_buf().await?;
            if buf.is_empty() {
                self.eof = true;
                return Ok(match (total, oversized) {
                    (0, _) => None,
                    (len, true) => Some(Frame::Oversized { len }),
                    (_, false) => Some(Frame::Line(trim_cr(line))),
                });
            }
            let (chunk, used, done) = match buf.iter().position(|b| *b == b'\n') {
                Some(i) => (buf.get(..i).unwrap_or_default(), i + 1, true),
                None => (buf, buf.len(), false),
            };
            total = total.saturating_add(chunk.len());
            if !oversized {
                if total > self.max {
                    oversized = true;
                    line = Vec::new();
                } else {
                    line.extend_from_slice(chunk);
                }
            }
            self.inner.consume(used);
            if done {
                return Ok(Some(if oversized {
                    Frame::Oversized { len: total }
                } else {
                    Frame::Line(trim_cr(line))
                }));
            }
        }
    }
}

fn trim_cr(mut line: Vec<u8>) -> Vec<u8> {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    line
}

/// Spawn the writer task for one peer: every queued frame is written as one line and flushed.
/// The task ends (closing the stream) when every sender is dropped or a write fails.
pub fn spawn_writer<W>(mut w: W) -> (mpsc::Sender<Vec<u8>>, tokio::task::JoinHandle<()>)
where
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, mut rx) = mpsc::channel::<Vec<u8>>(QUEUE);
    let task = tokio::spawn(async move {
        while let Some(mut frame) = rx.recv().await {
            frame.push(b'\n');
            if w.write_all(&frame).await.is_err() || w.flush().await.is_err() {
                tracing::debug!("peer stopped reading; writer ends");
                break;
            }
        }
        let _ = w.shutdown().await;
    });
    (tx, task)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::BufReader;

    async fn frames(input: &[u8], max: usize) -> Vec<Frame> {
        let mut r = FrameReader::new(BufReader::with_capacity(7, input), max);
        let mut out = Vec::new();
        while let Some(f) = r.next().await.unwrap() {
            out.push(f);
        }
        out
    }

    #[tokio::test]
    async fn splits_lines_and_skips_blank_ones() {
        let got = frames(b"{\"a\":1}\r\n\n  \n{\"b\":2}\n{\"c\":3}", 64).await;
        assert_eq!(
            got,
            vec![
                Frame::Line(b"{\"a\":1}".to_vec()),
                Frame::Line(b"{\"b\":2}".to_vec()),
                Frame::Line(b"{\"c\":3}".to_vec()),
            ]
        );
    }

    #[tokio::test]
    async fn oversized_lines_are_reported_and_reading_goes_on() {
        let mut input = vec![b'x'; 100];
        input.extend_from_slice(b"\n{}\n");
        input.extend_from_slice(&[b'y'; 30]);
        let got = frames(&input, 20).await;
        assert_eq!(
            got,
            vec![
                Frame::Oversized { len: 100 },
                Frame::Line(b"{}".to_vec()),
                Frame::Oversized { len: 30 },
            ]
        );
    }

    #[tokio::test]
    async fn a_line_at_the_cap_is_kept() {
        let got = frames(b"0123456789\n", 10).await;
        assert_eq!(got, vec![Frame::Line(b"0123456789".to_vec())]);
    }

    #[tokio::test]
    async fn writer_appends_newlines_in_order() {
        let (a, mut b) = tokio::io::duplex(64);
        let (tx, task) = spawn_writer(a);
        tx.send(b"one".to_vec()).await.unwrap();
        tx.send(b"two".to_vec()).await.unwrap();
        drop(tx);
        task.await.unwrap();
        let mut out = Vec::new();
        tokio::io::AsyncReadExt::read_to_end(&mut b, &mut out)
            .await
            .unwrap();
        assert_eq!(out, b"one\ntwo\n");
    }
}
