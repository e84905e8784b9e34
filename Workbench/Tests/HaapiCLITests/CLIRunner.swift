import ChildProcesses
import Foundation

/// Runs the built `haapi` executable, as a user or a script would.
enum CLIRunner {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
        /// Whether the command was stopped for running past its time limit (a wait without end).
        var timedOut = false
    }

    /// The executable SwiftPM built next to the test bundle.
    static let executable: URL? = {
        var directory = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("haapi")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let fallback = repository.appendingPathComponent(".build/debug/haapi")
        return FileManager.default.isExecutableFile(atPath: fallback.path) ? fallback : nil
    }()

    /// Runs the command to its end. The waiting happens on a thread of its own: blocking one of the few
    /// cooperative threads (two on a two-core machine) would starve every other test running meanwhile.
    /// With `limit`, a command still running after that many seconds is terminated and `timedOut` is set: a
    /// test that a command never waits without end fails instead of hanging.
    static func run(
        _ arguments: [String], stdin: Data? = nil, environment: [String: String] = [:], limit: TimeInterval? = nil
    ) async throws -> Result {
        try await onOwnThread { try runBlocking(arguments, stdin: stdin, environment: environment, limit: limit) }
    }

    /// `body` on a new thread, awaited without holding a cooperative thread.
    static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Swift.Result { try body() }) }.start()
        }
    }

    private static func runBlocking(
        _ arguments: [String], stdin: Data?, environment: [String: String], limit: TimeInterval?
    ) throws -> Result {
        guard let executable else { throw CocoaError(.fileNoSuchFile) }
        let output = Pipe()
        let errors = Pipe()
        let input = Pipe()
        let process = ChildProcess(
            executable, arguments: arguments,
            environment: environment.isEmpty
                ? nil : ProcessInfo.processInfo.environment.merging(environment) { $1 },
            input: .pipe(input), output: .pipe(output), error: .pipe(errors))
        try process.run()
        let stopped = LockedFlag()
        if let limit {
            DispatchQueue.global().asyncAfter(deadline: .now() + limit) {
                if process.isRunning {
                    stopped.set()
                    process.terminate()
                }
            }
        }
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self), timedOut: stopped.isSet)
    }

    /// Starts a long-running command with its standard output going to a file, which `waitForLine` polls.
    /// (A file rather than a pipe's readabilityHandler: the handler proved unreliable on Linux under load.)
    static func start(_ arguments: [String]) throws -> (ChildProcess, URL) {
        guard let executable else { throw CocoaError(.fileNoSuchFile) }
        let output = try temporaryDirectory().appendingPathComponent("stdout.txt")
        guard FileManager.default.createFile(atPath: output.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let process = ChildProcess(
            executable, arguments: arguments, output: .file(try FileHandle(forWritingTo: output)), error: .null)
        try process.run()
        return (process, output)
    }

    static func waitForLine(containing text: String, in output: URL, timeout: TimeInterval = 120) async throws -> String
    {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let contents = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            if let line = contents.split(separator: "\n").first(where: { $0.contains(text) }) { return String(line) }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw CocoaError(.fileReadUnknown)
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("haapi-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// A flag set from another thread.
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    func set() {
        lock.lock()
        value = true
        lock.unlock()
    }

    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}
