import Foundation
import NetworkFaults
import Testing

@testable import HaapiServer

/// `haapi login` (the SDK underneath) against the dev server behind `NetworkFaultProxy` (issue 52): what the
/// issue measured (0 of 8 logins when every third GET's answer was lost) and the words of each failure.
@Suite("haapi login on a bad network", .timeLimit(.minutes(3)))
struct BadNetworkLoginTests {
    /// The dev server in this process, its public URL the proxy's.
    static func serve(behind proxy: NetworkFaultProxy) async throws -> RunningDevServer {
        let server = try DevServer(
            configuration: try ServerConfiguration.embeddedDefault, store: ServerStore(path: nil))
        let running = try await server.start(publicURL: proxy.url.absoluteString)
        proxy.forward(to: running.port)
        return running
    }

    static let login = ["login", "--client-id", "haapi-demo", "--username", "demouser", "--password", "Password1"]

    @Test("every third GET's answer lost after the server answered it: 8 logins of 8 get tokens")
    func eightOfEight() async throws {
        let gets = FaultCounter()
        let proxy = try NetworkFaultProxy { request in
            request.method == "GET" && gets.next() % 3 == 0 ? .resetAfterForwarding : .pass
        }
        defer { proxy.stop() }
        let running = try await Self.serve(behind: proxy)
        defer { Task { await running.stop() } }
        var succeeded = 0
        for _ in 0..<8 {
            let result = try await CLIRunner.run(
                Self.login + ["--server", proxy.url.absoluteString], stdin: Data(), limit: 60)
            if result.status == 0, result.stdout.contains("token_type: DPoP") {
                succeeded += 1
            } else {
                Issue.record("exit \(result.status): \(result.stderr)")
            }
        }
        #expect(succeeded == 8)
        #expect(proxy.log.filter { $0.fault == .resetAfterForwarding }.count >= 8)
    }

    @Test("a lost POST answer, a stalled server and a closed port: exit 69 each, in their own words")
    func words() async throws {
        let posts = FaultCounter()
        let proxy = try NetworkFaultProxy { request in
            guard request.method == "POST", request.target.hasPrefix("/authn/authenticate/password") else {
                return .pass
            }
            return posts.next() == 1 ? .resetAfterForwarding : .stall
        }
        defer { proxy.stop() }
        let running = try await Self.serve(behind: proxy)
        defer { Task { await running.stop() } }
        let server = ["--server", proxy.url.absoluteString, "--timeout", "3"]
        var outcomes: [String] = []
        for _ in 0..<2 {
            let result = try await CLIRunner.run(Self.login + server, stdin: Data(), limit: 60)
            #expect(result.status == 69, "exit \(result.status): \(result.stderr)")
            outcomes.append(result.stderr)
        }
        #expect(
            outcomes.contains {
                $0.contains("The connection was lost before the server's answer came")
                    && $0.contains("the server may have acted on the request")
            }, "\(outcomes)")
        #expect(outcomes.contains { $0.contains("The server did not answer within 3 s.") }, "\(outcomes)")
        // The POST that lost its answer went once.
        #expect(proxy.log.filter { $0.fault == .resetAfterForwarding }.count == 1)

        let nothing = try NetworkFaultProxy { _ in .pass }
        let closed = nothing.url.absoluteString
        nothing.stop()
        let refused = try await CLIRunner.run(Self.login + ["--server", closed], stdin: Data(), limit: 60)
        #expect(refused.status == 69)
        #expect(refused.stderr.contains("The server could not be reached"), "\(refused.stderr)")
    }

    @Test("BankID's polls answered 503 and cut: the login says it is reconnecting, then signs in")
    func reconnectingLine() async throws {
        let polls = FaultCounter()
        let proxy = try NetworkFaultProxy { request in
            guard request.target.hasPrefix("/authn/authenticate/bankid/poll") else { return .pass }
            switch polls.next() {
            case 1: return .unavailable(status: 503, retryAfter: "1")
            case 2: return .truncate
            default: return .pass
            }
        }
        defer { proxy.stop() }
        let (server, output) = try CLIRunner.start([
            "serve", "--port", "0", "--public-url", proxy.url.absoluteString,
            "--config", LoginAnswersTests.examples.appendingPathComponent("bank.json").path,
        ])
        defer { server.terminate() }
        let summary = try await CLIRunner.waitForLine(containing: "approve a pending sign-in", in: output)
        let local = try #require(summary.split(separator: " ").first { $0.hasPrefix("http://localhost:") })
        proxy.forward(to: try #require(local.split(separator: ":").last.flatMap { Int($0) }))
        let directory = try CLIRunner.temporaryDirectory()
        let answers = try LoginAnswersTests.answers(
            [
                ["fields": ["userName": "alice", "password": "Password1"]], ["fields": ["code": "123456"]],
                ["choose": "bankid"], ["action": "Accept"],
            ], in: directory)
        let result = try await CLIRunner.run(
            [
                "login", "--server", proxy.url.absoluteString, "--client-id", "bank-ios", "--redirect-uri",
                "app://bank", "--answers", answers,
            ], limit: 60)
        #expect(
            result.status == 0 && result.stdout.contains("token_type: DPoP"),
            "exit \(result.status): \(result.stdout)\n\(result.stderr) \(proxy.log.map { "\($0.request.method) \($0.request.target.prefix(40)) \($0.fault)" })"
        )
        let text = result.stdout + result.stderr
        #expect(text.contains("Reconnecting, a poll failed:") && text.contains("HTTP 503"), "\(text)")
        #expect(polls.next() > 3)
    }
}
