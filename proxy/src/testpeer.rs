//! Test helper: one scripted side of an in-memory connection (the client or the server as the
//! policy layer and the gateway see them), message by message.
#![allow(clippy::unwrap_used, clippy::panic)] // test code

use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};

use crate::codec;
use crate::transport::{Frame, FrameReader, MAX_FRAME};

pub(crate) struct Peer {
    pub(crate) r: FrameReader<BufReader<ReadHalf<DuplexStream>>>,
    pub(crate) w: WriteHalf<DuplexStream>,
}

impl Peer {
    pub(crate) fn new(s: DuplexStream) -> Peer {
        let (r, w) = tokio::io::split(s);
        Peer {
            r: FrameReader::new(BufReader::new(r), MAX_FRAME),
            w,
        }
    }

    pub(crate) async fn send_raw(&mut self, bytes: &[u8]) {
        self.w.write_all(bytes).await.unwrap();
        self.w.write_all(b"\n").await.unwrap();
        self.w.flush().await.unwrap();
    }

    pub(crate) async fn send(&mut self, v: Value) {
        self.send_raw(&codec::encode(&v)).await;
    }

    pub(crate) async fn recv(&mut self) -> Value {
        match tokio::time::timeout(Duration::from_secs(10), self.r.next()).await {
            Ok(Ok(Some(Frame::Line(l)))) => serde_json::from_slice(&l).unwrap(),
            other => panic!("expected a message, got {other:?}"),
        }
    }

    /// Nothing arrives within a short while.
    pub(crate) async fn quiet(&mut self) {
        if let Ok(got) = tokio::time::timeout(Duration::from_millis(150), self.r.next()).await {
            panic!("expected silence, got {got:?}");
        }
    }
}
