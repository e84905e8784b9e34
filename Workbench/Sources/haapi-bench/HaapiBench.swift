import ArgumentParser
import Foundation
@_spi(Tooling) import HaapiDriver
import HaapiRawClient

@main
struct HaapiBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "haapi-bench",
        abstract: "Benchmarks for swift-haapi.",
        subcommands: [SdkBenchmark.self, ProofsCommand.self, LoginLoadCommand.self]
    )
}

/// Runs an operation in concurrent loops for a fixed time and reports completed operations per second.
enum LoadLoop {
    /// Runs `operation` in `concurrency` loops for `seconds` and returns completed operations per second.
    static func run(
        _ name: String, concurrency: Int, seconds: Double, _ operation: @escaping @Sendable () async throws -> Void
    ) async throws -> Double {
        // One warm-up call, so connection set-up is not measured.
        try await operation()
        let deadline = Date().addingTimeInterval(seconds)
        let start = Date()
        let completed = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var count = 0
                    while Date() < deadline {
                        try await operation()
                        count += 1
                    }
                    return count
                }
            }
            return try await group.reduce(0, +)
        }
        let rate = Double(completed) / Date().timeIntervalSince(start)
        print(String(format: "  %@: %d in %.1f s = %.2f/s", name, completed, Date().timeIntervalSince(start), rate))
        return rate
    }
}

/// `haapi-bench logins`: complete HAAPI password logins in a loop, the background load of scripts/bench.sh's
/// "/health while users log in" phase.
struct LoginLoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logins", abstract: "Complete password logins in a loop against a running dev server.")

    @Option(name: .long, help: "The dev server's base URL.")
    var url: String

    @Option(name: .long, help: "Seconds to run.")
    var seconds: Double = 10

    @Option(name: .long, help: "Clients logging in at the same time.")
    var clients = 2

    func run() async throws {
        let base = url
        let rate = try await LoadLoop.run("password logins", concurrency: clients, seconds: seconds) {
            let device = HaapiDevice(base: base)
            try await device.obtainHaapiToken()
            let code = try await device.passwordLogin()
            let tokens = try await device.redeem(code: code)
            guard tokens.status == 200 else {
                throw UnexpectedResponse("code exchange \(tokens.status) \(tokens.text)")
            }
        }
        print(String(format: "logins/s %.2f", rate))
    }
}
