//! Waiting for SIGINT / SIGTERM.

use std::future::Future;

/// Starts listening for SIGINT (Ctrl-C) and SIGTERM now; the future resolves on the first
/// one that arrives from here on. Call it before saying the server is ready: a signal is
/// seen only by listeners that exist when it arrives, so one sent between "serving" and a
/// listener made later was lost, and the server ran on (seen in CI: a SIGTERM sent as soon
/// as "serving MCP" was printed). Needs the runtime it is called in.
pub fn listen() -> impl Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut int = signal(SignalKind::interrupt()).ok();
        let mut term = signal(SignalKind::terminate()).ok();
        async move {
            // A listener that could not be made never resolves; the other still does.
            async fn next(s: Option<&mut tokio::signal::unix::Signal>) {
                match s {
                    Some(s) => {
                        s.recv().await;
                    }
                    None => std::future::pending().await,
                }
            }
            tokio::select! {
                _ = next(int.as_mut()) => {},
                _ = next(term.as_mut()) => {},
            }
        }
    }
    #[cfg(not(unix))]
    {
        async {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
