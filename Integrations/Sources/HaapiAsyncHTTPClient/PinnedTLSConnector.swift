import Foundation
import HaapiDriver
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// HTTP/1.1 over TLS where the server's key must match a pin. AsyncHTTPClient has no hook into the
/// certificate check, so pinned hosts get their own connection (one per request, `Connection: close`)
/// through NIOSSL's custom verification callback: the handshake fails before any byte of the request
/// is written if the leaf's SubjectPublicKeyInfo hash is not pinned.
final class PinnedTLSConnector: Sendable {
    private let options: TLSOptions
    private let context: NIOSSLContext

    init(options: TLSOptions) throws {
        self.options = options
        var configuration = try options.makeConfiguration()
        // The pin replaces the CA check; the callback below runs instead of it.
        configuration.certificateVerification = .noHostnameVerification
        context = try NIOSSLContext(configuration: configuration)
    }

    func pins(for host: String) -> Set<String> { options.pins(for: host) }

    func send(
        _ request: HTTPRequest, deadline: TimeInterval, maxResponseBytes: Int
    ) async throws(TransportError) -> HTTPResponse {
        guard let host = request.url.host else { throw .couldNotConnect("no host in \(request.url)") }
        let pins = pins(for: host)
        let port = request.url.port ?? 443
        let isIPAddress = host.allSatisfy { $0.isHexDigit || $0 == "." || $0 == ":" }
        let context = self.context
        let work: @Sendable () async throws -> HTTPResponse = {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.milliseconds(Int64(deadline * 1000)))
                .connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let tls = try NIOSSLClientHandler(context: context, serverHostname: isIPAddress ? nil : host) {
                            certificates, promise in
                            guard let leaf = certificates.first, let hash = try? KeyPinning.publicKeyHash(of: leaf),
                                pins.contains(hash)
                            else {
                                return promise.succeed(.failed)
                            }
                            promise.succeed(.certificateVerified)
                        }
                        try channel.pipeline.syncOperations.addHandler(tls)
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(
                            wrappingChannelSynchronously: channel)
                    }
                }
            return try await channel.executeThenClose { inbound, outbound in
                var head = HTTPRequestHead(
                    version: .http1_1, method: HTTPMethod(rawValue: request.method.uppercased()),
                    uri: Self.target(of: request.url))
                head.headers.add(name: "Host", value: request.url.port.map { "\(host):\($0)" } ?? host)
                head.headers.add(name: "Connection", value: "close")
                for header in request.headers { head.headers.add(name: header.name, value: header.value) }
                if let body = request.body {
                    head.headers.replaceOrAdd(name: "Content-Length", value: String(body.count))
                }
                try await outbound.write(.head(head))
                if let body = request.body { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
                try await outbound.write(.end(nil))

                var status = 0
                var headers: [String: String] = [:]
                var body = Data()
                for try await part in inbound {
                    switch part {
                    case .head(let responseHead):
                        status = Int(responseHead.status.code)
                        for header in responseHead.headers {
                            let name = header.name.lowercased()
                            headers[name] = headers[name].map { $0 + ", " + header.value } ?? header.value
                        }
                    case .body(let buffer):
                        body.append(contentsOf: buffer.readableBytesView)
                        if body.count > maxResponseBytes {
                            throw TransportError.responseTooLarge(limit: maxResponseBytes)
                        }
                    case .end:
                        return HTTPResponse(statusCode: status, headers: headers, body: body, url: request.url)
                    }
                }
                throw TransportError.answerLost("the connection closed before the response ended")
            }
        }
        let outcome = await Self.race(deadline: deadline, work)
        switch outcome {
        case .success(let response): return response
        case .failure(let error as TransportError): throw error
        case .failure(let error as NIOSSLError): throw .couldNotConnect("TLS: \(error) (is the server key pinned?)")
        case .failure(let error as BoringSSLError): throw .couldNotConnect("TLS: \(error) (is the server key pinned?)")
        case .failure(let error): throw AsyncHTTPClientTransport.connectionFailure(error, url: request.url)
        }
    }

    private static func target(of url: URL) -> String {
        let path = url.path.isEmpty ? "/" : url.path
        return url.query.map { path + "?" + $0 } ?? path
    }

    private static func race(
        deadline: TimeInterval, _ work: @escaping @Sendable () async throws -> HTTPResponse
    ) async -> Result<HTTPResponse, any Error> {
        await withTaskGroup(of: Result<HTTPResponse, any Error>.self) { group in
            group.addTask { await Result { try await work() } }
            group.addTask {
                try? await Task.sleep(nanoseconds: UInt64(deadline * 1_000_000_000))
                return .failure(TransportError.timedOut(after: deadline))
            }
            let first = await group.next() ?? .failure(TransportError.cancelled)
            group.cancelAll()
            return first
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
