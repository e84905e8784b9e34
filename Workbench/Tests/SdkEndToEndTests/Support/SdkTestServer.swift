import Crypto
import Foundation
@_spi(Tooling) import HaapiSdk
import NetworkFaults
import _CryptoExtras

@testable import HaapiServer

/// Keys the test server's JWT clients are registered with.
enum TestKeys {
    static let rsa = try? _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let ec = P256.Signing.PrivateKey()
    static let sharedSecret = "a-long-shared-secret-for-hs256-client-assertions"

    static var jwks: String {
        var keys: [JSONValue] = [JWK(p256PublicKey: ec.publicKey).json]
        if let primitives = try? rsa?.publicKey.getKeyPrimitives() {
            keys.append([
                "kty": "RSA", "n": .string(Base64URL.encode(primitives.modulus)),
                "e": .string(Base64URL.encode(primitives.publicExponent)),
            ])
        }
        return JSONValue.object(["keys": .array(keys)]).serialized()
    }
}

/// The dev server, in process on 127.0.0.1, with the embedded configuration plus one client per mode the SDK must handle.
final class SdkTestServer: Sendable {
    let server: DevServer
    let running: RunningDevServer
    var base: URL { running.baseURL }

    /// With `proxy`, the server's public URL is the proxy's, so every request an SDK sends to `base` goes through
    /// it (and the DPoP `htu` names it).
    init(
        behind proxy: NetworkFaultProxy? = nil, configure: (inout ServerConfiguration) -> Void = { _ in }
    )
        async throws
    {
        var configuration = try ServerConfiguration.embeddedDefault
        configuration.clients += [
            // Legacy DPoP: no nonces, codes not bound.
            ClientConfiguration(
                id: "sdk-legacy", attestation: .software, redirectURIs: ["app://legacy"], scopes: ["openid", "profile"]),
            // Nonces, but codes are not bound.
            ClientConfiguration(
                id: "sdk-unbound", attestation: .software, dpopNonce: true, redirectURIs: ["app://unbound"],
                scopes: ["openid", "profile"]),
            // HAAPI without attestation, with a secret / a private key / a shared-secret JWT.
            ClientConfiguration(
                id: "sdk-secret", secret: "sdk-secret-value", authenticationMethod: .clientSecretBasic,
                allowWithoutAttestation: true,
                tokenBoundCodes: true, dpopNonce: true, redirectURIs: ["app://secret"], scopes: ["openid", "profile"]),
            ClientConfiguration(
                id: "sdk-key-jwt", authenticationMethod: .privateKeyJWT, jwks: TestKeys.jwks,
                allowWithoutAttestation: true,
                dpopNonce: true, redirectURIs: ["app://jwt"], scopes: ["openid"]),
            ClientConfiguration(
                id: "sdk-secret-jwt", secret: TestKeys.sharedSecret, authenticationMethod: .clientSecretJWT,
                allowWithoutAttestation: true, dpopNonce: true, redirectURIs: ["app://jwt"], scopes: ["openid"]),
        ]
        configuration.users.append(
            UserConfiguration(
                username: "approver", passwordHash: ServerConfiguration.demoPasswordHash, email: "approver@example.com")
        )
        configure(&configuration)
        server = try DevServer(configuration: configuration, store: ServerStore(path: nil))
        running = try await server.start(publicURL: proxy?.url.absoluteString)
        proxy?.forward(to: running.port)
    }

    static let shared = Shared()

    actor Shared {
        private var started: SdkTestServer?

        func get() async throws -> SdkTestServer {
            if let started { return started }
            let server = try await SdkTestServer()
            started = server
            return server
        }
    }

    /// A configuration for `clientId`; each gets its own name, so token managers never collide.
    func configuration(
        clientId: String = "haapi-demo", redirect: String = "app://haapi", scopes: [String] = ["openid", "profile"],
        useAttestation: Bool = true,
        tokenBound: any TokenBoundConfiguration = BoundedTokenConfiguration(keyPairType: .p256),
        clientAuthentication: any ClientAuthenticationMethod = ClientAuthenticationMethodNone(),
        transport: (any HTTPTransport)? = nil,
        isAutoRedirect: Bool = true, listener: (any TokenEndpointResponseListener)? = nil,
        storage: (any Storage)? = nil,
        requestTimeout: TimeInterval? = nil
    ) -> HaapiConfiguration {
        HaapiConfiguration(
            name: "test-" + UUID().uuidString, clientId: clientId, baseURL: base,
            tokenEndpointURL: base.appendingPathComponent("oauth/token"),
            authorizationEndpointURL: base.appendingPathComponent("oauth/authorize"),
            appRedirect: redirect, authorizationParametersProvider: { OAuthAuthorizationParameters(scopes: scopes) },
            isAutoRedirect: isAutoRedirect,
            transport: transport, revocationEndpointURL: base.appendingPathComponent("oauth/revoke"),
            attestationConfiguration: AttestationConfiguration(useAttestation: useAttestation),
            attester: SoftwareAttester(),
            tokenBoundConfiguration: tokenBound, tokenEndpointResponseListener: listener,
            clientAuthenticationMethod: clientAuthentication,
            dpopKeyStorage: storage, requestTimeout: requestTimeout)
    }
}
