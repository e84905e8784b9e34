/// Type-specific data of a representation (`properties`).
public protocol Properties: RawJSONRepresentable {}

/// Properties of a representation type this SDK has no model for; the raw JSON is all there is.
public struct GenericProperties: Properties, Hashable {
    public let rawJSON: JSONValue
}

/// Where a polling step stands: still `pending`, `done`, or `failed`; unknown values keep their text.
public enum PollingStatus: OpenEnum {
    /// Not finished: poll again after the interval.
    case pending
    /// Finished: follow the step's main action.
    case done
    /// Failed: follow the step's main action to see why.
    case failed
    case other(value: String)

    public static let knownCases: [PollingStatus] = [.pending, .done, .failed]

    public var rawValue: String {
        switch self {
        case .pending: "pending"
        case .done: "done"
        case .failed: "failed"
        case .other(let value): value
        }
    }
}

/// Properties of a polling step. Times arrive as JSON numbers on some servers and as strings of
/// digits on others; both are accepted (see docs/WIRE-DECISIONS.md).
public struct PollingProperties: Properties, Hashable {
    /// Whether to poll again (`pending`) or follow the step's main action.
    public let status: PollingStatus
    /// Where a code or link was sent, masked by the server (e.g. `xxxx@xxxxple.com`).
    public let recipientOfCommunication: String?
    /// The server's recommended polling interval in milliseconds.
    public let interval: Int?
    /// How long the whole polling session may take, in seconds.
    public let maxWaitTime: Int?
    /// How much of `maxWaitTime` is left, in seconds.
    public let maxWaitRemainingTime: Int?
    public let rawJSON: JSONValue

    init(_ cursor: ObjectCursor) throws {
        status = PollingStatus(rawValue: try cursor.string("status"))
        recipientOfCommunication = try cursor.optionalString("recipientOfCommunication")
        interval = try cursor.flexibleInt("interval")
        maxWaitTime = try cursor.flexibleInt("maxWaitTime")
        maxWaitRemainingTime = try cursor.flexibleInt("maxWaitRemainingTime")
        if let interval, interval < 0 { throw cursor.invalid("interval", "negative interval \(interval)") }
        rawJSON = cursor.raw
    }
}

/// The OAuth authorization response that ends a flow.
public struct OAuthAuthorizationResponseProperties: Properties, Hashable {
    /// The authorization code to redeem at the token endpoint.
    public let code: String?
    /// The `state` the authorization request sent, echoed for the client to check.
    public let state: String?
    /// The scopes granted, when they differ from the ones asked for.
    public let scope: String?
    /// The issuer that answered (RFC 9207), for clients that check it.
    public let iss: String?
    /// The OpenID Connect session state, when the server sends one.
    public let sessionState: String?
    /// Present only for implicit or hybrid flows.
    public let accessToken: String?
    /// The access token's type, with `accessToken`.
    public let tokenType: String?
    /// An ID token, in hybrid flows.
    public let idToken: String?
    /// A refresh token, when the server issues tokens in the authorization response.
    public let refreshToken: String?
    /// Seconds until the access token in this response expires, when there is one.
    public let expiresIn: Int?
    public let rawJSON: JSONValue

    init(_ cursor: ObjectCursor) throws {
        code = try cursor.optionalString("code")
        state = try cursor.optionalString("state")
        scope = try cursor.optionalString("scope")
        iss = try cursor.optionalString("iss")
        sessionState = try cursor.optionalString("session_state")
        accessToken = try cursor.optionalString("access_token")
        tokenType = try cursor.optionalString("token_type")
        idToken = try cursor.optionalString("id_token")
        refreshToken = try cursor.optionalString("refresh_token")
        expiresIn = try cursor.flexibleInt("expires_in")
        rawJSON = cursor.raw
    }
}
