import Foundation
@_spi(Tooling) import HaapiDriver

/// A hand-rolled HAAPI client for tests and load generation: a device key, the attestation exchange, DPoP proofs, the nonce
/// and session headers, each written out explicitly against the wire format.
public final class HaapiDevice {
    public let base: String
    public let clientID: String
    public let key: SoftwareP256SigningKey
    public let dpop: Dpop
    private let clock: @Sendable () -> Date
    public var nonce: String?
    public var haapiToken: String?
    public var sessionID: String?
    /// The PKCE pair of the last authorize request this device made itself (nil when the caller passed its own).
    public var pkce: PKCE?

    /// `clock` dates the proofs; tests that move the server's clock pass it so proofs stay in the iat window.
    public init(
        base: String, clientID: String = "haapi-demo", key: SoftwareP256SigningKey = SoftwareP256SigningKey(),
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.base = base
        self.clientID = clientID
        self.key = key
        dpop = Dpop(key: key, clock: clock)
        self.clock = clock
    }

    public func url(_ path: String) -> String { path.hasPrefix("http") ? path : base + path }

    public func proof(_ method: String, _ url: String, accessToken: String? = nil) throws -> String {
        try dpop.createProof(
            httpMethod: method, url: URL(string: url) ?? URL(fileURLWithPath: "/"), nonce: nonce,
            accessToken: accessToken)
    }

    public func remember(_ response: RawResponse) {
        if let fresh = response.header("DPoP-Nonce") { nonce = fresh }
        if let session = response.header("Set-Session-Id") { sessionID = session }
    }

    /// The software attestation the `software` policy expects (docs/ATTESTATION.md).
    public static func attestation(
        challenge: String, clientID: String, key: SoftwareP256SigningKey, iat: Date = Date()
    ) throws -> String {
        try JWS.sign(
            claims: [
                "challenge": .string(challenge), "client_id": .string(clientID),
                "iat": .number(JSONNumber(Int(iat.timeIntervalSince1970))),
            ],
            header: ["typ": "haapi-attestation+jwt", "jwk": key.publicJWK.json], signer: key)
    }

    public func challenge() async throws -> String {
        let response = try await RawHTTP.send(
            "GET", url("/oauth/token/cat?client_id=\(clientID)"), headers: [("Accept", "application/json")])
        remember(response)
        guard let challenge = response.json["challenge"]?.stringValue else {
            throw UnexpectedResponse("no challenge: \(response.text)")
        }
        return challenge
    }

    public func clientAttestationToken() async throws -> String {
        let challenge = try await challenge()
        let response = try await RawHTTP.form(
            url("/oauth/token/cat"),
            [
                ("client_id", clientID), ("challenge", challenge),
                (
                    "challenge_response",
                    try Self.attestation(challenge: challenge, clientID: clientID, key: key, iat: clock())
                ),
            ])
        remember(response)
        guard let cat = response.json["cat"]?.stringValue else {
            throw UnexpectedResponse("no CAT: \(response.status) \(response.text)")
        }
        return cat
    }

    /// CAT → HAAPI access token, retrying once when the server asks for a nonce.
    @discardableResult
    public func obtainHaapiToken() async throws -> RawResponse {
        let cat = try await clientAttestationToken()
        var response = try await haapiTokenRequest(cat: cat)
        if response.json["error"] == "use_dpop_nonce" { response = try await haapiTokenRequest(cat: cat) }
        haapiToken = response.json["access_token"]?.stringValue
        return response
    }

    public func haapiTokenRequest(cat: String) async throws -> RawResponse {
        let tokenURL = url("/oauth/token")
        let response = try await RawHTTP.form(
            tokenURL,
            [
                ("grant_type", "client_credentials"), ("scope", "urn:se:curity:scopes:haapi"),
                ("client_assertion_type", "urn:se:curity:attestation:client"), ("client_assertion", cat),
            ], headers: [("DPoP", try proof("POST", tokenURL))])
        remember(response)
        return response
    }

    /// A HAAPI request: Accept, `Authorization: DPoP`, a fresh proof with `ath`, and the session header.
    public func haapi(
        _ method: String, _ path: String, form: [(String, String)]? = nil, extraHeaders: [(String, String)] = []
    ) async throws -> RawResponse {
        let target = url(path)
        guard let token = haapiToken else { throw UnexpectedResponse("no HAAPI token") }
        var headers: [(String, String)] = [
            ("Accept", "application/vnd.auth+json"), ("Authorization", "DPoP " + token),
            ("DPoP", try proof(method, target, accessToken: token)),
        ]
        if let sessionID { headers.append(("Session-Id", sessionID)) }
        var body: Data?
        if let form {
            headers.append(("Content-Type", "application/x-www-form-urlencoded"))
            body = Data(FormURLEncoding.encode(form.map { (name: $0.0, value: $0.1) }).utf8)
        }
        let response = try await RawHTTP.send(method, target, headers: headers + extraHeaders, body: body)
        remember(response)
        return response
    }

    /// Follows a form action from a representation (the href, method and hidden fields the server sent).
    public func submit(_ action: JSONValue?, _ values: [(String, String)] = []) async throws -> RawResponse {
        guard let model = action?["model"], let href = model["href"]?.stringValue,
            let method = model["method"]?.stringValue
        else {
            throw UnexpectedResponse("not a form action: \(action?.serialized() ?? "nil")")
        }
        var form = values
        for field in model["fields"]?.arrayValue ?? [] where field["type"] == "hidden" {
            if let name = field["name"]?.stringValue, let value = field["value"]?.stringValue {
                form.append((name, value))
            }
        }
        if method == "GET" {
            let query =
                form.isEmpty
                ? "" : (href.contains("?") ? "&" : "?") + FormURLEncoding.encode(form.map { (name: $0.0, value: $0.1) })
            return try await haapi("GET", href + query)
        }
        return try await haapi(method, href, form: form)
    }

    /// Sends PKCE (S256) unless `extra` carries its own `code_challenge` or `usePKCE` is false; `redeem` sends the verifier.
    public func authorize(
        redirectURI: String = "app://haapi", scope: String = "openid profile", extra: [(String, String)] = [],
        usePKCE: Bool = true
    ) async throws -> RawResponse {
        var parameters = [
            ("client_id", clientID), ("response_type", "code"), ("redirect_uri", redirectURI), ("scope", scope),
        ]
        if !extra.contains(where: { $0.0 == "state" }) { parameters.append(("state", "st-1")) }
        parameters += extra
        pkce = nil
        sessionID = nil  // a new flow, as the SDK's start() does
        if usePKCE, !extra.contains(where: { $0.0 == "code_challenge" }) {
            let pair = PKCE()
            pkce = pair
            parameters += [("code_challenge", pair.codeChallenge), ("code_challenge_method", PKCE.method)]
        }
        let query = FormURLEncoding.encode(parameters.map { (name: $0.0, value: $0.1) })
        return try await haapi("GET", "/oauth/authorize?" + query)
    }

    /// Authorize → redirect → selector → the named authenticator's first step.
    public func startAuthenticator(
        _ id: String, redirectURI: String = "app://haapi", extra: [(String, String)] = [],
        usePKCE: Bool = true
    ) async throws -> RawResponse {
        let redirect = try await authorize(redirectURI: redirectURI, extra: extra, usePKCE: usePKCE)
        guard redirect.json["actions"]?[0] != nil else {
            throw UnexpectedResponse("authorize refused: \(redirect.status) \(redirect.text)")
        }
        var step = try await submit(redirect.json["actions"]?[0])
        let first = step.json["actions"]?[0]
        if first?["kind"] == "authenticator-selector" {
            let options = first?["model"]?["options"]?.arrayValue ?? []
            let option = options.first { ($0["model"]?["href"]?.stringValue ?? "").hasSuffix("/" + id) }
            step = try await submit(option)
        }
        return step
    }

    /// A complete password login up to the authorization code.
    public func passwordLogin(
        username: String = "demouser", password: String = "Password1", redirectURI: String = "app://haapi",
        extra: [(String, String)] = [], usePKCE: Bool = true
    ) async throws -> String {
        let login = try await startAuthenticator("password", redirectURI: redirectURI, extra: extra, usePKCE: usePKCE)
        let redirect = try await submit(login.json["actions"]?[0], [("userName", username), ("password", password)])
        guard redirect.json["actions"]?[0] != nil else {
            throw UnexpectedResponse("login refused: \(redirect.status) \(redirect.text)")
        }
        let final = try await submit(redirect.json["actions"]?[0])
        guard let code = final.json["properties"]?["code"]?.stringValue else {
            throw UnexpectedResponse("no code: \(final.status) \(final.text)")
        }
        return code
    }

    public func redeem(
        code: String, redirectURI: String = "app://haapi", withProof: Bool = true, extra: [(String, String)] = []
    ) async throws -> RawResponse {
        let tokenURL = url("/oauth/token")
        var headers: [(String, String)] = []
        if withProof { headers.append(("DPoP", try proof("POST", tokenURL))) }
        var parameters =
            [
                ("grant_type", "authorization_code"), ("client_id", clientID), ("code", code),
                ("redirect_uri", redirectURI),
            ] + extra
        if let pkce, !extra.contains(where: { $0.0 == "code_verifier" }) {
            parameters.append(("code_verifier", pkce.codeVerifier))
        }
        let response = try await RawHTTP.form(tokenURL, parameters, headers: headers)
        remember(response)
        return response
    }

    public func refresh(_ token: String, withKey signer: Dpop? = nil) async throws -> RawResponse {
        let tokenURL = url("/oauth/token")
        let proofMaker = signer ?? dpop
        let proof = try proofMaker.createProof(
            httpMethod: "POST", url: URL(string: tokenURL) ?? URL(fileURLWithPath: "/"), nonce: nonce)
        let response = try await RawHTTP.form(
            tokenURL, [("grant_type", "refresh_token"), ("client_id", clientID), ("refresh_token", token)],
            headers: [("DPoP", proof)])
        remember(response)
        return response
    }
}

/// A response that did not have the shape the client expected.
public struct UnexpectedResponse: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
