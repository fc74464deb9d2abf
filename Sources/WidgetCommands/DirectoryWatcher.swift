import Dispatch
import Foundation
import WidgetRuntime

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Calls back when files in a folder are created, changed, moved or deleted; costs nothing while idle.
///
/// On Linux it uses inotify; elsewhere a dispatch source on the folder, which sees entries added,
/// removed and renamed (editors save by renaming). Bursts of events within a quarter second are
/// delivered once.
final class DirectoryWatcher: @unchecked Sendable {
    // Mutable state is touched only on `queue`.
    private let source: any DispatchSourceRead & DispatchSourceProtocol
    private let descriptor: Int32
    private var pending = false

    init?(path: String, queue: DispatchQueue, onChange: @escaping @Sendable () -> Void) {
        #if os(Linux)
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        let mask = UInt32(IN_CREATE | IN_DELETE | IN_MODIFY | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | IN_ATTRIB)
        guard inotify_add_watch(descriptor, path, mask) >= 0 else {
            close(descriptor)
            return nil
        }
        #else
        let descriptor = open(path, O_EVTONLY)
        guard descriptor >= 0 else { return nil }
        #endif
        self.descriptor = descriptor
        source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        source.setEventHandler { [weak self] in
            guard let self else { return }
            var buffer = [UInt8](repeating: 0, count: 4096)
            while read(descriptor, &buffer, buffer.count) > 0 {}
            if self.pending { return }
            self.pending = true
            queue.asyncAfter(deadline: .now() + 0.25) {
                self.pending = false
                onChange()
            }
        }
        source.setCancelHandler { close(descriptor) }
        source.resume()
    }

    func cancel() {
        source.cancel()
    }
}
