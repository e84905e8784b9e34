import ArgumentParser
import Foundation
import HaapiModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct ApproveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approve",
        abstract: "Approve a pending \"approve on another device\" sign-in on the dev server (loopback only)."
    )

    @Option(name: .long, help: "The dev server's base URL.")
    var server: String

    @Option(name: .long, help: "The user whose pending sign-in to approve.")
    var user: String

    func run() async throws {
        guard let base = URL(string: server), let endpoint = URL(string: "/admin/approve", relativeTo: base) else {
            throw ValidationError("--server must be a URL such as http://127.0.0.1:8443")
        }
        var request = URLRequest(url: endpoint)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(FormURLEncoding.encode([("user", user)]).utf8)
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        switch status {
        case 200:
            let count = (try? JSONParser().parse(data))?["approved"]?.numberValue?.intValue ?? 0
            print("approved \(count) pending sign-in(s) for \(user)")
        case 404:
            StandardStreams.printError("haapi approve: no pending sign-in for \(user)")
            throw ExitCode.failure
        default:
            StandardStreams.printError("haapi approve: the server answered \(status): \(String(decoding: data, as: UTF8.self))")
            throw ExitCode.failure
        }
    }
}
