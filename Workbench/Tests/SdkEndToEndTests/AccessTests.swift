import Crypto
import Foundation
@_spi(Tooling) import HaapiSdk
import Testing
import _CryptoExtras

/// How the client gets its HAAPI token: attestation, its own credentials, or the DCR fallback.
@Suite("SDK access: attestation, client credentials, DCR fallback")
struct AccessTests {
    @Test("attestation off: HAAPI with a client secret, full login")
    func secretWithoutAttestation() async throws {
        let server = try await SdkTestServer.shared.get()
        let configuration = server.configuration(
            clientId: "sdk-secret", redirect: "app://secret", useAttestation: false,
            clientAuthentication: ClientAuthenticationMethodSecret("sdk-secret-value"))
        let manager = try HaapiManager(haapiConfiguration: configuration)
        let code = try await manager.passwordLogin()
        let tokens = try await OAuthTokenManager(oauthTokenConfiguration: configuration).fetchAccessToken(
            with: code, dpop: manager.dpop
        ).success()
        #expect(tokens.tokenType == "DPoP")
        await manager.close()
    }

    @Test("attestation off without credentials is a configuration error, before any request")
    func noCredentials() async throws {
        let server = try await SdkTestServer.shared.get()
        #expect(throws: HaapiError.self) {
            try HaapiManager(haapiConfiguration: server.configuration(useAttestation: false))
        }
        do {
            _ = try HaapiManager(haapiConfiguration: server.configuration(useAttestation: false))
        } catch let error as HaapiError {
            #expect(error.recoverySuggestion == .nonRecoverable(action: .fixConfiguration))
        }
    }

    @Test("a wrong secret is the server's invalid_client, marked as a configuration problem")
    func wrongSecret() async throws {
        let server = try await SdkTestServer.shared.get()
        let manager = try HaapiManager(
            haapiConfiguration: server.configuration(
                clientId: "sdk-secret", redirect: "app://secret", useAttestation: false,
                clientAuthentication: ClientAuthenticationMethodSecret("wrong")))
        let error = try #require(await manager.start().haapiError)
        guard case .serverError(let code, _, let status) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(code == "invalid_client" && status == 401)
        #expect(error.recoverySuggestion == .nonRecoverable(action: .fixConfiguration))
        await manager.close()
    }

    @Test(
        "private_key_jwt with RS256, PS256 and ES256 keys from PEM",
        arguments: [JWTAsymmetricAlgorithm.rs256, .ps256, .es256])
    func privateKeyJWT(algorithm: JWTAsymmetricAlgorithm) async throws {
        let server = try await SdkTestServer.shared.get()
        let pem = algorithm == .es256 ? TestKeys.ec.pemRepresentation : try #require(TestKeys.rsa).pemRepresentation
        let method = try ClientAuthenticationMethodJWTAsymmetric(pem: pem, signatureAlgorithm: algorithm)
        let manager = try HaapiManager(
            haapiConfiguration: server.configuration(
                clientId: "sdk-key-jwt", redirect: "app://jwt", scopes: ["openid"], useAttestation: false,
                clientAuthentication: method))
        let token = try await manager.tokenManager.getHaapiTokenAsync()
        #expect(!token.accessToken.value.isEmpty)
        _ = try await manager.start().step()
        await manager.close()
    }

    @Test("private_key_jwt: a PEM that does not fit the algorithm is refused at configuration time")
    func badPEM() {
        #expect(throws: HaapiError.self) {
            try ClientAuthenticationMethodJWTAsymmetric(pem: TestKeys.ec.pemRepresentation, signatureAlgorithm: .rs256)
        }
        #expect(throws: HaapiError.self) {
            try ClientAuthenticationMethodJWTAsymmetric(pem: "not a pem", signatureAlgorithm: .es256)
        }
    }

    @Test("client_secret_jwt (HS256) obtains the HAAPI token; a wrong secret does not")
    func clientSecretJWT() async throws {
        let server = try await SdkTestServer.shared.get()
        let good = try HaapiManager(
            haapiConfiguration: server.configuration(
                clientId: "sdk-secret-jwt", redirect: "app://jwt", scopes: ["openid"], useAttestation: false,
                clientAuthentication: ClientAuthenticationMethodJWTSymmetric(
                    signatureAlgorithm: .hs256, secretKey: TestKeys.sharedSecret)))
        _ = try await good.tokenManager.getHaapiTokenAsync()
        await good.close()
        let bad = try HaapiManager(
            haapiConfiguration: server.configuration(
                clientId: "sdk-secret-jwt", redirect: "app://jwt", scopes: ["openid"], useAttestation: false,
                clientAuthentication: ClientAuthenticationMethodJWTSymmetric(
                    signatureAlgorithm: .hs256, secretKey: "another-secret-of-some-length")))
        await #expect(throws: HaapiError.self) { try await bad.tokenManager.getHaapiTokenAsync() }
        await bad.close()
    }

    @Test("the HAAPI token is reused until minTokenTTL before expiry, and one request serves concurrent callers")
    func tokenReuse() async throws {
        let server = try await SdkTestServer.shared.get()
        let recorder = RecordingTransport()
        let manager = try HaapiManager(haapiConfiguration: server.configuration(transport: recorder))
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 { group.addTask { try await manager.tokenManager.getHaapiTokenAsync().accessToken.value } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens.count == 1)
        #expect(await recorder.count { $0.path == "/oauth/token" } == 1)
        let fresh = try await manager.tokenManager.getHaapiTokenAsync(forceFresh: true)
        #expect(!tokens.contains(fresh.accessToken.value))
        await manager.close()
        await #expect(throws: HaapiError.self) { try await manager.tokenManager.getHaapiTokenAsync() }
    }

    @Test("two live token managers may not share a name")
    func duplicateName() async throws {
        let server = try await SdkTestServer.shared.get()
        let first = try HaapiTokenManagerBuilder(
            tokenEndpoint: server.base.appendingPathComponent("oauth/token"), clientId: "haapi-demo"
        )
        .setName("duplicate-check").setAttester(SoftwareAttester()).build()
        #expect(throws: HaapiError.self) {
            try HaapiTokenManagerBuilder(
                tokenEndpoint: server.base.appendingPathComponent("oauth/token"), clientId: "haapi-demo"
            )
            .setName("duplicate-check").setAttester(SoftwareAttester()).build()
        }
        await first.close()
        let again = try HaapiTokenManagerBuilder(
            tokenEndpoint: server.base.appendingPathComponent("oauth/token"), clientId: "haapi-demo"
        )
        .setName("duplicate-check").setAttester(SoftwareAttester()).build()
        await again.close()
    }

    /// The DCR setup of the embedded configuration: haapi-dcr-main (secret, no attestation) registers from haapi-dcr-template.
    static func dcrBuilder(
        _ server: SdkTestServer, storage: any Storage, transport: (any HTTPTransport)? = nil
    ) -> HaapiAccessorBuilder {
        let configuration = server.configuration(
            clientId: "haapi-dcr-main",
            clientAuthentication: ClientAuthenticationMethodSecret("dcr-main-secret-change-me"),
            transport: transport)
        return HaapiAccessorBuilder(haapiConfiguration: configuration)
            .setDCRConfiguration(
                configuration: DCRConfiguration(
                    templateClientId: "haapi-dcr-template",
                    clientRegistrationEndpointUrl: server.base.appendingPathComponent("oauth/register"),
                    storage: storage))
    }

    @Test(
        "the server refuses attestation for the main client → the DCR fallback registers, logs in, and is reused by the next build"
    )
    func dcrFallback() async throws {
        let server = try await SdkTestServer.shared.get()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("haapi-dcr-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try FileStorage(directory: directory)
        let recorder = RecordingTransport()

        let accessor = try await Self.dcrBuilder(server, storage: storage, transport: recorder).build()
        let dynamicID = accessor.haapiManager.configuration.clientId
        #expect(dynamicID.hasPrefix("dyn-"))
        #expect(await recorder.count { $0.path == "/oauth/register" } == 1)
        let code = try await accessor.haapiManager.passwordLogin()
        let tokens = try await accessor.oAuthTokenManager.fetchAccessToken(with: code, dpop: accessor.haapiManager.dpop)
            .success()
        #expect(tokens.tokenType == "DPoP")
        #expect(
            try await accessor.oAuthTokenManager.refreshAccessToken(with: try #require(tokens.refreshToken)).success()
                .accessToken != tokens.accessToken)
        await accessor.haapiManager.close()

        // A later build (a restart: same storage) reuses the stored client without registering again.
        let again = try await Self.dcrBuilder(server, storage: storage, transport: recorder).build()
        #expect(again.haapiManager.configuration.clientId == dynamicID)
        #expect(await recorder.count { $0.path == "/oauth/register" } == 1)
        _ = try await again.haapiManager.passwordLogin()
        await again.haapiManager.close()

        // shouldClearExistingDCRClient registers a new one.
        let fresh = try await Self.dcrBuilder(server, storage: storage, transport: recorder).build(
            shouldClearExistingDCRClient: true)
        #expect(fresh.haapiManager.configuration.clientId != dynamicID)
        #expect(await recorder.count { $0.path == "/oauth/register" } == 2)
        await fresh.haapiManager.close()

        // The OAuth-only accessor uses the stored dynamic client too.
        let oauthOnly = try await Self.dcrBuilder(server, storage: storage).setHaapiAccessorOption(option: .oauth)
            .buildOAuthAccessor()
        #expect(oauthOnly.oAuthTokenManager.configuration.clientId == fresh.haapiManager.configuration.clientId)
    }

    @Test("a stored dynamic client the server no longer knows (a reset dev server) is replaced by one new registration")
    func forgottenDynamicClient() async throws {
        let server = try await SdkTestServer.shared.get()
        let storage = InMemoryStorage()
        let dcr = DCRConfiguration(
            templateClientId: "haapi-dcr-template",
            clientRegistrationEndpointUrl: server.base.appendingPathComponent("oauth/register"),
            storage: storage)
        try storage.write(Data(#"{"client_id":"dyn-forgotten","client_secret":"gone"}"#.utf8), key: dcr.storageKey)
        let recorder = RecordingTransport()
        let accessor = try await Self.dcrBuilder(server, storage: storage, transport: recorder).build()
        #expect(accessor.haapiManager.configuration.clientId != "dyn-forgotten")
        #expect(await recorder.count { $0.path == "/oauth/register" } == 1)
        _ = try await accessor.haapiManager.passwordLogin()
        await accessor.haapiManager.close()
        // And the new one is what the next start uses.
        let next = try await Self.dcrBuilder(server, storage: storage, transport: recorder).build()
        #expect(next.haapiManager.configuration.clientId == accessor.haapiManager.configuration.clientId)
        #expect(await recorder.count { $0.path == "/oauth/register" } == 1)
        await next.haapiManager.close()
    }

    @Test("an attester that is not supported goes straight to the DCR fallback without asking for a challenge")
    func unsupportedAttester() async throws {
        struct NoAttestation: Attester {
            var isSupported: Bool { false }
            func attest(challenge: String, clientId: String, key: any SigningKey) async throws -> String {
                throw HaapiError.attestationNotSupported
            }
        }
        let server = try await SdkTestServer.shared.get()
        let recorder = RecordingTransport()
        let configuration = HaapiConfiguration(
            name: "test-" + UUID().uuidString, clientId: "haapi-dcr-main", baseURL: server.base,
            tokenEndpointURL: server.base.appendingPathComponent("oauth/token"),
            authorizationEndpointURL: server.base.appendingPathComponent("oauth/authorize"),
            appRedirect: "app://haapi", transport: recorder, attester: NoAttestation(),
            tokenBoundConfiguration: BoundedTokenConfiguration(keyPairType: .p256),
            clientAuthenticationMethod: ClientAuthenticationMethodSecret("dcr-main-secret-change-me"))
        let accessor = try await HaapiAccessorBuilder(haapiConfiguration: configuration)
            .setDCRConfiguration(
                configuration: DCRConfiguration(
                    templateClientId: "haapi-dcr-template",
                    clientRegistrationEndpointUrl: server.base.appendingPathComponent("oauth/register"),
                    storage: InMemoryStorage())
            )
            .build()
        #expect(await recorder.count { $0.path == "/oauth/token/cat" } == 0)
        _ = try await accessor.haapiManager.passwordLogin()
        await accessor.haapiManager.close()
    }

    @Test("without a DCR configuration the refusal is reported, with the fallback as the suggested fix")
    func refusalWithoutFallback() async throws {
        let server = try await SdkTestServer.shared.get()
        let configuration = server.configuration(
            clientId: "haapi-dcr-main",
            clientAuthentication: ClientAuthenticationMethodSecret("dcr-main-secret-change-me"))
        do {
            _ = try await HaapiAccessorBuilder(haapiConfiguration: configuration).build()
            Issue.record("attestation for a client without attestation succeeded")
        } catch {
            guard case .attestationRefusedByServer = error else {
                Issue.record("\(error)")
                return
            }
            #expect(error.recoverySuggestion == .nonRecoverable(action: .useDCRFallback))
        }
    }

    @Test("DCR needs the main client's credentials")
    func dcrNeedsCredentials() async throws {
        let server = try await SdkTestServer.shared.get()
        let builder = HaapiAccessorBuilder(haapiConfiguration: server.configuration(clientId: "haapi-dcr-main"))
            .setDCRConfiguration(
                configuration: DCRConfiguration(
                    templateClientId: "haapi-dcr-template",
                    clientRegistrationEndpointUrl: server.base.appendingPathComponent("oauth/register"),
                    storage: nil))
        await #expect(throws: HaapiError.self) { try await builder.build() }
    }

    @Test(
        "by default the dynamic client is kept between runs (a file under application support on Linux): a second build does not register"
    )
    func dcrPersistedByDefault() async throws {
        let server = try await SdkTestServer.shared.get()
        let dcr = DCRConfiguration(
            templateClientId: "haapi-dcr-template",
            clientRegistrationEndpointUrl: server.base.appendingPathComponent("oauth/register"))
        let storage = try #require(dcr.storage)
        #if !canImport(Darwin)
        #expect(storage is FileStorage)
        #endif
        defer { try? storage.delete(key: dcr.storageKey) }
        func build(_ recorder: RecordingTransport) async throws -> any HaapiAccessor {
            let configuration = server.configuration(
                clientId: "haapi-dcr-main",
                clientAuthentication: ClientAuthenticationMethodSecret("dcr-main-secret-change-me"),
                transport: recorder)
            // A fresh DCRConfiguration each time, as a relaunched app makes: the default storage is the same place.
            let again = DCRConfiguration(
                templateClientId: "haapi-dcr-template", clientRegistrationEndpointUrl: dcr.clientRegistrationEndpointUrl
            )
            return try await HaapiAccessorBuilder(haapiConfiguration: configuration).setDCRConfiguration(
                configuration: again
            ).build()
        }
        let recorder = RecordingTransport()
        let first = try await build(recorder)
        await first.haapiManager.close()
        let second = try await build(recorder)
        #expect(second.haapiManager.configuration.clientId == first.haapiManager.configuration.clientId)
        #expect(await recorder.count { $0.path == "/oauth/register" } == 1)
        _ = try await second.haapiManager.passwordLogin()
        await second.haapiManager.close()
        // The key names the server too: another registration endpoint does not see this client.
        let other = DCRConfiguration(
            templateClientId: "haapi-dcr-template",
            clientRegistrationEndpointUrl: URL(string: "https://other.example/register")!)
        #expect(other.storageKey != dcr.storageKey)
    }

    @Test("a DPoP key kept in storage survives a restart: the refresh after reloading it is accepted")
    func persistentKey() async throws {
        let server = try await SdkTestServer.shared.get()
        let storage = InMemoryStorage()
        let configuration = server.configuration(storage: storage)
        let manager = try HaapiManager(haapiConfiguration: configuration)
        let tokens = try await OAuthTokenManager(oauthTokenConfiguration: configuration)
            .fetchAccessToken(with: try await manager.passwordLogin(), dpop: manager.dpop).success()
        let thumbprint = manager.dpop.jwkThumbprint
        await manager.close()

        let reloaded = try DeviceKeyStore(storage: storage).loadOrCreate(
            name: configuration.name + "." + configuration.clientId)
        #expect(reloaded.thumbprint == thumbprint)
        let refreshed = await OAuthTokenManager(oauthTokenConfiguration: configuration)
            .refreshAccessToken(with: try #require(tokens.refreshToken), dpop: Dpop(key: reloaded))
        _ = try refreshed.success()
    }
}

@Suite("Relaunch-safe DPoP binding")
struct RelaunchTests {
    @Test(
        "a new OAuthTokenManager over the same key storage (an app relaunch) refreshes with the stored key; the server checks proof and cnf.jkt"
    )
    func refreshAfterRelaunch() async throws {
        let server = try await SdkTestServer.shared.get()
        let storage = InMemoryStorage()
        let name = "relaunch-" + UUID().uuidString
        func configuration() -> HaapiConfiguration {
            let base = server.configuration(storage: storage)
            return HaapiConfiguration(
                name: name, clientId: base.clientId, baseURL: base.baseURL, tokenEndpointURL: base.tokenEndpointURL,
                authorizationEndpointURL: base.authorizationEndpointURL, appRedirect: base.appRedirect,
                authorizationParametersProvider: base.authorizationParametersProvider,
                introspectionEndpointURL: base.baseURL.appendingPathComponent("oauth/introspect"),
                attester: SoftwareAttester(),
                tokenBoundConfiguration: BoundedTokenConfiguration(keyPairType: .p256), dpopKeyStorage: storage)
        }
        let before = configuration()
        let manager = try HaapiManager(haapiConfiguration: before)
        let tokens = try await OAuthTokenManager(oauthTokenConfiguration: before)
            .fetchAccessToken(with: try await manager.passwordLogin(), dpop: manager.dpop).success()
        let thumbprint = manager.dpop.jwkThumbprint
        await manager.close()

        // The relaunch: new configuration and manager objects, nothing in memory but the storage.
        let relaunched = OAuthTokenManager(oauthTokenConfiguration: configuration())
        let refreshed = try await relaunched.refreshAccessToken(with: try #require(tokens.refreshToken)).success()
        #expect(refreshed.tokenType == "DPoP")
        let introspected = await OAuthTokenManager(oauthTokenConfiguration: configuration())
            .introspect(
                refreshed.accessToken,
                dpop: Dpop(
                    key: try #require(try DeviceKeyStore(storage: storage).load(name: name + "." + before.clientId))))
        #expect(try introspected.get()["cnf"]?["jkt"]?.stringValue == thumbprint)

        // The completion-handler form takes the key too.
        let viaCompletion = await withCheckedContinuation { continuation in
            relaunched.refreshAccessToken(with: refreshed.refreshToken ?? "", dpop: nil) {
                continuation.resume(returning: $0)
            }
        }
        _ = try viaCompletion.success()
    }
}
