import Foundation

/// Runs each file named on the command line through a fuzzer's entry point once, so that a crash found by
/// the fuzzer can be replayed in an ordinary build (which has no libFuzzer `main`).
///
/// Each fuzz executable (`widgetd-fuzz-json`, `widgetd-fuzz-liquid`, `widgetd-fuzz`) calls it from its
/// `main` outside fuzzing builds:
///
/// ```
/// widgetd-fuzz-json Tests/Fixtures/fuzz-corpus/*
/// ```
package enum CorpusReplayer {
    /// Replays the files of `arguments` (the program name first) through `entry`; prints how to use it
    /// when there are none, and exits with status 1 when a file cannot be read.
    package static func run(
        _ arguments: [String], program: String, entry: (UnsafePointer<UInt8>, Int) -> CInt
    ) {
        let paths = arguments.dropFirst()
        if paths.isEmpty {
            print("Usage: \(program) FILE…  (replays fuzz inputs; build with -DFUZZING and -sanitize=fuzzer to fuzz)")
            return
        }
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path) else {
                print("Error: cannot read the input file \(path).")
                exit(1)
            }
            let bytes = [UInt8](data)
            _ = bytes.withUnsafeBufferPointer { buffer in
                entry(buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!, buffer.count)
            }
            print("\(path): ok")
        }
    }
}
