import ChildProcesses
import Foundation
import Testing

/// The tests' way of starting commands (ChildProcess, in place of Foundation's Process on Linux).
@Suite("Child processes of the tests")
struct ChildProcessTests {
    @Test("a child gets its three streams and no other descriptor of the test runner; exit codes and signals")
    func streamsAndEnds() async throws {
        #if os(Linux)
        let keptOpen = Pipe()  // a descriptor the child must not inherit
        let output = Pipe()
        let listing = ChildProcess(
            URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", "ls /proc/$$/fd; exit 3"], output: .pipe(output))
        try listing.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        await listing.exit()
        #expect(listing.terminationReason == .exit && listing.terminationStatus == 3)
        let descriptors = Set(text.split(whereSeparator: \.isWhitespace).compactMap { Int32($0) })
        #expect(descriptors.isSubset(of: [0, 1, 2, 10]), "\(descriptors)")  // a shell may keep 10 for itself
        withExtendedLifetime(keptOpen) {}
        #endif

        let sleeper = ChildProcess(URL(fileURLWithPath: "/bin/sleep"), arguments: ["30"])
        try sleeper.run()
        #expect(sleeper.isRunning)
        sleeper.terminate()
        await sleeper.exit()
        #expect(!sleeper.isRunning)
        #expect(sleeper.terminationReason == .uncaughtSignal && sleeper.terminationStatus == SIGTERM)
        sleeper.terminate()  // after the end: no signal to an id that may be another process's now
    }
}
