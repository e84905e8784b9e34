import ArgumentParser
import Foundation
import HaapiDriver
import HaapiRawClient

@main
struct HaapiBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "haapi-bench",
        abstract: "Benchmarks for swift-haapi.",
        subcommands: [ServerBenchmark.self, SdkBenchmark.self, ProofsCommand.self, LoginLoadCommand.self]
    )
}

/// Load from a separate process on loopback against a running `haapi serve` (scripts/bench-server.sh starts both).
///
/// Three phases of the same length and concurrency: a trivial JSON endpoint of the same Hummingbird app
/// (the baseline), token-endpoint requests (client_credentials with client_secret_basic: client
/// authentication, a token written to SQLite), and complete HAAPI password logins (attestation, CAT,
/// HAAPI token, authorize, authenticator selection, login with PBKDF2, code, DPoP-bound token exchange).
struct ServerBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "server", abstract: "Requests per second against a running dev server.")

    @Option(name: .long, help: "The dev server's base URL.")
    var url: String

    @Option(name: .long, help: "Seconds per phase.")
    var seconds: Double = 10

    @Option(name: .long, help: "Concurrent clients per phase.")
    var concurrency: Int = 8

    func run() async throws {
        print("haapi-bench server: \(url), \(concurrency) concurrent clients, \(seconds) s per phase")
        let trivial = try await phase("trivial JSON endpoint (GET /health)") {
            let response = try await RawHTTP.send("GET", url + "/health")
            guard response.status == 200 else { throw UnexpectedResponse("health \(response.status)") }
        }
        let token = try await phase("token endpoint (client_credentials, client_secret_basic)") {
            let response = try await RawHTTP.form(url + "/oauth/token", [("grant_type", "client_credentials"), ("scope", "dcr")],
                                                  headers: [RawHTTP.basic("haapi-dcr-main", "dcr-main-secret-change-me")])
            guard response.status == 200 else { throw UnexpectedResponse("token \(response.status) \(response.text)") }
        }
        let logins = try await phase("complete HAAPI password logins (attestation → DPoP-bound tokens)") {
            let device = HaapiDevice(base: url)
            try await device.obtainHaapiToken()
            let code = try await device.passwordLogin()
            let tokens = try await device.redeem(code: code)
            guard tokens.status == 200 else { throw UnexpectedResponse("code exchange \(tokens.status) \(tokens.text)") }
        }
        print("")
        print(String(format: "trivial JSON endpoint:  %8.1f requests/s  (baseline)", trivial))
        print(String(format: "token endpoint:         %8.1f requests/s  (%.3f × baseline)", token, token / trivial))
        print(String(format: "complete logins:        %8.2f logins/s    (%.4f × baseline; each is 9 HTTP requests and one PBKDF2-600k password check)", logins, logins / trivial))
    }

    private func phase(_ name: String, _ operation: @escaping @Sendable () async throws -> Void) async throws -> Double {
        try await LoadLoop.run(name, concurrency: concurrency, seconds: seconds, operation)
    }
}

/// Runs an operation in concurrent loops for a fixed time and reports completed operations per second.
enum LoadLoop {
    /// Runs `operation` in `concurrency` loops for `seconds` and returns completed operations per second.
    static func run(_ name: String, concurrency: Int, seconds: Double, _ operation: @escaping @Sendable () async throws -> Void) async throws -> Double {
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
    static let configuration = CommandConfiguration(commandName: "logins", abstract: "Complete password logins in a loop against a running dev server.")

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
            guard tokens.status == 200 else { throw UnexpectedResponse("code exchange \(tokens.status) \(tokens.text)") }
        }
        print(String(format: "logins/s %.2f", rate))
    }
}
