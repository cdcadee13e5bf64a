//! `DesktopError`: what can go wrong driving a desktop, each with what to do about it.

use std::time::Duration;

/// Errors of the desktop driver. `BadInput` is the caller's fault (answer it as a tool
/// error naming `pointer`); `DockerUnavailable` and `ImageMissing` say what to start or build.
#[derive(Debug, thiserror::Error)]
pub enum DesktopError {
    /// The action is malformed or does not fit the display (`pointer` is a JSON pointer
    /// into the action, e.g. `/x`).
    #[error("{pointer}: {message}")]
    BadInput { pointer: String, message: String },
    /// No Docker daemon answers.
    #[error(
        "the Docker daemon is not reachable ({endpoint}): {reason}; start dockerd \
         (tests/setup-docker.sh starts it for the tests) or set DOCKER_HOST (a remote engine: \
         tcp://HOST:PORT with DOCKER_TLS_VERIFY=1 and DOCKER_CERT_PATH, or ssh://USER@HOST)"
    )]
    DockerUnavailable { endpoint: String, reason: String },
    /// The desktop image of this recipe is not loaded in the daemon.
    #[error("the desktop image {tag} is not built: run `cc-server rigs build-image`")]
    ImageMissing { tag: String },
    /// Building the image failed.
    #[error("building the desktop image failed: {0}")]
    Build(String),
    /// The desktop did not become ready (Xvfb, window manager) in time.
    #[error("the desktop did not start: {0}")]
    Start(String),
    /// An action took longer than its timeout (the desktop may be wedged; close it).
    #[error("{action} timed out after {timeout:?}")]
    Timeout { action: String, timeout: Duration },
    /// A command inside the desktop failed.
    #[error("{action} failed inside the desktop (exit code {code}): {stderr}")]
    ActionFailed { action: String, code: i64, stderr: String },
    /// The desktop was closed; start a new one.
    #[error("the desktop {id} is closed")]
    Closed { id: String },
    /// The container is gone (removed from outside, or dockerd restarted).
    #[error("the desktop container {id} is gone: {reason}")]
    Gone { id: String, reason: String },
    #[error("docker: {0}")]
    Docker(#[from] bollard::errors::Error),
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

impl DesktopError {
    pub(crate) fn bad(pointer: &str, message: impl Into<String>) -> Self {
        DesktopError::BadInput { pointer: pointer.to_string(), message: message.into() }
    }
}

pub type Result<T, E = DesktopError> = std::result::Result<T, E>;
