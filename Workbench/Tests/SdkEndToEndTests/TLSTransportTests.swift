// AsyncHTTPClientTransport exists where the driver links AsyncHTTPClient (Linux). The Apple path
// (URLSessionTransport(tls:), TLSOptions+Security.swift) shares the pin computation tested below.
#if HAAPI_ASYNC_HTTP_CLIENT
import Foundation
#if HAAPI_ASYNC_HTTP_CLIENT
import HaapiAsyncHTTPClient
#endif
@testable import HaapiDriver
@_spi(Tooling) import HaapiSdk
import NIOSSL
import Testing

/// mTLS client certificates and server-key pinning in `AsyncHTTPClientTransport`, against an HTTPS server on 127.0.0.1.
@Suite(
    "TLS: mTLS and key pinning",
    .enabled(if: TestCertificates.isOpenSSLAvailable, "needs the openssl tool to make test certificates"),
    .timeLimit(.minutes(3)))
struct TLSTransportTests {
    static func client(_ transport: any HTTPTransport, _ url: URL) async throws(TransportError) -> String {
        let response = try await transport.send(
            HTTPRequest(method: "POST", url: url, body: Data("grant_type=client_credentials".utf8)))
        return (try? JSONParser().parse(response.body))?["client"]?.stringValue ?? ""
    }

    @Test(
        "mTLS: the PKCS#12 identity is presented; without it the server refuses the handshake; an unknown CA is refused"
    )
    func mutualTLS() async throws {
        let certificates = try TestCertificates.make()
        defer { certificates.remove() }
        let server = try await TLSTestServer(certificates: certificates, requireClientCertificate: true)
        defer { Task { await server.stop() } }

        let method = try ClientAuthenticationMethodMTLS(
            pkcs12: certificates.clientPKCS12, pkcs12Passphrase: TestCertificates.passphrase,
            serverPEM: certificates.caPEM)
        let transport = try AsyncHTTPClientTransport(tls: method.tls, timeout: 30)
        #expect(try await Self.client(transport, server.url) == "haapi-test-client")

        let anonymous = try AsyncHTTPClientTransport(
            tls: TLSOptions(trustedCertificatesPEM: [certificates.caPEM]), timeout: 30)
        await #expect(throws: TransportError.self) { try await Self.client(anonymous, server.url) }

        let systemTrust = try AsyncHTTPClientTransport(
            tls: TLSOptions(
                clientIdentity: try TLSOptions.ClientIdentity(
                    pkcs12: Array(certificates.clientPKCS12), passphrase: TestCertificates.passphrase)), timeout: 30)
        await #expect(throws: TransportError.self) { try await Self.client(systemTrust, server.url) }
    }

    /// FoundationNetworking cannot present a client certificate: a configuration that asks for mTLS and names no
    /// transport must not connect without one. Every request fails with the reason instead.
    @Test("mTLS without a transport on Linux: each request fails naming the integrations, none reaches the server")
    func mutualTLSNeedsATransportOnLinux() async throws {
        let certificates = try TestCertificates.make()
        defer { certificates.remove() }
        let server = try await TLSTestServer(certificates: certificates, requireClientCertificate: true)
        defer { Task { await server.stop() } }
        let method = try ClientAuthenticationMethodMTLS(
            pkcs12: certificates.clientPKCS12, pkcs12Passphrase: TestCertificates.passphrase,
            serverPEM: certificates.caPEM)
        let configuration = HaapiConfiguration(
            name: "mtls-" + UUID().uuidString, clientId: "haapi-test-client", baseURL: server.url,
            tokenEndpointURL: server.url.appendingPathComponent("oauth/token"),
            authorizationEndpointURL: server.url.appendingPathComponent("oauth/authorize"), appRedirect: "app://t",
            attestationConfiguration: AttestationConfiguration(useAttestation: false),
            clientAuthenticationMethod: method, dpopKeyStorage: nil)
        do {
            _ = try await configuration.transport.send(HTTPRequest(method: "GET", url: server.url))
            Issue.record("a request went out without the client certificate")
        } catch {
            #expect("\(error)".contains("HaapiAsyncHTTPClient"), "\(error)")
        }
    }

    /// On Linux the SDK holds the archive unopened (it has no PKCS#12 reader there); the transport that presents
    /// it opens it when it is made, so the wrong passphrase is still an error before any request.
    @Test("mTLS: a wrong passphrase is a configuration error before the first request (the transport's construction)")
    func wrongPassphrase() throws {
        let certificates = try TestCertificates.make()
        defer { certificates.remove() }
        let method = try ClientAuthenticationMethodMTLS(
            pkcs12: certificates.clientPKCS12, pkcs12Passphrase: "wrong", serverPEM: nil)
        #expect(throws: (any Error).self) { _ = try AsyncHTTPClientTransport(tls: method.tls, timeout: 30) }
        let right = try ClientAuthenticationMethodMTLS(
            pkcs12: certificates.clientPKCS12, pkcs12Passphrase: TestCertificates.passphrase, serverPEM: nil)
        _ = try AsyncHTTPClientTransport(tls: right.tls, timeout: 30)
    }

    @Test("pinning: the pinned key is accepted without any CA; another key is refused before the request is sent")
    func pinning() async throws {
        let certificates = try TestCertificates.make()
        defer { certificates.remove() }
        let server = try await TLSTestServer(certificates: certificates, requireClientCertificate: false)
        defer { Task { await server.stop() } }
        let pin = try KeyPinning.publicKeyHash(ofCertificate: Array(certificates.serverPEM.utf8))

        let pinned = try AsyncHTTPClientTransport(
            tls: TLSOptions(keyPinnings: [KeyPinning(hostname: "127.0.0.1", publicKeyHash: pin)]), timeout: 30)
        #expect(try await Self.client(pinned, server.url) == "none")

        let wrongPin = try AsyncHTTPClientTransport(
            tls: TLSOptions(keyPinnings: [
                KeyPinning(hostname: "127.0.0.1", publicKeyHash: "Kjuy4mT3fbeDozRNP6rTjWRYmbs79Begb5Roq+DUu7s=")
            ]), timeout: 30)
        do {
            _ = try await Self.client(wrongPin, server.url)
            Issue.record("a connection to an unpinned key succeeded")
        } catch {
            guard case .couldNotConnect = error else {
                Issue.record("\(error)")
                return
            }
        }
    }

    @Test("pinning with mTLS: the pinned connection presents the client certificate")
    func pinningWithClientCertificate() async throws {
        let certificates = try TestCertificates.make()
        defer { certificates.remove() }
        let server = try await TLSTestServer(certificates: certificates, requireClientCertificate: true)
        defer { Task { await server.stop() } }
        let pin = try KeyPinning.publicKeyHash(ofCertificate: Array(certificates.serverPEM.utf8))
        let method = try ClientAuthenticationMethodMTLS(
            pkcs12: certificates.clientPKCS12, pkcs12Passphrase: TestCertificates.passphrase,
            serverKeyPinnings: [KeyPinning(hostname: "127.0.0.1", publicKeyHash: pin)])
        let transport = try AsyncHTTPClientTransport(tls: method.tls, timeout: 30)
        #expect(try await Self.client(transport, server.url) == "haapi-test-client")
    }
}

@Suite("TLS: pins computed from the certificate's DER")
struct CertificatePinTests {
    @Test(
        "the DER walk finds the same SubjectPublicKeyInfo as NIOSSL; broken certificates are errors, never crashes",
        .enabled(if: TestCertificates.isOpenSSLAvailable, "needs the openssl tool to make test certificates"))
    func spkiFromDER() throws {
        let certificates = try TestCertificates.make()
        defer { certificates.remove() }
        for pem in [certificates.serverPEM, certificates.caPEM] {
            let nio = try NIOSSLCertificate(bytes: Array(pem.utf8), format: .pem)
            #expect(
                try KeyPinning.publicKeyHash(ofCertificate: Array(pem.utf8)) == (try KeyPinning.publicKeyHash(of: nio)))
            let der = try CertificateDER.firstCertificate(inPEM: Array(pem.utf8))
            #expect(
                try KeyPinning.publicKeyHash(ofCertificate: der, format: .der)
                    == (try KeyPinning.publicKeyHash(of: nio)))
            for cut in stride(from: 0, to: der.count, by: 7) {
                #expect(throws: CertificateDER.Malformed.self) {
                    _ = try CertificateDER.subjectPublicKeyInfo(ofCertificate: Array(der.prefix(cut)))
                }
            }
        }
        #expect(throws: CertificateDER.Malformed.self) {
            _ = try KeyPinning.publicKeyHash(ofCertificate: Array("not a certificate".utf8))
        }
    }
}
#endif
