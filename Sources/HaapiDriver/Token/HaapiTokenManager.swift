import Foundation

/// A HAAPI access token and what goes with it.
public struct AccessToken: Sendable, CustomStringConvertible {
    /// The token itself; never logged.
    public let value: String
    /// When the token expires.
    public let expiresOn: Date
    /// The token's type, `DPoP` for HAAPI tokens.
    public let tokenType: String

    /// A token, when it expires, and its type.
    public init(value: String, expiresOn: Date, tokenType: String = "DPoP") {
        self.value = value
        self.expiresOn = expiresOn
        self.tokenType = tokenType
    }

    public var description: String { "AccessToken(*****, expiresOn: \(expiresOn))" }
}

/// A HAAPI access token with the DPoP instance that proves possession of its key.
public struct DpopAccessTokenInfo: Sendable {
    /// The HAAPI access token.
    public let accessToken: AccessToken
    /// The key the token is bound to; every HAAPI request's proof is signed with it.
    public let dpop: Dpop
    /// The latest nonce the token endpoint's origin sent, if any.
    public let dpopNonce: String?
}

/// Obtains and caches the HAAPI access token (scope `urn:se:curity:scopes:haapi`), bound to one DPoP key.
///
/// With attestation: CAT challenge → attestation → CAT → client_credentials with the CAT as client
/// assertion. Without: client_credentials with the client's own credentials. The token is reused until
/// less than `minTokenTTL` seconds of it remain; concurrent callers share one request.
public actor HaapiTokenManager {
    /// The scope a HAAPI token is asked for.
    public static let haapiScope = "urn:se:curity:scopes:haapi"
    /// The `client_assertion_type` of an attested client.
    public static let attestationAssertionType = "urn:se:curity:attestation:client"

    /// The manager's name; two open managers may not share one, since it names the device identity.
    public nonisolated let name: String
    /// The token endpoint the HAAPI token comes from.
    public nonisolated let tokenEndpoint: URL
    /// The client the HAAPI token is issued to.
    public nonisolated let clientId: String
    /// The DPoP key's proof builder; pass it to `OAuthTokenManager` so the code is redeemed with the same key.
    public nonisolated let dpop: Dpop
    /// Sends the token requests, with the nonces of the server.
    public nonisolated let exchange: TokenEndpointExchange
    nonisolated let attester: (any Attester)?
    nonisolated let attestationMaxRetries: Int
    nonisolated let clientAuthentication: any ClientAuthenticationMethod
    nonisolated let minTokenTTL: TimeInterval
    nonisolated let clock: @Sendable () -> Date

    private var current: DpopAccessTokenInfo?
    private var inflight: Task<Result<DpopAccessTokenInfo, HaapiError>, Never>?
    private var isClosed = false

    init(
        name: String, tokenEndpoint: URL, clientId: String, dpop: Dpop, exchange: TokenEndpointExchange,
        attester: (any Attester)?,
        attestationMaxRetries: Int, clientAuthentication: any ClientAuthenticationMethod, minTokenTTL: TimeInterval,
        clock: @escaping @Sendable () -> Date
    ) {
        self.name = name
        self.tokenEndpoint = tokenEndpoint
        self.clientId = clientId
        self.dpop = dpop
        self.exchange = exchange
        self.attester = attester
        self.attestationMaxRetries = attestationMaxRetries
        self.clientAuthentication = clientAuthentication
        self.minTokenTTL = minTokenTTL
        self.clock = clock
    }

    /// A manager that holds no name in the registry and is never asked for a token: what a manager whose
    /// client is not decided yet shows until it is (see `HaapiAccessorBuilder.build()`).
    @_spi(Tooling) public static func standIn(
        name: String, tokenEndpoint: URL, clientId: String, key: any SigningKey, transport: any HTTPTransport
    ) -> HaapiTokenManager {
        HaapiTokenManager(
            name: name, tokenEndpoint: tokenEndpoint, clientId: clientId, dpop: Dpop(key: key),
            exchange: TokenEndpointExchange(transport: transport), attester: nil, attestationMaxRetries: 0,
            clientAuthentication: ClientAuthenticationMethodNone(), minTokenTTL: 0, clock: { Date() })
    }

    /// The current token, or a new one when there is none, it is about to expire, or `forceFresh`.
    public func getHaapiTokenAsync(forceFresh: Bool = false) async throws(HaapiError) -> DpopAccessTokenInfo {
        guard !isClosed else { throw .haapiTokenManagerIsClosed }
        if !forceFresh, let current, current.accessToken.expiresOn.timeIntervalSince(clock()) > minTokenTTL {
            return current
        }
        if let inflight { return try await inflight.value.get() }
        let task = Task { () -> Result<DpopAccessTokenInfo, HaapiError> in
            do throws(HaapiError) { return .success(try await self.obtain()) } catch { return .failure(error) }
        }
        inflight = task
        let result = await task.value
        inflight = nil
        guard !isClosed else { throw .haapiTokenManagerIsClosed }
        if case .success(let info) = result { current = info }
        return try result.get()
    }

    /// A client that sends HAAPI requests with this manager's token and key.
    /// A client for HAAPI requests with this manager's token. Requests go only to the token endpoint's
    /// origin and to `allowedURLs`' origins (the configured server's base and authorization URLs).
    public nonisolated func createClient(
        headersProvider: HttpHeadersProvider? = nil, allowedURLs: [URL] = []
    ) -> HaapiClient {
        let origins = Set(([tokenEndpoint] + allowedURLs).map(DPoPNonceStore.origin(of:)))
        return HaapiClient(
            tokenManager: self, exchange: exchange, headersProvider: headersProvider, allowedOrigins: origins)
    }

    /// Forgets the token; the next call obtains a new one.
    public func clearState() {
        current = nil
    }

    /// Ends the manager: later calls fail with `haapiTokenManagerIsClosed`, and its name can be used again.
    public func close() {
        isClosed = true
        current = nil
        inflight?.cancel()
        HaapiTokenManagerRegistry.shared.release(name)
    }

    /// Whether the current token has expired (`false` before there is one).
    public var isExpired: Bool {
        guard let current else { return false }
        return current.accessToken.expiresOn <= clock()
    }

    private func obtain() async throws(HaapiError) -> DpopAccessTokenInfo {
        var request = TokenEndpointRequest(
            url: tokenEndpoint, form: [("grant_type", "client_credentials"), ("scope", Self.haapiScope)])
        let authenticate: (inout TokenEndpointRequest) throws(HaapiError) -> Void
        if let attester {
            let cat = try await clientAttestationToken(attester)
            // client_id too: the CAT names the client, but servers match the form's client_id against it.
            request.form += [
                ("client_id", clientId), ("client_assertion_type", Self.attestationAssertionType),
                ("client_assertion", cat),
            ]
            authenticate = { _ throws(HaapiError) in }
        } else {
            let method = clientAuthentication
            let clientId = clientId
            authenticate = { request throws(HaapiError) in try method.authenticate(&request, clientId: clientId) }
        }
        HaapiLogger.debug(
            DriverFollowUpTag.http, "requesting a HAAPI access token from \(sensitive: tokenEndpoint.absoluteString)")
        let response = try await exchange.post(request, dpop: dpop, authenticate: authenticate)
        guard response.statusCode == 200 else {
            let error = response.oauthError
            if attester != nil, case .serverError(let code, _, _) = error,
                code == "invalid_client" || code == "unsupported_device"
            {
                throw .attestationRefusedByServer(cause: error)
            }
            throw error
        }
        let body = try response.oauthObject()
        guard let token = body["access_token"]?.stringValue, !token.isEmpty else {
            throw .communication(message: "the token response has no access_token", cause: nil)
        }
        let tokenType = body["token_type"]?.stringValue ?? ""
        guard tokenType.caseInsensitiveCompare("DPoP") == .orderedSame else {
            throw .dpopProofFailure(
                message: "the HAAPI access token is not DPoP-bound (token_type \"\(tokenType)\")", cause: nil)
        }
        let lifetime = body["expires_in"]?.numberValue?.doubleValue ?? 300
        HaapiLogger.info(DriverFollowUpTag.flow, "HAAPI access token obtained, valid for \(Int(lifetime)) s")
        return DpopAccessTokenInfo(
            accessToken: AccessToken(
                value: token, expiresOn: clock().addingTimeInterval(lifetime), tokenType: tokenType),
            dpop: dpop, dpopNonce: await exchange.nonces.nonce(for: tokenEndpoint))
    }

    /// CAT challenge → attestation → CAT (docs/ATTESTATION.md). When the server refuses the response and the
    /// attester will answer differently next time (an App Attest key the server does not know: a new key's
    /// attestation instead of an assertion), one more round with a new challenge.
    private func clientAttestationToken(_ attester: any Attester) async throws(HaapiError) -> String {
        guard attester.isSupported else { throw .attestationNotSupported }
        let catURL = tokenEndpoint.appendingPathComponent("cat")
        var challengeURL = URLComponents(url: catURL, resolvingAgainstBaseURL: true)
        challengeURL?.queryItems = [URLQueryItem(name: "client_id", value: clientId)]
        guard let challengeTarget = challengeURL?.url else {
            throw .invalidConfiguration(reason: "bad token endpoint \(tokenEndpoint)")
        }
        var round = 0
        while true {
            round += 1
            HaapiLogger.debug(
                DriverFollowUpTag.attestation, "requesting challenge from \(sensitive: catURL.absoluteString)")
            let challengeResponse = try await LostAnswerRetry.run(method: "GET", url: challengeTarget) {
                () async throws(HaapiError) in
                try await exchange.send(
                    HTTPRequest(
                        method: "GET", url: challengeTarget, headers: [(HttpHeaderNames.accept, MimeTypes.json)]))
            }
            guard challengeResponse.statusCode == 200 else {
                throw .attestationRefusedByServer(cause: challengeResponse.oauthError)
            }
            guard let challenge = try challengeResponse.oauthObject()["challenge"]?.stringValue else {
                throw .communication(message: "the CAT challenge response has no challenge", cause: nil)
            }
            let attestation = try await answer(challenge, attester: attester)
            let request = TokenEndpointRequest(
                url: catURL,
                form: [("client_id", clientId), ("challenge", challenge), ("challenge_response", attestation)])
            let response = try await exchange.post(request, dpop: dpop)
            guard response.statusCode == 200 else {
                let error = response.oauthError
                guard case .serverError = error else { throw error }
                if attester.serverRefused(), round == 1 {
                    HaapiLogger.warning(
                        DriverFollowUpTag.attestation, "the server refused the attestation; trying once more")
                    continue
                }
                throw .attestationRefusedByServer(cause: error)
            }
            guard let cat = try response.oauthObject()["cat"]?.stringValue else {
                throw .communication(message: "the CAT response has no cat", cause: nil)
            }
            return cat
        }
    }

    /// The attester's answer, with its own retries for failures that are not the server's refusal.
    private func answer(_ challenge: String, attester: any Attester) async throws(HaapiError) -> String {
        var lastError: (any Error)?
        for attempt in 0...attestationMaxRetries {
            do {
                return try await attester.attest(challenge: challenge, clientId: clientId, key: dpop.key)
            } catch let error as HaapiError {
                throw error
            } catch {
                lastError = error
                HaapiLogger.warning(
                    DriverFollowUpTag.attestation,
                    "attestation attempt \(attempt + 1) failed: \(String(describing: error))")
            }
        }
        throw .attestationFailure(cause: lastError)
    }
}

/// Names of the open token managers: two managers with one name would fight over one device identity.
///
/// Process-wide on purpose, the one such registry in the client modules: the identity a name stands for (its
/// key and client in the keychain or storage) is shared by the whole process, and the seed's
/// `HaapiError.haapiTokenManagerAlreadyExists` reports a second open manager of a name wherever it is built.
final class HaapiTokenManagerRegistry: Sendable {
    static let shared = HaapiTokenManagerRegistry()
    private let names = LockedValue<Set<String>>([])

    func claim(_ name: String) -> Bool {
        names.withLock { $0.insert(name).inserted }
    }

    func release(_ name: String) {
        names.withLock { _ = $0.remove(name) }
    }
}
