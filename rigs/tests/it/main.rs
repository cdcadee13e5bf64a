//! cc-rigs against real browsers and drivers (installed by tests/run): every engine runs
//! the same scenario on the fixture site; the pool's reuse, separation, limits, crash
//! recovery and cleanup are checked by counting the processes of the groups it started.
mod browser;
mod site;
