//! A run's process: started as the leader of a process group of its own, its output kept in
//! a bounded log, its whole group killed when it ends, times out or the server stops.

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

use super::launch::Launch;

/// Bytes of the end of a run's output kept in the store.
pub const TAIL_BYTES: usize = 4096;

/// A started run's process.
pub struct RunChild {
    child: tokio::process::Child,
    pid: i32,
    log: Arc<Mutex<Log>>,
    readers: Vec<tokio::task::JoinHandle<()>>,
}

/// The run's output: written to `output.log` in its folder up to a cap, and its last bytes.
struct Log {
    file: Option<std::fs::File>,
    written: u64,
    cap: u64,
    truncated: bool,
    tail: Vec<u8>,
}

impl Log {
    fn push(&mut self, bytes: &[u8]) {
        if let Some(f) = &mut self.file {
            let room = self.cap.saturating_sub(self.written) as usize;
            let take = room.min(bytes.len());
            if take > 0 && f.write_all(&bytes[..take]).is_ok() {
                self.written += take as u64;
            }
            if take < bytes.len() && !self.truncated {
                self.truncated = true;
                let _ =
                    writeln!(f, "\n[cc-server: the log reached its limit of {} bytes; the rest is not kept]", self.cap);
            }
        }
        self.tail.extend_from_slice(bytes);
        if self.tail.len() > TAIL_BYTES {
            let cut = self.tail.len() - TAIL_BYTES;
            self.tail.drain(..cut);
        }
    }
}

/// Starts `spec` in `dir` (created), as the leader of a new process group, with its brief
/// on stdin and its output into `dir/output.log` (at most `log_cap` bytes).
pub fn spawn(spec: &Launch, dir: &Path, log_cap: u64) -> std::io::Result<RunChild> {
    std::fs::create_dir_all(dir)?;
    {
        use std::os::unix::fs::OpenOptionsExt;
        let (path, text) = &spec.mcp_config;
        let mut f = std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(path)?;
        f.write_all(text.as_bytes())?;
    }
    let (program, args) = spec.argv.split_first().ok_or_else(|| std::io::Error::other("an empty argv"))?;
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args)
        .env_clear()
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .current_dir(dir)
        .process_group(0)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(false);
    let mut child = cmd.spawn().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            std::io::Error::new(e.kind(), format!("`{program}` is not installed (not found on PATH)"))
        } else {
            std::io::Error::new(e.kind(), format!("starting `{program}`: {e}"))
        }
    })?;
    let pid = child.id().map(|p| p as i32).unwrap_or(0);
    let file = std::fs::OpenOptions::new().create(true).append(true).open(dir.join("output.log")).ok();
    let log = Arc::new(Mutex::new(Log { file, written: 0, cap: log_cap, truncated: false, tail: Vec::new() }));
    let mut readers = Vec::new();
    if let Some(out) = child.stdout.take() {
        readers.push(tokio::spawn(read_into(out, log.clone())));
    }
    if let Some(err) = child.stderr.take() {
        readers.push(tokio::spawn(read_into(err, log.clone())));
    }
    if let Some(mut stdin) = child.stdin.take() {
        let brief = spec.stdin.clone();
        tokio::spawn(async move {
            let _ = stdin.write_all(brief.as_bytes()).await;
            let _ = stdin.shutdown().await;
        });
    }
    Ok(RunChild { child, pid, log, readers })
}

async fn read_into(mut r: impl AsyncRead + Unpin, log: Arc<Mutex<Log>>) {
    let mut buf = vec![0u8; 8192];
    loop {
        match r.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => log.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(&buf[..n]),
        }
    }
}

impl RunChild {
    pub fn pid(&self) -> i32 {
        self.pid
    }

    /// Waits for the leader to exit: its exit status (128 + the signal when one killed it).
    pub async fn wait(&mut self) -> std::io::Result<i32> {
        let s = self.child.wait().await?;
        use std::os::unix::process::ExitStatusExt;
        Ok(s.code().unwrap_or_else(|| 128 + s.signal().unwrap_or(0)))
    }

    /// Kills the whole process group (whatever the leader started in it too).
    pub fn kill_group(&mut self) {
        kill_group(self.pid);
        let _ = self.child.start_kill();
    }

    /// Reaps the leader and the log readers; answers the end of the output.
    pub async fn finish(mut self) -> String {
        let _ = tokio::time::timeout(std::time::Duration::from_secs(5), self.child.wait()).await;
        for r in self.readers.drain(..) {
            let _ = tokio::time::timeout(std::time::Duration::from_secs(2), r).await;
        }
        let log = self.log.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        String::from_utf8_lossy(&log.tail).into_owned()
    }
}

/// SIGKILLs process group `pgid` and every descendant of it that moved to a group of its own.
pub fn kill_group(pgid: i32) {
    if pgid <= 1 {
        return;
    }
    let family = cc_rigs::procs::family(&[pgid]);
    cc_rigs::procs::kill_group(pgid);
    for pid in family {
        if let Some(p) = rustix::process::Pid::from_raw(pid) {
            let _ = rustix::process::kill_process(p, rustix::process::Signal::KILL);
        }
    }
}

/// A process's start time (clock ticks since boot, `/proc/PID/stat` field 22): with its pid,
/// it names one process (a later one reusing the pid starts later). `None` when it is gone.
pub fn start_time(pid: i32) -> Option<i64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold spaces: fields count after its end.
    let rest = &stat[stat.rfind(')')? + 2..];
    let state = rest.split_whitespace().next()?;
    if state == "Z" {
        return None;
    }
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// This host: `hostname/boot id` (a reboot is another host for the runs it had).
pub fn host() -> String {
    let read = |p: &str| std::fs::read_to_string(p).map(|s| s.trim().to_string()).unwrap_or_default();
    format!("{}/{}", read("/proc/sys/kernel/hostname"), read("/proc/sys/kernel/random/boot_id"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn this_process_has_a_start_time_and_a_gone_one_none() {
        let me = std::process::id() as i32;
        assert!(super::start_time(me).unwrap() > 0);
        assert_eq!(super::start_time(i32::MAX), None);
        let h = super::host();
        assert!(h.contains('/') && h.len() > 2, "{h}");
    }
}
