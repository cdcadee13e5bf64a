//! cc-rigs integration tests (one binary), against real things installed and started by
//! tests/run: browsers and their drivers on a fixture site (the pool's reuse, separation,
//! limits, crash recovery and cleanup checked by counting the processes it started), and
//! Docker desktops (tests/setup-docker.sh starts a daemon and builds the image; the tests
//! fail saying so when none answers) — on that daemon and on a second one the test starts
//! as a remote engine over TLS and ssh — and device rigs against protocol doubles: the real
//! `adb` server connected to a fake Android device, a WebDriverAgent double; browser rigs on
//! a remote WebDriver endpoint, against drivers the tests start apart from any rig.
mod android;
mod browser;
mod browser_remote;
mod desktop;
mod desktop_remote;
mod ios;
mod site;
