// The bridge between a SwiftPM executable and libFuzzer's driver.
//
// SwiftPM links an executable module `M` with `main` defined as `M_main`, so each harness defines
// `@_cdecl("M_main")` (its one line of glue) and calls `runLibFuzzer`, which hands libFuzzer its own
// arguments and the harness's test function. Built only with HAAPI_FUZZ=1 (scripts/fuzz.sh).

// libFuzzer's C symbol keeps its C name.
// swift-format-ignore: AlwaysUseLowerCamelCase
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

public typealias FuzzTest = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

/// The harness's test, for libFuzzer's standard entry point below. Set once, before the driver starts.
nonisolated(unsafe) private var registeredTest: FuzzTest?

/// libFuzzer's standard entry point (its runtime refers to it); forwards to the running harness.
@_cdecl("LLVMFuzzerTestOneInput")
public func libFuzzerTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    registeredTest?(start, count) ?? 0
}

/// Runs libFuzzer with the process's arguments over `testOneInput`.
public func runLibFuzzer(
    _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ testOneInput: FuzzTest
) -> CInt {
    registeredTest = testOneInput
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, testOneInput)
}

/// The input as bytes (libFuzzer may pass a null pointer for the empty input).
public func fuzzInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8] {
    guard let start, count > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: start, count: count))
}

/// Stops the run with a report libFuzzer records as a crash, for properties that must hold.
public func fuzzFailure(_ message: String) -> Never {
    preconditionFailure(message)
}
