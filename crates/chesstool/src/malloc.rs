//! glibc's allocator, set once at start for a batch job that reads in
//! chunks of about a megabyte.
//!
//! By default glibc serves a block of 128 KiB or more with its own `mmap`
//! and gives the top of its heap back to the kernel once 128 KiB of it is
//! free; it raises both thresholds as large blocks are freed. A run that
//! reads many inputs, or sends batches of rows between threads, allocates
//! and frees blocks of a few hundred KiB to a few MiB all the time, so the
//! same memory went back to the kernel and was faulted in, zeroed, again
//! and again: `select --threads 2` over the 33 master files took 4,400
//! page faults where one thread took 1,440, most of them inside `memset`
//! of fresh chunk buffers. With blocks under 32 MiB kept in the heap
//! (glibc's own ceiling for its moving threshold) and the heap's top kept
//! up to 64 MiB, freed memory is reused instead. Blocks of 32 MiB and more
//! (a perft hash table, the duplicate table's largest segments) still get
//! their own mapping and go back when freed.
//!
//! A user who tunes glibc's allocator by environment (`GLIBC_TUNABLES`,
//! `MALLOC_MMAP_THRESHOLD_`, `MALLOC_TRIM_THRESHOLD_`) keeps those
//! settings: nothing is changed then.

/// The block size from which glibc maps a block of its own.
const MMAP_THRESHOLD: i32 = 32 << 20;
/// Free bytes at the heap's top that glibc keeps before giving them back.
const TRIM_THRESHOLD: i32 = 64 << 20;

/// Sets the allocator's thresholds, before any other thread starts.
pub fn tune() {
    let by_environment = [
        "GLIBC_TUNABLES",
        "MALLOC_MMAP_THRESHOLD_",
        "MALLOC_TRIM_THRESHOLD_",
    ]
    .iter()
    .any(|name| std::env::var_os(name).is_some());
    if !by_environment {
        set(MMAP_THRESHOLD, TRIM_THRESHOLD);
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn set(mmap_threshold: i32, trim_threshold: i32) {
    // SAFETY: `mallopt` takes two integers and only changes the
    // allocator's parameters (it takes the allocator's own lock); it is
    // called from `main` before any other thread exists, and an unknown or
    // refused value is ignored (it returns 0, and the defaults stay).
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, mmap_threshold);
        libc::mallopt(libc::M_TRIM_THRESHOLD, trim_threshold);
    }
}

/// Other allocators choose for themselves.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn set(_mmap_threshold: i32, _trim_threshold: i32) {}
