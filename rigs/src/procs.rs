//! Processes a rig starts: each rig's processes share one process group, so closing the
//! rig kills the group (the browser a driver started with it), whatever the driver did.
//! [`groups_alive`] counts the live processes of groups by scanning `/proc` (tests and
//! the pool's shutdown check use it).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;

use crate::RigError;

/// A process group this rig leads (its first process) and the processes started in it.
/// Dropping it kills the group: a rig abandoned half-started (its start timed out) leaves
/// nothing behind.
#[derive(Debug)]
pub struct Group {
    pgid: i32,
    children: Mutex<Vec<Child>>,
}

impl Group {
    /// Starts `cmd` as the leader of a new process group.
    pub fn lead(cmd: &mut Command, what: &str) -> Result<Group, RigError> {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
        let child = spawn(cmd, what)?;
        Ok(Group { pgid: child.id() as i32, children: Mutex::new(vec![child]) })
    }

    /// Starts `cmd` in this group.
    pub fn spawn(&self, cmd: &mut Command, what: &str) -> Result<(), RigError> {
        use std::os::unix::process::CommandExt;
        cmd.process_group(self.pgid);
        let child = spawn(cmd, what)?;
        self.children.lock().expect("children").push(child);
        Ok(())
    }

    pub fn pgid(&self) -> i32 {
        self.pgid
    }

    /// Takes the leader's stdout (for a process that reports on it, like `Xvfb -displayfd 1`).
    pub fn take_stdout(&self) -> Option<std::process::ChildStdout> {
        self.children.lock().expect("children").first_mut().and_then(|c| c.stdout.take())
    }

    /// Whether every process this group started directly has exited (the driver died).
    pub fn exited(&self) -> Option<String> {
        let mut children = self.children.lock().expect("children");
        for c in children.iter_mut() {
            if let Ok(Some(status)) = c.try_wait() {
                return Some(format!("process {} exited ({status})", c.id()));
            }
        }
        None
    }

    /// The live processes of this group and all their descendants (a browser may move
    /// its helpers to a process group of its own, as WebKit's MiniBrowser does).
    pub fn family(&self) -> Vec<i32> {
        family(&[self.pgid])
    }

    /// SIGKILLs the whole group and every descendant, and reaps the processes started
    /// directly.
    pub fn kill(&self) {
        let family = self.family();
        kill_group(self.pgid);
        for pid in family {
            if let Some(p) = rustix::process::Pid::from_raw(pid) {
                let _ = rustix::process::kill_process(p, rustix::process::Signal::KILL);
            }
        }
        let mut children = self.children.lock().expect("children");
        for c in children.iter_mut() {
            let _ = c.kill();
            let _ = c.wait();
        }
        children.clear();
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
    }
}

fn spawn(cmd: &mut Command, what: &str) -> Result<Child, RigError> {
    cmd.stdin(Stdio::null());
    cmd.spawn().map_err(|e| {
        let prog = cmd.get_program().to_string_lossy().into_owned();
        if e.kind() == std::io::ErrorKind::NotFound {
            RigError::Start(format!("{what}: `{prog}` is not installed (not found on PATH)"))
        } else {
            RigError::Start(format!("{what}: starting `{prog}`: {e}"))
        }
    })
}

/// SIGKILLs process group `pgid` (no error when it is gone already).
pub fn kill_group(pgid: i32) {
    if pgid <= 1 {
        return;
    }
    if let Some(pid) = rustix::process::Pid::from_raw(pgid) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

/// Live (not zombie) processes whose process group is one of `pgids`, as (pid, pgid,
/// command name), from `/proc`.
pub fn groups_alive(pgids: &[i32]) -> Vec<(i32, i32, String)> {
    scan().into_iter().filter(|p| !p.zombie && pgids.contains(&p.pgrp)).map(|p| (p.pid, p.pgrp, p.comm)).collect()
}

struct ProcStat {
    pid: i32,
    ppid: i32,
    pgrp: i32,
    comm: String,
    zombie: bool,
}

fn scan() -> Vec<ProcStat> {
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else { return out };
    for e in dir.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else { continue };
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else { continue };
        // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
        let Some(close) = stat.rfind(')') else { continue };
        let comm = stat[stat.find('(').map_or(0, |i| i + 1)..close].to_string();
        let mut rest = stat[close + 1..].split_whitespace();
        let state = rest.next().unwrap_or("");
        let (Some(ppid), Some(pgrp)) =
            (rest.next().and_then(|s| s.parse::<i32>().ok()), rest.next().and_then(|s| s.parse::<i32>().ok()))
        else {
            continue;
        };
        out.push(ProcStat { pid, ppid, pgrp, comm, zombie: state == "Z" || state == "X" });
    }
    out
}

/// Live processes in the groups `pgids` and all their descendants, by pid.
pub fn family(pgids: &[i32]) -> Vec<i32> {
    let all = scan();
    let mut found: Vec<i32> = all.iter().filter(|p| pgids.contains(&p.pgrp)).map(|p| p.pid).collect();
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        for p in &all {
            if p.ppid == parent && !found.contains(&p.pid) {
                found.push(p.pid);
            }
        }
        i += 1;
    }
    let live: Vec<i32> = all.iter().filter(|p| !p.zombie).map(|p| p.pid).collect();
    found.retain(|p| live.contains(p));
    found
}

/// The live (not zombie) children of process `ppid`, as (pid, command name).
pub fn children(ppid: i32) -> Vec<(i32, String)> {
    scan().into_iter().filter(|p| !p.zombie && p.ppid == ppid).map(|p| (p.pid, p.comm)).collect()
}

/// Which of `pids` still run (not zombies), as (pid, command name).
pub fn pids_alive(pids: &[i32]) -> Vec<(i32, String)> {
    scan().into_iter().filter(|p| !p.zombie && pids.contains(&p.pid)).map(|p| (p.pid, p.comm)).collect()
}

/// The first of `names` found on `PATH` or as an absolute path, else `None`.
pub fn which(names: &[&str]) -> Option<PathBuf> {
    for n in names {
        let p = Path::new(n);
        if p.is_absolute() {
            if p.is_file() {
                return Some(p.to_path_buf());
            }
            continue;
        }
        if let Some(path) = std::env::var_os("PATH") {
            for dir in std::env::split_paths(&path) {
                let c = dir.join(n);
                if c.is_file() {
                    return Some(c);
                }
            }
        }
    }
    None
}

/// A free TCP port on 127.0.0.1 (bound, then released for the driver to take).
pub fn free_port() -> Result<u16, RigError> {
    let l =
        std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| RigError::Start(format!("finding a free port: {e}")))?;
    l.local_addr().map(|a| a.port()).map_err(|e| RigError::Start(format!("finding a free port: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn killing_a_group_kills_the_processes_its_leader_started() {
        // A shell that starts a grandchild in the background, as a driver starts a browser.
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "sleep 300 & sleep 300"]);
        let g = Group::lead(&mut cmd, "test").unwrap();
        let pgid = g.pgid();
        for _ in 0..100 {
            if groups_alive(&[pgid]).len() >= 3 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(groups_alive(&[pgid]).len(), 3, "{:?}", groups_alive(&[pgid]));
        drop(g);
        for _ in 0..100 {
            if groups_alive(&[pgid]).is_empty() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(groups_alive(&[pgid]), vec![]);
    }

    #[test]
    fn a_missing_binary_is_named() {
        let e = Group::lead(&mut Command::new("cc-no-such-driver"), "chromium driver").unwrap_err();
        assert!(e.to_string().contains("`cc-no-such-driver` is not installed"), "{e}");
    }
}
