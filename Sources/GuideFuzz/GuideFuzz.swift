import Foundation
#if FUZZING
import CLibFuzzer
#endif

// Two ways to run the same targets (FuzzTarget):
// - libFuzzer, coverage-guided: `scripts/fuzz` builds this with `-sanitize=fuzzer,address -DFUZZING`, and libFuzzer
//   calls the target with inputs it grows from the seed corpus: `GuideFuzz TARGET [libFuzzer options and folders]`.
// - a plain build (`swift run GuideFuzz TARGET FILES...`) runs the target once on each file: for reproducing a crash
//   libFuzzer saved, without the sanitizers.

/// The target this run fuzzes; libFuzzer's callback is a C function, so it reads it from here.
nonisolated(unsafe) private var chosen = FuzzTarget.xmltv

@main
struct GuideFuzz {
    static func main() throws {
        guard CommandLine.arguments.count > 1, let target = FuzzTarget(rawValue: CommandLine.arguments[1]) else {
            print("usage: GuideFuzz \(FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")) FILE-OR-LIBFUZZER-OPTION...")
            exit(2)
        }
        chosen = target
        #if FUZZING
        // libFuzzer reads the rest of the arguments: its options and corpus folders.
        var arguments = [CommandLine.arguments[0]] + CommandLine.arguments.dropFirst(2)
        var argc = CInt(arguments.count)
        var pointers = arguments.map { strdup($0) } + [nil]
        let status = pointers.withUnsafeMutableBufferPointer { buffer -> CInt in
            var argv = buffer.baseAddress
            return LLVMFuzzerRunDriver(&argc, &argv) { data, size in
                chosen.run(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
                return 0
            }
        }
        arguments.removeAll()
        exit(status)
        #else
        for path in CommandLine.arguments.dropFirst(2) {
            target.run([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
            print("\(path): no property failed")
        }
        #endif
    }
}
