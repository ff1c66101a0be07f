#if canImport(Glibc)
import Glibc
#endif

/// One fuzz target: called with each input; returns 0 (libFuzzer's contract). It traps on a broken property.
public typealias FuzzTarget = @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32

/// libFuzzer's driver, from its runtime without a main of its own (libclang_rt.fuzzer_no_main), which scripts/fuzz
/// links: SwiftPM gives every executable its own main, so the fuzzers start libFuzzer from there.
@_silgen_name("LLVMFuzzerRunDriver")
private func llvmFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ target: FuzzTarget
) -> Int32

/// Runs libFuzzer with this process's arguments on `target`, and exits with its status.
public func runFuzzer(_ target: FuzzTarget) -> Never {
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(llvmFuzzerRunDriver(&argc, &argv, target))
}

/// The input as bytes (an empty input may come with a null pointer).
public func bytes(_ start: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8] {
    guard let start, count > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: start, count: count))
}
