//! The desktop image: its recipe (rigs/desktop-image/, compiled into the binary), its tag
//! (the hash of the recipe) and `build_image`, which debootstraps and imports it when the
//! engine does not have that tag yet — or, for a remote engine, copies it there from this
//! machine's engine when that has it.

use std::path::Path;
use std::process::Stdio;

use bollard::query_parameters::CreateImageOptionsBuilder;
use bollard::Docker;
use futures::StreamExt;
use tokio::io::{AsyncBufReadExt, BufReader};

use super::endpoint::Endpoint;
use super::error::{DesktopError, Result};

/// Repository name of the desktop image; the tag is the recipe hash.
pub const IMAGE_REPO: &str = "cc-server-desktop";

/// Every file of rigs/desktop-image/ (path relative to it, content). The image tag is a
/// hash of this table, so editing any file gives a new tag and a rebuild; a test checks
/// that the table lists every file of the folder.
pub const RECIPE: &[(&str, &str)] = &[
    ("build.sh", include_str!("../../desktop-image/build.sh")),
    (
        "rootfs/usr/local/bin/cc-desktop-start",
        include_str!("../../desktop-image/rootfs/usr/local/bin/cc-desktop-start"),
    ),
    ("rootfs/usr/local/bin/cc-desktop-wait", include_str!("../../desktop-image/rootfs/usr/local/bin/cc-desktop-wait")),
    (
        "rootfs/usr/local/bin/cc-desktop-resize",
        include_str!("../../desktop-image/rootfs/usr/local/bin/cc-desktop-resize"),
    ),
    (
        "rootfs/usr/local/bin/cc-desktop-clip-set",
        include_str!("../../desktop-image/rootfs/usr/local/bin/cc-desktop-clip-set"),
    ),
];

/// What `docker import` is told besides the root file system.
const CHANGES: &[&str] = &[
    "ENTRYPOINT [\"/usr/local/bin/cc-desktop-start\"]",
    "ENV DISPLAY=:1",
    "ENV LANG=C.UTF-8",
    "USER desk",
    "WORKDIR /home/desk",
];

/// The image tag of this recipe: `cc-server-desktop:<16 hex digits of blake3>`.
pub fn image_tag() -> String {
    let mut h = blake3::Hasher::new();
    for (path, content) in RECIPE {
        h.update(&(path.len() as u64).to_le_bytes());
        h.update(path.as_bytes());
        h.update(&(content.len() as u64).to_le_bytes());
        h.update(content.as_bytes());
    }
    for c in CHANGES {
        h.update(c.as_bytes());
        h.update(b"\n");
    }
    format!("{IMAGE_REPO}:{}", &h.finalize().to_hex()[..16])
}

/// Is `tag` loaded in the daemon?
pub async fn image_exists(docker: &Docker, tag: &str) -> Result<bool> {
    match docker.inspect_image(tag).await {
        Ok(_) => Ok(true),
        Err(bollard::errors::Error::DockerResponseServerError { status_code: 404, .. }) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// What `build_image` did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuiltImage {
    pub tag: String,
    /// false: the image of this recipe was already there.
    pub built: bool,
}

/// Makes sure the image of this recipe is loaded in `docker`'s engine. When it is not and
/// this machine's engine ([`Endpoint::local`]) has it — `docker` is a remote engine —
/// copies it from there ([`copy_image`]). Otherwise writes the recipe to a scratch folder,
/// runs its build.sh as root (debootstrap; a few minutes, each output line goes to
/// `progress`) and imports the root file system under [`image_tag`], over the engine's
/// API (so a remote engine gets it the same way). Processes building at once wait for each
/// other (a lock file), so it builds once.
pub async fn build_image(docker: &Docker, progress: &mut (dyn FnMut(&str) + Send)) -> Result<BuiltImage> {
    let tag = image_tag();
    if image_exists(docker, &tag).await? {
        return Ok(BuiltImage { tag, built: false });
    }
    let lock_path = std::env::temp_dir().join("cc-server-desktop-image.lock");
    let lock = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&lock_path)?;
    progress(&format!("waiting for the image build lock {}", lock_path.display()));
    let lock = tokio::task::spawn_blocking(move || lock.lock().map(|()| lock))
        .await
        .map_err(|e| DesktopError::Build(format!("lock task: {e}")))??;
    // Someone else may have built it while we waited.
    if image_exists(docker, &tag).await? {
        return Ok(BuiltImage { tag, built: false });
    }
    if let Some(local) = local_engine_with(&tag).await {
        progress(&format!("copying {tag} from this machine's engine"));
        copy_image(&local, docker, &tag, progress).await?;
        return Ok(BuiltImage { tag, built: true });
    }
    if !is_root() {
        return Err(DesktopError::Build(
            "building the desktop image needs root (debootstrap); run `cc-server rigs build-image` as root".into(),
        ));
    }
    let scratch = std::env::temp_dir().join(format!("cc-server-desktop-build-{}", std::process::id()));
    let result = build_in(docker, &tag, &scratch, progress).await;
    let cleanup = remove_scratch(&scratch);
    drop(lock);
    result?;
    cleanup?;
    Ok(BuiltImage { tag, built: true })
}

/// This machine's engine when it answers and has `tag`. (When `docker` is this engine
/// too, it lacks the tag as well: nothing is copied onto itself.)
async fn local_engine_with(tag: &str) -> Option<Docker> {
    let local = Endpoint::local().connect().await.ok()?;
    image_exists(&local, tag).await.ok()?.then_some(local)
}

/// Copies image `tag` from one engine to another (`docker save | docker load`, streamed:
/// nothing is held in memory or written to disk here), then checks it arrived.
pub async fn copy_image(from: &Docker, to: &Docker, tag: &str, progress: &mut (dyn FnMut(&str) + Send)) -> Result<()> {
    if !image_exists(from, tag).await? {
        return Err(DesktopError::ImageMissing { tag: tag.into() });
    }
    let tarball = from.export_image(tag);
    let options = bollard::query_parameters::ImportImageOptionsBuilder::default().quiet(true).build();
    let mut stream = to.import_image_stream(options, tarball, None);
    while let Some(info) = stream.next().await {
        let info = info.map_err(|e| DesktopError::Build(format!("copying {tag} to the engine: {e}")))?;
        if let Some(s) = info.stream.as_deref().or(info.status.as_deref()) {
            let s = s.trim();
            if !s.is_empty() {
                progress(s);
            }
        }
        if let Some(e) = info.error_detail.and_then(|d| d.message) {
            return Err(DesktopError::Build(format!("copying {tag} to the engine: {e}")));
        }
    }
    if !image_exists(to, tag).await? {
        return Err(DesktopError::Build(format!("the engine loaded the copy but {tag} is not there")));
    }
    Ok(())
}

async fn build_in(docker: &Docker, tag: &str, scratch: &Path, progress: &mut (dyn FnMut(&str) + Send)) -> Result<()> {
    remove_scratch(scratch)?;
    let recipe = scratch.join("recipe");
    for (path, content) in RECIPE {
        let p = recipe.join(path);
        std::fs::create_dir_all(p.parent().expect("recipe paths have a parent"))?;
        std::fs::write(&p, content)?;
        use std::os::unix::fs::PermissionsExt;
        let mode = if path.ends_with(".sh") || path.contains("/bin/") { 0o755 } else { 0o644 };
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode))?;
    }
    let root = scratch.join("root");
    progress(&format!("building {tag}: debootstrap into {}", root.display()));
    let mut child = tokio::process::Command::new("bash")
        .arg(recipe.join("build.sh"))
        .arg(&root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| DesktopError::Build(format!("cannot run bash: {e}")))?;
    let mut out = BufReader::new(child.stdout.take().expect("piped")).lines();
    let mut err = BufReader::new(child.stderr.take().expect("piped")).lines();
    let mut tail: Vec<String> = Vec::new();
    let (mut out_done, mut err_done) = (false, false);
    while !(out_done && err_done) {
        let line = tokio::select! {
            l = out.next_line(), if !out_done => l?.or_else(|| { out_done = true; None }),
            l = err.next_line(), if !err_done => l?.or_else(|| { err_done = true; None }),
        };
        if let Some(line) = line {
            progress(&line);
            tail.push(line);
            if tail.len() > 20 {
                tail.remove(0);
            }
        }
    }
    let status = child.wait().await?;
    if !status.success() {
        return Err(DesktopError::Build(format!("build.sh exited with {status}; last lines:\n{}", tail.join("\n"))));
    }

    progress(&format!("importing {} as {tag}", root.display()));
    let mut tar = tokio::process::Command::new("tar")
        .args(["--numeric-owner", "--xattrs", "-C"])
        .arg(&root)
        .args(["-c", "."])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| DesktopError::Build(format!("cannot run tar: {e}")))?;
    let body = tokio_util::io::ReaderStream::new(tar.stdout.take().expect("piped"));
    let (repo, version) = tag.split_once(':').expect("tags have a colon");
    let options = CreateImageOptionsBuilder::default()
        .from_src("-")
        .repo(repo)
        .tag(version)
        .message("cc-server desktop image (rigs/desktop-image)")
        .changes(CHANGES.iter().map(|c| c.to_string()).collect())
        .build();
    let mut stream = docker.create_image(Some(options), Some(bollard::body_try_stream(body)), None);
    while let Some(info) = stream.next().await {
        let info = info.map_err(|e| DesktopError::Build(format!("docker import: {e}")))?;
        if let Some(s) = info.status {
            progress(&s);
        }
    }
    let out = tar.wait_with_output().await?;
    if !out.status.success() {
        return Err(DesktopError::Build(format!("tar: {}", String::from_utf8_lossy(&out.stderr).trim())));
    }
    if !image_exists(docker, tag).await? {
        return Err(DesktopError::Build(format!("docker import finished but {tag} is not there")));
    }
    Ok(())
}

/// Removes the scratch folder, refusing when anything below it is still mounted
/// (debootstrap mounts proc and sys in the root while it works).
fn remove_scratch(scratch: &Path) -> Result<()> {
    if !scratch.exists() {
        return Ok(());
    }
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap_or_default();
    let prefix = scratch.to_string_lossy().to_string();
    if let Some(m) = mounts.lines().filter_map(|l| l.split(' ').nth(1)).find(|m| m.starts_with(&prefix)) {
        return Err(DesktopError::Build(format!("{m} is still mounted; unmount it, then remove {prefix}")));
    }
    std::fs::remove_dir_all(scratch)?;
    Ok(())
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("Uid:")).map(|l| l.split_whitespace().nth(2) == Some("0")))
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The recipe folder in this source tree. The runner's `CARGO_MANIFEST_DIR` first:
    /// a test binary reused from a shared target dir carries the path of the checkout
    /// that compiled it.
    fn recipe_dir() -> std::path::PathBuf {
        let dir: std::path::PathBuf =
            std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| env!("CARGO_MANIFEST_DIR").into(), Into::into);
        dir.join("desktop-image")
    }

    #[test]
    fn recipe_lists_every_file_of_the_folder() {
        fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    walk(&p, base, out);
                } else {
                    out.push(p.strip_prefix(base).unwrap().to_string_lossy().into_owned());
                }
            }
        }
        let mut files = Vec::new();
        walk(&recipe_dir(), &recipe_dir(), &mut files);
        files.sort();
        let mut listed: Vec<String> = RECIPE.iter().map(|(p, _)| p.to_string()).collect();
        listed.sort();
        assert_eq!(files, listed, "rigs/desktop-image/ and image::RECIPE differ");
    }

    #[test]
    fn tag_is_stable_and_named() {
        assert_eq!(image_tag(), image_tag());
        assert!(image_tag().starts_with("cc-server-desktop:"));
        assert_eq!(image_tag().len(), "cc-server-desktop:".len() + 16);
    }
}
