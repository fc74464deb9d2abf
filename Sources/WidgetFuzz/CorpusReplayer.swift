#if !FUZZING
import Foundation

/// Runs each file named on the command line through ``fuzz(_:_:)`` once, so that a crash found by the
/// fuzzer can be replayed in an ordinary build (which has no libFuzzer `main`).
///
/// ```
/// widgetd-fuzz Tests/Fixtures/fuzz-corpus/*
/// ```
@main
struct CorpusReplayer {
    static func main() {
        let paths = CommandLine.arguments.dropFirst()
        if paths.isEmpty {
            print("Usage: widgetd-fuzz FILE…  (replays fuzz inputs; build with -DFUZZING and -sanitize=fuzzer to fuzz)")
            return
        }
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path) else {
                print("Error: cannot read the input file \(path).")
                exit(1)
            }
            let bytes = [UInt8](data)
            _ = bytes.withUnsafeBufferPointer { buffer in
                fuzz(buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!, buffer.count)
            }
            print("\(path): ok")
        }
    }
}
#endif
