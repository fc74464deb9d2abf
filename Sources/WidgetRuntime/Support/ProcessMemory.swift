import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// How the process's allocator treats large buffers.
public enum ProcessMemory {
    /// Large buffers (a response body, a payload being parsed) go straight to the system and back when
    /// freed, rather than staying in the allocator's arenas.
    ///
    /// glibc raises its mmap threshold each time a large block is freed, up to 32 MiB, so later bodies of
    /// that size come from an arena and stay there after they are freed; with one arena per transfer
    /// thread, a daemon whose widgets keep receiving bodies near their cap climbed to ~150 MiB and stayed
    /// there. Fixing the threshold at glibc's initial 128 KiB keeps it near its working set (~40 MiB in
    /// the same run).
    ///
    /// The number of arenas is capped at the number of cores too (at least two): each refresh runs on a
    /// thread of its own, and glibc would otherwise give up to eight arenas a core to those threads, each
    /// keeping what it once held (3.7 KiB more a widget after a wave of 1,000, measured). Does nothing
    /// where the allocator is not glibc's.
    public static func returnLargeBuffersToTheSystem() {
        #if os(Linux)
        // `mallopt` is not in the Glibc module; RTLD_DEFAULT (a null handle) finds it in the C library.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD in <malloc.h>
        _ = mallopt(mmapThreshold, 128 * 1024)
        let arenaMaximum: Int32 = -8  // M_ARENA_MAX in <malloc.h>
        _ = mallopt(arenaMaximum, Int32(max(2, ProcessInfo.processInfo.activeProcessorCount)))
        #endif
    }

    /// Gives back to the system the pages the allocator holds free (glibc's `malloc_trim`), where a
    /// daemon's work is done for a while: after loading the definitions and after a wave of refreshes.
    ///
    /// A load or a wave parses payloads, states and snapshots between the few blocks the daemon keeps,
    /// and freed pages between kept blocks stay resident otherwise: a thousand widgets loaded from state
    /// kept ~8 MiB of such pages. Takes about a millisecond for a daemon of a thousand widgets. Does
    /// nothing where the allocator is not glibc's.
    public static func returnFreePages() {
        #if os(Linux)
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = trimSymbol else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
        #endif
    }

    #if os(Linux)
    /// `malloc_trim`, looked up once: it is not in the Glibc module either.
    nonisolated(unsafe) private static let trimSymbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim")
    #endif
}
