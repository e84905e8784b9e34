import ChildProcesses
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Certificates made by the openssl tool in a temporary folder: a CA, a server certificate for
/// 127.0.0.1/localhost and a client certificate, both signed by the CA, and the client's PKCS#12 archive.
struct TestCertificates {
    static let passphrase = "p12-pass"
    let directory: URL
    var caPEM: String { read("ca.pem") }
    var serverPEM: String { read("server.pem") }
    var clientPKCS12: Data { (try? Data(contentsOf: directory.appendingPathComponent("client.p12"))) ?? Data() }

    static var isOpenSSLAvailable: Bool {
        ["/usr/bin/openssl", "/usr/local/bin/openssl", "/opt/homebrew/bin/openssl"].contains {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    static func make() throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("haapi-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = """
            set -e
            cd '\(directory.path)'
            openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=haapi-test-ca 2>/dev/null
            printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\n' > server.ext
            openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout server.key -out server.csr -subj /CN=localhost 2>/dev/null
            openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile server.ext 2>/dev/null
            openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout client.key -out client.csr -subj /CN=haapi-test-client 2>/dev/null
            openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out client.pem -days 2 2>/dev/null
            openssl pkcs12 -export -inkey client.key -in client.pem -out client.p12 -passout pass:\(passphrase) \
              -keypbe AES-256-CBC -certpbe AES-256-CBC -macalg sha256 2>/dev/null
            """
        let process = ChildProcess(URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", script])
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestFailure("openssl failed with \(process.terminationStatus)")
        }
        return TestCertificates(directory: directory)
    }

    func read(_ name: String) -> String {
        (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)) ?? ""
    }
    func remove() { try? FileManager.default.removeItem(at: directory) }
}

/// An HTTPS server on 127.0.0.1 that answers every request with 200 and a JSON body naming the client
/// certificate's subject, or "none". With `requireClientCertificate` the handshake fails without one.
final class TLSTestServer: Sendable {
    private let channel: any Channel
    let port: Int

    init(certificates: TestCertificates, requireClientCertificate: Bool) async throws {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(
                certificates.directory.appendingPathComponent("server.pem").path
            ).map { .certificate($0) },
            privateKey: .privateKey(
                try NIOSSLPrivateKey(
                    file: certificates.directory.appendingPathComponent("server.key").path, format: .pem)))
        configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(certificates.caPEM.utf8)))
        configuration.certificateVerification = requireClientCertificate ? .noHostnameVerification : .none
        let context = try NIOSSLContext(configuration: configuration)
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Responder())
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress?.port ?? 0
    }

    var url: URL { URL(string: "https://127.0.0.1:\(port)/oauth/token") ?? URL(fileURLWithPath: "/") }

    func stop() async { try? await channel.close() }

    private final class Responder: ChannelInboundHandler, Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard case .end = unwrapInboundIn(data) else { return }
            let channel = context.channel
            let handler = try? channel.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self)
            let subject = handler?.peerCertificate.map { String(describing: $0) } ?? "none"
            let body =
                #"{"client":"\#(subject.contains("haapi-test-client") ? "haapi-test-client" : subject == "none" ? "none" : "other")"}"#
            var head = HTTPResponseHead(version: .http1_1, status: .ok)
            head.headers.add(name: "Content-Type", value: "application/json")
            head.headers.add(name: "Content-Length", value: String(body.utf8.count))
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(channel.allocator.buffer(string: body)))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
