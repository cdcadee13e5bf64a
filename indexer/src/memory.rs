//! Giving freed memory back to the system between the phases of an index run.

/// Returns the heap's free memory to the system (glibc's `malloc_trim`; elsewhere nothing).
///
/// glibc keeps a freed chunk resident while live chunks sit above it in its heap, and
/// each thread allocates from its own arena: what the parse workers freed (a repository's
/// references, once the graph has resolved them; the parse trees and tantivy's buffers,
/// once the index is written) is not reused by the next phase's allocations on other
/// threads, so each phase added its whole size on top of the last. Measured on
/// sqlalchemy, `cc-server index` peaked at 193-202 MB without it and 136-139 MB with it
/// (called after the index phase and after the graph frees the references), in the same
/// time. Each call walks the free memory: 2 and 10 ms on sqlalchemy, 9 and 50 ms on
/// spring-framework (of an 8.6 s run).
pub fn return_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointer and only gives back memory no allocation holds;
    // glibc allows it from any thread at any time.
    #[allow(unsafe_code)]
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Drops `value` on a thread of its own, then returns the freed memory to the system;
/// drops it here when no thread can be started.
///
/// For what a caller is done with and nothing allocates after: the call graph at the
/// end of an index run. Freeing spring-framework's graph (millions of small blocks) took
/// 0.25 s of the `index` command, sqlalchemy's 0.06 s; the command now returns without
/// waiting, and a server's next request does not wait either. Not for memory the next
/// phase needs back: freed late, it would add to that phase's peak.
pub fn drop_in_background<T: Send + 'static>(value: T) {
    let _ = std::thread::Builder::new().name("cc-drop".into()).spawn(move || {
        drop(value);
        return_freed();
    });
}

/// Caps glibc's malloc arenas at two per core (at least 4; glibc's default is eight per
/// core), and grows the heaps 64 MB at a time. Call it first thing in `main`, before any
/// thread starts.
///
/// An index run's threads (the walk, the parse workers, tantivy's) each take an arena;
/// with one arena per thread and up to 16 on two cores, what one phase freed sat in
/// arenas the next phase's threads did not use, and which ones that was changed from run
/// to run: sqlalchemy's `index` peaked at 136 MB most runs and 151-155 MB in about one of
/// five. Four arenas on two cores: 132-138 MB in every run of ten, in the same time (two:
/// 130-133 MB, 5% slower, from lock contention).
///
/// The heap's growth step (`M_TOP_PAD`, glibc's default 128 KB): an update of one file
/// decodes the whole repository's records and saved graph (spring-framework: 570 MB
/// touched in under a second), and growing the heaps 128 KB at a time (a `brk` or an
/// `mprotect` each) was 8% of that command: 1.03 → 0.93 s, 10 runs interleaved. Only
/// address space is reserved: a page is resident once it is written, as before, and
/// `return_freed` still gives freed memory back.
pub fn limit_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let arenas = (2 * cores).max(4).min(i32::MAX as usize) as i32;
        // SAFETY: mallopt takes two integers and only changes allocator settings; glibc
        // allows it at any time (an arena cap applies to threads that have none yet).
        #[allow(unsafe_code)]
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, arenas);
            libc::mallopt(libc::M_TOP_PAD, 64 << 20);
        }
    }
}

/// Routes tree-sitter's C allocations (parse stacks, subtrees, trees, query cursors) to
/// mimalloc; Rust's allocations stay with the system allocator. Call it first thing in
/// `main`, before any parser, tree or query exists.
///
/// A parse allocates and frees a tree's worth of small blocks per file. Under glibc that
/// churn interleaved with the records the run keeps: freed space sat between live
/// blocks, top-of-heap trims handed pages back only for the next file to fault them in
/// again (`clear_page` was 5% of spring-framework's profile). mimalloc keeps each
/// thread's tree memory in pages of its own and reuses it file after file. Measured
/// interleaved on this machine (2 cores), `cc-server index`, medians:
///
/// | | sqlalchemy index / graph / CPU / peak | spring-framework index / CPU / peak |
/// |---|---|---|
/// | glibc | 2.81 s / 0.57 s / 6.17 s / 126 MB | 7.00 s / 16.1 s / 368 MB |
/// | tree-sitter on mimalloc | 2.49 s / 0.49 s / 5.38 s / 136 MB | 6.48 s / 14.8 s / 382 MB |
/// | everything on mimalloc | 2.59 s / 0.49 s / 5.55 s / 177 MB | |
///
/// Everything on mimalloc was slower and 40% bigger: the records kept for the graph
/// shared pages with the parse's freed blocks.
///
/// # Safety
///
/// No tree-sitter object (parser, tree, query, cursor) may exist yet, in any thread:
/// one made before would be freed by `mi_free`.
#[allow(unsafe_code)]
pub unsafe fn tree_sitter_uses_mimalloc() {
    // SAFETY: the four functions are mimalloc's malloc family, which tree-sitter's
    // allocator hook expects; the caller guarantees nothing tree-sitter allocated
    // before is still alive.
    unsafe {
        tree_sitter::set_allocator(
            Some(libmimalloc_sys::mi_malloc),
            Some(libmimalloc_sys::mi_calloc),
            Some(libmimalloc_sys::mi_realloc),
            Some(libmimalloc_sys::mi_free),
        );
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    /// Reports, when dropped, the name of the thread that dropped it.
    struct Tell(mpsc::Sender<Option<String>>);

    impl Drop for Tell {
        fn drop(&mut self) {
            let _ = self.0.send(std::thread::current().name().map(str::to_string));
        }
    }

    #[test]
    fn drop_in_background_drops_on_another_thread() {
        let (tx, rx) = mpsc::channel();
        super::drop_in_background(Tell(tx));
        let by = rx.recv_timeout(Duration::from_secs(60)).expect("the value was never dropped");
        assert_eq!(by.as_deref(), Some("cc-drop"));
    }
}
