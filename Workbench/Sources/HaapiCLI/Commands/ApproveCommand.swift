import ArgumentParser
import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel

struct ApproveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approve",
        abstract: "Approve a pending \"approve on another device\" sign-in on the dev server (loopback only).",
        discussion: HelpExamples.discussion(
            """
            An approval applies to exactly one sign-in. With --user alone, the user's one pending sign-in is \
            approved; when the user has several, they are listed and --id must name one.
            """,
            "haapi approve --server http://localhost:8080 --user demouser",
            "haapi approve --server http://localhost:8080 --id \"$APPROVAL_ID\"")
    )

    @Option(name: .long, help: "The dev server's base URL.")
    var server: String

    @Option(name: .long, help: "The user whose pending sign-in to approve.")
    var user: String

    @Option(
        name: .long, parsing: .unconditional,
        help: "The id of the pending sign-in to approve, when the user has several.")
    var id: String?

    func run() async throws {
        guard let base = URL(string: server), let listing = URL(string: "/admin/approvals", relativeTo: base),
            let endpoint = URL(string: "/admin/approve", relativeTo: base)
        else {
            throw ValidationError("--server must be a URL such as http://localhost:8080")
        }
        let transport = commandTransport(timeout: 10)
        let approvalID: String
        if let id {
            approvalID = id
        } else {
            var components = URLComponents(url: listing, resolvingAgainstBaseURL: true)
            components?.queryItems = [URLQueryItem(name: "user", value: user)]
            let response = try await transport.send(HTTPRequest(method: "GET", url: components?.url ?? listing))
            guard response.statusCode == 200 else {
                throw Self.failure(
                    "the server answered \(response.statusCode): \(String(decoding: response.body, as: UTF8.self))")
            }
            let pending = (try? JSONParser().parse(response.body))?["approvals"]?.arrayValue ?? []
            switch pending.count {
            case 0:
                throw Self.failure("no pending sign-in for \(user)")
            case 1:
                approvalID = pending[0]["id"]?.stringValue ?? ""
            default:
                let ids = pending.compactMap { $0["id"]?.stringValue }.map { "  --id \($0)" }.joined(separator: "\n")
                throw Self.failure("\(user) has \(pending.count) pending sign-ins; approve one of them:\n\(ids)")
            }
        }
        let request = HTTPRequest(
            method: "POST", url: endpoint, headers: [("Content-Type", MimeTypes.formURLEncoded)],
            body: Data(FormURLEncoding.encode([("approval", approvalID)]).utf8))
        let response = try await transport.send(request)
        let data = response.body
        let status = response.statusCode
        switch status {
        case 200:
            print("approved the pending sign-in of \(user)")
        case 404:
            throw Self.failure("no pending sign-in has this id (it was approved, cancelled or ran out)")
        default:
            throw Self.failure("the server answered \(status): \(String(decoding: data, as: UTF8.self))")
        }
    }

    private static func failure(_ message: String) -> CLIFailure {
        CLIFailure(message)
    }
}
