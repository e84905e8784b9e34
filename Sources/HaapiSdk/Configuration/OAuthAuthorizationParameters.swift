/// What `HaapiManager.start()` adds to the authorization request besides `client_id`, `response_type`
/// and `redirect_uri`.
public struct OAuthAuthorizationParameters: Sendable, Equatable {
    /// The scopes to ask for (`openid`, `profile`, …).
    public let scopes: [String]
    /// The OpenID Connect `nonce` the ID token must carry.
    public let nonce: String?
    /// The authentication context classes to ask for, in order of preference.
    public let acrValues: [String]
    /// A value the server echoes in the authorization response.
    public let state: String?
    /// A PKCE challenge the app made itself; by default the manager makes one per flow.
    public let codeChallenge: String?
    /// Any other parameter; names the SDK sets itself cannot be overridden here.
    public let extraRequestParameters: [String: String]

    /// Parameters for one authorization request; all optional.
    public init(
        scopes: [String] = [], nonce: String? = nil, acrValues: [String] = [], state: String? = nil,
        codeChallenge: String? = nil,
        extraRequestParameters: [String: String] = [:]
    ) {
        self.scopes = scopes
        self.nonce = nonce
        self.acrValues = acrValues
        self.state = state
        self.codeChallenge = codeChallenge
        self.extraRequestParameters = extraRequestParameters
    }

    /// The same parameters with another code challenge.
    func with(codeChallenge: String) -> OAuthAuthorizationParameters {
        OAuthAuthorizationParameters(
            scopes: scopes, nonce: nonce, acrValues: acrValues, state: state, codeChallenge: codeChallenge,
            extraRequestParameters: extraRequestParameters)
    }

    /// The query items, in a stable order.
    func queryItems(clientId: String, redirectURI: String) -> [(name: String, value: String)] {
        var items: [(name: String, value: String)] = [
            ("client_id", clientId), ("response_type", "code"), ("redirect_uri", redirectURI),
        ]
        if !scopes.isEmpty { items.append(("scope", scopes.joined(separator: " "))) }
        if !acrValues.isEmpty { items.append(("acr_values", acrValues.joined(separator: " "))) }
        if let nonce { items.append(("nonce", nonce)) }
        if let state { items.append(("state", state)) }
        if let codeChallenge {
            items.append(("code_challenge", codeChallenge))
            items.append(("code_challenge_method", "S256"))
        }
        let reserved = Set(items.map(\.name))
        for name in extraRequestParameters.keys.sorted() where !reserved.contains(name) {
            items.append((name, extraRequestParameters[name] ?? ""))
        }
        return items
    }
}

/// Called for each authorization request, so every flow can have fresh values (a new `nonce`, a new `state`).
public typealias OAuthAuthorizationParametersProvider = @Sendable () -> OAuthAuthorizationParameters
