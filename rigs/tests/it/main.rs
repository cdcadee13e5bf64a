//! cc-rigs integration tests (one binary). They drive real things: `desktop` needs a Docker
//! daemon (tests/setup-docker.sh, called by tests/run, starts one and builds the image) and
//! fails saying so when none answers.

mod desktop;
