import Foundation
import Hummingbird
import Logging
import NIOCore

/// An HTTP server on a free loopback port, in the test process, answering every request with `respond`.
final class LoopbackHTTPServer: Sendable {
    private let task: Task<Void, any Error>
    let port: Int

    var url: URL { URL(string: "http://localhost:\(port)") ?? URL(fileURLWithPath: "/") }

    init(_ respond: @escaping @Sendable (Request) async throws -> Response) async throws {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "loopback-http-server")
        logger.logLevel = .critical
        let application = Application(
            responder: CallbackResponder<BasicRequestContext> { request, _ in try await respond(request) },
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "loopback-test"),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: logger)
        task = Task {
            defer { continuation.finish() }
            try await application.run()
        }
        var bound = 0
        for await port in ports { bound = port }
        port = bound
    }

    func stop() { task.cancel() }
}
